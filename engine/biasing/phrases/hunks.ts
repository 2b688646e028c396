import { diffArrays } from 'diff';

/** A decoding scored token by token (teacher-forced, without the phrase prompt). */
export interface ScoredIds {
  ids: readonly number[];
  logprobs: readonly number[];
}

/** One place where a candidate differs from the first pass. */
export interface Hunk {
  /** The first pass's tokens [start, end) that the candidate replaces here. */
  first: [number, number];
  /** The candidate's tokens [start, end) written in their place. */
  candidate: [number, number];
  /**
   * Log-probability the candidate loses here: its tokens against the first pass's, plus the unchanged
   * tokens after them up to the next difference, which the change gave another context.
   */
  cost: number;
  /** Listed phrases the candidate holds once more than the first pass from here on. */
  gained: string[];
  /** Listed phrases it holds once less. */
  lost: string[];
}

interface TextVocabulary {
  decode(ids: readonly number[]): string;
  isText(id: number): boolean;
}

/** The places where `candidate` differs from `first` (a token diff), each with its own cost and the phrases it gains or loses. */
export function hunks(vocab: TextVocabulary, first: ScoredIds, candidate: ScoredIds, gainable: readonly string[], losable: readonly string[]): Hunk[] {
  const found: Hunk[] = [];
  let f = 0;
  let c = 0;
  for (const part of diffArrays([...first.ids], [...candidate.ids])) {
    const n = part.count ?? part.value.length;
    let open = found[found.length - 1];
    if (!part.added && !part.removed) {
      // unchanged tokens after a difference: their log-probability moved with the context it changed
      if (open) for (let i = 0; i < n; i++) open.cost += first.logprobs[f + i]! - candidate.logprobs[c + i]!;
      f += n;
      c += n;
      continue;
    }
    if (!open || open.first[1] !== f || open.candidate[1] !== c) {
      open = { first: [f, f], candidate: [c, c], cost: 0, gained: [], lost: [] };
      found.push(open);
    }
    if (part.removed) {
      for (let i = 0; i < n; i++) open.cost += first.logprobs[f + i]!;
      f += n;
      open.first[1] = f;
    } else {
      for (let i = 0; i < n; i++) open.cost -= candidate.logprobs[c + i]!;
      c += n;
      open.candidate[1] = c;
    }
  }
  const merged = mergeChance(found);
  // a phrase counts where the candidate's text up to the next difference first holds it once more
  const text = (s: ScoredIds, end: number) => vocab.decode(s.ids.slice(0, end).filter((id) => vocab.isText(id)));
  let before = { gained: new Map<string, number>(), lost: new Map<string, number>() };
  merged.forEach((h, k) => {
    const next = merged[k + 1];
    const firstText = text(first, next ? next.first[0] : first.ids.length);
    const candidateText = text(candidate, next ? next.candidate[0] : candidate.ids.length);
    const now = {
      gained: new Map(gainable.map((p) => [p, occurrences(candidateText, p) - occurrences(firstText, p)])),
      lost: new Map(losable.map((p) => [p, occurrences(firstText, p) - occurrences(candidateText, p)])),
    };
    h.gained = gainable.filter((p) => now.gained.get(p)! > Math.max(0, before.gained.get(p) ?? 0));
    h.lost = losable.filter((p) => now.lost.get(p)! > Math.max(0, before.lost.get(p) ?? 0));
    before = now;
  });
  return merged;
}

const size = (h: Hunk) => Math.max(h.first[1] - h.first[0], h.candidate[1] - h.candidate[0]);

/**
 * Neighbouring changes joined where the tokens between are no more than either change (diff-match-patch's
 * semantic cleanup): a rewrite that keeps a " the" by chance stays one place holding the phrase whole.
 */
function mergeChance(found: Hunk[]): Hunk[] {
  const out: Hunk[] = [];
  for (const h of found) {
    const last = out[out.length - 1];
    if (last && h.first[0] - last.first[1] <= Math.min(size(last), size(h))) {
      out[out.length - 1] = { ...last, first: [last.first[0], h.first[1]], candidate: [last.candidate[0], h.candidate[1]], cost: last.cost + h.cost };
    } else out.push(h);
  }
  return out;
}

/** `first` with only the `kept` hunks of `candidate` written into it. */
export function withHunks(first: readonly number[], candidate: readonly number[], kept: readonly Hunk[]): number[] {
  const out: number[] = [];
  let f = 0;
  for (const h of kept) {
    out.push(...first.slice(f, h.first[0]), ...candidate.slice(h.candidate[0], h.candidate[1]));
    f = h.first[1];
  }
  return [...out, ...first.slice(f)];
}

/** `s` lower-cased, its punctuation spaces, with a space at each end: whole words match as substrings. */
export const normalized = (s: string) => ` ${s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;

/**
 * The `phrases` that `text` holds more often than `before`: what a candidate gained, or, the texts
 * swapped, what it lost (debited, or one that turned another listed name into other words would win).
 */
export function phrasesGained(before: string, text: string, phrases: readonly string[]): string[] {
  return phrases.filter((p) => occurrences(text, p) > occurrences(before, p));
}

/** Whole-word occurrences of `phrase` in `text`, ignoring case and punctuation. */
export function occurrences(text: string, phrase: string): number {
  const p = normalized(phrase);
  return p.trim() ? normalized(text).split(p).length - 1 : 0;
}

/** Targets of the first pass and of a candidate (token indices) that the costs of some of its places read. */
export interface NearPlaces {
  first: number[];
  candidate: number[];
}

/** The targets the costs of the `places` that gain a phrase read, with at most `tail` unchanged tokens after each. */
export function nearPlaces(places: readonly Hunk[], tail: number, firstLength: number): NearPlaces {
  const near: NearPlaces = { first: [], candidate: [] };
  const span = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  places.forEach((h, k) => {
    if (h.gained.length === 0) return;
    const next = places[k + 1];
    const after = Math.max(0, Math.min(h.first[1] + tail, next ? next.first[0] : firstLength) - h.first[1]);
    near.first.push(...span(h.first[0], h.first[1] + after));
    near.candidate.push(...span(h.candidate[0], h.candidate[1] + after));
  });
  return near;
}
