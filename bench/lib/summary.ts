import { errorRate, type ClipErrors, type Scorer } from '../score/error-rate';
import { isExactReference, type Clip } from './manifest';
import type { ClipRun } from './run-side';

/** Error rates and speed over a set of clip runs, by the conventions of ../shared/eval/README.md. */
export interface Summary {
  clips: number;
  failed: number;
  /** Word error rate over clips scored by words; null when none has a reference. */
  wer: number | null;
  /** Character error rate over zh/ja/ko clips; null when none. */
  cer: number | null;
  referenceWords: number;
  referenceChars: number;
  /** Some references are approximate (vendor expectations, model output): figures are indicative. */
  approximate: boolean;
  wallMs: number;
  audioMs: number;
  /** Sum of wall time over sum of audio time, over the clips that succeeded. */
  rtf: number | null;
}

export function scoreRun(run: ClipRun, scorer: Scorer): ClipErrors | null {
  if (run.clip.text === null) return null;
  return scorer.score(run.clip.text, run.transcript?.text ?? '', run.clip.lang);
}

export function summarize(runs: readonly ClipRun[], scorer: Scorer): Summary {
  const words: ClipErrors[] = [];
  const chars: ClipErrors[] = [];
  let approximate = false;
  let wallMs = 0;
  let audioMs = 0;
  let failed = 0;
  for (const run of runs) {
    if (run.error) failed++;
    else {
      wallMs += run.wall_ms;
      audioMs += run.audio_ms;
    }
    // A failed clip still counts: all its reference words are missing.
    const score = scoreRun(run, scorer);
    if (!score) continue;
    (score.unit === 'char' ? chars : words).push(score);
    if (!isExactReference(run.clip)) approximate = true;
  }
  const rateOrNull = (s: ClipErrors[]): number | null => (s.length === 0 ? null : errorRate(s));
  return {
    clips: runs.length,
    failed,
    wer: rateOrNull(words),
    cer: rateOrNull(chars),
    referenceWords: words.reduce((n, s) => n + s.referenceLength, 0),
    referenceChars: chars.reduce((n, s) => n + s.referenceLength, 0),
    approximate,
    wallMs,
    audioMs,
    rtf: audioMs > 0 ? wallMs / audioMs : null,
  };
}

/** Clips grouped by folder, in the order they first appear. */
export function byFolder(runs: readonly ClipRun[]): Map<string, ClipRun[]> {
  const groups = new Map<string, ClipRun[]>();
  for (const run of runs) {
    const group = groups.get(run.clip.folder) ?? [];
    group.push(run);
    groups.set(run.clip.folder, group);
  }
  return groups;
}

/** Whether the transcript holds every string the clip must contain (bias/), case-insensitively. */
export function containsRequired(clip: Clip, text: string): boolean | null {
  if (clip.mustContain.length === 0) return null;
  return clip.mustContain.every((s) => text.toLowerCase().includes(s.toLowerCase()));
}
