/**
 * Mixed-radix complex FFT for one fixed size (Whisper's n_fft = 400 = 2^4 * 5^2 is not a power of two).
 * Recursive decimation in time by the smallest prime factor; twiddles precomputed once per size.
 */
export class FFT {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly scratchRe: Float64Array;
  private readonly scratchIm: Float64Array;

  constructor(readonly size: number) {
    this.cos = new Float64Array(size);
    this.sin = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      this.cos[i] = Math.cos((-2 * Math.PI * i) / size);
      this.sin[i] = Math.sin((-2 * Math.PI * i) / size);
    }
    this.scratchRe = new Float64Array(smallestFactor(size) > 7 ? size : 8);
    this.scratchIm = new Float64Array(this.scratchRe.length);
  }

  /** Forward transform of a real signal; writes `size` complex outputs into outRe/outIm. */
  realForward(input: ArrayLike<number>, outRe: Float64Array, outIm: Float64Array): void {
    this.step(input, 0, 1, this.size, outRe, outIm, 0);
  }

  private step(
    input: ArrayLike<number>,
    inOffset: number,
    stride: number,
    n: number,
    outRe: Float64Array,
    outIm: Float64Array,
    outOffset: number,
  ): void {
    if (n === 1) {
      outRe[outOffset] = input[inOffset]!;
      outIm[outOffset] = 0;
      return;
    }
    const p = smallestFactor(n);
    const m = n / p;
    for (let q = 0; q < p; q++) {
      this.step(input, inOffset + q * stride, stride * p, m, outRe, outIm, outOffset + q * m);
    }
    // Combine p sub-transforms of length m: X[k + r*m] = sum_q W_n^{q(k + r m)} * Y_q[k].
    const twStep = this.size / n;
    const sRe = this.scratchRe;
    const sIm = this.scratchIm;
    for (let k = 0; k < m; k++) {
      for (let q = 0; q < p; q++) {
        sRe[q] = outRe[outOffset + q * m + k]!;
        sIm[q] = outIm[outOffset + q * m + k]!;
      }
      for (let r = 0; r < p; r++) {
        const idx = k + r * m;
        let accRe = 0;
        let accIm = 0;
        for (let q = 0; q < p; q++) {
          const t = ((q * idx) % n) * twStep;
          const c = this.cos[t]!;
          const s = this.sin[t]!;
          accRe += sRe[q]! * c - sIm[q]! * s;
          accIm += sRe[q]! * s + sIm[q]! * c;
        }
        outRe[outOffset + idx] = accRe;
        outIm[outOffset + idx] = accIm;
      }
    }
  }
}

function smallestFactor(n: number): number {
  for (let f = 2; f * f <= n; f++) if (n % f === 0) return f;
  return n;
}
