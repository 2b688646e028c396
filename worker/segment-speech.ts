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
  /** Speech ends once probabilities stay below this for `minSilenceMs`. */
  offsetThreshold?: number;
  /** Shorter bursts are dropped. */
  minSpeechMs?: number;
  /** Shorter dips inside speech do not split it. */
  minSilenceMs?: number;
  /** Added before and after each region (regions that then touch are merged). */
  padMs?: number;
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
 * Defaults, and why:
 * - onset 0.5 / offset 0.35: Silero's own recommended threshold, with its usual 0.15 hysteresis
 *   gap so that a word trailing off below 0.5 stays inside the region.
 * - minSpeechMs 250: Silero VAD gives isolated frames of 0.5+ on noise bursts (clicks, breaths);
 *   no word Whisper could transcribe is shorter than a quarter second.
 * - minSilenceMs 300: the pause between sentences, not between words; regions split only there,
 *   so window cuts land between phrases.
 * - padMs 200: v5 turns on a frame or two late and off early on soft consonants (s, f, h);
 *   200 ms keeps onsets and trailing fricatives that Whisper needs to get the word right.
 */
const REGION_DEFAULTS: Required<Omit<SpeechRegionOptions, 'totalSamples'>> = {
  onsetThreshold: 0.5,
  offsetThreshold: 0.35,
  minSpeechMs: 250,
  minSilenceMs: 300,
  padMs: 200,
  sampleRate: 16_000,
  frameSamples: 512,
};

/*
 * - maxWindowSamples 30 s at 16 kHz: the encoder's fixed input length.
 * - maxGapSamples 5 s: Whisper tends to hallucinate ("Thank you.", repeated lines) over long
 *   silence inside a window, so a long pause ends the window even if the next speech would fit.
 */
const WINDOW_DEFAULTS: Required<DecodingWindowOptions> = {
  maxWindowSamples: 30 * 16_000,
  maxGapSamples: 5 * 16_000,
  frameSamples: 512,
};

/** Speech regions (sorted, disjoint) from per-frame probabilities, with hysteresis and padding. */
export function speechRegions(probs: Float32Array, opts: SpeechRegionOptions = {}): SpeechRegion[] {
  const o = { ...REGION_DEFAULTS, ...opts };
  const totalSamples = opts.totalSamples ?? probs.length * o.frameSamples;
  const msToFrames = (ms: number): number => Math.ceil((ms * o.sampleRate) / 1000 / o.frameSamples);
  const minSpeechFrames = msToFrames(o.minSpeechMs);
  const minSilenceFrames = Math.max(1, msToFrames(o.minSilenceMs));
  const pad = Math.round((o.padMs * o.sampleRate) / 1000);

  const frameRegions: Array<[number, number]> = [];
  let start = -1; // first frame of the current speech, -1 when outside speech
  let silenceStart = -1; // first frame of the current dip below the offset, -1 when none
  const close = (endFrame: number): void => {
    if (endFrame - start >= minSpeechFrames) frameRegions.push([start, endFrame]);
    start = -1;
    silenceStart = -1;
  };
  for (let f = 0; f < probs.length; f++) {
    const p = probs[f] ?? 0;
    if (start < 0) {
      if (p >= o.onsetThreshold) start = f;
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
    const startSample = Math.max(0, a * o.frameSamples - pad);
    const endSample = Math.min(totalSamples, b * o.frameSamples + pad);
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
  const o = { ...WINDOW_DEFAULTS, ...opts };
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

/**
 * Splits a region into pieces of at most `max` samples. Each cut goes to the middle of the
 * lowest-probability frame in the second half of the allowed span (a breath or the gap between
 * words), so pieces stay long and rarely end mid-word; ties go to the later frame.
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
      const p = probs[f] ?? 1;
      if (p <= best) {
        best = p;
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
