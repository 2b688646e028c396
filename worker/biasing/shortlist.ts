import { distance } from 'fastest-levenshtein';
import { recentLists } from './recent-lists';

/**
 * A rough sound-alike spelling: lower case, letters and digits only, common English spellings of one
 * sound folded together (ph/f, c/k/q, z/s, x/ks but a leading x/s, y/i, w/v, wr/r), doubled letters single. "Hetzner" and
 * the "Hasner" an unbiased pass hears come out 2 edits apart; "ComfyUI" and "Comp Fuey" 3.
 */
export function soundKey(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]/g, '')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/gh/g, 'g')
    .replace(/wh/g, 'w')
    .replace(/wr/g, 'r')
    .replace(/[cq]/g, 'k')
    .replace(/^x/, 's')
    .replace(/x/g, 'ks')
    .replace(/z/g, 's')
    .replace(/y/g, 'i')
    .replace(/w/g, 'v')
    .replace(/(.)\1+/g, '$1');
}

interface KeyedPhrase {
  phrase: string;
  key: string;
  words: number;
}

const keyedPhrase = (phrase: string): KeyedPhrase => ({ phrase, key: soundKey(phrase), words: phrase.trim().split(/\s+/).length });

/** Keys of the last few phrase lists: a 10,000-phrase custom model is keyed once per worker. */
const keyedLists = recentLists<KeyedPhrase[]>(4);

function keyed(phrases: readonly string[]): KeyedPhrase[] {
  return keyedLists(phrases, () => phrases.map(keyedPhrase).filter((p) => p.key.length > 0));
}

/** The phrases of a list by sound key, and the longest key; built once per list, as `keyed`. */
export interface KeyIndex {
  phrases: ReadonlyMap<string, readonly string[]>;
  longest: number;
}

const keyIndexes = recentLists<KeyIndex>(4);

export function phrasesByKey(phrases: readonly string[]): KeyIndex {
  return keyIndexes(phrases, () => {
    const index = new Map<string, string[]>();
    let longest = 0;
    for (const p of keyed(phrases)) {
      index.set(p.key, [...(index.get(p.key) ?? []), p.phrase]);
      longest = Math.max(longest, p.key.length);
    }
    return { phrases: index, longest };
  });
}

/** Where a phrase sounds most like a run of words: words [start, end) and how alike (1: the same key). */
export interface SoundMatch {
  sim: number;
  start: number;
  end: number;
}

/** This many one-character words in a row or more are a word spelled out: "K R Z Y S C T O F". */
export const SPELLED_RUN = 4;

/** Per word key, whether it is a letter (or digit) of a word spelled out (see SPELLED_RUN). */
export function spelledLetters(keys: readonly string[]): boolean[] {
  const spelled = keys.map(() => false);
  for (let i = 0; i < keys.length; ) {
    let j = i;
    while (j < keys.length && keys[j]!.length === 1) j++;
    if (j - i >= SPELLED_RUN) spelled.fill(true, i, j);
    i = Math.max(j, i + 1);
  }
  return spelled;
}

/**
 * The run of `wordKeys` (soundKey of each word) that sounds most like `phrase`. Runs of up to the
 * phrase's word count + 2 are tried, since an unbiased pass splits rare names ("Siobhan Nguyen" →
 * "Shabon NGU IDN"), a word spelled out letter by letter (`spelled`, spelledLetters of the keys) counting
 * as one; the first of equally alike runs wins.
 */
export function soundMatch(phrase: string, wordKeys: readonly string[], spelled: readonly boolean[]): SoundMatch {
  return matchKeyed(keyedPhrase(phrase), wordKeys, spelled);
}

/** As soundMatch; without `spelled`, each spelled letter counts as a word. */
function matchKeyed(p: KeyedPhrase, words: readonly string[], spelled: readonly boolean[] | null): SoundMatch {
  const best: SoundMatch = { sim: 0, start: 0, end: 0 };
  const longest = p.key.length * 1.6 + 2;
  for (let i = 0; i < words.length; i++) {
    let run = '';
    let count = 0;
    for (let j = i; j < words.length; j++) {
      // a word with no letters or digits (a gap between the stretches searched) ends every run
      if (!words[j]) break;
      if (!(j > i && spelled?.[j] && spelled[j - 1])) count++;
      if (count > p.words + 2) break;
      run += words[j];
      if (run.length > longest) break;
      const sim = 1 - distance(p.key, run) / Math.max(p.key.length, run.length);
      if (sim > best.sim) Object.assign(best, { sim, start: i, end: j + 1 });
    }
  }
  return best;
}

/**
 * The phrases ordered by how much they sound like something in `text` (an unbiased transcription of
 * the same audio, or stretches of it with "|" between them), best first; ties keep list order. Those
 * less alike than `minSim` are left out. Spelled letters count a word each here: every phrase of a
 * 10,000-phrase list is matched, and a window of 200 letters took 10 s, not 1 s, with a spelled word
 * as one (a spelled name is found by splice.ts sameSoundPhrases instead).
 */
export function rankPhrases(text: string, phrases: readonly string[], minSim = 0): string[] {
  const words = text.split(/\s+/).map(soundKey);
  return keyed(phrases)
    .map((p, index) => ({ phrase: p.phrase, index, sim: matchKeyed(p, words, null).sim }))
    .filter((p) => p.sim >= minSim)
    .sort((a, b) => b.sim - a.sim || a.index - b.index)
    .map((p) => p.phrase);
}
