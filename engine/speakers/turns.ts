/**
 * From labelled embeddings to speaker turns: every 20 ms of speech goes to the speaker whose centroid
 * the overlapping pieces are, on average, most similar to; short speech regions that gave no clustering
 * embedding are classified by their own embedding against the centroids.
 */
import type { SpeechRegion } from '../vad/windows';
import type { SpeakerEmbedding } from './embed';
import { dot, unitCentroids } from './cluster';
import { smoothPath } from './resegment';

export interface SpeakerTurn {
  startMs: number;
  endMs: number;
  speaker: number;
}

const SAMPLES_PER_MS = 16;
/** Resolution of the turn boundaries: one encoder position. */
const STEP = 320;

export interface TurnOptions {
  /** Turns shorter than this are given to the neighbouring speaker (a 1.5 s piece cannot place them). */
  minTurnMs: number;
  /**
   * Re-segmentation (resegment.ts): what a change of speaker costs, in summed per-step (20 ms)
   * similarity; 0 takes each step's best speaker on its own.
   */
  switchPenalty: number;
  /** Weight of the short frame embeddings (`frames`) in a step's score against the covering 1.5 s pieces. */
  frameWeight: number;
}

/*
 * frameWeight 0.5: see FRAME_DEFAULTS (diarize.ts). switchPenalty 0: on the dev and eval diar sets
 * (bench/diarization.mjs --sets ../shared/dev,../shared/eval, pooled DER c0.25 with 1 s frames) a
 * penalty of 3 or 10 changed nothing (20.8%) and 30 moved it by 0.1 point: the pieces' scores already
 * change slowly, and the errors are whole turns given to the wrong speaker, not cuts inside a turn.
 */
export const TURN_DEFAULTS: Readonly<TurnOptions> = { minTurnMs: 250, switchPenalty: 0, frameWeight: 0.5 };

/**
 * Speaker turns over `regions` (absolute samples), sorted, non-overlapping. `extra` are embeddings of
 * short regions that were left out of clustering; they only vote for the region they cover. `frames`
 * are short embeddings (sorted by start) that sharpen each step's score where turns change.
 */
export function speakerTurns(
  regions: readonly SpeechRegion[],
  embeddings: readonly SpeakerEmbedding[],
  labels: readonly number[],
  extra: readonly SpeakerEmbedding[] = [],
  options: Partial<TurnOptions> = {},
  frames: readonly SpeakerEmbedding[] = [],
): SpeakerTurn[] {
  const o = { ...TURN_DEFAULTS, ...options };
  const cents = unitCentroids(embeddings.map((e) => e.vector), labels);
  if (cents.length === 0) return regions.map((r) => ({ startMs: r.startSample / SAMPLES_PER_MS, endMs: r.endSample / SAMPLES_PER_MS, speaker: 0 }));
  const scored = [...embeddings, ...extra]
    .map((e) => ({ s: e.startSample, e: e.endSample, scores: cents.map((c) => dot(c, e.vector)) }))
    .sort((a, b) => a.s - b.s);
  // sorted, as the pieces are: windows may arrive out of order (the transcription's before the diarizer's own)
  const frameScores = frames
    .map((f) => ({ s: f.startSample, e: f.endSample, scores: cents.map((c) => dot(c, f.vector)) }))
    .sort((a, b) => a.s - b.s);

  const steps: Array<{ start: number; end: number; speaker: number }> = [];
  let from = 0; // first piece that may still overlap
  let frame = 0;
  for (const r of regions) {
    const regionSteps: Array<{ start: number; end: number; score: Float64Array }> = [];
    for (let t = r.startSample; t < r.endSample; t += STEP) {
      const end = Math.min(t + STEP, r.endSample);
      const mid = (t + end) / 2;
      while (from < scored.length && scored[from]!.e <= t - 48_000) from++;
      const sum = new Float64Array(cents.length);
      let hits = 0;
      let nearest = -1;
      let nearestGap = Infinity;
      for (let i = from; i < scored.length && scored[i]!.s <= mid + 48_000; i++) {
        const p = scored[i]!;
        if (p.s <= mid && mid < p.e) {
          p.scores.forEach((v, c) => (sum[c]! += v));
          hits++;
        } else {
          const gap = mid < p.s ? p.s - mid : mid - p.e;
          if (gap < nearestGap) [nearest, nearestGap] = [i, gap];
        }
      }
      // No piece covers this step (a short region, or an edge): the nearest piece within 3 s decides.
      if (hits === 0 && nearest >= 0) {
        scored[nearest]!.scores.forEach((v, c) => (sum[c]! += v));
        hits = 1;
      }
      if (hits > 0) for (let c = 0; c < sum.length; c++) sum[c]! /= hits;
      while (frame < frameScores.length && frameScores[frame]!.e <= mid) frame++;
      const f = frameScores[frame];
      if (o.frameWeight > 0 && f && f.s <= mid) for (let c = 0; c < sum.length; c++) sum[c] = (1 - o.frameWeight) * sum[c]! + o.frameWeight * f.scores[c]!;
      regionSteps.push({ start: t, end, score: sum });
    }
    const path = smoothPath(regionSteps.map((st) => st.score), o.switchPenalty);
    regionSteps.forEach((st, i) => steps.push({ start: st.start, end: st.end, speaker: path[i]! }));
  }

  const turns: SpeakerTurn[] = [];
  for (const st of steps) {
    const last = turns[turns.length - 1];
    const startMs = st.start / SAMPLES_PER_MS;
    if (last && last.speaker === st.speaker && Math.abs(last.endMs - startMs) < 1e-6) last.endMs = st.end / SAMPLES_PER_MS;
    else turns.push({ startMs, endMs: st.end / SAMPLES_PER_MS, speaker: st.speaker });
  }
  return renumberTurns(absorbShortTurns(turns, o.minTurnMs));
}

/** A turn shorter than `minMs` between or beside turns of others goes to its longer touching neighbour. */
function absorbShortTurns(turns: SpeakerTurn[], minMs: number): SpeakerTurn[] {
  const out = turns.map((t) => ({ ...t }));
  for (let i = 0; i < out.length; i++) {
    const t = out[i]!;
    if (t.endMs - t.startMs >= minMs) continue;
    const prev = out[i - 1];
    const next = out[i + 1];
    const touchesPrev = prev !== undefined && Math.abs(prev.endMs - t.startMs) < 1e-6;
    const touchesNext = next !== undefined && Math.abs(next.startMs - t.endMs) < 1e-6;
    if (!touchesPrev && !touchesNext) continue;
    const pick =
      touchesPrev && touchesNext ? (prev!.endMs - prev!.startMs >= next!.endMs - next!.startMs ? prev! : next!) : touchesPrev ? prev! : next!;
    t.speaker = pick.speaker;
  }
  const merged: SpeakerTurn[] = [];
  for (const t of out) {
    const last = merged[merged.length - 1];
    if (last && last.speaker === t.speaker && Math.abs(last.endMs - t.startMs) < 1e-6) last.endMs = t.endMs;
    else merged.push(t);
  }
  return merged;
}

/** Speaker ids 0, 1, ... in order of first appearance in time. */
export function renumberTurns(turns: readonly SpeakerTurn[]): SpeakerTurn[] {
  const names = new Map<number, number>();
  return [...turns]
    .sort((a, b) => a.startMs - b.startMs)
    .map((t) => {
      if (!names.has(t.speaker)) names.set(t.speaker, names.size);
      return { ...t, speaker: names.get(t.speaker)! };
    });
}
