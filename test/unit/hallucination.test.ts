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
  it('drops a sentence repeated into the last 300 ms, however many words it has', () => {
    expect(heardWordCount(starts(0, 400, 800, 1200, 9700, 9740, 9780, 9820, 9860, 9900, 9940), 10_000)).toBe(4);
  });
  it('keeps quick last words that fill the time left (150 ms each)', () => {
    expect(heardWordCount(starts(0, 9400, 9550, 9700, 9850), 10_000)).toBe(5);
  });
  it('drops every word when none could be spoken, and counts none of none', () => {
    expect(heardWordCount(starts(980, 980), 1000)).toBe(0);
    expect(heardWordCount([], 1000)).toBe(0);
  });
});
