import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { evalBytes } from './helpers/clips';

// whisper-tiny transcribes; the speaker features come from the truncated whisper-base encoder.
const transcriber = createTranscriber({ model: 'whisper-tiny' });
afterAll(() => transcriber.dispose());

describe('diarization with no max_speakers (automatic count) through the JS API', () => {
  it('keeps a one-speaker recording as one speaker (JFK, 11 s; the earlier stop-similarity count split it in two in bench/diarization.mjs)', async () => {
    const bytes = await evalBytes('en/jfk.flac');
    const out = await transcriber.transcribe(bytes, { language: 'en', diarize: true, include_timestamps: true });
    expect(out.segments!.length).toBeGreaterThan(0);
    expect(new Set(out.segments!.map((s) => s.speaker_id))).toEqual(new Set([0]));
    expect(out.text.toLowerCase()).toContain('country');
  });

  it('finds the two speakers of the two-speaker reference clip and gives both of them text', async () => {
    const bytes = await evalBytes('diar/pyannote_sample.wav');
    const out = await transcriber.transcribe(bytes, { language: 'en', diarize: true, include_timestamps: true });
    const speakers = new Set(out.segments!.map((s) => s.speaker_id));
    expect([...speakers].sort()).toEqual([0, 1]);
    for (const id of speakers) {
      const words = out.segments!.filter((s) => s.speaker_id === id).flatMap((s) => s.text.split(/\s+/).filter(Boolean));
      expect(words.length).toBeGreaterThan(5);
    }
  });
});
