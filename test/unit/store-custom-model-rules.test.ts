import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import {
  normalizePhrase,
  parsePageQuery,
  PHRASES_PER_MODEL_MAX,
  validateNewCustomModel,
  validatePhraseList,
} from '../../src/store/custom-model-rules';

function invalid(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).code).toBe('INVALID_REQUEST');
    return err as ApiError;
  }
  throw new Error('expected INVALID_REQUEST');
}

describe('custom model rules', () => {
  it('normalizes whitespace and keeps case', () => {
    expect(normalizePhrase('  New \t\n York  ')).toBe('New York');
    expect(normalizePhrase('Cafe\u0301')).toBe('Café');
  });

  it('drops duplicates after normalization, first occurrence kept', () => {
    expect(validatePhraseList(['b', ' a', 'a ', 'B', 'b'])).toEqual(['b', 'a', 'B']);
  });

  it('names the offending phrase', () => {
    expect(invalid(() => validatePhraseList(['ok', ' '])).detail).toContain('phrases[1]');
    expect(invalid(() => validatePhraseList(['ok', null])).detail).toContain('phrases[1]');
    invalid(() => validatePhraseList([]));
    invalid(() => validatePhraseList('a'));
  });

  it('validates a new model and trims name and description', () => {
    expect(validateNewCustomModel({ name: ' n ', description: ' d', phrases: ['x'] })).toEqual({
      name: 'n',
      description: 'd',
      phrases: ['x'],
    });
    invalid(() => validateNewCustomModel({ name: 'n', description: 'd', phrases: Array.from({ length: PHRASES_PER_MODEL_MAX + 1 }, (_, i) => `${i}`) }));
    invalid(() => validateNewCustomModel(null));
  });

  it('parses page and size with defaults and ranges', () => {
    expect(parsePageQuery(new URLSearchParams())).toEqual({ page: 0, size: 100 });
    expect(parsePageQuery(new URLSearchParams('page=3&size=10000'))).toEqual({ page: 3, size: 10000 });
    for (const q of ['page=-1', 'page=1e2', 'size=0', 'size=10001', 'size=', 'page=99999999999999999999', 'size=1&size=2']) {
      expect(invalid(() => parsePageQuery(new URLSearchParams(q))).detail).toMatch(/page|size/);
    }
  });
});
