import type { MonoSource } from './source';

/**
 * Band-limited resampling by a Kaiser-windowed sinc evaluated at the exact rational position of
 * every output sample (polyphase: one precomputed filter per distinct phase when they fit in memory).
 * The cutoff sits below the lower Nyquist frequency so the transition band ends at it: content
 * above the output's Nyquist is attenuated by the stopband instead of folding back (aliasing).
 */

/** Zero crossings of the sinc on each side of the centre. */
const ZERO_CROSSINGS = 24;
/** Kaiser β for ≈80 dB stopband attenuation. */
const KAISER_BETA = 8;
/** Cutoff as a fraction of the lower of the two rates (0.5 would be Nyquist). */
const CUTOFF = 0.453;
/** Largest precomputed polyphase bank, in coefficients (beyond it each output computes its own). */
const MAX_BANK = 1 << 22;
const BLOCK = 4096;

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 50; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

interface Kernel {
  /** Taps per output sample; tap 0 is input index floor(position) - half + 1. */
  taps: number;
  half: number;
  /** Writes the taps for fractional position `frac` in [0, 1) into `into`, normalised to unit DC gain. */
  fill(frac: number, into: Float32Array): void;
}

/** Points per zero crossing in the tabulated prototype (linear interpolation error ≈ -100 dB). */
const OVERSAMPLE = 512;

/** sinc(u)·kaiser(u/Z) for u in [0, Z], sampled every 1/OVERSAMPLE (symmetric, so half suffices). */
const PROTOTYPE: Float64Array = (() => {
  const n = ZERO_CROSSINGS * OVERSAMPLE;
  const t = new Float64Array(n + 2);
  const i0Beta = besselI0(KAISER_BETA);
  for (let j = 0; j <= n; j++) {
    const u = j / OVERSAMPLE;
    const r = u / ZERO_CROSSINGS;
    const sinc = u === 0 ? 1 : Math.sin(Math.PI * u) / (Math.PI * u);
    t[j] = (sinc * besselI0(KAISER_BETA * Math.sqrt(Math.max(0, 1 - r * r)))) / i0Beta;
  }
  return t;
})();

function prototype(u: number): number {
  const x = Math.abs(u) * OVERSAMPLE;
  const j = Math.floor(x);
  if (j >= ZERO_CROSSINGS * OVERSAMPLE) return 0;
  const f = x - j;
  return PROTOTYPE[j]! * (1 - f) + PROTOTYPE[j + 1]! * f;
}

function makeKernel(inRate: number, outRate: number): Kernel {
  const fc = (CUTOFF * Math.min(inRate, outRate)) / inRate; // cycles per input sample
  const half = Math.ceil(ZERO_CROSSINGS / (2 * fc)); // in input samples
  const taps = 2 * half;
  return {
    taps,
    half,
    fill(frac, into) {
      let sum = 0;
      for (let j = 0; j < taps; j++) {
        const w = prototype(2 * fc * (j - half + 1 - frac));
        into[j] = w;
        sum += w;
      }
      for (let j = 0; j < taps; j++) into[j]! /= sum;
    },
  };
}

/**
 * The filter for one rate pair: output sample n sits at input position n·M/L; with base =
 * floor(n·M/L) it is dot(coeffs(n·M − base·L), input from base − half + 1, taps). Shared by the
 * pull resampler below and the push one (stream-resample.ts), so both give the same samples.
 */
export interface Polyphase {
  /** Phases (outRate / gcd). */
  L: number;
  /** Input step per output, in units of 1/L (inRate / gcd). */
  M: number;
  taps: number;
  half: number;
  /** The taps of phase k in [0, L); the array may be reused by the next call. */
  coeffs(k: number): Float32Array;
}

export function polyphase(inRate: number, outRate: number): Polyphase {
  const g = gcd(inRate, outRate);
  const L = outRate / g;
  const M = inRate / g;
  const kernel = makeKernel(inRate, outRate);
  const { taps, half } = kernel;
  if (L * taps <= MAX_BANK) {
    const bank: Float32Array[] = [];
    for (let k = 0; k < L; k++) {
      const c = new Float32Array(taps);
      kernel.fill(k / L, c);
      bank.push(c);
    }
    return { L, M, taps, half, coeffs: (k) => bank[k]! };
  }
  const scratch = new Float32Array(taps);
  return {
    L, M, taps, half,
    coeffs(k) {
      kernel.fill(k / L, scratch);
      return scratch;
    },
  };
}

/** Σ c[j]·x[o+j] over `taps` (a multiple of 2); four partial sums let the JIT pipeline the loop. */
export function dot(c: Float32Array, x: Float32Array, o: number, taps: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let j = 0;
  for (; j + 3 < taps; j += 4) {
    a0 += c[j]! * x[o + j]!;
    a1 += c[j + 1]! * x[o + j + 1]!;
    a2 += c[j + 2]! * x[o + j + 2]!;
    a3 += c[j + 3]! * x[o + j + 3]!;
  }
  for (; j < taps; j++) a0 += c[j]! * x[o + j]!;
  return a0 + a1 + a2 + a3;
}

/** Output length for `inLength` frames, so durations agree within half an output sample. */
export function resampledLength(inLength: number, inRate: number, outRate: number): number {
  return Math.round((inLength * outRate) / inRate);
}

/** Lets the page breathe during a long conversion (an hour of audio takes seconds). */
const YIELD_MS = 40;
const breathe = () => new Promise<void>((r) => setTimeout(r, 0));

export interface ResampleOptions {
  /**
   * Write the output here instead of a new array; it may be the very array `source` reads from.
   * That is safe when downsampling by enough that, after the first block, the input a block reads
   * starts at or beyond the last output written (checked: throws otherwise). Each block copies its
   * input to scratch before writing. Must hold `resampledLength(...)` samples.
   */
  into?: Float32Array;
}

/**
 * Resamples `source` to `outRate`, pulling it in blocks, so the output is the only full-length
 * buffer it creates (none with `into`). Yields to the event loop every few tens of milliseconds.
 */
export async function resample(source: MonoSource, outRate: number, options: ResampleOptions = {}): Promise<Float32Array> {
  const inRate = source.sampleRate;
  const outLength = resampledLength(source.length, inRate, outRate);
  if (options.into && options.into.length < outLength) throw new Error('resample: `into` is too short');
  const out = options.into ? options.into.subarray(0, outLength) : new Float32Array(outLength);
  let lastYield = performance.now();
  if (inRate === outRate) {
    for (let s = 0; s < out.length; s += BLOCK) {
      source.read(s, out.subarray(s, Math.min(s + BLOCK, out.length)));
      if (performance.now() - lastYield > YIELD_MS) {
        await breathe();
        lastYield = performance.now();
      }
    }
    return out;
  }
  const { L, M, taps, half, coeffs } = polyphase(inRate, outRate);
  // Reads of the block after [.., n1) start at floor(n1·M/L) − half + 1, which must be ≥ n1.
  if (options.into && Math.floor((BLOCK * M) / L) - half + 1 < BLOCK) {
    throw new Error(`resample: cannot write in place from ${inRate} Hz to ${outRate} Hz`);
  }
  const inLen = source.length;
  let scratch = new Float32Array(0);

  for (let n0 = 0; n0 < out.length; n0 += BLOCK) {
    const n1 = Math.min(n0 + BLOCK, out.length);
    const first = Math.floor((n0 * M) / L) - half + 1;
    const last = Math.floor(((n1 - 1) * M) / L) + half; // inclusive
    const need = last - first + 1;
    if (scratch.length < need) scratch = new Float32Array(need);
    scratch.fill(0, 0, need);
    const lo = Math.max(first, 0);
    const hi = Math.min(last + 1, inLen);
    if (hi > lo) source.read(lo, scratch.subarray(lo - first, hi - first));

    for (let n = n0; n < n1; n++) {
      const pos = n * M;
      const base = Math.floor(pos / L);
      out[n] = dot(coeffs(pos - base * L), scratch, base - half + 1 - first, taps);
    }
    if (performance.now() - lastYield > YIELD_MS) {
      await breathe();
      lastYield = performance.now();
    }
  }
  return out;
}
