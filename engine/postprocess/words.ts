import type { EngineToken, EngineWord } from '../protocol';

/**
 * Languages written without spaces between words. Whisper's byte-level BPE makes no word boundaries
 * there, so a "word" is the smallest run of tokens that decodes to whole characters (as OpenAI's
 * `split_tokens_on_unicode`): one or more characters the tokenizer learnt as a unit, such as 分析.
 */
export const NO_SPACE_LANGUAGES: ReadonlySet<string> = new Set(['zh', 'ja', 'th', 'lo', 'my', 'yue', 'bo']);

const PUNCTUATION = /^[\p{P}\p{S}]+$/u;
const OPENING = /^[(\[{"'“‘«¿¡「『（【《〈]+$/u;
const ASCII_WORD_END = /[A-Za-z0-9]$/;
const ASCII_WORD_START = /^[A-Za-z0-9]/;

interface Piece {
  tokens: EngineToken[];
  text: string;
}

/** Runs of tokens that decode to whole characters (a multi-byte character can span tokens). */
function pieces(tokens: readonly EngineToken[], decode: (ids: number[]) => string): Piece[] {
  const out: Piece[] = [];
  let pending: EngineToken[] = [];
  for (const tok of tokens) {
    pending.push(tok);
    const text = decode(pending.map((t) => t.id));
    if (text.includes('\uFFFD') && pending.length < 4) continue;
    out.push({ tokens: pending, text });
    pending = [];
  }
  if (pending.length > 0) out.push({ tokens: pending, text: decode(pending.map((t) => t.id)) });
  return out;
}

interface Building {
  text: string;
  /** The tokens that carry the word itself; attached punctuation is left out of its time and confidence. */
  core: EngineToken[];
  all: EngineToken[];
}

/**
 * Groups tokens into words the way the text shows them.
 * - Spaced languages: a token that starts with a space opens a word; word pieces continue it.
 * - No-space languages (NO_SPACE_LANGUAGES): every whole-character piece is a word, except that Latin
 *   letters and digits continue a Latin word.
 * - Punctuation is attached, never a word of its own: opening marks (" ( ¿ «) to the next word, all
 *   others to the word before, without the space the text may show ("wait -" gives "wait-").
 * Times: from the first to the last of the word's own tokens (attached punctuation left out, since its
 * alignment tends to absorb the pause after it). Confidence: the lowest probability among the word's own
 * tokens, so a word is as reliable as its least certain piece; always in (0, 1].
 */
export function wordsFromTokens(
  tokens: readonly EngineToken[],
  decode: (ids: number[]) => string,
  speaker = 0,
  language = '',
): EngineWord[] {
  return groupWords(tokens, decode, language).map((w) => {
    const timed = w.core.length > 0 ? w.core : w.all;
    return {
      text: w.text.trim(),
      startMs: timed[0]!.startMs,
      endMs: timed[timed.length - 1]!.endMs,
      confidence: Math.max(Number.MIN_VALUE, Math.min(1, ...timed.map((t) => t.probability))),
      speaker,
    };
  });
}

/** The tokens of one word of `wordsFromTokens`: its own (`core`), and all of them, attached punctuation and spaces included. */
export interface WordTokens {
  core: readonly EngineToken[];
  all: readonly EngineToken[];
}

/** The tokens of each word `wordsFromTokens` makes of `tokens`, in the same order. */
export function wordTokens(tokens: readonly EngineToken[], decode: (ids: number[]) => string, language = ''): WordTokens[] {
  return groupWords(tokens, decode, language).map(({ core, all }) => ({ core, all }));
}

/** A word of a decoded pass, as indices into the pass's own tokens (timestamps included): its own, and all of them. */
export interface WordPlaces {
  core: number[];
  all: number[];
}

/**
 * The words `wordTokens` makes of a pass's text tokens, placed in the pass: for passes not yet timed
 * (grouping reads the ids alone), where words are cut from or compared in the pass itself.
 */
export function passWordPlaces(
  tokens: readonly { id: number }[],
  vocab: { decode(ids: readonly number[]): string; isText(id: number): boolean },
  language = '',
): WordPlaces[] {
  const place = new Map<EngineToken, number>();
  tokens.forEach((t, i) => {
    if (vocab.isText(t.id)) place.set({ id: t.id, text: '', startMs: 0, endMs: 0, probability: 1 }, i);
  });
  const at = (ts: readonly EngineToken[]) => ts.map((t) => place.get(t)!);
  return wordTokens([...place.keys()], (ids) => vocab.decode(ids), language).map((w) => ({ core: at(w.core), all: at(w.all) }));
}

function groupWords(tokens: readonly EngineToken[], decode: (ids: number[]) => string, language: string): Building[] {
  const noSpaces = NO_SPACE_LANGUAGES.has(language);
  const words: Building[] = [];
  let opener: Building | null = null;
  for (const piece of pieces(tokens, decode)) {
    const trimmed = piece.text.trim();
    const current = words[words.length - 1];
    if (trimmed === '') {
      current?.all.push(...piece.tokens);
      continue;
    }
    if (PUNCTUATION.test(trimmed)) {
      if (OPENING.test(trimmed) || opener || current === undefined) {
        opener ??= { text: '', core: [], all: [] };
        opener.text += trimmed;
        opener.all.push(...piece.tokens);
      } else {
        current.text += trimmed;
        current.all.push(...piece.tokens);
      }
      continue;
    }
    const continues =
      current !== undefined &&
      opener === null &&
      (noSpaces
        ? ASCII_WORD_END.test(current.text) && ASCII_WORD_START.test(piece.text)
        : !piece.text.startsWith(' '));
    if (continues) {
      current.text += piece.text;
      current.core.push(...piece.tokens);
      current.all.push(...piece.tokens);
    } else {
      const word: Building = opener ?? { text: '', core: [], all: [] };
      word.text += trimmed;
      word.core.push(...piece.tokens);
      word.all.push(...piece.tokens);
      words.push(word);
      opener = null;
    }
  }
  if (opener) {
    const last = words[words.length - 1];
    if (last) {
      last.text += opener.text;
      last.all.push(...opener.all);
    } else words.push({ ...opener, core: opener.all });
  }
  return words;
}
