/**
 * Speaker attribution of transcript spans: a word goes to the speaker holding most of its time, and a
 * segment is split wherever the speaker of its words changes.
 */
import type { EngineSegment, EngineToken, EngineWord } from '../../src/engine-types';
import type { SpeakerTurn } from './turns';

/**
 * The speaker with the most time inside [startMs, endMs); a span outside every turn (or of zero length)
 * goes to the turn nearest to its middle. `turns` must be sorted by start; -1 when there are none.
 */
export function speakerForSpan(turns: readonly SpeakerTurn[], startMs: number, endMs: number): number {
  if (turns.length === 0) return -1;
  const held = new Map<number, number>();
  for (const t of turns) {
    if (t.startMs >= endMs) break;
    const overlap = Math.min(endMs, t.endMs) - Math.max(startMs, t.startMs);
    if (overlap > 0) held.set(t.speaker, (held.get(t.speaker) ?? 0) + overlap);
  }
  let best = -1;
  let bestHeld = 0;
  for (const [speaker, ms] of held) if (ms > bestHeld) [best, bestHeld] = [speaker, ms];
  if (best >= 0) return best;
  const mid = (startMs + endMs) / 2;
  let nearestGap = Infinity;
  for (const t of turns) {
    const gap = mid < t.startMs ? t.startMs - mid : mid > t.endMs ? mid - t.endMs : 0;
    if (gap < nearestGap) [best, nearestGap] = [t.speaker, gap];
  }
  return best;
}

/** Joins word texts the way Whisper writes them: a space before every word except leading punctuation-only pieces. */
function joinWords(words: readonly EngineWord[]): string {
  return words
    .map((w) => w.text)
    .join(' ')
    .replace(/\s+([,.!?;:%)\]}'’"]+)(?=\s|$)/g, '$1')
    .trim();
}

/**
 * Splits each segment at speaker changes between its words and sets `speaker` on segments and words.
 * Tokens follow the word whose time span holds their middle. A segment without words takes the
 * speaker of its own span. Speaker ids are renumbered 0, 1, ... in order of first appearance.
 */
export function attributeSpeakers(segments: readonly EngineSegment[], turns: readonly SpeakerTurn[]): EngineSegment[] {
  const out: EngineSegment[] = [];
  for (const seg of segments) {
    if (seg.words.length === 0) {
      out.push({ ...seg, speaker: Math.max(0, speakerForSpan(turns, seg.startMs, seg.endMs)) });
      continue;
    }
    const words = seg.words.map((w) => ({ ...w, speaker: Math.max(0, speakerForSpan(turns, w.startMs, w.endMs)) }));
    const runs: EngineWord[][] = [];
    for (const w of words) {
      const last = runs[runs.length - 1];
      if (last && last[0]!.speaker === w.speaker) last.push(w);
      else runs.push([w]);
    }
    if (runs.length === 1) {
      out.push({ ...seg, speaker: words[0]!.speaker, words });
      continue;
    }
    runs.forEach((run, i) => {
      const startMs = i === 0 ? seg.startMs : run[0]!.startMs;
      const endMs = i === runs.length - 1 ? seg.endMs : runs[i + 1]![0]!.startMs;
      const tokens = seg.tokens.filter((t: EngineToken) => {
        const mid = (t.startMs + t.endMs) / 2;
        return (i === 0 || mid >= startMs) && (i === runs.length - 1 || mid < endMs);
      });
      out.push({ ...seg, startMs, endMs, text: joinWords(run), speaker: run[0]!.speaker, tokens, words: run });
    });
  }
  return renumberSegments(out);
}

function renumberSegments(segments: EngineSegment[]): EngineSegment[] {
  const names = new Map<number, number>();
  const name = (s: number): number => {
    if (!names.has(s)) names.set(s, names.size);
    return names.get(s)!;
  };
  return segments.map((seg) => ({ ...seg, speaker: name(seg.speaker), words: seg.words.map((w) => ({ ...w, speaker: name(w.speaker) })) }));
}
