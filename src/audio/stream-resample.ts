import { dot, polyphase, resampledLength, type Polyphase } from './resample';

/** Output samples handed to `emit` at a time (at most). */
const BLOCK = 4096;

/**
 * The push form of `resample`: input arrives in chunks of any size (a decoder's output), output
 * leaves in blocks through `emit`, and only the filter's history (a few hundred input samples) is
 * kept between chunks. Gives exactly the samples `resample` gives for the whole signal: the same
 * taps, the same zeros before the first and after the last input sample, the same output length.
 */
export class StreamResampler {
  private readonly filter: Polyphase | null;
  /** Input samples from absolute index `histStart` on (before 0: the zeros that precede the signal). */
  private hist = new Float32Array(8192);
  private histLen = 0;
  private histStart = 0;
  private inCount = 0;
  private nextOut = 0;
  private readonly out = new Float32Array(BLOCK);
  private outLen = 0;
  private finished = false;

  constructor(
    private readonly inRate: number,
    private readonly outRate: number,
    /** Receives each block as a view that is reused afterwards: copy it, do not keep it. */
    private readonly emit: (block: Float32Array) => void,
  ) {
    this.filter = inRate === outRate ? null : polyphase(inRate, outRate);
    if (this.filter) {
      // Output 0 reads from input index 1 − half: those are zeros.
      this.histStart = 1 - this.filter.half;
      this.histLen = this.filter.half - 1;
      this.hist.fill(0, 0, this.histLen);
    }
  }

  /** Input frames pushed so far. */
  get inputLength(): number {
    return this.inCount;
  }

  push(input: Float32Array): void {
    if (this.finished) throw new Error('StreamResampler: push after finish');
    this.inCount += input.length;
    if (!this.filter) {
      for (let i = 0; i < input.length; i += BLOCK) this.emit(input.subarray(i, Math.min(i + BLOCK, input.length)));
      this.nextOut += input.length;
      return;
    }
    this.append(input);
    this.produce(Infinity);
    this.flushOut();
  }

  /** Ends the signal: the outputs that read past its end (zeros there) are computed and emitted. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const f = this.filter;
    if (!f) return;
    const total = resampledLength(this.inCount, this.inRate, this.outRate);
    if (total > this.nextOut) {
      const lastNeeded = Math.floor(((total - 1) * f.M) / f.L) + f.half;
      const pad = lastNeeded + 1 - (this.histStart + this.histLen);
      if (pad > 0) this.append(new Float32Array(pad));
    }
    this.produce(total);
    this.flushOut();
  }

  private append(input: Float32Array): void {
    const f = this.filter!;
    // Drop history no longer needed: output nextOut reads from floor(nextOut·M/L) − half + 1.
    const keepFrom = Math.floor((this.nextOut * f.M) / f.L) - f.half + 1;
    const drop = Math.min(Math.max(0, keepFrom - this.histStart), this.histLen);
    if (drop > 0) {
      this.hist.copyWithin(0, drop, this.histLen);
      this.histLen -= drop;
      this.histStart += drop;
    }
    if (this.histLen + input.length > this.hist.length) {
      const bigger = new Float32Array(Math.max(this.hist.length * 2, this.histLen + input.length));
      bigger.set(this.hist.subarray(0, this.histLen));
      this.hist = bigger;
    }
    this.hist.set(input, this.histLen);
    this.histLen += input.length;
  }

  /** Computes outputs while their input is all present, up to (not including) `limit`. */
  private produce(limit: number): void {
    const { L, M, taps, half, coeffs } = this.filter!;
    const end = this.histStart + this.histLen;
    for (let n = this.nextOut; n < limit; n++) {
      const pos = n * M;
      const base = Math.floor(pos / L);
      if (base + half >= end) break;
      this.out[this.outLen++] = dot(coeffs(pos - base * L), this.hist, base - half + 1 - this.histStart, taps);
      this.nextOut = n + 1;
      if (this.outLen === BLOCK) this.flushOut();
    }
  }

  private flushOut(): void {
    if (this.outLen === 0) return;
    this.emit(this.out.subarray(0, this.outLen));
    this.outLen = 0;
  }
}
