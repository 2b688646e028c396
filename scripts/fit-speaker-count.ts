/**
 * Calibrates the speaker-count rule on LibriSpeech train-clean-100 (never on the meetings): synthetic
 * recordings of 1-4 speakers are made of the 1.5 s pieces (0.75 s hop) of randomly drawn utterances,
 * each speaker keeping a random share of its pieces (meetings are unequal), centred per recording as
 * the diarizer centres them; each count rule and threshold is scored by how often it finds the true
 * count, per true count and overall.
 * Run: node scripts/fit-speaker-count.mjs [--recordings N] [--constants FILE] [--separations T,T,...]
 *   [--min-shares S,S,...] [--min-points P,P,...]
 * (--separations: the 'separation' thresholds to score, default 0.4,0.5,0.6,0.7,0.8,1.0; --min-shares and
 * --min-points: score each threshold with each smallest speaker, ClusterOptions.minShare and minPoints,
 * instead of the default's)
 */
import { constantsFromArgs } from '../bench/diarization-eval';
import { seeded } from '../engine/decoding/seeded-random';
import { absorbTiny, averageLinkage, CLUSTER_DEFAULTS, clusterSpeakers, cutTree, similarityMatrix, type ClusterOptions } from '../engine/speakers/cluster';
import type { SpeakerConstants } from '../engine/speakers/constants';
import { windowEmbeddings } from '../engine/speakers/embed';
import { loadWindows, POSITIONS, type LabelledWindow } from './fit-speaker-model';
import { trainWindows } from './fit-speaker-windows';
import { spectralLabels } from './speaker-spectral-count';

/** Each utterance's 1.5 s piece embeddings (uncentred). */
export function utterancePieces(c: SpeakerConstants, windows: readonly LabelledWindow[]): Float32Array[][] {
  const out: Float32Array[][] = [];
  for (const w of windows) {
    for (const u of w.speech) {
      const pieces = windowEmbeddings({ hidden: w.hidden, positions: POSITIONS, dims: w.dims, startSample: 0 }, u.regions, c).map((e) => e.vector);
      if (pieces.length >= 2) out.push(pieces);
    }
  }
  return out;
}

export interface SyntheticRecording {
  speakers: number;
  pieces: Float32Array[];
}

/** `perCount` recordings for each true count 1..4; a speaker keeps 2 to all of its pieces (a contiguous run). */
export function syntheticRecordings(utterances: readonly Float32Array[][], perCount: number, seed = 11): SyntheticRecording[] {
  const rand = seeded(seed);
  const out: SyntheticRecording[] = [];
  for (let k = 1; k <= 4; k++) {
    for (let r = 0; r < perCount; r++) {
      const chosen = new Set<number>();
      while (chosen.size < k) chosen.add(Math.floor(rand() * utterances.length));
      const pieces: Float32Array[] = [];
      for (const u of chosen) {
        const all = utterances[u]!;
        const take = 2 + Math.floor(rand() * (all.length - 1));
        const from = Math.floor(rand() * (all.length - take + 1));
        pieces.push(...all.slice(from, from + take));
      }
      out.push({ speakers: k, pieces: centre(pieces) });
    }
  }
  return out;
}

/** Recording centring as SpeakerDiarizer.finish does it: minus the mean, unit length. */
function centre(vectors: readonly Float32Array[]): Float32Array[] {
  const mean = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let d = 0; d < mean.length; d++) mean[d]! += v[d]! / vectors.length;
  return vectors.map((v) => {
    const x = v.map((y, d) => y - mean[d]!);
    const n = Math.hypot(...x) || 1;
    return x.map((y) => y / n);
  });
}

/** A count rule to score: the shipped clustering's options, the spectral count, or the earlier threshold rule. */
export type CountRule = Partial<ClusterOptions> | { spectralKeep: number } | { stopSimilarity: number };

/**
 * The earlier count rule, kept here for comparison only: merge while the average-linkage similarity is
 * at least `stopSimilarity`, the deepest such cut whose count (tiny clusters absorbed) is within the bound.
 */
export function thresholdLabels(vectors: readonly Float32Array[], bound: number, stopSimilarity: number): number[] {
  const n = vectors.length;
  if (n < 3) return new Array<number>(n).fill(0);
  const sim = similarityMatrix(vectors);
  const merges = averageLinkage(sim, n);
  const above = merges.filter((m) => m.similarity >= stopSimilarity).length;
  for (let k = n - above; k >= 1; k--) {
    const labels = absorbTiny(sim, n, cutTree(merges, n, k), CLUSTER_DEFAULTS.minShare, CLUSTER_DEFAULTS.minPoints);
    if (Math.max(...labels) + 1 <= bound) return labels;
  }
  return new Array<number>(n).fill(0);
}

/** Share of recordings with the right count, per true count (index k-1) and overall. */
export function countAccuracy(recordings: readonly SyntheticRecording[], rule: CountRule): { perCount: number[]; all: number } {
  const right = [0, 0, 0, 0];
  const total = [0, 0, 0, 0];
  for (const r of recordings) {
    const labels =
      'spectralKeep' in rule
        ? spectralLabels(r.pieces, 8, rule.spectralKeep)
        : 'stopSimilarity' in rule
          ? thresholdLabels(r.pieces, 8, rule.stopSimilarity)
          : clusterSpeakers(r.pieces, { ...rule, maxSpeakers: null, autoMaxSpeakers: 8 });
    total[r.speakers - 1]!++;
    if (Math.max(...labels) + 1 === r.speakers) right[r.speakers - 1]!++;
  }
  const perCount = right.map((x, i) => x / Math.max(1, total[i]!));
  return { perCount, all: perCount.reduce((a, b) => a + b, 0) / 4 };
}

function optionValue(args: readonly string[], name: string): string | null {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1]! : null;
}

/** The smallest-speaker options scored with each separation threshold: every --min-shares × --min-points pair. */
function variants(args: readonly string[]): Array<[string, Partial<ClusterOptions>]> {
  const list = (name: string): Array<number | null> => optionValue(args, name)?.split(',').map(Number) ?? [null];
  return list('--min-shares').flatMap((share) =>
    list('--min-points').map((points): [string, Partial<ClusterOptions>] => [
      `${share === null ? '' : ` share ${share}`}${points === null ? '' : ` points ${points}`}`,
      { ...(share === null ? {} : { minShare: share }), ...(points === null ? {} : { minPoints: points }) },
    ]),
  );
}

export async function main(args: string[] = []): Promise<void> {
  const c = constantsFromArgs(args);
  const utterances = utterancePieces(c, await loadWindows(trainWindows(), c.encoder));
  const recordings = syntheticRecordings(utterances, Number(optionValue(args, '--recordings') ?? 40));
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  const rules: Array<[string, CountRule]> = [
    ...variants(args).flatMap(([name, variant]) =>
      (optionValue(args, '--separations')?.split(',').map(Number) ?? [0.4, 0.5, 0.6, 0.7, 0.8, 1.0]).map((t): [string, CountRule] => [
        `separation ${t}${name}`,
        { minSeparation: t, ...variant },
      ]),
    ),
    ...[-0.3, -0.2, -0.15, -0.1, -0.05, 0, 0.05, 0.1].map((t): [string, CountRule] => [`threshold ${t}`, { stopSimilarity: t }]),
    ...[0.1, 0.2, 0.3, 0.5].map((t): [string, CountRule] => [`spectral keep ${t}`, { spectralKeep: t }]),
  ];
  console.log(`${utterances.length} train-clean-100 utterances, ${recordings.length} synthetic recordings (1-4 speakers)`);
  console.log('rule                            | 1 spk  | 2 spk  | 3 spk  | 4 spk  | mean');
  for (const [name, options] of rules) {
    const { perCount, all } = countAccuracy(recordings, options);
    console.log(`${name.padEnd(31)} | ${perCount.map(pct).map((s) => s.padStart(6)).join(' | ')} | ${pct(all)}`);
  }
}
