import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { errorRateOf, evalBytes, manifest } from './helpers/clips';

// One clip only: small's encoder costs about 4.5x base's, and this runs on 2 shared cores.
let loadTotal = 0;
const transcriber = createTranscriber({ model: 'whisper-small', onProgress: (e) => e.stage === 'load' && (loadTotal = e.total) });
afterAll(() => transcriber.dispose());

describe('whisper-small (real model, real Chromium)', () => {
  it("loads small's files and transcribes JFK word for word, diarized as one speaker, with timed words", async () => {
    const info = await transcriber.load();
    expect(info.languages).toContain('en');
    // encoder 92.3 MB + decoder 156.8 MB (+ tokenizer, configs, VAD): small's files, not base's 78 MB
    expect(loadTotal).toBeGreaterThan(249_000_000);

    const jfk = (await manifest('en')).find((c) => c.file === 'jfk.flac')!;
    const out = await transcriber.transcribe(await evalBytes('en/jfk.flac'), {
      language: 'en',
      diarize: true,
      include_timestamps: true,
      include_words: true,
    });
    console.log(`whisper-small jfk: «${out.text}»`);
    expect(await errorRateOf(jfk.text, out.text, 'en')).toBe(0);
    // speaker features come from whisper-base's cut encoder, as with tiny
    expect(out.segments!.length).toBeGreaterThan(0);
    expect(new Set(out.segments!.map((s) => s.speaker_id))).toEqual(new Set([0]));
    // word times from small's own alignment heads (its generation_config.json): in order, inside the clip
    const words = out.segments!.flatMap((s) => s.words!);
    expect(words.map((w) => w.text.replace(/[^a-z]/gi, '').toLowerCase()).join(' ')).toBe(
      'and so my fellow americans ask not what your country can do for you ask what you can do for your country',
    );
    for (const [i, w] of words.entries()) {
      expect(w.duration_ms!).toBeGreaterThan(0);
      expect(w.start_ms! + w.duration_ms!).toBeLessThanOrEqual(out.duration_ms!);
      if (i > 0) expect(w.start_ms!).toBeGreaterThanOrEqual(words[i - 1]!.start_ms!);
    }
  });
});
