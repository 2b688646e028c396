/**
 * The one response shaper (spec 2.4) used by both doors, so their JSON is byte-identical.
 *
 * Field presence (rules 1-3):
 *   transcript: text; language (include_language && !diarize); start_ms, duration_ms
 *               (include_timestamps, diarized or not); words (include_words && !diarize); segments (diarize)
 *   segment:    text, speaker_id; language (include_language); start_ms, duration_ms
 *               (include_timestamps); words (include_words)
 *   word:       text; start_ms, duration_ms (include_timestamps); confidence (include_confidence)
 * Keys are always inserted in the spec's table order, so JSON.stringify is deterministic.
 *
 * Decisions where the spec is silent:
 * - Times: engine times are rounded to integer milliseconds at the boundaries (start and end each
 *   rounded half up), and duration_ms = end - start, so adjacent words stay adjacent after rounding.
 *   Times are clamped into [0, audio duration]. A word always lasts at least 1 ms: if it would end
 *   past the audio, its start moves back instead.
 * - The transcript's start_ms is 0 and its duration_ms the duration of the audio: the transcript
 *   covers the whole recording, silence included.
 * - Confidence is rounded to 4 decimals and kept in [0.0001, 1], inside the spec's (0, 1].
 * - The top-level language is the one with the most speech time (sum of segment durations); a tie
 *   goes to the language heard first. With no speech at all it is the first requested candidate, else 'en'.
 * - Diarized segments are speaker turns: consecutive engine segments of the same speaker are merged,
 *   except where the detected language changes, so every segment has one true language, and except
 *   across a pause: a gap of more than MAX_MERGE_GAP_MS between one segment's end and the next one's
 *   start keeps them apart, so a segment's span never covers long silence (the engine times diarized
 *   segments by the diarizer's speaker turns, engine/speakers/assign.ts; a gap between them is a pause).
 *   speaker_id is renumbered 0, 1, 2... in order of first appearance.
 * - Texts are trimmed; segment texts are joined with single spaces; segments and words whose
 *   text is empty after trimming are dropped.
 */
import type { EngineResult, EngineSegment, EngineWord } from '../../engine/protocol';
import type { TranscriptionParams } from './params';

export interface Word {
  text: string;
  start_ms?: number;
  duration_ms?: number;
  confidence?: number;
}

export interface Segment {
  text: string;
  speaker_id: number;
  language?: string;
  start_ms?: number;
  duration_ms?: number;
  words?: Word[];
}

export interface Transcript {
  text: string;
  language?: string;
  start_ms?: number;
  duration_ms?: number;
  words?: Word[];
  segments?: Segment[];
}

type Flags = Pick<
  TranscriptionParams,
  'include_timestamps' | 'include_words' | 'include_language' | 'include_confidence' | 'diarize' | 'language'
>;

const FALLBACK_LANGUAGE = 'en';
const MIN_CONFIDENCE = 0.0001;
/**
 * Longest pause a merged diarized segment may span. The diarizer's turns are padded by 400 ms on each
 * side (engine/speakers/diarize.ts), so a gap of more than 200 ms between two turns is more than 1 s of
 * silence to the VAD. Measured (bench/results/diarization-2026-11-21.md): at 500 ms, AMI dev01's two
 * last turns (350 ms apart) merged and the false alarm rose from 3.7% to 5.6%.
 */
export const MAX_MERGE_GAP_MS = 200;

function finite(value: number, what: string): number {
  if (!Number.isFinite(value)) throw new TypeError(`engine result has a non-finite ${what}: ${value}`);
  return value;
}

/** Integer [start, end] of an engine span, clamped into the audio. */
function span(startMs: number, endMs: number, totalMs: number): [number, number] {
  const start = Math.min(Math.max(Math.round(finite(startMs, 'start time')), 0), totalMs);
  const end = Math.min(Math.max(Math.round(finite(endMs, 'end time')), start), totalMs);
  return [start, end];
}

function wordTimes(w: EngineWord, totalMs: number): { start_ms: number; duration_ms: number } {
  let [start, end] = span(w.startMs, w.endMs, totalMs);
  if (end === start) {
    if (start + 1 <= totalMs || start === 0) end = start + 1;
    else start = end - 1;
  }
  return { start_ms: start, duration_ms: end - start };
}

function confidence(c: number): number {
  const rounded = Math.round(finite(c, 'confidence') * 10000) / 10000;
  return Math.min(1, Math.max(MIN_CONFIDENCE, rounded));
}

function shapeWords(words: EngineWord[], flags: Flags, totalMs: number): Word[] {
  const out: Word[] = [];
  for (const w of words) {
    const text = w.text.trim();
    if (text === '') continue;
    const word: Word = { text };
    if (flags.include_timestamps) Object.assign(word, wordTimes(w, totalMs));
    if (flags.include_confidence) word.confidence = confidence(w.confidence);
    out.push(word);
  }
  return out;
}

const joinTexts = (texts: string[]) =>
  texts
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .join(' ');

/** The language with the most speech time; ties go to the one heard first. */
function dominantLanguage(segments: EngineSegment[], flags: Flags): string {
  const time = new Map<string, number>();
  for (const s of segments) time.set(s.language, (time.get(s.language) ?? 0) + Math.max(0, s.endMs - s.startMs));
  let best: string | undefined;
  let bestTime = -1;
  for (const [lang, t] of time) {
    if (t > bestTime) [best, bestTime] = [lang, t];
  }
  return best ?? flags.language?.[0] ?? FALLBACK_LANGUAGE;
}

/** Consecutive segments of one speaker in one language, not apart by more than MAX_MERGE_GAP_MS. */
function speakerTurns(segments: EngineSegment[]): EngineSegment[][] {
  const turns: EngineSegment[][] = [];
  let end = 0; // the current turn's latest end
  for (const s of segments) {
    const current = turns[turns.length - 1];
    const last = current?.[current.length - 1];
    if (current && last && last.speaker === s.speaker && last.language === s.language && s.startMs - end <= MAX_MERGE_GAP_MS) {
      current.push(s);
      end = Math.max(end, s.endMs);
    } else {
      turns.push([s]);
      end = s.endMs;
    }
  }
  return turns;
}

function shapeSegments(segments: EngineSegment[], flags: Flags, totalMs: number): Segment[] {
  const speakerIds = new Map<number, number>();
  return speakerTurns(segments).map((turn) => {
    const first = turn[0] as EngineSegment;
    if (!speakerIds.has(first.speaker)) speakerIds.set(first.speaker, speakerIds.size);
    const segment: Segment = { text: joinTexts(turn.map((s) => s.text)), speaker_id: speakerIds.get(first.speaker) as number };
    if (flags.include_language) segment.language = first.language;
    if (flags.include_timestamps) {
      const [start, end] = span(first.startMs, Math.max(...turn.map((s) => s.endMs)), totalMs);
      segment.start_ms = start;
      segment.duration_ms = end - start;
    }
    if (flags.include_words) segment.words = shapeWords(turn.flatMap((s) => s.words), flags, totalMs);
    return segment;
  });
}

export function shapeTranscript(result: EngineResult, params: Flags): Transcript {
  const totalMs = Math.max(0, Math.round(finite(result.durationMs, 'duration')));
  const spoken = result.segments.filter((s) => s.text.trim() !== '');
  const transcript: Transcript = { text: joinTexts(spoken.map((s) => s.text)) };
  if (params.include_language && !params.diarize) transcript.language = dominantLanguage(spoken, params);
  if (params.include_timestamps) {
    transcript.start_ms = 0;
    transcript.duration_ms = totalMs;
  }
  if (params.include_words && !params.diarize) {
    transcript.words = shapeWords(spoken.flatMap((s) => s.words), params, totalMs);
  }
  if (params.diarize) transcript.segments = shapeSegments(spoken, params, totalMs);
  return transcript;
}
