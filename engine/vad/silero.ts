import type * as Ort from 'onnxruntime-web';
import { SAMPLE_RATE } from '../protocol';
import { FRAMES, PROBABILITIES, STATE_OUT, scanOverFrames, sileroNames, type SileroNames } from './frame-scan';
import { VadLevel, type LevelOptions } from './level';

type OrtModule = typeof Ort;

/** The Silero VAD graph the engine loads, under the models folder (scripts/model-manifest.mjs). */
export const VAD_MODEL_PATH = 'silero-vad/silero_vad_v5.onnx';

/** Silero VAD v5 works on 16 kHz audio (SAMPLE_RATE) in frames of 512 new samples (32 ms). */
export const VAD_FRAME_SAMPLES = 512;
/** v5 sees the last 64 samples of the previous frame in front of each new frame. */
export const CONTEXT_SAMPLES = 64;
/** One frame's input row: the context, then the frame. */
const ROW_SAMPLES = CONTEXT_SAMPLES + VAD_FRAME_SAMPLES;
const STATE_SIZE = 2 * 1 * 128;
/**
 * Frames per session run (frame-scan.ts), and how often progress is reported and cancellation checked:
 * about once per second of audio.
 */
const FRAMES_PER_RUN = 32;

/**
 * Silero VAD v5 over a whole recording: one speech probability per 512-sample frame, FRAMES_PER_RUN
 * frames to a session run (the model's graph scanned over them, frame-scan.ts).
 * Each stream carries its own recurrent state, so one instance serves several recordings at once (a
 * diarized request hears its audio both levelled and as it is); their session runs take turns.
 */
export class SileroVad {
  private readonly sr: Ort.Tensor;

  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    private readonly names: SileroNames,
    /** The input level's settings (level.ts) for every stream that names none; null: the samples as they are. */
    private readonly level: Partial<LevelOptions> | null,
  ) {
    this.sr = new ort.Tensor('int64', BigInt64Array.of(BigInt(SAMPLE_RATE)), []);
  }

  static async create(
    ort: OrtModule,
    modelBytes: Uint8Array,
    sessionOptions?: Ort.InferenceSession.SessionOptions,
    level: Partial<LevelOptions> | null = {},
  ): Promise<SileroVad> {
    const names = sileroNames(modelBytes);
    const session = await ort.InferenceSession.create(scanOverFrames(modelBytes, names), {
      // The model is tiny and strictly sequential: wasm on the CPU beats any GPU round trip.
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      ...sessionOptions,
    });
    return new SileroVad(ort, session, names, level);
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
    // the tensor wraps the buffer, so updating the buffer updates the stream's next run's state
    const stateBuffer = new Float32Array(STATE_SIZE);
    const state = new this.ort.Tensor('float32', stateBuffer, [2, 1, 128]);
    return new VadStream((rows, count) => this.run(rows, count, state, stateBuffer), () => state.dispose(), level && new VadLevel(level));
  }

  /** Session runs in order: a stream's run waits for any other stream's. */
  private turn: Promise<unknown> = Promise.resolve();

  /** `count` frames' input rows (ROW_SAMPLES each) after the frames before them: their speech probabilities. */
  private run(rows: Float32Array, count: number, state: Ort.Tensor, stateBuffer: Float32Array): Promise<Float32Array> {
    const next = this.turn.then(() => this.runNow(rows, count, state, stateBuffer));
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async runNow(rows: Float32Array, count: number, state: Ort.Tensor, stateBuffer: Float32Array): Promise<Float32Array> {
    const frames = new this.ort.Tensor('float32', rows.subarray(0, count * ROW_SAMPLES), [count, 1, ROW_SAMPLES]);
    const out = await this.session.run({ [FRAMES]: frames, [this.names.state]: state, [this.names.sr]: this.sr });
    const probs = out[PROBABILITIES];
    const nextState = out[STATE_OUT];
    if (!probs || !nextState) throw new Error('Silero VAD returned no output or state');
    const values = (probs.data as Float32Array).slice(0, count);
    stateBuffer.set(nextState.data as Float32Array);
    probs.dispose();
    nextState.dispose();
    return values;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** Silero probabilities of a recording pushed in pieces (SileroVad.stream). */
export class VadStream {
  private probs = new Float32Array(1024);
  private count = 0;
  /** Samples of an unfinished frame, carried to the next push. */
  private readonly carry = new Float32Array(VAD_FRAME_SAMPLES);
  private carried = 0;
  private heard = 0;
  /** Input rows of the frames not yet run; each row's context is the row before it, as the model heard it. */
  private readonly rows = new Float32Array(FRAMES_PER_RUN * ROW_SAMPLES);
  private pending = 0;
  /** The end of the last frame heard, as the model heard it (the next row's context). */
  private readonly context = new Float32Array(CONTEXT_SAMPLES);

  constructor(
    /** The model over the next `count` frames' input rows (context, then the frame at its level). */
    private readonly run: (rows: Float32Array, count: number) => Promise<Float32Array>,
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

  /**
   * Runs the model over every frame that `audio` completes; `onFrames` gets the frames done so far at
   * every multiple of FRAMES_PER_RUN.
   */
  async push(audio: Float32Array, signal?: AbortSignal, onFrames?: (done: number) => void): Promise<void> {
    signal?.throwIfAborted();
    this.heard += audio.length;
    let at = 0;
    while (at < audio.length) {
      const take = Math.min(VAD_FRAME_SAMPLES - this.carried, audio.length - at);
      // whole frames are read in place; only a frame split across pushes is gathered in `carry`
      if (this.carried === 0 && take === VAD_FRAME_SAMPLES) this.frame(audio.subarray(at, at + take));
      else {
        this.carry.set(audio.subarray(at, at + take), this.carried);
        this.carried += take;
        if (this.carried === VAD_FRAME_SAMPLES) {
          this.carried = 0;
          this.frame(this.carry);
        }
      }
      at += take;
      if (this.pending > 0 && (this.count + this.pending) % FRAMES_PER_RUN === 0) {
        await this.flush();
        signal?.throwIfAborted();
        onFrames?.(this.count);
      }
    }
    // every whole frame pushed has its probability when push returns
    await this.flush();
  }

  /** The last partial frame, zero-padded. */
  async end(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.carried > 0) {
      this.carry.fill(0, this.carried);
      this.carried = 0;
      this.frame(this.carry);
      await this.flush();
    }
  }

  /** Frees the VAD for its next recording. */
  close(): void {
    this.onClose();
  }

  /** Queues one frame's input row: the context, then the frame at the level the model hears it. */
  private frame(samples: Float32Array): void {
    const gain = this.level?.gain(samples) ?? 1;
    const row = this.rows.subarray(this.pending * ROW_SAMPLES, (this.pending + 1) * ROW_SAMPLES);
    row.set(this.context);
    row.set(samples, CONTEXT_SAMPLES);
    if (gain !== 1) for (let i = CONTEXT_SAMPLES; i < ROW_SAMPLES; i++) row[i]! *= gain;
    this.context.set(row.subarray(ROW_SAMPLES - CONTEXT_SAMPLES));
    this.pending++;
  }

  /** Runs the queued frames; a run ends at a multiple of FRAMES_PER_RUN frames unless a push or the recording ends first. */
  private async flush(): Promise<void> {
    if (this.pending === 0) return;
    const count = this.pending;
    this.pending = 0;
    const probs = await this.run(this.rows, count);
    if (this.count + count > this.probs.length) {
      const bigger = new Float32Array(Math.max(this.probs.length * 2, this.count + count));
      bigger.set(this.probs);
      this.probs = bigger;
    }
    this.probs.set(probs, this.count);
    this.count += count;
  }
}
