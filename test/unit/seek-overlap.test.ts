import { describe, expect, it } from 'vitest';
import { comparable, MIN_REPEATED_WORDS, repeatedStart } from '../../engine/postprocess/seek-overlap';

const words = (text: string) => text.split(' ');

describe('repeatedStart', () => {
  it("counts the rest's words that repeat the end of what was written, whatever their case and punctuation", () => {
    const before = words('we took three bags to the bins, after lunch my brother fixed the shelf.');
    const rest = words('After lunch my brother fixed the shelf and hung the picture.');
    expect(repeatedStart(before, rest)).toBe(7);
  });

  it('takes the longest overlap, not the first one found', () => {
    // "the shelf" ends both a short and the long overlap
    expect(repeatedStart(words('fixed the shelf, the shelf'), words('fixed the shelf, the shelf was loose'))).toBe(5);
  });

  it(`leaves an overlap shorter than ${MIN_REPEATED_WORDS} words: a word said again across the boundary is speech`, () => {
    expect(repeatedStart(words('and then I'), words('I think so.'))).toBe(0);
    expect(repeatedStart(words('and then I think'), words('I think so.'))).toBe(0);
    expect(repeatedStart(words('and then I think'), words('I think so.'), 2)).toBe(2);
  });

  it('finds no overlap in a rest that goes on from where the pass stopped', () => {
    expect(repeatedStart(words('the apple tree needs pruning'), words('before the winter, my neighbour said.'))).toBe(0);
  });

  it('counts a word of punctuation alone inside the overlap towards the words to drop', () => {
    expect(repeatedStart(words('he told me to cut'), words('told me - to cut the branches'))).toBe(5);
  });

  it('compares letters of any script and keeps apostrophes', () => {
    expect(comparable('Schüler,')).toBe('schüler');
    expect(comparable("Don't")).toBe("don't");
    expect(comparable('—')).toBe('');
  });
});
