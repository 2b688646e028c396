import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { EVAL_DIR } from '../../../config/paths';

/** Decodes an eval clip to 16 kHz mono float32 with ffmpeg (a reference decoder independent of ours). */
export function loadEvalClip(relPath: string): Float32Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', join(EVAL_DIR, relPath), '-f', 'f32le', '-ac', '1', '-ar', '16000', '-'], {
    maxBuffer: 1 << 30,
  });
  return new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4).slice();
}
