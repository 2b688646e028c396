/**
 * Node-side helpers shared by bench/diarization.ts and scripts/fit-speaker-constants.ts: decoding with
 * ffmpeg, Silero VAD, and whisper-base's block-2 hidden states from the truncated encoder, computed the
 * way the engine sees a window (full 30 s input, the window's audio at the start, zero padding after).
 * Hidden states are cached on disk (they cost ~1.5 s of CPU per window) keyed by the audio's content.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { ROOT } from '../config/paths';
import { FULL_FRAMES, logMelSpectrogram, N_MELS } from '../engine/whisper/features';
import { patchWhisperEncoder } from '../engine/whisper/patches';
import { SPEAKER_FEATURE_TENSOR } from '../engine/speakers/constants';
import { SileroVad, VAD_MODEL_PATH } from '../engine/vad/silero';
import { SegmentationModel, verifySegmentationModel } from '../engine/speakers/segmentation-model';
import { SEGMENTATION_MODEL_SHA256 } from '../config/paths';

ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';

const MODELS = join(ROOT, 'public/models');
/** Override with STS_SPEAKER_CACHE; delete the folder to recompute. */
export const CACHE_DIR = process.env.STS_SPEAKER_CACHE ?? join(ROOT, 'tmp/speaker-cache');

export function decodeFile(path: string): Float32Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'f32le', '-ac', '1', '-ar', '16000', '-'], {
    maxBuffer: 1 << 30,
  });
  return new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4).slice();
}

function cached(kind: string, audio: Float32Array, compute: () => Promise<Float32Array>): Promise<Float32Array> {
  const key = createHash('sha256').update(kind).update(new Uint8Array(audio.buffer, audio.byteOffset, audio.byteLength)).digest('hex');
  const file = join(CACHE_DIR, `${kind}-${key.slice(0, 24)}.f32`);
  if (existsSync(file)) {
    const b = readFileSync(file);
    return Promise.resolve(new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4).slice());
  }
  return compute().then((data) => {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(file, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return data;
  });
}

let encoder: Promise<ort.InferenceSession> | undefined;
let vad: Promise<SileroVad> | undefined;

export function speakerEncoder(): Promise<ort.InferenceSession> {
  encoder ??= (async () => {
    const full = new Uint8Array(readFileSync(join(MODELS, 'whisper-base/onnx/encoder_model_quantized.onnx')));
    const truncated = patchWhisperEncoder(full, { dynamicFrames: true, extraOutputs: [SPEAKER_FEATURE_TENSOR], extraOutputsOnly: true });
    return ort.InferenceSession.create(truncated, { executionProviders: ['wasm'] });
  })();
  return encoder;
}

/** Block-2 hidden states [1500 × 512] of one ≤ 30 s window, as the engine's full-window encoder run sees it. */
export function windowHidden(windowAudio: Float32Array): Promise<Float32Array> {
  return cached('hidden', windowAudio, async () => {
    const session = await speakerEncoder();
    const mel = logMelSpectrogram(windowAudio, FULL_FRAMES);
    const out = await session.run({ input_features: new ort.Tensor('float32', mel, [1, N_MELS, FULL_FRAMES]) });
    return (out[SPEAKER_FEATURE_TENSOR]!.data as Float32Array).slice();
  });
}

/** Silero's probability per 512-sample frame, without the input level, as the engine's diarized requests hear it. */
export function vadProbabilities(audio: Float32Array): Promise<Float32Array> {
  // keyed by the VAD graph too, so that a cache from another Silero version is not read
  return cached(`vad-${VAD_MODEL_PATH.replace(/\W+/g, '-')}`, audio, async () => {
    vad ??= SileroVad.create(ort, new Uint8Array(readFileSync(join(MODELS, VAD_MODEL_PATH))), undefined, null);
    return (await vad).probabilities(audio);
  });
}

/** The pretrained segmentation model from a file, verified against SEGMENTATION_MODEL_SHA256 (the ../shared/models copy's) unless `sha256` is given. */
export async function segmentationModel(path: string, sha256 = SEGMENTATION_MODEL_SHA256): Promise<SegmentationModel> {
  const bytes = new Uint8Array(readFileSync(path));
  await verifySegmentationModel(bytes, sha256, path);
  return SegmentationModel.fromBytes(ort, bytes, path);
}
