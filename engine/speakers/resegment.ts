/**
 * Re-segmentation: the most likely speaker sequence over steps of speech given each step's score per
 * speaker, where every change of speaker costs a fixed penalty (a two-state-per-speaker HMM reduced to
 * its Viterbi path). Scores are similarities to the speaker centroids, so the penalty is in the same
 * units: a change needs the other speaker to lead by `penalty` summed over the steps it takes over.
 * This keeps a turn from being cut where a 1.5 s piece straddles two speakers for a few steps.
 */

/** Speaker index per step; `scores[t][c]` is step t's score for speaker c (all rows the same length). */
export function smoothPath(scores: readonly Float64Array[], penalty: number): number[] {
  const steps = scores.length;
  if (steps === 0) return [];
  const k = scores[0]!.length;
  const back: Int32Array[] = [];
  let acc = Float64Array.from(scores[0]!);
  for (let t = 1; t < steps; t++) {
    // the best speaker to switch from is the same for every target: the best so far
    let best = 0;
    for (let c = 1; c < k; c++) if (acc[c]! > acc[best]!) best = c;
    const next = new Float64Array(k);
    const from = new Int32Array(k);
    for (let c = 0; c < k; c++) {
      const stay = acc[c]!;
      const move = acc[best]! - penalty;
      [next[c], from[c]] = c !== best && move > stay ? [move + scores[t]![c]!, best] : [stay + scores[t]![c]!, c];
    }
    back.push(from);
    acc = next;
  }
  let c = 0;
  for (let j = 1; j < k; j++) if (acc[j]! > acc[c]!) c = j;
  const path = new Array<number>(steps);
  for (let t = steps - 1; t >= 0; t--) {
    path[t] = c;
    if (t > 0) c = back[t - 1]![c]!;
  }
  return path;
}
