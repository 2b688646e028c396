import { resolve } from 'node:path';
import { SEGMENTATION_MODEL_PATH, SEGMENTATION_MODEL_SHA256 } from './shared-models';

/** Repository root (this file lives in config/). */
export const ROOT = resolve(import.meta.dirname, '..');
/** Evaluation recordings laid out like ../shared/eval; override with STS_EVAL_DIR. */
export const EVAL_DIR = resolve(ROOT, process.env.STS_EVAL_DIR ?? '../shared/eval');
/** The development split beside it (../shared/dev). */
export const DEV_DIR = resolve(EVAL_DIR, '../dev');
/** Speaker-labelled LibriSpeech clips; override with STS_SPEAKERS_DIR. */
export const SPEAKERS_DIR = resolve(ROOT, process.env.STS_SPEAKERS_DIR ?? '../shared/speakers');
/** Audio fixtures that tests generate with ffmpeg/sox at test time (gitignored). */
export const FIXTURES_DIR = resolve(ROOT, process.env.STS_FIXTURES_DIR ?? 'test/.fixtures');
/** Pretrained models that may not be committed or shipped (../shared/models); override with STS_MODELS_DIR. */
export const SHARED_MODELS_DIR = resolve(ROOT, process.env.STS_MODELS_DIR ?? '../shared/models');
/** pyannote segmentation-3.0, sherpa-onnx's int8 export: the file tests and benches use (config/shared-models.ts). */
export const SEGMENTATION_MODEL_FILE = resolve(SHARED_MODELS_DIR, SEGMENTATION_MODEL_PATH);
export { SEGMENTATION_MODEL_SHA256 };
