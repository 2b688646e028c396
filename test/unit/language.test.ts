import { describe, expect, it } from 'vitest';
import {
  CONFIDENT_LANGUAGE,
  isConfident,
  jointLogProbability,
  MAX_RESCORED,
  mostLikely,
  mostProbableJoint,
  rescoringCandidates,
  splitByLanguage,
} from '../../engine/language/plan';

const probs = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('language detection decisions', () => {
  it('takes a confident guess as is and questions an uncertain one', () => {
    expect(isConfident(probs({ de: CONFIDENT_LANGUAGE, en: 1 - CONFIDENT_LANGUAGE }))).toBe(true);
    expect(isConfident(probs({ ru: 0.7, pt: 0.3 }))).toBe(false);
  });

  it('rescores the MAX_RESCORED likeliest languages that are not negligible, plus allowed neighbours', () => {
    // whisper-base on the full-window encoding of the 1.2 s "Bonjour !" (multi/wts_bonjour.wav)
    const bonjour = probs({ pt: 0.386, ru: 0.323, pl: 0.15, fr: 0.05, it: 0.01, en: 0.008, es: 0.008 });
    expect(rescoringCandidates(bonjour)).toEqual(['pt', 'ru', 'pl', 'fr']);
    // the same among the candidates ru,pt,fr: renormalised, fr still gets decoded
    expect(rescoringCandidates(probs({ pt: 0.51, ru: 0.43, fr: 0.066 }))).toEqual(['pt', 'ru', 'fr']);
    expect(rescoringCandidates(probs({ ru: 0.75, pt: 0.2, pl: 0.045, de: 0.005 }))).toEqual(['ru', 'pt', 'pl']);
    expect(rescoringCandidates(probs({ ru: 0.005, pt: 0.004 }))).toEqual(['ru']);
    expect(rescoringCandidates(bonjour, ['es', 'fr', 'ja'])).toEqual(['pt', 'ru', 'pl', 'fr', 'es']);
    const flat = probs(Object.fromEntries('abcdefgh'.split('').map((c) => [c, 1 / 8])));
    expect(rescoringCandidates(flat)).toHaveLength(MAX_RESCORED);
  });

  it('keeps the language of the most probable (language, transcription) pair', () => {
    // measured: log P(fr) + log P("Bonjour !" | fr) beats ru's likelier language but costlier text
    const hyps = [
      { language: 'pt', probability: 0.386, logprobs: [-3, -4, -4.46], hasText: true },
      { language: 'ru', probability: 0.323, logprobs: [-1, -2, -2.32], hasText: true },
      { language: 'fr', probability: 0.05, logprobs: [-0.5, -1, -1.05], hasText: true },
    ];
    expect(jointLogProbability(hyps[2]!)).toBeCloseTo(Math.log(0.05) - 2.55, 6);
    expect(mostProbableJoint(hyps)).toBe('fr');
    // a decoding without text says nothing: it cannot win on its empty likelihood
    expect(mostProbableJoint([{ language: 'en', probability: 0.6, logprobs: [-0.01], hasText: false }, ...hyps])).toBe('fr');
    expect(mostProbableJoint([{ language: 'en', probability: 0.6, logprobs: [], hasText: false }, { language: 'de', probability: 0.4, logprobs: [], hasText: false }])).toBe('en');
  });

  it('cuts a window into runs of one language', () => {
    const region = (s: number) => ({ startSample: s, endSample: s + 10 });
    const window = { startSample: 0, endSample: 50, regions: [region(0), region(20), region(40)] };
    const plans = splitByLanguage(window, ['en', 'en', 'de']);
    expect(plans.map((p) => [p.language, p.window.startSample, p.window.endSample, p.window.regions.length])).toEqual([
      ['en', 0, 30, 2],
      ['de', 40, 50, 1],
    ]);
    expect(mostLikely(probs({ en: 0.2, de: 0.5, fr: 0.3 }))).toBe('de');
  });
});
