import { describe, expect, it } from 'vitest';
import { RollingAudio } from '../../engine/input/rolling-audio';
import { decodingWindows, SETTLE_SAMPLES, settledWindows, speechRegions, uncoveredWindows, type DecodingWindow } from '../../engine/vad/windows';

const FRAME = 512;
const SR = 16_000;

/**
 * A seeded stream of speech-like probabilities: bursts of speech of `burst` frames at most (with dips)
 * between pauses of `pauseFrames()` frames.
 */
function probsWithPauses(seconds: number, seed: number, pauseFrames: () => number, burst = 600): Float32Array {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out = new Float32Array(Math.round((seconds * SR) / FRAME));
  for (let f = 0; f < out.length; ) {
    const speech = 20 + Math.floor(rand() * burst); // from 0.6 s, by default to 19.8 s
    for (let k = 0; k < speech && f < out.length; k++, f++) out[f] = rand() < 0.08 ? 0.1 + 0.3 * rand() : 0.6 + 0.4 * rand();
    const pause = pauseFrames();
    for (let k = 0; k < pause && f < out.length; k++, f++) out[f] = 0.05 * rand();
  }
  return out;
}

/** The windows of a recording taken block by block as it arrives, as the engine does for a stream. */
function inSteps(probs: Float32Array, blockFrames: number): DecodingWindow[] {
  const windows: DecodingWindow[] = [];
  let from = 0;
  for (let heard = blockFrames; heard < probs.length; heard += blockFrames) {
    const { settled, next } = settledWindows(probs.subarray(0, heard), heard * FRAME, from, false);
    for (const w of settled) expect(w.startSample).toBeGreaterThanOrEqual(from);
    windows.push(...settled);
    expect(next).toBeGreaterThanOrEqual(windows.at(-1)?.endSample ?? 0);
    expect(next).toBeLessThanOrEqual(heard * FRAME);
    from = next;
  }
  windows.push(...settledWindows(probs, probs.length * FRAME, from, true).settled);
  return windows;
}

describe('settledWindows: a recording windowed as it arrives', () => {
  it('gives exactly the whole recording’s windows when its speech pauses at times (regions under two minutes)', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      let n = 0;
      // mostly short pauses (which windows pack across), every fourth one long enough to end a window
      const probs = probsWithPauses(20 * 60, seed, () => (++n % 4 === 0 ? 200 : 15 + (n % 3) * 10));
      const whole = decodingWindows(speechRegions(probs, { totalSamples: probs.length * FRAME }), probs, probs.length * FRAME);
      expect(whole.length).toBeGreaterThan(30);
      for (const block of [Math.round((90 * SR) / FRAME), Math.round((45 * SR) / FRAME), 3000]) {
        expect(inSteps(probs, block)).toEqual(whole);
      }
    }
  });

  it('covers all the speech in windows of at most 30 s when it never pauses for long', () => {
    const probs = probsWithPauses(10 * 60, 7, () => 12, 1200); // 0.4 s pauses: one region for the whole recording
    const total = probs.length * FRAME;
    const regions = speechRegions(probs, { totalSamples: total });
    const windows = inSteps(probs, Math.round((90 * SR) / FRAME));
    for (const [i, w] of windows.entries()) {
      expect(w.endSample - w.startSample).toBeLessThanOrEqual(30 * SR);
      if (i > 0) expect(w.startSample).toBeGreaterThanOrEqual(windows[i - 1]!.endSample);
    }
    const covered = (lo: number, hi: number) => windows.reduce((n, w) => n + Math.max(0, Math.min(hi, w.endSample) - Math.max(lo, w.startSample)), 0);
    for (const r of regions) expect(covered(r.startSample, r.endSample)).toBe(r.endSample - r.startSample);
  });

  it('holds back every window that audio still to come could change', () => {
    const probs = probsWithPauses(5 * 60, 3, () => 200);
    const heard = Math.round((200 * SR) / FRAME);
    const { settled, next } = settledWindows(probs.subarray(0, heard), heard * FRAME, 0, false);
    for (const w of settled) expect(w.endSample + SETTLE_SAMPLES).toBeLessThanOrEqual(heard * FRAME);
    const whole = decodingWindows(speechRegions(probs, { totalSamples: probs.length * FRAME }), probs, probs.length * FRAME);
    expect(settled.length).toBeGreaterThan(2);
    expect(whole.slice(0, settled.length)).toEqual(settled);
    expect(whole[settled.length]!.startSample).toBeGreaterThanOrEqual(next);
  });
});

describe('RollingAudio', () => {
  it('reads by absolute position across appends and drops, and refuses dropped samples', () => {
    const audio = new RollingAudio();
    const ramp = (from: number, n: number) => Float32Array.from({ length: n }, (_, i) => from + i);
    audio.append(ramp(0, 1000));
    for (let at = 1000; at < 50_000; at += 777) {
      audio.append(ramp(at, 777));
      if (at % 3 === 0) audio.dropBefore(at - 2000);
    }
    const end = audio.end;
    expect(end).toBe(1000 + Math.ceil(49_000 / 777) * 777);
    const tail = audio.samples(end - 1500, end);
    expect(Array.from(tail)).toEqual(Array.from(ramp(end - 1500, 1500)));
    audio.dropBefore(end - 100);
    expect(audio.start).toBe(end - 100);
    expect(() => audio.samples(end - 101, end)).toThrow(/already dropped/);
    expect(Array.from(audio.samples(end - 100, end + 50))).toEqual(Array.from(ramp(end - 100, 100)));
  });

  it('keeps a whole recording handed over at once as the array it came in, unchanged by drops', () => {
    const whole = Float32Array.from({ length: 10_000 }, (_, i) => i);
    const audio = new RollingAudio();
    audio.append(whole);
    expect(audio.samples(0, 10).buffer).toBe(whole.buffer);
    audio.dropBefore(5000);
    audio.append(new Float32Array([1, 2, 3]));
    expect(whole[0]).toBe(0);
    expect(audio.samples(9998, 10_003)).toEqual(Float32Array.from([9998, 9999, 1, 2, 3]));
  });
});

describe('uncoveredWindows: the speech of a window that other windows left out', () => {
  const s = (seconds: number) => seconds * SR;
  const window: DecodingWindow = {
    startSample: s(0),
    endSample: s(10),
    regions: [
      { startSample: s(0), endSample: s(3) },
      { startSample: s(4), endSample: s(6) },
      { startSample: s(8), endSample: s(10) },
    ],
  };

  it('gives the whole window when nothing covers it, and nothing when all of it is covered', () => {
    expect(uncoveredWindows(window, [], s(0.5))).toEqual([window]);
    expect(uncoveredWindows(window, [{ startSample: s(-1), endSample: s(11) }], s(0.5))).toEqual([]);
  });

  it('trims each gap between covered spans to its speech and drops gaps with too little of it', () => {
    const covered = [
      { startSample: s(-5), endSample: s(0.2) }, // only 0.2 s of the first region is covered
      { startSample: s(2), endSample: s(5.8) },
      { startSample: s(8.2), endSample: s(20) }, // leaves 5.8-8.2, with 0.4 s of speech
    ];
    expect(uncoveredWindows(window, covered, s(0.5))).toEqual([
      { startSample: s(0.2), endSample: s(2), regions: [{ startSample: s(0.2), endSample: s(2) }] },
    ]);
    expect(uncoveredWindows(window, covered, s(0.4)).map((w) => [w.startSample / SR, w.endSample / SR, w.regions.length])).toEqual([
      [0.2, 2, 1],
      [5.8, 8.2, 2],
    ]);
  });
});
