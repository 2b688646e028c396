/**
 * Speech regions and decoding windows from per-frame VAD probabilities (see engine/vad/silero.ts).
 * Pure functions: no ORT, no I/O. All positions are absolute sample offsets in the recording.
 */
import { SAMPLE_RATE } from '../protocol';

export interface SpeechRegion {
  startSample: number;
  /** Exclusive. */
  endSample: number;
}

export interface DecodingWindow {
  startSample: number;
  /** Exclusive. */
  endSample: number;
  /** The speech regions inside this window, in order (pieces, where a long region was split). */
  regions: SpeechRegion[];
}

export interface SpeechRegionOptions {
  /** A frame at or above this probability starts speech. */
  onsetThreshold?: number;
  /**
   * Speech ends once probabilities stay below this for `minSilenceMs`; a region also reaches back
   * over the frames at or above it that lead up to the onset.
   */
  offsetThreshold?: number;
  /** Shorter bursts are dropped. */
  minSpeechMs?: number;
  /** Shorter dips inside speech do not split it. */
  minSilenceMs?: number;
  /** Added before each region (regions that then touch are merged). */
  padBeforeMs?: number;
  /** Added after each region. */
  padAfterMs?: number;
  sampleRate?: number;
  frameSamples?: number;
  /** Length of the audio; regions are clamped to it (default: probs.length * frameSamples). */
  totalSamples?: number;
}

export interface DecodingWindowOptions {
  /** Whisper's input is 30 s; no window is longer. */
  maxWindowSamples?: number;
  /** A silence longer than this between two regions starts a new window even when both would fit. */
  maxGapSamples?: number;
  /**
   * When a region longer than the maximum is split: the price of one more piece, in units of
   * mean speech probability at the cut (see splitLong).
   */
  extraWindowCost?: number;
  /** No piece of a split region is shorter than this (capped at a quarter of the maximum). */
  minPieceSamples?: number;
  frameSamples?: number;
}

/*
 * Defaults, and why (checked on the eval set: clean read speech, and a radio clip where speech
 * starts over jingles):
 * - onset 0.5: Silero's recommended threshold. Noise never holds it for long: white, pink, brown,
 *   blue and violet noise from -48 to -7 dBFS peak below 0.45 and stay below 0.12 99% of the time.
 * - offset 0.25: over a music bed, speech scores only 0.1-0.5, so Silero's usual 0.35 ends regions
 *   mid-sentence there; reaching back over frames >= 0.25 before the onset catches phrase starts
 *   that rise slowly (the radio clip's "Winamax..." scores 0.2-0.4 for a second before 0.5).
 * - minSpeechMs 250: drops isolated clicks and breaths; no transcribable word is shorter.
 * - minSilenceMs 300: the pause between phrases, not between words. With the padding below,
 *   regions stay apart only across pauses longer than 1.4 s; shorter pauses are left to
 *   decodingWindows, which cuts long regions at their lowest-probability stretches.
 * - padBeforeMs 1000: v5 turns on late when speech starts under music (0.1-0.9 s late at the
 *   radio clip's four such onsets even after reaching back, judged against Whisper's word
 *   times). Extra audio costs Whisper little; a clipped first word is lost for good.
 * - padAfterMs 400: trailing fricatives and falling intonation score low.
 */
export const SPEECH_REGION_DEFAULTS: Readonly<Required<Omit<SpeechRegionOptions, 'totalSamples'>>> = {
  onsetThreshold: 0.5,
  offsetThreshold: 0.25,
  minSpeechMs: 250,
  minSilenceMs: 300,
  padBeforeMs: 1000,
  padAfterMs: 400,
  sampleRate: SAMPLE_RATE,
  frameSamples: 512,
};

/*
 * - maxWindowSamples 30 s at 16 kHz: the encoder's fixed input length.
 * - maxGapSamples 5 s: Whisper tends to hallucinate ("Thank you.", repeated lines) over long
 *   silence inside a window, so a long pause ends the window even if the next speech would fit.
 * - extraWindowCost 0.5: an extra encoder pass is worth avoiding a cut through a word.
 * - minPieceSamples 2 s: region edges are padding and score as pauses; without a minimum a split
 *   would cut there and leave a sliver of silence (which Whisper fills with a hallucination) as
 *   a piece of its own.
 */
export const DECODING_WINDOW_DEFAULTS: Readonly<Required<DecodingWindowOptions>> = {
  maxWindowSamples: 30 * SAMPLE_RATE,
  maxGapSamples: 5 * SAMPLE_RATE,
  extraWindowCost: 0.5,
  minPieceSamples: 2 * SAMPLE_RATE,
  frameSamples: 512,
};

/** Speech regions (sorted, disjoint) from per-frame probabilities, with hysteresis and padding. */
export function speechRegions(probs: Float32Array, opts: SpeechRegionOptions = {}): SpeechRegion[] {
  const o = { ...SPEECH_REGION_DEFAULTS, ...opts };
  const totalSamples = opts.totalSamples ?? probs.length * o.frameSamples;
  const msToFrames = (ms: number): number => Math.ceil((ms * o.sampleRate) / 1000 / o.frameSamples);
  const msToSamples = (ms: number): number => Math.round((ms * o.sampleRate) / 1000);
  const minSpeechFrames = msToFrames(o.minSpeechMs);
  const minSilenceFrames = Math.max(1, msToFrames(o.minSilenceMs));
  const padBefore = msToSamples(o.padBeforeMs);
  const padAfter = msToSamples(o.padAfterMs);

  const frameRegions: Array<[number, number]> = [];
  let start = -1; // first frame of the current speech, -1 when outside speech
  let silenceStart = -1; // first frame of the current dip below the offset, -1 when none
  let lastEnd = 0; // no region reaches back before the end of the previous one
  const close = (endFrame: number): void => {
    if (endFrame - start >= minSpeechFrames) frameRegions.push([start, endFrame]);
    lastEnd = endFrame;
    start = -1;
    silenceStart = -1;
  };
  for (let f = 0; f < probs.length; f++) {
    const p = probs[f] ?? 0;
    if (start < 0) {
      if (p >= o.onsetThreshold) {
        start = f;
        while (start > lastEnd && (probs[start - 1] ?? 0) >= o.offsetThreshold) start--;
      }
      continue;
    }
    // Within a dip only a return above the onset resumes speech: values between the two
    // thresholds keep counting as silence, which stops a murmur from extending a region.
    if (p >= o.onsetThreshold) silenceStart = -1;
    else if (p < o.offsetThreshold && silenceStart < 0) silenceStart = f;
    if (silenceStart >= 0 && f + 1 - silenceStart >= minSilenceFrames) close(silenceStart);
  }
  if (start >= 0) close(silenceStart >= 0 ? silenceStart : probs.length);

  const regions: SpeechRegion[] = [];
  for (const [a, b] of frameRegions) {
    const startSample = Math.max(0, a * o.frameSamples - padBefore);
    const endSample = Math.min(totalSamples, b * o.frameSamples + padAfter);
    if (endSample <= startSample) continue;
    const last = regions[regions.length - 1];
    if (last && startSample <= last.endSample) last.endSample = Math.max(last.endSample, endSample);
    else regions.push({ startSample, endSample });
  }
  return regions;
}

/**
 * Audio a recording must have beyond a window's end before the window is settled: a window spans at most
 * 30 s (maxWindowSamples), so any speech that could still join it lies within 30 s of its start; 2 s more
 * covers the silence that closes a region (minSilenceMs) and its padding.
 */
export const SETTLE_SAMPLES = 32 * SAMPLE_RATE;
/** A region still open this close to the end of what was heard may grow: its cuts are not final. */
const OPEN_REGION_SAMPLES = 2 * SAMPLE_RATE;
/**
 * An open region is cut into windows anyway once it is this long (speech without a 1.4 s pause, as in
 * a lively meeting), so what waits stays bounded: its cuts are then chosen from the speech heard so far,
 * where the whole recording's might differ. Chosen by hand: two minutes, 7.7 MB of samples.
 */
const LONG_REGION_SAMPLES = 120 * SAMPLE_RATE;

/**
 * The decoding windows of a recording heard up to `heardSamples` (Silero probabilities `probs` over it)
 * that begin at or after `fromSample` (a region reaching back before it is cut there), and of those only
 * the ones more audio cannot change, unless the recording is `complete`; `next` is where the windows still
 * to come begin (the `fromSample` of the next call). Taken in steps from sample 0, the windows are exactly
 * those of decodingWindows(speechRegions(...)) over the whole recording, except in speech that runs on
 * for over two minutes without a pause of 1.4 s (LONG_REGION_SAMPLES), which is cut where heard.
 */
export function settledWindows(probs: Float32Array, heardSamples: number, fromSample: number, complete: boolean): { settled: DecodingWindow[]; next: number } {
  const regions = speechRegions(probs, { totalSamples: heardSamples })
    .filter((r) => r.endSample > fromSample)
    .map((r) => ({ startSample: Math.max(r.startSample, fromSample), endSample: r.endSample }));
  const windows = decodingWindows(regions, probs, heardSamples);
  if (complete) return { settled: windows, next: heardSamples };
  const last = regions[regions.length - 1];
  const open = last && last.endSample + OPEN_REGION_SAMPLES > heardSamples && heardSamples - last.startSample < LONG_REGION_SAMPLES ? last : null;
  const { maxGapSamples, maxWindowSamples } = DECODING_WINDOW_DEFAULTS;
  // a window is final once no audio to come can join it: nothing that could fit is still unheard, and the
  // open region, whose first cut may still move, is too far off for its first piece to join
  const final = (w: DecodingWindow) =>
    w.endSample + SETTLE_SAMPLES <= heardSamples &&
    (!open || w.endSample + maxGapSamples < open.startSample || w.startSample + maxWindowSamples <= open.startSample);
  let count = 0;
  while (count < windows.length && final(windows[count]!)) count++;
  const settled = windows.slice(0, count);
  const pending = windows[count];
  return { settled, next: pending ? pending.startSample : Math.max(fromSample, heardSamples - SETTLE_SAMPLES) };
}

/**
 * Groups regions into windows of at most `maxWindowSamples`, cut only in the silence between
 * regions; a region longer than the maximum is first split at its least speech-like frames.
 * Windows are sorted, disjoint, clamped to [0, totalSamples) and hold no leading/trailing silence.
 */
export function decodingWindows(
  regions: readonly SpeechRegion[],
  probs: Float32Array,
  totalSamples: number,
  opts: DecodingWindowOptions = {},
): DecodingWindow[] {
  const o = { ...DECODING_WINDOW_DEFAULTS, ...opts };
  if (!(o.maxWindowSamples >= o.frameSamples)) throw new RangeError('maxWindowSamples must be at least one frame');

  const pieces: SpeechRegion[] = [];
  for (const region of normalise(regions, totalSamples)) {
    for (const piece of splitLong(region, probs, o)) pieces.push(piece);
  }

  const windows: DecodingWindow[] = [];
  let current: DecodingWindow | undefined;
  for (const piece of pieces) {
    const fits =
      current !== undefined &&
      piece.endSample - current.startSample <= o.maxWindowSamples &&
      piece.startSample - current.endSample <= o.maxGapSamples;
    if (current && fits) {
      current.endSample = piece.endSample;
      current.regions.push(piece);
    } else {
      current = { startSample: piece.startSample, endSample: piece.endSample, regions: [piece] };
      windows.push(current);
    }
  }
  return windows;
}

/** Sorted, clamped, non-empty and merged copies of the caller's regions. */
function normalise(regions: readonly SpeechRegion[], totalSamples: number): SpeechRegion[] {
  const sorted = regions
    .map((r) => ({
      startSample: Math.max(0, Math.floor(r.startSample)),
      endSample: Math.min(totalSamples, Math.ceil(r.endSample)),
    }))
    .filter((r) => r.endSample > r.startSample)
    .sort((a, b) => a.startSample - b.startSample);
  const merged: SpeechRegion[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r.startSample <= last.endSample) last.endSample = Math.max(last.endSample, r.endSample);
    else merged.push(r);
  }
  return merged;
}

/** Frames on each side averaged when looking for a pause: 5 frames = 160 ms, a short pause. */
const PAUSE_HALF_WIDTH = 2;

/**
 * Splits a region longer than `max` into pieces of at most `max` samples, cutting in the middle
 * of frames. The cuts minimise (sum of the cut frames' pause scores) + extraCost * (number of
 * cuts): with the default cost of 0.5, one more piece is worth it only to trade a mid-word cut
 * (score ~0.9) for real pauses. Exact, by dynamic programming with a sliding-window minimum:
 * O(frames in the region). Among equal costs the earlier pieces are made as long as possible.
 */
function splitLong(
  region: SpeechRegion,
  probs: Float32Array,
  o: Required<DecodingWindowOptions>,
): SpeechRegion[] {
  const { maxWindowSamples: max, frameSamples } = o;
  const { startSample: start, endSample: end } = region;
  if (end - start <= max) return [region];

  // Candidate cuts: frame centres at least minPiece from both ends; node 0 is the region start,
  // the last node the region end.
  const minPiece = Math.min(o.minPieceSamples, Math.floor(max / 4));
  const firstFrame = Math.ceil((start + minPiece - frameSamples / 2) / frameSamples);
  const lastFrame = Math.floor((end - minPiece - frameSamples / 2) / frameSamples);
  const count = Math.max(0, lastFrame - firstFrame + 1);
  const positions = new Float64Array(count + 2);
  const cost = new Float64Array(count + 2).fill(Infinity);
  const previous = new Int32Array(count + 2).fill(-1);
  positions[0] = start;
  for (let k = 1; k <= count; k++) positions[k] = (firstFrame + k - 1) * frameSamples + frameSamples / 2;
  positions[count + 1] = end;
  cost[0] = 0;

  // Deque of node indices whose costs increase from front to back; equal costs keep the later node.
  const deque = new Int32Array(count + 2);
  let head = 0;
  let tail = 0;
  deque[tail++] = 0;
  for (let j = 1; j <= count + 1; j++) {
    const pos = positions[j]!;
    while (head < tail && pos - positions[deque[head]!]! > max) head++;
    if (head < tail) {
      const from = deque[head]!;
      const own = j === count + 1 ? 0 : pauseScore(probs, firstFrame + j - 1) + o.extraWindowCost;
      cost[j] = cost[from]! + own;
      previous[j] = from;
    }
    if (cost[j] === Infinity) continue;
    while (head < tail && cost[deque[tail - 1]!]! >= cost[j]!) tail--;
    deque[tail++] = j;
  }
  if (previous[count + 1]! < 0) return hardCuts(region, max); // unreachable while max >= one frame

  const cuts: number[] = [];
  for (let j = previous[count + 1]!; j > 0; j = previous[j]!) cuts.push(positions[j]!);
  cuts.reverse();
  const pieces: SpeechRegion[] = [];
  let from = start;
  for (const cut of cuts) {
    pieces.push({ startSample: from, endSample: cut });
    from = cut;
  }
  pieces.push({ startSample: from, endSample: end });
  return pieces;
}

function hardCuts(region: SpeechRegion, max: number): SpeechRegion[] {
  const pieces: SpeechRegion[] = [];
  for (let from = region.startSample; from < region.endSample; from += max) {
    pieces.push({ startSample: from, endSample: Math.min(region.endSample, from + max) });
  }
  return pieces;
}

/** Mean probability around frame f; frames outside the array count as speech (never cut there). */
function pauseScore(probs: Float32Array, f: number): number {
  let sum = 0;
  for (let k = f - PAUSE_HALF_WIDTH; k <= f + PAUSE_HALF_WIDTH; k++) sum += probs[k] ?? 1;
  return sum / (2 * PAUSE_HALF_WIDTH + 1);
}

/**
 * What a decoding of `window` that stopped at `fromSample` left unheard: the window's speech after that
 * point as a window of its own, when the VAD hears at least `minVoicedSamples` of it (frames at or above
 * the onset threshold, so padding and low-probability tails do not count); null otherwise.
 */
export function unheardRest(
  window: DecodingWindow,
  fromSample: number,
  probs: Float32Array,
  minVoicedSamples: number,
  { frameSamples, onsetThreshold }: Pick<typeof SPEECH_REGION_DEFAULTS, 'frameSamples' | 'onsetThreshold'> = SPEECH_REGION_DEFAULTS,
): DecodingWindow | null {
  const regions = window.regions
    .filter((r) => r.endSample > fromSample)
    .map((r) => ({ startSample: Math.max(r.startSample, fromSample), endSample: r.endSample }));
  if (regions.length === 0) return null;
  let voiced = 0;
  for (const r of regions) {
    for (let f = Math.ceil(r.startSample / frameSamples); (f + 1) * frameSamples <= r.endSample; f++) {
      if ((probs[f] ?? 0) >= onsetThreshold) voiced += frameSamples;
    }
  }
  if (voiced < minVoicedSamples) return null;
  return { startSample: regions[0]!.startSample, endSample: window.endSample, regions };
}

/**
 * The parts of `window` outside every span of `covered` (sorted, disjoint) that hold at least `minSpeech`
 * samples of its speech regions, each trimmed to its speech: windows of speech another windowing left out.
 */
export function uncoveredWindows(window: DecodingWindow, covered: readonly SpeechRegion[], minSpeech: number): DecodingWindow[] {
  const gaps: SpeechRegion[] = [];
  let at = window.startSample;
  for (const c of covered) {
    if (c.endSample <= at) continue;
    if (c.startSample >= window.endSample) break;
    if (c.startSample > at) gaps.push({ startSample: at, endSample: c.startSample });
    at = c.endSample;
  }
  if (at < window.endSample) gaps.push({ startSample: at, endSample: window.endSample });
  const found: DecodingWindow[] = [];
  for (const gap of gaps) {
    const regions = window.regions
      .map((r) => ({ startSample: Math.max(r.startSample, gap.startSample), endSample: Math.min(r.endSample, gap.endSample) }))
      .filter((r) => r.endSample > r.startSample);
    const speech = regions.reduce((sum, r) => sum + r.endSample - r.startSample, 0);
    if (speech >= minSpeech) found.push({ startSample: regions[0]!.startSample, endSample: regions[regions.length - 1]!.endSample, regions });
  }
  return found;
}
