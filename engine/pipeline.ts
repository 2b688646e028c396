import { SAMPLE_RATE, type EngineToken, type Decoding, type EncoderWindow, type EngineConfig, type EngineRequest, type EngineResult, type EngineSegment, type ProgressEvent } from './protocol';
import { isSilence, passesChecks } from './decoding/fallback';
import { ENCODER_FRAME_MS, FULL_FRAMES, HOP, logMelSpectrogram } from './whisper/features';
import { ModelFiles } from './runtime/model-files';
import { loadRuntime, sessionOptions, type Backend, type Ort } from './runtime/backend';
import { settledWindows, SPEECH_REGION_DEFAULTS, uncoveredWindows, unheardRest, type DecodingWindow, type SpeechRegion } from './vad/windows';
import { splitAtTimestamps, spreadTokenTimes, type TimedSegment } from './postprocess/segments';
import { capLongWords, enforceSpans, tokenFrames, trimToSpeech } from './postprocess/alignment';
import { cleanWords, joinWords, tokensWithoutFillers } from './postprocess/fillers';
import { isConfident, mostLikely, mostProbableJoint, rescoringCandidates, SHORT_UTTERANCE_S, splitByLanguage, SURE_ON_FIT, type LanguageHypothesis, type LanguagePlan } from './language/plan';
import { applyPatterns, applyPatternsToWords } from './biasing/patterns/spoken-patterns';
import { attributeSpeakers } from './speakers/assign';
import { decodeSpeakerConstants, SHIPPED_SPEAKER_ENCODER, shippedSpeakerConstants, SPEAKER_FEATURES, type SpeakerConstants } from './speakers/constants';
import { oneSpeakerTurns, SpeakerDiarizer } from './speakers/diarize';
import { EMBEDDING_DEFAULTS } from './speakers/embed';
import { SpeakerFeatureSource } from './speakers/features';
import { SegmentationModel, SegmentationScan } from './speakers/segmentation-model';
import { SegmentedDiarizer, SEGMENTED_DEFAULTS } from './speakers/segmented-diarize';
import { steeringFor, type Steering } from './decoding/steering';
import { createWhisper, fetchWhisperFiles, whisperPaths, type WhisperGraph, type WhisperLoadOptions } from './whisper/loader';
import type { LogitsWeight } from './whisper/patches';
import { SileroVad, VAD_FRAME_SAMPLES, VAD_MODEL_PATH, type VadStream } from './vad/silero';
import { audioChunks } from './input/audio-chunks';
import { RollingAudio } from './input/rolling-audio';
import { WhisperModel, type EncodedWindow } from './whisper/model';
import type { Generation, GeneratedToken } from './whisper/generate';
import { passWordPlaces, wordsFromTokens, wordTokens } from './postprocess/words';
import { heardWordCount } from './postprocess/hallucination';
import { repeatedStart } from './postprocess/seek-overlap';

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
}

interface Loaded {
  ort: Ort;
  backend: Backend;
  files: ModelFiles;
  whisper: WhisperModel;
  vad: SileroVad;
  info: LoadedInfo;
  /** Made on the first diarized request. */
  speakers?: Promise<{ source: SpeakerFeatureSource; constants: SpeakerConstants }>;
  /** The user's segmentation model (EngineConfig.segmentationModel), loaded on the first diarized request. */
  segmentation?: Promise<SegmentationModel>;
}

/** Per-request state carried through the windows. */
interface RequestContext {
  request: EngineRequest;
  steering: Steering;
  /**
   * The built-in diarizer fed every window, and the user's segmentation model's windows when configured;
   * `featured`: the spans whose speaker features it has, in order, from the first that its own windows
   * still to come may overlap.
   */
  diarizer: { diarizer: SpeakerDiarizer; scan: SegmentationScan | null; source: SpeakerFeatureSource; featured: SpeechRegion[] } | null;
  checkpoint: () => void;
  /** The recording's samples still needed, by absolute position. */
  audio: RollingAudio;
}

/** The encoder output the diarizer's speaker features are. */
const SPEAKER_TENSOR = SPEAKER_FEATURES[SHIPPED_SPEAKER_ENCODER].tensor;

/**
 * In 'fit' mode the encoder sees the window's audio, then at least TAIL_PAD_FRAMES of silence (Whisper was
 * trained on padded windows and relies on seeing the speech end), and never fewer than MIN_MEL_FRAMES.
 */
const MIN_MEL_FRAMES = 1000;
const TAIL_PAD_FRAMES = 300;

/**
 * A window whose decoding closes while the VAD still hears this much speech after its last timestamp is
 * decoded again from there, at most MAX_SEEKS times: less than that left is mostly a late last word, and
 * a rest that short is where Whisper hallucinates. Chosen from the voiced speech left after the close over
 * the 369 closed windows of ../shared/dev and ../shared/eval, tiny and base (CHANGELOG.md, issue 31).
 */
const MIN_UNHEARD_SPEECH_S = 2.5;
const MAX_SEEKS = 2;

/**
 * A streamed recording is transcribed each time this much audio waits past the last transcribed window:
 * 90 s holds the 32 s a window needs to settle (SETTLE_SAMPLES) and about a minute of windows, 5.8 MB of
 * samples, against 230 MB for an hour held whole. Chosen by hand: the per-block cost is a pass over the
 * speech probabilities, nothing next to a window's decoding.
 */
const BLOCK_SAMPLES = 90 * SAMPLE_RATE;

/**
 * Per model, how the decoder holds its logits weight (patchWhisperDecoder's LogitsWeight). Floats ran
 * tiny's and base's long-form transcription 1.38x faster than the export's path; small's short clips ran
 * no faster for 402 MB more. int8 with the best tokens scored exactly gave base the same transcripts as
 * floats on ../shared/eval/en and dev/en (108 of 109 identical, one in capitals) for 227 MB less at load
 * and 114 MB less over an hour, at 3% more per 5-beam step (base's default) and 7-10% more time on long
 * recordings; greedy steps, tiny's default, cost about 2 ms more on 11, so tiny keeps floats
 * (bench/README.md, "The logits weight as int8").
 */
export const LOGITS_WEIGHT: Record<EngineConfig['model'], LogitsWeight> = { 'whisper-tiny': 'float', 'whisper-base': 'int8', 'whisper-small': 'export' };

/**
 * Per model, the graphs that multiply in floats on WASM (withFloatArithmetic) rather than as the q8
 * export does, in integers after rounding each activation to 8 bits. On ../shared/eval/en and dev/en
 * (115 clips, 1,928 words): tiny's encoder in floats took its WER from 17.8% to 11.3% for 1.17x the time;
 * its decoder in floats as well moved the WER no further for 1.5x; base in floats moved it not at all for
 * 1.9x (bench/README.md, "Float arithmetic"). small was not measured. WebGPU has no integer kernels:
 * there both graphs, and the logits, are floats (bench/webgpu/README.md).
 */
export const FLOAT_ARITHMETIC: Record<EngineConfig['model'], readonly WhisperGraph[]> = { 'whisper-tiny': ['encoder'], 'whisper-base': [], 'whisper-small': [] };

/** Whether `model`'s encoder multiplies in floats on WASM: a cut of it must too, to give the same features. */
export const encoderInFloats = (model: EngineConfig['model']): boolean => FLOAT_ARITHMETIC[model].includes('encoder');

/** How `model` is loaded on `backend`: the engine's choice, which the benches load too. */
export function whisperLoadOptions(model: EngineConfig['model'], backend: Backend): WhisperLoadOptions {
  if (backend === 'webgpu') return { logitsWeight: 'float', floatArithmetic: ['encoder', 'decoder'] };
  // the speaker-feature encoder, transcribing, exposes the features' block output, which a diarized
  // request then takes from the transcription's encoder runs (engine/speakers/features.ts)
  const extraOutputs = model === SHIPPED_SPEAKER_ENCODER ? [SPEAKER_TENSOR] : [];
  return { logitsWeight: LOGITS_WEIGHT[model], floatArithmetic: FLOAT_ARITHMETIC[model], extraOutputs };
}

/**
 * The engine that runs in the Web Worker: loads Whisper + Silero VAD once, then transcribes 16 kHz mono PCM.
 * Exposed over Comlink by engine/worker.ts; one transcription runs at a time (calls queue).
 */
export class Engine {
  private loaded: Promise<Loaded> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly jobs = new Map<number, AbortController>();
  private encoderWindow: EncoderWindow = 'full';
  private decoding: Decoding = 'fast';
  private segmentationModel: EngineConfig['segmentationModel'];

  load(config: EngineConfig, onProgress?: (e: ProgressEvent) => void): Promise<LoadedInfo> {
    this.encoderWindow = config.encoderWindow ?? 'full';
    this.decoding = config.decoding ?? 'fast';
    this.segmentationModel = config.segmentationModel;
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
      await (await loaded.speakers?.catch(() => null))?.source.release();
      await (await loaded.segmentation?.catch(() => null))?.release();
    }
  }

  private async doLoad(config: EngineConfig, onProgress?: (e: ProgressEvent) => void): Promise<Loaded> {
    const files = await ModelFiles.open(config.modelBaseUrl, { cache: config.cacheModels });
    const vadPath = VAD_MODEL_PATH;
    const total = files.totalBytes([...Object.values(whisperPaths(config.model)), vadPath]);
    const done = new Map<string, number>();
    const progress = (file: string, loaded: number) => {
      done.set(file, loaded);
      let sum = 0;
      for (const v of done.values()) sum += v;
      onProgress?.({ stage: 'load', file, loaded: sum, total });
    };
    const [whisperFiles, vadBytes] = await Promise.all([fetchWhisperFiles(files, config.model, progress), files.bytes(vadPath, progress)]);
    const { ort, backend, threads } = await loadRuntime(config.backend, config.wasmBaseUrl, config.numThreads);
    let whisper: WhisperModel;
    let usedBackend = backend;
    try {
      whisper = await createWhisper(ort, whisperFiles, sessionOptions(backend), whisperLoadOptions(config.model, backend));
    } catch (err) {
      if (backend !== 'webgpu') throw err;
      usedBackend = 'wasm';
      whisper = await createWhisper(ort, whisperFiles, sessionOptions('wasm'), whisperLoadOptions(config.model, 'wasm'));
    }
    const vad = await SileroVad.create(ort, vadBytes);
    return {
      ort,
      backend: usedBackend,
      files,
      whisper,
      vad,
      info: { model: config.model, backend: usedBackend, threads, languages: whisper.vocab.languages },
    };
  }

  private async run(
    loaded: Loaded,
    signal: AbortSignal,
    request: EngineRequest,
    onProgress?: (e: ProgressEvent) => void,
  ): Promise<EngineResult> {
    const checkpoint = () => signal.throwIfAborted();
    checkpoint();
    const whole = request.audio instanceof Float32Array ? request.audio.length : null;
    const audio = new RollingAudio();
    const diarizing = request.diarize && request.maxSpeakers !== 1;
    const vad = loaded.vad.stream();
    // The diarizer hears the samples as they are (no level, engine/vad/level.ts), in windows of its own:
    // its constants were chosen on those speech probabilities and windows, and with levelled ones its DER
    // on ../shared/dev/diar rose from 32% to 51% (bench/README.md, VAD level). The transcript is the one
    // the same request without diarize=true gets.
    const speakerVad = diarizing ? loaded.vad.stream(null) : null;
    try {
      const ctx: RequestContext = {
        request,
        steering: steeringFor(loaded.whisper, request, this.decoding),
        diarizer: diarizing ? await this.diarizer(loaded) : null,
        checkpoint,
        audio,
      };
      const progress = (processedSamples: number) =>
        onProgress?.({ stage: 'transcribe', processedMs: (processedSamples / SAMPLE_RATE) * 1000, totalMs: ((whole ?? vad.samples) / SAMPLE_RATE) * 1000 });
      // The job has left the queue: /v1 starts its stall deadline here (src/sw/bridge.ts).
      progress(0);
      const segments: EngineSegment[] = [];
      let from = 0; // the windows before this sample are transcribed
      let heardFrom = 0; // the diarizer's windows before this sample are heard
      const transcribeSettled = async (complete: boolean) => {
        if (ctx.diarizer && speakerVad) ctx.diarizer.diarizer.hear(speakerVad.probabilities, speakerVad.samples);
        const { settled, next } = settledWindows(vad.probabilities, vad.samples, from, complete);
        segments.push(...(await this.transcribeWindows(loaded, settled, vad, ctx, progress)));
        from = next;
        if (ctx.diarizer && speakerVad) heardFrom = await this.hearSpeakers(ctx.diarizer, speakerVad, heardFrom, from, complete, ctx);
        audio.dropBefore(Math.min(from, speakerVad ? heardFrom : Infinity, ctx.diarizer?.scan?.needsFrom ?? Infinity));
      };
      for await (const chunk of audioChunks(request.audio, signal)) {
        audio.append(chunk);
        await Promise.all([vad.push(chunk, signal), speakerVad?.push(chunk, signal)]);
        // a stream is transcribed as it arrives, a block at a time; a whole recording at once (below)
        if (whole === null && vad.samples - from >= BLOCK_SAMPLES) await transcribeSettled(false);
      }
      await Promise.all([vad.end(signal), speakerVad?.end(signal)]);
      await transcribeSettled(true);
      const probs = vad.probabilities;
      const total = vad.samples;
      let result = segments;
      if (ctx.diarizer) {
        // the last block's transcribeWindows gave the diarizer the whole recording's speech
        const { diarizer, scan } = ctx.diarizer;
        const turns = scan ? new SegmentedDiarizer(diarizer, scan.found, total).finish(request.maxSpeakers) : diarizer.finish(request.maxSpeakers);
        result = attributeSpeakers(segments, turns, { overlapping: scan !== null });
      } else if (request.diarize) result = attributeSpeakers(segments, oneSpeakerTurns(probs, total));
      progress(total);
      return { durationMs: (total / SAMPLE_RATE) * 1000, segments: result, model: loaded.info.model, backend: loaded.backend };
    } finally {
      vad.close();
      speakerVad?.close();
    }
  }

  /**
   * Gives the diarizer the speaker features of the speech its own VAD hears in its settled windows from
   * `fromSample` on and no transcription window gave it (all of it unless whisper-base transcribes on
   * WASM), once the transcription's windows there are known (`transcribedUntil`); returns where the next
   * call starts.
   */
  private async hearSpeakers(
    speakers: NonNullable<RequestContext['diarizer']>,
    speakerVad: VadStream,
    fromSample: number,
    transcribedUntil: number,
    complete: boolean,
    ctx: RequestContext,
  ): Promise<number> {
    const { audio, checkpoint } = ctx;
    await speakers.scan?.advance((a, b) => audio.samples(a, b), speakerVad.samples, complete, checkpoint);
    const { settled, next } = settledWindows(speakerVad.probabilities, speakerVad.samples, fromSample, complete);
    let resume = next;
    for (const window of settled) {
      if (window.endSample > transcribedUntil) {
        resume = window.startSample;
        break;
      }
      for (const part of uncoveredWindows(window, speakers.featured, (EMBEDDING_DEFAULTS.minMs / 1000) * SAMPLE_RATE)) {
        checkpoint();
        const samples = audio.samples(part.startSample, part.endSample);
        const melFrames = this.encoderWindow === 'full' ? FULL_FRAMES : fitFrames(samples.length);
        const features = await speakers.source.features(logMelSpectrogram(samples, melFrames), melFrames);
        try {
          speakers.diarizer.addWindow(features.data as Float32Array, features.dims[1]!, part.startSample, part.endSample);
        } finally {
          features.dispose();
        }
      }
    }
    // later calls start at `resume`: spans that end before it can cover none of their windows, and a
    // long recording would otherwise scan them all again for every window
    const stale = speakers.featured.findIndex((span) => span.endSample > resume);
    speakers.featured.splice(0, stale < 0 ? speakers.featured.length : stale);
    return resume;
  }

  /** The engine segments of `windows` (settled: their audio and speech probabilities have arrived), in order. */
  private async transcribeWindows(
    loaded: Loaded,
    windows: readonly DecodingWindow[],
    vad: VadStream,
    ctx: RequestContext,
    progress: (processedSamples: number) => void,
  ): Promise<EngineSegment[]> {
    const { checkpoint, audio } = ctx;
    const probs = vad.probabilities;
    const segments: EngineSegment[] = [];
    for (const window of windows) {
      checkpoint();
      for (const plan of await this.planLanguages(loaded.whisper, audio, window, ctx.request.languages, checkpoint)) {
        // a decoding that ends while speech is left is followed by one of that rest (Whisper's seek)
        let next: LanguagePlan | null = plan;
        let written: string[] | null = null;
        let previous: WindowPass | null = null;
        for (let seek = 0; next; seek++) {
          checkpoint();
          const pass: WindowPass = await this.transcribeWindow(loaded.whisper, probs, next, ctx, written);
          // a rest that only said again what its pass wrote leaves that pass the rest of the window
          if (previous) segments.push(...previous.segments(pass.repeatedOnly ? next.window.endSample : previous.ownedUntil));
          written = [...(written ?? []), ...pass.words];
          previous = pass;
          next = seek < MAX_SEEKS ? pass.rest : null;
        }
        if (previous) segments.push(...previous.segments(previous.ownedUntil));
      }
      progress(window.endSample);
    }
    return segments;
  }

  /** The diarizer of a request (the built-in one, with the user's segmentation model's scan when configured). */
  private async diarizer(loaded: Loaded): Promise<NonNullable<RequestContext['diarizer']>> {
    loaded.speakers ??= (async () => {
      const encoder = SHIPPED_SPEAKER_ENCODER;
      const source = await SpeakerFeatureSource.create(loaded.ort, () => loaded.files.bytes(whisperPaths(encoder).encoder), SPEAKER_FEATURES[encoder], encoderInFloats(encoder), sessionOptions('wasm'));
      return { source, constants: decodeSpeakerConstants(await shippedSpeakerConstants()) };
    })().catch((err) => {
      loaded.speakers = undefined;
      throw err;
    });
    const { source, constants } = await loaded.speakers;
    const diarizer = new SpeakerDiarizer(constants, []);
    const seg = this.segmentationModel;
    if (!seg) return { diarizer, scan: null, source, featured: [] };
    // A model that fails to load (wrong hash, unreachable) fails this request only; the next one tries again.
    loaded.segmentation ??= SegmentationModel.load(loaded.ort, seg.url, seg.sha256).catch((err) => {
      loaded.segmentation = undefined;
      throw err;
    });
    return { diarizer, scan: new SegmentationScan(await loaded.segmentation, SEGMENTED_DEFAULTS.hopSamples), source, featured: [] };
  }

  /**
   * Language per utterance (engine/language/plan.ts): a forced code applies everywhere; a window of one
   * utterance of SHORT_UTTERANCE_S or more is identified from the encoding its decoding needs anyway (no
   * extra cost), and so is a lone short one guessed surely (SURE_ON_FIT) on its fit encoding; otherwise each
   * utterance gets its own encoder pass (a full 30 s window for a window's lone short one),
   * an uncertain guess is settled by decoding its likeliest languages and those of its neighbours, and
   * the window is cut into runs of one language, each decoded on its own.
   */
  private async planLanguages(
    whisper: WhisperModel,
    audio: RollingAudio,
    window: DecodingWindow,
    candidates: string[] | null,
    checkpoint: () => void,
  ): Promise<LanguagePlan[]> {
    if (candidates?.length === 1) return [{ window, language: candidates[0]! }];
    const isShort = (r: { startSample: number; endSample: number }) => r.endSample - r.startSample < SHORT_UTTERANCE_S * SAMPLE_RATE;
    if (window.regions.length === 1 && !isShort(window.regions[0]!)) return [{ window, language: null }];
    const detections: { samples: Float32Array; probs: Map<string, number>; encoded: EncodedWindow | null; confident: boolean }[] = [];
    let kept: EncodedWindow | null = null;
    // a short window of one utterance decoded on full windows anyway (encoderWindow 'full') reuses the
    // encoding made here; with 'fit' it is decoded on its fit encoding, as it would be with its language
    // given (measured: decoding short clips on the full window instead changed whisper-base's en/ WER)
    const only = window.regions.length === 1 ? window.regions[0]! : null;
    const reusable = this.encoderWindow === 'full' && only !== null && isShort(only) && spansWindow(only, window);
    if (only !== null && isShort(only) && this.encoderWindow === 'fit' && spansWindow(only, window)) {
      const samples = audio.samples(only.startSample, only.endSample);
      const frames = fitFrames(samples.length);
      const encoded = await whisper.encode(logMelSpectrogram(samples, frames), frames);
      // judged over every language: restricting to candidates would inflate a wrong guess's probability
      const probs = await whisper.detectLanguage(encoded, null).catch((err: unknown) => {
        whisper.releaseWindow(encoded);
        throw err;
      });
      const guess = mostLikely(probs);
      if (isConfident(probs, SURE_ON_FIT) && (!candidates || candidates.includes(guess))) return [{ window, language: guess, encoded }];
      whisper.releaseWindow(encoded);
    }
    try {
      for (const region of window.regions) {
        checkpoint();
        const samples = audio.samples(region.startSample, region.endSample);
        // a full window only for a window's lone short utterance: beside others, its neighbours settle an
        // uncertain guess, and a 30 s pass per short region would triple the encoding of long audio
        const melFrames = isShort(region) && only !== null ? FULL_FRAMES : fitFrames(samples.length);
        const encoded = await whisper.encode(logMelSpectrogram(samples, melFrames), melFrames);
        const probs = await whisper.detectLanguage(encoded, candidates);
        const confident = isConfident(probs);
        if (confident && !reusable) whisper.releaseWindow(encoded);
        detections.push({ samples, probs, encoded: confident && !reusable ? null : encoded, confident });
      }
      const languages: string[] = [];
      for (const [i, d] of detections.entries()) {
        if (d.confident || !d.encoded) {
          languages.push(mostLikely(d.probs));
          continue;
        }
        const neighbours = detections.filter((o, j) => j !== i && o.confident).map((o) => mostLikely(o.probs));
        const hypotheses: LanguageHypothesis[] = [];
        for (const language of rescoringCandidates(d.probs, neighbours)) {
          checkpoint();
          const gen = await whisper.generate(d.encoded, { language, temperature: 0, wantAttention: false, audioSeconds: d.samples.length / SAMPLE_RATE, checkpoint });
          hypotheses.push({
            language,
            probability: d.probs.get(language)!,
            logprobs: gen.tokens.map((t) => t.logprob),
            hasText: gen.tokens.some((t) => whisper.vocab.isText(t.id)),
          });
        }
        languages.push(mostProbableJoint(hypotheses));
      }
      if (reusable && detections[0]!.encoded) {
        kept = detections[0]!.encoded;
        return [{ window, language: languages[0]!, encoded: kept }];
      }
      return splitByLanguage(window, languages);
    } finally {
      for (const d of detections) if (d.encoded && d.encoded !== kept) whisper.releaseWindow(d.encoded);
    }
  }

  /**
   * Encodes a window for transcription; a window's first pass (`heardAs`) also gives the diarizer its
   * speaker features when the encoder exposes them (whisperLoadOptions), sparing the cut encoder's run.
   */
  private async encodeWindow(whisper: WhisperModel, samples: Float32Array, melFrames: number, heardAs: DecodingWindow | null, ctx: RequestContext): Promise<EncodedWindow> {
    const mel = logMelSpectrogram(samples, melFrames);
    const speakers = whisper.hasEncoderOutput(SPEAKER_TENSOR) ? ctx.diarizer : null;
    if (!speakers || !heardAs) return whisper.encode(mel, melFrames);
    const { encoded, extras } = await whisper.encodeWith(mel, melFrames, [SPEAKER_TENSOR]);
    const features = extras[0]!;
    try {
      speakers.diarizer.addWindow(features.data as Float32Array, features.dims[1]!, heardAs.startSample, heardAs.endSample);
      speakers.featured.push({ startSample: heardAs.startSample, endSample: heardAs.endSample });
    } catch (err) {
      whisper.releaseWindow(encoded);
      throw err;
    } finally {
      features.dispose();
    }
    return encoded;
  }

  private async transcribeWindow(
    whisper: WhisperModel,
    speech: Float32Array,
    plan: LanguagePlan,
    ctx: RequestContext,
    /** The words the window's earlier passes wrote; null for its first pass. */
    written: readonly string[] | null,
  ): Promise<WindowPass> {
    const { window } = plan;
    const { request, checkpoint, audio } = ctx;
    const samples = audio.samples(window.startSample, window.endSample);
    // the language probe's full-window encoding of a short window (planLanguages)
    const reused = plan.encoded ?? null;
    const melFrames = reused || this.encoderWindow === 'full' ? FULL_FRAMES : fitFrames(samples.length);
    let encoded = reused ?? (await this.encodeWindow(whisper, samples, melFrames, written === null ? window : null, ctx));
    try {
      checkpoint();
      const language = plan.language ?? mostLikely(await whisper.detectLanguage(encoded, request.languages));
      // attention with or without words: withoutUnheardTail reads the alignment, and the text must not depend on words
      const options = { language, wantAttention: true, checkpoint, audioSeconds: samples.length / SAMPLE_RATE };
      const fitted = encoded.frames < FULL_FRAMES / 2;
      let gen = await ctx.steering.decode(encoded, { ...options, fallback: !fitted });
      if (fitted && !(await passesChecks(whisper, gen))) {
        // A fitted encoding only approximates the 30 s input Whisper was trained on; when its pass fails
        // Whisper's checks (short windows can loop on it), the window gets the trained input and the fallback.
        const full = await whisper.encode(logMelSpectrogram(samples, FULL_FRAMES), FULL_FRAMES);
        whisper.releaseWindow(encoded);
        encoded = full;
        gen = await ctx.steering.decode(encoded, options);
      }
      const none: WindowPass = { segments: () => [], ownedUntil: window.endSample, rest: null, words: [], repeatedOnly: false };
      if (isSilence(gen)) return none;
      const offsetMs = (window.startSample / SAMPLE_RATE) * 1000;
      const align = (g: Generation) => (g.attention ? alignedTimes(g, encoded.frames, samples.length, offsetMs) : null);
      let times = align(gen);
      const heard = times ? withoutUnheardTail(whisper, gen, times, offsetMs + (samples.length / SAMPLE_RATE) * 1000, language) : gen;
      if (heard !== gen) [gen, times] = [heard, request.wantWordTimes ? align(heard) : null];
      const wroteText = (g: Generation) => g.tokens.some((t) => whisper.vocab.isText(t.id));
      if (!wroteText(gen)) return none;
      if (written) gen = withoutRepeatedStart(whisper, gen, written, language);
      if (!wroteText(gen)) return { ...none, repeatedOnly: true };
      const timed = splitAtTimestamps(gen.tokens, whisper.vocab, samples.length / SAMPLE_RATE);
      // text left open after its last timestamp (a loop, the token budget) runs to the window's end: no rest
      const until = gen.looped ? undefined : timed[timed.length - 1]?.end;
      const rest = until === undefined ? null : unheardRest(window, window.startSample + Math.round(until * SAMPLE_RATE), speech, MIN_UNHEARD_SPEECH_S * SAMPLE_RATE);
      const aligned = request.wantWordTimes ? times : null;
      return {
        segments: (ownedUntil) => windowSegments(whisper, timed, aligned, language, window, ownedUntil, speech, ctx),
        // a pass followed by a rest owns the audio before the rest only: its last words, which alignment may
        // place later, stay before the rest's first (words in order across the seek)
        ownedUntil: rest?.startSample ?? window.endSample,
        rest: rest && { window: rest, language },
        words: whisper.vocab.decode(gen.tokens.filter((t) => whisper.vocab.isText(t.id)).map((t) => t.id)).split(/\s+/),
        repeatedOnly: false,
      };
    } finally {
      whisper.releaseWindow(encoded);
    }
  }
}

/** One decoding pass over a window (or over a window's rest, after a seek). */
interface WindowPass {
  /** Its segments, owning the audio before `ownedUntil` (a sample): made once the next pass is known. */
  segments(ownedUntil: number): EngineSegment[];
  /** Where its segments end unless the rest after it wrote nothing new: the rest's start, else the window's end. */
  ownedUntil: number;
  rest: LanguagePlan | null;
  /** The words it wrote, for the next pass's overlap (withoutRepeatedStart). */
  words: string[];
  /** It wrote only words that repeat the end of the window's earlier passes (withoutRepeatedStart). */
  repeatedOnly: boolean;
}

/**
 * A decoded window's timed segments (splitAtTimestamps) as engine segments with their words, inside the window
 * and before `ownedUntil` (a sample); with `aligned` (alignedTimes), the words get aligned times. clean filler
 * mode drops fillers from words and text here.
 */
function windowSegments(
  whisper: WhisperModel,
  timed: readonly TimedSegment[],
  aligned: TokenTimes | null,
  language: string,
  window: DecodingWindow,
  ownedUntil: number,
  speech: Float32Array,
  { request, steering, checkpoint }: RequestContext,
): EngineSegment[] {
  const offsetMs = (window.startSample / SAMPLE_RATE) * 1000;
  const endMs = (ownedUntil / SAMPLE_RATE) * 1000;
  const text = (ids: number[]) => whisper.vocab.decode(ids);
  const segments: EngineSegment[] = [];
  for (const seg of timed) {
    let tokens = aligned
      ? alignedTokens(seg.tokens, aligned, text)
      : spreadTokenTimes(seg, whisper.vocab, offsetMs).map((t) => ({ ...t, endMs: Math.min(t.endMs, endMs) }));
    let segText = text(seg.tokens.map((t) => t.id)).trim();
    let words = wordsFromTokens(tokens, text, 0, language);
    if (request.fillerMode === 'clean') {
      const cleaned = cleanWords(words, language);
      if (cleaned.removed.size > 0) {
        tokens = tokensWithoutFillers(tokens, wordTokens(tokens, text, language), cleaned);
        [words, segText] = [cleaned.words, joinWords(cleaned.words, language)];
      }
    }
    if (steering.patterns.length > 0) {
      segText = applyPatterns(segText, steering.patterns, checkpoint);
      words = applyPatternsToWords(words, steering.patterns, checkpoint);
    }
    if (!segText) continue;
    const startMs = offsetMs + seg.start * 1000;
    const segEndMs = Math.max(startMs, Math.min(endMs, offsetMs + seg.end * 1000));
    segments.push({ startMs, endMs: segEndMs, text: segText, language, speaker: 0, tokens, words });
  }
  return aligned ? fitWordTimes(segments, speech, offsetMs, endMs) : segments;
}

/**
 * `gen` without the words it wrote after the speech (heardWordCount, on the pass's aligned words `times`,
 * before `audioEndMs`) and all after the first of them; `gen` itself when it has none.
 */
function withoutUnheardTail(whisper: WhisperModel, gen: Generation, times: TokenTimes, audioEndMs: number, language: string): Generation {
  const text = (ids: number[]) => whisper.vocab.decode(ids);
  const positions = gen.tokens.flatMap((t, i) => (whisper.vocab.isText(t.id) ? [i] : []));
  const tokens = alignedTokens(positions.map((i) => gen.tokens[i]!), times, text);
  const words = wordsFromTokens(tokens, text, 0, language);
  const heard = heardWordCount(words, audioEndMs);
  if (heard === words.length) return gen;
  const first = wordTokens(tokens, text, language)[heard]!.all[0]!;
  const cut = positions[tokens.findIndex((t) => t === first)]!;
  return { ...gen, tokens: gen.tokens.slice(0, cut), attention: gen.attention!.slice(0, cut + 1) };
}

/**
 * A rest's pass without its first words where they repeat the end of what the window's earlier passes
 * wrote (`written`; repeatedStart, engine/postprocess/seek-overlap.ts); `gen` itself when they do not. Its
 * timestamps stay, so a segment left with no text is dropped; the alignment was made with the words.
 */
function withoutRepeatedStart(whisper: WhisperModel, gen: Generation, written: readonly string[], language: string): Generation {
  const words = passWordPlaces(gen.tokens, whisper.vocab, language);
  const repeated = repeatedStart(written, words.map((w) => whisper.vocab.decode(w.all.map((i) => gen.tokens[i]!.id))));
  if (repeated === 0) return gen;
  const dropped = new Set(words.slice(0, repeated).flatMap((w) => w.all));
  return { ...gen, tokens: gen.tokens.filter((_, i) => !dropped.has(i)), attention: null };
}

/** 'fit' encoder input for `samples` of audio (see MIN_MEL_FRAMES). */
function fitFrames(samples: number): number {
  return Math.min(FULL_FRAMES, 2 * Math.ceil(Math.max(MIN_MEL_FRAMES, samples / HOP + TAIL_PAD_FRAMES) / 2));
}

type TokenTimes = Map<GeneratedToken, { startMs: number; endMs: number }>;

/** Generated tokens as engine tokens, with their aligned times. */
function alignedTokens(tokens: readonly GeneratedToken[], times: TokenTimes, text: (ids: number[]) => string): EngineToken[] {
  return tokens.map((t) => ({ id: t.id, text: text([t.id]), ...times.get(t)!, probability: Math.exp(t.logprob) }));
}

/** Absolute times of a window's generated tokens from cross-attention DTW. */
function alignedTimes(gen: Generation, encoderFrames: number, windowSamples: number, offsetMs: number): TokenTimes {
  const audioFrames = Math.ceil(windowSamples / SAMPLE_RATE / (ENCODER_FRAME_MS / 1000));
  const frames = tokenFrames(gen.tokens.length, gen.attention!, encoderFrames, audioFrames);
  return new Map(gen.tokens.map((t, i) => [t, { startMs: offsetMs + frames[i]![0] * ENCODER_FRAME_MS, endMs: offsetMs + frames[i]![1] * ENCODER_FRAME_MS }]));
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

function spansWindow(region: { startSample: number; endSample: number }, window: DecodingWindow): boolean {
  return region.startSample === window.startSample && region.endSample === window.endSample;
}
