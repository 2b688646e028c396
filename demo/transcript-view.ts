/**
 * Renders a Transcript: speaker turns in distinct colours, times, words shaded by confidence.
 * Clicking a word or a segment's time plays the audio from there (through `onSeek`).
 */
import type { Segment, Transcript, Word } from '../src/api/transcript';
import { speakerName } from './export';

export type Seek = (ms: number) => void;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** `m:ss.s` (or `h:mm:ss.s`) for the transcript's time marks. */
export function shortClock(ms: number): string {
  const t = Math.max(0, ms) / 1000;
  const h = Math.floor(t / 3600);
  const m = Math.floor(t / 60) % 60;
  const s = (t % 60).toFixed(1).padStart(4, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Low confidence is shaded strongly, high confidence not at all. */
function shade(confidence: number): string {
  const alpha = Math.min(0.85, Math.max(0, (1 - confidence) * 1.2));
  return `rgba(245, 158, 11, ${alpha.toFixed(2)})`;
}

function renderWords(words: Word[], onSeek: Seek): HTMLElement {
  const p = el('p', 'words');
  words.forEach((w, i) => {
    if (i > 0) p.append(' ');
    const span = el('span', 'word', w.text);
    const notes: string[] = [];
    if (typeof w.start_ms === 'number') {
      const start = w.start_ms;
      span.dataset.startMs = String(start);
      span.classList.add('seekable');
      span.addEventListener('click', () => onSeek(start));
      notes.push(`at ${shortClock(start)}`);
    }
    if (typeof w.confidence === 'number') {
      span.dataset.confidence = String(w.confidence);
      span.style.backgroundColor = shade(w.confidence);
      notes.push(`confidence ${(w.confidence * 100).toFixed(0)}%`);
    }
    if (notes.length) span.title = notes.join(', ');
    p.append(span);
  });
  return p;
}

function timeButton(startMs: number, durationMs: number | undefined, onSeek: Seek): HTMLButtonElement {
  const end = durationMs !== undefined ? ` – ${shortClock(startMs + durationMs)}` : '';
  const b = el('button', 'time', `${shortClock(startMs)}${end}`);
  b.type = 'button';
  b.title = 'Play from here';
  b.setAttribute('aria-label', `Play from ${shortClock(startMs)}`);
  b.addEventListener('click', () => onSeek(startMs));
  return b;
}

function renderSegment(s: Segment, onSeek: Seek): HTMLElement {
  const block = el('article', `segment speaker-${s.speaker_id % 8}`);
  block.dataset.speaker = String(s.speaker_id);
  const head = el('header');
  head.append(el('span', 'speaker', speakerName(s.speaker_id)));
  if (typeof s.start_ms === 'number') head.append(timeButton(s.start_ms, s.duration_ms, onSeek));
  if (s.language) head.append(el('span', 'lang', s.language));
  block.append(head, s.words?.length ? renderWords(s.words, onSeek) : el('p', 'text', s.text));
  return block;
}

export function renderTranscript(target: HTMLElement, t: Transcript, onSeek: Seek): void {
  target.replaceChildren();
  if (t.segments) {
    if (!t.segments.length) target.append(el('p', 'muted', '(no speech found)'));
    for (const s of t.segments) target.append(renderSegment(s, onSeek));
    return;
  }
  const block = el('article', 'segment');
  const head = el('header');
  if (typeof t.start_ms === 'number') head.append(timeButton(t.start_ms, t.duration_ms, onSeek));
  if (t.language) head.append(el('span', 'lang', t.language));
  if (head.childElementCount) block.append(head);
  if (!t.text) block.append(el('p', 'muted', '(no speech found)'));
  else block.append(t.words?.length ? renderWords(t.words, onSeek) : el('p', 'text', t.text));
  target.append(block);
}
