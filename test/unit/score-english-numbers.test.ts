import { describe, expect, it } from 'vitest';
import { normalizeEnglishNumbers } from '../../bench/score/english-numbers';

const digits = (text: string): string => normalizeEnglishNumbers(text.split(' ')).join(' ');

describe('normalizeEnglishNumbers', () => {
  it.each([
    ['one hundred and five', '105'],
    ['twenty five', '25'],
    ['ninety nine', '99'],
    ['two thousand and twenty', '2020'],
    ['three million four hundred thousand', '3400000'],
    ['eighteen thirteen', '1813'],
    ['in eighteen thirteen', 'in 1813'],
    ['nineteen ninety nine', '1999'],
    ['twenty twenty five', '2025'],
    ['eighteen hundred and thirteen', '1813'],
    ['five five', '5 5'],
    ['one two three', '1 2 3'],
    ['four queen of clubs', '4 queen of clubs'],
    ['ten of clubs', '10 of clubs'],
    ['eight of spades four of clubs seven of hearts', '8 of spades 4 of clubs 7 of hearts'],
    ['twenty first century', '21st century'],
    ['one hundredth', '100th'],
    ['three point one four', '3.14'],
    ['5 million', '5000000'],
    ['a thousand', 'a 1000'],
  ])('%s -> %s', (input, expected) => {
    expect(digits(input)).toBe(expected);
  });

  it('leaves lone ordinals and non-number uses of "and" alone', () => {
    expect(digits('the first and second')).toBe('the first and second');
    expect(digits('one second')).toBe('1 second');
    expect(digits('ten and five')).toBe('10 and 5');
    expect(digits('one hundred and the rest')).toBe('100 and the rest');
  });

  it('keeps digits that are already digits', () => {
    expect(digits('1813 and 21st 3.5')).toBe('1813 and 21st 3.5');
  });
});
