/** The encoders whose speaker features the fitting tools know (scripts/fit-speaker-constants.mjs --model). */
export type SpeakerEncoder = 'whisper-tiny' | 'whisper-base';

export interface SpeakerFeatures {
  /** The block output the features are (its name in the q8 export), chosen by bench/speaker-layers.mjs. */
  tensor: string;
  /** The encoder's encoder_attention_heads (its config.json), for the encoder cut down to those blocks. */
  heads: number;
}

/*
 * Block 2 of base (512 channels): its best DER on the development meetings (block 1 has the better EER);
 * block 1 of tiny (384): its best EER on LibriSpeech test-other and best DER. bench/speaker-layers.mjs
 * [--model whisper-tiny], bench/results/diarization-2026-11-27.md.
 */
export const SPEAKER_FEATURES: Readonly<Record<SpeakerEncoder, SpeakerFeatures>> = {
  'whisper-tiny': { tensor: '/layers.0/Add_1_output_0', heads: 6 },
  'whisper-base': { tensor: '/layers.1/Add_1_output_0', heads: 8 },
};

/**
 * The encoder whose features the engine diarizes with, whatever model transcribes. tiny's own features
 * cost less but lost DER on the development meetings (bench/results/diarization-2026-11-27.md, 2026-12-07
 * second part), so they are not shipped.
 */
export const SHIPPED_SPEAKER_ENCODER: SpeakerEncoder = 'whisper-base';

/** The shipped constants (engine/speakers/speaker-constants-whisper-base.json), loaded when a request first diarizes. */
export async function shippedSpeakerConstants(): Promise<SpeakerConstantsFile> {
  return (await import('./speaker-constants-whisper-base.json')).default as unknown as SpeakerConstantsFile;
}

/** Fitted by scripts/fit-speaker-model.ts (node scripts/fit-speaker-constants.mjs); see decodeSpeakerConstants for the shipped form. */
export interface SpeakerConstants {
  /** Whose encoder's features these constants are for. */
  encoder: SpeakerEncoder;
  /** Encoder positions covered by `positionMean` (1500: Whisper's 30 s window). */
  positions: number;
  /** Hidden-state channels (512 for whisper-base, 384 for whisper-tiny). */
  dims: number;
  /** Embedding length after the projection. */
  outDims: number;
  /** [positions × dims]: mean hidden state of speech at each position, subtracted before pooling. */
  positionMean: Float32Array;
  /** [dims]: mean of the pooled, position-corrected features (the PCA centre). */
  center: Float32Array;
  /** [outDims × dims]: PCA whitening, rows scaled by 1/sqrt(eigenvalue). */
  projection: Float32Array;
}

/**
 * The shipped form (engine/speakers/speaker-constants-<encoder>.json, written by node scripts/fit-speaker-constants.mjs).
 * Arrays are little-endian float16 in base64. The per-position mean is stored as a rank-`rank`
 * factorisation, offset + basis·loadings, because its full 1500×512 table would be 1.5 MB in float16
 * (2 MB in base64). Rank 128 keeps the file under 1 MB; it costs ~1.5 points of DER against the full
 * table (oracle regions, true count: 15.1% vs 13.6%), rank 32 cost 7 points.
 * The projection is stored as unit eigenvectors (float16) and their scales (float32 values in JSON).
 */
export interface SpeakerConstantsFile {
  format: 'localscribe-speaker-constants';
  version: 1;
  /** Whose encoder the features come from, and which of its tensors (SPEAKER_FEATURES). */
  encoder: SpeakerEncoder;
  tensor: string;
  positions: number;
  dims: number;
  rank: number;
  outDims: number;
  meanOffset: number[];
  meanBasis: string;
  meanLoadings: string;
  center: number[];
  eigenvectors: string;
  scales: number[];
  /** How the file was made (command, data, counts); not read by the code. */
  provenance: Record<string, unknown>;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export function decodeHalfBase64(text: string, expected: number): Float32Array {
  const bin = atob(text);
  if (bin.length !== expected * 2) throw new Error(`speaker constants: ${bin.length / 2} values where ${expected} were expected`);
  const out = new Float32Array(expected);
  for (let i = 0; i < expected; i++) out[i] = halfToFloat(bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8));
  return out;
}

/** Expands the shipped file into the tables the embedding code uses (~3 MB of Float32Array). */
export function decodeSpeakerConstants(file: SpeakerConstantsFile): SpeakerConstants {
  if (file.format !== 'localscribe-speaker-constants' || file.version !== 1) throw new Error('not a localscribe speaker-constants file (v1)');
  const { positions, dims, rank, outDims } = file;
  const basis = decodeHalfBase64(file.meanBasis, positions * rank);
  const loadings = decodeHalfBase64(file.meanLoadings, rank * dims);
  const positionMean = new Float32Array(positions * dims);
  for (let p = 0; p < positions; p++) {
    for (let d = 0; d < dims; d++) {
      let v = file.meanOffset[d]!;
      for (let r = 0; r < rank; r++) v += basis[p * rank + r]! * loadings[r * dims + d]!;
      positionMean[p * dims + d] = v;
    }
  }
  const projection = decodeHalfBase64(file.eigenvectors, outDims * dims);
  for (let k = 0; k < outDims; k++) for (let d = 0; d < dims; d++) projection[k * dims + d]! *= file.scales[k]!;
  return { encoder: file.encoder, positions, dims, outDims, positionMean, center: Float32Array.from(file.center), projection };
}
