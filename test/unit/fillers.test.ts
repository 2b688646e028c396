import { describe, expect, it } from 'vitest';
import type { EngineWord } from '../../src/engine-types';
import { isFiller, joinWords, removeFillers } from '../../worker/fillers';

const words = (text: string, sep = ' '): EngineWord[] =>
  (sep ? text.split(sep) : [...text]).map((t, i) => ({ text: t, startMs: i * 100, endMs: i * 100 + 90, confidence: 0.9, speaker: 0 }));
const clean = (text: string, lang = 'en') => joinWords(removeFillers(words(text), lang), lang);

describe('isFiller', () => {
  it('knows fillers in several languages and their drawn-out spellings', () => {
    for (const [w, lang] of [['Um,', 'en'], ['uhhh', 'en'], ['Hmm...', 'en'], ['mm-hmm', 'fr'], ['Ähm,', 'de'], ['euh', 'fr'], ['ehm', 'it'], ['hã', 'pt'], ['嗯', 'zh'], ['えーと', 'ja'], ['えーーと', 'ja']] as const) {
      expect(isFiller(w, lang), `${w} (${lang})`).toBe(lang === 'fr' && w === 'mm-hmm' ? false : true);
    }
  });

  it('leaves real words alone, also words that are fillers elsewhere', () => {
    for (const [w, lang] of [['umbrella', 'en'], ['her', 'en'], ['Er', 'de'], ['um', 'pt'], ['em', 'pt'], ['ah', 'en'], ['M.', 'en'], ['hum', 'en'], ['uh-huh', 'en'], ['え', 'ja']] as const) {
      expect(isFiller(w, lang), `${w} (${lang})`).toBe(false);
    }
  });
});

describe('removeFillers', () => {
  it('drops fillers with their commas, keeps sentence marks and capitals', () => {
    expect(clean('Um, so I think, uh, we should go.')).toBe('So I think, we should go.');
    expect(clean('We could go uh. Then we eat.')).toBe('We could go. Then we eat.');
    expect(clean('Er, the umbrella is hers.')).toBe('The umbrella is hers.');
    expect(clean('Hmm.')).toBe('');
    expect(clean('Er ist, äh, hier.', 'de')).toBe('Er ist, hier.');
  });

  it('removes a filler the tokenizer cut into pieces in a language without spaces', () => {
    const ja = [{ text: 'え' }, { text: 'ーと' }, { text: '今日' }, { text: 'は' }].map((w, i) => ({ ...w, startMs: i, endMs: i + 1, confidence: 1, speaker: 0 }));
    expect(joinWords(removeFillers(ja, 'ja'), 'ja')).toBe('今日は');
  });
});
