import type { CompiledPattern } from '../../../src/api/patterns';
import type { DecodeOptions } from '../../decoding/fallback';
import { logSumExp, type LogitsProcessor } from '../../whisper/logits';
import type { WhisperVocabulary } from '../../whisper/tokenizer';
import type { EncodedWindow, WhisperModel } from '../../whisper/model';
import { beamLoop, passProcessors, processedRow, rewrittenPass, rowAt, type GeneratedToken, type Generation } from '../../whisper/generate';
import { spokenCodes, tokenTable, writtenCodes, type CodeForm, type CodeState } from './code-forms';
import { passWordPlaces } from '../../postprocess/words';
import { matcherFor, type PatternMatcher } from './pattern-matcher';
import { decodeOn, type DecodedOn, type Framing } from './decode-on';
import { DEFAULT_BIAS_STRENGTH } from '../../protocol';
import { findPatternSpans, mayBeCodeWord } from './spoken-patterns';

/**
 * Decode-time help for `patterns`: where a code may have been spoken ("A, mz, for 7-1"), the window is
 * decoded again with the tokens before forced and the next ones held to a code a pattern matches,
 * written ("AMZ471") or as spoken words the text rewrite reads ("B seven double five Q"), then freely
 * on. A constrained pass replaces the first only if its log-probability plus a credit per code beats it.
 */

/**
 * Credit per code (nats, at the default strength) a constrained pass gets over the first pass. Bias set,
 * tiny and base: right codes trail by ≤ 6 nats, passes over unrelated speech by ≥ 12.
 */
export const CODE_CREDIT = 7;
/** Constrained passes per window (each costs a partial decode and a scoring run). */
const MAX_TRIES = 4;
/** A place is tried when a code's first token is at most this much less likely than the first pass's token there. */
const START_MARGIN = 12;
/** Words after a possible start within which code material (a digit, a letter name …) must appear. */
const LOOKAHEAD_WORDS = 3;
/** Candidate places further apart than this (tokens) start different codes: a spoken code's symbols are a token or two each. */
const CODE_GAP_TOKENS = 8;

/** A place in the current tokens where a code may start: token index, and how much a code start trails the token there. */
interface Place {
  index: number;
  gap: number;
  /** Log-probability of the tokens before it. */
  before: number;
  /** Where the text rewrite already reads a code from here, its patterns: only their spoken codes are tried. Null elsewhere. */
  coveredBy: ReadonlySet<number> | null;
}

interface Scored {
  logprob: number;
  places: Place[];
}

/** One teacher-forced run over `ids`: the sequence's log-probability and the places worth trying. */
async function scoreAndPlaces(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  ids: readonly GeneratedToken[],
  matcher: PatternMatcher,
  patterns: readonly CompiledPattern[],
): Promise<Scored> {
  const v = model.vocab;
  const table = tokenTable(v);
  const starts = candidateStarts(transcriptWords(ids, v), patterns);
  const targets = [...ids.map((t) => t.id), v.eot];
  let logprob = 0;
  const places: Place[] = [];
  await model.score(encoded, opts, targets.slice(0, -1), 0, (i, row, z) => {
    const before = logprob;
    logprob += row[targets[i]!]! - z;
    const coveredBy = starts.get(i);
    if (coveredBy === undefined) return;
    let best = -Infinity;
    for (const { id, text } of table.codeTokens) {
      if (text[0] === ' ' && row[id]! > best && matcher.advance(matcher.start, text.slice(1))) best = row[id]!;
    }
    if (best > -Infinity) places.push({ index: i, gap: row[targets[i]!]! - best, before, coveredBy });
  });
  return { logprob, places: places.filter((p) => p.gap <= START_MARGIN) };
}

/** A word of the pass, punctuation included, at the index of its first token. */
interface Word {
  index: number;
  text: string;
}

/** The pass's words as the transcript will have them (words.ts), as the text rewrite will read them. */
function transcriptWords(ids: readonly GeneratedToken[], v: WhisperVocabulary): Word[] {
  return passWordPlaces(ids, v).map((w) => ({ index: w.all[0]!, text: v.decode(w.all.map((i) => ids[i]!.id)).trim() }));
}

/**
 * Token indices of words that may begin a code, with Place.coveredBy: the first word of a code the text
 * rewrite reads, and a word with code material at most LOOKAHEAD_WORDS words on ("ticket decay 831-2").
 */
function candidateStarts(words: readonly Word[], patterns: readonly CompiledPattern[]): Map<number, ReadonlySet<number> | null> {
  const texts = words.map((w) => w.text);
  const covered = new Set<number>();
  const starts = new Map<number, ReadonlySet<number> | null>();
  for (const s of findPatternSpans(texts, patterns)) {
    for (let k = s.start; k < s.end; k++) covered.add(k);
    starts.set(words[s.start]!.index, new Set(patterns.flatMap((p, i) => (p.source === s.pattern ? [i] : []))));
  }
  const material = texts.map((t) => /\d/.test(t) || mayBeCodeWord(t));
  for (let w = 0; w < words.length; w++) {
    if (covered.has(w)) continue;
    let near = false;
    for (let k = w; k < Math.min(words.length, w + 1 + LOOKAHEAD_WORDS) && !covered.has(k); k++) near ||= material[k]!;
    if (near) starts.set(words[w]!.index, null);
  }
  return starts;
}

interface Pass extends DecodedOn {
  /** Its code was spoken with a repeat word (CodeForm.heardRepeat). */
  heardRepeat: boolean;
}

/** Hypotheses kept per pattern while writing a code (beamLoop's beams), and codes (the best of different patterns) decoded on to the end of the window. */
const CODE_BEAM = 4;
const CODES_KEPT = 2;
/** Patterns searched at one place, likeliest first token first; 50 took 32.7 s against 4.3 s (many-patterns.measure.ts). */
const MAX_PATTERNS = 6;
/** How much earlier (20 ms steps) a constrained pass may end than the first: sooner, it dropped speech. */
const REACH_SLACK = 25;

/**
 * Passes with `prefix` forced, then a code a pattern matches, then greedy decoding that rejoins the first
 * pass (`rest`). Each pattern's code is searched by beamLoop under codeConstraint, a beam per pattern so
 * that one pattern's likelier code does not crowd out another's; the CODES_KEPT best are decoded on.
 */
async function constrainedPasses<S extends CodeState>(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  f: Framing,
  prefix: readonly GeneratedToken[],
  rest: readonly GeneratedToken[],
  form: CodeForm<S>,
  /** A code whose own log-probability is not above this cannot win (what follows only lowers it). */
  floor: number,
  /** The patterns whose codes may be written; all when null. */
  only: ReadonlySet<number> | null,
): Promise<Pass[]> {
  const v = model.vocab;
  const prefixIds = prefix.map((t) => t.id);
  const { cache: start, row } = await model.startAfter(encoded, opts, prefixIds);
  const processors = passProcessors(v, f.maxTsIndex, opts);
  try {
    const codes: Array<{ tokens: GeneratedToken[]; score: number; match: S }> = [];
    // one replay for every pattern's search: the form's states do not depend on the pattern
    const stateOf = codeReplay(form);
    for (const pattern of likeliestPatterns(form, processedRow(row, processors, prefixIds), floor, only)) {
      opts.checkpoint?.();
      const found = await beamLoop(
        model,
        encoded,
        { cache: start.fork(), row, attention: null, tokens: prefix },
        {
          processors,
          constraints: [codeConstraint(form, stateOf, pattern, prefix.length, v.eot, floor)],
          stops: [],
          maxTokens: f.maxTokens,
          beams: CODE_BEAM,
          floor,
          // a code is weighed by its log-probability, not per token
          lengthPenalty: 0,
          ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
        },
      );
      const tokens = found.tokens.slice(prefix.length);
      const match = stateOf(tokens.map((t) => t.id));
      // only a code the constraint let end counts (not one cut at the token budget)
      if (found.stop !== 'end-of-text' || !match?.accepted.includes(pattern)) continue;
      if (codes.some((c) => sameIds(c.tokens, tokens))) continue;
      codes.push({ tokens, score: tokens.reduce((a, t) => a + t.logprob, 0), match });
    }
    const passes: Pass[] = [];
    for (const code of codes.sort((a, b) => b.score - a.score).slice(0, CODES_KEPT)) {
      opts.checkpoint?.();
      // the code stepped a token per run, as a greedy pass is: q8 activations are quantized per run
      let forced = { tokens: code.tokens, cache: start.fork(), row };
      for (const t of code.tokens) {
        const out = await model.decoderForward([t.id], forced.cache, encoded);
        forced.cache.release();
        forced = { ...forced, cache: out.cache, row: rowAt(out.logits, 0) };
        out.logits.dispose();
      }
      passes.push({ ...(await decodeOn(model, encoded, opts, f, prefix, forced, rest, form.extends)), heardRepeat: form.heardRepeat(code.match) });
    }
    return passes;
  } finally {
    start.release();
  }
}

/** Of `only` (all when null), the MAX_PATTERNS patterns whose code's first token is likeliest in `row`, above `floor`. */
function likeliestPatterns<S extends CodeState>(form: CodeForm<S>, row: Float32Array, floor: number, only: ReadonlySet<number> | null): number[] {
  const z = logSumExp(row, 0, row.length);
  const best = new Map<number, number>();
  for (const { id, state } of form.next(form.start, true, (k) => row[k]! - z > floor)) {
    for (const p of state.alive) if ((!only || only.has(p)) && row[id]! > (best.get(p) ?? -Infinity)) best.set(p, row[id]!);
  }
  return [...best.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_PATTERNS).map(([p]) => p);
}

/** The form's state after code tokens `ids` (null when it cannot write them), each prefix stepped once. */
function codeReplay<S extends CodeState>(form: CodeForm<S>): (ids: readonly number[]) => S | null {
  const states = new Map<string, S | null>([['', form.start]]);
  const stateOf = (ids: readonly number[]): S | null => {
    const key = ids.join(',');
    let state = states.get(key);
    if (state === undefined) {
      const before = stateOf(ids.slice(0, -1));
      state = before && form.step(before, ids[ids.length - 1]!, ids.length === 1);
      states.set(key, state);
    }
    return state;
  };
  return stateOf;
}

/**
 * beamLoop's constraint to codes of `pattern` in `form` after the first `at` tokens: only tokens that can
 * still lead to a match, and the end of text (at log-probability 0) where the code so far is one.
 */
function codeConstraint<S extends CodeState>(
  form: CodeForm<S>,
  stateOf: (ids: readonly number[]) => S | null,
  pattern: number,
  at: number,
  eot: number,
  floor: number,
): LogitsProcessor {
  return (row, generated) => {
    const code = generated.slice(at);
    const state = stateOf(code);
    // a token at or below the floor would be dropped by beamLoop: the matcher is not stepped for it
    const kept = state ? form.next(state, code.length === 0, (id) => row[id]! > floor).filter((n) => n.state.alive.includes(pattern)) : [];
    const logprobs = kept.map((n) => row[n.id]!);
    row.fill(-Infinity);
    kept.forEach((n, i) => (row[n.id] = logprobs[i]!));
    if (state?.accepted.includes(pattern)) row[eot] = 0;
  };
}

function sameIds(a: readonly GeneratedToken[], b: readonly GeneratedToken[]): boolean {
  return a.length === b.length && a.every((t, i) => t.id === b[i]!.id);
}

export interface PassTrace {
  /** How much less likely the code's first token was than the first pass's token at that place. */
  gap: number;
  text: string;
  logprob: number;
  firstLogprob: number;
  accepted: boolean;
  /** The code was written as spoken words. */
  spoken: boolean;
}

/** The window's tokens with codes decoded under `patterns` where the model bears them out; else `first`. */
export async function decodeWithPatterns(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  first: Generation,
  patterns: readonly CompiledPattern[],
  strength: number,
  /** Reports each constrained pass tried (bench/bias-set/patterns.measure.ts). */
  trace?: (t: PassTrace) => void,
): Promise<Generation> {
  if (patterns.length === 0 || !(strength > 0) || first.tokens.length === 0) return first;
  const matcher = matcherFor(patterns);
  const writtenForm = writtenCodes(model.vocab, matcher);
  const spokenForm = spokenCodes(model.vocab, matcher);
  const f = model.framing(encoded, opts);
  // grows up to the default strength only: unrelated speech's passes trail by ≥ 12 nats
  const credit = CODE_CREDIT * Math.min(1, strength / DEFAULT_BIAS_STRENGTH);
  let tokens = first.tokens;
  let changed = false;
  let from = 0;
  let scored: Scored | null = null;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    opts.checkpoint?.();
    // scored again only when the tokens changed
    scored ??= await scoreAndPlaces(model, encoded, opts, tokens, matcher, patterns);
    // the most promising place of the first run of candidate places (one spoken code), left to right
    const run: Place[] = [];
    for (const p of scored.places.filter((q) => q.index >= from)) {
      if (run.length > 0 && p.index > run[run.length - 1]!.index + CODE_GAP_TOKENS) break;
      run.push(p);
    }
    if (run.length === 0) break;
    // one place per spoken code, its likeliest start: a second found no more codes on bench/bias-set
    const place = run.reduce((a, b) => (b.gap < a.gap ? b : a));
    let best: { pass: Pass; logprob: number } | null = null;
    const floor = scored.logprob - credit - place.before;
    const [prefix, rest] = [tokens.slice(0, place.index), tokens.slice(place.index)];
    const found = (await constrainedPasses(model, encoded, opts, f, prefix, rest, spokenForm, floor, place.coveredBy)).map((pass) => ({ pass, spoken: true }));
    if (!place.coveredBy) found.push(...(await constrainedPasses(model, encoded, opts, f, prefix, rest, writtenForm, floor, null)).map((pass) => ({ pass, spoken: false })));
    // a pass that loops ("1 2 3 4 4 4 …") or stops early may score above the whole window's first pass, being shorter
    for (const { pass, spoken } of found.filter((p) => p.pass.ended && reaches(p.pass.tokens, tokens, model.vocab))) {
      const logprob = await model.sequenceLogprob(encoded, opts, pass.tokens.map((t) => t.id));
      const accepted = logprob + credit > scored.logprob;
      trace?.({ gap: place.gap, text: model.vocab.decode(pass.tokens.map((t) => t.id)), logprob, firstLogprob: scored.logprob, accepted, spoken });
      if (accepted && (!best || outranks({ pass, logprob }, best))) best = { pass, logprob };
    }
    if (best) {
      tokens = best.pass.tokens;
      changed = true;
      from = best.pass.codeEnd;
      scored = null;
    } else {
      from = run[run.length - 1]!.index + 1;
    }
  }
  if (!changed) return first;
  return rewrittenPass(model, encoded, opts, first, tokens);
}

/** Whether `pass` ends no more than REACH_SLACK timestamp steps before `before` does. */
function reaches(pass: readonly GeneratedToken[], before: readonly GeneratedToken[], v: WhisperVocabulary): boolean {
  const end = (ts: readonly GeneratedToken[]) => ts.findLast((t) => v.isTimestamp(t.id))?.id ?? v.timestampBegin;
  return end(pass) >= end(before) - REACH_SLACK;
}

/**
 * Of two accepted passes, the one to keep: a code spoken with a repeat word first ("double five", which
 * base finds less likely than its written "B725Q"), then the likelier.
 */
function outranks(a: { pass: Pass; logprob: number }, b: { pass: Pass; logprob: number }): boolean {
  if (a.pass.heardRepeat !== b.pass.heardRepeat) return a.pass.heardRepeat;
  return a.logprob > b.logprob;
}
