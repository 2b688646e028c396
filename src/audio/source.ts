/**
 * A random-access view of a mono signal. Decoders expose their output through this instead of
 * materialising a full-length mono copy, so the resampler can pull blocks straight from the
 * encoded bytes (or the decoded channels) and write the only full-length copy: the 16 kHz output.
 */
export interface MonoSource {
  /** Frames in the signal. */
  readonly length: number;
  readonly sampleRate: number;
  /** Fills `dest` with frames [start, start + dest.length); the caller keeps that range in bounds. */
  read(start: number, dest: Float32Array): void;
}
