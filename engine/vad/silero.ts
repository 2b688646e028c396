import type * as Ort from 'onnxruntime-web';
import { SAMPLE_RATE } from '../protocol';
import { VadLevel, type LevelOptions } from './level';

type OrtModule = typeof Ort;

/** Silero VAD v5 works on 16 kHz audio (SAMPLE_RATE) in frames of 512 new samples (32 ms). */
export const VAD_FRAME_SAMPLES = 512;
/** v5 sees the last 64 samples of the previous frame in front of each new frame. */
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 1 * 128;
/** Report progress (and check for cancellation through it) about once per second of audio. */
const PROGRESS_EVERY_FRAMES = 32;

/**
 * Silero VAD v5 over a whole recording: one speech probability per 512-sample frame.
 * Not reentrant: one `probabilities` call at a time per instance (the recurrent state is shared).
 */
export class SileroVad {
  private readonly session: Ort.InferenceSession;
  private readonly inputName: string;
  private readonly stateName: string;
  private readonly srName: string;
  private readonly outputName: string;
  private readonly stateOutName: string;
  /** Context (64) + frame (512); rewritten in place for every frame. */
  private readonly inputBuffer = new Float32Array(CONTEXT_SAMPLES + VAD_FRAME_SAMPLES);
  private readonly stateBuffer = new Float32Array(STATE_SIZE);
  private readonly feeds: Record<string, Ort.Tensor>;
  private busy = false;

  private constructor(
    ort: OrtModule,
    session: Ort.InferenceSession,
    /** The input level's settings (level.ts) for every stream that names none; null: the samples as they are. */
    private readonly level: Partial<LevelOptions> | null,
  ) {
    this.session = session;
    this.inputName = pickName(session.inputNames, 'input', 0);
    this.stateName = pickName(session.inputNames, 'state', 1);
    this.srName = pickName(session.inputNames, 'sr', 2);
    this.outputName = pickName(session.outputNames, 'output', 0);
    this.stateOutName = pickName(session.outputNames, 'stateN', 1);
    // The tensors wrap our buffers, so updating the buffers updates the next run's inputs.
    this.feeds = {
      [this.inputName]: new ort.Tensor('float32', this.inputBuffer, [1, this.inputBuffer.length]),
      [this.stateName]: new ort.Tensor('float32', this.stateBuffer, [2, 1, 128]),
      [this.srName]: new ort.Tensor('int64', BigInt64Array.of(BigInt(SAMPLE_RATE)), []),
    };
  }

  static async create(
    ort: OrtModule,
    modelBytes: Uint8Array,
    sessionOptions?: Ort.InferenceSession.SessionOptions,
    level: Partial<LevelOptions> | null = {},
  ): Promise<SileroVad> {
    const session = await ort.InferenceSession.create(modelBytes, {
      // The model is tiny and strictly sequential: wasm on the CPU beats any GPU round trip.
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      ...sessionOptions,
    });
    return new SileroVad(ort, session, level);
  }

  /**
   * Speech probability of each 32 ms frame of `audio` (16 kHz mono): element i covers samples
   * [i*512, (i+1)*512); the last partial frame is zero-padded, as Silero's own reference does.
   */
  async probabilities(
    audio: Float32Array,
    onProgress?: (done: number, total: number) => void,
    signal?: AbortSignal,
  ): Promise<Float32Array> {
    const frames = Math.ceil(audio.length / VAD_FRAME_SAMPLES);
    const stream = this.stream();
    try {
      let reported = 0;
      const report = (done: number) => {
        reported = done;
        onProgress?.(done, frames);
      };
      await stream.push(audio, signal, report);
      await stream.end(signal);
      if (reported !== frames) report(frames);
    } finally {
      stream.close();
    }
    return stream.probabilities;
  }

  /**
   * Probabilities of a recording that arrives in pieces (the same numbers as probabilities() over
   * the whole): push the samples in order, then end(). Holds the instance until close(). `level`: this
   * recording's input level (level.ts), the instance's unless given; null hears the samples as they are.
   */
  stream(level: Partial<LevelOptions> | null = this.level): VadStream {
    if (this.busy) throw new Error('SileroVad.probabilities is already running on this instance');
    this.busy = true;
    this.inputBuffer.fill(0);
    this.stateBuffer.fill(0);
    return new VadStream((frame, gain) => this.step(frame, gain), () => (this.busy = false), level && new VadLevel(level));
  }

  /** One frame (VAD_FRAME_SAMPLES, zero-padded) after the previous one: its speech probability. */
  private async step(frame: Float32Array, gain: number): Promise<number> {
    const input = this.inputBuffer;
    input.copyWithin(0, VAD_FRAME_SAMPLES); // previous frame's tail becomes the context
    input.set(frame, CONTEXT_SAMPLES);
    if (gain !== 1) for (let i = CONTEXT_SAMPLES; i < input.length; i++) input[i]! *= gain;
    const out = await this.session.run(this.feeds);
    const prob = out[this.outputName];
    const nextState = out[this.stateOutName];
    if (!prob || !nextState) throw new Error('Silero VAD returned no output or state');
    const p = (prob.data as Float32Array)[0] ?? 0;
    this.stateBuffer.set(nextState.data as Float32Array);
    prob.dispose();
    nextState.dispose();
    return p;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** The model's own names when present, else the positional one (guards against a re-export). */
function pickName(names: readonly string[], wanted: string, index: number): string {
  const name = names.includes(wanted) ? wanted : names[index];
  if (name === undefined) throw new Error(`Silero VAD model lacks a "${wanted}" tensor`);
  return name;
}

/** Silero probabilities of a recording pushed in pieces (SileroVad.stream). */
export class VadStream {
  private probs = new Float32Array(1024);
  private count = 0;
  /** Samples of an unfinished frame, carried to the next push. */
  private readonly carry = new Float32Array(VAD_FRAME_SAMPLES);
  private carried = 0;
  private heard = 0;

  constructor(
    /** The model over the next frame, heard `gain` times louder. */
    private readonly step: (frame: Float32Array, gain: number) => Promise<number>,
    private readonly onClose: () => void,
    /** The model hears each frame at a common level (level.ts); the samples pushed are left as they are. */
    private readonly level: VadLevel | null,
  ) {}

  /** One probability per whole frame heard so far (a view: valid until the next push or end). */
  get probabilities(): Float32Array {
    return this.probs.subarray(0, this.count);
  }

  /** Samples pushed so far. */
  get samples(): number {
    return this.heard;
  }

  /** Runs the model over every frame that `audio` completes; `onFrames` gets the frames done so far. */
  async push(audio: Float32Array, signal?: AbortSignal, onFrames?: (done: number) => void): Promise<void> {
    signal?.throwIfAborted();
    this.heard += audio.length;
    let at = 0;
    while (at < audio.length) {
      const take = Math.min(VAD_FRAME_SAMPLES - this.carried, audio.length - at);
      // whole frames are read in place; only a frame split across pushes is gathered in `carry`
      if (this.carried === 0 && take === VAD_FRAME_SAMPLES) await this.frame(audio.subarray(at, at + take));
      else {
        this.carry.set(audio.subarray(at, at + take), this.carried);
        this.carried += take;
        if (this.carried === VAD_FRAME_SAMPLES) {
          this.carried = 0;
          await this.frame(this.carry);
        }
      }
      at += take;
      if (this.carried === 0 && this.count % PROGRESS_EVERY_FRAMES === 0) {
        signal?.throwIfAborted();
        onFrames?.(this.count);
      }
    }
  }

  /** The last partial frame, zero-padded. */
  async end(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.carried > 0) {
      this.carry.fill(0, this.carried);
      this.carried = 0;
      await this.frame(this.carry);
    }
  }

  /** Frees the VAD for its next recording. */
  close(): void {
    this.onClose();
  }

  private async frame(samples: Float32Array): Promise<void> {
    if (this.count === this.probs.length) {
      const bigger = new Float32Array(this.probs.length * 2);
      bigger.set(this.probs);
      this.probs = bigger;
    }
    this.probs[this.count++] = await this.step(samples, this.level?.gain(samples) ?? 1);
  }
}
