/** Levenshtein distance (substitutions, insertions, deletions all cost 1) between two sequences. */
export function editDistance<T>(reference: readonly T[], hypothesis: readonly T[]): number {
  if (reference.length === 0) return hypothesis.length;
  if (hypothesis.length === 0) return reference.length;
  // Two rows over the hypothesis: O(|hyp|) memory, enough for hour-long transcripts.
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  let current = new Array<number>(hypothesis.length + 1).fill(0);
  for (let i = 1; i <= reference.length; i++) {
    current[0] = i;
    const r = reference[i - 1];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = previous[j - 1]! + (r === hypothesis[j - 1] ? 0 : 1);
      const deletion = previous[j]! + 1;
      const insertion = current[j - 1]! + 1;
      current[j] = Math.min(substitution, deletion, insertion);
    }
    [previous, current] = [current, previous];
  }
  return previous[hypothesis.length]!;
}
