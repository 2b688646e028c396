import type { PcmSink } from './pcm-sink';

/**
 * Collects samples of a length known only roughly in advance (a compressed file's declared
 * duration) into one Float32Array that owns exactly its samples, without ever copying them:
 * copying the 230 MB of an hour's output to its final length would hold it twice.
 *
 * Where resizable ArrayBuffers exist (every current browser and Node 20), the buffer reserves
 * address space for `maxSamples` and grows and finally shrinks in place: only the bytes in use are
 * ever committed. Elsewhere it starts at `expectedSamples` and grows by half (one copy each time),
 * then shrinks by ArrayBuffer.prototype.transfer or a copy.
 */
export class SampleBuffer implements PcmSink {
  private buffer: ArrayBuffer;
  private data: Float32Array;
  private length = 0;
  private resizable: boolean;

  constructor(expectedSamples: number, maxSamples = expectedSamples) {
    const expected = Math.max(1024, Math.ceil(expectedSamples));
    const max = Math.max(expected, Math.ceil(maxSamples));
    let buffer: ArrayBuffer | undefined;
    try {
      // Address space only; 1 << 31 samples (8 GiB) is far above any limit allowed by default.
      buffer = new (ArrayBuffer as ResizableCtor)(expected * 4, { maxByteLength: Math.min(max, 2 ** 31) * 4 });
    } catch {
      buffer = undefined; // No resizable buffers, or the reservation was refused.
    }
    this.resizable = !!buffer && (buffer as Resizable).resizable === true;
    this.buffer = buffer ?? new ArrayBuffer(expected * 4);
    this.data = new Float32Array(this.buffer);
  }

  get size(): number {
    return this.length;
  }

  /** Never waits: the collector takes everything. */
  ready(): Promise<void> {
    return Promise.resolve();
  }

  reset(): boolean {
    this.length = 0;
    return true;
  }

  append(block: Float32Array): void {
    const need = this.length + block.length;
    if (need > this.data.length) this.grow(Math.max(need, Math.ceil(this.data.length * 1.5)));
    this.data.set(block, this.length);
    this.length = need;
  }

  /** The samples written, as an array whose buffer holds exactly them. The collector is spent. */
  take(): Float32Array {
    const { buffer, length } = this;
    this.buffer = new ArrayBuffer(0);
    this.data = new Float32Array(0);
    if (buffer.byteLength === length * 4) return new Float32Array(buffer, 0, length);
    if (this.resizable) {
      (buffer as Resizable).resize(length * 4);
      return new Float32Array(buffer, 0, length);
    }
    const transferable = buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
    if (typeof transferable.transfer === 'function') return new Float32Array(transferable.transfer(length * 4));
    return new Float32Array(buffer, 0, length).slice();
  }

  private grow(samples: number): void {
    const r = this.buffer as Resizable;
    if (this.resizable && samples * 4 <= r.maxByteLength) {
      r.resize(samples * 4);
      this.data = new Float32Array(this.buffer);
      return;
    }
    const bigger = new Float32Array(samples);
    bigger.set(this.data.subarray(0, this.length));
    this.resizable = false;
    this.buffer = bigger.buffer;
    this.data = bigger;
  }
}

type Resizable = ArrayBuffer & { resizable?: boolean; maxByteLength: number; resize(byteLength: number): void };
type ResizableCtor = new (byteLength: number, options: { maxByteLength: number }) => ArrayBuffer;
