import * as Comlink from 'comlink';
import type { EncoderWindow, EngineConfig, EngineRequest, EngineResult, EngineSegment, ProgressEvent } from '../src/engine-types';
import { decodeWindow, isSilence, type DecodeOptions } from './decode-window';
import { FULL_FRAMES, HOP, logMelSpectrogram, SAMPLE_RATE } from './mel';
import { ModelFiles } from './model-files';
import { patchWhisperEncoder } from './onnx-graph';
import { loadRuntime, sessionOptions, type Backend, type Ort } from './runtime';
import { decodingWindows, SPEECH_REGION_DEFAULTS, speechRegions, type DecodingWindow } from './segment-speech';
import { splitAtTimestamps, spreadTokenTimes } from './segments';
import { capLongWords, enforceSpans, FRAME_MS, tokenFrames, trimToSpeech } from './alignment';
import { fillerTokenIds, joinWords, removeFillers, VERBATIM_BOOST, verbatimPrompt } from './fillers';
import { mostLikely, splitByLanguage, type LanguagePlan } from './language';
import { WhisperVocabulary, type GenerationConfig } from './tokenizer';
import { SileroVad, VAD_FRAME_SAMPLES } from './vad';
import { WhisperModel, type Generation } from './whisper';
import { wordsFromTokens } from './words';

export class CancelledError extends Error {
  constructor() {
    super('transcription cancelled');
    this.name = 'AbortError';
  }
}

export interface LoadedInfo {
  model: EngineConfig['model'];
  backend: Backend;
  threads: number;
  languages: string[];
  dynamicFrames: boolean;
}

interface Loaded {
  ort: Ort;
  backend: Backend;
  whisper: WhisperModel;
  vad: SileroVad;
  info: LoadedInfo;
}

/**
 * In 'fit' mode the encoder sees the window's audio, then at least TAIL_PAD_FRAMES of silence (Whisper was
 * trained on padded windows and relies on seeing the speech end), and never fewer than MIN_MEL_FRAMES.
 */
const MIN_MEL_FRAMES = 1000;
const TAIL_PAD_FRAMES = 300;

/**
 * The engine that runs in the Web Worker: loads Whisper + Silero VAD once, then transcribes 16 kHz mono PCM.
 * Exposed over Comlink; one transcription runs at a time (calls queue).
 */
export class Engine {
  private loaded: Promise<Loaded> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly jobs = new Map<number, AbortController>();
  private encoderWindow: EncoderWindow = 'full';

  load(config: EngineConfig, onProgress?: (e: ProgressEvent) => void): Promise<LoadedInfo> {
    this.encoderWindow = config.encoderWindow ?? 'full';
    this.loaded ??= this.doLoad(config, onProgress).catch((err) => {
      this.loaded = null;
      throw err;
    });
    return this.loaded.then((l) => l.info);
  }

  transcribe(jobId: number, request: EngineRequest, onProgress?: (e: ProgressEvent) => void): Promise<EngineResult> {
    const controller = new AbortController();
    this.jobs.set(jobId, controller);
    const run = this.queue.then(async () => {
      if (!this.loaded) throw new Error('engine not loaded: call load() first');
      return this.run(await this.loaded, controller.signal, request, onProgress);
    });
    this.queue = run.catch(() => undefined);
    return run.finally(() => this.jobs.delete(jobId));
  }

  cancel(jobId: number): void {
    this.jobs.get(jobId)?.abort(new CancelledError());
  }

  async dispose(): Promise<void> {
    const loaded = await this.loaded?.catch(() => null);
    this.loaded = null;
    if (loaded) {
      await loaded.whisper.release();
      await loaded.vad.release();
    }
  }

  /** Test hook: raise an uncaught error in the worker, as a crash would. */
  crashForTest(): void {
    setTimeout(() => {
      throw new Error('simulated engine crash');
    });
  }

  private async doLoad(config: EngineConfig, onProgress?: (e: ProgressEvent) => void): Promise<Loaded> {
    const files = await ModelFiles.open(config.modelBaseUrl);
    const dir = config.model;
    const paths = {
      encoder: `${dir}/onnx/encoder_model_quantized.onnx`,
      decoder: `${dir}/onnx/decoder_model_merged_quantized.onnx`,
      tokenizer: `${dir}/tokenizer.json`,
      tokenizerConfig: `${dir}/tokenizer_config.json`,
      generation: `${dir}/generation_config.json`,
      config: `${dir}/config.json`,
      vad: 'silero-vad/silero_vad_v5.onnx',
    };
    const all = Object.values(paths);
    const total = files.totalBytes(all);
    const done = new Map<string, number>();
    const progress = (file: string, loaded: number) => {
      done.set(file, loaded);
      let sum = 0;
      for (const v of done.values()) sum += v;
      onProgress?.({ stage: 'load', file, loaded: sum, total });
    };
    const [encoderRaw, decoder, tokenizer, tokenizerConfig, generation, modelConfig, vadBytes] = await Promise.all([
      files.bytes(paths.encoder, progress),
      files.bytes(paths.decoder, progress),
      files.json<object>(paths.tokenizer, progress),
      files.json<object>(paths.tokenizerConfig, progress),
      files.json<GenerationConfig>(paths.generation, progress),
      files.json<{ decoder_layers: number; decoder_attention_heads: number; d_model: number }>(paths.config, progress),
      files.bytes(paths.vad, progress),
    ]);
    const { ort, backend, threads } = await loadRuntime(config.backend, config.wasmBaseUrl, config.numThreads);
    const vocab = new WhisperVocabulary(tokenizer, tokenizerConfig, generation);
    const encoder = patchWhisperEncoder(encoderRaw, { dynamicFrames: true });
    let whisper: WhisperModel;
    let usedBackend = backend;
    try {
      whisper = await WhisperModel.create(ort, encoder, decoder, vocab, generation, modelConfig, sessionOptions(backend), true);
    } catch (err) {
      if (backend !== 'webgpu') throw err;
      usedBackend = 'wasm';
      whisper = await WhisperModel.create(ort, encoder, decoder, vocab, generation, modelConfig, sessionOptions('wasm'), true);
    }
    const vad = await SileroVad.create(ort, vadBytes);
    return {
      ort,
      backend: usedBackend,
      whisper,
      vad,
      info: { model: config.model, backend: usedBackend, threads, languages: vocab.languages, dynamicFrames: whisper.dynamicFrames },
    };
  }

  private async run(
    loaded: Loaded,
    signal: AbortSignal,
    request: EngineRequest,
    onProgress?: (e: ProgressEvent) => void,
  ): Promise<EngineResult> {
    const { audio } = request;
    const checkpoint = () => signal.throwIfAborted();
    const totalMs = (audio.length / SAMPLE_RATE) * 1000;
    checkpoint();
    const probs = await loaded.vad.probabilities(audio, undefined, signal);
    const windows = decodingWindows(speechRegions(probs, { totalSamples: audio.length }), probs, audio.length);
    const segments: EngineSegment[] = [];
    for (const window of windows) {
      checkpoint();
      for (const plan of await this.planLanguages(loaded.whisper, audio, window, request.languages)) {
        checkpoint();
        segments.push(...(await this.transcribeWindow(loaded.whisper, audio, probs, plan, request, checkpoint)));
      }
      onProgress?.({ stage: 'transcribe', processedMs: (window.endSample / SAMPLE_RATE) * 1000, totalMs });
    }
    onProgress?.({ stage: 'transcribe', processedMs: totalMs, totalMs });
    return { durationMs: totalMs, segments, model: loaded.info.model, backend: loaded.backend };
  }

  /**
   * Language per utterance: a forced code applies everywhere; a window of one utterance is identified
   * from the encoding its decoding needs anyway (no extra cost); a window of several utterances gets one
   * short encoder pass per utterance and is cut into runs of one language, each decoded on its own.
   */
  private async planLanguages(
    whisper: WhisperModel,
    audio: Float32Array,
    window: DecodingWindow,
    candidates: string[] | null,
  ): Promise<LanguagePlan[]> {
    if (candidates?.length === 1) return [{ window, language: candidates[0]! }];
    if (window.regions.length === 1) return [{ window, language: null }];
    const languages: string[] = [];
    for (const region of window.regions) {
      const samples = audio.subarray(region.startSample, region.endSample);
      const melFrames = fitFrames(samples.length);
      const encoded = await whisper.encode(logMelSpectrogram(samples, melFrames), melFrames);
      try {
        languages.push(mostLikely(await whisper.detectLanguage(encoded, candidates)));
      } finally {
        encoded.hidden.dispose();
      }
    }
    return splitByLanguage(window, languages);
  }

  private async transcribeWindow(
    whisper: WhisperModel,
    audio: Float32Array,
    speech: Float32Array,
    plan: LanguagePlan,
    request: EngineRequest,
    checkpoint: () => void,
  ): Promise<EngineSegment[]> {
    const { window } = plan;
    const samples = audio.subarray(window.startSample, window.endSample);
    const melFrames = this.encoderWindow === 'fit' ? fitFrames(samples.length) : FULL_FRAMES;
    const encoded = await whisper.encode(logMelSpectrogram(samples, melFrames), melFrames);
    try {
      checkpoint();
      const language = plan.language ?? mostLikely(await whisper.detectLanguage(encoded, request.languages));
      const gen = await decodeWindow(whisper, encoded, {
        language,
        wantAttention: request.wantWordTimes,
        checkpoint,
        audioSeconds: samples.length / SAMPLE_RATE,
        ...(request.fillerMode === 'verbatim' ? verbatimSteering(whisper, language) : {}),
      });
      if (isSilence(gen)) return [];
      return windowSegments(whisper, gen, language, window, encoded.frames, speech, request);
    } finally {
      encoded.hidden.dispose();
    }
  }
}

/**
 * A decoded window as segments (split at the timestamp tokens) with their words; with attention, the
 * words get aligned times. clean filler mode drops fillers from words and text here.
 */
function windowSegments(
  whisper: WhisperModel,
  gen: Generation,
  language: string,
  window: DecodingWindow,
  encoderFrames: number,
  speech: Float32Array,
  request: EngineRequest,
): EngineSegment[] {
  const windowSamples = window.endSample - window.startSample;
  const offsetMs = (window.startSample / SAMPLE_RATE) * 1000;
  const endMs = (window.endSample / SAMPLE_RATE) * 1000;
  const aligned = gen.attention ? alignedTimes(gen, encoderFrames, windowSamples, offsetMs) : null;
  const text = (ids: number[]) => whisper.vocab.decode(ids);
  const segments: EngineSegment[] = [];
  for (const seg of splitAtTimestamps(gen.tokens, whisper.vocab, windowSamples / SAMPLE_RATE)) {
    const tokens = aligned
      ? seg.tokens.map((t) => ({ id: t.id, text: text([t.id]), ...aligned.get(t)!, probability: Math.exp(t.logprob) }))
      : spreadTokenTimes(seg, whisper.vocab, offsetMs).map((t) => ({ ...t, endMs: Math.min(t.endMs, endMs) }));
    let segText = text(seg.tokens.map((t) => t.id)).trim();
    let words = wordsFromTokens(tokens, text, 0, language);
    if (request.fillerMode === 'clean') {
      const kept = removeFillers(words, language);
      if (kept.length !== words.length) [words, segText] = [kept, joinWords(kept, language)];
    }
    if (!segText) continue;
    const startMs = offsetMs + seg.start * 1000;
    const segEndMs = Math.max(startMs, Math.min(endMs, offsetMs + seg.end * 1000));
    segments.push({ startMs, endMs: segEndMs, text: segText, language, speaker: 0, tokens, words });
  }
  return aligned ? fitWordTimes(segments, speech, offsetMs, endMs) : segments;
}

/** Decoding options that make Whisper write disfluencies: a disfluent prompt and boosted filler tokens. */
function verbatimSteering(whisper: WhisperModel, language: string): Pick<DecodeOptions, 'promptIds' | 'adjustLogits'> {
  const prompt = verbatimPrompt(language);
  const ids = fillerTokenIds(language, (text) => whisper.vocab.encode(text));
  return {
    ...(prompt ? { promptIds: whisper.vocab.encode(` ${prompt}`) } : {}),
    adjustLogits: (logits, generated) => {
      // not within 3 tokens of a filler: boosted fillers would otherwise feed on themselves ("Um, um, um")
      if (generated.slice(-3).some((id) => ids.includes(id))) return;
      for (const id of ids) logits[id]! += VERBATIM_BOOST;
    },
  };
}

/** 'fit' encoder input for `samples` of audio (see MIN_MEL_FRAMES). */
function fitFrames(samples: number): number {
  return Math.min(FULL_FRAMES, 2 * Math.ceil(Math.max(MIN_MEL_FRAMES, samples / HOP + TAIL_PAD_FRAMES) / 2));
}

/** Absolute times of a window's generated tokens from cross-attention DTW. */
function alignedTimes(gen: Generation, encoderFrames: number, windowSamples: number, offsetMs: number) {
  const audioFrames = Math.ceil(windowSamples / SAMPLE_RATE / (FRAME_MS / 1000));
  const frames = tokenFrames(gen.tokens.length, gen.attention!, encoderFrames, audioFrames);
  return new Map(gen.tokens.map((t, i) => [t, { startMs: offsetMs + frames[i]![0] * FRAME_MS, endMs: offsetMs + frames[i]![1] * FRAME_MS }]));
}

/**
 * Word times of a window made presentable: pauses that long words absorbed cut by the VAD's speech
 * probabilities `speech`, long words at sentence and segment edges trimmed, then monotonic, inside the
 * window and never zero-length; segments span their words.
 */
function fitWordTimes(segments: EngineSegment[], speech: Float32Array, lo: number, hi: number): EngineSegment[] {
  const all = segments.flatMap((s) => s.words);
  const firsts = new Set<number>();
  let n = 0;
  for (const s of segments) {
    firsts.add(n);
    n += s.words.length;
  }
  const vadFrameMs = (VAD_FRAME_SAMPLES / SAMPLE_RATE) * 1000;
  const trimmed = trimToSpeech(all, speech, vadFrameMs, SPEECH_REGION_DEFAULTS.offsetThreshold);
  const fixed = enforceSpans(capLongWords(trimmed, firsts), lo, hi);
  let k = 0;
  return segments.map((s) => {
    const words = fixed.slice(k, (k += s.words.length));
    if (words.length === 0) return s;
    return { ...s, words, startMs: words[0]!.startMs, endMs: words[words.length - 1]!.endMs };
  });
}

Comlink.expose(new Engine());
