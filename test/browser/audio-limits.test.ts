import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio } from '../../src/audio/index';
import { createTranscriber } from '../../src/index';

const get = async (path: string) => {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.arrayBuffer();
};

function expect413(err: unknown, detail: RegExp) {
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(413);
  expect((err as ApiError).code).toBeUndefined();
  expect((err as ApiError).detail).toMatch(detail);
}

describe('maxAudioSeconds in Chromium', () => {
  it('compressed files that declare no length are stopped while decoding, once past the limit', async () => {
    // WebM/Opus and MP3 without a Xing header say nothing of their length up front (11 s each).
    for (const name of ['webm-opus.webm', 'mp3-no-id3.mp3', 'aac-adts.aac']) {
      const bytes = await get(`/__fixtures/audio/${name}`);
      const err = await decodeAudio(bytes.slice(0), { encoding: 'auto', sampleRate: 16000, channels: 1, maxAudioSeconds: 5 }).catch((e: unknown) => e);
      // The streaming decoder stops within a packet of the limit, not after the whole file.
      expect413(err, /decoding found that the .* file holds over 5\.\d s .*limit of 5 s/);
      // The WebAudio fallback decodes the whole file first, then measures it.
      const whole = await decodeAudio(bytes.slice(0), { encoding: 'auto', sampleRate: 16000, channels: 1, maxAudioSeconds: 5, compressedDecoder: 'webaudio' }).catch((e: unknown) => e);
      expect413(whole, /file holds 1[01]\.\d s .*limit of 5 s/);
      const out = await decodeAudio(bytes, { encoding: 'auto', sampleRate: 16000, channels: 1, maxAudioSeconds: 12 });
      expect(out.length, name).toBeGreaterThan(16000 * 10);
    }
  });

  describe('through createTranscriber', () => {
    const transcriber = createTranscriber({ model: 'whisper-tiny', maxAudioSeconds: 2 });
    afterAll(() => transcriber.dispose());

    it('the configured limit refuses an encoded file and 16 kHz samples alike; a call may set its own', async () => {
      const wav = await get('/__fixtures/audio/wav-s16-44k-stereo.wav');
      expect413(await transcriber.transcribe(wav).catch((e: unknown) => e), /WAV file holds 11\.0 s .*limit of 2 s/);
      expect413(await transcriber.transcribe(new Float32Array(16000 * 3)).catch((e: unknown) => e), /samples last 3\.0 s .*limit of 2 s/);
      // The per-call option wins (as /v1 uses it): 3 s of silence is within 4 s.
      const ok = await transcriber.transcribe(new Float32Array(16000 * 3), {}, { maxAudioSeconds: 4 });
      expect(typeof ok.text).toBe('string');
    });

    it('a limit that is not a positive number is refused when the transcriber is made', () => {
      expect(() => createTranscriber({ maxAudioSeconds: 0 })).toThrow(RangeError);
      expect(() => createTranscriber({ maxAudioSeconds: Number.NaN })).toThrow(/maxAudioSeconds/);
    });
  });
});
