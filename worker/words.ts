import type { EngineToken, EngineWord } from '../src/engine-types';

/**
 * Groups sub-word tokens into words: a token whose text starts with a space opens a new word; others
 * (word pieces, punctuation) attach to the word before, so punctuation stays where the text shows it.
 * A word's text is decoded from its token ids together (multi-byte characters can span tokens).
 * Confidence is the lowest token probability in the word: a word is as reliable as its least certain piece.
 */
export function wordsFromTokens(tokens: readonly EngineToken[], decode: (ids: number[]) => string, speaker = 0): EngineWord[] {
  const groups: EngineToken[][] = [];
  for (const tok of tokens) {
    const opensWord = tok.text.startsWith(' ') || groups.length === 0;
    if (opensWord) groups.push([tok]);
    else groups[groups.length - 1]!.push(tok);
  }
  return groups
    .map((g) => ({
      text: decode(g.map((t) => t.id)).trim(),
      startMs: g[0]!.startMs,
      endMs: g[g.length - 1]!.endMs,
      confidence: Math.min(...g.map((t) => t.probability)),
      speaker,
    }))
    .filter((w) => w.text.length > 0);
}
