import { describe, expect, it } from 'vitest';
import { absorbTiny, averageLinkage, clusterSpeakers, cutTree, minSeparation, separation, similarityMatrix } from '../../engine/speakers/cluster';
import { seeded } from '../../engine/decoding/seeded-random';

const DIMS = 64;

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** `counts[i]` points around centre i (cosine to the centre ≈ 1/sqrt(1+noise²·DIMS)), in the given order of centres. */
function synthetic(order: number[], counts: number[], noise: number, seed: number): Float32Array[] {
  const rand = seeded(seed);
  const centres = counts.map(() => unit(Float32Array.from({ length: DIMS }, () => gaussian(rand))));
  const left = counts.slice();
  const out: Float32Array[] = [];
  for (const c of order) {
    if (left[c]! <= 0) continue;
    left[c]!--;
    out.push(unit(centres[c]!.map((x) => x + noise * gaussian(rand))));
  }
  return out;
}

/** What SpeakerDiarizer does before clustering: subtract the mean vector, back to unit length. */
function centred(vs: Float32Array[]): Float32Array[] {
  const mean = new Float32Array(DIMS);
  for (const v of vs) v.forEach((x, d) => (mean[d]! += x / vs.length));
  return vs.map((v) => unit(v.map((x, d) => x - mean[d]!)));
}

/** A turn-taking order: runs of 3-6 points per speaker. */
function turnOrder(counts: number[], seed: number): number[] {
  const rand = seeded(seed);
  const left = counts.slice();
  const order: number[] = [];
  let s = 0;
  while (left.some((n) => n > 0)) {
    const run = 3 + Math.floor(rand() * 4);
    for (let i = 0; i < run && left[s]! > 0; i++, left[s]!--) order.push(s);
    s = (s + 1 + Math.floor(rand() * (counts.length - 1))) % counts.length;
  }
  return order;
}

/** True when two labelings agree up to renaming. */
function samePartition(a: number[], b: number[]): boolean {
  const map = new Map<number, number>();
  const back = new Map<number, number>();
  return a.every((x, i) => {
    const y = b[i]!;
    if ((map.has(x) && map.get(x) !== y) || (back.has(y) && back.get(y) !== x)) return false;
    map.set(x, y);
    back.set(y, x);
    return true;
  });
}

function truthLabels(order: number[], counts: number[]): number[] {
  const left = counts.slice();
  return order.filter((c) => left[c]! > 0 && left[c]!-- > 0);
}

describe('averageLinkage', () => {
  it('matches naive average-linkage agglomeration on random points', () => {
    const rand = seeded(3);
    const n = 25;
    const vectors = Array.from({ length: n }, () => unit(Float32Array.from({ length: 8 }, () => gaussian(rand))));
    const sim = similarityMatrix(vectors);
    const fast = averageLinkage(sim, n).map((m) => m.similarity);
    // naive: clusters as member lists, merge the pair with the highest mean pairwise similarity
    let clusters = Array.from({ length: n }, (_, i) => [i]);
    const naive: number[] = [];
    while (clusters.length > 1) {
      let best = [-1, -1, -Infinity] as [number, number, number];
      for (let i = 0; i < clusters.length; i++) {
        for (let j = i + 1; j < clusters.length; j++) {
          let s = 0;
          for (const a of clusters[i]!) for (const b of clusters[j]!) s += sim[a * n + b]!;
          s /= clusters[i]!.length * clusters[j]!.length;
          if (s > best[2]) best = [i, j, s];
        }
      }
      naive.push(best[2]);
      const merged = [...clusters[best[0]]!, ...clusters[best[1]]!];
      clusters = clusters.filter((_, k) => k !== best[0] && k !== best[1]).concat([merged]);
    }
    expect(fast).toHaveLength(n - 1);
    fast.forEach((s, i) => expect(s).toBeCloseTo(naive[i]!, 9));
  });

  it('cutTree gives k clusters labelled in order of first appearance', () => {
    const vectors = synthetic([0, 0, 1, 1, 2, 2, 0], [3, 2, 2], 0.05, 1);
    const sim = similarityMatrix(vectors);
    const labels = cutTree(averageLinkage(sim, vectors.length), vectors.length, 3);
    expect(labels).toEqual([0, 0, 1, 1, 2, 2, 0]);
  });
});

describe('clusterSpeakers', () => {
  it.each([2, 3, 4])('finds %i well-separated speakers with no bound, labels in order of first appearance', (k) => {
    const counts = Array.from({ length: k }, (_, i) => 15 + 2 * i);
    const order = turnOrder(counts, 10 + k);
    const vectors = centred(synthetic(order, counts, 0.12, 20 + k));
    const labels = clusterSpeakers(vectors, { maxSpeakers: null });
    expect(Math.max(...labels) + 1).toBe(k);
    expect(samePartition(labels, truthLabels(order, counts))).toBe(true);
    expect(labels[0]).toBe(0);
    labels.forEach((l, i) => expect(l).toBeLessThanOrEqual(Math.max(-1, ...labels.slice(0, i)) + 1));
  });

  it('keeps one cluster when all points are alike (uncentred: similarities far above the stop)', () => {
    const vectors = synthetic(new Array(40).fill(0), [40], 0.12, 5);
    expect(new Set(clusterSpeakers(vectors, { maxSpeakers: null }))).toEqual(new Set([0]));
  });

  it('max_speakers = 1 gives one speaker even for three clear ones', () => {
    const counts = [10, 10, 10];
    const vectors = centred(synthetic(turnOrder(counts, 2), counts, 0.1, 6));
    expect(clusterSpeakers(vectors, { maxSpeakers: 1 }).every((l) => l === 0)).toBe(true);
  });

  it('max_speakers is an upper bound: 3 speakers under a bound of 2 give 2, the two closest merged', () => {
    const counts = [15, 15, 15];
    const order = turnOrder(counts, 4);
    const vectors = synthetic(order, counts, 0.1, 8);
    // pull speaker 2 towards speaker 1 so the expected merge is unambiguous
    const truth = truthLabels(order, counts);
    const c1 = unit(vectors.filter((_, i) => truth[i] === 1).reduce((a, v) => a.map((x, d) => x + v[d]!), new Float32Array(DIMS)));
    const pulled = centred(vectors.map((v, i) => (truth[i] === 2 ? unit(v.map((x, d) => x + 1.2 * c1[d]!)) : v)));
    const labels = clusterSpeakers(pulled, { maxSpeakers: 2 });
    expect(Math.max(...labels) + 1).toBe(2);
    const merged = truth.map((t) => (t === 2 ? 1 : t));
    expect(samePartition(labels, merged)).toBe(true);
  });

  it("counts a speaker who holds 8% of a long recording's speech", () => {
    const counts = [200, 150, 30];
    const order = turnOrder(counts, 12);
    const vectors = centred(synthetic(order, counts, 0.15, 13));
    const labels = clusterSpeakers(vectors, { maxSpeakers: null });
    expect(Math.max(...labels) + 1).toBe(3);
    expect(samePartition(labels, truthLabels(order, counts))).toBe(true);
  });

  it('absorbs a tiny outlier cluster (5% of the points) instead of counting it as a speaker', () => {
    const counts = [20, 20, 2];
    const order = [...turnOrder([20, 20], 9).slice(0, 20), 2, 2, ...turnOrder([20, 20], 9).slice(20)];
    const vectors = centred(synthetic(order, counts, 0.1, 11));
    const labels = clusterSpeakers(vectors, { maxSpeakers: null });
    expect(Math.max(...labels) + 1).toBe(2);
  });
});

describe('absorbTiny', () => {
  it('merges everything into one speaker when no cluster holds enough points', () => {
    const vectors = centred(synthetic([0, 1, 2, 0, 1, 2], [2, 2, 2], 0.05, 12));
    const sim = similarityMatrix(vectors);
    expect(absorbTiny(sim, 6, [0, 1, 2, 0, 1, 2], 0.15, 4)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('gives a tiny cluster to the big cluster it is most similar to', () => {
    const order = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2];
    const vectors = synthetic(order, [5, 5, 1], 0.05, 13);
    // the lone point is a noisy copy of speaker 1
    vectors[10] = unit(vectors[6]!.map((x) => x + 0.02));
    const sim = similarityMatrix(vectors);
    expect(absorbTiny(sim, 11, order, 0.15, 4)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
  });
});

describe('separation', () => {
  it('is larger for two real speakers than for a split of one speaker, and grows with the amount of speech', () => {
    const two = (n: number): number => {
      const counts = [n, n];
      const order = turnOrder(counts, 30 + n);
      const vectors = centred(synthetic(order, counts, 0.25, 40 + n));
      return separation(similarityMatrix(vectors), 2 * n, truthLabels(order, counts), 0, 1);
    };
    const oneSplit = (n: number): number => {
      const vectors = centred(synthetic(new Array(2 * n).fill(0), [2 * n], 0.25, 50 + n));
      const sim = similarityMatrix(vectors);
      return minSeparation(sim, 2 * n, cutTree(averageLinkage(sim, 2 * n), 2 * n, 2));
    };
    for (const n of [8, 20, 40]) expect(two(n)).toBeGreaterThan(oneSplit(n));
    expect(two(40)).toBeGreaterThan(two(8));
  });

  it('is 0 when a cluster is empty, and symmetric in the two clusters', () => {
    const vectors = centred(synthetic([0, 1, 0, 1, 0, 1], [3, 3], 0.1, 14));
    const sim = similarityMatrix(vectors);
    const labels = [0, 1, 0, 1, 0, 1];
    expect(separation(sim, 6, labels, 0, 2)).toBe(0);
    expect(separation(sim, 6, labels, 0, 1)).toBeCloseTo(separation(sim, 6, labels, 1, 0), 12);
    expect(minSeparation(sim, 6, [0, 0, 0, 0, 0, 0])).toBe(Infinity);
  });
});

describe("clusterSpeakers' separation count", () => {
  it('keeps one speaker for one voice whatever the amount of speech (recording-centred, as the diarizer does)', () => {
    for (const n of [6, 12, 30, 60]) {
      const vectors = centred(synthetic(new Array(n).fill(0), [n], 0.25, 60 + n));
      expect(new Set(clusterSpeakers(vectors, { maxSpeakers: null }))).toEqual(new Set([0]));
    }
  });

  it.each([2, 3])('finds %i speakers and their partition', (k) => {
    const counts = Array.from({ length: k }, (_, i) => 14 + 3 * i);
    const order = turnOrder(counts, 70 + k);
    const vectors = centred(synthetic(order, counts, 0.15, 80 + k));
    const labels = clusterSpeakers(vectors, { maxSpeakers: null });
    expect(Math.max(...labels) + 1).toBe(k);
    expect(samePartition(labels, truthLabels(order, counts))).toBe(true);
  });

  it('respects max_speakers', () => {
    const counts = [12, 12, 12];
    const vectors = centred(synthetic(turnOrder(counts, 90), counts, 0.15, 91));
    expect(Math.max(...clusterSpeakers(vectors, { maxSpeakers: 2 })) + 1).toBe(2);
  });
});

describe('clusterSpeakers beyond maxClustered', () => {
  it('clusters an evenly spaced subset and gives every piece the nearest of its speakers', () => {
    const counts = [150, 100, 50];
    const order = turnOrder(counts, 100);
    const vectors = centred(synthetic(order, counts, 0.15, 101));
    const labels = clusterSpeakers(vectors, { maxSpeakers: null, maxClustered: 60 });
    expect(labels).toHaveLength(300);
    expect(Math.max(...labels) + 1).toBe(3);
    expect(samePartition(labels, truthLabels(order, counts))).toBe(true);
    expect(labels[0]).toBe(0);
  });

  it('keeps one speaker for one voice, as the whole recording does', () => {
    const vectors = centred(synthetic(new Array(400).fill(0), [400], 0.25, 102));
    expect(new Set(clusterSpeakers(vectors, { maxSpeakers: null, maxClustered: 50 }))).toEqual(new Set([0]));
  });

  it('finds the speakers of 4 hours of speech (19,200 pieces) with the default bound', () => {
    const counts = [6000, 5400, 4800, 3000];
    const order = turnOrder(counts, 103);
    const vectors = centred(synthetic(order, counts, 0.15, 104));
    const labels = clusterSpeakers(vectors, { maxSpeakers: null });
    expect(labels).toHaveLength(19_200);
    expect(samePartition(labels, truthLabels(order, counts))).toBe(true);
    expect(Math.max(...labels) + 1).toBe(4);
  });
});
