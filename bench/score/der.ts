/**
 * Diarization error rate, the convention of ../shared/eval/README.md (NIST md-eval style):
 * (missed + false alarm + confusion) / reference speech, overlapping speech scored (each active
 * reference speaker counts), the optimal one-to-one speaker mapping, and a forgiveness collar of
 * `collar` seconds on each side of every reference boundary that is left out of scoring.
 */

export interface Turn {
  speaker: string;
  /** Seconds. */
  start: number;
  end: number;
}

export interface DerResult {
  der: number;
  /** Seconds of scored time. */
  missed: number;
  falseAlarm: number;
  confusion: number;
  reference: number;
  /** Reference speaker → hypothesis speaker (unmapped speakers are absent). */
  mapping: Map<string, string>;
}

/** A transcript segment with a speaker and times (diarize=true&include_timestamps=true). */
export interface SpeakerSegment {
  speaker_id: number;
  start_ms: number;
  duration_ms: number;
}

/** A transcript's speaker segments as DER turns (seconds). */
export function segmentTurns(segments: readonly SpeakerSegment[]): Turn[] {
  return segments.map((s) => ({ speaker: String(s.speaker_id), start: s.start_ms / 1000, end: (s.start_ms + s.duration_ms) / 1000 }));
}

/** SPEAKER lines of an RTTM file: `SPEAKER file chan start dur <NA> <NA> name <NA> <NA>`. */
export function parseRttm(text: string): Array<Turn & { file: string }> {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[0] === 'SPEAKER' && f.length >= 8)
    .map((f) => {
      const start = Number(f[3]);
      return { file: f[1]!, speaker: f[7]!, start, end: start + Number(f[4]) };
    });
}

interface Piece {
  start: number;
  end: number;
  ref: string[];
  hyp: string[];
}

/** Elementary pieces of [from, to) between all boundaries, with the speakers active in each, minus the collars. */
function pieces(ref: readonly Turn[], hyp: readonly Turn[], collar: number, from: number, to: number): Piece[] {
  const excluded: Array<[number, number]> = [];
  if (collar > 0) for (const t of ref) excluded.push([t.start - collar, t.start + collar], [t.end - collar, t.end + collar]);
  const cuts = new Set<number>([from, to]);
  for (const t of [...ref, ...hyp]) cuts.add(t.start).add(t.end);
  for (const [a, b] of excluded) cuts.add(a).add(b);
  const sorted = [...cuts].filter((x) => x >= from && x <= to).sort((a, b) => a - b);
  const out: Piece[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) {
    const start = sorted[i]!;
    const end = sorted[i + 1]!;
    const mid = (start + end) / 2;
    if (end <= start || excluded.some(([a, b]) => a <= mid && mid < b)) continue;
    const active = (ts: readonly Turn[]): string[] => [...new Set(ts.filter((t) => t.start <= mid && mid < t.end).map((t) => t.speaker))];
    out.push({ start, end, ref: active(ref), hyp: active(hyp) });
  }
  return out;
}

/** The one-to-one mapping maximising co-active time (exact: dynamic programming over hypothesis subsets). */
function optimalMapping(ps: readonly Piece[]): Map<string, string> {
  const refs = [...new Set(ps.flatMap((p) => p.ref))];
  const hyps = [...new Set(ps.flatMap((p) => p.hyp))];
  if (hyps.length > 16) throw new Error('DER: more than 16 hypothesis speakers');
  const overlap = refs.map((r) => hyps.map((h) => ps.reduce((s, p) => s + (p.ref.includes(r) && p.hyp.includes(h) ? p.end - p.start : 0), 0)));
  // best[i][mask]: the most co-active time mapping refs i.. with hypotheses outside mask
  const memo = new Map<string, number>();
  const best = (i: number, mask: number): number => {
    if (i === refs.length) return 0;
    const key = `${i}:${mask}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let v = best(i + 1, mask);
    for (let h = 0; h < hyps.length; h++) if (!(mask & (1 << h))) v = Math.max(v, overlap[i]![h]! + best(i + 1, mask | (1 << h)));
    memo.set(key, v);
    return v;
  };
  const mapping = new Map<string, string>();
  let mask = 0;
  for (let i = 0; i < refs.length; i++) {
    const target = best(i, mask);
    if (Math.abs(best(i + 1, mask) - target) < 1e-9) continue;
    for (let h = 0; h < hyps.length; h++) {
      if (!(mask & (1 << h)) && Math.abs(overlap[i]![h]! + best(i + 1, mask | (1 << h)) - target) < 1e-9) {
        mapping.set(refs[i]!, hyps[h]!);
        mask |= 1 << h;
        break;
      }
    }
  }
  return mapping;
}

/** DER of `hyp` against `ref` over [from, to) (default: from 0 to the last boundary of either). */
export function diarizationError(
  ref: readonly Turn[],
  hyp: readonly Turn[],
  options: { collar?: number; from?: number; to?: number } = {},
): DerResult {
  const collar = options.collar ?? 0.25;
  const from = options.from ?? 0;
  const to = options.to ?? Math.max(0, ...ref.map((t) => t.end), ...hyp.map((t) => t.end));
  const ps = pieces(ref, hyp, collar, from, to);
  const mapping = optimalMapping(ps);
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  let reference = 0;
  for (const p of ps) {
    const d = p.end - p.start;
    const nRef = p.ref.length;
    const nHyp = p.hyp.length;
    const correct = p.ref.filter((r) => mapping.has(r) && p.hyp.includes(mapping.get(r)!)).length;
    reference += d * nRef;
    missed += d * Math.max(0, nRef - nHyp);
    falseAlarm += d * Math.max(0, nHyp - nRef);
    confusion += d * (Math.min(nRef, nHyp) - correct);
  }
  const der = reference > 0 ? (missed + falseAlarm + confusion) / reference : 0;
  return { der, missed, falseAlarm, confusion, reference, mapping };
}

/**
 * The reference as a diarizer that names one speaker at a time would write it at best: every instant
 * keeps one of the speakers talking then (the one whose turn began first), so only overlapped speech
 * is lost. Its DER is the floor of any such output, a transcript's speaker segments among them.
 */
export function oneSpeakerAtATime(ref: readonly Turn[]): Turn[] {
  const bounds = [...new Set(ref.flatMap((t) => [t.start, t.end]))].sort((a, b) => a - b);
  const out: Turn[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [start, end] = [bounds[i]!, bounds[i + 1]!];
    let first: Turn | null = null;
    for (const t of ref) if (t.start <= start && t.end >= end && (!first || t.start < first.start)) first = t;
    if (!first) continue;
    const last = out[out.length - 1];
    if (last && last.speaker === first.speaker && last.end === start) last.end = end;
    else out.push({ speaker: first.speaker, start, end });
  }
  return out;
}
