import type { BiasVocabulary } from './trie';

/** Whisper's prompt holds at most 223 tokens (half its 448-token context); fewer leave room for text. */
export const MAX_PROMPT_TOKENS = 120;

/** The most phrases a prompt of MAX_PROMPT_TOKENS holds: each after the first takes a comma and a word. */
export const MAX_PROMPT_PHRASES = 1 + Math.floor((MAX_PROMPT_TOKENS - 1) / 2);

/**
 * Prompt ids (placed after <|startofprev|>) that list the phrases as if a previous window had said
 * them (" ComfyUI, Ozempic, Grafana"), and the phrases they hold: those that no longer fit are left out.
 */
export function phrasePrompt(vocab: BiasVocabulary, phrases: readonly string[], maxTokens = MAX_PROMPT_TOKENS): { ids: number[]; phrases: string[] } {
  const ids: number[] = [];
  const held: string[] = [];
  for (const phrase of phrases) {
    const p = phrase.trim();
    if (!p) continue;
    const piece = vocab.encode(ids.length === 0 ? ` ${p}` : `, ${p}`);
    if (ids.length + piece.length > maxTokens) break;
    ids.push(...piece);
    held.push(p);
  }
  return { ids, phrases: held };
}
