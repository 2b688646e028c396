/**
 * Made-up product-like names (Vorlaxin, Quendral ...) that occur in no recording, to fill a phrase
 * list up to the 250-phrase limit: the distractors a real list would carry. Deterministic.
 */
export function madeUpPhrases(count: number, seed = 7): string[] {
  const onsets = ['b', 'br', 'c', 'cr', 'd', 'dr', 'f', 'g', 'gr', 'k', 'l', 'm', 'n', 'p', 'pr', 'qu', 'r', 's', 'st', 't', 'tr', 'v', 'z', 'x'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ae', 'io', 'ou'];
  const codas = ['', 'n', 'x', 'l', 'r', 'th', 'nd', 'sk'];
  let s = seed >>> 0;
  const next = (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    // the low bits of a power-of-two LCG cycle quickly; the high ones do not
    return (s >>> 16) % n;
  };
  const out = new Set<string>();
  while (out.size < count) {
    const syllables = 2 + next(2);
    let w = '';
    for (let i = 0; i < syllables; i++) w += onsets[next(onsets.length)]! + vowels[next(vowels.length)]! + codas[next(codas.length)]!;
    out.add(w[0]!.toUpperCase() + w.slice(1));
  }
  return [...out];
}
