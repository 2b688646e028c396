/**
 * The clips parity is measured on: ../shared/eval/en and ../shared/dev/en (never holdout), each at
 * most 30 s so one full window holds it, in file-name order.
 */
import { resolve } from 'node:path';
import { DEV_DIR, EVAL_DIR } from '../../config/paths';
import { isExactReference, loadClips, type Clip } from '../lib/manifest';

export const PARITY_SETS = { eval: EVAL_DIR, dev: DEV_DIR } as const;
export type ParitySet = keyof typeof PARITY_SETS;

export interface ParityClip {
  set: ParitySet;
  clip: Clip;
  path: string;
}

/** Every English clip of `set` at most 30 s long; with `firstExact`, only the first that many with an exact (human) reference. */
export function parityClips(set: ParitySet, firstExact?: number): ParityClip[] {
  const dir = PARITY_SETS[set];
  const clips = loadClips(dir, ['en'])
    .filter((c) => c.durationMs !== null && c.durationMs <= 30_000)
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const chosen = firstExact === undefined ? clips : clips.filter(isExactReference).slice(0, firstExact);
  return chosen.map((clip) => ({ set, clip, path: resolve(dir, clip.folder, clip.file) }));
}
