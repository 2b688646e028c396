import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/api/patterns';
import { PatternMatcher } from '../../engine/biasing/patterns/pattern-matcher';
import { SpokenCodeReader, type SpokenCodeState } from '../../engine/biasing/patterns/spoken-code-reader';
import { findPatternSpans, spokenCodeWord } from '../../engine/biasing/patterns/spoken-patterns';

const reader = (...sources: string[]) => new SpokenCodeReader(new PatternMatcher(sources.map(compilePattern)));

/** The state after `text`'s words, or null as soon as one does not read or leads nowhere. */
function read(r: SpokenCodeReader, text: string): SpokenCodeState | null {
  let s: SpokenCodeState | null = r.start;
  for (const w of text.split(' ')) {
    const word = spokenCodeWord(w);
    s = word && s ? r.advance(s, word) : null;
  }
  return s;
}

describe('SpokenCodeReader: codes spoken word by word, stepped through the patterns', () => {
  it('reads "double" as the next symbol twice, only before a single symbol, and remembers it was heard', () => {
    const r = reader('[A-Z][0-9]{3}[A-Z]');
    const waiting = read(r, 'B seven double');
    expect(waiting).toMatchObject({ repeat: 2, open: true, accepted: [] });
    expect(read(r, 'B seven double five Q')).toMatchObject({ repeat: 0, accepted: [0], open: false, repeated: true });
    expect(read(r, 'B seven five five Q')).toMatchObject({ accepted: [0], repeated: false });
    expect(read(r, 'B seven double double')).toBeNull();
    expect(read(r, 'B double fifteen')).toBeNull(); // "fifteen" is two symbols
    expect(read(r, 'B seven triple five')).toBeNull(); // four digits
    expect(read(r, 'B seven two five')!.accepted).toEqual([]); // no closing letter yet
  });

  it('lets the pattern\'s separators go unspoken, and reads "oh" as a digit or a letter', () => {
    expect(read(reader('[A-Z]{2}[0-9]{2} [A-Z]{3}'), 'K L five one X Y Z')!.accepted).toEqual([0]);
    expect(read(reader('TK-[0-9]{4}'), 'TK eight three one two')!.accepted).toEqual([0]);
    expect(read(reader('[0-9]{3}'), 'two oh four')!.accepted).toEqual([0]);
    expect(read(reader('[A-Z]{2}'), 'oh K')!.accepted).toEqual([0]);
    expect(read(reader('XR[0-9]{3}'), 'X R triple seven')!.accepted).toEqual([0]);
  });

  it('does not read words that are code material only between others', () => {
    for (const w of ['for', 'to', 'mz', 'twenty', 'the']) expect(spokenCodeWord(w), w).toBeNull();
    for (const w of ['seven', 'Seven', 'B', 'bee', 'bravo', 'XR', '77', 'double', 'oh']) expect(spokenCodeWord(w), w).not.toBeNull();
  });

  it('accepts exactly the runs the text rewrite turns into one code', () => {
    const sources = ['[A-Z][0-9]{3}[A-Z]', 'XR[0-9]{3}', 'TK-[0-9]{4}', '[A-Z]{2}[0-9]{2} [A-Z]{3}'];
    const patterns = sources.map(compilePattern);
    const r = reader(...sources);
    const runs = ['B seven double five Q', 'B 755 Q', 'XR triple 7', 'XR double 7', 'XR 7 double 7', 'TK eight three one two', 'TK 83 12',
      'K L five one X Y Z', 'KL 51 XYZ', 'B seven five Q', 'X R seven seven', 'triple seven', 'B seven double five', 'Q double B 1 2 3 4'];
    for (const run of runs) {
      const words = run.split(' ');
      const spans = findPatternSpans(words, patterns);
      const whole = spans.length === 1 && spans[0]!.start === 0 && spans[0]!.end === words.length;
      expect((read(r, run)?.accepted.length ?? 0) > 0, run).toBe(whole);
    }
  });
});
