import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio, type AudioEncoding } from '../../src/audio/index';
import { parseWav } from '../../src/audio/wav';
import { makeAudioFixtures } from '../../scripts/make-audio-fixtures.mjs';
import { snrDb } from './audio-compare';

interface Row { name: string; encoding: AudioEncoding; sampleRate: number; channels: number; ref?: string; error?: string }

let dir = '';
let rows: Row[] = [];
beforeAll(() => {
  const manifest = makeAudioFixtures();
  dir = join(manifest, '..');
  rows = JSON.parse(readFileSync(manifest, 'utf8')).rows;
}, 300_000);

const bytesOf = (name: string) => {
  const b = readFileSync(join(dir, name));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
};
const refOf = (name: string) => new Float32Array(bytesOf(name));
// WAV and raw bodies never touch WebAudio, so they decode in node too.
const parsedInTs = (r: Row) => r.ref && (/\.(wav|w64)$/.test(r.name) || r.encoding === 'pcm_s16le' || r.encoding === 'mulaw' || r.encoding === 'alaw');

describe('WAV and raw bodies decoded in TypeScript', () => {
  it('match the ffmpeg reference decode (16 kHz mono) for every WAV and raw fixture', async () => {
    const checked: string[] = [];
    for (const row of rows.filter(parsedInTs)) {
      const out = await decodeAudio(bytesOf(row.name), row);
      const ref = refOf(row.ref!);
      expect(Math.abs(out.length - ref.length), row.name).toBeLessThanOrEqual(1);
      // Sources already at 16 kHz are not resampled: the decode must be exact. Otherwise the
      // reference's soxr passes up to ~8 kHz while ours stops at 7.25 kHz, which bounds the SNR.
      const exact = (row.name.includes('16k') || row.name.includes('ami'));
      expect(snrDb(out, ref), row.name).toBeGreaterThan(exact ? 100 : 35);
      checked.push(row.name);
    }
    expect(checked.length).toBeGreaterThanOrEqual(21);
  });

  it('reads the WAVE_FORMAT_EXTENSIBLE header of multichannel and 24-bit files', () => {
    for (const name of ['wav-ext-s16-6ch.wav', 'wav-ext-s24-stereo.wav']) {
      const bytes = new Uint8Array(bytesOf(name));
      expect(bytes[20]! | (bytes[21]! << 8), name).toBe(0xfffe);
      const info = parseWav(bytes);
      expect(info.format).toBe(name.includes('s24') ? 's24' : 's16');
      expect(info.channels).toBe(name.includes('6ch') ? 6 : 2);
    }
  });

  it('decodes the 32-bit float AMI clips of the evaluation set', async () => {
    const bytes = new Uint8Array(bytesOf('wav-ami-f32.wav'));
    expect(parseWav(bytes)).toMatchObject({ format: 'f32', channels: 1, sampleRate: 16000 });
    const out = await decodeAudio(bytes.buffer as ArrayBuffer, { encoding: 'auto', sampleRate: 16000, channels: 1 });
    expect(out.length).toBe(480001);
  });

  it('rejects WAV files cut inside the header or before the first sample with invalid_audio saying why', async () => {
    for (const [name, why] of [['bad-truncated.wav', /truncated/], ['bad-header-only.wav', /no samples/]] as const) {
      const err = await decodeAudio(bytesOf(name), { encoding: 'auto', sampleRate: 16000, channels: 1 }).catch((e) => e);
      expect(err, name).toBeInstanceOf(ApiError);
      expect(err.code).toBe('invalid_audio');
      expect(err.detail).toMatch(why);
    }
  });

  it('names an unsupported WAV codec', () => {
    const bytes = new Uint8Array(bytesOf('wav-s24-48k.wav').slice(0, 200));
    bytes[20] = 0x02; // MS ADPCM
    bytes[21] = 0;
    expect(() => parseWav(bytes)).toThrow(/0x0002 \(Microsoft ADPCM\)/);
  });
});

describe('raw encodings', () => {
  const opts = (encoding: AudioEncoding, channels: number) => ({ encoding, sampleRate: 8000, channels });

  it('rejects a byte count that does not divide into whole frames', async () => {
    for (const [encoding, channels, bytes] of [['pcm_s16le', 1, 1001], ['pcm_s16le', 2, 1002], ['mulaw', 3, 1000], ['alaw', 10, 1005]] as const) {
      const err = await decodeAudio(new ArrayBuffer(bytes), opts(encoding, channels)).catch((e) => e);
      expect(err, `${encoding} ${channels}ch ${bytes}B`).toBeInstanceOf(ApiError);
      expect(err.code).toBe('invalid_audio');
      expect(err.detail).toMatch(/whole frames/);
    }
    // Divisible counts are accepted.
    await expect(decodeAudio(new ArrayBuffer(1000), opts('pcm_s16le', 2))).resolves.toHaveLength(500);
  });

  it('rejects an empty body and out-of-range channels', async () => {
    await expect(decodeAudio(new ArrayBuffer(0), opts('mulaw', 1))).rejects.toMatchObject({ code: 'invalid_audio', detail: /empty/ });
    await expect(decodeAudio(new ArrayBuffer(22), opts('pcm_s16le', 11))).rejects.toMatchObject({ code: 'invalid_query_parameter' });
  });

  it('keeps the duration within one 16 kHz sample period of the source', async () => {
    for (const rate of [8000, 11025, 22050, 44100, 48000, 12345]) {
      const frames = rate * 3 + 7;
      const out = await decodeAudio(new ArrayBuffer(frames * 2), { encoding: 'pcm_s16le', sampleRate: rate, channels: 1 });
      expect(Math.abs(out.length / 16000 - frames / rate), String(rate)).toBeLessThanOrEqual(1 / 16000);
    }
  });
});
