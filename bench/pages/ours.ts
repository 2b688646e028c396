// localscribe side of `npm run eval` and `npm run bench`: the library's public entry point,
// models from the app's /models/ (public/), onnxruntime-web's wasm from beside its own module (the library's default).
import { createTranscriber, type Transcriber } from '../../src/index';
import { MODEL_NAMES, type ModelName } from '../../engine/protocol';
import { decodeTo16kMono, fetchBytes, pcmDurationMs } from './audio';
import type { BenchDriver, LoadOptions, TranscribeJob, TranscriptBody } from './driver';

let transcriber: Transcriber | null = null;

const driver: BenchDriver = {
  async load({ model, threads, encoderWindow, decoding, segmentationModel, backend }: LoadOptions) {
    if (!isModelName(model)) throw new Error(`unknown model ${model} (known: ${MODEL_NAMES.join(', ')})`);
    transcriber = createTranscriber({
      model,
      backend: backend ?? 'wasm',
      ...(threads !== null ? { numThreads: threads } : {}),
      ...(encoderWindow ? { encoderWindow } : {}),
      ...(decoding ? { decoding } : {}),
      ...(segmentationModel ? { segmentationModel } : {}),
    });
    const started = performance.now();
    const info = await transcriber.load();
    return { load_ms: performance.now() - started, crossOriginIsolated, backend: info.backend };
  },

  async transcribe(job: TranscribeJob) {
    if (!transcriber) throw new Error('load() first');
    const bytes = await fetchBytes(job.url);
    let input: Blob | Float32Array;
    let audioMs = job.audio_ms;
    if (job.input === 'pcm') {
      input = await decodeTo16kMono(bytes);
      audioMs ??= pcmDurationMs(input);
    } else {
      audioMs ??= pcmDurationMs(await decodeTo16kMono(bytes));
      input = new Blob([bytes]);
    }
    const started = performance.now();
    const transcript = await transcriber.transcribe(input, new URLSearchParams(job.params));
    const wallMs = performance.now() - started;
    return { transcript: transcript as unknown as TranscriptBody, wall_ms: wallMs, audio_ms: audioMs };
  },
};

const isModelName = (name: string): name is ModelName => (MODEL_NAMES as readonly string[]).includes(name);

window.benchDriver = driver;
