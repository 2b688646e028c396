import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio, DEFAULT_MAX_AUDIO_SECONDS, type DecodeOptions } from '../../src/audio/index';
import { checkMaxAudioSeconds } from '../../src/audio/limit';
import { parseWav } from '../../src/audio/wav';
import { makeAudioFixtures } from '../../scripts/make-audio-fixtures.mjs';

let dir = '';
beforeAll(() => {
  dir = join(makeAudioFixtures(), '..');
}, 300_000);
const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const auto: DecodeOptions = { encoding: 'auto', sampleRate: 16000, channels: 1 };
const outcome = (bytes: Uint8Array | ArrayBuffer, options: DecodeOptions) =>
  decodeAudio(bytes instanceof ArrayBuffer ? bytes : bytes.slice().buffer, options).catch((e: unknown) => e);

/** A mono 8-bit WAV header for `frames` frames at `rate`, followed by that many bytes of silence. */
function u8Wav(rate: number, frames: number): Uint8Array {
  const b = new Uint8Array(44 + frames).fill(128);
  const v = new DataView(b.buffer);
  b.set(new TextEncoder().encode('RIFF'), 0);
  v.setUint32(4, 36 + frames, true);
  b.set(new TextEncoder().encode('WAVEfmt '), 8);
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, rate, true);
  v.setUint32(28, rate, true);
  v.setUint16(32, 1, true);
  v.setUint16(34, 8, true);
  b.set(new TextEncoder().encode('data'), 36);
  v.setUint32(40, frames, true);
  return b;
}

function expectTooLong(err: unknown, seconds: RegExp, limit: number) {
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  expect(e.status).toBe(413);
  expect(e.code).toBeUndefined(); // spec 7.2: 413 carries no code
  expect(e.detail).toMatch(seconds);
  expect(e.detail).toContain(`limit of ${limit} s`);
}

describe('maxAudioSeconds', () => {
  it('defaults to 4 hours and refuses a 5-hour WAV from its size, before resampling it', async () => {
    expect(DEFAULT_MAX_AUDIO_SECONDS).toBe(14_400);
    const t0 = performance.now();
    expectTooLong(await outcome(u8Wav(1000, 5 * 3600 * 1000), auto), /18000\.0 s \(5 h 00 min\)/, 14_400);
    // Resampling 18 M frames at 1 kHz to 288 M samples would take far longer than this.
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('accepts exactly the limit and refuses one frame more', async () => {
    const out = await outcome(u8Wav(1000, 10_000), { ...auto, maxAudioSeconds: 10 });
    expect(out).toBeInstanceOf(Float32Array);
    expect((out as Float32Array).length).toBe(160_000);
    expectTooLong(await outcome(u8Wav(1000, 10_001), { ...auto, maxAudioSeconds: 10 }), /10\.0 s/, 10);
  });

  it('a raw μ-law body declared at 1 kHz is measured before it is resampled 16-fold', async () => {
    // 100 MiB at 1 kHz: 29 h, which resampled would be 1.7 billion samples (6.7 GB).
    const t0 = performance.now();
    const err = await outcome(new ArrayBuffer(100 * 1024 * 1024), { encoding: 'mulaw', sampleRate: 1000, channels: 1 });
    expectTooLong(err, /104857600 bytes at 1000 Hz last 104857\.6 s \(29 h 07 min\)/, 14_400);
    expect(performance.now() - t0).toBeLessThan(3000);
    // Channels divide the length: the same bytes as 4-channel A-law last a quarter as long.
    expectTooLong(await outcome(new ArrayBuffer(4000 * 20), { encoding: 'alaw', sampleRate: 1000, channels: 4, maxAudioSeconds: 15 }), /20\.0 s/, 15);
  });

  it('applies to every WAV and raw fixture (11 s) with a 5 s limit, and not with 12 s', async () => {
    const cases: [string, DecodeOptions][] = [
      ['wav-s16-44k-stereo.wav', auto], ['wav-ext-s24-stereo.wav', auto], ['wav-streamed-sox-8k.wav', auto],
      ['wav-rf64-s16-22k.wav', auto], ['wav-w64-f32-16k.w64', auto],
      ['raw-s16-44k-stereo.pcm', { encoding: 'pcm_s16le', sampleRate: 44100, channels: 2 }],
      ['raw-mulaw-8k.ul', { encoding: 'mulaw', sampleRate: 8000, channels: 1 }],
    ];
    for (const [name, options] of cases) {
      expectTooLong(await outcome(read(name), { ...options, maxAudioSeconds: 5 }), /1[01]\.\d s/, 5);
      expect(await outcome(read(name), { ...options, maxAudioSeconds: 12 }), name).toBeInstanceOf(Float32Array);
    }
  });

  it('compressed files that declare their length are refused before the browser decodes them', async () => {
    // In node there is no WebAudio: reaching the decoder would be another error, so a 413 proves
    // the refusal came from the header (MP4 mdhd, FLAC STREAMINFO, MP3 Xing, Ogg end position).
    for (const name of ['m4a-aac.m4a', 'mov-video-aac.mov', 'flac-stereo.flac', 'mp3-id3.mp3', 'ogg-opus.ogg', 'ogg-vorbis.ogg']) {
      const err = await outcome(read(name), { ...auto, maxAudioSeconds: 5 });
      expectTooLong(err, /declares 1[01]\.\d s/, 5);
    }
  });

  it('rejects a limit that is not a positive number', () => {
    for (const bad of [0, -1, NaN, '3600', null]) expect(() => checkMaxAudioSeconds(bad)).toThrow(RangeError);
    expect(checkMaxAudioSeconds(Infinity)).toBe(Infinity);
    expect(checkMaxAudioSeconds(0.5)).toBe(0.5);
  });
});

describe('NaN and infinite samples in float WAV', () => {
  const tooLarge = 'an infinite or out-of-range (beyond ±3.4e38)';
  const poison: [string, number][] = [['a NaN', NaN], [tooLarge, Infinity], [tooLarge, -Infinity]];

  it('are rejected with invalid_audio naming the sample, in 32- and 64-bit files', async () => {
    for (const name of ['wav-f32-16k.wav', 'wav-f64-8k.wav', 'wav-ami-f32.wav', 'wav-w64-f32-16k.w64']) {
      const clean = read(name);
      const { dataOffset, format, sampleRate } = parseWav(clean);
      const width = format === 'f64' ? 8 : 4;
      const frame = sampleRate * 2 + 17; // 2 s in
      // a finite 64-bit sample beyond float32's range becomes infinite in the decoded signal
      for (const [word, value] of width === 8 ? [...poison, [tooLarge, 1e300] as [string, number]] : poison) {
        const b = clean.slice();
        const v = new DataView(b.buffer);
        if (width === 8) v.setFloat64(dataOffset + frame * 8, value, true);
        else v.setFloat32(dataOffset + frame * 4, value, true);
        const err = await outcome(b, auto);
        expect(err, `${name} ${value}`).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(400);
        expect((err as ApiError).code).toBe('invalid_audio');
        expect((err as ApiError).detail).toContain(`${word} floating-point sample at frame ${frame}`);
      }
      expect(await outcome(clean, auto), name).toBeInstanceOf(Float32Array);
    }
  });

  it('a NaN in one channel of a stereo float file is found too', async () => {
    const frames = 16000;
    const b = new Uint8Array(44 + frames * 8);
    const v = new DataView(b.buffer);
    b.set(new TextEncoder().encode('RIFF\0\0\0\0WAVEfmt '), 0);
    v.setUint32(16, 16, true);
    v.setUint16(20, 3, true); // IEEE float
    v.setUint16(22, 2, true);
    v.setUint32(24, 16000, true);
    v.setUint32(28, 16000 * 8, true);
    v.setUint16(32, 8, true);
    v.setUint16(34, 32, true);
    b.set(new TextEncoder().encode('data'), 36);
    v.setUint32(40, frames * 8, true);
    v.setFloat32(44 + 9000 * 8 + 4, NaN, true); // right channel of frame 9000
    const err = await outcome(b, auto);
    expect((err as ApiError).code).toBe('invalid_audio');
    expect((err as ApiError).detail).toContain('at frame 9000 (0.563 s)');
  });
});
