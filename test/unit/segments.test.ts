import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitAtTimestamps } from '../../engine/postprocess/segments';
import { WhisperVocabulary } from '../../engine/whisper/tokenizer';

describe('where a window\'s text ends, which the seek reads (real whisper-tiny tokenizer)', () => {
  const dir = 'public/models/whisper-tiny';
  const json = (f: string) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  const vocab = new WhisperVocabulary(json('tokenizer.json'), json('tokenizer_config.json'), json('generation_config.json'));
  const ts = (seconds: number) => vocab.timestampBegin + Math.round(seconds / 0.02);
  const tokens = (...parts: Array<number | string>) =>
    parts.flatMap((p) => (typeof p === 'number' ? [ts(p)] : vocab.encode(p))).map((id) => ({ id, logprob: -0.1 }));

  it('is the last timestamp when the text closes there', () => {
    const segments = splitAtTimestamps(tokens(0, ' Hello there.', 2.4, 2.4, ' How are you?', 13.96), vocab, 30);
    expect(segments).toHaveLength(2);
    expect(segments.at(-1)!.end).toBeCloseTo(13.96, 5);
  });

  it('is the window end when the text runs on past its last timestamp, or has none', () => {
    expect(splitAtTimestamps(tokens(0, ' Hello there.', 2.4, 2.4, ' How are'), vocab, 30).at(-1)!.end).toBe(30);
    expect(splitAtTimestamps(tokens(' Hello there.'), vocab, 30).at(-1)!.end).toBe(30);
    expect(splitAtTimestamps([], vocab, 30)).toEqual([]);
  });
});
