import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/api/patterns';
import { PatternMatcher } from '../../engine/biasing/patterns/pattern-matcher';

const matcher = (...sources: string[]) => new PatternMatcher(sources.map(compilePattern));

describe('PatternMatcher: written prefixes of a pattern match', () => {
  it('follows a code token by token, as Whisper writes it', () => {
    const m = matcher('[A-Z]{2}[0-9]{3}');
    const ua = m.advance(m.start, 'UA');
    expect(ua).not.toBeNull();
    expect(ua!.accepting).toBe(false);
    const done = m.advance(ua!, '916');
    expect(done!.accepting).toBe(true);
    expect(done!.open).toBe(false);
    expect(m.advance(done!, '1')).toBeNull();
    expect(m.advance(m.start, 'U8')).toBeNull();
    expect(m.advance(m.start, 'ua')).toBeNull(); // case-sensitive, like the pattern's regex
  });

  it('agrees with the regex on whole strings', () => {
    const sources = ['AMZ[0-9]{3}', '[A-Z]{2}[0-9]{2} [A-Z]{3}', '[A-Z][0-9]{3}[A-Z]', 'TK-[0-9]{4}', 'XR[0-9]{3}', 'AB( [0-9]{2})?', '[0-9]{2,4}', '[A-F0-9]{1,3}-(X[0-9])?Y'];
    const samples = ['AMZ471', 'AMZ47', 'KL51 XYZ', 'KL51XYZ', 'B755Q', 'B75Q', 'TK-8312', 'TK8312', 'XR777', 'AB', 'AB 12', 'AB 1', '12', '1234', '12345',
      'F0-Y', 'F0-X1Y', 'F0-X1', 'FFFF-Y', ''];
    for (const src of sources) {
      const p = compilePattern(src);
      const m = new PatternMatcher([p]);
      for (const s of samples) expect(m.matches(s), `${src} on ${JSON.stringify(s)}`).toBe(p.test(s));
    }
  });

  it('keeps every pattern alive until the text rules it out', () => {
    const m = matcher('AMZ[0-9]{3}', 'XR[0-9]{3}', '[A-Z]{2}[0-9]{3}');
    const a = m.advance(m.start, 'A');
    expect(m.advance(a!, 'MZ4')).not.toBeNull(); // AMZ…
    expect(m.advance(a!, 'B123')!.accepting).toBe(true); // two letters, three digits
    expect(m.advance(m.start, 'XR777')!.accepting).toBe(true);
    expect(m.advance(m.start, '7')).toBeNull();
    expect(a!.alive).toEqual([0, 2]);
    expect(m.advance(a!, 'M')!.alive).toEqual([0, 2]);
    expect(m.advance(a!, 'MZ')!.alive).toEqual([0]);
    expect(m.advance(m.start, 'XR777')!.accepted).toEqual([1, 2]);
  });

  it('knows when a code may go on after a whole match', () => {
    const m = matcher('[0-9]{2,4}', 'AB( [0-9]{2})?');
    const two = m.advance(m.start, '12')!;
    expect(two.accepting && two.open).toBe(true);
    expect(m.advance(two, '34')!.open).toBe(false);
    const ab = m.advance(m.start, 'AB')!;
    expect(ab.accepting && ab.open).toBe(true);
    expect(m.advance(ab, ' ')!.accepting).toBe(false);
    expect(m.advance(ab, ' 12')!.accepting).toBe(true);
  });
});
