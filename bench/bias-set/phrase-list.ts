import { readFileSync } from 'node:fs';

/**
 * Made-up product-like names (Vorlaxin, Quendral ...) that occur in no recording, to fill a phrase
 * list up to the 250-phrase limit: the distractors a real list would carry. Deterministic. A name
 * that Whisper's vocabulary holds as a whole word after a space ("Nine", "Tofu") is an English word,
 * not a made-up name, and is left out: among 10,000 names "Nine" was written for a spoken "10".
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
  const words = wholeWords();
  const out = new Set<string>();
  while (out.size < count) {
    const syllables = 2 + next(2);
    let w = '';
    for (let i = 0; i < syllables; i++) w += onsets[next(onsets.length)]! + vowels[next(vowels.length)]! + codas[next(codas.length)]!;
    if (!words.has(w)) out.add(w[0]!.toUpperCase() + w.slice(1));
  }
  return [...out];
}

/**
 * `count` longer phrases (product names, titles): made-up names run together, `least` to `most` a
 * phrase in turn, cut at a phrase's limit of 100 characters. Deterministic.
 */
export function madeUpLongPhrases(count: number, [least, most]: readonly [number, number], seed = 11): string[] {
  const names = madeUpPhrases(count * most, seed);
  return Array.from({ length: count }, (_, i) => names.slice(i * most, i * most + least + (i % (most - least + 1))).join(' ').slice(0, 100));
}

/** The words a phrase may take, from an env variable `least-most` ("3-6"); null where unset or empty. */
export function wordRange(name: string): [number, number] | null {
  const value = process.env[name];
  if (!value) return null;
  const words = value.split('-').map(Number);
  if (!(words.length === 2 && words.every((n) => Number.isInteger(n) && n >= 1) && words[0]! <= words[1]!)) throw new Error(`${name} must be least-most, not ${value}`);
  return words as [number, number];
}

let vocabularyWords: Set<string> | null = null;

/**
 * The words, lower-cased, that Whisper's vocabulary holds whole after a space, as written or capitalised
 * (" nine", " Lage"); its byte-level BPE marks the space "Ġ". Read from the working directory, as the
 * measures read the model's files.
 */
function wholeWords(): Set<string> {
  if (!vocabularyWords) {
    const tokenizer = JSON.parse(readFileSync('public/models/whisper-tiny/tokenizer.json', 'utf8')) as { model: { vocab: Record<string, number> } };
    vocabularyWords = new Set(Object.keys(tokenizer.model.vocab).flatMap((t) => (/^Ġ[A-Za-z][a-z]+$/.test(t) ? [t.slice(1).toLowerCase()] : [])));
  }
  return vocabularyWords;
}
