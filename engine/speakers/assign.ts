/**
 * Speaker attribution of transcript spans: a word goes to the speaker holding most of its time, and a
 * segment is split wherever the speaker turn of its words changes. The split segments take their times
 * from the diarizer's turns, not from Whisper: a turn's first piece of text starts where the turn starts,
 * its last piece ends where the turn ends, and pieces inside a turn meet at the first word of the next
 * piece. Whisper's segment times miss speech and DTW word times drift; the turns are what the diarizer
 * measured as speech of one speaker (bench/results/diarization-2026-11-21.md, "API segments").
 */
import type { EngineSegment, EngineToken, EngineWord } from '../protocol';
import type { SpeakerTurn } from './turns';

/**
 * The speaker with the most time inside [startMs, endMs); a span outside every turn (or of zero length)
 * goes to the turn nearest to its middle. `turns` must be sorted by start; -1 when there are none.
 */
export function speakerForSpan(turns: readonly SpeakerTurn[], startMs: number, endMs: number): number {
  const i = turnForSpan(turns, startMs, endMs);
  return i < 0 ? -1 : turns[i]!.speaker;
}

/**
 * Index of the turn a span belongs to: among turns of `speaker` (any speaker when omitted), the one
 * whose speaker holds most of the span's time; of that speaker's turns the one overlapping the span
 * most, else the one nearest to the span's middle. -1 when there is none.
 */
export function turnForSpan(turns: readonly SpeakerTurn[], startMs: number, endMs: number, speaker?: number): number {
  const held = new Map<number, number>();
  const mostOf = new Map<number, [number, number]>(); // speaker -> [turn index, overlap]
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i]!;
    if (t.startMs >= endMs) break;
    if (speaker !== undefined && t.speaker !== speaker) continue;
    const overlap = Math.min(endMs, t.endMs) - Math.max(startMs, t.startMs);
    if (overlap <= 0) continue;
    held.set(t.speaker, (held.get(t.speaker) ?? 0) + overlap);
    if (overlap > (mostOf.get(t.speaker)?.[1] ?? 0)) mostOf.set(t.speaker, [i, overlap]);
  }
  let best = -1;
  let bestHeld = 0;
  for (const [s, ms] of held) if (ms > bestHeld) [best, bestHeld] = [mostOf.get(s)![0], ms];
  if (best >= 0) return best;
  const mid = (startMs + endMs) / 2;
  let nearestGap = Infinity;
  turns.forEach((t, i) => {
    if (speaker !== undefined && t.speaker !== speaker) return;
    const gap = mid < t.startMs ? t.startMs - mid : mid > t.endMs ? mid - t.endMs : 0;
    if (gap < nearestGap) [best, nearestGap] = [i, gap];
  });
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

/** A run of consecutive words of one segment in one turn. */
interface Run {
  seg: EngineSegment;
  words: EngineWord[];
  turn: number;
  /** Index of the run within its segment, and the segment's run count. */
  part: number;
  parts: number;
}

/**
 * Splits each segment where the speaker turn of its words changes, sets `speaker` on segments and
 * words, and times the pieces by the turns (see the file comment). Tokens follow the word whose time
 * span holds their middle. A segment without words takes the speaker of its own span and keeps its
 * times. Speaker ids are renumbered 0, 1, ... in order of first appearance. `turns` sorted by start.
 */
export function attributeSpeakers(segments: readonly EngineSegment[], turns: readonly SpeakerTurn[], options: { overlapping?: boolean } = {}): EngineSegment[] {
  // 1. words to turns, runs of one turn within a segment
  const items: Array<Run | EngineSegment> = [];
  for (const seg of segments) {
    if (seg.words.length === 0 || turns.length === 0) {
      items.push({ ...seg, speaker: Math.max(0, speakerForSpan(turns, seg.startMs, seg.endMs)) });
      continue;
    }
    const runs: Run[] = [];
    for (const w of seg.words) {
      const turn = turnForSpan(turns, w.startMs, w.endMs);
      const word = { ...w, speaker: turns[turn]!.speaker };
      const last = runs[runs.length - 1];
      if (last && last.turn === turn) last.words.push(word);
      else runs.push({ seg, words: [word], turn, part: runs.length, parts: 0 });
    }
    for (const r of runs) r.parts = runs.length;
    items.push(...runs);
  }
  // 2. times from the turns
  const firstRun = new Map<number, number>();
  const lastRun = new Map<number, number>();
  items.forEach((item, k) => {
    if (!('turn' in item)) return;
    if (!firstRun.has(item.turn)) firstRun.set(item.turn, k);
    lastRun.set(item.turn, k);
  });
  const out: EngineSegment[] = [];
  items.forEach((item, k) => {
    if (!('turn' in item)) {
      out.push(item);
      return;
    }
    const t = turns[item.turn]!;
    const prev = items[k - 1];
    const next = items[k + 1];
    const sameTurnBefore = prev !== undefined && 'turn' in prev && prev.turn === item.turn;
    const sameTurnAfter = next !== undefined && 'turn' in next && next.turn === item.turn;
    const clamp = (ms: number) => Math.min(Math.max(ms, t.startMs), t.endMs);
    let startMs = sameTurnBefore ? clamp(item.words[0]!.startMs) : t.startMs;
    let endMs = sameTurnAfter ? clamp(next.words[0]!.startMs) : t.endMs;
    // Overlapping turns (segmented-diarize.ts): another speaker's words inside this turn cut it into
    // runs; only the turn's first run starts at its start and only its last ends at its end.
    if (options.overlapping) {
      if (!sameTurnBefore && firstRun.get(item.turn)! < k) startMs = clamp(item.words[0]!.startMs);
      if (!sameTurnAfter && lastRun.get(item.turn)! > k) endMs = clamp(item.words[item.words.length - 1]!.endMs);
    }
    if (!(endMs > startMs)) [startMs, endMs] = [item.words[0]!.startMs, item.words[item.words.length - 1]!.endMs];
    // tokens by the words' own times, so the split does not depend on the turn times
    const from = item.part === 0 ? -Infinity : item.words[0]!.startMs;
    const nextRunStart = item.part === item.parts - 1 ? Infinity : (items[k + 1] as Run).words[0]!.startMs;
    const tokens = item.parts === 1 ? item.seg.tokens : item.seg.tokens.filter((tk: EngineToken) => {
      const mid = (tk.startMs + tk.endMs) / 2;
      return mid >= from && mid < nextRunStart;
    });
    const text = item.parts === 1 ? item.seg.text : joinWords(item.words);
    out.push({ ...item.seg, startMs, endMs, text, speaker: t.speaker, tokens, words: item.words });
  });
  // 3. starts never go back in time (a word's DTW time may jitter across a turn edge)
  for (let i = 1; i < out.length; i++) {
    const s = out[i]!;
    const p = out[i - 1]!;
    if (s.startMs < p.startMs) out[i] = { ...s, startMs: p.startMs, endMs: Math.max(s.endMs, p.startMs) };
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
