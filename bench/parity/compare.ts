/**
 * Token-by-token parity of our decoder with the reference (reference.ts) on one clip: the same audio,
 * one full 30 s window (3000 log-mel frames), greedy, timestamps on. Where the ids differ, the first
 * divergence is explained: a stopping rule of ours, a grammar rule one side has and the other lacks,
 * or a near-tie between the two candidates that a small numeric difference flipped.
 */
import { ENCODER_FRAME_MS, FULL_FRAMES, logMelSpectrogram } from '../../engine/whisper/features';
import type { WhisperModel } from '../../engine/whisper/model';
import type { WhisperVocabulary } from '../../engine/whisper/tokenizer';
import { ourGreedyTokens, type OurPass } from './ours';
import type { Reference, ReferencePass } from './reference';

/**
 * Largest gap (nats) between the two candidates' log-probabilities, under the reference's distribution,
 * at which a divergence counts as a near-tie flipped by numerics. Chosen on ../shared/eval/en and
 * ../shared/dev/en (clips ≤ 30 s): 4× the widest such gap found there (0.025 nats, whisper-tiny,
 * dev/en/LJ050-0208.wav, <|5.00|> against <|5.04|>); see bench/README.md's parity section.
 */
export const NEAR_TIE_NATS = 0.1;

/** OpenAI's max_initial_timestamp (1.0 s in 20 ms steps), which our grammar applies at the first token. */
const MAX_INITIAL_TIMESTAMP_INDEX = 50;

export type DivergenceKind = 'our-stop' | 'rule' | 'near-tie' | 'unexplained';

export interface Divergence {
  /** Index of the first differing generated token (after the prompt). */
  step: number;
  /** Our token there (null: our pass stopped, see `cause`), and the reference's (null: its budget ran out). */
  ours: number | null;
  reference: number | null;
  /** Under the reference's processed distribution at `step`: its token's and ours's log-probabilities. */
  referenceLogprobs: { reference: number | null; ours: number | null };
  /** Our token's log-probability under our processed distribution. */
  ourLogprob: number | null;
  kind: DivergenceKind;
  cause: string;
}

export interface ClipParity {
  /** Largest |ours − reference| over the 80 × 3000 log-mel. */
  melMaxDiff: number;
  /** Largest |ours − reference| log-probability of a token both chose, before any divergence: the numeric noise between the two. */
  logprobMaxDiff: number;
  ours: number[];
  reference: number[];
  identical: boolean;
  divergence: Divergence | null;
}

/** Compares our pass and the reference's on `audio` (16 kHz mono, at most 30 s). */
export async function compareClip(model: WhisperModel, reference: Reference, audio: Float32Array, language: string): Promise<ClipParity> {
  const ourMel = logMelSpectrogram(audio, FULL_FRAMES);
  const refMel = await reference.features(audio);
  const ours = await decodeMel(model, ourMel, language);
  const ref = await reference.greedy(refMel, { language, maxNewTokens: ours.maxTokens });
  const step = firstDifference(ours.ids, ref.ids);
  const identical = step === null;
  const divergence = identical ? null : await explain(model, ours, ref, step, () => decodeMel(model, refMel, language));
  let logprobMaxDiff = 0;
  for (let i = 0; i < (step ?? ours.ids.length); i++) logprobMaxDiff = Math.max(logprobMaxDiff, Math.abs(ours.logprobs[i]! - ref.logprob(i, ours.ids[i]!)));
  return { melMaxDiff: maxAbsDiff(ourMel, refMel), logprobMaxDiff, ours: ours.ids, reference: ref.ids, identical, divergence };
}

async function decodeMel(model: WhisperModel, mel: Float32Array, language: string): Promise<OurPass> {
  const encoded = await model.encode(mel, FULL_FRAMES);
  try {
    return await ourGreedyTokens(model, encoded, { language, audioSeconds: 30 });
  } finally {
    model.releaseWindow(encoded);
  }
}

/** The first index where the two sequences differ (one ending counts), null when equal. */
export function firstDifference(a: readonly number[], b: readonly number[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? null : n;
}

async function explain(model: WhisperModel, ours: OurPass, ref: ReferencePass, step: number, oursOnReferenceMel: () => Promise<OurPass>): Promise<Divergence> {
  const v = model.vocab;
  const ourStopped = step >= ours.ids.length && ours.stop !== 'end-of-text';
  const o = step < ours.ids.length ? ours.ids[step]! : ourStopped ? null : v.eot;
  const r = step < ref.ids.length ? ref.ids[step]! : ref.endedWithEot ? v.eot : null;
  const lp = (id: number | null) => (id === null ? null : ref.logprob(step, id));
  const base = { step, ours: o, reference: r, referenceLogprobs: { reference: lp(r), ours: lp(o) }, ourLogprob: ours.logprobs[step] ?? null };
  if (o === null) return { ...base, kind: 'our-stop', cause: `our ${ours.stop} rule stopped the pass; the reference went on` };
  if (r === null) return { ...base, kind: 'our-stop', cause: `the reference's budget of ${ours.maxTokens} tokens ran out first` };
  const rule = ruleDifference(v, ours.ids.slice(0, step), r, o, base.referenceLogprobs.ours!);
  if (rule) return { ...base, kind: 'rule', cause: rule };
  const gap = base.referenceLogprobs.reference! - base.referenceLogprobs.ours!;
  if (gap > NEAR_TIE_NATS) return { ...base, kind: 'unexplained', cause: `the reference prefers its token by ${gap.toFixed(3)} nats` };
  const swapped = await oursOnReferenceMel();
  const fromMel = (firstDifference(swapped.ids, ref.ids) ?? Infinity) > step;
  const source = fromMel ? 'the log-mel difference (on the reference log-mel we agree there)' : 'decoder numerics (we differ there on the reference log-mel too)';
  return { ...base, kind: 'near-tie', cause: `near-tie (${gap.toFixed(3)} nats) flipped by ${source}` };
}

/** A grammar rule that allows the reference's token `r` but not ours, or forbids our `o` in the reference. */
function ruleDifference(v: WhisperVocabulary, prefix: readonly number[], r: number, o: number, refLogprobOfOurs: number): string | null {
  if (refLogprobOfOurs === -Infinity) return `the reference's rules forbid our ${tokenName(v, o)}`;
  if (v.isTimestamp(r)) {
    if (prefix.length === 0 && r - v.timestampBegin > MAX_INITIAL_TIMESTAMP_INDEX) {
      return "our first timestamp is at most 1.00 s (OpenAI's max_initial_timestamp); transformers.js's check of it is unreachable";
    }
    const last = [...prefix].reverse().find((id) => v.isTimestamp(id));
    if (last !== undefined && r < last) return `our timestamps never decrease; the reference went back from ${tokenName(v, last)}`;
  }
  if (v.suppress.includes(r) || (r > v.eot && r < v.timestampBegin)) return `we suppress ${tokenName(v, r)}`;
  return null;
}

/** A token as text: its characters, or <|t.tt|> for a timestamp, <|endoftext|> for the end. */
export function tokenName(v: WhisperVocabulary, id: number): string {
  if (id === v.eot) return '<|endoftext|>';
  if (v.isTimestamp(id)) return `<|${(((id - v.timestampBegin) * ENCODER_FRAME_MS) / 1000).toFixed(2)}|>`;
  return JSON.stringify(v.decode([id]));
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`log-mel sizes differ: ${a.length} and ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}
