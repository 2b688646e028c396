import type { CompiledPattern } from '../../../src/api/patterns';
import type { DecodeOptions } from '../../decoding/fallback';
import { logSumExp } from '../../whisper/logits';
import type { WhisperVocabulary } from '../../whisper/tokenizer';
import type { KvCache } from '../../whisper/kv-cache';
import type { EncodedWindow, WhisperModel } from '../../whisper/model';
import { endedWithEot, passProcessors, processedRow, rowAt, type GeneratedToken, type Generation } from '../../whisper/generate';
import { spokenCodes, tokenTable, writtenCodes, type CodeForm, type CodeState, type TokenTable } from './code-forms';
import { PatternMatcher } from './pattern-matcher';
import { decodeOn, type DecodedOn, type Framing } from '../phrases/decode-on';
import { DEFAULT_BIAS_STRENGTH } from '../../protocol';
import { findPatternSpans, mayBeCodeWord } from './spoken-patterns';

/**
 * Decode-time help for `patterns`: after the normal pass over a window, spots where a code may have
 * been spoken ("A, mz, for 7-1", "XR-Triple 7"), and decodes again from there with the tokens before
 * it forced and the next tokens restricted to a written code that a pattern matches ("AMZ471"), then
 * freely to the end of the window. A second constrained pass writes the code as spoken words that
 * the text rewrite reads ("B seven double five Q"): Whisper writes "seven double five" as "725", yet
 * finds the spoken words far likelier than "seven two five". A constrained pass replaces the first
 * only when the model finds it nearly as likely as the first (teacher-forced log-probability of each
 * whole window, plus a credit per code that grows with bias_strength), so speech without a code keeps
 * its first pass; of those that pass, a code spoken with "double"/"triple" is kept first (outranks).
 */

/**
 * Credit (in nats of log-probability, at the default bias_strength 0.45) a window's constrained pass
 * gets over its first pass per code. On bench/bias-set (patterns.measure.ts, tiny and base) right
 * codes trailed their first pass by up to 6 nats, constrained passes over unrelated speech by 12 or more.
 */
export const CODE_CREDIT = 7;
/** Constrained passes per window (each costs a partial decode and a scoring run). */
const MAX_TRIES = 4;
/**
 * Places tried for one spoken code, likeliest start first. A second place found no more codes on
 * bench/bias-set and, on tiny, let "Flight you 8, 9, 1, 6" become "FL916" instead of "Flight UA916".
 */
const PLACES_PER_CODE = 1;
/** A place is tried when a code's first token is at most this much less likely than the first pass's token there. */
const START_MARGIN = 12;
/** Words after a possible start within which code material (a digit, a letter name …) must appear. */
const LOOKAHEAD_WORDS = 3;

/** A place in the current tokens where a code may start: token index, and how much a code start trails the token there. */
interface Place {
  index: number;
  gap: number;
  /** Log-probability of the tokens before it. */
  before: number;
  /**
   * Where the text rewrite already reads a code from here, the patterns it matches: only a spoken code
   * of one of them is tried, to correct its symbols ("B725Q" heard as "seven double five"), not to
   * read the same words under another pattern. Null elsewhere.
   */
  coveredBy: ReadonlySet<number> | null;
}

interface Scored {
  logprob: number;
  places: Place[];
}

/**
 * One teacher-forced run over `ids` (WhisperModel.score): the sequence's log-probability and the places
 * worth trying.
 */
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
  const starts = candidateStarts(wordStarts(ids, v, table), patterns);
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

interface Word {
  /** Index of its first token. */
  index: number;
  text: string;
}

function wordStarts(ids: readonly GeneratedToken[], v: WhisperVocabulary, table: TokenTable): Word[] {
  const words: Word[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!.id;
    if (!v.isText(id)) continue;
    const t = table.text[id]!;
    const prev = words[words.length - 1];
    const afterTimestamp = i === 0 || !v.isText(ids[i - 1]!.id);
    if (t.startsWith(' ') || afterTimestamp || !prev) words.push({ index: i, text: t.trim() });
    else prev.text += t;
  }
  return words;
}

/**
 * Token indices of words that may begin a code, each mapped to the patterns of the code the text
 * rewrite already reads from there (Place.coveredBy): such a code's first word, and a word with code
 * material (a digit, a letter, a letter or digit name) at most LOOKAHEAD_WORDS words on ("Slide 2
 * with 916", "ticket decay 831-2") outside those codes.
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

/** A hypothesis of the code: its tokens so far, its self-attention cache and the logits after it. */
interface Hyp<S extends CodeState> {
  cache: KvCache;
  row: Float32Array;
  tokens: GeneratedToken[];
  score: number;
  match: S;
}

/** Hypotheses kept per pattern while writing a code, and codes (the best of different patterns) carried on to the end of the window. */
const CODE_BEAM = 4;
const CODES_KEPT = 2;
/**
 * Hypotheses kept per step over all patterns (each costs a decoder run): CODE_BEAM for six patterns,
 * as many as bench/bias-set uses. Without a bound, 50 patterns (the most a request may give) made a
 * 3 s clip's pattern pass on tiny take 32.7 s against 4.3 s with six (many-patterns.measure.ts).
 */
const MAX_LIVE = CODE_BEAM * 6;
/**
 * How much earlier (in timestamp steps of 20 ms) a constrained pass may end than the first pass: one
 * that ends sooner dropped speech ("So, I936." for "So, I do like nine, one, six, leave that new."),
 * which only makes a transcription likelier.
 */
const REACH_SLACK = 25;

/**
 * Passes with `prefix` forced, then a code a pattern matches (its first token after a space), then
 * greedy free decoding that rejoins the first pass (`rest`) when its own tokens come back to it. The
 * code is searched with a small beam (the model prefers "XR"+"77"+"7" to "XR"+"47"+"7" as a whole,
 * though "47" is the likelier token after "XR"); its CODES_KEPT best are each decoded on. None when no code fits.
 */
async function constrainedPasses<S extends CodeState>(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  f: Framing,
  prefix: readonly GeneratedToken[],
  rest: readonly GeneratedToken[],
  form: CodeForm<S>,
  /**
   * Codes whose own log-probability is not above this cannot win: the tokens after a code only lower
   * a pass's log-probability, and grammar-masked scores here are at least the unmasked ones it is judged by.
   */
  floor: number,
  /** The patterns whose codes may be written; all when null. */
  only: ReadonlySet<number> | null,
): Promise<Pass[]> {
  const v = model.vocab;
  const prefixIds = prefix.map((t) => t.id);
  const { cache: cache0, row: row0 } = await model.startAfter(encoded, opts, prefixIds);
  const writable = (pattern: number) => !only || only.has(pattern);
  const processors = passProcessors(v, f.maxTsIndex, opts);
  let live: Hyp<S>[] = [{ cache: cache0, row: row0, tokens: [], score: 0, match: form.start }];
  // the best finished code of each pattern, and a beam per pattern: several patterns may fit one place
  // ("U891S" and "UA916"), and the likelier code of one must not crowd out every code of another
  const bestOf = new Map<number, Hyp<S>>();
  let finished: Hyp<S>[] = [];
  const passes: Pass[] = [];
  const held = new Set<Hyp<S>>(live);
  const release = (keep: Set<Hyp<S>>) => {
    for (const h of held) if (!keep.has(h)) h.cache.release();
    for (const h of [...held]) if (!keep.has(h)) held.delete(h);
  };
  try {
    while (live.length > 0) {
      opts.checkpoint?.();
      const expansions: Array<{ hyp: Hyp<S>; id: number; logprob: number; score: number; match: S }> = [];
      for (const hyp of live) {
        for (const p of hyp.match.accepted.filter(writable)) {
          const best = bestOf.get(p);
          if (!best || hyp.score > best.score) bestOf.set(p, hyp);
        }
        if (!hyp.match.open || prefix.length + hyp.tokens.length >= f.maxTokens) continue;
        const r = processedRow(hyp.row, processors, [...prefixIds, ...hyp.tokens.map((t) => t.id)]);
        const z = logSumExp(r, 0, r.length);
        const worth = (id: number) => hyp.score + r[id]! - z > floor;
        for (const { id, state } of form.next(hyp.match, hyp.tokens.length === 0, worth)) {
          const lp = r[id]! - z;
          expansions.push({ hyp, id, logprob: lp, score: hyp.score + lp, match: state });
        }
      }
      expansions.sort((a, b) => b.score - a.score);
      const chosen = new Set<(typeof expansions)[number]>();
      for (const p of new Set(expansions.flatMap((e) => e.match.alive.filter(writable)))) {
        const bar = Math.max(floor, bestOf.get(p)?.score ?? -Infinity);
        expansions.filter((e) => e.score > bar && e.match.alive.includes(p)).slice(0, CODE_BEAM).forEach((e) => chosen.add(e));
      }
      const next: Hyp<S>[] = [];
      for (const e of [...chosen].sort((a, b) => b.score - a.score).slice(0, MAX_LIVE)) {
        const stepped = await model.decoderForward([e.id], e.hyp.cache, encoded);
        const row = rowAt(stepped.logits, 0);
        stepped.logits.dispose();
        const hyp = { cache: stepped.cache, row, tokens: [...e.hyp.tokens, { id: e.id, logprob: e.logprob }], score: e.score, match: e.match };
        next.push(hyp);
        held.add(hyp);
      }
      release(new Set([...next, ...bestOf.values()]));
      live = next;
    }
    finished = [...new Set(bestOf.values())].sort((a, b) => b.score - a.score).slice(0, CODES_KEPT);
    release(new Set(finished));
    for (const hyp of finished) {
      held.delete(hyp); // decodeOn disposes the cache it is given
      passes.push({ ...(await decodeOn(model, encoded, opts, f, prefix, hyp, rest, form.extends)), heardRepeat: form.heardRepeat(hyp.match) });
    }
  } finally {
    release(new Set());
  }
  return passes;
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

/**
 * The window's tokens with codes decoded under `patterns` where the model bears them out; `first`
 * itself when nothing changes (no patterns, strength 0, no likely place, or every constrained pass lost).
 */
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
  const matcher = new PatternMatcher(patterns);
  const writtenForm = writtenCodes(model.vocab, matcher);
  const spokenForm = spokenCodes(model.vocab, matcher);
  const f = model.framing(encoded, opts);
  // grows up to the default strength and no further: unrelated speech's best constrained passes trail
  // their first pass by 12 nats or more (bench/bias-set), and a larger credit would let them through
  const credit = CODE_CREDIT * Math.min(1, strength / DEFAULT_BIAS_STRENGTH);
  let tokens = first.tokens;
  let changed = false;
  let from = 0;
  let scored: Scored | null = null;
  for (let tries = 0; tries < MAX_TRIES; ) {
    opts.checkpoint?.();
    // scored again only when the tokens changed
    scored ??= await scoreAndPlaces(model, encoded, opts, tokens, matcher, patterns);
    // the most promising place of the first run of candidate places (one spoken code), left to right
    const run: Place[] = [];
    for (const p of scored.places.filter((q) => q.index >= from)) {
      if (run.length > 0 && p.index > run[run.length - 1]!.index + 8) break;
      run.push(p);
    }
    if (run.length === 0) break;
    const places = [...run].sort((a, b) => a.gap - b.gap).slice(0, PLACES_PER_CODE);
    let best: { pass: Pass; logprob: number } | null = null;
    for (const place of places) {
      if (tries++ >= MAX_TRIES) break;
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
  return finish(model, encoded, opts, f, first, tokens);
}

/** Whether `pass` ends no more than REACH_SLACK timestamp steps before `before` does. */
function reaches(pass: readonly GeneratedToken[], before: readonly GeneratedToken[], v: WhisperVocabulary): boolean {
  const end = (ts: readonly GeneratedToken[]) => ts.findLast((t) => v.isTimestamp(t.id))?.id ?? v.timestampBegin;
  return end(pass) >= end(before) - REACH_SLACK;
}

/**
 * Of two passes the judge accepts, the one to keep: a code spoken with a repeat word first, then the
 * likelier. Whisper writes "B seven double five Q" as "B725Q" and, on base, finds that written code
 * likelier than the spoken words it heard (bench/bias-set: -9.7 against -11.7 nats); a written code
 * cannot show the "double" at all.
 */
function outranks(a: { pass: Pass; logprob: number }, b: { pass: Pass; logprob: number }): boolean {
  if (a.pass.heardRepeat !== b.pass.heardRepeat) return a.pass.heardRepeat;
  return a.logprob > b.logprob;
}

async function finish(
  model: WhisperModel,
  encoded: EncodedWindow,
  opts: DecodeOptions,
  f: Framing,
  first: Generation,
  tokens: GeneratedToken[],
): Promise<Generation> {
  let attention: Float32Array[] | null = null;
  if (opts.wantAttention) {
    opts.checkpoint?.();
    const ids = tokens.map((t) => t.id);
    attention = await model.attentionRows(encoded, f.prompt, ids, endedWithEot(ids, model.vocab, f));
  }
  return {
    tokens,
    avgLogprob: tokens.reduce((a, t) => a + t.logprob, 0) / Math.max(1, tokens.length),
    noSpeechProb: first.noSpeechProb,
    temperature: first.temperature,
    looped: first.looped && tokens === first.tokens,
    attention,
  };
}
