import { describe, expect, it } from 'vitest';
import { heardWordCount } from '../../engine/postprocess/hallucination';

const starts = (...ms: number[]) => ms.map((startMs) => ({ startMs }));

describe('heardWordCount', () => {
  it('drops the trailing words packed into the last frame of the audio', () => {
    expect(heardWordCount(starts(0, 300, 980, 980, 980), 1000)).toBe(2);
  });
  it('keeps words that a spoken word follows', () => {
    expect(heardWordCount(starts(0, 980, 300), 1000)).toBe(3);
  });
  it('keeps a last word that starts 70 ms before the end, drops one that starts 60 ms before (the bar is 66 ms)', () => {
    expect(heardWordCount(starts(0, 930), 1000)).toBe(2);
    expect(heardWordCount(starts(0, 940), 1000)).toBe(1);
  });
  it('drops every word when none could be spoken, and counts none of none', () => {
    expect(heardWordCount(starts(980, 980), 1000)).toBe(0);
    expect(heardWordCount([], 1000)).toBe(0);
  });
});
