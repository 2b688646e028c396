/**
 * What a bench page offers the node runner (window.benchDriver), the same for this library's page
 * (ours.html) and transformers.js's (peer.html). Only JSON crosses page.evaluate.
 */
export interface LoadOptions {
  model: string;
  /** WASM threads; null lets the engine choose. */
  threads: number | null;
  /** Ours only: the encoder window ('full' 30 s or 'fit'); absent = the library's default. */
  encoderWindow?: 'fit' | 'full';
  decoding?: 'fast' | 'accurate';
  /** onnxruntime-web's backend on both sides; absent = WASM (the figures the bench reports). */
  backend?: 'wasm' | 'webgpu';
  /** Ours only: a pretrained segmentation model for diarization (TranscriberConfig.segmentationModel). */
  segmentationModel?: { url: string; sha256: string };
}

export interface LoadInfo {
  load_ms: number;
  crossOriginIsolated: boolean;
  /** The backend that actually runs (ours falls back to WASM when a WebGPU session cannot be made). */
  backend: string;
}

export interface TranscribeJob {
  /** Where the page fetches the clip, e.g. /__eval/en/jfk.flac. */
  url: string;
  /** Query string in the spec's parameter names, e.g. "language=en". */
  params: string;
  /** "blob": the file's bytes, decoded by the engine inside the timing; "pcm": 16 kHz mono decoded before. */
  input: 'blob' | 'pcm';
  /** Known duration; when null the page decodes the clip to learn it (outside the timing). */
  audio_ms: number | null;
}

/** The spec's Transcript (api.md 2.4): `text` always, the rest by the flags. */
export interface TranscriptBody {
  text: string;
  [field: string]: unknown;
}

export interface TranscribeOutcome {
  transcript: TranscriptBody;
  wall_ms: number;
  audio_ms: number;
}

export interface BenchDriver {
  load(options: LoadOptions): Promise<LoadInfo>;
  transcribe(job: TranscribeJob): Promise<TranscribeOutcome>;
}

declare global {
  interface Window {
    benchDriver?: BenchDriver;
    benchDriverError?: string;
  }
}
