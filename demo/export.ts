/**
 * Transcript → subtitle and text files (pure functions; no DOM, unit-tested in test/unit/demo-export.test.ts).
 *
 * Cues come from what the transcript has, best first:
 *   diarized segments (one speaker each; split at words when long) → words → the whole transcript.
 * SRT and WebVTT need times: a transcript made without include_timestamps has none, and
 * transcriptCues() says so instead of inventing them.
 */
import type { Segment, Transcript, Word } from '../src/api/transcript';

export interface Cue {
  startMs: number;
  endMs: number;
  text: string;
  /** 0-based speaker_id of a diarized segment. */
  speaker?: number;
}

export interface CueLimits {
  /** A cue ends before it would pass this many characters (two subtitle lines of 42). */
  maxChars: number;
  /** ... or last longer than this. */
  maxMs: number;
}

export const DEFAULT_CUE_LIMITS: CueLimits = { maxChars: 84, maxMs: 7000 };

export class MissingTimesError extends Error {
  constructor() {
    super('subtitles need times: turn on "timestamps" and transcribe again');
    this.name = 'MissingTimesError';
  }
}

type TimedWord = Word & { start_ms: number; duration_ms: number };

function timed(words: Word[] | undefined): TimedWord[] | null {
  if (!words?.length) return null;
  return words.every((w) => typeof w.start_ms === 'number' && typeof w.duration_ms === 'number') ? (words as TimedWord[]) : null;
}

/** Whether the transcript carries the times subtitles need. */
export function hasTimes(t: Transcript): boolean {
  if (t.segments) return t.segments.every((s) => typeof s.start_ms === 'number' && typeof s.duration_ms === 'number');
  return typeof t.start_ms === 'number' && typeof t.duration_ms === 'number';
}

/** Groups consecutive words into cues: a cue ends after a sentence end, or before it would grow past the limits. */
export function cuesFromWords(words: TimedWord[], speaker?: number, limits: CueLimits = DEFAULT_CUE_LIMITS): Cue[] {
  const cues: Cue[] = [];
  let current: Cue | null = null;
  for (const w of words) {
    const start = w.start_ms;
    const end = w.start_ms + w.duration_ms;
    if (current) {
      const text = `${current.text} ${w.text}`;
      if (text.length > limits.maxChars || end - current.startMs > limits.maxMs) {
        cues.push(current);
        current = null;
      } else {
        current.text = text;
        current.endMs = Math.max(current.endMs, end);
      }
    }
    if (!current) current = { startMs: start, endMs: end, text: w.text, ...(speaker !== undefined ? { speaker } : {}) };
    if (/[.?!]["')\]]?$/.test(w.text)) {
      cues.push(current);
      current = null;
    }
  }
  if (current) cues.push(current);
  return cues;
}

function segmentCues(s: Segment, limits: CueLimits): Cue[] {
  const words = timed(s.words);
  const tooLong = s.text.length > limits.maxChars || (s.duration_ms ?? 0) > limits.maxMs;
  if (words && tooLong) return cuesFromWords(words, s.speaker_id, limits);
  const start = s.start_ms ?? 0;
  return [{ startMs: start, endMs: start + (s.duration_ms ?? 0), text: s.text, speaker: s.speaker_id }];
}

/** The cues of a transcript with times; throws MissingTimesError when it has none. */
export function transcriptCues(t: Transcript, limits: CueLimits = DEFAULT_CUE_LIMITS): Cue[] {
  if (!hasTimes(t)) throw new MissingTimesError();
  let cues: Cue[];
  if (t.segments) cues = t.segments.flatMap((s) => segmentCues(s, limits));
  else {
    const words = timed(t.words);
    cues = words ? cuesFromWords(words, undefined, limits) : t.text ? [{ startMs: t.start_ms!, endMs: t.start_ms! + t.duration_ms!, text: t.text }] : [];
  }
  // Players skip cues that end where they start.
  return cues.filter((c) => c.text.trim() !== '').map((c) => (c.endMs > c.startMs ? c : { ...c, endMs: c.startMs + 1 }));
}

/** `HH:MM:SS<sep>mmm` for a time in milliseconds. */
export function clock(ms: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(ms));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor(total / 60_000) % 60;
  const s = Math.floor(total / 1000) % 60;
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(total % 1000, 3)}`;
}

/** Breaks a cue's text into two lines near its middle when it is longer than one subtitle line. */
export function wrapLines(text: string, lineLength = 42): string {
  if (text.length <= lineLength) return text;
  const middle = text.length / 2;
  let best = -1;
  for (let i = text.indexOf(' '); i !== -1; i = text.indexOf(' ', i + 1)) {
    if (best === -1 || Math.abs(i - middle) < Math.abs(best - middle)) best = i;
  }
  return best === -1 ? text : `${text.slice(0, best)}\n${text.slice(best + 1)}`;
}

export const speakerName = (id: number) => `Speaker ${id + 1}`;

export function toSrt(t: Transcript, limits?: CueLimits): string {
  return transcriptCues(t, limits)
    .map((c, i) => {
      const text = c.speaker !== undefined ? `[${speakerName(c.speaker)}] ${c.text}` : c.text;
      return `${i + 1}\n${clock(c.startMs, ',')} --> ${clock(c.endMs, ',')}\n${wrapLines(text)}\n`;
    })
    .join('\n');
}

const escapeVtt = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function toVtt(t: Transcript, limits?: CueLimits): string {
  const cues = transcriptCues(t, limits).map((c) => {
    const text = escapeVtt(wrapLines(c.text));
    const voiced = c.speaker !== undefined ? `<v ${speakerName(c.speaker)}>${text}` : text;
    return `${clock(c.startMs, '.')} --> ${clock(c.endMs, '.')}\n${voiced}\n`;
  });
  return ['WEBVTT\n', ...cues].join('\n');
}

/** The transcript as text: one line per speaker turn when diarized. */
export function toPlainText(t: Transcript): string {
  if (t.segments) return t.segments.map((s) => `${speakerName(s.speaker_id)}: ${s.text}\n`).join('');
  return t.text ? `${t.text}\n` : '';
}

/** The transcript exactly as returned (the spec's JSON shape). */
export function toJson(t: Transcript): string {
  return `${JSON.stringify(t, null, 2)}\n`;
}

export type ExportFormat = 'json' | 'srt' | 'vtt' | 'txt';

export const EXPORT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json',
  srt: 'application/x-subrip',
  vtt: 'text/vtt',
  txt: 'text/plain',
};

export function exportTranscript(t: Transcript, format: ExportFormat): string {
  switch (format) {
    case 'json':
      return toJson(t);
    case 'srt':
      return toSrt(t);
    case 'vtt':
      return toVtt(t);
    case 'txt':
      return toPlainText(t);
  }
}
