import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { errorRateOf, evalBytes, manifest } from './helpers/clips';

// One clip only: small's encoder costs about 4.5x base's, and this runs on 2 shared cores.
let loadTotal = 0;
const transcriber = createTranscriber({ model: 'whisper-small', onProgress: (e) => e.stage === 'load' && (loadTotal = e.total) });
afterAll(() => transcriber.dispose());

describe('whisper-small (real model, real Chromium)', () => {
  it("loads small's files and transcribes JFK word for word, diarized as one speaker", async () => {
    const info = await transcriber.load();
    expect(info.languages).toContain('en');
    // encoder 92.3 MB + decoder 156.8 MB (+ tokenizer, configs, VAD): small's files, not base's 78 MB
    expect(loadTotal).toBeGreaterThan(249_000_000);

    const jfk = (await manifest('en')).find((c) => c.file === 'jfk.flac')!;
    const out = await transcriber.transcribe(await evalBytes('en/jfk.flac'), { language: 'en', diarize: true, include_timestamps: true });
    console.log(`whisper-small jfk: «${out.text}»`);
    expect(await errorRateOf(jfk.text, out.text, 'en')).toBe(0);
    // speaker features come from whisper-base's cut encoder, as with tiny
    expect(out.segments!.length).toBeGreaterThan(0);
    expect(new Set(out.segments!.map((s) => s.speaker_id))).toEqual(new Set([0]));
  });
});
