import * as Comlink from 'comlink';
import { ApiError, internalError, sessionRejected } from './api/errors';
import { WHISPER_LANGUAGES } from './api/languages';
import { parseTranscriptionParams, type TranscriptionParams, type TranscriptionParamsInput } from './api/params';
import { shapeTranscript, type Transcript } from './api/transcript';
import { decodeAudioTo, DecodeRestart, TARGET_RATE } from './audio/index';
import { PcmStream } from './audio/pcm-sink';
import { checkAudioLength, checkMaxAudioSeconds, DEFAULT_MAX_AUDIO_SECONDS } from './audio/limit';
import { defaultDecoding, type BackendChoice, type Decoding, type EncoderWindow, type EngineConfig, type EngineRequest, type ModelName, type ProgressEvent, type SegmentationModelConfig } from '../engine/protocol';
import { getPhrasesForBiasing } from './store/custom-models';
import type { Engine, LoadedInfo } from '../engine/pipeline';

export interface TranscriberConfig {
  /**
   * 'whisper-tiny', 'whisper-base' (default) or 'whisper-small' (most accurate, slowest): see README
   * "Choosing a model" for the measurements behind each.
   */
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
  /** 'auto' is WASM (WebGPU is slower with the shipped q8 weights: README, Backends); 'webgpu' asks for it (falls back to wasm if it fails). */
  backend?: BackendChoice;
  /** WASM threads when cross-origin isolated (default min(4, cores)); always 1 otherwise. */
  numThreads?: number;
  /**
   * Encoder input: 'full' 30 s windows, or 'fit' (only the window's audio plus silence: faster on short
   * clips; a window whose pass fails Whisper's checks there is decoded on the full window). 'auto'
   * (default) fits for every model. Over the 109 English clips of at most 30 s of ../shared/eval and
   * ../shared/dev (`node bench/stages.mjs`): tiny 16.6% WER full, 12.4% fitted; base (5 beams) 5.6% full,
   * 6.6% fitted, at a fraction of the encoder's time on short clips; small 3.3% either way on eval/en, 2.3x
   * faster fitted. bench/README.md: Stages.
   */
  encoderWindow?: EncoderWindow | 'auto';
  /**
   * Decoding at temperature 0: 'fast' is greedy, 'accurate' a 5-beam search (slower, fewer errors).
   * 'auto' (default) picks per model (resolveDecoding; README: Decoding gives the measurements).
   */
  decoding?: Decoding | 'auto';
  /**
   * The languages auto-detection chooses among when a request names none (an app that serves a few
   * languages lists them, e.g. the hosted API's de en es fr it nl pl pt sv). Default: every language the
   * model knows. A request's own `language` always wins.
   */
  languages?: readonly string[];
  /**
   * A pretrained speaker-segmentation model for `diarize=true` (README: Pretrained speaker segmentation):
   * pyannote segmentation-3.0 as ONNX, e.g. sherpa-onnx's int8 export, which the library does not ship.
   * `url` relative to the page or absolute; `sha256` the file's hex SHA-256, checked before use (a
   * mismatch fails the diarized request with both hashes in the error; the engine keeps working).
   * Default: none, the built-in diarization.
   */
  segmentationModel?: SegmentationModelConfig;
  /** Custom model used for biasing when a request names none (a request's custom_model_id wins). */
  customModelId?: string;
  /** Model download progress (and transcription progress of every call). */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Longest audio accepted, in seconds (Infinity: no limit). Default 4 hours (src/audio/limit.ts says
   * why). Longer audio is ApiError 413, found from the header or byte count before decoding where the
   * format allows (src/audio/README.md).
   */
  maxAudioSeconds?: number;
}

export interface TranscribeOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** This call's limit on the audio's length, instead of the transcriber's `maxAudioSeconds`. */
  maxAudioSeconds?: number;
}

/** Audio to transcribe: an encoded file (Blob or ArrayBuffer, any supported encoding) or 16 kHz mono PCM. */
export type AudioInput = Blob | ArrayBuffer | Float32Array;

export const DEFAULT_MODEL: ModelName = 'whisper-base';

/** One engine worker's life: started on demand, ended by a crash, a failed job or dispose(). */
interface Session {
  worker: Worker;
  engine: Comlink.Remote<Engine>;
  loading: Promise<LoadedInfo>;
  /** How to reject each call still running on this worker, by call id; all are rejected when it ends. */
  calls: Map<number, (err: ApiError) => void>;
  ended: ApiError | null;
  stopped: boolean;
}

/** Worker of each transcriber with a live session: read by tests only (test/browser/helpers/crash-engine.ts). */
const liveWorkers = new WeakMap<Transcriber, Worker>();

/** Tests only (not exported by the package's entry): the transcriber's engine worker, if one is running. */
export function engineWorkerOf(transcriber: Transcriber): Worker | undefined {
  return liveWorkers.get(transcriber);
}

/**
 * Speech-to-text in the browser. Starts its Web Worker lazily and loads the models once. When the worker
 * crashes or a job fails unexpectedly, every call running on it is rejected (500) and the next call
 * starts a fresh worker; dispose() rejects the calls still running and stops the worker.
 */
export class Transcriber {
  private session: Session | null = null;
  private nextCall = 1;
  private readonly config: EngineConfig;
  private readonly maxAudioSeconds: number;
  /** TranscriberConfig.languages, validated; null: every language. */
  private readonly autoLanguages: string[] | null;

  constructor(private readonly options: TranscriberConfig = {}) {
    this.maxAudioSeconds = checkMaxAudioSeconds(options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS);
    this.autoLanguages = autoLanguages(options.languages);
    const here = typeof location !== 'undefined' ? location.href : 'http://localhost/';
    this.config = {
      model: options.model ?? DEFAULT_MODEL,
      modelBaseUrl: new URL(options.modelBaseUrl ?? '/models/', here).href,
      cacheModels: options.cache !== false,
      wasmBaseUrl: options.wasmBaseUrl ? new URL(options.wasmBaseUrl, here).href : '',
      backend: options.backend ?? 'auto',
      encoderWindow: resolveEncoderWindow(options.encoderWindow ?? 'auto'),
      decoding: resolveDecoding(options.decoding ?? 'auto', options.model ?? DEFAULT_MODEL),
      ...(options.numThreads !== undefined ? { numThreads: options.numThreads } : {}),
      ...(options.segmentationModel ? { segmentationModel: segmentationModel(options.segmentationModel, here) } : {}),
    };
  }

  /** Loads the models (also done by the first transcribe). Resolves with what was loaded. */
  load(): Promise<LoadedInfo> {
    const session = this.open();
    return this.guard(session, this.nextCall++, session.loading);
  }

  /**
   * Transcribes `input` with the spec's query parameters (URLSearchParams or an object with the same
   * names) and returns the spec's Transcript. Throws ApiError (status, code, detail) on bad input.
   * A Float32Array's buffer is transferred to the worker (detached here) when the array spans all of it.
   */
  async transcribe(input: AudioInput, params: URLSearchParams | TranscriptionParamsInput = {}, options: TranscribeOptions = {}): Promise<Transcript> {
    const p = parseTranscriptionParams(params, { supportedLanguages: WHISPER_LANGUAGES });
    p.language ??= this.autoLanguages;
    options.signal?.throwIfAborted();
    const session = this.open();
    const id = this.nextCall++;
    return shapeTranscript(await this.guard(session, id, this.run(session, id, input, p, options)), p);
  }

  /**
   * Stops the worker and frees the models; a later call starts again. Calls still running are rejected
   * (500) at once: an idle engine releases its models first, a busy one is terminated.
   */
  async dispose(): Promise<void> {
    const session = this.session;
    if (!session) return;
    const busy = session.calls.size > 0;
    this.end(session, internalError('the transcriber was disposed before this call finished'));
    if (!busy) await session.engine.dispose().catch(() => undefined);
    this.stop(session);
  }

  private async run(session: Session, id: number, input: AudioInput, p: TranscriptionParams, options: TranscribeOptions) {
    const phrases = await this.biasPhrases(p);
    options.onProgress?.({ stage: 'decode-audio' });
    const maxAudioSeconds = options.maxAudioSeconds ?? this.maxAudioSeconds;
    const request = (audio: EngineRequest['audio']): EngineRequest => ({
      audio,
      languages: p.language,
      phrases,
      biasStrength: p.bias_strength,
      patterns: p.patterns ?? [],
      fillerMode: p.filler_mode,
      wantWordTimes: p.include_words || p.include_timestamps,
      diarize: p.diarize,
      maxSpeakers: p.max_speakers,
    });
    if (input instanceof Float32Array) {
      checkAudioLength(input.length / TARGET_RATE, maxAudioSeconds, 'the 16 kHz samples last');
      options.signal?.throwIfAborted();
      await session.loading;
      if (session.ended) throw session.ended;
      return this.runJob(session, id, id, request(input), options);
    }
    const decode = { encoding: p.encoding, sampleRate: p.sample_rate, channels: p.channels, maxAudioSeconds };
    try {
      return await this.runStreamed(session, id, id, request, options, (sink) => decodeAudioTo(input, decode, sink));
    } catch (err) {
      if (!(err instanceof DecodeRestart)) throw err;
      // rare (a decoder error or a sample-rate change part way through a compressed file): once more, decoded whole by WebAudio
      return this.runStreamed(session, id, this.nextCall++, request, options, (sink) => decodeAudioTo(input, { ...decode, compressedDecoder: 'webaudio' }, sink));
    }
  }

  /**
   * The engine transcribes the audio as `decode` produces it, through a stream (a few seconds in flight):
   * neither the page nor the worker holds the decoded recording whole. A decoding error (a header, a
   * truncation found at the end, the length limit) cancels the engine's job and is the call's error.
   */
  private async runStreamed(
    session: Session,
    callId: number,
    jobId: number,
    request: (audio: EngineRequest['audio']) => EngineRequest,
    options: TranscribeOptions,
    decode: (sink: PcmStream) => Promise<void>,
  ) {
    const sink = new PcmStream();
    const failed = new AbortController();
    const decoding = decode(sink).then(() => sink.close());
    decoding.catch((err: unknown) => {
      failed.abort(err); // first: the job ends with the decoding's error, not with the stream's
      sink.abort(err);
    });
    try {
      // a body refused from its header is answered without waiting for the models
      await Promise.race([decoding.then(() => session.loading), session.loading]);
      if (session.ended) throw session.ended;
      const signal = options.signal ? AbortSignal.any([options.signal, failed.signal]) : failed.signal;
      return await this.runJob(session, callId, jobId, request(sink.readable), { ...options, signal });
    } finally {
      sink.abort(new Error('the transcription ended')); // a decoder still waiting for the engine stops
    }
  }

  private async runJob(session: Session, callId: number, jobId: number, request: EngineRequest, options: TranscribeOptions) {
    const { engine } = session;
    const progress = options.onProgress ?? this.options.onProgress;
    const { audio } = request;
    const { signal } = options;
    signal?.throwIfAborted();
    // A whole recording is transferred when the array is all of an ArrayBuffer; a view, or shared memory
    // (which cannot be transferred), is copied. A stream is always transferred.
    const transfer =
      audio instanceof Float32Array
        ? audio.buffer instanceof ArrayBuffer && audio.byteOffset === 0 && audio.byteLength === audio.buffer.byteLength
          ? [audio.buffer]
          : []
        : [audio];
    const call = engine.transcribe(jobId, Comlink.transfer(request, transfer as Transferable[]), progress ? Comlink.proxy(progress) : undefined);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        void engine.cancel(jobId);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([call, aborted]);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof ApiError) throw err;
      // The user's segmentation model is unusable (engine/speakers/segmentation-model.ts): this call
      // fails, the engine is fine and the next call tries the model again.
      if ((err as Error).name === 'SegmentationModelError') throw internalError((err as Error).message);
      // An engine that failed unexpectedly may be in a bad state (e.g. out of memory): the calls queued
      // behind this one are failed with it, and the next call starts a fresh worker.
      const message = (err as Error).message;
      session.calls.delete(callId); // this call gets its own error, below
      this.end(session, internalError(`the engine stopped: another transcription on it failed (${message}); it restarts on the next call`));
      throw internalError(`transcription failed: ${message}; the engine restarts on the next call`);
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

  /** The live session, or a fresh one: a new worker that starts loading the models at once. */
  private open(): Session {
    if (this.session) return this.session;
    const worker = new Worker(new URL('../engine/worker.ts', import.meta.url), { type: 'module', name: 'localscribe-engine' });
    const engine = Comlink.wrap<Engine>(worker);
    const progress = this.options.onProgress ? Comlink.proxy(this.options.onProgress) : undefined;
    const session: Session = { worker, engine, calls: new Map(), ended: null, stopped: false, loading: engine.load(this.config, progress) };
    session.loading = session.loading.catch((err: unknown) => {
      const e = err instanceof ApiError ? err : internalError(`loading the models failed: ${(err as Error).message}`);
      this.end(session, e);
      this.stop(session);
      throw e;
    });
    const crash = (reason: string) => {
      this.end(session, internalError(`${reason}; it restarts on the next call`));
      this.stop(session);
    };
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      crash(`the transcription engine crashed (${event.message || 'worker error'})`);
    });
    worker.addEventListener('messageerror', () => crash('the transcription engine sent an unreadable message'));
    this.session = session;
    liveWorkers.set(this, worker);
    return session;
  }

  /** Settles with `work`, or rejects with the session's error when it ends first (a crash, dispose()). */
  private guard<T>(session: Session, id: number, work: Promise<T>): Promise<T> {
    if (session.ended) return Promise.reject(session.ended);
    const ended = new Promise<never>((_, reject) => session.calls.set(id, reject));
    return Promise.race([work, ended]).finally(() => session.calls.delete(id));
  }

  /** Marks the session ended and rejects every call still running on it; the next call opens a new one. */
  private end(session: Session, err: ApiError): void {
    if (session.ended) return;
    session.ended = err;
    if (this.session === session) {
      this.session = null;
      liveWorkers.delete(this);
    }
    for (const reject of session.calls.values()) reject(err);
    session.calls.clear();
  }

  private stop(session: Session): void {
    if (session.stopped) return;
    session.stopped = true;
    session.engine[Comlink.releaseProxy]();
    session.worker.terminate();
  }
}

function resolveEncoderWindow(choice: EncoderWindow | 'auto'): EncoderWindow {
  return choice === 'auto' ? 'fit' : choice;
}

function segmentationModel(config: SegmentationModelConfig, here: string): SegmentationModelConfig {
  const sha256 = String(config.sha256 ?? '').trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new RangeError(`createTranscriber(): segmentationModel.sha256 must be 64 hex digits; got '${config.sha256}'`);
  return { url: new URL(config.url, here).href, sha256 };
}

function autoLanguages(languages: readonly string[] | undefined): string[] | null {
  if (languages === undefined) return null;
  const codes = [...new Set(languages.map((l) => String(l).trim().toLowerCase()))];
  const unknown = codes.filter((c) => !(WHISPER_LANGUAGES as readonly string[]).includes(c));
  if (codes.length === 0 || unknown.length > 0) {
    throw new RangeError(`createTranscriber(): languages must list codes the model knows (${WHISPER_LANGUAGES.join(' ')}); got ${unknown.length ? unknown.join(', ') : 'none'}`);
  }
  return codes;
}

/** 'auto' is the engine's choice per model (defaultDecoding). */
function resolveDecoding(choice: Decoding | 'auto', model: ModelName): Decoding {
  return choice === 'auto' ? defaultDecoding(model) : choice;
}

export function createTranscriber(config: TranscriberConfig = {}): Transcriber {
  return new Transcriber(config);
}
