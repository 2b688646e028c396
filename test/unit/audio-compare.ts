/** Signal comparison shared by the audio tests (node and browser). */

/** Lag (in samples) such that `ref[i + lag]` best matches `x[i]`, searched on the loudest stretch. */
export function bestLag(x: Float32Array, ref: Float32Array, maxLag: number): number {
  if (maxLag === 0) return 0;
  const win = Math.min(16000, Math.floor(Math.min(x.length, ref.length) / 2));
  // Loudest window of x (coarse search), so the correlation peak is sharp.
  let start = 0;
  let best = -1;
  for (let s = maxLag; s + win + maxLag <= x.length; s += 4000) {
    let e = 0;
    for (let i = s; i < s + win; i++) e += x[i]! * x[i]!;
    if (e > best) { best = e; start = s; }
  }
  let lag = 0;
  let top = -Infinity;
  for (let l = -maxLag; l <= maxLag; l++) {
    let c = 0;
    for (let i = start; i < start + win; i++) c += x[i]! * (ref[i + l] ?? 0);
    if (c > top) { top = c; lag = l; }
  }
  return lag;
}

/** Signal-to-noise ratio of `x` against `ref` in dB over their overlap after aligning by `lag`. */
export function snrDb(x: Float32Array, ref: Float32Array, lag = 0): number {
  let sig = 0;
  let noise = 0;
  for (let i = Math.max(0, -lag); i < x.length && i + lag < ref.length; i++) {
    const r = ref[i + lag]!;
    const d = x[i]! - r;
    sig += r * r;
    noise += d * d;
  }
  return 10 * Math.log10(sig / Math.max(noise, 1e-30));
}

export function rms(x: Float32Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / Math.max(1, to - from));
}

/** SNR of x[from..to) against ref read `shift` samples later, interpolated by a windowed sinc. */
export function snrAtShiftDb(x: Float32Array, ref: Float32Array, shift: number, from = 0, to = x.length): number {
  const base = Math.floor(shift);
  const frac = shift - base;
  const half = 32;
  const taps = new Float64Array(2 * half);
  for (let j = 0; j < 2 * half; j++) {
    const t = j - half + 1 - frac;
    const w = 0.5 + 0.5 * Math.cos((Math.PI * t) / half);
    taps[j] = (t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t)) * w;
  }
  let sig = 0;
  let noise = 0;
  for (let i = from; i < to; i++) {
    const o = i + base - half + 1;
    if (o < 0 || o + taps.length > ref.length) continue;
    let r = 0;
    for (let j = 0; j < taps.length; j++) r += taps[j]! * ref[o + j]!;
    sig += r * r;
    noise += (x[i]! - r) ** 2;
  }
  return 10 * Math.log10(sig / Math.max(noise, 1e-30));
}

/**
 * SNR after aligning by cross-correlation to a fraction of a sample (codecs such as Opus in WebM
 * may be trimmed by a number of samples that is not a whole number at 16 kHz).
 */
export function alignedSnrDb(x: Float32Array, ref: Float32Array, maxLag: number): { snr: number; lag: number } {
  const lag = bestLag(x, ref, maxLag);
  // Refine on a 2 s stretch by ternary search (SNR is unimodal within a sample of the peak).
  const from = Math.min(16000, Math.floor(x.length / 4));
  const to = Math.min(x.length, from + 32000);
  let lo = lag - 1;
  let hi = lag + 1;
  for (let k = 0; k < 40; k++) {
    const a = lo + (hi - lo) / 3;
    const b = hi - (hi - lo) / 3;
    if (snrAtShiftDb(x, ref, a, from, to) < snrAtShiftDb(x, ref, b, from, to)) lo = a;
    else hi = b;
  }
  const shift = (lo + hi) / 2;
  const whole = snrDb(x, ref, lag);
  const refined = Math.abs(shift - lag) < 1e-3 ? whole : snrAtShiftDb(x, ref, shift);
  return refined > whole ? { snr: refined, lag: shift } : { snr: whole, lag };
}

/**
 * SNR where each `win`-sample window may take its own shift within ±`spread` samples of `lag`
 * (steps of 1/6 sample). Tolerates decoders whose timing jitters by a fraction of a sample:
 * Chromium's WebM demuxer moves Opus audio by a couple of 48 kHz samples at cluster boundaries.
 */
export function jitterAlignedSnrDb(x: Float32Array, ref: Float32Array, lag: number, win = 4000, spread = 1.5): number {
  let sig = 0;
  let noise = 0;
  for (let s = 0; s + win <= x.length; s += win) {
    let bestNoise = Infinity;
    let bestSig = 0;
    for (let d = -spread; d <= spread + 1e-9; d += 1 / 6) {
      const snr = snrAtShiftDb(x, ref, lag + d, s, s + win);
      let e = 0;
      for (let i = s; i < s + win; i++) e += x[i]! * x[i]!;
      const n = e / 10 ** (snr / 10);
      if (n < bestNoise) { bestNoise = n; bestSig = e; }
    }
    sig += bestSig;
    noise += bestNoise;
  }
  return 10 * Math.log10(sig / Math.max(noise, 1e-30));
}
