import * as Comlink from 'comlink';
import { ApiError, internalError, sessionRejected } from './api/errors';
import { WHISPER_LANGUAGES } from './api/languages';
import { parseTranscriptionParams, type TranscriptionParams, type TranscriptionParamsInput } from './api/params';
import { shapeTranscript, type Transcript } from './api/transcript';
import { decodeAudio } from './audio/index';
import type { BackendChoice, EncoderWindow, EngineConfig, EngineRequest, ModelName, ProgressEvent } from '../engine/protocol';
import { getPhrasesForBiasing } from './store/custom-models';
import type { Engine, LoadedInfo } from '../engine/pipeline';

export interface TranscriberConfig {
  /** Default 'whisper-base': see README "Choosing a model" for the measurements behind it. */
  model?: ModelName;
  /**
   * Folder with the model files and manifest.json: relative to the page, or absolute (another origin
   * must send CORS headers). Default: the app's /models/.
   */
  modelBaseUrl?: string;
  /**
   * Keep verified model files in Cache Storage ('localscribe-models-v1') so later loads, also offline,
   * skip the download; each cached file is checked against manifest.json's sha256 before use. Default true.
   */
  cache?: boolean;
  /**
   * Folder serving onnxruntime-web's ort-wasm-simd-threaded(.asyncify).wasm. Default: none, the files
   * your bundler emits from the onnxruntime-web package.
   */
  wasmBaseUrl?: string;
  /** 'auto' uses WebGPU only on a hardware adapter; 'webgpu' forces it (falls back to wasm if it fails). */
  backend?: BackendChoice;
  /** WASM threads when cross-origin isolated (default min(4, cores)); always 1 otherwise. */
  numThreads?: number;
  /**
   * Encoder input: 'full' 30 s windows, or 'fit' (only the window's audio plus silence: faster on short
   * clips). 'auto' (default) fits for whisper-base, whose accuracy holds (en/ WER 3.8% fit vs 2.7% full),
   * and keeps full windows for whisper-tiny, whose accuracy does not.
   */
  encoderWindow?: EncoderWindow | 'auto';
  /** Custom model used for biasing when a request names none (a request's custom_model_id wins). */
  customModelId?: string;
  /** Model download progress (and transcription progress of every call). */
  onProgress?: (event: ProgressEvent) => void;
}

export interface TranscribeOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

/** Audio to transcribe: an encoded file (Blob or ArrayBuffer, any supported encoding) or 16 kHz mono PCM. */
export type AudioInput = Blob | ArrayBuffer | Float32Array;

export const DEFAULT_MODEL: ModelName = 'whisper-base';

/**
 * Speech-to-text in the browser. Starts its Web Worker lazily, loads the models once, and
 * restarts the worker on the next call if it crashes.
 */
export class Transcriber {
  private worker: Worker | null = null;
  private engine: Comlink.Remote<Engine> | null = null;
  private loading: Promise<LoadedInfo> | null = null;
  private readonly crashHandlers = new Set<(err: ApiError) => void>();
  private nextJob = 1;
  private readonly config: EngineConfig;

  constructor(private readonly options: TranscriberConfig = {}) {
    const here = typeof location !== 'undefined' ? location.href : 'http://localhost/';
    this.config = {
      model: options.model ?? DEFAULT_MODEL,
      modelBaseUrl: new URL(options.modelBaseUrl ?? '/models/', here).href,
      cacheModels: options.cache !== false,
      wasmBaseUrl: options.wasmBaseUrl ? new URL(options.wasmBaseUrl, here).href : '',
      backend: options.backend ?? 'auto',
      encoderWindow: resolveEncoderWindow(options.encoderWindow ?? 'auto', options.model ?? DEFAULT_MODEL),
      ...(options.numThreads !== undefined ? { numThreads: options.numThreads } : {}),
    };
  }

  /** Loads the models (also done by the first transcribe). Resolves with what was loaded. */
  load(): Promise<LoadedInfo> {
    if (!this.loading) {
      const engine = this.startWorker();
      const progress = this.options.onProgress ? Comlink.proxy(this.options.onProgress) : undefined;
      this.loading = this.untilCrash(engine.load(this.config, progress)).catch((err) => {
        this.stopWorker();
        throw err instanceof ApiError ? err : internalError(`loading the models failed: ${(err as Error).message}`);
      });
    }
    return this.loading;
  }

  /**
   * Transcribes `input` with the spec's query parameters (URLSearchParams or an object with the same
   * names) and returns the spec's Transcript. Throws ApiError (status, code, detail) on bad input.
   * A Float32Array's buffer is transferred to the worker (detached here) when the array spans all of it.
   */
  async transcribe(input: AudioInput, params: URLSearchParams | TranscriptionParamsInput = {}, options: TranscribeOptions = {}): Promise<Transcript> {
    const p = parseTranscriptionParams(params, { supportedLanguages: WHISPER_LANGUAGES });
    const { signal } = options;
    signal?.throwIfAborted();
    const loaded = this.load();
    const phrases = await this.biasPhrases(p);
    options.onProgress?.({ stage: 'decode-audio' });
    const audio = await toPcm(input, p);
    signal?.throwIfAborted();
    await loaded;
    const request: EngineRequest = {
      audio,
      languages: p.language,
      phrases,
      biasStrength: p.bias_strength,
      patterns: p.patterns ?? [],
      fillerMode: p.filler_mode,
      wantWordTimes: p.include_words || p.include_timestamps,
      diarize: p.diarize,
      maxSpeakers: p.max_speakers,
    };
    const result = await this.runJob(request, options);
    return shapeTranscript(result, p);
  }

  /** Stops the worker and frees the models; a later call starts again. */
  async dispose(): Promise<void> {
    const engine = this.engine;
    if (engine) await engine.dispose().catch(() => undefined);
    this.stopWorker();
  }

  private async runJob(request: EngineRequest, options: TranscribeOptions) {
    const engine = this.engine!;
    const jobId = this.nextJob++;
    const progress = options.onProgress ?? this.options.onProgress;
    const { audio } = request;
    const ownsBuffer = audio.byteOffset === 0 && audio.byteLength === audio.buffer.byteLength;
    const call = engine.transcribe(
      jobId,
      Comlink.transfer(request, ownsBuffer ? [audio.buffer as ArrayBuffer] : []),
      progress ? Comlink.proxy(progress) : undefined,
    );
    const { signal } = options;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        void engine.cancel(jobId);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.untilCrash(call), aborted]);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof ApiError) throw err;
      // An engine that failed unexpectedly may be in a bad state (e.g. out of memory): start afresh next time.
      this.stopWorker();
      throw internalError(`transcription failed: ${(err as Error).message}; the engine restarts on the next call`);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  private async biasPhrases(p: TranscriptionParams): Promise<string[]> {
    if (p.phrases) return p.phrases;
    const id = p.custom_model_id ?? this.options.customModelId;
    if (!id) return [];
    if (p.patterns) throw sessionRejected('patterns cannot be combined with a custom model (configured on the client)');
    const phrases = await getPhrasesForBiasing(id);
    if (!phrases) throw sessionRejected(`unknown custom_model_id '${id}'`);
    return phrases;
  }

  private startWorker(): Comlink.Remote<Engine> {
    if (this.engine) return this.engine;
    const worker = new Worker(new URL('../engine/worker.ts', import.meta.url), { type: 'module', name: 'localscribe-engine' });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.crash(`the transcription engine crashed (${event.message || 'worker error'})`);
    });
    worker.addEventListener('messageerror', () => this.crash('the transcription engine sent an unreadable message'));
    this.worker = worker;
    this.engine = Comlink.wrap<Engine>(worker);
    return this.engine;
  }

  private crash(reason: string): void {
    const err = internalError(`${reason}; it restarts on the next call`);
    this.stopWorker();
    for (const handler of [...this.crashHandlers]) handler(err);
  }

  /** Rejects when the worker crashes before `promise` settles. */
  private untilCrash<T>(promise: Promise<T>): Promise<T> {
    let handler: ((err: ApiError) => void) | undefined;
    const crashed = new Promise<never>((_, reject) => {
      handler = reject;
      this.crashHandlers.add(handler);
    });
    return Promise.race([promise, crashed]).finally(() => this.crashHandlers.delete(handler!));
  }

  private stopWorker(): void {
    this.engine?.[Comlink.releaseProxy]();
    this.worker?.terminate();
    this.worker = null;
    this.engine = null;
    this.loading = null;
  }

  /** Test hook: makes the worker throw an uncaught error, as a crash would. */
  async crashForTest(): Promise<void> {
    await this.engine?.crashForTest();
  }
}

function resolveEncoderWindow(choice: EncoderWindow | 'auto', model: ModelName): EncoderWindow {
  if (choice !== 'auto') return choice;
  return model === 'whisper-base' ? 'fit' : 'full';
}

export function createTranscriber(config: TranscriberConfig = {}): Transcriber {
  return new Transcriber(config);
}

async function toPcm(input: AudioInput, p: TranscriptionParams): Promise<Float32Array> {
  if (input instanceof Float32Array) return input;
  const bytes = input instanceof Blob ? await input.arrayBuffer() : input;
  return decodeAudio(bytes, { encoding: p.encoding, sampleRate: p.sample_rate, channels: p.channels });
}
