import type { DecodingWindow } from '../vad/windows';
import type { EncodedWindow } from '../whisper/model';

/** A decoding window and the language to decode it in (null: detect it from the window's own encoding). */
export interface LanguagePlan {
  window: DecodingWindow;
  language: string | null;
  /**
   * The encoding of a short window of one utterance made to identify its language, when it is the one
   * its decoding would make (full 30 s with encoderWindow 'full', or a sure guess on 'fit'), for the
   * decoding to reuse; whoever takes the plan disposes it.
   */
  encoded?: EncodedWindow;
}

/**
 * Splits a window into runs of consecutive regions detected in the same language, one plan each, so
 * every decoding pass has one language. `languages[i]` is the language of `window.regions[i]`.
 */
export function splitByLanguage(window: DecodingWindow, languages: readonly string[]): LanguagePlan[] {
  const plans: LanguagePlan[] = [];
  window.regions.forEach((region, i) => {
    const language = languages[i]!;
    const last = plans[plans.length - 1];
    if (last && last.language === language) {
      last.window.endSample = region.endSample;
      last.window.regions.push(region);
    } else {
      plans.push({ window: { startSample: region.startSample, endSample: region.endSample, regions: [region] }, language });
    }
  });
  return plans;
}

/** The most probable code of a detection result. */
export function mostLikely(probs: ReadonlyMap<string, number>): string {
  let best = '';
  let bestP = -1;
  for (const [code, p] of probs) if (p > bestP) [best, bestP] = [code, p];
  return best;
}

/*
 * Language of one utterance (region). Whisper identifies the language from the first decoder step;
 * on utterances of a second or two that guess is unreliable, and worse on a 'fit' encoding (10 s
 * window) than on the 30 s window Whisper was trained on. Measured with whisper-base on the 1.2 s
 * "Bonjour !" (multi/wts_bonjour.wav): fit window ru 0.87 (fr 13th, 0.002); full window pt 0.39,
 * ru 0.32, pl 0.15, fr 0.05. Decoding in each of those and ranking by the joint probability of
 * (language, transcription) puts fr first: "Bonjour !" costs 2.6 nats in French, "Боже ли?" 5.3 in
 * Russian, "Bom, Júl!" 11.5 in Portuguese. So:
 *  1. an utterance shorter than SHORT_UTTERANCE_S is identified on a full 30 s window;
 *  2. a guess below CONFIDENT_LANGUAGE is settled by decoding the MAX_RESCORED likeliest languages
 *     (those above MIN_RESCORED), plus the languages identified with confidence in the
 *     neighbouring utterances of the same window (the recording's own languages are the likeliest
 *     prior for a short, ambiguous utterance), and keeping the language of the most probable
 *     (language, transcription) pair: log P(language | audio) + sum of log P(token).
 */

/** Utterances shorter than this (seconds) are identified on a full 30 s encoder window. */
export const SHORT_UTTERANCE_S = 2;
/**
 * A lone short utterance whose guess on the 'fit' encoding (the one its decoding uses anyway) is at
 * least this sure skips the full-window pass. Measured with whisper-base: English clips of 1.1-2 s
 * guess en 0.95-0.96 on fit (agreeing with the full window) or 0.68-0.70; "Bonjour !" guesses ru 0.87.
 */
export const SURE_ON_FIT = 0.9;
/** A detection at or above this probability is taken as is. */
export const CONFIDENT_LANGUAGE = 0.8;
/** An uncertain detection is settled among this many of the likeliest languages (each costs a greedy decoding)... */
export const MAX_RESCORED = 4;
/** ...leaving out those below this probability (the likeliest is always in). */
export const MIN_RESCORED = 0.01;

/** Whether a detection's likeliest language reaches `threshold` (default: no settling by decoding needed). */
export function isConfident(probs: ReadonlyMap<string, number>, threshold = CONFIDENT_LANGUAGE): boolean {
  return (probs.get(mostLikely(probs)) ?? 0) >= threshold;
}

/**
 * The languages to decode an uncertain utterance in: the MAX_RESCORED likeliest (those from
 * MIN_RESCORED up, the likeliest always), then the `neighbours` (languages of the surrounding
 * utterances) that `probs` allows and that are not already in. With candidates (a comma list),
 * `probs` holds only those.
 */
export function rescoringCandidates(probs: ReadonlyMap<string, number>, neighbours: Iterable<string> = []): string[] {
  const ranked = [...probs].sort((a, b) => b[1] - a[1]);
  const out = ranked.filter(([, p], i) => i === 0 || p >= MIN_RESCORED).slice(0, MAX_RESCORED).map(([code]) => code);
  for (const code of neighbours) if (probs.has(code) && !out.includes(code)) out.push(code);
  return out;
}

/** One language's decoding of an utterance: its detection probability and the tokens' log-probabilities. */
export interface LanguageHypothesis {
  language: string;
  probability: number;
  /** Log-probability of each generated token (text and timestamps). */
  logprobs: readonly number[];
  /** Whether any text was produced: a decoding with none says nothing about the language. */
  hasText: boolean;
}

/** log P(language) + log P(transcription | language); -Infinity for a decoding without text. */
export function jointLogProbability(h: LanguageHypothesis): number {
  if (!h.hasText || h.probability <= 0) return -Infinity;
  return Math.log(h.probability) + h.logprobs.reduce((s, x) => s + x, 0);
}

/** The language of the most probable (language, transcription) pair; the likeliest language when no decoding has text. */
export function mostProbableJoint(hypotheses: readonly LanguageHypothesis[]): string {
  let best = hypotheses[0]!;
  let bestScore = -Infinity;
  for (const h of hypotheses) {
    const score = jointLogProbability(h);
    if (score > bestScore) [best, bestScore] = [h, score];
  }
  if (bestScore === -Infinity) for (const h of hypotheses) if (h.probability > best.probability) best = h;
  return best.language;
}
