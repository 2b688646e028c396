/**
 * The contract between the main thread and the engine in engine/pipeline.ts.
 * The engine returns one full internal result; src/api/transcript.ts shapes it by the request's flags.
 */
/** The engine's audio: mono PCM at Whisper's (and Silero VAD's) 16 kHz. */
export const SAMPLE_RATE = 16_000;
/** bias_strength when a request names none: see engine/biasing/phrases/processor.ts for what it adds. */
export const DEFAULT_BIAS_STRENGTH = 0.45;

/** The Whisper models the library ships manifests for (scripts/model-manifest.mjs), smallest first. */
export const MODEL_NAMES = ['whisper-tiny', 'whisper-base', 'whisper-small'] as const;
export type ModelName = (typeof MODEL_NAMES)[number];
export type BackendChoice = 'auto' | 'wasm' | 'webgpu';
export type FillerMode = 'clean' | 'natural' | 'verbatim';

export interface EngineConfig {
  /**
   * Absolute URL of the folder holding the model's own folder (whisper-tiny/, whisper-base/ or
   * whisper-small/), silero-vad/ and manifest.json; diarizing with tiny or small also reads whisper-base/'s encoder.
   */
  modelBaseUrl: string;
  /** Absolute URL of the folder holding onnxruntime-web's .wasm files; '' for the ones bundled beside it. */
  wasmBaseUrl: string;
  /** Keep verified model files in Cache Storage (engine/runtime/model-files.ts). */
  cacheModels: boolean;
  model: ModelName;
  backend: BackendChoice;
  /** WASM threads; defaults to min(4, hardwareConcurrency) when cross-origin isolated, else 1. */
  numThreads?: number;
  /**
   * 'full' (default here; the transcriber's 'auto' fits) always runs the encoder on Whisper's 30 s window;
   * 'fit' only on the window's audio plus some silence, faster on short clips, and a window whose pass fails
   * Whisper's checks there is decoded on the full window (bench/README.md: Stages).
   */
  encoderWindow?: EncoderWindow;
  /** 'fast' (default): greedy decoding at temperature 0; 'accurate': 5-beam search there (README: Decoding). */
  decoding?: Decoding;
  /**
   * A pretrained speaker-segmentation model (pyannote segmentation-3.0 as ONNX) for diarized requests:
   * absolute URL and its expected SHA-256 (hex). Absent: the built-in diarization.
   */
  segmentationModel?: SegmentationModelConfig;
}

export interface SegmentationModelConfig {
  url: string;
  sha256: string;
}

export type EncoderWindow = 'fit' | 'full';
export type Decoding = 'fast' | 'accurate';

/**
 * The decoding 'auto' picks per model: beams for whisper-base, the default model (fewer errors on
 * ../shared/dev/en, about twice the peer's throughput on short clips still); greedy for whisper-tiny, the
 * speed tier (beams: 6.5% fewer errors on dev/en for 1.2x the time, which would cost it its 2x lead on
 * long recordings), and for whisper-small (beams: one word of 1,746 on dev/en for 1.31x the time).
 * README: Decoding.
 */
export function defaultDecoding(model: ModelName): Decoding {
  return model === 'whisper-base' ? 'accurate' : 'fast';
}

/** What the engine needs to transcribe one recording (already validated and resolved). */
export interface EngineRequest {
  /**
   * 16 kHz mono PCM: a whole recording (transferred to the worker, not copied), or a stream of chunks
   * (transferred) that the engine transcribes as they arrive, holding only the part still to transcribe.
   */
  audio: Float32Array | ReadableStream<Float32Array>;
  /** Candidate languages; null lets every language the model knows compete, per utterance. */
  languages: string[] | null;
  /** Bias phrases (inline or from a custom model); empty means no biasing. */
  phrases: string[];
  biasStrength: number;
  /** Parsed alphanumeric patterns (vendor-notes syntax); empty when none. */
  patterns: string[];
  fillerMode: FillerMode;
  /** Align words to the audio with cross-attention (costs attention outputs on every decoder step). */
  wantWordTimes: boolean;
  diarize: boolean;
  maxSpeakers: number | null;
}

export interface EngineToken {
  id: number;
  text: string;
  /** Absolute time in the recording, from the timestamp tokens / alignment. */
  startMs: number;
  endMs: number;
  /** Softmax probability of the chosen token, in (0, 1]. */
  probability: number;
}

export interface EngineWord {
  text: string;
  startMs: number;
  endMs: number;
  /** In (0, 1]. */
  confidence: number;
  speaker: number;
}

export interface EngineSegment {
  /** Absolute start and end in the recording, in milliseconds. */
  startMs: number;
  endMs: number;
  text: string;
  /** ISO 639-1 code detected (or forced) for this utterance. */
  language: string;
  speaker: number;
  tokens: EngineToken[];
  words: EngineWord[];
}

export interface EngineResult {
  /** Duration of the audio that was transcribed. */
  durationMs: number;
  segments: EngineSegment[];
  model: ModelName;
  backend: 'wasm' | 'webgpu';
}

export type ProgressEvent =
  | { stage: 'load'; file: string; loaded: number; total: number }
  | { stage: 'decode-audio' }
  | { stage: 'transcribe'; processedMs: number; totalMs: number };
