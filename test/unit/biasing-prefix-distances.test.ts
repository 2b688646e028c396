import { describe, expect, it } from 'vitest';
import { seeded } from '../../engine/decoding/seeded-random';
import { prefixDistances } from '../../engine/biasing/phrases/prefix-distances';

/** The textbook dynamic programme: the last row of D[i][j], the distance of `a` to each prefix of `b`. */
function reference(a: string, b: string): number[] {
  let row = Array.from({ length: a.length + 1 }, (_, i) => i);
  const last: number[] = [];
  for (let j = 1; j <= b.length; j++) {
    const next = [j];
    for (let i = 1; i <= a.length; i++) next[i] = Math.min(row[i]! + 1, next[i - 1]! + 1, row[i - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
    last.push(row[a.length]!);
  }
  return last;
}

describe('prefixDistances (Myers bit-vector, blocks of 32)', () => {
  it('gives the Levenshtein distance to every prefix, across block edges and for characters beyond ASCII', () => {
    const r = seeded(11);
    const alphabets = ['ab', 'abcdefghijklmnopqrstuvwxyz0123456789', 'aéß€𝄞'];
    for (let t = 0; t < 300; t++) {
      const alphabet = [...alphabets[t % alphabets.length]!];
      const text = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      // pattern lengths 1 to 130: one to five blocks, with 32, 64 and 96 at block edges
      const pattern = text(t % 10 === 0 ? 32 * (1 + ((t / 10) % 3)) : 1 + Math.floor(r() * 130));
      const other = text(1 + Math.floor(r() * 160));
      const distances = prefixDistances(pattern);
      distances(text(50), 50); // a pass before must leave nothing behind
      expect([...distances(other, other.length).slice(0, other.length)]).toEqual(reference(pattern, other));
    }
  });

  it('reads only the first `length` characters', () => {
    expect([...prefixDistances('kitten')('sittingxyz', 7).slice(0, 7)]).toEqual(reference('kitten', 'sitting'));
    expect(prefixDistances('kitten')('sitting', 7)[6]).toBe(3);
  });
});
