import type * as Ort from 'onnxruntime-web';
import { SAMPLE_RATE } from '../protocol';

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

  private constructor(ort: OrtModule, session: Ort.InferenceSession) {
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
  ): Promise<SileroVad> {
    const session = await ort.InferenceSession.create(modelBytes, {
      // The model is tiny and strictly sequential: wasm on the CPU beats any GPU round trip.
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      ...sessionOptions,
    });
    return new SileroVad(ort, session);
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
    if (this.busy) throw new Error('SileroVad.probabilities is already running on this instance');
    this.busy = true;
    try {
      return await this.run(audio, onProgress, signal);
    } finally {
      this.busy = false;
    }
  }

  private async run(
    audio: Float32Array,
    onProgress: ((done: number, total: number) => void) | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array> {
    const frames = Math.ceil(audio.length / VAD_FRAME_SAMPLES);
    const probs = new Float32Array(frames);
    const input = this.inputBuffer;
    const state = this.stateBuffer;
    input.fill(0);
    state.fill(0);
    signal?.throwIfAborted();

    for (let f = 0; f < frames; f++) {
      const start = f * VAD_FRAME_SAMPLES;
      if (f > 0) input.copyWithin(0, VAD_FRAME_SAMPLES); // previous frame's tail becomes the context
      const end = Math.min(start + VAD_FRAME_SAMPLES, audio.length);
      input.set(audio.subarray(start, end), CONTEXT_SAMPLES);
      if (end - start < VAD_FRAME_SAMPLES) input.fill(0, CONTEXT_SAMPLES + end - start);

      const out = await this.session.run(this.feeds);
      const prob = out[this.outputName];
      const nextState = out[this.stateOutName];
      if (!prob || !nextState) throw new Error('Silero VAD returned no output or state');
      probs[f] = (prob.data as Float32Array)[0] ?? 0;
      state.set(nextState.data as Float32Array);
      prob.dispose();
      nextState.dispose();

      if ((f + 1) % PROGRESS_EVERY_FRAMES === 0 || f + 1 === frames) {
        signal?.throwIfAborted();
        onProgress?.(f + 1, frames);
      }
    }
    return probs;
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
