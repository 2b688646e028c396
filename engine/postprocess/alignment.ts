/**
 * Token times from Whisper's cross-attention (the model's alignment heads) by dynamic time warping,
 * after OpenAI's `find_alignment`: per head, each frame is standardised across the tokens, the rows are
 * median-filtered along time, the heads are averaged, and DTW finds the monotonic path of least cost
 * through the negated matrix. A token starts at the frame where the path enters its row and ends where
 * the path enters the next row. Pure functions: no ORT.
 */

import { ENCODER_FRAME_MS } from '../whisper/features';

/** Median over a sliding window of odd `width` along `x`, edges reflected (as scipy/OpenAI pad them). */
export function medianFilter(x: Float32Array, width: number): Float32Array {
  const n = x.length;
  const half = width >> 1;
  if (width <= 1 || n <= half) return x.slice();
  const out = new Float32Array(n);
  const at = (i: number): number => x[i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i]!;
  // The window kept sorted as it slides: each step drops one value and inserts one, O(width). Sorting
  // every window instead dominated the alignment's time (bench/README.md, "Word alignment").
  const win = new Float32Array(width);
  for (let k = 0; k < width; k++) {
    const v = at(k - half);
    let j = k;
    for (; j > 0 && win[j - 1]! > v; j--) win[j] = win[j - 1]!;
    win[j] = v;
  }
  out[0] = win[half]!;
  for (let i = 1; i < n; i++) {
    const leaving = at(i - 1 - half);
    const entering = at(i + half);
    let j = 0;
    while (j < width - 1 && win[j] !== leaving) j++;
    if (entering >= leaving) for (; j < width - 1 && win[j + 1]! < entering; j++) win[j] = win[j + 1]!;
    else for (; j > 0 && win[j - 1]! > entering; j--) win[j] = win[j - 1]!;
    win[j] = entering;
    out[i] = win[half]!;
  }
  return out;
}

/**
 * Least-cost monotonic path through `cost` [rows × cols] (row-major) from (0,0) to (rows-1, cols-1),
 * with diagonal, down and right steps. Returns, for each row, the first column the path visits there.
 */
export function dtwRowEntries(cost: Float32Array, rows: number, cols: number): Int32Array {
  const W = cols + 1;
  const acc = new Float64Array((rows + 1) * W).fill(Infinity);
  // 0 = diagonal, 1 = from the row above, 2 = from the column to the left
  const trace = new Uint8Array((rows + 1) * W);
  acc[0] = 0;
  for (let j = 1; j <= cols; j++) {
    for (let i = 1; i <= rows; i++) {
      const c0 = acc[(i - 1) * W + j - 1]!;
      const c1 = acc[(i - 1) * W + j]!;
      const c2 = acc[i * W + j - 1]!;
      let c: number;
      let t: number;
      if (c0 < c1 && c0 < c2) [c, t] = [c0, 0];
      else if (c1 < c0 && c1 < c2) [c, t] = [c1, 1];
      else [c, t] = [c2, 2];
      acc[i * W + j] = cost[(i - 1) * cols + j - 1]! + c;
      trace[i * W + j] = t;
    }
  }
  const entries = new Int32Array(rows).fill(-1);
  let i = rows;
  let j = cols;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0) entries[i - 1] = j - 1; // walking backwards, the last write is the first visit
    const t = i === 0 ? 2 : j === 0 ? 1 : trace[i * W + j]!;
    if (t === 0) {
      i--;
      j--;
    } else if (t === 1) i--;
    else j--;
  }
  return entries;
}

/**
 * Start frame of each attention row along the DTW path. `rows[r]` is the decoder's attention when
 * predicting token r: the alignment heads' rows concatenated, `heads` × (encoder frames). Only the first
 * `audioFrames` frames (the real audio in the window) take part, so every time lies inside the audio.
 */
export function alignRows(rows: readonly Float32Array[], heads: number, audioFrames: number, medianWidth = 7): Int32Array {
  const n = rows.length;
  if (n === 0) return new Int32Array(0);
  const framesPerHead = rows[0]!.length / heads;
  const m = Math.max(1, Math.min(audioFrames, framesPerHead));
  const matrix = new Float32Array(n * m);
  const w = new Float32Array(n * m);
  for (let h = 0; h < heads; h++) {
    // Renormalising over the audio frames equals the softmax OpenAI takes over the trimmed window.
    for (let r = 0; r < n; r++) {
      const row = rows[r]!.subarray(h * framesPerHead, h * framesPerHead + m);
      let sum = 0;
      for (let f = 0; f < m; f++) sum += row[f]!;
      for (let f = 0; f < m; f++) w[r * m + f] = sum > 0 ? row[f]! / sum : 1 / m;
    }
    for (let f = 0; f < m; f++) {
      let mean = 0;
      for (let r = 0; r < n; r++) mean += w[r * m + f]!;
      mean /= n;
      let v = 0;
      for (let r = 0; r < n; r++) v += (w[r * m + f]! - mean) ** 2;
      const std = Math.sqrt(v / n) || 1;
      for (let r = 0; r < n; r++) w[r * m + f] = (w[r * m + f]! - mean) / std;
    }
    for (let r = 0; r < n; r++) {
      const filtered = medianFilter(w.subarray(r * m, (r + 1) * m), medianWidth);
      for (let f = 0; f < m; f++) matrix[r * m + f]! += filtered[f]! / heads;
    }
  }
  for (let k = 0; k < matrix.length; k++) matrix[k] = -matrix[k]!;
  return dtwRowEntries(matrix, n, m);
}

export interface Span {
  startMs: number;
  endMs: number;
}

/**
 * Makes spans (in order) monotonic, non-overlapping, inside [lo, hi] and at least `minMs` long
 * (less only when [lo, hi] cannot hold them all: then they share it equally).
 */
export function enforceSpans<T extends Span>(spans: readonly T[], lo: number, hi: number, minMs = ENCODER_FRAME_MS): T[] {
  const n = spans.length;
  if (n === 0) return [];
  const min = Math.min(minMs, (hi - lo) / n);
  const starts = spans.map((s) => Math.min(Math.max(s.startMs, lo), hi));
  const ends = spans.map((s) => Math.min(Math.max(s.endMs, lo), hi));
  // Forward: each span starts no earlier than the previous one ends and lasts at least `min`.
  for (let i = 0; i < n; i++) {
    if (i > 0) starts[i] = Math.max(starts[i]!, ends[i - 1]!);
    ends[i] = Math.max(ends[i]!, starts[i]! + min);
  }
  // Backward: pull spans that were pushed past `hi` back inside, keeping the minimum length.
  for (let i = n - 1; i >= 0; i--) {
    const limit = i === n - 1 ? hi : starts[i + 1]!;
    if (ends[i]! > limit) ends[i] = limit;
    if (starts[i]! > ends[i]! - min) starts[i] = ends[i]! - min;
  }
  return spans.map((s, i) => ({ ...s, startMs: starts[i]!, endMs: ends[i]! }));
}

/** Twice the median word length, at most 1.4 s: longer words are suspected of holding a pause. */
export function maxWordMs(words: readonly Span[]): number {
  const durations = words.map((w) => w.endMs - w.startMs).filter((d) => d > 0).sort((a, b) => a - b);
  if (durations.length === 0) return Infinity;
  return 2 * Math.min(700, durations[durations.length >> 1]!);
}

/**
 * Cuts the non-speech that DTW gave a long word (one over maxWordMs) at either edge: leading and
 * trailing VAD frames (`speech[k]` for [k*frameMs, (k+1)*frameMs)) below `threshold` are removed,
 * keeping at least `minMs`. Attention says little about where a word sits inside a pause; the VAD does.
 */
export function trimToSpeech<T extends Span>(words: readonly T[], speech: Float32Array, frameMs: number, threshold: number, minMs = ENCODER_FRAME_MS): T[] {
  const maxMs = maxWordMs(words);
  const quiet = (ms: number) => (speech[Math.floor(ms / frameMs)] ?? 0) < threshold;
  return words.map((w) => {
    if (w.endMs - w.startMs <= maxMs) return w;
    let { startMs, endMs } = w;
    while (endMs - startMs > minMs && quiet(startMs)) startMs = Math.min(endMs - minMs, (Math.floor(startMs / frameMs) + 1) * frameMs);
    while (endMs - startMs > minMs && quiet(endMs - 1)) endMs = Math.max(startMs + minMs, Math.floor((endMs - 1) / frameMs) * frameMs);
    return { ...w, startMs, endMs };
  });
}

/**
 * OpenAI's guard against words that absorb a pause: a word longer than maxWordMs that ends a sentence
 * or a segment is cut to that length from its start; the first word of a segment is cut from its end.
 */
export function capLongWords<T extends Span & { text: string }>(words: readonly T[], segmentStarts: ReadonlySet<number>): T[] {
  const maxMs = maxWordMs(words);
  return words.map((w, i) => {
    if (w.endMs - w.startMs <= maxMs) return w;
    const endsSentence = /[.!?。！？]$/.test(w.text) || i === words.length - 1 || segmentStarts.has(i + 1);
    if (segmentStarts.has(i) || i === 0) return { ...w, startMs: w.endMs - maxMs };
    if (endsSentence) return { ...w, endMs: w.startMs + maxMs };
    return w;
  });
}

/**
 * Start and end (in frames from the window start) of each generated token, from `attention` as
 * WhisperModel.generate returns it: row i is the attention when predicting token i, and a last extra row,
 * when the pass ended with end-of-text, closes the last token. Without it the last token runs to the end
 * of the audio (capLongWords trims it).
 */
export function tokenFrames(tokenCount: number, attention: readonly Float32Array[], encoderFrames: number, audioFrames: number): Array<[number, number]> {
  const rows = attention.slice(0, tokenCount + 1);
  if (rows.length === 0) return [];
  const heads = Math.round(rows[0]!.length / encoderFrames);
  const m = Math.max(1, Math.min(audioFrames, encoderFrames));
  const entries = alignRows(rows, heads, m);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < tokenCount; i++) {
    const start = entries[Math.min(i, entries.length - 1)]!;
    const end = i + 1 < entries.length ? entries[i + 1]! : m;
    out.push([start, Math.max(start, end)]);
  }
  return out;
}
