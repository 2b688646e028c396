import { describe, expect, it } from 'vitest';
import { logSumExp } from '../../engine/whisper/logits';
import { seeded } from '../../engine/decoding/seeded-random';

/** log Σ e^a[i] the plain way, in doubles. */
function reference(a: Float32Array, from: number, to: number): number {
  let max = -Infinity;
  for (let i = from; i < to; i++) max = Math.max(max, a[i]!);
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let i = from; i < to; i++) sum += Math.exp(a[i]! - max);
  return max + Math.log(sum);
}

describe('logSumExp', () => {
  it('matches the plain sum of exponentials on rows like a vocabulary of logits', () => {
    const random = seeded(7);
    for (const spread of [0.01, 3, 12, 60, 900]) {
      const row = Float32Array.from({ length: 51_865 }, () => (random() - 0.5) * spread);
      row[123] = 25;
      for (let i = 0; i < row.length; i += 97) row[i] = -Infinity;
      expect(Math.abs(logSumExp(row, 0, row.length) - reference(row, 0, row.length))).toBeLessThan(1e-10);
      expect(Math.abs(logSumExp(row, 50_365, row.length) - reference(row, 50_365, row.length))).toBeLessThan(1e-10);
    }
  });

  it('is exact at the edges: one value, equal values, nothing but -Infinity, an empty range', () => {
    expect(logSumExp(Float32Array.of(-3.5), 0, 1)).toBe(-3.5);
    expect(logSumExp(Float32Array.of(2, 2, 2, 2), 0, 4)).toBeCloseTo(2 + Math.log(4), 12);
    expect(logSumExp(Float32Array.of(-Infinity, -Infinity), 0, 2)).toBe(-Infinity);
    expect(logSumExp(Float32Array.of(1, 2), 1, 1)).toBe(-Infinity);
    expect(logSumExp(Float32Array.of(0, -800), 0, 2)).toBe(0);
  });
});
