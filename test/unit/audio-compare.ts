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
