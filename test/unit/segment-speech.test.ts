import { describe, expect, it } from 'vitest';
import {
  DECODING_WINDOW_DEFAULTS,
  decodingWindows,
  SPEECH_REGION_DEFAULTS,
  speechRegions,
  unheardRest,
  type DecodingWindow,
  type SpeechRegion,
} from '../../engine/vad/windows';

const FRAME = 512;
const SR = 16_000;
const MAX = 30 * SR;
/** No padding, so region edges can be checked to the frame. */
const BARE = { padBeforeMs: 0, padAfterMs: 0 };

/** Probabilities from runs of [value, frameCount]. */
function probsOf(...runs: Array<[number, number]>): Float32Array {
  const out: number[] = [];
  for (const [value, count] of runs) for (let i = 0; i < count; i++) out.push(value);
  return Float32Array.from(out);
}
const framesIn = (seconds: number): number => Math.round((seconds * SR) / FRAME);
const at = (frame: number): number => frame * FRAME;

/** The invariants every result of decodingWindows must satisfy. */
function expectWellFormed(windows: DecodingWindow[], regions: SpeechRegion[], max: number): void {
  let previousEnd = -1;
  for (const w of windows) {
    expect(w.endSample - w.startSample).toBeLessThanOrEqual(max);
    expect(w.endSample).toBeGreaterThan(w.startSample);
    expect(w.startSample).toBeGreaterThanOrEqual(previousEnd);
    expect(w.regions.length).toBeGreaterThan(0);
    expect(w.startSample).toBe(w.regions[0]!.startSample);
    expect(w.endSample).toBe(w.regions[w.regions.length - 1]!.endSample);
    previousEnd = w.endSample;
  }
  // The pieces, laid end to end, are exactly the input regions: nothing lost, nothing added.
  const pieces = windows.flatMap((w) => w.regions);
  const rejoined: SpeechRegion[] = [];
  for (const p of pieces) {
    const last = rejoined[rejoined.length - 1];
    if (last && last.endSample === p.startSample) last.endSample = p.endSample;
    else rejoined.push({ ...p });
  }
  expect(rejoined).toEqual(regions);
}

describe('speechRegions', () => {
  it('finds nothing in silence or in probabilities that never reach the onset', () => {
    expect(speechRegions(probsOf([0, 500]))).toEqual([]);
    expect(speechRegions(probsOf([0.45, 500]))).toEqual([]);
    expect(speechRegions(new Float32Array(0))).toEqual([]);
  });

  it('marks a burst of speech to the frame, then pads it by the defaults', () => {
    const probs = probsOf([0, 100], [0.9, 50], [0, 100]);
    expect(speechRegions(probs, BARE)).toEqual([{ startSample: at(100), endSample: at(150) }]);
    const { padBeforeMs, padAfterMs } = SPEECH_REGION_DEFAULTS;
    expect(speechRegions(probs)).toEqual([
      { startSample: at(100) - (padBeforeMs * SR) / 1000, endSample: at(150) + (padAfterMs * SR) / 1000 },
    ]);
  });

  it('clamps padding to the start of the audio and to totalSamples', () => {
    const probs = probsOf([0.9, 40], [0, 5], [0.9, 10]);
    const total = at(55) - 300;
    expect(speechRegions(probs, { padBeforeMs: 500, padAfterMs: 500, totalSamples: total })).toEqual([
      { startSample: 0, endSample: total },
    ]);
  });

  it('holds speech while probabilities stay between the thresholds (hysteresis)', () => {
    // 0.4 is below the onset but above the offset: it continues speech, never starts it.
    const probs = probsOf([0, 20], [0.4, 30], [0, 20], [0.9, 20], [0.4, 30], [0, 30]);
    expect(speechRegions(probs, { ...BARE, offsetThreshold: 0.35 })).toEqual([
      { startSample: at(70), endSample: at(120) },
    ]);
  });

  it('reaches back over the frames above the offset that lead into an onset', () => {
    const probs = probsOf([0, 20], [0.1, 10], [0.3, 15], [0.8, 20], [0, 30]);
    expect(speechRegions(probs, BARE)).toEqual([{ startSample: at(30), endSample: at(65) }]);
    // With a higher offset the 0.3 frames are not speech.
    expect(speechRegions(probs, { ...BARE, offsetThreshold: 0.35 })).toEqual([
      { startSample: at(45), endSample: at(65) },
    ]);
  });

  it('treats a dip as silence until the probability returns above the onset', () => {
    // After dropping below the offset, 0.4 (between thresholds) keeps counting as silence, so the
    // dip reaches minSilenceMs and the region ends where the dip began.
    const probs = probsOf([0.9, 20], [0.1, 3], [0.4, 20], [0, 5], [0.9, 20], [0, 30]);
    expect(speechRegions(probs, { ...BARE, offsetThreshold: 0.35 })).toEqual([
      { startSample: 0, endSample: at(20) },
      { startSample: at(48), endSample: at(68) },
    ]);
  });

  it('drops speech shorter than minSpeechMs', () => {
    // 250 ms is 7.8 frames: 7 frames are too short, 8 are enough.
    expect(speechRegions(probsOf([0, 30], [0.9, 7], [0, 30]), BARE)).toEqual([]);
    expect(speechRegions(probsOf([0, 30], [0.9, 8], [0, 30]), BARE)).toEqual([
      { startSample: at(30), endSample: at(38) },
    ]);
    expect(speechRegions(probsOf([0, 30], [0.9, 7], [0, 30]), { ...BARE, minSpeechMs: 200 })).toHaveLength(1);
  });

  it('splits only at silences of at least minSilenceMs', () => {
    // 300 ms is 9.4 frames: a 9-frame dip is bridged, a 10-frame dip splits.
    expect(speechRegions(probsOf([0.9, 30], [0, 9], [0.9, 30], [0, 40]), BARE)).toEqual([
      { startSample: 0, endSample: at(69) },
    ]);
    expect(speechRegions(probsOf([0.9, 30], [0, 10], [0.9, 30], [0, 40]), BARE)).toEqual([
      { startSample: 0, endSample: at(30) },
      { startSample: at(40), endSample: at(70) },
    ]);
  });

  it('ends speech that runs to the end of the audio at the end', () => {
    expect(speechRegions(probsOf([0, 10], [0.9, 30]), BARE)).toEqual([{ startSample: at(10), endSample: at(40) }]);
    expect(speechRegions(probsOf([0, 10], [0.9, 30], [0, 3]), BARE)).toEqual([
      { startSample: at(10), endSample: at(40) },
    ]);
  });

  it('merges regions whose padding meets', () => {
    const probs = probsOf([0, 100], [0.9, 30], [0, 20], [0.9, 30], [0, 100]);
    expect(speechRegions(probs, BARE)).toHaveLength(2);
    // 20 frames = 640 ms of silence; 400 + 400 ms of padding closes it.
    expect(speechRegions(probs, { padBeforeMs: 400, padAfterMs: 400 })).toEqual([
      { startSample: at(100) - 6400, endSample: at(180) + 6400 },
    ]);
    expect(speechRegions(probs, { padBeforeMs: 200, padAfterMs: 200 })).toHaveLength(2);
  });
});

describe('decodingWindows', () => {
  const silence = (frames: number): Array<[number, number]> => [[0, frames]];
  const speech = (frames: number): Array<[number, number]> => [[0.9, frames]];

  it('returns no window when there is no speech', () => {
    expect(decodingWindows([], probsOf([0, 1000]), at(1000))).toEqual([]);
  });

  it('puts regions that fit into one window spanning first start to last end', () => {
    const regions = [
      { startSample: 5 * SR, endSample: 8 * SR },
      { startSample: 10 * SR, endSample: 20 * SR },
    ];
    const windows = decodingWindows(regions, probsOf([0.9, framesIn(40)]), 40 * SR);
    expect(windows).toEqual([{ startSample: 5 * SR, endSample: 20 * SR, regions }]);
  });

  it('cuts between regions so that no window exceeds the maximum', () => {
    const regions = [
      { startSample: 0, endSample: 10 * SR },
      { startSample: 12 * SR, endSample: 22 * SR },
      { startSample: 24 * SR, endSample: 34 * SR },
      { startSample: 35 * SR, endSample: 40 * SR },
    ];
    const windows = decodingWindows(regions, probsOf([0.9, framesIn(40)]), 40 * SR);
    expect(windows.map((w) => [w.startSample / SR, w.endSample / SR])).toEqual([
      [0, 22],
      [24, 40],
    ]);
    expectWellFormed(windows, regions, MAX);
  });

  it('respects a configurable maximum', () => {
    const regions = [
      { startSample: 0, endSample: 4 * SR },
      { startSample: 5 * SR, endSample: 9 * SR },
      { startSample: 10 * SR, endSample: 14 * SR },
    ];
    const windows = decodingWindows(regions, probsOf([0.9, framesIn(14)]), 14 * SR, { maxWindowSamples: 10 * SR });
    expect(windows.map((w) => w.regions.length)).toEqual([2, 1]);
    expectWellFormed(windows, regions, 10 * SR);
  });

  it('starts a new window after a long silence even when the next region would fit', () => {
    const regions = [
      { startSample: 0, endSample: 5 * SR },
      { startSample: 5 * SR + DECODING_WINDOW_DEFAULTS.maxGapSamples + 1, endSample: 15 * SR },
    ];
    const probs = probsOf([0.9, framesIn(15)]);
    expect(decodingWindows(regions, probs, 15 * SR)).toHaveLength(2);
    expect(decodingWindows(regions, probs, 15 * SR, { maxGapSamples: 6 * SR })).toHaveLength(1);
  });

  it('keeps absolute offsets and skips the silence before, between and after', () => {
    const probs = probsOf(...silence(framesIn(100)), ...speech(framesIn(10)), ...silence(framesIn(60)), ...speech(framesIn(5)), ...silence(framesIn(30)));
    const regions = speechRegions(probs, BARE);
    const windows = decodingWindows(regions, probs, probs.length * FRAME);
    expect(windows).toHaveLength(2);
    expect(windows[0]!.startSample).toBe(at(framesIn(100)));
    expect(windows[1]!.endSample).toBe(at(framesIn(100) + framesIn(10) + framesIn(60) + framesIn(5)));
    expectWellFormed(windows, regions, MAX);
  });

  it('splits a region longer than the maximum at its pauses, not at arbitrary points', () => {
    // 70 s of speech with two 160 ms pauses at 24 s and 48 s.
    const pauseFrames = 5;
    const probs = probsOf(
      ...speech(framesIn(24)),
      [0.05, pauseFrames],
      ...speech(framesIn(24)),
      [0.05, pauseFrames],
      ...speech(framesIn(22)),
    );
    const total = probs.length * FRAME;
    const regions = [{ startSample: 0, endSample: total }];
    const windows = decodingWindows(regions, probs, total);
    expect(windows).toHaveLength(3);
    const cuts = windows.slice(1).map((w) => w.startSample);
    const firstPause = at(framesIn(24));
    const secondPause = at(framesIn(24) * 2 + pauseFrames);
    expect(cuts[0]).toBeGreaterThanOrEqual(firstPause);
    expect(cuts[0]).toBeLessThanOrEqual(firstPause + pauseFrames * FRAME);
    expect(cuts[1]).toBeGreaterThanOrEqual(secondPause);
    expect(cuts[1]).toBeLessThanOrEqual(secondPause + pauseFrames * FRAME);
    expectWellFormed(windows, regions, MAX);
  });

  it('prefers a short pause to a lower one-frame dip inside a word', () => {
    const probs = probsOf(
      ...speech(framesIn(20)),
      [0.1, 6], // a pause
      ...speech(framesIn(5)),
      [0.0, 1], // a one-frame dip: lower, but alone
      ...speech(framesIn(20)),
    );
    const total = probs.length * FRAME;
    const windows = decodingWindows([{ startSample: 0, endSample: total }], probs, total);
    expect(windows).toHaveLength(2);
    const pauseStart = at(framesIn(20));
    expect(windows[1]!.startSample).toBeGreaterThanOrEqual(pauseStart);
    expect(windows[1]!.startSample).toBeLessThanOrEqual(pauseStart + 6 * FRAME);
  });

  it('does not cut a long region early, even at a deeper pause', () => {
    // 45 s of speech with a silent pause at 5 s and a shallower one at 20 s: cutting at 5 s would
    // leave a 40 s remainder and three pieces where two suffice.
    const probs = probsOf(
      ...speech(framesIn(5)),
      [0, 6],
      ...speech(framesIn(15)),
      [0.2, 6],
      ...speech(framesIn(25)),
    );
    const total = probs.length * FRAME;
    const windows = decodingWindows([{ startSample: 0, endSample: total }], probs, total);
    expect(windows).toHaveLength(2);
    expect(windows[1]!.startSample).toBeGreaterThan(20 * SR);
  });

  it('takes one more window rather than cut through a word', () => {
    // 50 s with pauses at 5 s and 33 s only: a single cut would have to fall between 20 and 30 s,
    // inside speech; two cuts at the pauses are preferred.
    const probs = probsOf(...speech(framesIn(5)), [0, 6], ...speech(framesIn(28)), [0, 6], ...speech(framesIn(17)));
    const total = probs.length * FRAME;
    const regions = [{ startSample: 0, endSample: total }];
    const windows = decodingWindows(regions, probs, total);
    expect(windows).toHaveLength(3);
    for (const w of windows.slice(1)) expect(probs[Math.floor(w.startSample / FRAME)]).toBe(0);
    expectWellFormed(windows, regions, MAX);
    // When an extra window is priced higher than a bad cut, one cut through speech it is.
    expect(decodingWindows(regions, probs, total, { extraWindowCost: 2 })).toHaveLength(2);
  });

  it('leaves no sliver of padding as a piece of its own', () => {
    // A 30.5 s region that opens with 0.7 s of padding: the cheapest cut would be in the padding,
    // leaving a piece of silence for Whisper to hallucinate over; the cut must stay 2 s inside.
    const probs = probsOf([0, framesIn(0.7)], ...speech(framesIn(29.8)));
    const total = probs.length * FRAME;
    const region = [{ startSample: 0, endSample: total }];
    const windows = decodingWindows(region, probs, total);
    expect(windows).toHaveLength(2);
    expect(windows[1]!.startSample).toBeGreaterThanOrEqual(2 * SR);
    expect(total - windows[1]!.startSample).toBeGreaterThanOrEqual(2 * SR);
    const sliver = decodingWindows(region, probs, total, { minPieceSamples: 0 });
    expect(sliver[1]!.startSample).toBeLessThan(0.7 * SR);
  });

  it('cuts uniform speech at the maximum, leaving no piece too long', () => {
    const probs = probsOf(...speech(framesIn(95)));
    const total = probs.length * FRAME;
    const regions = [{ startSample: 0, endSample: total }];
    const windows = decodingWindows(regions, probs, total);
    expect(windows).toHaveLength(4);
    for (const w of windows.slice(0, 3)) expect(w.endSample - w.startSample).toBeGreaterThan(29 * SR);
    expectWellFormed(windows, regions, MAX);
  });

  it('sorts, clamps and merges regions given out of order or overlapping', () => {
    const probs = probsOf(...speech(framesIn(20)));
    const total = 20 * SR;
    const windows = decodingWindows(
      [
        { startSample: 12 * SR, endSample: 25 * SR },
        { startSample: 2 * SR, endSample: 6 * SR },
        { startSample: 5 * SR, endSample: 8 * SR },
        { startSample: -100, endSample: SR },
      ],
      probs,
      total,
    );
    expect(windows).toEqual([
      {
        startSample: 0,
        endSample: total,
        regions: [
          { startSample: 0, endSample: SR },
          { startSample: 2 * SR, endSample: 8 * SR },
          { startSample: 12 * SR, endSample: total },
        ],
      },
    ]);
  });

  it('keeps its invariants on random probabilities and limits', () => {
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 50; trial++) {
      // Runs of speech-like and silence-like frames of random lengths, over up to 5 minutes.
      const runs: Array<[number, number]> = [];
      const frames = Math.floor(random() * framesIn(300));
      for (let n = 0; n < frames; ) {
        const length = 1 + Math.floor(random() * 200);
        runs.push([random() < 0.5 ? random() * 0.3 : 0.5 + random() * 0.5, length]);
        n += length;
      }
      const probs = probsOf(...runs);
      const total = Math.max(0, probs.length * FRAME - Math.floor(random() * FRAME));
      const max = (5 + Math.floor(random() * 40)) * SR;
      const regions = speechRegions(probs, { totalSamples: total });
      for (const r of regions) {
        expect(r.startSample).toBeGreaterThanOrEqual(0);
        expect(r.endSample).toBeLessThanOrEqual(total);
      }
      const windows = decodingWindows(regions, probs, total, { maxWindowSamples: max });
      expectWellFormed(windows, regions, max);
    }
  });
});

describe('unheardRest', () => {
  // 10 s of speech, 2 s pause, 5 s of speech, 1 s of silence: one window over both regions
  const probs = probsOf([0.9, framesIn(10)], [0.1, framesIn(2)], [0.9, framesIn(5)], [0.1, framesIn(1)]);
  const regions = speechRegions(probs, BARE);
  const [window] = decodingWindows(regions, probs, probs.length * FRAME);

  it('gives the speech after the point a decoding stopped at as a window of its own', () => {
    expect(regions).toHaveLength(2);
    const rest = unheardRest(window!, 4 * SR, probs, 3 * SR)!;
    expect(rest.startSample).toBe(4 * SR);
    expect(rest.endSample).toBe(window!.endSample);
    expect(rest.regions).toEqual([{ startSample: 4 * SR, endSample: regions[0]!.endSample }, regions[1]]);
  });

  it('starts the rest at the next speech when the decoding stopped in a pause', () => {
    const rest = unheardRest(window!, at(framesIn(11)), probs, 3 * SR)!;
    expect(rest.startSample).toBe(regions[1]!.startSample);
    expect(rest.regions).toEqual([regions[1]]);
  });

  it('leaves less voiced speech than the minimum alone, counting voiced frames, not padding', () => {
    expect(unheardRest(window!, at(framesIn(11)), probs, 6 * SR)).toBeNull();
    expect(unheardRest(window!, window!.endSample, probs, 1)).toBeNull();
    // padding after the last region is not speech: a padded window's tail holds none
    const padded = decodingWindows(speechRegions(probs), probs, probs.length * FRAME)[0]!;
    expect(unheardRest(padded, at(framesIn(17)) + 1, probs, 1)).toBeNull();
  });
});
