// transformers.js side of `npm run bench`: the same q8 model files from /models/, its own
// onnxruntime-web served locally at /__peer-ort/, nothing fetched from a hub or CDN.
import { env, pipeline } from '@huggingface/transformers';
import { decodeTo16kMono, fetchBytes, pcmDurationMs } from './audio';
import type { BenchDriver, LoadOptions, TranscribeJob } from './driver';

/** transformers.js splits audio longer than this into 30 s chunks with 5 s strides (its documented setting). */
const CHUNK_S = 30;
const STRIDE_S = 5;

type Recognizer = (
  audio: Float32Array,
  options: Record<string, unknown>,
) => Promise<{ text: string } | { text: string }[]>;

let recognizer: Recognizer | null = null;

const driver: BenchDriver = {
  async load({ model, threads, backend }: LoadOptions) {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = '/models/';
    env.useBrowserCache = false;
    const wasm = env.backends.onnx.wasm!;
    wasm.wasmPaths = '/__peer-ort/';
    if (threads !== null) wasm.numThreads = threads;
    const started = performance.now();
    const device = backend ?? 'wasm';
    const asr = await pipeline('automatic-speech-recognition', model, { dtype: 'q8', device });
    recognizer = asr as unknown as Recognizer;
    return { load_ms: performance.now() - started, crossOriginIsolated, backend: device };
  },

  async transcribe(job: TranscribeJob) {
    if (!recognizer) throw new Error('load() first');
    const pcm = await decodeTo16kMono(await fetchBytes(job.url));
    const audioMs = job.audio_ms ?? pcmDurationMs(pcm);
    const language = new URLSearchParams(job.params).get('language');
    const options: Record<string, unknown> = { task: 'transcribe' };
    if (language) options.language = language;
    if (pcm.length / 16_000 > CHUNK_S) Object.assign(options, { chunk_length_s: CHUNK_S, stride_length_s: STRIDE_S });
    const started = performance.now();
    const output = await recognizer(pcm, options);
    const wallMs = performance.now() - started;
    const text = (Array.isArray(output) ? output.map((o) => o.text).join(' ') : output.text).trim();
    return { transcript: { text }, wall_ms: wallMs, audio_ms: audioMs };
  },
};

window.benchDriver = driver;
