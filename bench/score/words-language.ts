import { normalizeBasic } from './normalize-basic';
import { primaryLanguage } from './error-rate';

/**
 * Scores for issue 5 from spec transcripts: language-ID accuracy, word-timing sanity and
 * confidence calibration. Pure functions over the JSON bodies, so eval and tests share them.
 */

export interface SpecWord {
  text: string;
  start_ms?: number;
  duration_ms?: number;
  confidence?: number;
}

interface SpecSegment {
  language?: string;
  words?: SpecWord[];
}

export interface SpecTranscript {
  text: string;
  language?: string;
  words?: SpecWord[];
  segments?: SpecSegment[];
}

/** The transcript's words, flat, whether diarized (per segment) or not. */
export function wordsOf(t: SpecTranscript): SpecWord[] {
  return t.words ?? (t.segments ?? []).flatMap((s) => s.words ?? []);
}

/**
 * Whether the detected language is right: the top-level `language`, else every segment's; for a
 * code-switched clip ("en+de") the per-segment languages in order of appearance. Null when nothing
 * was reported (no language asked for, or no speech found).
 */
export function languageCorrect(t: SpecTranscript, lang: string): boolean | null {
  const seen = (t.segments ?? []).map((s) => s.language).filter((l): l is string => l !== undefined);
  if (lang.includes('+')) {
    if (seen.length === 0) return t.language === undefined ? null : lang.split('+').includes(t.language);
    return seen.filter((l, i) => l !== seen[i - 1]).join('+') === lang;
  }
  if (t.language !== undefined) return t.language === primaryLanguage(lang);
  return seen.length === 0 ? null : seen.every((l) => l === primaryLanguage(lang));
}

export interface TimingSanity {
  words: number;
  /** Starts before the previous word ends. */
  overlapping: number;
  /** Ends after the audio. */
  pastEnd: number;
  zeroLength: number;
}

export function timingSanity(words: readonly SpecWord[], durationMs: number): TimingSanity {
  const s: TimingSanity = { words: 0, overlapping: 0, pastEnd: 0, zeroLength: 0 };
  let previousEnd = -Infinity;
  for (const w of words) {
    if (w.start_ms === undefined || w.duration_ms === undefined) continue;
    s.words++;
    const end = w.start_ms + w.duration_ms;
    if (w.start_ms < previousEnd) s.overlapping++;
    if (end > durationMs) s.pastEnd++;
    if (w.duration_ms <= 0) s.zeroLength++;
    previousEnd = end;
  }
  return s;
}

/**
 * Which hypothesis words are right: a minimum-edit alignment of the words (each normalised alone by
 * the basic normaliser) against the reference; a word is right when aligned to an equal reference word.
 */
export function wordCorrectness(reference: string, words: readonly SpecWord[]): boolean[] {
  const ref = normalizeBasic(reference).split(' ').filter((w) => w !== '');
  const hyp = words.map((w) => normalizeBasic(w.text).replace(/\s+/g, ''));
  const n = ref.length;
  const m = hyp.length;
  const d = Array.from({ length: n + 1 }, (_, i) => Int32Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      d[i]![j] = Math.min(d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1), d[i - 1]![j]! + 1, d[i]![j - 1]! + 1);
    }
  }
  const right = new Array<boolean>(m).fill(false);
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const same = ref[i - 1] === hyp[j - 1];
    if (d[i]![j] === d[i - 1]![j - 1]! + (same ? 0 : 1)) {
      right[j - 1] = same;
      i--;
      j--;
    } else if (d[i]![j] === d[i - 1]![j]! + 1) i--;
    else j--;
  }
  return right;
}

export const CONFIDENCE_BANDS = [0, 0.5, 0.7, 0.9, 0.97] as const;

export interface Band {
  from: number;
  to: number;
  words: number;
  right: number;
}

/** Accuracy of words per confidence band [from, to); the last band includes 1. */
export function confidenceBands(pairs: ReadonlyArray<{ confidence: number; right: boolean }>): Band[] {
  const bands: Band[] = CONFIDENCE_BANDS.map((from, i) => ({ from, to: CONFIDENCE_BANDS[i + 1] ?? 1, words: 0, right: 0 }));
  for (const p of pairs) {
    const band = [...bands].reverse().find((b) => p.confidence >= b.from)!;
    band.words++;
    if (p.right) band.right++;
  }
  return bands;
}
