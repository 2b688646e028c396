import { resolve } from 'node:path';

/** Repository root (this file lives in config/). */
export const ROOT = resolve(import.meta.dirname, '..');
/** Evaluation recordings laid out like ../shared/eval; override with STS_EVAL_DIR. */
export const EVAL_DIR = resolve(ROOT, process.env.STS_EVAL_DIR ?? '../shared/eval');
/** Speaker-labelled LibriSpeech clips; override with STS_SPEAKERS_DIR. */
export const SPEAKERS_DIR = resolve(ROOT, process.env.STS_SPEAKERS_DIR ?? '../shared/speakers');
/** Audio fixtures that tests generate with ffmpeg/sox at test time (gitignored). */
export const FIXTURES_DIR = resolve(ROOT, process.env.STS_FIXTURES_DIR ?? 'test/.fixtures');
