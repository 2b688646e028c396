import type { CompiledPattern } from '../../../src/api/patterns';
import { matcherFor, type PatternMatcher } from './pattern-matcher';

/**
 * Recovers codes spoken as letters and digits ("A M Z four seven one", "B seven double five Q",
 * "alpha bravo", "two nine oh four") into the written form a pattern describes ("AMZ471"), when and
 * only when the run of spoken symbols matches a pattern; everything else is left untouched.
 */

/** One spoken symbol: the characters it may stand for ("oh" is 0 or O). */
type Symbol = readonly string[];

/*
 * The word tables are Maps, looked up with get(): a word from the transcript is a key, and on a plain
 * object "constructor", "__proto__" or "toString" would find Object.prototype's members.
 */
const table = <T>(entries: Record<string, T>): ReadonlyMap<string, T> => new Map(Object.entries(entries));

const DIGIT_WORDS = table({
  zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
});
const TEENS = table({
  ten: '10', eleven: '11', twelve: '12', thirteen: '13', fourteen: '14', fifteen: '15', sixteen: '16', seventeen: '17', eighteen: '18', nineteen: '19',
});
const TENS = table({ twenty: '2', thirty: '3', forty: '4', fifty: '5', sixty: '6', seventy: '7', eighty: '8', ninety: '9' });
const NATO = table({
  alpha: 'A', alfa: 'A', bravo: 'B', charlie: 'C', delta: 'D', echo: 'E', foxtrot: 'F', golf: 'G', hotel: 'H', india: 'I',
  juliet: 'J', juliett: 'J', kilo: 'K', lima: 'L', mike: 'M', november: 'N', oscar: 'O', papa: 'P', quebec: 'Q', romeo: 'R',
  sierra: 'S', tango: 'T', uniform: 'U', victor: 'V', whiskey: 'W', whisky: 'W', xray: 'X', yankee: 'Y', zulu: 'Z',
});
/** Letter names as words; not the ones that are common words too (you, are, see, why, be, oh). */
const LETTER_NAMES = table({
  bee: 'B', dee: 'D', eff: 'F', gee: 'G', aitch: 'H', jay: 'J', kay: 'K', el: 'L', em: 'M', en: 'N', pee: 'P',
  cue: 'Q', queue: 'Q', ar: 'R', ess: 'S', tee: 'T', vee: 'V', doubleu: 'W', ex: 'X', wye: 'Y', zed: 'Z', zee: 'Z',
});
/**
 * Common words that sound like a letter or digit ("for" 4, "be" B): read so only between other
 * symbols, in a run with a letter or a written character that matches a pattern as a whole
 * ("A, mz, for 7-1" → AMZ471; never "one to four" → 124).
 */
const HOMOPHONES = table<Symbol>({
  for: ['4'], to: ['2'], too: ['2'], won: ['1'], ate: ['8'], be: ['B'], see: ['C'], sea: ['C'], you: ['U'],
  are: ['R'], why: ['Y'], eye: ['I'], tea: ['T'], pea: ['P'],
});
const REPEATS = table({ double: 2, triple: 3 });
const SEPARATOR_WORDS = new Set(['dash', 'hyphen']);

/** How one word reads inside a code; null when it cannot be part of one. */
type WordReading =
  | { kind: 'symbols'; symbols: Symbol[]; homophone?: true; numberWord?: true; cluster?: true }
  | { kind: 'tens'; digit: string }
  | { kind: 'repeat'; times: number }
  | { kind: 'separator' }
  /** A hyphenated word mixing spoken and written parts ("XR-Triple", "B-seven"), read part by part. */
  | { kind: 'parts'; parts: WordReading[] };

/** The word without surrounding punctuation; inner '-' and '.' are kept (A.M.Z., 4-7-1, X-ray). */
function core(word: string): string {
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

function readWord(word: string): WordReading | null {
  const w = core(word);
  if (!w) return null;
  const lower = w.toLowerCase();
  const key = lower.replace(/[-.]/g, '');
  const homophone = HOMOPHONES.get(key);
  if (homophone) return { kind: 'symbols', symbols: [homophone], homophone: true };
  const digit = DIGIT_WORDS.get(key);
  if (digit) return { kind: 'symbols', symbols: key === 'oh' ? [['0', 'O']] : [[digit]], numberWord: true };
  const teen = TEENS.get(key);
  if (teen) return { kind: 'symbols', symbols: [...teen].map((c) => [c]), numberWord: true };
  const tens = TENS.get(key);
  if (tens) return { kind: 'tens', digit: tens };
  const letter = NATO.get(key) ?? LETTER_NAMES.get(key);
  if (letter) return { kind: 'symbols', symbols: [[letter]] };
  const times = REPEATS.get(key);
  if (times) return { kind: 'repeat', times };
  if (SEPARATOR_WORDS.has(key)) return { kind: 'separator' };
  if (/^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u.test(w)) {
    const parts = w.split('-').map(readWord);
    const spoken = parts.some((r) => r && r.kind !== 'symbols');
    const wordy = w.split('-').some((part) => part.length > 1 && /^[a-z]/i.test(part) && !/^[A-Z0-9]+$/.test(part));
    if ((spoken || wordy) && parts.every((r) => r !== null)) return { kind: 'parts', parts: parts as WordReading[] };
  }
  // A single letter in any case, or written code characters: capitals and digits ("AMZ", "471",
  // "KL51", "4-7-1"), letters one by one ("a.m.z"), or any case where digits show a code ("b-75Q").
  if (!/^[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*$/.test(w)) return null;
  // letters without a vowel ("mz", "kl") are no English word: letters written as one (but "hmm")
  if (/^[b-df-hj-np-tv-xz]{2,4}$/.test(w)) return { kind: 'symbols', symbols: [...w.toUpperCase()].map((c) => [c]), cluster: true };
  const compact = w.replace(/[-.]/g, '');
  const spelled = w.split(/[-.]/).every((part) => part.length === 1);
  const written = spelled || /^[A-Z0-9]+$/.test(compact) || /\d/.test(compact);
  if (!written) return null;
  return { kind: 'symbols', symbols: [...key.toUpperCase()].map((c) => (c === 'O' ? ['O', '0'] : c === '0' ? ['0', 'O'] : [c])) };
}

/** A word read as part of a spoken code, unambiguously: its symbols, or a repeat ("double") of the next one. */
export type SpokenCodeWord = { symbols: readonly Symbol[] } | { repeat: number };

/**
 * How a word reads inside a spoken code when it reads so on its own: digit, letter and NATO names,
 * single letters, written capitals and digits, "double"/"triple". Not the words that read as a
 * symbol only between others (homophones such as "for", letter clusters such as "mz") nor tens.
 */
export function spokenCodeWord(word: string): SpokenCodeWord | null {
  const r = readWord(word);
  if (r?.kind === 'repeat') return { repeat: r.times };
  if (r?.kind !== 'symbols' || r.homophone || r.cluster) return null;
  return { symbols: r.symbols };
}

/**
 * Whether a word may be part of a spoken or written code, short of the common words that may also
 * read as one ("a", "I", "for", "you"): a digit, a letter or digit name, capitals, "double" …
 */
export function mayBeCodeWord(word: string): boolean {
  const r = readWord(word);
  if (!r || (r.kind === 'symbols' && r.homophone)) return false;
  return !/^(?:a|i)$/i.test(core(word));
}

/**
 * The symbols spoken by a run of words, or null when the run is not a code reading: every word must
 * read as code material, "double"/"triple" must precede a single symbol, separators sit inside.
 */
function spokenSymbols(words: readonly (WordReading | null)[]): Symbol[] | null {
  const readings = words.flatMap((r) => (r?.kind === 'parts' ? r.parts : [r]));
  // "for" as 4 in "A, mz, for 7-1", not in "one to four" or at the edge of a run ("be 759")
  // and "mz" as letters next to some other code material, not "hmm" alone
  const sym = readings.map((r) => (r?.kind === 'symbols' ? r : null));
  if (sym.some((r) => r?.homophone)) {
    if (sym[0]?.homophone || sym[sym.length - 1]?.homophone) return null;
    if (!sym.some((r) => r && !r.homophone && !r.numberWord)) return null;
  }
  if (sym.some((r) => r?.cluster) && !readings.some((r, i) => r && r.kind !== 'separator' && !sym[i]?.cluster && !sym[i]?.homophone)) return null;
  const out: Symbol[] = [];
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i];
    if (!r) return null;
    if (r.kind === 'separator') {
      if (i === 0 || i === readings.length - 1) return null;
      continue;
    }
    if (r.kind === 'repeat') {
      const next = readings[i + 1];
      if (next?.kind !== 'symbols' || next.symbols.length !== 1) return null;
      for (let k = 0; k < r.times; k++) out.push(next.symbols[0]!);
      i++;
      continue;
    }
    if (r.kind === 'tens') {
      const next = readings[i + 1];
      const unit = next?.kind === 'symbols' && next.symbols.length === 1 ? next.symbols[0]!.find((c) => c >= '1' && c <= '9') : undefined;
      out.push([r.digit]);
      if (unit) {
        out.push([unit]);
        i++;
      } else {
        out.push(['0']);
      }
      continue;
    }
    if (r.kind === 'parts') return null; // flattened above: parts never nest
    out.push(...r.symbols);
  }
  return out.length > 0 ? out : null;
}

/** A written code and the pattern it matches. */
type WrittenCode = { text: string; pattern: string };

/**
 * The written form of each prefix of `symbols` (null where no pattern matches it whole; the list ends
 * where no pattern can go on), stepped through the patterns' matcher as the pattern pass steps a code.
 * Per state only the shortest text is kept, so the work is bounded by symbols × states however
 * ambiguous a pattern is, and an optional separator is written only when the pattern needs it.
 */
function writtenForms(matcher: PatternMatcher, patterns: readonly CompiledPattern[], symbols: readonly Symbol[], checkpoint?: () => void): (WrittenCode | null)[] {
  let reached = new Map([[matcher.start.key, { state: matcher.start, text: '' }]]);
  const forms: (WrittenCode | null)[] = [];
  for (const symbol of symbols) {
    const next: typeof reached = new Map();
    for (const { state, text } of reached.values()) {
      checkpoint?.();
      for (const r of matcher.readSymbol(state, symbol)) {
        const had = next.get(r.state.key);
        if (!had || text.length + r.written.length < had.text.length) next.set(r.state.key, { state: r.state, text: text + r.written });
      }
    }
    reached = next;
    if (reached.size === 0) break;
    // the shortest, then the earliest pattern
    let best: { text: string; pattern: number } | null = null;
    for (const { state, text } of reached.values()) {
      const pattern = state.accepted[0];
      if (pattern !== undefined && (!best || text.length < best.text.length || (text.length === best.text.length && pattern < best.pattern))) best = { text, pattern };
    }
    forms.push(best && { text: best.text, pattern: patterns[best.pattern]!.source });
  }
  return forms;
}

/** A run of words [start, end) that reads as a code, and its written form. */
export interface PatternSpan {
  start: number;
  end: number;
  text: string;
  pattern: string;
}

/** Longest spoken run considered: a 32-character code spoken with a word per character, and a few fillers. */
const MAX_SPAN_WORDS = 40;

/**
 * Runs of `words` that spell a code matching one of `patterns`, left to right, the longest run first
 * (then the shortest written form). A run already in written form is reported too. `checkpoint` may
 * throw to cancel the reading.
 */
export function findPatternSpans(words: readonly string[], patterns: readonly CompiledPattern[], checkpoint?: () => void): PatternSpan[] {
  if (patterns.length === 0) return [];
  const matcher = matcherFor(patterns);
  const readings = words.map(readWord);
  const spans: PatternSpan[] = [];
  for (let i = 0; i < words.length; ) {
    let found: PatternSpan | null = null;
    if (readings[i]) {
      let last = i;
      while (last < words.length && last - i < MAX_SPAN_WORDS && readings[last]) last++;
      // a shorter run mostly reads the symbols of a longer one less its tail: one reading answers both
      let read: { symbols: readonly Symbol[]; forms: (WrittenCode | null)[] } | null = null;
      for (let j = last; j > i && !found; j--) {
        const symbols = spokenSymbols(readings.slice(i, j));
        if (!symbols) continue;
        if (!read || !begins(read.symbols, symbols)) read = { symbols, forms: writtenForms(matcher, patterns, symbols, checkpoint) };
        const form = read.forms[symbols.length - 1];
        if (form) found = { start: i, end: j, ...form };
      }
    }
    if (found) {
      spans.push(found);
      i = found.end;
    } else {
      i++;
    }
  }
  return spans;
}

/** Whether `symbols` begin with `prefix`. */
const begins = (symbols: readonly Symbol[], prefix: readonly Symbol[]) =>
  prefix.length <= symbols.length && prefix.every((s, i) => s.length === symbols[i]!.length && s.every((c, k) => c === symbols[i]![k]));

/**
 * Text with every spoken code that matches a pattern written in its canonical form:
 * "My order is A M Z four seven one." → "My order is AMZ471." Punctuation before the first and
 * after the last word of a code is kept; punctuation between its words ("A, M, Z") is dropped.
 */
export function applyPatterns(text: string, patterns: readonly CompiledPattern[], checkpoint?: () => void): string {
  const parts = text.split(/(\s+)/);
  const words = parts.flatMap((word, k) => (k % 2 === 0 ? [{ word, space: parts[k + 1] ?? '' }] : []));
  const merged = rewriteCodes(words, (w) => w.word, patterns, checkpoint, (run, word) => ({ word, space: run.at(-1)!.space }));
  return merged.map((w) => w.word + w.space).join('');
}

/** A word with times, as the engine and the transcript carry them. */
export interface TimedWord {
  text: string;
  startMs: number;
  endMs: number;
  confidence: number;
}

/**
 * Words with each spoken code merged into one word holding its written form, spanning the
 * times of the words it replaces, with the lowest confidence among them.
 */
export function applyPatternsToWords<W extends TimedWord>(words: readonly W[], patterns: readonly CompiledPattern[], checkpoint?: () => void): W[] {
  return rewriteCodes(words, (w) => w.text, patterns, checkpoint, (run, text) => ({
    ...run[0]!,
    text,
    endMs: run.at(-1)!.endMs,
    confidence: Math.min(...run.map((x) => x.confidence)),
  }));
}

/** `items` with each run that spells a code replaced by `merge` of the run and its written form, the run's outer punctuation kept. */
function rewriteCodes<T>(items: readonly T[], textOf: (t: T) => string, patterns: readonly CompiledPattern[], checkpoint: (() => void) | undefined, merge: (run: T[], text: string) => T): T[] {
  const spans = findPatternSpans(items.map(textOf), patterns, checkpoint);
  const out: T[] = [];
  let w = 0;
  for (const span of spans) {
    out.push(...items.slice(w, span.start));
    const run = items.slice(span.start, span.end);
    const lead = /^\s*[^\p{L}\p{N}\s]*/u.exec(textOf(run[0]!))![0];
    const trail = /[^\p{L}\p{N}]*$/u.exec(textOf(run.at(-1)!))![0].replace(/^[,;:]+/, '');
    out.push(merge(run, `${lead}${span.text}${trail}`));
    w = span.end;
  }
  return [...out, ...items.slice(w)];
}
