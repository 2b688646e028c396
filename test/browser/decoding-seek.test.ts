import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { evalBytes } from './helpers/clips';

// whisper-base with its default 5-beam decoding: the winning hypothesis of this AMI window closes at
// 17.2 s with speech going on to 29.7 s (language given, so no language pass re-decodes it)
const base = createTranscriber({ model: 'whisper-base' });
afterAll(() => base.dispose());

describe('a window whose decoding closes early is decoded on from there (engine/pipeline.ts, Whisper\'s seek)', () => {
  it('transcribes AMI dev00 to its end, its words in order', async () => {
    const out = await base.transcribe(await evalBytes('diar/ami_dev00.wav'), { language: 'en', include_words: true, include_timestamps: true });
    const words = out.words!;
    const last = words[words.length - 1]!;
    // before the seek the transcript ended at 17.2 s with 27 words
    expect((last.start_ms! + last.duration_ms!) / 1000).toBeGreaterThan(25);
    expect(words.length).toBeGreaterThan(40);
    for (let i = 1; i < words.length; i++) expect(words[i]!.start_ms!).toBeGreaterThanOrEqual(words[i - 1]!.start_ms!);
  });
});
