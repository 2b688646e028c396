/**
 * The user-supplied speaker-segmentation model (pyannote segmentation-3.0 as ONNX, e.g. sherpa-onnx's
 * int8 export): fetched from the URL the app gives, checked against the SHA-256 it gives, run over
 * sliding 10 s windows. The library ships no such model (README: Pretrained speaker segmentation).
 */
import type * as OrtModule from 'onnxruntime-web';
import { sha256 } from '../runtime/model-files';
import { nextWindowStart, powersetActivity, POWERSET_CLASSES, SEGMENT_WINDOW_SAMPLES, windowInput, type SegmentationWindow } from './segmentation';

type Ort = typeof OrtModule;

/**
 * A segmentation model that cannot be used (unreachable, wrong hash, not such a model). The engine
 * stays up: only the diarized request that needed the model fails, and the next one tries again.
 */
export class SegmentationModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SegmentationModelError';
  }
}

/** Throws SegmentationModelError unless `bytes` hash to `expected` (hex, any case). */
export async function verifySegmentationModel(bytes: Uint8Array, expected: string, url: string): Promise<void> {
  const actual = await sha256(bytes);
  if (actual !== expected.trim().toLowerCase()) {
    throw new SegmentationModelError(`segmentation model at ${url}: sha256 mismatch, expected ${expected.trim().toLowerCase()}, got ${actual} (${bytes.length} bytes)`);
  }
}

export class SegmentationModel {
  private constructor(
    private readonly ort: Ort,
    private readonly session: OrtModule.InferenceSession,
  ) {}

  /** Fetches `url`, verifies its SHA-256, and opens it (wasm: a small recurrent model). */
  static async load(ort: Ort, url: string, expectedSha256: string): Promise<SegmentationModel> {
    let bytes: Uint8Array;
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      throw new SegmentationModelError(`segmentation model at ${url}: cannot fetch (${(err as Error).message})`);
    }
    await verifySegmentationModel(bytes, expectedSha256, url);
    return SegmentationModel.fromBytes(ort, bytes, url);
  }

  /** Opens already verified bytes (`label` names them in errors). */
  static async fromBytes(ort: Ort, bytes: Uint8Array, label: string): Promise<SegmentationModel> {
    let session: OrtModule.InferenceSession;
    try {
      session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    } catch (err) {
      throw new SegmentationModelError(`segmentation model at ${label}: not a loadable ONNX model (${(err as Error).message})`);
    }
    const out = session.outputNames[0];
    if (session.inputNames.length !== 1 || !out) throw new SegmentationModelError(`segmentation model at ${label}: expected one input (x) and an output (y)`);
    return new SegmentationModel(ort, session);
  }

  /** Hard local activity of each sliding window (windowStarts) over the recording. */
  async windows(audio: Float32Array, hopSamples: number, checkpoint: () => void = () => undefined): Promise<SegmentationWindow[]> {
    const scan = new SegmentationScan(this, hopSamples);
    await scan.advance((from, to) => audio.subarray(from, to), audio.length, true, checkpoint);
    return scan.found;
  }

  /** Hard local activity of the window that starts at `startSample` and holds `samples` (at most 10 s). */
  async window(samples: Float32Array, startSample: number): Promise<SegmentationWindow> {
    const x = new this.ort.Tensor('float32', windowInput(samples), [1, 1, SEGMENT_WINDOW_SAMPLES]);
    try {
      const result = await this.session.run({ [this.session.inputNames[0]!]: x });
      const y = result[this.session.outputNames[0]!]!;
      try {
        const frames = y.dims[1]!;
        if (y.dims[2] !== POWERSET_CLASSES) throw new SegmentationModelError(`segmentation model: output has ${y.dims[2]} classes per frame, expected ${POWERSET_CLASSES}`);
        return { startSample, frames, activity: powersetActivity(y.data as Float32Array, frames) };
      } finally {
        y.dispose();
      }
    } finally {
      x.dispose();
    }
  }

  release(): Promise<void> {
    return this.session.release();
  }
}

/**
 * The model's sliding windows over a recording that arrives in pieces: each window runs once its audio
 * has arrived, and the windows found are those of windows() over the whole recording.
 */
export class SegmentationScan {
  readonly found: SegmentationWindow[] = [];
  /** Start of the last window run; null before the first. */
  private last: number | null = null;
  private done = false;

  constructor(
    private readonly model: SegmentationModel,
    private readonly hopSamples: number,
  ) {}

  /** The first sample a later window may still need (the audio before it can be dropped). */
  get needsFrom(): number {
    if (this.done) return Infinity;
    return this.last === null ? 0 : nextWindowStart(this.last, Infinity, this.hopSamples)!;
  }

  /**
   * Runs every window whose audio has arrived: `samples(from, to)` reads the recording, `heard` is how much
   * has arrived, `complete` whether that is all of it.
   */
  async advance(samples: (from: number, to: number) => Float32Array, heard: number, complete: boolean, checkpoint: () => void): Promise<void> {
    while (!this.done) {
      const start = this.last === null ? 0 : nextWindowStart(this.last, heard, this.hopSamples);
      if (start === null) {
        this.done = complete; // no later window, or none known until more audio arrives
        return;
      }
      if (!complete && start + SEGMENT_WINDOW_SAMPLES > heard) return; // its audio has not all arrived
      checkpoint();
      this.found.push(await this.model.window(samples(start, Math.min(heard, start + SEGMENT_WINDOW_SAMPLES)), start));
      this.last = start;
    }
  }
}
