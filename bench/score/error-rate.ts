import { editDistance } from './edit-distance';
import { normalizeBasic } from './normalize-basic';
import { createEnglishNormalizer, type SpellingMap } from './normalize-english';

/**
 * Word and character error rates by the conventions of ../shared/eval/README.md:
 * English WER with the English normaliser, WER with the basic normaliser for other languages
 * written with spaces, CER (whitespace removed) for Chinese, Japanese and Korean.
 */

export type ErrorUnit = 'word' | 'char';

/** Edits and reference length of one clip; rates are summed over clips, never averaged. */
export interface ClipErrors {
  unit: ErrorUnit;
  edits: number;
  referenceLength: number;
}

const CHARACTER_LANGUAGES = new Set(['zh', 'ja', 'ko', 'yue']);

/** The language a manifest's `lang` is scored as: "en+de" (code-switched) is scored as its first. */
export function primaryLanguage(lang: string): string {
  return lang.toLowerCase().split(/[+,;\s-]/)[0] ?? '';
}

export function unitFor(lang: string): ErrorUnit {
  return CHARACTER_LANGUAGES.has(primaryLanguage(lang)) ? 'char' : 'word';
}

export interface Scorer {
  /** The text as it is compared: words joined by spaces, or characters with no spaces. */
  normalize(text: string, lang: string): string;
  score(reference: string, hypothesis: string, lang: string): ClipErrors;
}

export function createScorer(spellings: SpellingMap): Scorer {
  const english = createEnglishNormalizer(spellings);
  const normalize = (text: string, lang: string): string => {
    if (primaryLanguage(lang) === 'en') return english(text);
    const basic = normalizeBasic(text);
    return unitFor(lang) === 'char' ? basic.replace(/\s+/g, '') : basic;
  };
  const units = (text: string, unit: ErrorUnit): string[] =>
    unit === 'char' ? Array.from(text) : text.split(' ').filter((w) => w !== '');
  return {
    normalize,
    score(reference, hypothesis, lang) {
      const unit = unitFor(lang);
      const ref = units(normalize(reference, lang), unit);
      const hyp = units(normalize(hypothesis, lang), unit);
      return { unit, edits: editDistance(ref, hyp), referenceLength: ref.length };
    },
  };
}

/** Sum of edits over sum of reference units; NaN when there is nothing to score. */
export function errorRate(clips: readonly ClipErrors[]): number {
  let edits = 0;
  let length = 0;
  for (const clip of clips) {
    edits += clip.edits;
    length += clip.referenceLength;
  }
  return length === 0 ? Number.NaN : edits / length;
}
