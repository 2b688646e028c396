/**
 * The one validator of transcription parameters (spec 4.3), shared by the JS API and the service worker.
 *
 * Input: the request's URLSearchParams, or an object with the same names (JS API). Object values may
 * be native (boolean, number, string[]) or the wire strings; both go through the same rules, and
 * `undefined` or `null` means "not given". Any violation throws ApiError 400 invalid_query_parameter
 * whose detail starts with the parameter's name.
 *
 * Decisions where the spec is silent:
 * - Unknown parameters are rejected. A misspelt flag (`diarise=true`, `include_word=true`) would
 *   otherwise return a plausible but wrong transcript, which a client cannot detect.
 * - A parameter given more than once is rejected, even with equal values: "first wins" and "last
 *   wins" are both silent guesses, and lists already have their comma form.
 * - Scalars are taken literally: no trimming, no case folding. ' 1', 'TRUE', 'Auto' are errors.
 * - Booleans: exactly `true` or `false` (or a JS boolean). Not 1/0/yes/on, not an empty value.
 * - Integers (sample_rate, channels, max_speakers): decimal digits only; no sign, point, exponent
 *   or hex ('1.0', '+2', '1e3', '0x10' are errors). Numbers in the object form must be integers.
 * - sample_rate: 1000..384000 Hz, the range src/audio's raw decoders accept (below 1000 Hz no speech
 *   survives; 384000 is the highest common studio rate).
 * - bias_strength: a finite decimal number >= 0, exponent allowed ('1e-3'); unbounded above as the
 *   vendor says. Any minus sign is an error, '-0' included; 'NaN', 'Infinity', hex and '1e309'
 *   (which overflows) are errors.
 * - Lists (language, phrases, patterns): comma-separated on the wire, or a string[] whose items may
 *   not contain commas (so both doors accept exactly the same values). Items are trimmed; an empty
 *   item (`a,,b`, a trailing comma, an empty value) is an error; duplicates are dropped, first
 *   occurrence kept. Limits count the items as given, before duplicates are dropped.
 * - language: case-insensitive ('EN' -> 'en'); every code must be in ctx.supportedLanguages and the
 *   error lists the valid codes. One code gives a one-item list.
 * - phrases: at most 250 items of at most 100 characters, none holding special-token text (`<|…|>`),
 *   control, bidirectional-formatting or other invisible characters (phrase-text.ts, the rule custom
 *   models share).
 * - patterns: at most 50, each parsed by patterns.ts.
 * - custom_model_id: taken exactly; 1..128 printable ASCII characters without spaces. Whether the
 *   model exists is the store's question (400 session_rejected when it does not).
 * - sample_rate and channels are validated for every encoding but only used by the raw ones;
 *   max_speakers is validated and kept even when diarize=false (the engine ignores it then).
 * - Any value longer than 65536 characters is rejected before it is parsed.
 * - All values are validated first; then `patterns` with `phrases` or `custom_model_id` is
 *   400 session_rejected (spec 4.3 rule 1).
 */
import { AUDIO_ENCODINGS, type AudioEncoding } from '../audio/index';
import { DEFAULT_BIAS_STRENGTH, SAMPLE_RATE, type FillerMode } from '../../engine/protocol';
import { invalidParam, sessionRejected } from './errors';
import { parsePattern, splitPatterns } from './patterns';
import { phraseTextProblem } from './phrase-text';

export { AUDIO_ENCODINGS, type AudioEncoding };

export const FILLER_MODES = ['clean', 'natural', 'verbatim'] as const satisfies readonly FillerMode[];

export interface TranscriptionParams {
  encoding: AudioEncoding;
  sample_rate: number;
  channels: number;
  /** Candidate languages, lowercase, unique; null = detect each utterance among all. */
  language: string[] | null;
  phrases: string[] | null;
  custom_model_id: string | null;
  bias_strength: number;
  include_timestamps: boolean;
  include_words: boolean;
  include_language: boolean;
  include_confidence: boolean;
  diarize: boolean;
  max_speakers: number | null;
  patterns: string[] | null;
  filler_mode: FillerMode;
}

/** The object form of the JS API: the spec's names, native or wire-string values. */
export type TranscriptionParamsInput = {
  [K in keyof TranscriptionParams]?:
    | (TranscriptionParams[K] extends string[] | null ? string | string[] : never)
    | (TranscriptionParams[K] extends number | null ? number | string : never)
    | (TranscriptionParams[K] extends boolean ? boolean | string : never)
    | (TranscriptionParams[K] extends string | null ? string : never)
    | null
    | undefined;
};

export interface ParamsContext {
  /** Codes the loaded model supports, lowercase (WHISPER_LANGUAGES for the shipped models). */
  supportedLanguages: readonly string[];
}

export const DEFAULT_TRANSCRIPTION_PARAMS: Readonly<TranscriptionParams> = Object.freeze({
  encoding: 'auto',
  sample_rate: SAMPLE_RATE,
  channels: 1,
  language: null,
  phrases: null,
  custom_model_id: null,
  bias_strength: DEFAULT_BIAS_STRENGTH,
  include_timestamps: false,
  include_words: false,
  include_language: false,
  include_confidence: false,
  diarize: false,
  max_speakers: null,
  patterns: null,
  filler_mode: 'natural',
});

export const PARAM_LIMITS = Object.freeze({
  sampleRate: { min: 1000, max: 384000 },
  channels: { min: 1, max: 10 },
  maxSpeakers: { min: 1, max: 4 },
  phrases: 250,
  phraseLength: 100,
  patterns: 50,
  customModelIdLength: 128,
  valueLength: 65536,
});

/** Spec order; also the key order of toQueryString. */
export const PARAM_NAMES = Object.keys(DEFAULT_TRANSCRIPTION_PARAMS) as Array<keyof TranscriptionParams>;
const known: ReadonlySet<string> = new Set(PARAM_NAMES);

/** A short, quoted rendering of a bad value for error details. */
function show(v: unknown): string {
  if (typeof v === 'string') {
    return v.length > 40 ? `${JSON.stringify(v.slice(0, 40))}… (${v.length} characters)` : JSON.stringify(v);
  }
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (Array.isArray(v)) return 'an array';
  return v === null ? 'null' : `a ${typeof v}`;
}

const fail = (name: string, what: string): never => {
  throw invalidParam(`${name}: ${what}`);
};

function checkLength(name: string, v: string): string {
  if (v.length > PARAM_LIMITS.valueLength) {
    fail(name, `value is ${v.length} characters long; at most ${PARAM_LIMITS.valueLength}`);
  }
  return v;
}

function parseEnum<T extends string>(name: string, v: unknown, allowed: readonly T[]): T {
  if (typeof v !== 'string') return fail(name, `expected a string, got ${show(v)}`);
  if (!(allowed as readonly string[]).includes(v)) {
    fail(name, `${show(checkLength(name, v))} is not one of ${allowed.join(', ')}`);
  }
  return v as T;
}

function parseBoolean(name: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return fail(name, `expected true or false, got ${show(v)}`);
}

function parseInteger(name: string, v: unknown, { min, max }: { min: number; max: number }): number {
  let n: number;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return fail(name, `expected an integer from ${min} to ${max}, got ${show(v)}`);
    n = v;
  } else if (typeof v === 'string') {
    if (!/^[0-9]+$/.test(checkLength(name, v))) {
      return fail(name, `expected an integer from ${min} to ${max} written in decimal digits, got ${show(v)}`);
    }
    n = Number(v);
  } else {
    return fail(name, `expected an integer, got ${show(v)}`);
  }
  if (n < min || n > max) fail(name, `must be from ${min} to ${max}, got ${show(v)}`);
  return n;
}

const DECIMAL = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

function parseNonNegative(name: string, v: unknown): number {
  let n: number;
  if (typeof v === 'number') {
    n = v;
  } else if (typeof v === 'string') {
    if (!DECIMAL.test(checkLength(name, v))) return fail(name, `expected a decimal number, got ${show(v)}`);
    n = Number(v);
  } else {
    return fail(name, `expected a number, got ${show(v)}`);
  }
  if (Number.isNaN(n)) fail(name, `expected a number, got ${show(v)}`);
  if (!Number.isFinite(n)) fail(name, `must be finite, got ${show(v)}`);
  if (n < 0 || Object.is(n, -0) || (typeof v === 'string' && v.startsWith('-'))) {
    fail(name, `must be non-negative, got ${show(v)}`);
  }
  return n;
}

/** Splits and trims a list; `split` turns one wire string into items (patterns keep {m,n} commas). */
function parseList(name: string, v: unknown, split: (raw: string) => string[]): string[] {
  let items: string[];
  if (typeof v === 'string') {
    items = split(checkLength(name, v));
  } else if (Array.isArray(v)) {
    if (v.length === 0) return fail(name, 'must not be an empty list');
    items = v.map((item, i) => {
      if (typeof item !== 'string') return fail(name, `item ${i + 1} must be a string, got ${show(item)}`);
      const parts = split(checkLength(name, item));
      if (parts.length !== 1) fail(name, `item ${i + 1} contains a comma that separates values: ${show(item)}`);
      return item;
    });
  } else {
    return fail(name, `expected a comma-separated string or an array of strings, got ${show(v)}`);
  }
  return items.map((raw, i) => {
    const item = raw.trim();
    if (item === '') fail(name, items.length === 1 ? 'must not be empty' : `item ${i + 1} is empty`);
    return item;
  });
}

const splitComma = (raw: string) => raw.split(',');
const unique = (items: string[]) => [...new Set(items)];

function parseLanguages(v: unknown, supported: readonly string[]): string[] {
  const codes = unique(parseList('language', v, splitComma).map((c) => c.toLowerCase()));
  const bad = codes.find((c) => !supported.includes(c));
  if (bad !== undefined) {
    fail('language', `unsupported code ${show(bad)}; valid codes: ${[...supported].sort().join(', ')}`);
  }
  return codes;
}

function parsePhrases(v: unknown): string[] {
  const items = parseList('phrases', v, splitComma);
  if (items.length > PARAM_LIMITS.phrases) {
    fail('phrases', `${items.length} phrases given; at most ${PARAM_LIMITS.phrases}`);
  }
  items.forEach((p, i) => {
    if (p.length > PARAM_LIMITS.phraseLength) {
      fail('phrases', `phrase ${i + 1} is ${p.length} characters long; at most ${PARAM_LIMITS.phraseLength}`);
    }
    const problem = phraseTextProblem(p);
    if (problem) fail('phrases', `phrase ${i + 1} ${problem}`);
  });
  return unique(items);
}

function parsePatternList(v: unknown): string[] {
  const items = parseList('patterns', v, splitPatterns);
  if (items.length > PARAM_LIMITS.patterns) {
    fail('patterns', `${items.length} patterns given; at most ${PARAM_LIMITS.patterns}`);
  }
  items.forEach((p) => parsePattern(p));
  return unique(items);
}

function parseCustomModelId(v: unknown): string {
  if (typeof v !== 'string') return fail('custom_model_id', `expected a string, got ${show(v)}`);
  const max = PARAM_LIMITS.customModelIdLength;
  if (v.length === 0 || v.length > max || !/^[\x21-\x7e]+$/.test(v)) {
    fail('custom_model_id', `expected 1 to ${max} printable ASCII characters without spaces, got ${show(v)}`);
  }
  return v;
}

/** Collects given values by name, rejecting unknown and repeated names. */
function collect(input: URLSearchParams | Record<string, unknown>): Map<string, unknown> {
  const given = new Map<string, unknown>();
  const add = (name: string, value: unknown) => {
    if (!known.has(name)) {
      fail(show(name), `unknown parameter; known parameters: ${PARAM_NAMES.join(', ')}`);
    }
    if (given.has(name)) fail(name, 'given more than once');
    given.set(name, value);
  };
  if (input instanceof URLSearchParams) {
    for (const [name, value] of input) add(name, value);
  } else if (Object.prototype.toString.call(input) === '[object Object]') {
    for (const [name, value] of Object.entries(input)) {
      if (value !== undefined && value !== null) add(name, value);
    }
  } else {
    throw invalidParam(`parameters must be URLSearchParams or a plain object, got ${show(input)}`);
  }
  return given;
}

export function parseTranscriptionParams(
  input: URLSearchParams | Record<string, unknown> | TranscriptionParamsInput,
  ctx: ParamsContext,
): TranscriptionParams {
  const given = collect(input as URLSearchParams | Record<string, unknown>);
  const p: TranscriptionParams = { ...DEFAULT_TRANSCRIPTION_PARAMS };
  const has = (name: keyof TranscriptionParams) => given.has(name);
  const get = (name: keyof TranscriptionParams) => given.get(name);

  if (has('encoding')) p.encoding = parseEnum('encoding', get('encoding'), AUDIO_ENCODINGS);
  if (has('sample_rate')) p.sample_rate = parseInteger('sample_rate', get('sample_rate'), PARAM_LIMITS.sampleRate);
  if (has('channels')) p.channels = parseInteger('channels', get('channels'), PARAM_LIMITS.channels);
  if (has('language')) p.language = parseLanguages(get('language'), ctx.supportedLanguages);
  if (has('phrases')) p.phrases = parsePhrases(get('phrases'));
  if (has('custom_model_id')) p.custom_model_id = parseCustomModelId(get('custom_model_id'));
  if (has('bias_strength')) p.bias_strength = parseNonNegative('bias_strength', get('bias_strength'));
  for (const flag of ['include_timestamps', 'include_words', 'include_language', 'include_confidence', 'diarize'] as const) {
    if (has(flag)) p[flag] = parseBoolean(flag, get(flag));
  }
  if (has('max_speakers')) p.max_speakers = parseInteger('max_speakers', get('max_speakers'), PARAM_LIMITS.maxSpeakers);
  if (has('patterns')) p.patterns = parsePatternList(get('patterns'));
  if (has('filler_mode')) p.filler_mode = parseEnum('filler_mode', get('filler_mode'), FILLER_MODES);

  if (p.patterns && p.phrases) throw sessionRejected('patterns cannot be combined with phrases');
  if (p.patterns && p.custom_model_id) throw sessionRejected('patterns cannot be combined with custom_model_id');
  return p;
}

/**
 * The canonical query string: spec order, only values that differ from the defaults, lists joined
 * with commas, form-encoded. `parseTranscriptionParams(new URLSearchParams(toQueryString(p)))`
 * gives back `p` for any `p` that came out of parseTranscriptionParams.
 */
export function toQueryString(params: TranscriptionParams): string {
  const out = new URLSearchParams();
  for (const name of PARAM_NAMES) {
    const value = params[name];
    const fallback = DEFAULT_TRANSCRIPTION_PARAMS[name];
    if (value === null || value === fallback) continue;
    out.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return out.toString();
}
