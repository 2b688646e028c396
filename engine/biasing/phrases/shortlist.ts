import { prefixDistances } from './prefix-distances';
import { recentLists } from './recent-lists';

/**
 * A rough sound-alike spelling: lower case, letters and digits only, common English spellings of one
 * sound folded together (ph/f, c/k/q, z/s, x/ks, y/i, w/v, wr/r), doubled letters single.
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

/** A list keyed: its phrases, and its phrases by key with the longest key. */
interface KeyedList {
  phrases: KeyedPhrase[];
  byKey: ReadonlyMap<string, readonly string[]>;
  longest: number;
}

/** The last few lists keyed: a 10,000-phrase custom model is keyed once per worker. */
const keyedLists = recentLists<KeyedList>();

export function keyed(phrases: readonly string[]): KeyedList {
  return keyedLists(phrases, () => {
    const list = phrases.map(keyedPhrase).filter((p) => p.key.length > 0);
    const byKey = new Map<string, string[]>();
    for (const p of list) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p.phrase]);
    return { phrases: list, byKey, longest: list.reduce((most, p) => Math.max(most, p.key.length), 0) };
  });
}

/** Where a phrase sounds most like a run of words: words [start, end) and how alike (1: the same key). */
export interface SoundMatch {
  sim: number;
  start: number;
  end: number;
}

/**
 * The run of `heard` words that sounds most like `phrase`, of up to its span in words (a pass splits rare
 * names: "Siobhan Nguyen" → "Shabon NGU IDN"); the first of equally alike runs wins.
 */
export function soundMatch(phrase: string, heard: HeardWords): SoundMatch {
  const p = keyedPhrase(phrase);
  return bestRun(p, wordRuns(heard, span(p), reach(p)));
}

/**
 * How far a run of words matched against a phrase may reach: SPAN_EXTRA_WORDS words more than it has,
 * REACH_PER_LETTER letters of sound key per letter of its own plus REACH_LETTERS. Bounds on the search.
 */
const SPAN_EXTRA_WORDS = 2;
const REACH_PER_LETTER = 1.6;
const REACH_LETTERS = 2;

/** The most words a run matched against `p` may hold. */
const span = (p: KeyedPhrase) => p.words + SPAN_EXTRA_WORDS;

/** The longest run of words a phrase is matched against, in letters of sound key. */
const reach = (p: KeyedPhrase) => p.key.length * REACH_PER_LETTER + REACH_LETTERS;

/**
 * The runs of words from one start: their keys run together, where each run's key ends in it (run k: k + 1
 * words), and the first run that holds a word to match at (shorter ones are not matched).
 */
interface RunsFrom {
  key: string;
  ends: number[];
  from: number;
}

/**
 * A pass's words as the shortlist hears them: each word's soundKey, and which words a matched run must hold
 * (the unsure ones: a phrase the pass missed was heard as some of them and maybe the words around them).
 */
export interface HeardWords {
  keys: readonly string[];
  unsure: readonly boolean[];
}

/** Words (their soundKeys) any run of which may be matched. */
export const everyRun = (keys: readonly string[]): HeardWords => ({ keys, unsure: keys.map(() => true) });

/** A text's words, any run of which may be matched (for measures and tests). */
export const heardText = (text: string): HeardWords => everyRun(text.split(/\s+/).map(soundKey));

/** From each word, the runs of up to `maxWords` words and `maxLength` letters; a word without letters ends runs. */
function wordRuns({ keys, unsure }: HeardWords, maxWords: number, maxLength: number): RunsFrom[] {
  const nextUnsure: number[] = [];
  for (let i = keys.length - 1, next = keys.length; i >= 0; i--) nextUnsure[i] = next = unsure[i] ? i : next;
  return keys.map((_, i) => {
    let key = '';
    const ends: number[] = [];
    for (let j = i; j < keys.length && keys[j]; j++) {
      key += keys[j];
      if (j - i + 1 > maxWords || key.length > maxLength) break;
      ends.push(key.length);
    }
    return { key, ends, from: nextUnsure[i]! - i };
  });
}

/**
 * The run within `p`'s span and reach that sounds most like it, the first of equally alike runs (by start,
 * then end); exact if at least `floor` alike (others are not measured).
 */
function bestRun(p: KeyedPhrase, runs: readonly RunsFrom[], floor = 0): SoundMatch {
  const best: SoundMatch = { sim: 0, start: 0, end: 0 };
  const [most, longest, own] = [span(p), reach(p), p.key.length];
  // keys are at least their difference in length apart: how alike a run of `length` letters can be
  const bound = (length: number) => 1 - Math.abs(own - length) / Math.max(own, length);
  const distances = prefixDistances(p.key);
  for (let start = 0; start < runs.length; start++) {
    const { key, ends, from } = runs[start]!;
    let last = -1;
    for (let k = from; k < Math.min(ends.length, most) && ends[k]! <= longest; k++) if (bound(ends[k]!) >= Math.max(floor, best.sim)) last = k;
    if (last < 0) continue;
    const d = distances(key, ends[last]!);
    for (let k = from; k <= last; k++) {
      const length = ends[k]!;
      const sim = 1 - d[length - 1]! / Math.max(own, length);
      if (bound(length) >= floor && sim > best.sim) Object.assign(best, { sim, start, end: start + k + 1 });
    }
  }
  return best;
}

/**
 * The first `limit` phrases by how much they sound like a run of `heard` words that holds an unsure one,
 * best first, ties in list order; those less alike than `minSim` left out.
 */
export function rankPhrases(heard: HeardWords, phrases: readonly string[], minSim = 0, limit = Infinity): string[] {
  const list = keyed(phrases).phrases;
  const runs = wordRuns(
    heard,
    list.reduce((most, p) => Math.max(most, span(p)), 0),
    list.reduce((most, p) => Math.max(most, reach(p)), 0),
  );
  // best first; once `limit` are held, a phrase must beat the last (an earlier one wins a tie), and is
  // only measured as far as it could
  const top: { phrase: string; sim: number }[] = [];
  for (const p of list) {
    const full = top.length >= limit;
    const { sim } = bestRun(p, runs, full ? Math.max(minSim, top.at(-1)!.sim) : minSim);
    if (sim < minSim || (full && sim <= top.at(-1)!.sim)) continue;
    let at = top.length;
    while (at > 0 && top[at - 1]!.sim < sim) at--;
    top.splice(at, 0, { phrase: p.phrase, sim });
    if (top.length > limit) top.pop();
  }
  return top.map((p) => p.phrase);
}
