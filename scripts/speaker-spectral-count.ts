/**
 * The speaker count from the eigengap of a normalised affinity matrix (spectral clustering's count):
 * each piece keeps its affinity to its nearest `keep` share of pieces (the rest set to 0, which
 * removes the weak cross-speaker links that a room or microphone shares), the matrix is made
 * symmetric and normalised (D^-1/2 A D^-1/2), and the count is where its descending eigenvalues drop
 * most, among counts up to the bound.
 * Measured only (scripts/fit-speaker-count.mjs), not in the engine: best of the rules on LibriSpeech
 * (55-57% right counts) but worse on the meetings (see CLUSTER_DEFAULTS), and on one tight group of
 * pieces the pruned graph falls apart into several components, so one speaker can come out as three.
 */
import { absorbTiny, averageLinkage, CLUSTER_DEFAULTS, cutTree, similarityMatrix } from '../engine/speakers/cluster';
import { symmetricEigen } from './symmetric-eigen';

/** Pieces beyond this are subsampled evenly for the count (the Jacobi eigen-solver is O(n³)). */
const MAX_PIECES = 300;

export function eigengapCount(sim: Float64Array, n: number, bound: number, keep: number): number {
  if (n < 3 || bound <= 1) return 1;
  const m = Math.min(n, MAX_PIECES);
  const pick = Array.from({ length: m }, (_, i) => Math.floor((i * n) / m));
  const a = new Float64Array(m * m);
  const k = Math.max(1, Math.round(keep * m));
  for (let i = 0; i < m; i++) {
    const row = pick.map((j) => sim[pick[i]! * n + j]!);
    const cut = [...row].sort((x, y) => y - x)[Math.min(m - 1, k)]!;
    for (let j = 0; j < m; j++) if (row[j]! > cut || i === j) a[i * m + j] = Math.max(0, row[j]!);
  }
  for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) a[i * m + j] = a[j * m + i] = (a[i * m + j]! + a[j * m + i]!) / 2;
  const d = new Float64Array(m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) d[i]! += a[i * m + j]!;
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) a[i * m + j] = a[i * m + j]! / Math.sqrt(d[i]! * d[j]! || 1);
  const { values } = symmetricEigen(a, m, 12);
  let best = 1;
  let bestGap = -Infinity;
  for (let c = 1; c <= Math.min(bound, m - 1); c++) {
    const gap = values[c - 1]! - values[c]!;
    if (gap > bestGap) [best, bestGap] = [c, gap];
  }
  return best;
}

/** Labels for `vectors`: the average-linkage tree cut at the eigengap count (tiny clusters absorbed). */
export function spectralLabels(vectors: readonly Float32Array[], bound: number, keep: number): number[] {
  const n = vectors.length;
  if (n < 3) return new Array<number>(n).fill(0);
  const sim = similarityMatrix(vectors);
  const k = eigengapCount(sim, n, bound, keep);
  return absorbTiny(sim, n, cutTree(averageLinkage(sim, n), n, k), CLUSTER_DEFAULTS.minShare, CLUSTER_DEFAULTS.minPoints);
}
