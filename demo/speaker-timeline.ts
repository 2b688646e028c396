/**
 * The speaker timeline under the player: one lane per speaker, a bar for each of their segments,
 * placed by time across the recording. Clicking a bar plays from its start; clicking elsewhere in a
 * lane plays from that point. People judge speaker turns by looking, not by reading times.
 */
import type { Segment } from '../src/api/transcript';
import { speakerName } from './export';
import { shortClock, type Seek } from './transcript-view';

export interface TimelineBar {
  startMs: number;
  endMs: number;
  /** Position and width as percentages of the recording's length. */
  left: number;
  width: number;
}

export interface TimelineLane {
  speaker: number;
  bars: TimelineBar[];
}

/**
 * Lanes in order of speaker id, bars from the segments that carry times; `totalMs` is the recording's
 * length (segments past it widen the scale). Empty when the transcript has no timed speaker segments.
 */
export function timelineLanes(segments: readonly Segment[], totalMs: number): TimelineLane[] {
  const timed = segments.filter((s) => typeof s.start_ms === 'number' && typeof s.duration_ms === 'number');
  if (timed.length === 0) return [];
  const span = Math.max(totalMs, ...timed.map((s) => s.start_ms! + s.duration_ms!));
  if (!(span > 0)) return [];
  const lanes = new Map<number, TimelineBar[]>();
  for (const s of timed) {
    const startMs = s.start_ms!;
    const endMs = startMs + s.duration_ms!;
    const bar = { startMs, endMs, left: (100 * startMs) / span, width: (100 * (endMs - startMs)) / span };
    lanes.set(s.speaker_id, [...(lanes.get(s.speaker_id) ?? []), bar]);
  }
  return [...lanes.entries()].sort((a, b) => a[0] - b[0]).map(([speaker, bars]) => ({ speaker, bars }));
}

/** Draws the lanes into `target` (hidden when there are none). */
export function renderSpeakerTimeline(target: HTMLElement, segments: readonly Segment[] | undefined, totalMs: number, onSeek: Seek): void {
  const lanes = timelineLanes(segments ?? [], totalMs);
  target.replaceChildren();
  target.hidden = lanes.length === 0;
  const span = Math.max(totalMs, ...lanes.flatMap((l) => l.bars.map((b) => b.endMs)));
  for (const lane of lanes) {
    const row = document.createElement('div');
    row.className = `lane speaker-${lane.speaker % 8}`;
    const name = document.createElement('span');
    name.className = 'speaker';
    name.textContent = speakerName(lane.speaker);
    const track = document.createElement('div');
    track.className = 'track';
    track.title = `${speakerName(lane.speaker)}: click to play from that point`;
    track.addEventListener('click', (e) => {
      const box = track.getBoundingClientRect();
      if (box.width > 0) onSeek(Math.round((span * (e.clientX - box.left)) / box.width));
    });
    for (const b of lane.bars) {
      const bar = document.createElement('button');
      bar.type = 'button';
      bar.className = 'bar';
      bar.style.left = `${b.left}%`;
      bar.style.width = `${Math.max(b.width, 0.3)}%`;
      bar.setAttribute('aria-label', `${speakerName(lane.speaker)}, ${shortClock(b.startMs)} to ${shortClock(b.endMs)}: play from here`);
      bar.addEventListener('click', (e) => {
        e.stopPropagation();
        onSeek(b.startMs);
      });
      track.append(bar);
    }
    row.append(name, track);
    target.append(row);
  }
}
