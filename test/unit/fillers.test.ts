import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EngineToken, EngineWord } from '../../engine/protocol';
import { cleanWords, isFiller, joinWords, removeFillers, tokensWithoutFillers } from '../../engine/postprocess/fillers';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';
import { wordsFromTokens, wordTokens } from '../../engine/postprocess/words';

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

describe('clean mode keeps a segment\'s tokens consistent with its text and words (real whisper-tiny tokenizer)', () => {
  const dir = 'public/models/whisper-tiny';
  const json = (f: string) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));
  const decode = (ids: number[]) => vocab.decode(ids);

  function cleanSegment(text: string, language: string) {
    const tokens: EngineToken[] = vocab.encode(text).map((id, i) => ({ id, text: decode([id]), startMs: i * 50, endMs: i * 50 + 40, probability: 0.9 }));
    const words = wordsFromTokens(tokens, decode, 0, language);
    const cleaned = cleanWords(words, language);
    const kept = tokensWithoutFillers(tokens, wordTokens(tokens, decode, language), cleaned);
    return { tokens, kept, text: joinWords(cleaned.words, language), removed: cleaned.removed };
  }

  it('drops the filler tokens with their commas, so the tokens spell the cleaned text', () => {
    const s = cleanSegment(' Um, so I think, uh, we should go.', 'en');
    expect(s.removed.size).toBe(2);
    expect(s.text).toBe('So I think, we should go.');
    // the capital the sentence regains is the only difference: token ids are the model's
    expect(decode(s.kept.map((t) => t.id))).toBe(' so I think, we should go.');
    expect(s.kept.every((t) => s.tokens.includes(t))).toBe(true);
    expect(s.kept.some((t) => isFiller(t.text, 'en'))).toBe(false);
  });

  it('keeps the sentence mark of a dropped filler when it moved to the word before', () => {
    const s = cleanSegment(' We could go uh. Then we eat.', 'en');
    expect(s.text).toBe('We could go. Then we eat.');
    expect(decode(s.kept.map((t) => t.id))).toBe(' We could go. Then we eat.');
  });

  it('leaves the tokens alone when there is no filler, and works without spaces (zh)', () => {
    const plain = cleanSegment(' Umbrellas are her thing.', 'en');
    expect(plain.removed.size).toBe(0);
    expect(plain.kept).toEqual(plain.tokens);
    const zh = cleanSegment('嗯，我们走吧。', 'zh');
    expect(zh.text).toBe('我们走吧。');
    expect(decode(zh.kept.map((t) => t.id))).toBe(zh.text);
  });
});
