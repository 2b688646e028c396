/**
 * Speech regions and decoding windows from per-frame VAD probabilities (see worker/vad.ts).
 * Pure functions: no ORT, no I/O. All positions are absolute sample offsets in the recording.
 */

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
 * - minSilenceMs 300: the pause between phrases, not between words; regions split only there,
 *   so window cuts land between phrases.
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
  sampleRate: 16_000,
  frameSamples: 512,
};

/*
 * - maxWindowSamples 30 s at 16 kHz: the encoder's fixed input length.
 * - maxGapSamples 5 s: Whisper tends to hallucinate ("Thank you.", repeated lines) over long
 *   silence inside a window, so a long pause ends the window even if the next speech would fit.
 */
export const DECODING_WINDOW_DEFAULTS: Readonly<Required<DecodingWindowOptions>> = {
  maxWindowSamples: 30 * 16_000,
  maxGapSamples: 5 * 16_000,
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
 * Groups regions into windows of at most `maxWindowSamples`, cut only in the silence between
 * regions; a region longer than the maximum is first split at its least speech-like frame.
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
    for (const piece of splitLong(region, probs, o.maxWindowSamples, o.frameSamples)) pieces.push(piece);
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
 * Splits a region into pieces of at most `max` samples. Each cut goes to the middle of the frame
 * where the probability, averaged over 160 ms, is lowest within the second half of the allowed
 * span: a pause between words or phrases rather than a one-frame dip inside a word, and pieces
 * that stay long. Ties go to the later frame.
 */
function splitLong(region: SpeechRegion, probs: Float32Array, max: number, frameSamples: number): SpeechRegion[] {
  const pieces: SpeechRegion[] = [];
  let start = region.startSample;
  while (region.endSample - start > max) {
    const lo = start + Math.floor(max / 2);
    const hi = start + max; // a cut at hi keeps the piece exactly at the maximum
    let cut = hi;
    let best = Infinity;
    const firstFrame = Math.ceil((lo - frameSamples / 2) / frameSamples);
    const lastFrame = Math.floor((hi - frameSamples / 2) / frameSamples);
    for (let f = firstFrame; f <= lastFrame; f++) {
      const score = pauseScore(probs, f);
      if (score <= best) {
        best = score;
        cut = f * frameSamples + frameSamples / 2;
      }
    }
    cut = Math.min(hi, Math.max(lo, cut));
    pieces.push({ startSample: start, endSample: cut });
    start = cut;
  }
  pieces.push({ startSample: start, endSample: region.endSample });
  return pieces;
}

/** Mean probability around frame f; frames outside the array count as speech (never cut there). */
function pauseScore(probs: Float32Array, f: number): number {
  let sum = 0;
  for (let k = f - PAUSE_HALF_WIDTH; k <= f + PAUSE_HALF_WIDTH; k++) sum += probs[k] ?? 1;
  return sum / (2 * PAUSE_HALF_WIDTH + 1);
}
