/**
 * The basic normaliser for languages written with spaces (and, with whitespace then removed, for CER):
 * NFKC, lowercase, bracketed spans dropped, every punctuation, symbol and combining mark to a space.
 */
export function normalizeBasic(text: string): string {
  return dropBracketedSpans(text.normalize('NFKC').toLowerCase())
    .replace(/[\p{P}\p{S}\p{M}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Removes [..], <..>, {..} and (..) spans: annotations such as [laughter] or (inaudible). */
export function dropBracketedSpans(text: string): string {
  return text
    .replace(/[<[{][^>\]}]*[>\]}]/gu, ' ')
    .replace(/\([^)]*\)/gu, ' ');
}
