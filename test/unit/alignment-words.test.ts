import { describe, expect, it } from 'vitest';
import type { EngineToken } from '../../engine/protocol';
import { trimToSpeech } from '../../engine/postprocess/alignment';
import { wordsFromTokens } from '../../engine/postprocess/words';

/** Tokens with 100 ms each; a token's text is looked up by id, and bytes of '\uFFFD' pieces join up. */
function tokens(texts: string[], probabilities: number[] = []): { toks: EngineToken[]; decode: (ids: number[]) => string } {
  const toks = texts.map((text, i) => ({ id: i, text, startMs: i * 100, endMs: i * 100 + 100, probability: probabilities[i] ?? 0.9 }));
  // '<' and '>' stand for the two byte halves of one character, 字
  const decode = (ids: number[]) => {
    const s = ids.map((i) => texts[i]!).join('');
    return s.replace(/<>/g, '字').replace(/[<>]/g, '\uFFFD');
  };
  return { toks, decode };
}

describe('wordsFromTokens', () => {
  it('merges word pieces and attaches punctuation as the text shows it', () => {
    const { toks, decode } = tokens([' "', 'Hel', 'lo', ',"', ' she', ' said', ' -', ' 1', ',', '000', ' times', '.'], [0.9, 0.5, 0.8, 0.01]);
    const words = wordsFromTokens(toks, decode);
    expect(words.map((w) => w.text)).toEqual(['"Hello,"', 'she', 'said-', '1,000', 'times.']);
    // time and confidence come from the word's own tokens, not its punctuation
    expect(words[0]).toMatchObject({ startMs: 100, endMs: 300, confidence: 0.5 });
    expect(words[2]).toMatchObject({ startMs: 500, endMs: 600 });
  });

  it('makes whole-character units in languages without spaces, keeping Latin words together', () => {
    const { toks, decode } = tokens(['今日', '<', '>', 'は', 'GP', 'U', 'です', '。']);
    const words = wordsFromTokens(toks, decode, 0, 'ja');
    expect(words.map((w) => w.text)).toEqual(['今日', '字', 'は', 'GPU', 'です。']);
    expect(words[1]).toMatchObject({ startMs: 100, endMs: 300 });
  });
});

describe('trimToSpeech', () => {
  it('cuts the silence a long word absorbed, by the VAD, and leaves normal words alone', () => {
    const w = (text: string, startMs: number, endMs: number) => ({ text, startMs, endMs });
    const words = [w('a', 0, 300), w('b', 300, 600), w('ask', 600, 2000), w('c', 2000, 2300)];
    // 100 ms VAD frames: speech everywhere except 600-1500
    const speech = Float32Array.from({ length: 24 }, (_, k) => (k >= 6 && k < 15 ? 0.05 : 0.9));
    const out = trimToSpeech(words, speech, 100, 0.25);
    expect(out[2]).toEqual(w('ask', 1500, 2000));
    expect(out.slice(0, 2)).toEqual(words.slice(0, 2));
  });
});
