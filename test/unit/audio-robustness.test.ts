import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio } from '../../src/audio/index';
import { checkBeforeDecode } from '../../src/audio/integrity';
import { sniff } from '../../src/audio/sniff';
import { makeAudioFixtures } from '../../scripts/make-audio-fixtures.mjs';

let dir = '';
beforeAll(() => {
  dir = join(makeAudioFixtures(), '..');
}, 300_000);
const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

/** Deterministic pseudo-random generator (xorshift32). */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Cut at many points and flip random bytes in the headers: each variant must either pass or be an ApiError. */
function* damaged(bytes: Uint8Array, seed: number): Generator<Uint8Array> {
  const r = rng(seed);
  for (let i = 0; i < 40; i++) yield bytes.slice(0, Math.floor(r() * r() * bytes.length));
  for (let i = 0; i < 40; i++) {
    const b = bytes.slice(0, Math.min(bytes.length, 200_000));
    for (let k = 0; k < 8; k++) b[Math.floor(r() * Math.min(b.length, 4096))] = Math.floor(r() * 256);
    yield b;
  }
}

const CONTAINERS = ['flac-stereo.flac', 'mp3-id3.mp3', 'ogg-opus.ogg', 'webm-opus.webm', 'm4a-aac.m4a', 'mp4-video-aac.mp4', 'mov-video-aac.mov', 'aac-adts.aac'];
const WAVS = ['wav-s16-44k-stereo.wav', 'wav-ext-s24-stereo.wav', 'wav-mulaw-8k.wav', 'wav-ami-f32.wav'];

describe('damaged input never throws anything but invalid_audio', () => {
  it('sniffing and container checks, on truncated and header-corrupted files', () => {
    let rejected = 0;
    for (const [i, name] of CONTAINERS.entries()) {
      for (const b of damaged(read(name), i + 1)) {
        try {
          const found = sniff(b);
          if (found.kind === 'known') checkBeforeDecode(found.container, b);
        } catch (e) {
          expect(e, name).toBeInstanceOf(ApiError);
          expect((e as ApiError).code).toBe('invalid_audio');
          rejected++;
        }
      }
    }
    expect(rejected).toBeGreaterThan(100);
  });

  it('the full WAV decode, on truncated and header-corrupted files', async () => {
    let rejected = 0;
    for (const [i, name] of WAVS.entries()) {
      for (const b of damaged(read(name), 100 + i)) {
        const found = sniff(b);
        if (found.kind === 'known' && found.container !== 'wav') continue; // needs WebAudio
        const outcome = await decodeAudio(b.buffer as ArrayBuffer, { encoding: 'auto', sampleRate: 16000, channels: 1 }).catch((e: unknown) => e);
        if (outcome instanceof Float32Array) continue;
        expect(outcome, name).toBeInstanceOf(ApiError);
        expect((outcome as ApiError).code).toBe('invalid_audio');
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(50);
  });

  it('a damaged WAV header declaring an absurd sample rate is rejected, not resampled for hours', async () => {
    const b = read('wav-s16-44k-stereo.wav');
    new DataView(b.buffer, b.byteOffset).setUint32(24, 0xfffffff0, true);
    await expect(decodeAudio(b.buffer as ArrayBuffer, { encoding: 'auto', sampleRate: 16000, channels: 1 })).rejects.toMatchObject({
      code: 'invalid_audio',
      detail: expect.stringMatching(/sample rate of 4294967280 Hz/),
    });
  });
});
