/**
 * Node-side helpers shared by bench/diarization.ts and scripts/fit-speaker-constants.ts: decoding with
 * ffmpeg, Silero VAD, and the speaker-feature hidden states (SPEAKER_FEATURES) from the truncated
 * encoder in the engine's arithmetic, computed the way the engine sees a window (full 30 s input, the
 * window's audio at the start, zero padding after).
 * Hidden states are cached on disk (they cost ~1.5 s of CPU per window) keyed by the audio's content.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { ROOT } from '../config/paths';
import { FULL_FRAMES, logMelSpectrogram } from '../engine/whisper/features';
import { SHIPPED_SPEAKER_ENCODER, SPEAKER_FEATURES, type SpeakerEncoder } from '../engine/speakers/constants';
import { encoderInFloats } from '../engine/pipeline';
import { SpeakerFeatureSource } from '../engine/speakers/features';
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

const encoders = new Map<SpeakerEncoder, Promise<SpeakerFeatureSource>>();
let vad: Promise<SileroVad> | undefined;

/** The engine's cut encoder for `encoder`'s speaker features. */
export function speakerEncoder(encoder: SpeakerEncoder): Promise<SpeakerFeatureSource> {
  let source = encoders.get(encoder);
  if (!source) {
    const bytes = async () => new Uint8Array(readFileSync(join(MODELS, encoder, 'onnx/encoder_model_quantized.onnx')));
    source = SpeakerFeatureSource.create(ort, bytes, SPEAKER_FEATURES[encoder], encoderInFloats(encoder), { executionProviders: ['wasm'] });
    encoders.set(encoder, source);
  }
  return source;
}

/** `encoder`'s speaker-feature hidden states [1500 × channels] of one ≤ 30 s window, as the engine's full-window encoder run sees it. */
export function windowHidden(windowAudio: Float32Array, encoder: SpeakerEncoder = SHIPPED_SPEAKER_ENCODER): Promise<Float32Array> {
  // base's cache keeps the name it had when base was the only feature encoder
  return cached(encoder === 'whisper-base' ? 'hidden' : `hidden-${encoder}`, windowAudio, async () => {
    const features = await (await speakerEncoder(encoder)).features(logMelSpectrogram(windowAudio, FULL_FRAMES), FULL_FRAMES);
    const data = (features.data as Float32Array).slice();
    features.dispose();
    return data;
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
