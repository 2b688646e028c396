/**
 * Where decoded 16 kHz samples go: collected into one array (SampleBuffer, for decodeAudio) or
 * streamed to the engine as they are decoded (PcmStream, for transcription), so an hour of audio never
 * sits in the page whole.
 */
export interface PcmSink {
  /** Takes a copy of `block` (the caller may reuse it). */
  append(block: Float32Array): void;
  /** Resolves when the consumer can take more: decoders wait on it between packets or slices. */
  ready(): Promise<void>;
  /** Samples appended so far. */
  readonly size: number;
  /** Forgets everything appended, when it can (false: some samples have already left). */
  reset(): boolean;
}

/** The consumer of a PcmStream stopped reading (the transcription ended or failed): decoding stops. */
export class AudioConsumerGone extends Error {
  constructor() {
    super('the transcription stopped reading the audio');
    this.name = 'AudioConsumerGone';
  }
}

/** Samples per chunk sent to the engine: 5 s, 320 kB (chosen by hand: few messages, little held). */
const CHUNK_SAMPLES = 5 * 16000;
/** Chunks queued on each side of the stream before the decoder waits: about 20 s of audio in flight. */
const QUEUED_CHUNKS = 2;

/** A sink whose samples leave as a ReadableStream of Float32Array chunks (transferable to the engine's worker). */
export class PcmStream implements PcmSink {
  readonly readable: ReadableStream<Float32Array>;
  private readonly writer: WritableStreamDefaultWriter<Float32Array>;
  private chunk = new Float32Array(CHUNK_SAMPLES);
  private filled = 0;
  private count = 0;
  private sent = false;

  constructor() {
    const pipe = new TransformStream<Float32Array, Float32Array>(undefined, { highWaterMark: QUEUED_CHUNKS }, { highWaterMark: QUEUED_CHUNKS });
    this.readable = pipe.readable;
    this.writer = pipe.writable.getWriter();
  }

  get size(): number {
    return this.count;
  }

  append(block: Float32Array): void {
    for (let at = 0; at < block.length; ) {
      const n = Math.min(CHUNK_SAMPLES - this.filled, block.length - at);
      this.chunk.set(block.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === CHUNK_SAMPLES) this.flush();
    }
    this.count += block.length;
  }

  ready(): Promise<void> {
    return this.writer.ready.catch(() => {
      throw new AudioConsumerGone();
    });
  }

  reset(): boolean {
    if (this.sent) return false;
    this.filled = 0;
    this.count = 0;
    return true;
  }

  /** Sends what is left and ends the stream. */
  async close(): Promise<void> {
    this.flush();
    await this.writer.close().catch(() => {
      throw new AudioConsumerGone();
    });
  }

  /** Ends the stream with an error: the engine's read fails with `reason`. */
  abort(reason: unknown): void {
    void this.writer.abort(reason).catch(() => undefined);
  }

  private flush(): void {
    if (this.filled === 0) return;
    const out = this.filled === CHUNK_SAMPLES ? this.chunk : this.chunk.slice(0, this.filled);
    this.chunk = new Float32Array(CHUNK_SAMPLES);
    this.filled = 0;
    this.sent = true;
    // a failed write (the reader went away) shows in ready() and close()
    this.writer.write(out).catch(() => undefined);
  }
}

/** Appends `samples` a chunk at a time, waiting for the consumer between chunks. */
export async function appendAll(sink: PcmSink, samples: Float32Array): Promise<void> {
  for (let at = 0; at < samples.length; at += CHUNK_SAMPLES) {
    await sink.ready();
    sink.append(samples.subarray(at, at + CHUNK_SAMPLES));
  }
}
