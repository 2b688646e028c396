import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/api/patterns';
import { applyPatterns, applyPatternsToWords, findPatternSpans } from '../../engine/biasing/patterns/spoken-patterns';

const P = (...sources: string[]) => sources.map(compilePattern);

describe('spoken codes to their written form', () => {
  it.each([
    ['My order number is A M Z four seven one.', ['AMZ[0-9]{3}'], 'My order number is AMZ471.'],
    ['My order number is A, M, Z, 4, 7, 1.', ['AMZ[0-9]{3}'], 'My order number is AMZ471.'],
    ['My order number is AMZ 471.', ['AMZ[0-9]{3}'], 'My order number is AMZ471.'],
    ['order a.m.z. 4-7-1 please', ['AMZ[0-9]{3}'], 'order AMZ471 please'],
    ['The plate was K L five one X Y Z.', ['[A-Z]{2}[0-9]{2} [A-Z]{3}'], 'The plate was KL51 XYZ.'],
    ['The plate was KL fifty one XYZ.', ['[A-Z]{2}[0-9]{2} [A-Z]{3}'], 'The plate was KL51 XYZ.'],
    ['code B seven double five Q', ['[A-Z][0-9]{3}[A-Z]'], 'code B755Q'],
    ['ticket T K eight three one two today', ['TK-[0-9]{4}'], 'ticket TK-8312 today'],
    ['ticket T K dash eight three one two', ['TK-[0-9]{4}'], 'ticket TK-8312'],
    ['part X R triple seven', ['XR[0-9]{3}'], 'part XR777'],
    ['call two nine oh four now', ['[0-9]{4}'], 'call 2904 now'],
    ['alpha bravo one two', ['[A-Z]{2}[0-9]{2}'], 'AB12'],
    ['flight U A nine one six leaves', ['[A-Z]{2}[0-9]{3}', 'XR[0-9]{3}'], 'flight UA916 leaves'],
    ['order AMZ12 or A M Z three four five', ['AMZ[0-9]{2}(-[0-9])?', 'AMZ[0-9]{3}'], 'order AMZ12 or AMZ345'],
    ['a lowercase literal amz471', ['amz[0-9]{3}'], 'a lowercase literal amz471'],
    ['code b-755Q', ['[A-Z][0-9]{3}[A-Z]'], 'code B755Q'],
    ['the plate ex wye five one', ['[A-Z]{2}[0-9]{2}'], 'the plate XY51'],
    // words that sound like a symbol, and letters written as a word, inside a run that matches
    ['My order number is A, mz, for 7-1.', ['AMZ[0-9]{3}'], 'My order number is AMZ471.'],
    ['part xr seven to seven', ['XR[0-9]{3}'], 'part XR727'],
  ])('%s', (text, patterns, expected) => {
    expect(applyPatterns(text, P(...patterns))).toBe(expected);
  });

  it('leaves text alone when the spoken run does not match a pattern', () => {
    const p = P('AMZ[0-9]{3}');
    for (const text of [
      'A M Z four seven.',
      'B M Z four seven one.',
      'I have a dog and four cats.',
      'We met at nine and left at ten.',
      'I want to be there for you at 4.',
    ]) {
      expect(applyPatterns(text, p)).toBe(text);
    }
    expect(applyPatterns('a b c', [])).toBe('a b c');
  });

  it('reads sound-alike words as symbols only next to a real one', () => {
    expect(applyPatterns('see you', P('[A-Z]{2}'))).toBe('see you');
    expect(applyPatterns('from one to four', P('[0-9]{2}'))).toBe('from one to four');
    expect(applyPatterns('from one to four', P('[0-9]{3}'))).toBe('from one to four');
    expect(applyPatterns('code be 759 Q', P('[A-Z][0-9]{3}[A-Z]'))).toBe('code be 759 Q');
    expect(applyPatterns('for to', P('[0-9]{2}'))).toBe('for to');
    expect(applyPatterns('hmm, I see', P('[A-Z]{3}'))).toBe('hmm, I see');
  });

  it('does not swallow ordinary words next to a code', () => {
    expect(applyPatterns('I need a B seven five five Q today', P('[A-Z][0-9]{3}[A-Z]'))).toBe('I need a B755Q today');
    expect(applyPatterns('Is it A M Z four seven one? Yes.', P('AMZ[0-9]{3}'))).toBe('Is it AMZ471? Yes.');
  });

  it('reports spans by word index with the pattern that matched', () => {
    expect(findPatternSpans(['the', 'code', 'A', 'M', 'Z', 'four', 'seven', 'one'], P('XR[0-9]{3}', 'AMZ[0-9]{3}'))).toEqual([
      { start: 2, end: 8, text: 'AMZ471', pattern: 'AMZ[0-9]{3}' },
    ]);
  });

  it('merges timed words into one word with the written form', () => {
    const words = [' is', ' A', ' M', ' Z', ' four', ' seven', ' one.'].map((text, i) => ({
      text,
      startMs: i * 100,
      endMs: i * 100 + 90,
      confidence: 0.9 - i * 0.01,
      speaker: 0,
    }));
    const out = applyPatternsToWords(words, P('AMZ[0-9]{3}'));
    expect(out).toHaveLength(2);
    expect(out[1]).toEqual({ text: ' AMZ471.', startMs: 100, endMs: 690, confidence: 0.9 - 6 * 0.01, speaker: 0 });
    expect(out[0]).toBe(words[0]);
  });
});
