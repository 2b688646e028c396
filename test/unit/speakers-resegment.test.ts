import { describe, expect, it } from 'vitest';
import { smoothPath } from '../../engine/speakers/resegment';

const rows = (pairs: number[][]): Float64Array[] => pairs.map((p) => Float64Array.from(p));

describe('smoothPath', () => {
  it('with no penalty takes each step’s best speaker', () => {
    expect(smoothPath(rows([[1, 0], [0, 1], [1, 0]]), 0)).toEqual([0, 1, 0]);
  });

  it('keeps the speaker through a short lead of the other that does not pay for two changes', () => {
    // speaker 1 leads by 0.3 for 3 steps (0.9 in all): less than two changes at 0.5 each
    const scores = rows([[0.8, 0.2], [0.8, 0.2], [0.3, 0.6], [0.3, 0.6], [0.3, 0.6], [0.8, 0.2], [0.8, 0.2]]);
    expect(smoothPath(scores, 0.5)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    // at 0.4 per change the lead (0.9) pays for both (0.8)
    expect(smoothPath(scores, 0.4)).toEqual([0, 0, 1, 1, 1, 0, 0]);
  });

  it('moves a change to where the summed scores favour it, not where one step does', () => {
    const scores = rows([[1, 0], [1, 0], [0.4, 0.6], [0, 1], [0, 1]]);
    expect(smoothPath(scores, 0.3)).toEqual([0, 0, 1, 1, 1]);
    expect(smoothPath([], 1)).toEqual([]);
  });

  it('handles three speakers: a single step switches only when its lead beats the penalty', () => {
    const scores = rows([[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 1, 0]]);
    expect(smoothPath(scores, 0.5)).toEqual([0, 2, 2, 2, 1]);
    // at 1.5 a change costs more than any one step's lead: speaker 2 throughout (3 > 4 - 1.5)
    expect(smoothPath(scores, 1.5)).toEqual([2, 2, 2, 2, 2]);
  });
});
