/**
 * The part of a recording the engine still needs, addressed by absolute sample: audio arrives at the
 * end and is dropped from the start once transcribed, so an hour never sits in the worker whole.
 */
export class RollingAudio {
  private data: Float32Array = new Float32Array(0);
  /** Absolute position of data[0]. */
  private base = 0;
  /** Samples of `data` in use. */
  private used = 0;

  /** Absolute end of the audio received so far. */
  get end(): number {
    return this.base + this.used;
  }

  /** First absolute sample still held. */
  get start(): number {
    return this.base;
  }

  /**
   * Appends `chunk`. The first chunk of an empty buffer is adopted without a copy (a whole recording
   * handed over at once stays the one buffer it came in).
   */
  append(chunk: Float32Array): void {
    if (this.used === 0 && this.data.length < chunk.length) {
      this.data = chunk;
      this.used = chunk.length;
      return;
    }
    if (this.used + chunk.length > this.data.length) {
      // a new buffer holds only what is in use, with room for half as much again (amortised appends);
      // the old one, dropped samples included, is freed
      const bigger = new Float32Array(Math.max(this.used + chunk.length, Math.ceil((this.used + chunk.length) * 1.5)));
      bigger.set(this.data.subarray(0, this.used));
      this.data = bigger;
    }
    this.data.set(chunk, this.used);
    this.used += chunk.length;
  }

  /** Samples [from, to), absolute, clamped to what was received; a view, valid until the next append or drop. */
  samples(from: number, to: number): Float32Array {
    if (from < this.base) throw new RangeError(`RollingAudio: sample ${from} was already dropped (held from ${this.base})`);
    return this.data.subarray(from - this.base, Math.max(from, Math.min(to, this.end)) - this.base);
  }

  /** Forgets the samples before `position` (absolute); their memory goes with the next growth. */
  dropBefore(position: number): void {
    const cut = Math.min(Math.max(0, position - this.base), this.used);
    this.data = this.data.subarray(cut);
    this.used -= cut;
    this.base += cut;
  }
}
