/**
 * Diarization with a pretrained segmentation model (the pyannote 3.x pipeline shape): the model gives
 * who-speaks-when for up to three local speakers in each sliding 10 s window, including overlap; our
 * own speaker embeddings link the local speakers across windows. The embeddings are the built-in
 * diarizer's (diarize.ts: 1.5 s pieces of Whisper-encoder features, clustered over the recording):
 * each local speaker goes to the clustered speaker that holds most of its frames, two local speakers
 * of one window to two different speakers. The windows are then stitched on one frame grid, where each
 * frame keeps as many speakers as the windows say talk there. Turns may overlap (two people at once).
 */
import type { SpeakerDiarizer } from './diarize';
import { activeCount, LOCAL_SPEAKERS, SEGMENT_FRAME_CENTER, SEGMENT_FRAME_SAMPLES, type SegmentationWindow } from './segmentation';
import { renumberTurns, type SpeakerTurn } from './turns';

export interface SegmentedOptions {
  /** Step between the 10 s windows (samples at 16 kHz). */
  hopSamples: number;
  /** A frame where two local speakers talk counts this much in a local speaker's vote (a clean frame counts 1). */
  overlapVote: number;
  /** Gaps shorter than this inside one speaker's activity are filled. */
  minGapMs: number;
  /**
   * 'segments': the stitched segmentation decides who speaks in every frame. 'overlay': the built-in
   * turns stay, and where the segmentation hears two people at once the second (the most active other
   * speaker there) is added; where it hears speech the built-in turns do not cover, its speakers are added.
   */
  mode: 'segments' | 'overlay';
}

/*
 * Chosen on ../shared/dev/diar + ../shared/eval/diar (bench/diarization.mjs --segmentation, pooled
 * DER c0.25, own VAD, auto count); bench/results/diarization-segmentation-2026-11-27.md has the sweeps.
 */
export const SEGMENTED_DEFAULTS: Readonly<SegmentedOptions> = {
  hopSamples: 40_000,
  overlapVote: 0.5,
  minGapMs: 0,
  mode: 'overlay',
};

export class SegmentedDiarizer {
  private readonly options: SegmentedOptions;

  /** `embeddings`: the built-in diarizer over the same recording, fed the same encoder windows. */
  constructor(
    private readonly embeddings: SpeakerDiarizer,
    private readonly windows: readonly SegmentationWindow[],
    private readonly totalSamples: number,
    options: Partial<SegmentedOptions> = {},
  ) {
    this.options = { ...SEGMENTED_DEFAULTS, ...options };
  }

  /** One encoder window's block-2 hidden states, for the embeddings (SpeakerDiarizer.addWindow). */
  addWindow(hidden: Float32Array, positions: number, startSample: number, endSample: number): void {
    this.embeddings.addWindow(hidden, positions, startSample, endSample);
  }

  /** Speaker turns (sorted by start; different speakers' turns may overlap), speakers 0-indexed by first appearance. */
  finish(maxSpeakers: number | null): SpeakerTurn[] {
    const clustered = this.embeddings.finish(maxSpeakers);
    const speakers = Math.max(0, ...clustered.map((t) => t.speaker + 1));
    if (speakers === 0) return [];
    const frames = Math.ceil(this.totalSamples / SEGMENT_FRAME_SAMPLES);
    // the clustered speaker at each global frame's centre (-1: none), and the nearest one for frames outside every turn
    const at = new Int8Array(frames).fill(-1);
    for (const t of clustered) {
      for (let g = Math.max(0, frameOf(t.startMs * 16)); g < Math.min(frames, frameOf(t.endMs * 16)); g++) at[g] = t.speaker;
    }
    const nearest = nearestFilled(at);

    const speakerOf = new Map<number, number>(); // window * LOCAL_SPEAKERS + local -> speaker
    this.windows.forEach((win, w) => {
      const offset = win.startSample / SEGMENT_FRAME_SAMPLES;
      const votes = Array.from({ length: LOCAL_SPEAKERS }, () => new Float64Array(speakers));
      const heard = new Float64Array(LOCAL_SPEAKERS);
      for (let f = 0; f < win.frames && offset + f < frames; f++) {
        const n = activeCount(win, f);
        if (n === 0) continue;
        const s = nearest[offset + f]!;
        for (let k = 0; k < LOCAL_SPEAKERS; k++) {
          if (!win.activity[f * LOCAL_SPEAKERS + k]) continue;
          const weight = n === 1 ? 1 : this.options.overlapVote;
          heard[k]! += 1;
          if (s >= 0) votes[k]![s]! += weight;
        }
      }
      const present = [0, 1, 2].filter((k) => heard[k]! > 0);
      const pick = bestAssignment(present.map((k) => [...votes[k]!]), speakers);
      present.forEach((k, i) => speakerOf.set(w * LOCAL_SPEAKERS + k, pick[i]!));
    });
    return this.stitch(speakerOf, speakers, this.options.mode === 'overlay' ? at : null);
  }

  /**
   * Global frames: each speaker's activity averaged over the windows covering the frame, and how many
   * speakers talk there (the windows' mean count, rounded); the frame keeps that many most active speakers.
   */
  private stitch(speakerOf: ReadonlyMap<number, number>, speakers: number, builtIn: Int8Array | null): SpeakerTurn[] {
    const frames = Math.ceil(this.totalSamples / SEGMENT_FRAME_SAMPLES);
    const activity = new Float32Array(frames * speakers);
    const count = new Float32Array(frames);
    const covered = new Float32Array(frames);
    const here = new Float32Array(speakers);
    this.windows.forEach((win, w) => {
      const offset = win.startSample / SEGMENT_FRAME_SAMPLES;
      for (let f = 0; f < win.frames; f++) {
        const g = offset + f;
        if (g >= frames) break;
        here.fill(0);
        for (let k = 0; k < LOCAL_SPEAKERS; k++) {
          const s = speakerOf.get(w * LOCAL_SPEAKERS + k);
          if (s !== undefined && win.activity[f * LOCAL_SPEAKERS + k]) here[s] = 1;
        }
        for (let s = 0; s < speakers; s++) activity[g * speakers + s]! += here[s]!;
        count[g]! += activeCount(win, f);
        covered[g]!++;
      }
    });
    const active = new Uint8Array(frames * speakers);
    const order = Array.from({ length: speakers }, (_, s) => s);
    for (let g = 0; g < frames; g++) {
      if (covered[g] === 0) continue;
      const n = Math.min(speakers, Math.round(count[g]! / covered[g]!));
      const own = builtIn?.[g] ?? -1;
      if (own >= 0) active[g * speakers + own] = 1;
      if (n === 0) continue;
      order.sort((a, b) => activity[g * speakers + b]! - activity[g * speakers + a]!);
      // overlay: the built-in speaker is the frame's first; the segmentation adds the rest
      let room = own >= 0 ? n - 1 : n;
      for (let i = 0; i < speakers && room > 0; i++) {
        const s = order[i]!;
        if (s === own || activity[g * speakers + s]! <= 0) continue;
        active[g * speakers + s] = 1;
        room--;
      }
    }
    const turns: SpeakerTurn[] = [];
    const gapFrames = Math.round((this.options.minGapMs * 16) / SEGMENT_FRAME_SAMPLES);
    const msOf = (g: number): number => Math.min(this.totalSamples, Math.max(0, g * SEGMENT_FRAME_SAMPLES + SEGMENT_FRAME_CENTER - SEGMENT_FRAME_SAMPLES / 2)) / 16;
    for (let s = 0; s < speakers; s++) {
      let start = -1;
      let lastOn = -Infinity;
      for (let g = 0; g < frames; g++) {
        if (active[g * speakers + s] !== 1) continue;
        if (start >= 0 && g - lastOn - 1 > gapFrames) {
          turns.push({ startMs: msOf(start), endMs: msOf(lastOn + 1), speaker: s });
          start = -1;
        }
        if (start < 0) start = g;
        lastOn = g;
      }
      if (start >= 0) turns.push({ startMs: msOf(start), endMs: msOf(lastOn + 1), speaker: s });
    }
    return renumberTurns(turns.filter((t) => t.endMs > t.startMs));
  }
}

/** The global frame whose centre is nearest to `sample`. */
function frameOf(sample: number): number {
  return Math.round((sample - SEGMENT_FRAME_CENTER) / SEGMENT_FRAME_SAMPLES);
}

/** Each -1 replaced by the nearest non-negative value (ties: the earlier); all -1 stays all -1. */
function nearestFilled(at: Int8Array): Int8Array {
  const out = at.slice();
  let last = -1;
  const before = new Int32Array(at.length);
  for (let g = 0; g < at.length; g++) {
    if (at[g]! >= 0) last = g;
    before[g] = last;
  }
  let next = -1;
  for (let g = at.length - 1; g >= 0; g--) {
    if (at[g]! >= 0) next = g;
    if (at[g]! >= 0) continue;
    const b = before[g]!;
    const pickBefore = b >= 0 && (next < 0 || g - b <= next - g);
    out[g] = pickBefore ? at[b]! : next >= 0 ? at[next]! : -1;
  }
  return out;
}

/** For each row (a local speaker's similarity to each speaker), a speaker, all distinct when there are enough, maximising the total. */
export function bestAssignment(scores: readonly number[][], speakers: number): number[] {
  const n = scores.length;
  if (speakers < n) return scores.map((row) => row.indexOf(Math.max(...row)));
  let best: number[] = [];
  let bestTotal = -Infinity;
  const pick: number[] = [];
  const used = new Set<number>();
  const walk = (i: number, total: number): void => {
    if (i === n) {
      if (total > bestTotal) [best, bestTotal] = [pick.slice(), total];
      return;
    }
    for (let s = 0; s < speakers; s++) {
      if (used.has(s)) continue;
      used.add(s);
      pick.push(s);
      walk(i + 1, total + scores[i]![s]!);
      pick.pop();
      used.delete(s);
    }
  };
  walk(0, 0);
  return best;
}
