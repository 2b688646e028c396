/**
 * What phrases.measure.ts and summarize-log.measure.ts count alike: the recordings of ../shared/eval
 * used as unrelated audio, how much of each is heard (one 30 s window is decoded), and false insertions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVAL_DIR } from '../../config/paths';
import { occurrences } from '../../engine/biasing/phrases/hunks';

export interface UnrelatedRecording {
  file: string;
  eval_path: string;
  text: string | null;
  duration_s: number;
  kind: 'unrelated';
  speaker: string;
}

/** Seconds of audio the measures decode per clip: one window. */
export const WINDOW_SECONDS = 30;

/** Every English recording of ../shared/eval but the phrase clip (fw_hotwords); diar's have no transcript. */
export function unrelatedRecordings(only: RegExp | null = null): UnrelatedRecording[] {
  const out: UnrelatedRecording[] = [];
  for (const folder of ['en', 'bias', 'diar']) {
    const manifest = JSON.parse(readFileSync(join(EVAL_DIR, folder, 'manifest.json'), 'utf8')) as (UnrelatedRecording & { lang: string })[];
    for (const c of manifest) {
      if (c.lang !== 'en' || c.file === 'fw_hotwords.mp3' || (only && !only.test(c.file))) continue;
      out.push({ ...c, eval_path: `${folder}/${c.file}`, kind: 'unrelated' });
    }
  }
  return out;
}

/** The seconds of a clip that one decoded window hears. */
export const heardSeconds = (durationS: number) => Math.min(durationS, WINDOW_SECONDS);

/** A clip's transcript where it covers no more than the one window decoded, else null. */
export const windowReference = (text: string | null, durationS: number) => (durationS <= WINDOW_SECONDS ? text : null);

/** Listed phrases `text` holds more often than `heard` (the reference, or else the unbiased pass). */
export function falseInsertions(text: string, heard: string, phrases: readonly string[]): number {
  return phrases.reduce((n, p) => n + Math.max(0, occurrences(text, p) - occurrences(heard, p)), 0);
}
