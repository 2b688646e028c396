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
  /** Its key's letter counts, once ranked (rankPhrases). */
  counts?: LetterCounts;
}

const keyedPhrase = (phrase: string): KeyedPhrase => ({ phrase, key: soundKey(phrase), words: phrase.trim().split(/\s+/).length });

/** Keys of the last few phrase lists: a 10,000-phrase custom model is keyed once per worker. */
const keyedLists = recentLists<KeyedPhrase[]>();

function keyed(phrases: readonly string[]): KeyedPhrase[] {
  return keyedLists(phrases, () => phrases.map(keyedPhrase).filter((p) => p.key.length > 0));
}

/** The phrases of a list by sound key, and the longest key; built once per list, as `keyed`. */
export interface KeyIndex {
  phrases: ReadonlyMap<string, readonly string[]>;
  longest: number;
}

const keyIndexes = recentLists<KeyIndex>();

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

/**
 * The run of `wordKeys` (soundKey of each word) that sounds most like `phrase`. Runs of more words than
 * the phrase has are tried (its span), since an unbiased pass splits rare names ("Siobhan Nguyen" →
 * "Shabon NGU IDN"); the first of equally alike runs wins.
 */
export function soundMatch(phrase: string, wordKeys: readonly string[]): SoundMatch {
  const p = keyedPhrase(phrase);
  return bestRun(p, wordRuns(wordKeys, span(p), reach(p)));
}

/**
 * How far the runs of words matched against a phrase may reach beyond it: SPAN_EXTRA_WORDS words more
 * than it has, and REACH_PER_LETTER letters of sound key per letter of its own plus REACH_LETTERS
 * (a name heard as several short words spells out longer). Bounds on the search; what other values did
 * on the bias sets is in bench/bias-set/README.md's tuning table.
 */
const SPAN_EXTRA_WORDS = 2;
const REACH_PER_LETTER = 1.6;
const REACH_LETTERS = 2;

/** The most words a run matched against `p` may hold. */
const span = (p: KeyedPhrase) => p.words + SPAN_EXTRA_WORDS;

/** The longest run of words a phrase is matched against, in letters of sound key. */
const reach = (p: KeyedPhrase) => p.key.length * REACH_PER_LETTER + REACH_LETTERS;

/** A run of words: words [start, end), how many, and their keys run together. */
interface WordRun {
  start: number;
  end: number;
  words: number;
  key: string;
}

/**
 * Every run of up to `maxWords` words and `maxLength` letters, by start and then end. A word with no
 * letters or digits (a gap between the stretches searched) ends every run. Built once per window and
 * matched against every phrase of a list.
 */
function wordRuns(words: readonly string[], maxWords: number, maxLength: number): WordRun[] {
  const runs: WordRun[] = [];
  for (let i = 0; i < words.length; i++) {
    let key = '';
    for (let j = i; j < words.length && words[j]; j++) {
      key += words[j];
      if (j - i + 1 > maxWords || key.length > maxLength) break;
      runs.push({ start: i, end: j + 1, words: j - i + 1, key });
    }
  }
  return runs;
}

/**
 * The run that sounds most like `p`, of those within its span and its reach; the first of
 * equally alike runs wins. A run that could not be at least `floor` alike is not measured (the result
 * is then exact only if it is that alike).
 */
function bestRun(p: KeyedPhrase, runs: readonly WordRun[], floor = 0): SoundMatch {
  const best: SoundMatch = { sim: 0, start: 0, end: 0 };
  const [most, longest] = [span(p), reach(p)];
  for (const run of runs) {
    if (run.words > most || run.key.length > longest) continue;
    const longer = Math.max(p.key.length, run.key.length);
    // keys are at least their difference in length apart
    const bound = 1 - Math.abs(p.key.length - run.key.length) / longer;
    if (bound < floor || bound <= best.sim) continue;
    const sim = 1 - distance(p.key, run.key) / longer;
    if (sim > best.sim) Object.assign(best, { sim, start: run.start, end: run.end });
  }
  return best;
}

/** How often each character occurs in a sound key: a table by char code, and the characters it holds with their counts. */
interface LetterCounts {
  table: Uint8Array;
  letters: number[];
  counts: number[];
}

function letterCounts(key: string): LetterCounts {
  const table = new Uint8Array(128);
  for (let i = 0; i < key.length; i++) table[key.charCodeAt(i)]!++;
  const letters: number[] = [];
  const counts: number[] = [];
  table.forEach((n, c) => {
    if (n > 0) letters.push(c), counts.push(n);
  });
  return { table, letters, counts };
}

/**
 * A window's runs of words as rankPhrases matches a whole list against them: each distinct key once,
 * with the fewest words it takes, grouped by key length. A phrase is matched against the lengths that
 * could be most alike first, and no further once none can beat what it has; within a length, a run whose
 * letters alone put it too far apart is not measured. The order found is the same as bestRun's, at about
 * a third of its time for a 10,000-phrase list (bench/bias-set/README.md, "Normalizing a row, and ranking
 * 10,000 names, cost less").
 */
class RunsByLength {
  private readonly byLength = new Map<number, { key: string; words: number; counts: Uint8Array }[]>();
  /** Per phrase key length, the run lengths in the order they are tried (how alike they could be, best first). */
  private readonly orders = new Map<number, { length: number; bound: number }[]>();

  constructor(runs: readonly WordRun[]) {
    const fewest = new Map<string, number>();
    for (const run of runs) fewest.set(run.key, Math.min(run.words, fewest.get(run.key) ?? Infinity));
    for (const [key, words] of fewest) {
      const group = this.byLength.get(key.length) ?? [];
      group.push({ key, words, counts: letterCounts(key).table });
      this.byLength.set(key.length, group);
    }
  }

  /** How alike `p` sounds to its likeliest run within its span and reach (as bestRun), exact if at least `floor`. */
  best(p: KeyedPhrase, floor: number): number {
    let best = 0;
    const [most, longest] = [span(p), reach(p)];
    const counts = (p.counts ??= letterCounts(p.key));
    for (const { length, bound } of this.order(p.key.length)) {
      if (bound < floor || bound <= best) break;
      if (length > longest) continue;
      const longer = Math.max(p.key.length, length);
      for (const run of this.byLength.get(length)!) {
        if (run.words > most) continue;
        // each letter one key holds more often than the other takes an edit
        let extra = 0;
        for (let c = 0; c < counts.letters.length; c++) extra += Math.max(0, counts.counts[c]! - run.counts[counts.letters[c]!]!);
        const apart = Math.max(extra, length - p.key.length + extra);
        if (1 - apart / longer <= Math.max(best, floor - 1e-9)) continue;
        best = Math.max(best, 1 - distance(p.key, run.key) / longer);
        if (best >= bound) break;
      }
    }
    return best;
  }

  private order(keyLength: number): { length: number; bound: number }[] {
    let order = this.orders.get(keyLength);
    if (!order) {
      order = [...this.byLength.keys()]
        .map((length) => ({ length, bound: 1 - Math.abs(keyLength - length) / Math.max(keyLength, length) }))
        .sort((a, b) => b.bound - a.bound);
      this.orders.set(keyLength, order);
    }
    return order;
  }
}

/**
 * The phrases ordered by how much they sound like something in `text` (an unbiased transcription of
 * the same audio, or stretches of it with "|" between them), best first; ties keep list order; the
 * first `limit` of them. Those less alike than `minSim` are left out.
 */
export function rankPhrases(text: string, phrases: readonly string[], minSim = 0, limit = Infinity): string[] {
  const list = keyed(phrases);
  const runs = new RunsByLength(
    wordRuns(
      text.split(/\s+/).map(soundKey),
      list.reduce((most, p) => Math.max(most, span(p)), 0),
      list.reduce((most, p) => Math.max(most, reach(p)), 0),
    ),
  );
  // best first; once `limit` are held, a phrase must beat the last (an earlier one wins a tie), and is
  // only measured as far as it could
  const top: { phrase: string; sim: number }[] = [];
  for (const p of list) {
    const full = top.length >= limit;
    const sim = runs.best(p, full ? Math.max(minSim, top.at(-1)!.sim) : minSim);
    if (sim < minSim || (full && sim <= top.at(-1)!.sim)) continue;
    let at = top.length;
    while (at > 0 && top[at - 1]!.sim < sim) at--;
    top.splice(at, 0, { phrase: p.phrase, sim });
    if (top.length > limit) top.pop();
  }
  return top.map((p) => p.phrase);
}
