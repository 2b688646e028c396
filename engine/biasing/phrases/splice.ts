import type { GeneratedToken } from '../../whisper/generate';
import { passWordPlaces } from '../../postprocess/words';
import { phrasesByKey, soundKey, soundMatch, type SoundMatch } from './shortlist';
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

/** The words of a pass as words.ts groups them for the transcript, located in the pass's own tokens. */
export function tokenWords(vocab: SpliceVocabulary, tokens: readonly GeneratedToken[]): TokenWord[] {
  return passWordPlaces(tokens, vocab)
    .filter((w) => w.core.length > 0)
    .map(({ core }) => ({ start: core[0]!, end: core[core.length - 1]! + 1, text: vocab.decode(core.map((i) => tokens[i]!.id)) }));
}

/** A decoded pass's words, found once for all the phrases tried against it. */
export interface PassWords {
  tokens: readonly GeneratedToken[];
  words: TokenWord[];
  /** Per word, whether it is a name the model pieced together (piecedName). */
  names: boolean[];
  /** Per word, how sure the pass was of it (runLogprob of the word alone). */
  sureness: number[];
  /** soundKey of each word. */
  keys: string[];
}

export function passWords(vocab: SpliceVocabulary, tokens: readonly GeneratedToken[]): PassWords {
  const words = tokenWords(vocab, tokens);
  const keys = words.map((w) => soundKey(w.text));
  const names = words.map((w) => piecedName(vocab, tokens, w));
  const sureness = words.map((_, i) => runLogprob({ tokens, words, names }, i, i + 1));
  return { tokens, words, names, sureness, keys };
}

/**
 * How sure a pass was of its words [from, to): the mean log-probability of their tokens, but a name the
 * model pieced together counts as one token, its tokens' summed. Such a name is spelt from the sound and
 * is written whole only as often as all its pieces are, so its per-token mean overstates how sure the pass
 * was. Ordinary words keep the mean: summed, a common word of several tokens written right would read as
 * unsure and be offered to the list (bench/bias-set/README.md, "A name the pass pieced together is as sure
 * as the whole name").
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
 * `phrase` written in place of the run of words that sounds most like it, in the pass's own tokens
 * (timestamps and the rest of the text untouched), or null when no run sounds at least `minSim` alike.
 * Unlike a find-and-replace on the text, the result is only a candidate: the caller has the model score it.
 */
export function splicePhrase(vocab: SpliceVocabulary, pass: PassWords, phrase: string, minSim: number): Splice | null {
  const { tokens, words } = pass;
  const match = soundMatch(phrase, pass.keys);
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
 * The stretches of a pass around the words it was unsure of (runLogprob below `unsure`), each with one
 * word either side, "|" between stretches; "" when it was sure of every word.
 * What a phrase must sound like to be worth a second look (shortlist.ts rankPhrases reads the "|").
 */
export function unsureStretches(pass: PassWords, unsure: number): string {
  const { words } = pass;
  const keep = new Set<number>();
  words.forEach((_, i) => {
    if (pass.sureness[i]! < unsure) for (const k of [i - 1, i, i + 1]) if (k >= 0 && k < words.length) keep.add(k);
  });
  let text = '';
  words.forEach((w, i) => {
    if (keep.has(i)) text += ` ${w.text.trim()}`;
    else if (keep.has(i - 1)) text += ' |';
  });
  return text.trim();
}

/**
 * The listed phrases that sound the same (one soundKey) as a run of the pass's words that splits them into
 * more words: "play right" for "Playwright", "K-R-Z-Y-S-Z-T-O-F" for "Krzysztof", a name the model did not
 * know written as the pieces it did. The pass may have been sure of those words, since they are what was
 * said; only the spelling is the list's. A word for word respelling ("photos" for a listed "Fotos", "lift"
 * for "Lyft") is left alone: there the audio cannot tell the two apart, and the pass chose a real word;
 * unless the pass wrote it in more than one token (misspeltName).
 * Found by key, not by distance, so a 10,000-phrase list costs a few map lookups per word.
 */
export function sameSoundPhrases(vocab: SpliceVocabulary, pass: PassWords, phrases: readonly string[]): string[] {
  const index = phrasesByKey(phrases);
  const { tokens, words, keys } = pass;
  const found = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    let run = '';
    for (let j = i; j < words.length && keys[j]; j++) {
      run += keys[j];
      if (run.length > index.longest) break;
      for (const phrase of index.phrases.get(run) ?? []) {
        // as written, punctuation inside included ("K-R-Z-Y-S-Z-T-O-F" is a word "KRZYSZTOF")
        const written = vocab.decode(tokens.slice(words[i]!.start, words[j]!.end).map((t) => t.id));
        if (wordCount(written) > wordCount(phrase) || misspeltName(pass, i, j, written, phrase)) found.add(phrase);
      }
    }
  }
  return [...found];
}

/**
 * Word `i` (to `j`, the same word) written otherwise than the listed one-word `phrase` it sounds the same as,
 * in more than one token: common words are one token of Whisper's vocabulary, so this is no word the pass
 * chose over the name but the name misspelt (a British spelling, a place spelt by ear), of which the pass
 * may be sure. Where it was measured, the pass's other words that share a key with a phrase of a
 * 10,000-phrase list were one token each (bench/bias-set/README.md).
 */
function misspeltName({ words }: PassWords, i: number, j: number, written: string, phrase: string): boolean {
  return i === j && words[i]!.end - words[i]!.start > 1 && wordCount(phrase) === 1 && written.trim().toLowerCase() !== phrase.trim().toLowerCase();
}

/** Runs of letters and digits: "K-R-Z-Y-S-Z-T-O-F" is nine. */
const wordCount = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;
