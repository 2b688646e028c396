import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The folders of an evaluation set laid out like ../shared/eval, in reporting order. */
export const EVAL_FOLDERS = ['en', 'multi', 'diar', 'bias', 'long'] as const;

/** One manifest.json entry, as much of it as the runners use. */
export interface Clip {
  folder: string;
  file: string;
  lang: string;
  /** Reference transcript; null when the set has none for this clip. */
  text: string | null;
  refQuality: string;
  durationMs: number | null;
  /** Strings a correct transcript must contain (bias/). */
  mustContain: string[];
  /** The phrases a user would list for it (bias/), sent as `phrases`. */
  biasPhrases: string[];
  /** Its speaker turns (diar/): the RTTM file's path; null when it has none. */
  rttm: string | null;
  /** How many people speak in it, where the manifest says (diar/). */
  speakers: number | null;
}

interface ManifestEntry {
  file: string;
  lang?: string;
  text?: string | null;
  ref_quality?: string;
  duration_s?: number;
  must_contain?: string | string[];
  bias_phrases?: string[];
  rttm?: string | null;
  num_speakers?: number;
}

/** Every clip of every folder present under `dir` (folders without manifest.json are skipped). */
export function loadClips(dir: string, folders: readonly string[] = EVAL_FOLDERS): Clip[] {
  const clips: Clip[] = [];
  for (const folder of folders) {
    const path = join(dir, folder, 'manifest.json');
    if (!existsSync(path)) continue;
    const entries = JSON.parse(readFileSync(path, 'utf8')) as ManifestEntry[];
    for (const e of entries) {
      const must = e.must_contain ?? [];
      clips.push({
        folder,
        file: e.file,
        lang: e.lang ?? '',
        text: typeof e.text === 'string' ? e.text : null,
        refQuality: e.ref_quality ?? '',
        durationMs: typeof e.duration_s === 'number' ? Math.round(e.duration_s * 1000) : null,
        mustContain: Array.isArray(must) ? must : [must],
        biasPhrases: e.bias_phrases ?? [],
        rttm: e.rttm ? join(dir, folder, e.rttm) : null,
        speakers: typeof e.num_speakers === 'number' ? e.num_speakers : null,
      });
    }
  }
  return clips;
}

/** "human ground truth" references are exact; vendor expectations and model outputs are approximate. */
export const isExactReference = (clip: Clip): boolean => /^human ground truth/i.test(clip.refQuality);

/** Matches "folder/file" against comma-separated globs (`*` any run of characters, `?` one). */
export function clipMatcher(patterns: readonly string[]): (clip: Clip) => boolean {
  const regexes = patterns.map(
    (p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`),
  );
  return (clip) => regexes.some((r) => r.test(`${clip.folder}/${clip.file}`));
}
