import type { GeneratedToken } from '../../whisper/generate';
import { passWordPlaces } from '../../postprocess/words';
import { everyRun, keyed, soundKey, soundMatch, type HeardWords, type SoundMatch } from './shortlist';
import type { BiasVocabulary } from './trie';

export interface SpliceVocabulary extends BiasVocabulary {
  isText(id: number): boolean;
}

/** A word of a decoded pass: tokens [start, end) of its token list, punctuation around it left out. */
interface TokenWord {
  start: number;
  end: number;
  text: string;
}

/**
 * The words of a pass as words.ts groups them for the transcript, located in the pass's own tokens, split
 * where punctuation joins parts ("flour-fat", "ZRL-to-FTER"): a pass hyphenates what it heard in pieces.
 */
export function tokenWords(vocab: SpliceVocabulary, tokens: readonly GeneratedToken[]): TokenWord[] {
  const parts = (core: readonly number[]) => {
    const runs: number[][] = [];
    for (const i of core) {
      const run = runs[runs.length - 1];
      if (run && run[run.length - 1] === i - 1) run.push(i);
      else runs.push([i]);
    }
    return runs;
  };
  return passWordPlaces(tokens, vocab)
    .flatMap((w) => parts(w.core))
    .map((run) => ({ start: run[0]!, end: run[run.length - 1]! + 1, text: vocab.decode(run.map((i) => tokens[i]!.id)) }));
}

/**
 * A word written below this log-probability (runLogprob) is unsure: only there, or where the pass split a
 * listed name into words, may a phrase be missing. Flite set: misheard names −0.67 to −2.0, others > −0.3.
 */
export const UNSURE = -0.6;

/** A decoded pass's words, found once for all the phrases tried against it; as the shortlist hears them, too. */
export interface PassWords extends HeardWords {
  tokens: readonly GeneratedToken[];
  words: TokenWord[];
  /** Per word, whether it is a name the model pieced together (piecedName). */
  names: boolean[];
  /** Per word, how sure the pass was of it (runLogprob of the word alone). */
  sureness: number[];
  /** soundKey of each word. */
  keys: string[];
  /** Per word, whether it is below UNSURE: a matched run must hold one. */
  unsure: boolean[];
}

export function passWords(vocab: SpliceVocabulary, tokens: readonly GeneratedToken[]): PassWords {
  const words = tokenWords(vocab, tokens);
  const keys = words.map((w) => soundKey(w.text));
  const names = words.map((w) => piecedName(vocab, tokens, w));
  const sureness = words.map((_, i) => runLogprob({ tokens, words, names }, i, i + 1));
  return { tokens, words, names, sureness, keys, unsure: sureness.map((s) => s < UNSURE) };
}

/**
 * How sure a pass was of its words [from, to): the mean log-probability of their tokens, but a name the
 * model pieced together counts as one token: it is written whole only as often as all its pieces are.
 */
export function runLogprob(pass: Pick<PassWords, 'tokens' | 'words' | 'names'>, from: number, to: number): number {
  const { tokens, words, names } = pass;
  let sum = 0;
  for (let t = words[from]!.start; t < words[to - 1]!.end; t++) sum += tokens[t]!.logprob;
  let counted = words[to - 1]!.end - words[from]!.start;
  for (let i = from; i < to; i++) if (names[i]) counted -= words[i]!.end - words[i]!.start - 1;
  return sum / counted;
}

/** Whether `word` is a capitalised word of several tokens that does not begin a sentence. */
function piecedName(vocab: SpliceVocabulary, tokens: readonly GeneratedToken[], { start, end, text }: TokenWord): boolean {
  if (end - start < 2 || !/^\p{Lu}/u.test(text.trim()) || start === 0) return false;
  const before = tokens[start - 1]!.id;
  return vocab.isText(before) && !/[.!?]["')\]]*\s*$/.test(vocab.decode([before]));
}

/** A pass with one run of its words replaced by a listed phrase. */
export interface Splice {
  ids: number[];
  match: SoundMatch;
  /** The replaced words, as the pass had them. */
  replaced: string;
  /** How sure the pass was of what it heard there (runLogprob of the replaced words). */
  replacedLogprob: number;
}

/**
 * `phrase` written over the run of words that sounds most like it, in the pass's own tokens, or null when
 * none is `minSim` alike: a candidate for the model to score.
 */
export function splicePhrase(vocab: SpliceVocabulary, pass: PassWords, phrase: string, minSim: number): Splice | null {
  const { tokens, words } = pass;
  const match = soundMatch(phrase, everyRun(pass.keys));
  if (match.sim < minSim || match.end === 0) return null;
  const start = words[match.start]!.start;
  const end = words[match.end - 1]!.end;
  const spaced = vocab.decode([tokens[start]!.id]).startsWith(' ');
  return {
    match,
    ids: [...tokens.slice(0, start).map((t) => t.id), ...vocab.encode(spaced ? ` ${phrase.trim()}` : phrase.trim()), ...tokens.slice(end).map((t) => t.id)],
    replaced: vocab.decode(tokens.slice(start, end).map((t) => t.id)).trim(),
    replacedLogprob: runLogprob(pass, match.start, match.end),
  };
}

/**
 * The listed phrases with the soundKey of a run of the pass's words that splits them into more words
 * ("play right" for "Playwright"), of which the pass may be sure. A word for word respelling ("lift" for
 * "Lyft") is left alone, as the pass chose a real word, unless it is a misspeltName. Found by key.
 */
export function sameSoundPhrases(vocab: SpliceVocabulary, pass: PassWords, phrases: readonly string[]): string[] {
  const { byKey, longest } = keyed(phrases);
  const { tokens, words, keys } = pass;
  const found = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    let text = '';
    for (let j = i; j < words.length && keys[j]; j++) {
      // keyed whole, as a phrase is: a letter doubled across parts is one ("K-R-Z-Y-S-Z-T-O-F")
      text += words[j]!.text;
      const run = soundKey(text);
      if (run.length > longest) break;
      for (const phrase of byKey.get(run) ?? []) {
        // words counted as written ("K-R-Z-Y-S-Z-T-O-F": nine for the phrase's one)
        const written = vocab.decode(tokens.slice(words[i]!.start, words[j]!.end).map((t) => t.id));
        if (wordCount(written) > wordCount(phrase) || misspeltName(pass, i, j, written, phrase)) found.add(phrase);
      }
    }
  }
  return [...found];
}

/**
 * Word `i` (= `j`) spelt otherwise than the one-word `phrase` of its key, in several tokens: common words
 * are one token, so this is the name misspelt (a British spelling, a place spelt by ear).
 */
function misspeltName({ words }: PassWords, i: number, j: number, written: string, phrase: string): boolean {
  return i === j && words[i]!.end - words[i]!.start > 1 && wordCount(phrase) === 1 && written.trim().toLowerCase() !== phrase.trim().toLowerCase();
}

/** Runs of letters and digits: "K-R-Z-Y-S-Z-T-O-F" is nine. */
const wordCount = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;
