/**
 * Fits the speaker-embedding constants shipped in engine/speakers/speaker-constants-<encoder>.json from
 * ../shared/speakers/librispeech_train-clean-100 (251 speakers, one utterance each; never the test set):
 *   1. the utterances are packed two per 30 s window at seeded random offsets (fit-speaker-windows.ts)
 *      and run through the encoder cut after its feature block (SPEAKER_FEATURES, bench/speaker-features.ts);
 *   2. per-position mean of the hidden states over speech (Silero regions, diarization settings),
 *      stored as its mean plus a rank-R factorisation (R = 128 by default);
 *   3. pooled 1.5 s pieces (0.75 s hop) of speech minus that mean: PCA, whitening to `outDims`.
 * Run: node scripts/fit-speaker-constants.mjs [--model whisper-tiny --out FILE] [--windows N] [--rank R] [--out-dims K] [--out FILE]
 * (hidden states are cached under tmp/speaker-cache; a full run costs ~3 min of CPU on a free core).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../config/paths';
import { vadProbabilities, windowHidden } from '../bench/speaker-features';
import { SHIPPED_SPEAKER_ENCODER, SPEAKER_FEATURES, type SpeakerConstantsFile, type SpeakerEncoder } from '../engine/speakers/constants';
import { diarizationRegions } from '../engine/speakers/diarize';
import { EMBEDDING_DEFAULTS, SAMPLES_PER_POSITION, tileSpan } from '../engine/speakers/embed';
import type { SpeechRegion } from '../engine/vad/windows';
import { symmetricEigen } from './symmetric-eigen';
import { trainWindows, type PackedWindow } from './fit-speaker-windows';

export const POSITIONS = 1500;
/** Speech frames a position needs for its own mean. */
const MIN_COUNT = 5;

export interface LabelledWindow {
  hidden: Float32Array;
  /** Channels per position. */
  dims: number;
  /** Speech of each utterance, window-relative samples, with its speaker. */
  speech: Array<{ speaker: string; regions: SpeechRegion[] }>;
}

export async function loadWindows(windows: readonly PackedWindow[], encoder: SpeakerEncoder = SHIPPED_SPEAKER_ENCODER): Promise<LabelledWindow[]> {
  const out: LabelledWindow[] = [];
  for (const w of windows) {
    const speech = [];
    for (const u of w.utterances) {
      const regions = diarizationRegions(await vadProbabilities(u.audio), u.audio.length).map((r) => ({
        startSample: r.startSample + u.offset,
        endSample: r.endSample + u.offset,
      }));
      speech.push({ speaker: u.speaker, regions });
    }
    const hidden = await windowHidden(w.audio, encoder);
    out.push({ hidden, dims: hidden.length / POSITIONS, speech });
  }
  return out;
}

/** Mean hidden state of speech at each position, and how many speech frames each mean is over. */
export function positionMean(windows: readonly LabelledWindow[]): { mean: Float32Array; counts: Float64Array } {
  const DIMS = windows[0]!.dims;
  const sum = new Float64Array(POSITIONS * DIMS);
  const counts = new Float64Array(POSITIONS);
  for (const w of windows) {
    for (const { regions } of w.speech) {
      for (const r of regions) {
        const last = Math.min(POSITIONS, Math.floor(r.endSample / SAMPLES_PER_POSITION));
        for (let p = Math.ceil(r.startSample / SAMPLES_PER_POSITION); p < last; p++) {
          counts[p]!++;
          for (let d = 0; d < DIMS; d++) sum[p * DIMS + d]! += w.hidden[p * DIMS + d]!;
        }
      }
    }
  }
  return { mean: meanFromSums(sum, counts, DIMS), counts };
}

/**
 * The per-position mean [POSITIONS × dims] from summed speech frames and their counts per position.
 * Positions with too little speech (the first ones: LibriSpeech starts with silence, and the engine's
 * windows start 1 s before speech) borrow the mean of the nearest well-covered position.
 */
export function meanFromSums(sum: Float64Array, counts: Float64Array, dims: number): Float32Array {
  const covered = Array.from({ length: POSITIONS }, (_, p) => p).filter((p) => counts[p]! >= MIN_COUNT);
  if (covered.length === 0) throw new Error('no encoder position has enough speech: pack more windows');
  const mean = new Float32Array(POSITIONS * dims);
  for (let p = 0; p < POSITIONS; p++) {
    const q = covered.reduce((best, c) => (Math.abs(c - p) < Math.abs(best - p) ? c : best), covered[0]!);
    for (let d = 0; d < dims; d++) mean[p * dims + d] = sum[q * dims + d]! / counts[q]!;
  }
  return mean;
}

export interface LowRankMean {
  offset: Float64Array;
  /** [POSITIONS × rank] */
  basis: Float64Array;
  /** rank rows of the channels */
  loadings: Float64Array[];
}

/** offset + basis·loadings: the best rank-R fit of the per-position mean around its average (count-weighted). */
export function lowRankMean(mean: Float32Array, counts: Float64Array, rank: number): LowRankMean {
  const DIMS = mean.length / POSITIONS;
  const offset = new Float64Array(DIMS);
  const total = counts.reduce((a, b) => a + b, 0);
  for (let p = 0; p < POSITIONS; p++) for (let d = 0; d < DIMS; d++) offset[d]! += (counts[p]! / total) * mean[p * DIMS + d]!;
  const gram = new Float64Array(DIMS * DIMS);
  const row = new Float64Array(DIMS);
  for (let p = 0; p < POSITIONS; p++) {
    for (let d = 0; d < DIMS; d++) row[d] = mean[p * DIMS + d]! - offset[d]!;
    for (let i = 0; i < DIMS; i++) {
      const ri = row[i]!;
      for (let j = i; j < DIMS; j++) gram[i * DIMS + j]! += ri * row[j]!;
    }
  }
  for (let i = 0; i < DIMS; i++) for (let j = 0; j < i; j++) gram[i * DIMS + j] = gram[j * DIMS + i]!;
  const loadings = symmetricEigen(gram, DIMS).vectors.slice(0, rank);
  const basis = new Float64Array(POSITIONS * rank);
  for (let p = 0; p < POSITIONS; p++) {
    for (let r = 0; r < rank; r++) {
      let acc = 0;
      for (let d = 0; d < DIMS; d++) acc += (mean[p * DIMS + d]! - offset[d]!) * loadings[r]![d]!;
      basis[p * rank + r] = acc;
    }
  }
  return { offset, basis, loadings };
}

export function expandMean(m: LowRankMean): Float32Array {
  const rank = m.loadings.length;
  const DIMS = m.offset.length;
  const out = new Float32Array(POSITIONS * DIMS);
  for (let p = 0; p < POSITIONS; p++) {
    for (let d = 0; d < DIMS; d++) {
      let v = m.offset[d]!;
      for (let r = 0; r < rank; r++) v += m.basis[p * rank + r]! * m.loadings[r]![d]!;
      out[p * DIMS + d] = v;
    }
  }
  return out;
}

/** Pooled (hidden - mean) over the 1.5 s pieces of every utterance's speech, with the speaker of each. */
export function pooledPieces(windows: readonly LabelledWindow[], mean: Float32Array): Array<{ speaker: string; x: Float64Array }> {
  const piece = (EMBEDDING_DEFAULTS.subWindowMs * 16) | 0;
  const hop = (EMBEDDING_DEFAULTS.hopMs * 16) | 0;
  const min = (EMBEDDING_DEFAULTS.minMs * 16) | 0;
  const DIMS = mean.length / POSITIONS;
  const out: Array<{ speaker: string; x: Float64Array }> = [];
  for (const w of windows) {
    for (const { speaker, regions } of w.speech) {
      for (const r of regions) {
        if (r.endSample - r.startSample < min) continue;
        for (const [s, e] of tileSpan(r.startSample, r.endSample, piece, hop)) {
          const first = Math.floor(s / SAMPLES_PER_POSITION);
          const last = Math.min(POSITIONS, Math.ceil(e / SAMPLES_PER_POSITION));
          const x = new Float64Array(DIMS);
          for (let p = first; p < last; p++) for (let d = 0; d < DIMS; d++) x[d]! += w.hidden[p * DIMS + d]! - mean[p * DIMS + d]!;
          for (let d = 0; d < DIMS; d++) x[d]! /= Math.max(1, last - first);
          out.push({ speaker, x });
        }
      }
    }
  }
  return out;
}

export interface Whitening {
  center: Float64Array;
  vectors: Float64Array[];
  scales: Float64Array;
}

/** PCA of the pooled pieces (of any length), keeping `outDims` components scaled to unit variance. */
export function fitWhitening(xs: readonly Float64Array[], outDims: number): Whitening {
  const DIMS = xs[0]!.length;
  const center = new Float64Array(DIMS);
  for (const x of xs) for (let d = 0; d < DIMS; d++) center[d]! += x[d]! / xs.length;
  const cov = new Float64Array(DIMS * DIMS);
  const c = new Float64Array(DIMS);
  for (const x of xs) {
    for (let d = 0; d < DIMS; d++) c[d] = x[d]! - center[d]!;
    for (let i = 0; i < DIMS; i++) {
      const ci = c[i]! / (xs.length - 1);
      for (let j = i; j < DIMS; j++) cov[i * DIMS + j]! += ci * c[j]!;
    }
  }
  for (let i = 0; i < DIMS; i++) for (let j = 0; j < i; j++) cov[i * DIMS + j] = cov[j * DIMS + i]!;
  const eig = symmetricEigen(cov, DIMS);
  return {
    center,
    vectors: eig.vectors.slice(0, outDims),
    scales: Float64Array.from(eig.values.slice(0, outDims), (v) => 1 / Math.sqrt(Math.max(v, 1e-12))),
  };
}

/**
 * Linear discriminant projection: directions that vary between speakers more than within one
 * speaker's pieces (what is said, where in the utterance), by whitening the within-speaker scatter
 * (regularised by `reg` times its mean eigenvalue) and keeping the top `outDims` directions of the
 * between-speaker scatter in that space. Rows come back unit length with their scale apart, the
 * shipped file's form (projection row = vector * scale).
 * Not what ships (--discriminant selects it). Measured 2026-11-21 against the shipped PCA whitening,
 * bench/diarization.mjs --constants FILE: own-VAD DER with the true count 10.5% vs 13.3%, test-other
 * EER 8.9% vs 5.2% on whole utterances and 8.4% vs 10.8% on 1.5-3 s crops, but more one-speaker
 * recordings split (32-33 of 35 kept whole vs 34) at thresholds that keep the AMI clips at two.
 */
export function fitDiscriminant(pieces: ReadonlyArray<{ speaker: string; x: Float64Array }>, outDims: number, reg = 0.01): Whitening {
  const DIMS = pieces[0]!.x.length;
  const center = new Float64Array(DIMS);
  for (const p of pieces) for (let d = 0; d < DIMS; d++) center[d]! += p.x[d]! / pieces.length;
  const groups = new Map<string, Float64Array[]>();
  for (const p of pieces) groups.set(p.speaker, [...(groups.get(p.speaker) ?? []), p.x]);
  const within = new Float64Array(DIMS * DIMS);
  const between = new Float64Array(DIMS * DIMS);
  const addOuter = (m: Float64Array, v: Float64Array, w: number): void => {
    for (let i = 0; i < DIMS; i++) {
      const vi = v[i]! * w;
      for (let j = i; j < DIMS; j++) m[i * DIMS + j]! += vi * v[j]!;
    }
  };
  const c = new Float64Array(DIMS);
  for (const xs of groups.values()) {
    const mean = new Float64Array(DIMS);
    for (const x of xs) for (let d = 0; d < DIMS; d++) mean[d]! += x[d]! / xs.length;
    for (const x of xs) {
      for (let d = 0; d < DIMS; d++) c[d] = x[d]! - mean[d]!;
      addOuter(within, c, 1 / pieces.length);
    }
    for (let d = 0; d < DIMS; d++) c[d] = mean[d]! - center[d]!;
    addOuter(between, c, 1 / groups.size);
  }
  for (const m of [within, between]) for (let i = 0; i < DIMS; i++) for (let j = 0; j < i; j++) m[i * DIMS + j] = m[j * DIMS + i]!;
  let trace = 0;
  for (let i = 0; i < DIMS; i++) trace += within[i * DIMS + i]!;
  for (let i = 0; i < DIMS; i++) within[i * DIMS + i]! += (reg * trace) / DIMS;
  const w = symmetricEigen(within, DIMS);
  // P = Λ^-1/2 Vᵀ whitens the within scatter; then the between scatter's eigenvectors in that space.
  const P = w.vectors.map((v, k) => v.map((x) => x / Math.sqrt(w.values[k]!)));
  const pb = new Float64Array(DIMS * DIMS);
  const tmp = P.map((row) => {
    const out = new Float64Array(DIMS);
    for (let j = 0; j < DIMS; j++) {
      let acc = 0;
      for (let d = 0; d < DIMS; d++) acc += row[d]! * between[d * DIMS + j]!;
      out[j] = acc;
    }
    return out;
  });
  for (let i = 0; i < DIMS; i++) {
    for (let j = i; j < DIMS; j++) {
      let acc = 0;
      for (let d = 0; d < DIMS; d++) acc += tmp[i]![d]! * P[j]![d]!;
      pb[i * DIMS + j] = acc;
      pb[j * DIMS + i] = acc;
    }
  }
  const b = symmetricEigen(pb, DIMS);
  const vectors: Float64Array[] = [];
  const scales = new Float64Array(outDims);
  for (let k = 0; k < outDims; k++) {
    const row = new Float64Array(DIMS);
    for (let i = 0; i < DIMS; i++) for (let d = 0; d < DIMS; d++) row[d]! += b.vectors[k]![i]! * P[i]![d]!;
    const norm = Math.hypot(...row);
    vectors.push(row.map((x) => x / norm));
    scales[k] = norm;
  }
  return { center, vectors, scales };
}

function floatToHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  const mant = bits & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00; // overflow to infinity (never happens for these tables)
  if (exp <= 0) {
    if (exp < -10) return sign;
    const m = (mant | 0x800000) >> (1 - exp);
    return sign | ((m + 0x1000) >> 13);
  }
  const rounded = (exp << 10) | (mant >> 13);
  return sign | (rounded + ((mant >> 12) & 1)); // round half up; a carry rolls into the exponent correctly
}

function halfBase64(values: ArrayLike<number>): string {
  const bytes = new Uint8Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const h = floatToHalf(values[i]!);
    bytes[2 * i] = h & 0xff;
    bytes[2 * i + 1] = h >> 8;
  }
  return Buffer.from(bytes).toString('base64');
}

const round = (xs: ArrayLike<number>): number[] => Array.from(xs, (v) => Number(v.toPrecision(7)));

export function constantsFile(encoder: SpeakerEncoder, mean: LowRankMean, w: Whitening, provenance: Record<string, unknown>): SpeakerConstantsFile {
  const rank = mean.loadings.length;
  return {
    format: 'localscribe-speaker-constants',
    version: 1,
    encoder,
    tensor: SPEAKER_FEATURES[encoder].tensor,
    positions: POSITIONS,
    dims: mean.offset.length,
    rank,
    outDims: w.vectors.length,
    meanOffset: round(mean.offset),
    meanBasis: halfBase64(mean.basis),
    meanLoadings: halfBase64(mean.loadings.flatMap((l) => Array.from(l))),
    center: round(w.center),
    eigenvectors: halfBase64(w.vectors.flatMap((v) => Array.from(v))),
    scales: round(w.scales),
    provenance,
  };
}

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

export async function main(args: string[]): Promise<void> {
  const nWindows = option(args, '--windows', Infinity);
  const rank = option(args, '--rank', 128);
  const outDims = option(args, '--out-dims', 128);
  const modelIndex = args.indexOf('--model');
  const encoder = (modelIndex >= 0 ? args[modelIndex + 1]! : SHIPPED_SPEAKER_ENCODER) as SpeakerEncoder;
  if (!(encoder in SPEAKER_FEATURES)) throw new Error(`--model must be one of ${Object.keys(SPEAKER_FEATURES).join(', ')}`);
  const outIndex = args.indexOf('--out');
  if (outIndex < 0 && encoder !== SHIPPED_SPEAKER_ENCODER) throw new Error(`the engine ships ${SHIPPED_SPEAKER_ENCODER}'s constants only: give --out FILE for ${encoder}'s`);
  const out = outIndex >= 0 ? args[outIndex + 1]! : join(ROOT, `engine/speakers/speaker-constants-${encoder}.json`);
  const packed = trainWindows(nWindows);
  const windows = await loadWindows(packed, encoder);
  const { mean, counts } = positionMean(windows);
  const low = lowRankMean(mean, counts, rank);
  const pieces = pooledPieces(windows, expandMean(low));
  const projectionKind = args.includes('--discriminant') ? 'discriminant' : 'pca';
  const whitening = projectionKind === 'discriminant' ? fitDiscriminant(pieces, outDims, option(args, '--reg', 0.01)) : fitWhitening(
    pieces.map((p) => p.x),
    outDims,
  );
  const file = constantsFile(encoder, low, whitening, {
    command: `node scripts/fit-speaker-constants.mjs ${args.join(' ')}`.trim(),
    data: 'librispeech_train-clean-100',
    windows: windows.length,
    utterances: packed.reduce((n, w) => n + w.utterances.length, 0),
    pieces: pieces.length,
    projection: projectionKind,
    minSpeechFramesPerPosition: Math.min(...counts),
  });
  const text = JSON.stringify(file);
  writeFileSync(out, text);
  console.log(`wrote ${out}: ${text.length} bytes, ${windows.length} windows, ${pieces.length} pieces, rank ${rank}, ${outDims} dims`);
}
