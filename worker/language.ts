import type { DecodingWindow } from './segment-speech';

/** A decoding window and the language to decode it in (null: detect it from the window's own encoding). */
export interface LanguagePlan {
  window: DecodingWindow;
  language: string | null;
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
