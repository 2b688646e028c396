import type { KvCache } from './kv-cache';
import { logSumExp, whisperGrammar, type LogitsProcessor } from './logits';
import { beamLayout, type EncodedWindow, type PromptRun, type WhisperModel } from './model';
import type { WhisperVocabulary } from './tokenizer';

/**
 * The one decoding loop. Every path that lets the model choose tokens (plain decoding and its
 * temperature fallback, biased proposals, decoding on after a written-in phrase or code) runs
 * `decodeLoop`, or `beamLoop` for beams (accurate decoding, the pattern pass's code search), with its own
 * logits processors (logits.ts) and stopping criteria (below); teacher-forced scoring is WhisperModel.score.
 */

export interface GeneratedToken {
  id: number;
  /** Log-probability under the unscaled distribution after the processors. */
  logprob: number;
}

/** One decoding pass over a window. */
export interface Generation {
  tokens: GeneratedToken[];
  avgLogprob: number;
  noSpeechProb: number;
  temperature: number;
  /** Stopped because the text started repeating itself (loopStop). */
  looped: boolean;
  /** Per generated token: the alignment heads' cross-attention rows, [heads][frames] flattened. */
  attention: Float32Array[] | null;
}

export interface GenerateOptions {
  language: string;
  temperature: number;
  /** Prompt tokens placed after <|startofprev|> (biasing, filler style); none when empty. */
  promptIds?: readonly number[];
  wantAttention: boolean;
  /** Length of the real audio in the window; timestamps past it are not allowed. */
  audioSeconds: number;
  /** Tokens the pass may generate (default: half the model's context, as OpenAI's decoder). */
  maxTokens?: number;
  /** Called between decoder steps; throws to cancel. */
  checkpoint?: () => void;
  random?: () => number;
  /** Processors after Whisper's grammar (filler boosts, phrase boosts), applied in order. */
  processors?: readonly LogitsProcessor[];
  /** Beam search with this many hypotheses at temperature 0 (beamLoop); 1 or none: greedy. */
  beams?: number;
  /** Repeats of an n-gram at the tail that stop the pass as a loop (repeatsTail; default 4). */
  loopRepeats?: number;
  /** A further test of the text tokens so far for a loop (a biased pass reciting its prompt). */
  loops?: (textIds: readonly number[]) => boolean;
  /** A test of the text tokens so far that ends the pass there, not as a loop (a proposal that can gain nothing more). */
  until?: (textIds: readonly number[]) => boolean;
}

/**
 * One pass with `opts` from `start` (a promptRun of the same prompt; released here when `ownStart`):
 * the grammar and `opts.processors`, stopped by a loop, the end of the audio or `opts.until`.
 */
export async function generatePass(model: WhisperModel, encoded: EncodedWindow, opts: GenerateOptions, start: PromptRun, ownStart: boolean): Promise<Generation> {
  try {
    const f = model.framing(encoded, opts);
    if (!start.fits(f.prompt, opts.wantAttention)) throw new Error('generate(): start is a prompt run of another prompt, or lacks attention');
    const loop = {
      processors: passProcessors(model.vocab, f.maxTsIndex, opts),
      stops: passStops(model.vocab, f.maxTsIndex, opts),
      maxTokens: f.maxTokens,
      ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
    };
    const from = { cache: start.cache.fork(), row: start.row, attention: start.attention, tokens: [] };
    const beams = opts.temperature === 0 ? (opts.beams ?? 1) : 1;
    const result =
      beams > 1
        ? await beamLoop(model, encoded, from, { ...loop, beams })
        : await decodeLoop(model, encoded, from, { ...loop, temperature: opts.temperature, wantAttention: opts.wantAttention, ...(opts.random ? { random: opts.random } : {}) });
    // beams are searched without attention: the winner's rows come from one teacher-forced run
    if (beams > 1 && opts.wantAttention) {
      const ids = result.tokens.map((t) => t.id);
      result.attention = await model.attentionRows(encoded, f.prompt, ids, result.stop === 'end-of-text');
    }
    const sum = result.tokens.reduce((a, t) => a + t.logprob, 0);
    return {
      tokens: result.tokens,
      avgLogprob: sum / Math.max(1, result.tokens.length),
      noSpeechProb: start.noSpeechProb,
      temperature: opts.temperature,
      looped: result.stop === 'loop',
      attention: result.attention,
    };
  } finally {
    if (ownStart) start.release();
  }
}

/**
 * `first` with its tokens replaced by a mended pass's (biasing's second looks), its alignment rows (when
 * wanted) from one teacher-forced run without any phrase prompt, as the tokens were scored.
 */
export async function rewrittenPass(model: WhisperModel, encoded: EncodedWindow, opts: Omit<GenerateOptions, 'temperature'>, first: Generation, tokens: GeneratedToken[]): Promise<Generation> {
  const rewritten = { ...first, tokens, avgLogprob: tokens.reduce((a, t) => a + t.logprob, 0) / Math.max(1, tokens.length), looped: false, attention: null };
  if (!opts.wantAttention) return rewritten;
  opts.checkpoint?.();
  const f = model.framing(encoded, opts);
  const ids = tokens.map((t) => t.id);
  return { ...rewritten, attention: await model.attentionRows(encoded, f.prompt, ids, endedWithEot(ids, model.vocab, f)) };
}

/**
 * A draft for decodeLoop from an earlier pass of the same window (prompt lookup): the `length` tokens
 * that follow, in `pass`, the place where the loop's last two tokens appear; of several such places, the
 * one nearest where the last match says the loop stands in `pass` (a pass that mends a few words
 * rejoins the earlier one a few tokens off). None where they do not appear.
 */
export function passDraft(pass: readonly number[], length: number): (ids: readonly number[]) => readonly number[] {
  let offset = 0; // where in `pass` the loop's next token was, less its index in the loop, at the last match
  return (ids) => {
    const n = ids.length;
    if (n < 2) return pass.slice(n, n + length);
    let best = -1;
    for (let j = 2; j <= pass.length; j++) {
      if (pass[j - 2] !== ids[n - 2] || pass[j - 1] !== ids[n - 1]) continue;
      if (best < 0 || Math.abs(j - n - offset) < Math.abs(best - n - offset)) best = j;
    }
    if (best < 0) return [];
    offset = best - n;
    return pass.slice(best, best + length);
  };
}

/** A pass's processors: Whisper's grammar, then the pass's own. */
export function passProcessors(vocab: WhisperVocabulary, maxTsIndex: number, opts: Pick<GenerateOptions, 'processors'>): LogitsProcessor[] {
  return [...whisperGrammar(vocab, maxTsIndex), ...(opts.processors ?? [])];
}

/** A pass's stopping criteria besides its end of text and token budget: a loop, the end of the audio, `until`. */
export function passStops(vocab: WhisperVocabulary, maxTsIndex: number, opts: Pick<GenerateOptions, 'loopRepeats' | 'loops' | 'until'>): StoppingCriterion[] {
  return [loopStop(opts.loopRepeats, opts.loops), endOfAudioStop(vocab, maxTsIndex), ...(opts.until ? [untilStop(opts.until)] : [])];
}

/** Why a loop stopped. */
export type StopReason =
  | 'end-of-text'
  /** every token was masked (a constrained first token that nothing satisfies) */
  | 'no-token'
  /** the pass's token budget (WhisperModel.framing: the request's, or the model's context) */
  | 'max-length'
  /** the text began repeating itself (repeatsTail) or a pass-specific loop test */
  | 'loop'
  /** a segment closed at the end of the audio: nothing is left to transcribe */
  | 'end-of-audio'
  /** a pass-specific test found nothing more to gain */
  | 'until'
  /** a pass decoded on after forced tokens came back to the pass it was forced into */
  | 'rejoined';

/**
 * Looks at the token ids after each newly chosen one (all tokens after the prompt, and their text
 * tokens alone) and names a reason to stop there, the new token kept; null to go on.
 */
export type StoppingCriterion = (ids: readonly number[], textIds: readonly number[]) => StopReason | null;

/** Where a loop begins: the cache after the prompt and any tokens already decided, and the row that follows. */
export interface LoopStart {
  /** Owned by the loop from here on (released when it ends): pass a fork to keep one. */
  cache: KvCache;
  /** Raw logits predicting the first token the loop chooses. */
  row: Float32Array;
  /** The alignment heads' attention at that position, when attention is wanted. */
  attention: Float32Array | null;
  /** Tokens after the prompt already decided (a prefix of an earlier pass, forced tokens). */
  tokens: readonly GeneratedToken[];
}

export interface LoopOptions {
  processors: readonly LogitsProcessor[];
  stops: readonly StoppingCriterion[];
  /** Tokens after the prompt, `start.tokens` included, at which the loop stops ('max-length'). */
  maxTokens: number;
  /** 0: greedy; above: sampling from the processed row scaled by 1/temperature. */
  temperature: number;
  random?: () => number;
  wantAttention: boolean;
  /** Called before each token; throws to cancel. */
  checkpoint?: () => void;
  /**
   * Greedy passes only: the tokens the caller expects to follow `ids` (an earlier pass of the same
   * window). They are run through the decoder in one go with the chosen token, and kept as far as the
   * loop's own choices agree with them: the choices of step-by-step decoding, up to the decoder's
   * numerics (the q8 graphs quantize activations per run, so a run over many tokens rounds a little
   * differently from a run over one).
   */
  draft?: (ids: readonly number[]) => readonly number[];
}

export interface LoopResult {
  /** `start.tokens`, then the tokens the loop chose (an end of text not included). */
  tokens: GeneratedToken[];
  stop: StopReason;
  /** Per chosen token (and the end of text's position when it ended so): alignment rows. */
  attention: Float32Array[] | null;
}

/**
 * Chooses tokens one decoder step at a time: processors adjust the row, the argmax (or a sample) is
 * taken, the stopping criteria look at the result, and the decoder runs on the new token. With a
 * `draft`, that run also covers the drafted tokens (speculative decoding with an earlier pass as the
 * draft): each row is processed and chosen from as it would have been step by step, and the drafted
 * tokens are kept up to the first the loop would not have chosen.
 */
export async function decodeLoop(model: WhisperModel, encoded: EncodedWindow, start: LoopStart, o: LoopOptions): Promise<LoopResult> {
  const v = model.vocab;
  const tokens = [...start.tokens];
  const ids = tokens.map((t) => t.id);
  // text tokens only: a loop of whole segments differs in its timestamp tokens but not in its text
  const textIds = ids.filter((id) => v.isText(id));
  const attention: Float32Array[] | null = o.wantAttention ? [] : null;
  const drafting = o.draft && o.temperature === 0 && !o.wantAttention ? o.draft : null;
  let { cache, row, attention: rowAttention } = start;
  let stop: StopReason | null = null;
  // Chooses from one row: the token, or why the pass stops there (the token kept unless it is the end of text).
  const choose = (r: Float32Array): StopReason | null => {
    const id = o.temperature > 0 ? sample(r, o.temperature, o.random ?? Math.random) : argmax(r);
    if (r[id] === -Infinity) return 'no-token';
    if (attention && rowAttention) attention.push(rowAttention);
    if (id === v.eot) return 'end-of-text';
    tokens.push({ id, logprob: r[id]! - logSumExp(r, 0, r.length) });
    ids.push(id);
    if (v.isText(id)) textIds.push(id);
    return firstStop(o.stops, ids, textIds);
  };
  try {
    while (stop === null) {
      if (tokens.length >= o.maxTokens) {
        stop = 'max-length';
        break;
      }
      o.checkpoint?.();
      stop = choose(processedRow(row, o.processors, ids));
      if (stop !== null) break;
      const id = ids[ids.length - 1]!;
      const draft = drafting ? drafting(ids).slice(0, Math.max(0, o.maxTokens - tokens.length)) : [];
      const pastLength = cache.length;
      const out = await model.decoderForward([id, ...draft], cache, encoded, { wantAttention: o.wantAttention });
      cache.release();
      cache = out.cache;
      // row k predicts the token after the k-th drafted one; keep drafted tokens while they are the choice
      let kept = 0;
      while (kept < draft.length && stop === null && tokens.length < o.maxTokens) {
        const r = processedRow(rowAt(out.logits, kept), o.processors, ids);
        if (argmax(r) !== draft[kept] || r[draft[kept]!] === -Infinity) break;
        o.checkpoint?.();
        stop = choose(r);
        kept++;
      }
      row = rowAt(out.logits, kept);
      out.logits.dispose();
      rowAttention = out.attention?.[0] ?? null;
      if (kept < draft.length) {
        // the positions of the drafted tokens not kept leave the cache
        const trimmed = model.gatherCache(cache, Array.from({ length: pastLength + 1 + kept }, (_, i) => i));
        cache.release();
        cache = trimmed;
      }
    }
  } finally {
    cache.release();
  }
  return { tokens, stop, attention };
}

export interface BeamOptions extends Omit<LoopOptions, 'temperature' | 'random' | 'wantAttention'> {
  /** Hypotheses kept per step (OpenAI's beam_size). */
  beams: number;
  /**
   * Applied to the row of log-probabilities after `processors`: a constraint that restricts (or sets the
   * log-probability of) the choices without renormalizing, so chosen tokens keep the model's own
   * log-probabilities (a pattern constraint).
   */
  constraints?: readonly LogitsProcessor[];
  /** Extensions whose log-probability is not above this are dropped: the caller knows they cannot win. */
  floor?: number;
  /** The winner's ranking: log-probability / tokens^lengthPenalty (default 1, OpenAI's per-token; 0: the sum). */
  lengthPenalty?: number;
}

/** A hypothesis of beamLoop: its tokens, where they sit in the shared cache, and the row after them. */
interface Hypothesis {
  tokens: GeneratedToken[];
  ids: number[];
  textIds: number[];
  /** Cache positions of its tokens after the start (the cache holds the tokens of every live hypothesis, and of some dropped ones until it is compacted). */
  positions: number[];
  sum: number;
  row: Float32Array;
}

interface Finished {
  hyp: Hypothesis;
  /** Its log-probability with the end of text's, when it ended so. */
  sum: number;
  stop: StopReason;
}

/**
 * Beam search at temperature 0, as OpenAI's decoder does it: each step extends every live hypothesis by
 * its `beams + 1` likeliest tokens after the processors, keeps the `beams` likeliest extensions, and
 * sets aside those that end (end of text, or a stopping criterion) until `beams` have ended; the
 * winner has the highest log-probability per token. All hypotheses step in one decoder run: their
 * tokens share one cache, each seeing the start and its own tokens only (beamLayout).
 */
export async function beamLoop(model: WhisperModel, encoded: EncodedWindow, start: LoopStart, o: BeamOptions): Promise<LoopResult> {
  const v = model.vocab;
  const shared = start.cache.length;
  const first = start.tokens.map((t) => t.id);
  let live: Hypothesis[] = [{ tokens: [...start.tokens], ids: first, textIds: first.filter((id) => v.isText(id)), positions: [], sum: 0, row: start.row }];
  const finished: Finished[] = [];
  const penalty = o.lengthPenalty ?? 1;
  let cache = start.cache;
  // each hypothesis's processed row is read before the next one's is made: one buffer serves them all
  let scratch: Float32Array | undefined;
  try {
    while (live.length > 0 && finished.length < o.beams) {
      o.checkpoint?.();
      const candidates: Array<{ hyp: Hypothesis; id: number; logprob: number; score: number }> = [];
      for (const hyp of live) {
        if (hyp.tokens.length >= o.maxTokens) {
          finished.push({ hyp, sum: hyp.sum, stop: 'max-length' });
          continue;
        }
        const r = processedRow(hyp.row, o.processors, hyp.ids, (scratch ??= new Float32Array(hyp.row.length)));
        let z = logSumExp(r, 0, r.length);
        if (o.constraints) {
          for (let i = 0; i < r.length; i++) r[i]! -= z;
          z = 0;
          for (const constrain of o.constraints) constrain(r, hyp.ids);
        }
        for (const id of topIds(r, o.beams + 1)) {
          const score = hyp.sum + r[id]! - z;
          if (score > (o.floor ?? -Infinity)) candidates.push({ hyp, id, logprob: r[id]! - z, score });
        }
      }
      candidates.sort((a, b) => b.score - a.score);
      const next: Hypothesis[] = [];
      for (const c of candidates) {
        if (next.length >= o.beams) break;
        // ranked by sum, nothing at or below an ended hypothesis can overtake it (log-probabilities are ≤ 0)
        if (penalty === 0 && finished.some((f) => f.sum >= c.score)) break;
        if (c.id === v.eot) {
          if (finished.length < o.beams) finished.push({ hyp: c.hyp, sum: c.score, stop: 'end-of-text' });
          continue;
        }
        const hyp: Hypothesis = {
          tokens: [...c.hyp.tokens, { id: c.id, logprob: c.logprob }],
          ids: [...c.hyp.ids, c.id],
          textIds: v.isText(c.id) ? [...c.hyp.textIds, c.id] : c.hyp.textIds,
          positions: c.hyp.positions,
          sum: c.score,
          row: c.hyp.row,
        };
        const stop = firstStop(o.stops, hyp.ids, hyp.textIds);
        if (stop) finished.push({ hyp, sum: hyp.sum, stop });
        else next.push(hyp);
      }
      live = next;
      if (next.length === 0 || finished.length >= o.beams) break;
      const out = await model.decoderForward(
        next.map((h) => h.ids[h.ids.length - 1]!),
        cache,
        encoded,
        { layout: beamLayout(cache.length, shared, next.map((h) => h.positions)) },
      );
      next.forEach((h, k) => {
        h.positions = [...h.positions, cache.length + k];
        h.row = rowAt(out.logits, k);
      });
      out.logits.dispose();
      cache.release();
      cache = compacted(model, out.cache, shared, next);
    }
  } finally {
    cache.release();
  }
  // too few ended within the token budget: the likeliest live ones stand in, cut there
  for (const hyp of [...live].sort((a, b) => b.sum - a.sum)) {
    if (finished.length >= o.beams) break;
    finished.push({ hyp, sum: hyp.sum, stop: 'max-length' });
  }
  // nothing could be chosen (every token masked or below the floor)
  if (finished.length === 0) return { tokens: [...start.tokens], stop: 'no-token', attention: null };
  // by default OpenAI's ranking without a length penalty: log-probability per generated token
  const rank = (f: Finished) => f.sum / Math.max(1, f.hyp.tokens.length - start.tokens.length) ** penalty;
  const best = finished.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  return { tokens: best.hyp.tokens, stop: best.stop, attention: null };
}

/**
 * beamLoop compacts its cache once at least this many positions after the start belong to no live
 * hypothesis: a copy every few steps at most. It trades copying against attending only, never the
 * result (set by hand, not tuned).
 */
const DEAD_POSITIONS_TO_COMPACT = 32;

/**
 * `cache` without the positions that no live hypothesis sees any more (tokens of dropped hypotheses),
 * each hypothesis's positions renumbered; `cache` itself when few are dead. Every step adds a position
 * per hypothesis, so without this a 5-beam pass attends over, and copies in and out of each decoder
 * run, about five times the positions a hypothesis sees. A dead position is masked out of every
 * attention row, so dropping it changes nothing.
 */
function compacted(model: WhisperModel, cache: KvCache, shared: number, live: Hypothesis[]): KvCache {
  const seen = new Set<number>();
  for (const h of live) for (const p of h.positions) seen.add(p);
  if (cache.length - shared - seen.size < DEAD_POSITIONS_TO_COMPACT) return cache;
  const kept = [...seen].sort((a, b) => a - b);
  const index = new Map(kept.map((p, j) => [p, shared + j]));
  const gathered = model.gatherCache(cache, [...Array.from({ length: shared }, (_, i) => i), ...kept]);
  cache.release();
  for (const h of live) h.positions = h.positions.map((p) => index.get(p)!);
  return gathered;
}

function firstStop(stops: readonly StoppingCriterion[], ids: readonly number[], textIds: readonly number[]): StopReason | null {
  for (const criterion of stops) {
    const stop = criterion(ids, textIds);
    if (stop !== null) return stop;
  }
  return null;
}

/** The ids of the `k` largest finite entries of `row`, largest first. */
function topIds(row: Float32Array, k: number): number[] {
  const top: number[] = [];
  for (let i = 0; i < row.length; i++) {
    const x = row[i]!;
    if (x === -Infinity || (top.length === k && x <= row[top[k - 1]!]!)) continue;
    let j = Math.min(top.length, k - 1);
    if (top.length < k) top.push(i);
    while (j > 0 && row[top[j - 1]!]! < x) {
      top[j] = top[j - 1]!;
      j--;
    }
    top[j] = i;
  }
  return top;
}

/** A copy of `row` (in `into` when given) after `processors`, for the token after `generated`. */
export function processedRow(row: Float32Array, processors: readonly LogitsProcessor[], generated: readonly number[], into?: Float32Array): Float32Array {
  const r = into ? (into.set(row), into) : row.slice();
  for (const process of processors) process(r, generated);
  return r;
}

/** Stops where the text tokens' tail repeats (repeatsTail, `times` repeats of an n-gram) or `loops` says so. */
export function loopStop(times?: number, loops?: (textIds: readonly number[]) => boolean): StoppingCriterion {
  return (_ids, textIds) => (repeatsTail(textIds, times) || (loops?.(textIds) ?? false) ? 'loop' : null);
}

/** Stops once a segment closes at the end of the window's audio (closesAtEnd). */
export function endOfAudioStop(vocab: WhisperVocabulary, maxTsIndex: number): StoppingCriterion {
  return (ids) => (closesAtEnd(ids, vocab, maxTsIndex) ? 'end-of-audio' : null);
}

/** Stops where `until` holds for the text tokens so far. */
export function untilStop(until: (textIds: readonly number[]) => boolean): StoppingCriterion {
  return (_ids, textIds) => (until(textIds) ? 'until' : null);
}

/** A segment just closed at (or within 0.3 s of) the end of the audio: nothing is left to transcribe. */
export function closesAtEnd(ids: readonly number[], vocab: WhisperVocabulary, maxTsIndex: number): boolean {
  const n = ids.length;
  if (n < 2 || !vocab.isTimestamp(ids[n - 1]!) || vocab.isTimestamp(ids[n - 2]!)) return false;
  return ids[n - 1]! - vocab.timestampBegin >= maxTsIndex - 15;
}

/**
 * Whether a greedy pass that generated `ids` under `framing` stopped at <|endoftext|>, rather than being
 * cut at the end of the audio, by a loop or by its token limit (the loop's other stops).
 */
export function endedWithEot(ids: readonly number[], vocab: WhisperVocabulary, framing: { maxTsIndex: number; maxTokens: number }): boolean {
  return !(closesAtEnd(ids, vocab, framing.maxTsIndex) || repeatsTail(ids.filter((id) => vocab.isText(id))) || ids.length >= framing.maxTokens);
}

/**
 * True when the tail of `ids` is one n-gram (2 ≤ n ≤ 16) repeated at least `times` times, or one token
 * repeated 12 times: a decoding loop.
 */
export function repeatsTail(ids: readonly number[], times = 4): boolean {
  for (let n = 1; n <= 16; n++) {
    const reps = n === 1 ? 12 : times;
    if (ids.length < n * reps) continue;
    // a run of one token ("no no no") is judged as a 1-gram only
    if (n > 1 && ids.slice(-n).every((id) => id === ids[ids.length - 1])) continue;
    let repeated = true;
    for (let r = 1; r < reps && repeated; r++) {
      for (let k = 0; k < n; k++) {
        if (ids[ids.length - 1 - k] !== ids[ids.length - 1 - k - r * n]) {
          repeated = false;
          break;
        }
      }
    }
    if (repeated) return true;
  }
  return false;
}

/** The vocabulary row at decoder position `index` of logits [1, seq, vocab]: a view, which nothing writes to (processedRow copies). */
export function rowAt(logits: { dims: readonly number[]; data: unknown }, index: number): Float32Array {
  const vocabSize = logits.dims[2]!;
  return (logits.data as Float32Array).subarray(index * vocabSize, (index + 1) * vocabSize);
}

export function argmax(a: Float32Array): number {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i]! > a[best]!) best = i;
  return best;
}

function sample(logits: Float32Array, temperature: number, random: () => number): number {
  const scaled = new Float32Array(logits.length);
  for (let i = 0; i < logits.length; i++) scaled[i] = logits[i]! / temperature;
  const z = logSumExp(scaled, 0, scaled.length);
  let r = random();
  for (let i = 0; i < scaled.length; i++) {
    r -= Math.exp(scaled[i]! - z);
    if (r <= 0) return i;
  }
  return argmax(logits);
}
