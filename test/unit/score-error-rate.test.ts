import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';
import { editDistance } from '../../bench/score/edit-distance';
import { createScorer, errorRate, unitFor } from '../../bench/score/error-rate';
import { normalizeBasic } from '../../bench/score/normalize-basic';
import { loadSpellings } from '../../bench/score/spellings';

const scorer = createScorer(loadSpellings(ROOT));

describe('editDistance', () => {
  it('counts substitutions, insertions and deletions', () => {
    expect(editDistance(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(0);
    expect(editDistance(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(1);
    expect(editDistance(['a', 'b', 'c'], ['a', 'c'])).toBe(1);
    expect(editDistance(['a', 'c'], ['a', 'b', 'c', 'd'])).toBe(2);
    expect(editDistance([], ['a', 'b'])).toBe(2);
    expect(editDistance(['a', 'b'], [])).toBe(2);
    expect(editDistance(Array.from('kitten'), Array.from('sitting'))).toBe(3);
  });
});

describe('normalizeBasic', () => {
  it('lowercases, drops brackets and turns punctuation, symbols and marks into spaces', () => {
    expect(normalizeBasic('Sous le Consulat, il devient [bruit] conservateur des eaux et forêts.')).toBe(
      'sous le consulat il devient conservateur des eaux et forêts',
    );
    expect(normalizeBasic('Das   ist (nicht) «gut»!')).toBe('das ist gut');
  });
});

describe('scorer', () => {
  it('scores English with the English normaliser', () => {
    const r = scorer.score('HE HOPED THERE WOULD BE STEW', 'He hoped there would be stew.', 'en');
    expect(r).toEqual({ unit: 'word', edits: 0, referenceLength: 6 });
    expect(scorer.score('IN EIGHTEEN THIRTEEN', 'In 1813.', 'en').edits).toBe(0);
    expect(scorer.score('five five', '55', 'en')).toEqual({ unit: 'word', edits: 2, referenceLength: 2 });
  });

  it('scores other spaced languages by words with the basic normaliser', () => {
    const r = scorer.score('Uma raposa velha não consegue.', 'uma raposa velha nao consegue', 'pt');
    expect(r).toEqual({ unit: 'word', edits: 1, referenceLength: 5 });
  });

  it('scores Chinese, Japanese and Korean by characters with whitespace removed', () => {
    expect(unitFor('zh')).toBe('char');
    expect(unitFor('ja')).toBe('char');
    expect(unitFor('ko')).toBe('char');
    expect(unitFor('en+de')).toBe('word');
    expect(scorer.score('广州市房地产中介协会分析', '广州市 房地产中介协会分析。', 'zh').edits).toBe(0);
    expect(scorer.score('그는 이리저리 피하면서', '그는 이리저리 피하면', 'ko')).toEqual({
      unit: 'char',
      edits: 1,
      referenceLength: 10,
    });
  });

  it('scores a code-switched clip by its first language', () => {
    expect(scorer.normalize("Permission is hereby granted, free of charge", 'en+de')).toBe(
      'permission is hereby granted free of charge',
    );
  });
});

describe('errorRate', () => {
  it('is the sum of edits over the sum of reference lengths, not a mean of rates', () => {
    const rate = errorRate([
      { unit: 'word', edits: 1, referenceLength: 2 },
      { unit: 'word', edits: 1, referenceLength: 8 },
    ]);
    expect(rate).toBeCloseTo(0.2, 10);
    expect(errorRate([])).toBeNaN();
  });
});
