import { join } from 'node:path';
import { EVAL_DIR } from '../../../config/paths';
import { readAudio } from '../../../bench/bias-set/node-model';

/** Decodes an eval clip to 16 kHz mono float32 with ffmpeg (a reference decoder independent of ours). */
export function loadEvalClip(relPath: string): Float32Array {
  return readAudio(join(EVAL_DIR, relPath));
}
