import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../config/paths';
import { loadClips, type Clip } from '../lib/manifest';
import { summarize } from '../lib/summary';
import type { ClipRun } from '../lib/run-side';
import { createScorer } from '../score/error-rate';
import { loadSpellings } from '../score/spellings';

interface Line {
  run?: string;
  kind: string;
  clip?: string;
  text?: string;
  error?: string;
  wall_ms?: number;
  audio_ms?: number;
}

/**
 * Scores serve.py's results.jsonl files (bench/webgpu/README.md) by the bench's conventions: one row
 * per run (model:side:backend) over the clips it finished, the shader-compiling warm-up pass left out.
 * `only` keeps the clips every listed run finished, so that rows compare the same audio.
 */
export function scoreResults(files: string[], evalRoot: string, common: boolean): string {
  const clips = new Map<string, Clip>();
  for (const split of ['holdout', 'dev', 'eval']) {
    for (const clip of loadClips(join(evalRoot, split))) clips.set(`${split}/${clip.folder}/${clip.file}`, clip);
  }
  const runs = new Map<string, Map<string, ClipRun>>();
  for (const file of files) {
    for (const raw of readFileSync(file, 'utf8').split('\n')) {
      if (!raw.trim()) continue;
      const line = JSON.parse(raw) as Line;
      if (line.kind !== 'clip' || !line.run || !line.clip) continue;
      const clip = clips.get(line.clip);
      if (!clip) throw new Error(`no manifest entry for ${line.clip}`);
      const byClip = runs.get(line.run) ?? new Map<string, ClipRun>();
      byClip.set(line.clip, {
        clip,
        params: '',
        transcript: line.error ? null : { text: line.text ?? '' },
        wall_ms: line.wall_ms ?? 0,
        audio_ms: line.audio_ms ?? 0,
        ...(line.error ? { error: line.error } : {}),
      });
      runs.set(line.run, byClip);
    }
  }
  let keys = [...new Set([...runs.values()].flatMap((m) => [...m.keys()]))];
  if (common) keys = keys.filter((k) => [...runs.values()].every((m) => m.has(k)));
  const scorer = createScorer(loadSpellings(ROOT));
  const rows = ['| run | clips | words | WER | audio s | RTF |', '|---|---|---|---|---|---|'];
  for (const [run, byClip] of [...runs].sort()) {
    const s = summarize(keys.filter((k) => byClip.has(k)).map((k) => byClip.get(k)!), scorer);
    const wer = s.wer === null ? '-' : `${(100 * s.wer).toFixed(1)}%`;
    rows.push(`| ${run} | ${s.clips} | ${s.referenceWords} | ${wer} | ${(s.audioMs / 1000).toFixed(1)} | ${s.rtf?.toFixed(3) ?? '-'} |`);
  }
  return rows.join('\n');
}
