import { afterAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../../src/index';
import { decodeAudio } from '../../src/audio/index';
import { diarizationError, parseRttm } from '../../bench/score/der';
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

  it('times the speaker segments by who spoke when: AMI dev01, no segment across its 3 s pause', async () => {
    const bytes = await evalBytes('diar/ami_dev01.wav');
    const reference = parseRttm(new TextDecoder().decode(await evalBytes('diar/ami_dev01.rttm')));
    const out = await transcriber.transcribe(bytes, { language: 'en', diarize: true, include_timestamps: true });
    const hyp = out.segments!.map((s) => ({ speaker: String(s.speaker_id), start: s.start_ms! / 1000, end: (s.start_ms! + s.duration_ms!) / 1000 }));
    // nobody speaks from 11.78 s to 15.13 s: Whisper-timed, merged segments spanned it (DER 43% with whisper-base)
    const gap = { start: Math.max(...reference.filter((t) => t.end < 13).map((t) => t.end)), end: Math.min(...reference.filter((t) => t.start > 13).map((t) => t.start)) };
    expect(gap.end - gap.start).toBeGreaterThan(3);
    for (const s of hyp) expect(s.end <= gap.start + 0.5 || s.start >= gap.end - 0.5, `${s.start}-${s.end} s`).toBe(true);
    const der = diarizationError(reference, hyp, { collar: 0.25, from: 0, to: out.duration_ms! / 1000 });
    expect(der.der).toBeLessThan(0.25);
  });

  it('writes the words the same request without diarize=true writes, on a recording too quiet for the VAD unlevelled', async () => {
    // 34 dB down: the transcription's VAD hears it lifted (engine/vad/level.ts), the diarizer's as it is
    const pcm = await decodeAudio(await evalBytes('diar/ami_dev00.wav'), { encoding: 'auto', sampleRate: 16000, channels: 1 });
    const quiet = pcm.map((x) => x * 0.02);
    const plain = await transcriber.transcribe(quiet.slice(), { language: 'en' });
    const diarized = await transcriber.transcribe(quiet.slice(), { language: 'en', diarize: true });
    expect(plain.text.split(/\s+/).length).toBeGreaterThan(30);
    expect(diarized.text).toBe(plain.text);
    expect(diarized.segments!.map((s) => s.text).join(' ')).toBe(plain.text);
  });
});
