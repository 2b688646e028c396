import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { phrasePrompt } from '../../engine/biasing/phrases/prompt';
import { buildPhraseTrie, type TokenTrie } from '../../engine/biasing/phrases/trie';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';

const dir = 'public/models/whisper-tiny';
const json = (f: string) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));

describe('Whisper vocabulary', () => {
  it('knows the special tokens of the multilingual model', () => {
    expect(vocab.sot).toBe(50258);
    expect(vocab.eot).toBe(50257);
    expect(vocab.transcribe).toBe(50359);
    expect(vocab.timestampBegin).toBe(50364);
    expect(vocab.languageToken('en')).toBe(50259);
    expect(vocab.languages).toHaveLength(99);
    expect(vocab.languages[0]).toBe('en');
    expect(vocab.languageOf(50261)).toBe('de');
  });

  it.each([
    ' And so, my fellow Americans, ask not what your country can do for you.',
    ' Ça va très bien, merci !',
    ' 東京は日本の首都です。',
    ' Grüße aus München — 1.5 km entfernt.',
    ' ComfyUI and AMZ-471',
  ])('round-trips %s', (text) => {
    const ids = vocab.encode(text);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id < vocab.eot)).toBe(true);
    expect(vocab.decode(ids)).toBe(text);
  });

  it('drops timestamp and special tokens when decoding text', () => {
    const ids = vocab.encode(' hello world');
    expect(vocab.decode([vocab.sot, vocab.timestampBegin, ...ids, vocab.timestampBegin + 50, vocab.eot])).toBe(' hello world');
    expect(vocab.decode([vocab.sot, vocab.timestampBegin, vocab.eot])).toBe('');
    expect(vocab.decode([])).toBe('');
  });

  it('encodes text made of special tokens only to no tokens', () => {
    expect(vocab.encode('<|startoftranscript|><|en|><|transcribe|><|0.00|>')).toEqual([]);
  });

  it.each([' <|endoftext|>', ' AMZ<|0.00|>471', ' <|notimestamps|> Ada', ' Ada<|startofprev|> Lovelace', ' <|nocaptions|>'])(
    'encodes special-token text in %s to ordinary tokens only',
    (text) => {
      const ids = vocab.encode(text);
      expect(ids.every((id) => id < vocab.eot)).toBe(true);
      // what is left is the text around the special tokens
      expect(vocab.decode(ids)).toBe(text.replace(/<\|[^|]*\|>/g, ''));
    },
  );

  it('keeps every special and timestamp token out of the phrase prompt and the phrase trie', () => {
    const specials = (json('tokenizer.json') as { added_tokens: { content: string }[] }).added_tokens.map((t) => t.content);
    const phrases = specials.map((t, i) => (i % 2 ? `Ada ${t} Lovelace` : t));
    const prompt = phrasePrompt(vocab, phrases, 100_000);
    expect(prompt.ids.length).toBeGreaterThan(specials.length);
    expect(prompt.ids.filter((id) => id >= vocab.eot)).toEqual([]);
    const trie = buildPhraseTrie(vocab, phrases);
    const tokens: number[] = [];
    const walk = (t: TokenTrie, node: number): void => {
      for (const token of t.childTokens(node)) {
        tokens.push(token);
        walk(t, t.child(node, token));
      }
    };
    walk(trie, 0);
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.filter((id) => id >= vocab.eot)).toEqual([]);
  });
});
