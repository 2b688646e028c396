/**
 * Local speaker activity from a pretrained powerset segmentation model (pyannote segmentation-3.0
 * layout, supplied by the user: segmentation-model.ts loads it). The model sees 10 s windows and
 * labels every ~17 ms frame with one of 7 classes: nobody, one of three local speakers, or two of them
 * at once. "Local" means the labels are only consistent within a window; segmented-diarize.ts links
 * them across windows with our own speaker embeddings.
 */

/** The window the model was trained on: 10 s at 16 kHz. */
export const SEGMENT_WINDOW_SAMPLES = 160_000;
/** Frame shift of the model's output (its SincNet + pooling stride). */
export const SEGMENT_FRAME_SAMPLES = 270;
/** Frame i covers samples around start + i*270 + 495 (half the 991-sample receptive field). */
export const SEGMENT_FRAME_CENTER = 495;
export const LOCAL_SPEAKERS = 3;

/** The powerset classes in the model's output order: {}, {1}, {2}, {3}, {1,2}, {1,3}, {2,3}. */
const POWERSET: ReadonlyArray<readonly number[]> = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]];
export const POWERSET_CLASSES = POWERSET.length;

/** One window's hard local activity: `activity[f * LOCAL_SPEAKERS + k]` is 1 when local speaker k talks in frame f. */
export interface SegmentationWindow {
  startSample: number;
  frames: number;
  activity: Uint8Array;
}

/*
 * Window starts are multiples of the frame shift so every window's frames fall on one global grid
 * (frame g of the recording is frame g - start/270 of a window) and aggregation needs no resampling.
 */
/** Starts of the sliding windows: every `hopSamples` (rounded to whole frames) until the end is covered. */
export function windowStarts(totalSamples: number, hopSamples: number): number[] {
  const starts = [0];
  for (let s: number | null = 0; (s = nextWindowStart(s, totalSamples, hopSamples)) !== null; ) starts.push(s);
  return starts;
}

/**
 * The start after `previous` (windowStarts' rule: a later window exists while this one ends before the
 * recording does) once `heardSamples` of the recording have arrived; null when there is none: none at all
 * if the recording is complete, none known yet if more is coming.
 */
export function nextWindowStart(previous: number, heardSamples: number, hopSamples: number): number | null {
  const hop = Math.max(1, Math.round(hopSamples / SEGMENT_FRAME_SAMPLES)) * SEGMENT_FRAME_SAMPLES;
  return previous + SEGMENT_WINDOW_SAMPLES < heardSamples ? previous + hop : null;
}

/** The model's input for a window whose audio is `samples` (at most 10 s), zero-padded to 10 s. */
export function windowInput(samples: Float32Array): Float32Array {
  const out = new Float32Array(SEGMENT_WINDOW_SAMPLES);
  out.set(samples.subarray(0, SEGMENT_WINDOW_SAMPLES));
  return out;
}

/** Hard multilabel activity from the powerset log-probabilities `[frames × 7]`: the likeliest class per frame. */
export function powersetActivity(logProbs: Float32Array, frames: number): Uint8Array {
  const out = new Uint8Array(frames * LOCAL_SPEAKERS);
  for (let f = 0; f < frames; f++) {
    let best = 0;
    for (let c = 1; c < POWERSET_CLASSES; c++) if (logProbs[f * POWERSET_CLASSES + c]! > logProbs[f * POWERSET_CLASSES + best]!) best = c;
    for (const k of POWERSET[best]!) out[f * LOCAL_SPEAKERS + k] = 1;
  }
  return out;
}

/** How many local speakers are active in frame f of a window. */
export function activeCount(w: SegmentationWindow, f: number): number {
  const a = w.activity;
  const i = f * LOCAL_SPEAKERS;
  return a[i]! + a[i + 1]! + a[i + 2]!;
}

/** The window's frame nearest to `sample` (by frame centre), or -1 outside the window's 10 s. */
export function frameAt(w: SegmentationWindow, sample: number): number {
  if (sample < w.startSample || sample >= w.startSample + SEGMENT_WINDOW_SAMPLES) return -1;
  const f = Math.round((sample - w.startSample - SEGMENT_FRAME_CENTER) / SEGMENT_FRAME_SAMPLES);
  return Math.min(w.frames - 1, Math.max(0, f));
}
