import type { WhisperVocabulary } from '../../whisper/tokenizer';
import type { MatchState, PatternMatcher } from './pattern-matcher';
import { SpokenCodeReader, type SpokenCodeState } from './spoken-code-reader';
import { spokenCodeWord, type SpokenCodeWord } from './spoken-patterns';

/**
 * The two ways the pattern pass lets the model write a code, token by token: written as the pattern
 * shows it ("B755Q", "TK-8312") or spoken a symbol per word ("B seven double five Q"), for the text
 * rewrite to write out. Each form tells which tokens may come next and the state they lead to.
 */

export interface TokenTable {
  /** Text tokens made only of characters a code can hold (letters, digits, space, '-'), with their text. */
  codeTokens: Array<{ id: number; text: string }>;
  /** Tokens that are a space and a word speaking one symbol ("seven", "B", "7") or "double"/"triple", with its reading. */
  spokenTokens: Array<{ id: number; word: SpokenCodeWord }>;
  /** Per text token: its text starts with a letter, digit or '-' (it would glue onto a code before it). */
  gluesOn: Uint8Array;
  /** Per text token: it glues on, or is a space and a word the text rewrite may read as more of a spoken code. */
  extendsSpoken: Uint8Array;
}

const tables = new WeakMap<WhisperVocabulary, TokenTable>();

export function tokenTable(vocab: WhisperVocabulary): TokenTable {
  let table = tables.get(vocab);
  if (table) return table;
  const codeTokens: TokenTable['codeTokens'] = [];
  const spokenTokens: TokenTable['spokenTokens'] = [];
  const gluesOn = new Uint8Array(vocab.eot);
  const extendsSpoken = new Uint8Array(vocab.eot);
  for (let id = 0; id < vocab.eot; id++) {
    const t = vocab.decode([id]);
    if (/^[A-Za-z0-9-]/.test(t)) gluesOn[id] = extendsSpoken[id] = 1;
    if (/^ ?[A-Za-z0-9-]+(?: [A-Za-z0-9-]+)*$/.test(t)) codeTokens.push({ id, text: t });
    const word = /^ [A-Za-z0-9]+$/.test(t) ? spokenCodeWord(t.slice(1)) : null;
    // symbols one by one: a token of several ("911") would let the model write its written guess again
    if (word && ('repeat' in word || word.symbols.length === 1)) spokenTokens.push({ id, word });
    if (word) extendsSpoken[id] = 1;
  }
  table = { codeTokens, spokenTokens, gluesOn, extendsSpoken };
  tables.set(vocab, table);
  return table;
}

/** Where a code being written stands: whether it may go on, the patterns it may still become a match of, and those it matches. */
export type CodeState = Pick<MatchState, 'open' | 'alive' | 'accepted'>;

/** One way to write a code with tokens: written ("B755Q") or spoken ("B seven double five Q"). */
export interface CodeForm<S extends CodeState> {
  start: S;
  /** The tokens `worth` trying that may come next (the first after a space), each with the state it leads to. */
  next(state: S, first: boolean, worth: (id: number) => boolean): Array<{ id: number; state: S }>;
  /** The state after token `id`, or null when the form cannot go on with it. */
  step(state: S, id: number, first: boolean): S | null;
  /** Text tokens that may not follow a finished code: the text rewrite would read them as more of it. */
  extends: Uint8Array;
  /** The code was read with a repeat word ("double five"), which a written code cannot show. */
  heardRepeat(state: S): boolean;
}

export function writtenCodes(vocab: WhisperVocabulary, matcher: PatternMatcher): CodeForm<MatchState> {
  const table = tokenTable(vocab);
  return form(
    matcher.start,
    table.gluesOn,
    table.codeTokens,
    (state, t, first) => {
      if (!first) return matcher.advance(state, t.text);
      return t.text[0] === ' ' ? matcher.advance(state, t.text.slice(1)) : null;
    },
    () => false,
  );
}

export function spokenCodes(vocab: WhisperVocabulary, matcher: PatternMatcher): CodeForm<SpokenCodeState> {
  const table = tokenTable(vocab);
  const reader = new SpokenCodeReader(matcher);
  return form(reader.start, table.extendsSpoken, table.spokenTokens, (state, t) => reader.advance(state, t.word), (state) => state.repeated);
}

function form<S extends CodeState, T extends { id: number }>(
  start: S,
  extendsCode: Uint8Array,
  tokens: readonly T[],
  advance: (state: S, token: T, first: boolean) => S | null,
  heardRepeat: (state: S) => boolean,
): CodeForm<S> {
  const byId = new Map(tokens.map((t) => [t.id, t]));
  return {
    start,
    extends: extendsCode,
    heardRepeat,
    step(state, id, first) {
      const t = byId.get(id);
      return t ? advance(state, t, first) : null;
    },
    next(state, first, worth) {
      const out: Array<{ id: number; state: S }> = [];
      for (const t of tokens) {
        const next = worth(t.id) ? advance(state, t, first) : null;
        if (next) out.push({ id: t.id, state: next });
      }
      return out;
    },
  };
}
