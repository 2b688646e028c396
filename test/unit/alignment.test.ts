import { describe, expect, it } from 'vitest';
import { alignRows, capLongWords, dtwRowEntries, enforceSpans, medianFilter, tokenFrames } from '../../engine/postprocess/alignment';

/** Attention rows for `tokens` tokens over `frames` frames, token i looking at frames [at[i], at[i+1]). */
function diagonalAttention(at: number[], frames: number, heads: number, encoderFrames = frames): Float32Array[] {
  return at.slice(0, -1).map((start, i) => {
    const row = new Float32Array(heads * encoderFrames);
    for (let h = 0; h < heads; h++) {
      for (let f = 0; f < encoderFrames; f++) row[h * encoderFrames + f] = f >= start && f < at[i + 1]! ? 1 : 0.01;
    }
    return row;
  });
}

describe('medianFilter', () => {
  it('removes a one-sample spike and keeps steps, reflecting at the edges', () => {
    const x = Float32Array.from([0, 0, 0, 9, 0, 0, 0, 5, 5, 5, 5]);
    expect([...medianFilter(x, 3)]).toEqual([0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5]);
    expect([...medianFilter(Float32Array.from([1, 5, 2]), 3)]).toEqual([5, 2, 5]);
  });

  it('equals the median of each reflected window, sorted afresh, on random rows with and without ties', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let t = 0; t < 400; t++) {
      const n = 1 + Math.floor(random() * 40);
      const width = [3, 5, 7, 9][t % 4]!;
      const x = Float32Array.from({ length: n }, () => (t % 2 ? random() * 2 - 1 : Math.floor(random() * 4)));
      const half = width >> 1;
      const at = (i: number) => x[i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i]!;
      const expected = n <= half ? [...x] : [...x].map((_, i) => Float32Array.from({ length: width }, (_, k) => at(i - half + k)).sort()[half]!);
      expect([...medianFilter(x, width)]).toEqual(expected);
    }
  });
});

describe('dtwRowEntries', () => {
  it('follows the cheap cells of a staircase', () => {
    // rows 0..2 are cheap on columns [0,2), [2,5), [5,6)
    const rows = 3;
    const cols = 6;
    const cost = new Float32Array(rows * cols).fill(1);
    const bands = [[0, 2], [2, 5], [5, 6]];
    bands.forEach(([a, b], r) => {
      for (let c = a!; c < b!; c++) cost[r * cols + c] = -1;
    });
    expect([...dtwRowEntries(cost, rows, cols)]).toEqual([0, 2, 5]);
  });
});

describe('alignRows / tokenFrames', () => {
  it('recovers token boundaries from attention, only inside the audio frames', () => {
    const bounds = [0, 10, 25, 40, 70, 100];
    const attention = diagonalAttention(bounds, 100, 2, 150);
    expect([...alignRows(attention, 2, 100)]).toEqual(bounds.slice(0, -1));
    // 4 tokens and a closing row (end-of-text): token 3 ends where the closing row starts
    const frames = tokenFrames(4, attention, 150, 100);
    expect(frames).toEqual([
      [0, 10],
      [10, 25],
      [25, 40],
      [40, 70],
    ]);
    // without the closing row the last token runs to the end of the audio
    expect(tokenFrames(5, attention, 150, 100)[4]).toEqual([70, 100]);
  });
});

describe('enforceSpans', () => {
  it('makes spans monotonic, inside the bounds and at least the minimum long', () => {
    const out = enforceSpans(
      [
        { startMs: 100, endMs: 100 },
        { startMs: 90, endMs: 140 },
        { startMs: 140, endMs: 140 },
        { startMs: 980, endMs: 1200 },
        { startMs: 1200, endMs: 1200 },
      ],
      0,
      1000,
    );
    for (let i = 0; i < out.length; i++) {
      expect(out[i]!.endMs - out[i]!.startMs).toBeGreaterThanOrEqual(20);
      expect(out[i]!.startMs).toBeGreaterThanOrEqual(i === 0 ? 0 : out[i - 1]!.endMs);
      expect(out[i]!.endMs).toBeLessThanOrEqual(1000);
    }
  });

  it('shares a span too short for the minimum equally', () => {
    const out = enforceSpans(Array.from({ length: 10 }, () => ({ startMs: 50, endMs: 50 })), 0, 100);
    expect(out[9]!.endMs).toBeLessThanOrEqual(100);
    for (const s of out) expect(s.endMs - s.startMs).toBeCloseTo(10, 6);
  });
});

describe('capLongWords', () => {
  it('trims a sentence-final word that swallowed a pause, not a long word mid-sentence', () => {
    const w = (text: string, startMs: number, endMs: number) => ({ text, startMs, endMs });
    const words = [w('So', 0, 200), w('extraordinarily', 200, 1000), w('long', 1000, 1200), w('day.', 1200, 4000), w('Then', 4000, 4200)];
    const out = capLongWords(words, new Set([0, 4]));
    expect(out[1]).toEqual(words[1]);
    expect(out[3]).toEqual(w('day.', 1200, 1600));
  });
});
