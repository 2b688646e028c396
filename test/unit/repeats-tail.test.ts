import { describe, expect, it } from 'vitest';
import { repeatsTail } from '../../engine/whisper/generate';

describe('decoding-loop detection', () => {
  const sentence = [314, 1807, 314, 576, 307, 612, 13]; // " I thought I would be there."
  it('finds a sentence repeated four times at the tail', () => {
    expect(repeatsTail([50, 51, ...sentence, ...sentence, ...sentence, ...sentence])).toBe(true);
  });
  it('lets three repeats, and a varied tail, through', () => {
    expect(repeatsTail([50, 51, ...sentence, ...sentence, ...sentence])).toBe(false);
    expect(repeatsTail([...sentence, ...sentence, ...sentence, 99, ...sentence])).toBe(false);
  });
  it('stops at fewer repeats when asked (biasing proposals)', () => {
    expect(repeatsTail([50, 51, ...sentence, ...sentence, ...sentence], 3)).toBe(true);
    expect(repeatsTail([50, 51, ...sentence, ...sentence], 3)).toBe(false);
    expect(repeatsTail(Array(11).fill(20), 3)).toBe(false);
  });
  it('needs twelve repeats of a single token', () => {
    expect(repeatsTail(Array(11).fill(20))).toBe(false);
    expect(repeatsTail(Array(12).fill(20))).toBe(true);
  });
});
