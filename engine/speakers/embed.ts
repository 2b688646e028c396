/**
 * Speaker embeddings from Whisper encoder hidden states (see constants.ts for where the numbers come from).
 * A window's hidden states are [positions × dims], one position per 20 ms from the window's first sample.
 */
import type { SpeechRegion } from '../vad/windows';
import type { SpeakerConstants } from './constants';

/** Samples per encoder position: 2 mel hops of 160 samples at 16 kHz. */
export const SAMPLES_PER_POSITION = 320;
const SAMPLES_PER_MS = 16;

export interface EmbeddingOptions {
  /** Length of the pieces of speech that are pooled into one embedding. */
  subWindowMs: number;
  /** Step between consecutive pieces inside a region. */
  hopMs: number;
  /** A region (or its part in a window) shorter than this gives no clustering embedding. */
  minMs: number;
}

/*
 * 1.5 s pieces with a 0.75 s hop: long enough for a stable mean of the hidden states, short enough that
 * most pieces hold one speaker in a meeting (AMI turns are often 1-3 s). The study measured this.
 */
export const EMBEDDING_DEFAULTS: Readonly<EmbeddingOptions> = { subWindowMs: 1500, hopMs: 750, minMs: 500 };

export interface SpeakerEmbedding {
  /** Absolute sample span in the recording that was pooled. */
  startSample: number;
  endSample: number;
  /** Unit-length vector, `constants.outDims` long. */
  vector: Float32Array;
}

/** One encoder run's hidden states and where its window starts in the recording. */
export interface HiddenWindow {
  hidden: Float32Array;
  positions: number;
  dims: number;
  startSample: number;
}

/** Even tiling of [start, end) by pieces of `piece` samples whose starts are at most `hop` apart. */
export function tileSpan(start: number, end: number, piece: number, hop: number): Array<[number, number]> {
  const len = end - start;
  if (len <= piece) return [[start, end]];
  const n = Math.ceil((len - piece) / hop) + 1;
  const step = (len - piece) / (n - 1);
  return Array.from({ length: n }, (_, k) => {
    const s = Math.round(start + k * step);
    return [s, s + piece];
  });
}

/**
 * A window's hidden states cut to the positions that hold its audio, [startSample, endSample): the
 * encoder input goes on past the window in silence (to 30 s, or the fitted input's tail), and those
 * positions say nothing of the speech there, which is the next window's (bench/results/diarization-2026-11-27.md,
 * 2026-12-01).
 */
export function heardWindow(hidden: Float32Array, positions: number, dims: number, startSample: number, endSample: number): HiddenWindow {
  return { hidden, positions: Math.min(positions, Math.ceil((endSample - startSample) / SAMPLES_PER_POSITION)), dims, startSample };
}

/** The parts of `regions` inside the window, clipped to it. */
export function regionsInWindow(window: HiddenWindow, regions: readonly SpeechRegion[]): SpeechRegion[] {
  const end = window.startSample + window.positions * SAMPLES_PER_POSITION;
  return regions
    .map((r) => ({ startSample: Math.max(r.startSample, window.startSample), endSample: Math.min(r.endSample, end) }))
    .filter((r) => r.endSample > r.startSample);
}

/**
 * Mean over the positions covering [startSample, endSample) of the hidden states minus the
 * per-position mean (Whisper's positional embedding otherwise dominates), projected and L2-normalised.
 */
export function embedSpan(window: HiddenWindow, startSample: number, endSample: number, c: SpeakerConstants): Float32Array {
  const { hidden, dims } = window;
  if (dims !== c.dims) throw new Error(`speaker constants are for ${c.dims} channels, hidden states have ${dims}`);
  const first = Math.max(0, Math.floor((startSample - window.startSample) / SAMPLES_PER_POSITION));
  const last = Math.min(window.positions, c.positions, Math.ceil((endSample - window.startSample) / SAMPLES_PER_POSITION));
  const pooled = new Float64Array(dims);
  for (let p = first; p < last; p++) {
    const row = p * dims;
    for (let d = 0; d < dims; d++) pooled[d]! += hidden[row + d]! - c.positionMean[row + d]!;
  }
  const count = Math.max(1, last - first);
  for (let d = 0; d < dims; d++) pooled[d] = pooled[d]! / count - c.center[d]!;
  return project(pooled, c);
}

/** Whitening projection to `outDims`, then unit length. */
function project(x: Float64Array, c: SpeakerConstants): Float32Array {
  const out = new Float32Array(c.outDims);
  let norm = 0;
  for (let k = 0; k < c.outDims; k++) {
    const row = k * c.dims;
    let acc = 0;
    for (let d = 0; d < c.dims; d++) acc += c.projection[row + d]! * x[d]!;
    out[k] = acc;
    norm += acc * acc;
  }
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let k = 0; k < c.outDims; k++) out[k]! *= inv;
  return out;
}

/** Embeddings of the pieces of speech in one window (pieces never cross a region boundary). */
export function windowEmbeddings(
  window: HiddenWindow,
  regions: readonly SpeechRegion[],
  c: SpeakerConstants,
  opts: EmbeddingOptions = EMBEDDING_DEFAULTS,
): SpeakerEmbedding[] {
  const piece = Math.round(opts.subWindowMs * SAMPLES_PER_MS);
  const hop = Math.round(opts.hopMs * SAMPLES_PER_MS);
  const min = Math.round(opts.minMs * SAMPLES_PER_MS);
  const out: SpeakerEmbedding[] = [];
  for (const r of regionsInWindow(window, regions)) {
    if (r.endSample - r.startSample < min) continue;
    for (const [s, e] of tileSpan(r.startSample, r.endSample, piece, hop)) {
      out.push({ startSample: s, endSample: e, vector: embedSpan(window, s, e, c) });
    }
  }
  return out;
}
