/**
 * Collects samples of a length known only roughly in advance (a compressed file's declared
 * duration) into one Float32Array. Sized from the estimate so it normally never moves; when the
 * estimate falls short it grows by half (one copy). `take()` hands over exactly the samples written,
 * as an array that owns its buffer (shrunk in place by ArrayBuffer.prototype.transfer where it exists).
 */
export class SampleBuffer {
  private data: Float32Array;
  private length = 0;

  constructor(expectedSamples: number) {
    this.data = new Float32Array(Math.max(1024, Math.ceil(expectedSamples)));
  }

  get size(): number {
    return this.length;
  }

  append(block: Float32Array): void {
    const need = this.length + block.length;
    if (need > this.data.length) {
      const bigger = new Float32Array(Math.max(need, Math.ceil(this.data.length * 1.5)));
      bigger.set(this.data.subarray(0, this.length));
      this.data = bigger;
    }
    this.data.set(block, this.length);
    this.length = need;
  }

  take(): Float32Array {
    const data = this.data;
    this.data = new Float32Array(0);
    if (this.length === data.length) return data;
    const backing = data.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
    if (typeof backing.transfer === 'function') return new Float32Array(backing.transfer(this.length * 4));
    return data.slice(0, this.length);
  }
}
