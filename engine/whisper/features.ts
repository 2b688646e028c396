import { SAMPLE_RATE } from '../protocol';
import { FFT } from './fft';

/** Whisper's front end: 16 kHz, 25 ms Hann window, 10 ms hop, 80 Slaney mel bands, log10, clamp, scale. */
export const N_FFT = 400;
export const HOP = 160;
export const N_MELS = 80;
/** Frames in Whisper's full 30 s window. */
export const FULL_FRAMES = 3000;
/** One encoder output frame, and one timestamp step: the encoder's stride-2 convolution over two mel hops, 20 ms. */
export const ENCODER_FRAME_MS = (2 * HOP * 1000) / SAMPLE_RATE;

const N_BINS = N_FFT / 2 + 1;

const hzToMel = (hz: number) => (hz < 1000 ? (3 * hz) / 200 : 15 + (27 * Math.log(hz / 1000)) / Math.log(6.4));
const melToHz = (mel: number) => (mel < 15 ? (200 * mel) / 3 : 1000 * Math.exp((Math.log(6.4) / 27) * (mel - 15)));

/** Slaney-normalised triangular filters, [N_MELS][N_BINS], as librosa.filters.mel(sr=16000, n_fft=400, n_mels=80). */
export function melFilterBank(): Float32Array[] {
  const melMax = hzToMel(SAMPLE_RATE / 2);
  const hzPoints = Array.from({ length: N_MELS + 2 }, (_, i) => melToHz((melMax * i) / (N_MELS + 1)));
  const filters: Float32Array[] = [];
  for (let m = 0; m < N_MELS; m++) {
    const lo = hzPoints[m]!;
    const mid = hzPoints[m + 1]!;
    const hi = hzPoints[m + 2]!;
    const norm = 2 / (hi - lo);
    const row = new Float32Array(N_BINS);
    for (let b = 0; b < N_BINS; b++) {
      const f = (b * SAMPLE_RATE) / N_FFT;
      const w = Math.max(0, Math.min((f - lo) / (mid - lo), (hi - f) / (hi - mid)));
      row[b] = w * norm;
    }
    filters.push(row);
  }
  return filters;
}

let cached: { fft: FFT; window: Float64Array; filters: Float32Array[]; firstBin: Int32Array; lastBin: Int32Array } | undefined;

function resources() {
  if (cached) return cached;
  const window = new Float64Array(N_FFT);
  for (let i = 0; i < N_FFT; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT); // periodic Hann
  const filters = melFilterBank();
  const firstBin = new Int32Array(N_MELS);
  const lastBin = new Int32Array(N_MELS);
  filters.forEach((row, m) => {
    firstBin[m] = row.findIndex((w) => w > 0);
    lastBin[m] = row.length - 1 - [...row].reverse().findIndex((w) => w > 0);
  });
  cached = { fft: new FFT(N_FFT), window, filters, firstBin, lastBin };
  return cached;
}

/**
 * Log-mel spectrogram of `audio` laid out as Whisper's encoder wants it: [N_MELS, frames] row-major.
 * `frames` is the number of output frames; audio beyond it is ignored and missing audio is zero padding,
 * exactly as Whisper pads to 30 s (the dynamic-range clamp is taken over the padded window too).
 */
export function logMelSpectrogram(audio: Float32Array, frames: number = FULL_FRAMES): Float32Array {
  const { fft, window, filters, firstBin, lastBin } = resources();
  const padded = frames * HOP;
  const half = N_FFT / 2;
  const sample = (i: number) => {
    // center=True with reflect padding, over the zero-padded signal of length `padded`
    let j = i;
    if (j < 0) j = -j;
    if (j >= padded) j = 2 * (padded - 1) - j;
    return j < audio.length ? audio[j]! : 0;
  };
  const out = new Float32Array(N_MELS * frames);
  const frame = new Float64Array(N_FFT);
  const re = new Float64Array(N_FFT);
  const im = new Float64Array(N_FFT);
  const power = new Float64Array(N_BINS);
  let maxLog = -Infinity;
  for (let t = 0; t < frames; t++) {
    const start = t * HOP - half;
    const inside = start >= 0 && start + N_FFT <= audio.length;
    for (let i = 0; i < N_FFT; i++) frame[i] = (inside ? audio[start + i]! : sample(start + i)) * window[i]!;
    fft.realForward(frame, re, im);
    for (let b = 0; b < N_BINS; b++) power[b] = re[b]! * re[b]! + im[b]! * im[b]!;
    for (let m = 0; m < N_MELS; m++) {
      const row = filters[m]!;
      let acc = 0;
      for (let b = firstBin[m]!; b <= lastBin[m]!; b++) acc += row[b]! * power[b]!;
      const v = Math.log10(Math.max(acc, 1e-10));
      out[m * frames + t] = v;
      if (v > maxLog) maxLog = v;
    }
  }
  const floor = maxLog - 8;
  for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i]!, floor) + 4) / 4;
  return out;
}
