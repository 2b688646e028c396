import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../config/paths';
import { FIRST_LANGUAGE_TOKEN_ID, isWhisperLanguage, WHISPER_LANGUAGES } from '../../src/api/languages';

function langToId(model: string): Record<string, number> {
  const file = resolve(ROOT, 'public/models', model, 'generation_config.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { lang_to_id: Record<string, number> }).lang_to_id;
}

describe('WHISPER_LANGUAGES', () => {
  it.each(['whisper-tiny', 'whisper-base', 'whisper-small'])('matches lang_to_id of %s, in token order', (model) => {
    const fromModel = Object.entries(langToId(model))
      .sort((a, b) => a[1] - b[1])
      .map(([token, id], i) => {
        expect(id).toBe(FIRST_LANGUAGE_TOKEN_ID + i);
        return token.replace(/^<\|(.*)\|>$/, '$1');
      });
    expect([...WHISPER_LANGUAGES]).toEqual(fromModel);
    expect(WHISPER_LANGUAGES).toHaveLength(99);
  });

  it('has no duplicates and knows its members', () => {
    expect(new Set(WHISPER_LANGUAGES).size).toBe(WHISPER_LANGUAGES.length);
    expect(isWhisperLanguage('de')).toBe(true);
    expect(isWhisperLanguage('fy')).toBe(false);
    expect(isWhisperLanguage('EN')).toBe(false);
  });
});
