import { describe, expect, it } from 'vitest';
import { confidenceBands, languageCorrect, timingSanity, wordCorrectness } from '../../bench/score/words-language';

describe('issue-5 scores', () => {
  it('language ID: top-level, and per segment for a code-switched clip', () => {
    expect(languageCorrect({ text: '', language: 'es' }, 'es')).toBe(true);
    expect(languageCorrect({ text: '', language: 'en' }, 'es')).toBe(false);
    expect(languageCorrect({ text: '' }, 'es')).toBeNull();
    const seg = (language: string) => ({ language });
    expect(languageCorrect({ text: '', segments: [seg('en'), seg('en'), seg('de')] }, 'en+de')).toBe(true);
    expect(languageCorrect({ text: '', segments: [seg('en'), seg('de'), seg('en')] }, 'en+de')).toBe(false);
    expect(languageCorrect({ text: '', segments: [seg('fr'), seg('fr')] }, 'fr')).toBe(true);
    expect(languageCorrect({ text: '', segments: [seg('fr'), seg('it')] }, 'fr')).toBe(false);
  });

  it('timing sanity counts overlaps, words past the end and zero lengths', () => {
    const w = (start_ms: number, duration_ms: number) => ({ text: 'x', start_ms, duration_ms });
    expect(timingSanity([w(0, 100), w(90, 0), w(200, 900)], 1000)).toEqual({ words: 3, overlapping: 1, pastEnd: 1, zeroLength: 1 });
  });

  it('marks words right by alignment and bands them by confidence', () => {
    const words = ['And', 'so,', 'my', 'fellow', 'American', 'ask'].map((text) => ({ text }));
    expect(wordCorrectness('And so my fellow Americans, ask not', words)).toEqual([true, true, true, true, false, true]);
    const bands = confidenceBands([
      { confidence: 0.3, right: false },
      { confidence: 0.95, right: true },
      { confidence: 1, right: true },
    ]);
    expect(bands.map((b) => [b.words, b.right])).toEqual([[1, 0], [0, 0], [0, 0], [1, 1], [1, 1]]);
  });
});
