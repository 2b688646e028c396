/**
 * Text a seek writes twice. A window's pass that closes while speech is left is followed by a pass over
 * the rest from its last timestamp (engine/pipeline.ts). When that timestamp came too early (on fast
 * speech a pass can close seconds before its words end), the rest starts inside speech the pass already
 * wrote, and its first words repeat the pass's last ones. The overlap is found by words, as
 * chunked decoders merge overlapping chunks, and the rest keeps only what follows it. Pure functions: no ORT.
 */

/**
 * The fewest words an overlap must have to be taken as written twice: a word or two said again across
 * the boundary is ordinary speech ("I, I think"). Chosen between what the seeks of ../shared/dev (en,
 * multi), ../shared/eval/en and the flite bias set repeated, tiny and base: no word on real speech, 18-20
 * words where a pass had closed early (CHANGELOG.md, Unreleased).
 */
export const MIN_REPEATED_WORDS = 3;

/** A word as the overlap compares it: lower case, letters, digits and apostrophes only. */
export function comparable(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
}

/**
 * How many of `rest`'s first words repeat `before`'s last ones (the longest such overlap, compared by
 * comparable()), or 0 when the longest is shorter than `minWords`. Words that compare empty (punctuation
 * alone) are skipped on both sides, and counted in `rest`'s total.
 */
export function repeatedStart(before: readonly string[], rest: readonly string[], minWords = MIN_REPEATED_WORDS): number {
  const tail = before.map(comparable).filter((w) => w !== '');
  const head: { word: string; through: number }[] = [];
  rest.forEach((w, i) => {
    const c = comparable(w);
    if (c !== '') head.push({ word: c, through: i + 1 });
  });
  for (let k = Math.min(tail.length, head.length); k >= minWords; k--) {
    let same = true;
    for (let j = 0; j < k && same; j++) same = tail[tail.length - k + j] === head[j]!.word;
    if (same) return head[k - 1]!.through;
  }
  return 0;
}
