import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio } from '../../src/audio/index';
import { parseWav } from '../../src/audio/wav';
import { makeAudioFixtures } from '../../scripts/make-audio-fixtures.mjs';

/**
 * WAV bodies with placeholder, overlong or cut sizes, each decoded by ffmpeg from the same bytes:
 * where ffmpeg gets samples we must get exactly the same ones (16 kHz sources, so nothing is
 * resampled), and where it gets none we must answer 400 invalid_audio.
 */
let dir = '';
let tmp = '';
beforeAll(() => {
  dir = join(makeAudioFixtures(), '..');
  tmp = mkdtempSync(join(tmpdir(), 'wav-streamed-'));
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

/** What ffmpeg decodes from `bytes` as 32-bit float at the file's own rate; empty when it fails or finds nothing. */
function ffmpegSamples(bytes: Uint8Array): Float32Array {
  const file = join(tmp, 'in.wav');
  writeFileSync(file, bytes);
  const run = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'quiet', '-i', file, '-f', 'f32le', '-'], { maxBuffer: 1 << 28 });
  if (run.status !== 0 || run.stdout.length === 0) return new Float32Array(0);
  return new Float32Array(run.stdout.buffer.slice(run.stdout.byteOffset, run.stdout.byteOffset + run.stdout.byteLength));
}

const ours = (bytes: Uint8Array) =>
  decodeAudio(bytes.slice().buffer, { encoding: 'auto', sampleRate: 16000, channels: 1 }).catch((e: unknown) => e);

const setU32 = (b: Uint8Array, at: number, value: number) => new DataView(b.buffer, b.byteOffset).setUint32(at, value, true);

/** Checks one variant against ffmpeg; returns whether ffmpeg (and so we) decoded it. */
let compared = 0;
afterAll(() => console.log(`WAV variants compared with ffmpeg on the same bytes: ${compared}`));

async function agreeWithFfmpeg(bytes: Uint8Array, what: string): Promise<boolean> {
  compared++;
  const expected = ffmpegSamples(bytes);
  const got = await ours(bytes);
  if (expected.length === 0) {
    expect(got, `${what}: ffmpeg decodes nothing, so must we`).toBeInstanceOf(ApiError);
    expect((got as ApiError).code, what).toBe('invalid_audio');
    return false;
  }
  expect(got, `${what}: ${(got as Error).message}`).toBeInstanceOf(Float32Array);
  const out = got as Float32Array;
  expect(out.length, what).toBe(expected.length);
  let firstDiff = -1;
  for (let i = 0; i < out.length && firstDiff < 0; i++) if (out[i] !== expected[i]) firstDiff = i;
  expect(firstDiff, `${what}: first differing sample`).toBe(-1);
  return true;
}

describe('WAV sizes read as ffmpeg reads them', () => {
  it('a file written to a pipe (data and RIFF sizes 0xFFFFFFFF) decodes whole', async () => {
    const streamed = read('wav-streamed-ffmpeg-16k.wav');
    const info = parseWav(streamed);
    expect(new DataView(streamed.buffer).getUint32(info.dataOffset - 4, true)).toBe(0xffffffff);
    expect(await agreeWithFfmpeg(streamed, 'as written')).toBe(true);
    expect(info.dataLength).toBe(streamed.length - info.dataOffset);
  });

  it('sox\'s placeholder (0x7FFFF000) at 8 kHz decodes to the end of the body', async () => {
    const sox = read('wav-streamed-sox-8k.wav');
    const info = parseWav(sox);
    expect(new DataView(sox.buffer).getUint32(info.dataOffset - 4, true)).toBe(0x7ffff000);
    expect(info.dataLength).toBe(sox.length - info.dataOffset);
    const out = (await ours(sox)) as Float32Array;
    expect(out.length).toBe(ffmpegSamples(sox).length * 2); // 8 kHz to 16 kHz
  }, 60_000);

  it('placeholder, zero, overlong and exact sizes in the data and RIFF headers', async () => {
    const base = read('wav-streamed-ffmpeg-16k.wav');
    const { dataOffset } = parseWav(base);
    const body = base.length - dataOffset;
    const sizes = [0, 0xffffffff, 0x7fff0000, 0x7ffff000, body, body + 1, body * 3, body - 2000];
    let decoded = 0;
    for (const data of sizes) {
      for (const riff of [0, 0xffffffff, 0x7fff0000, 36]) {
        const b = base.slice();
        setU32(b, dataOffset - 4, data);
        setU32(b, 4, riff);
        if (await agreeWithFfmpeg(b, `data size ${data}, RIFF size ${riff}`)) decoded++;
      }
    }
    expect(decoded).toBe(sizes.length * 4);
  }, 120_000);

  it('cuts inside every header byte and through the samples, odd lengths included', async () => {
    // Every header byte of the streamed file; every fourth of the others (one ffmpeg run per cut)
    // plus each byte around the start of the samples.
    for (const [name, stride] of [['wav-streamed-ffmpeg-16k.wav', 1], ['wav-f32-16k.wav', 4], ['wav-w64-f32-16k.w64', 4]] as const) {
      const base = read(name);
      const { dataOffset } = parseWav(base);
      const cuts = [
        ...Array.from({ length: Math.ceil(dataOffset / stride) }, (_, k) => k * stride),
        ...Array.from({ length: 12 }, (_, k) => dataOffset - 2 + k),
        dataOffset + 101, dataOffset + 4097, Math.floor(base.length / 2) + 1, base.length - 1,
      ];
      const results = { decoded: 0, rejected: 0 };
      for (const n of cuts) results[(await agreeWithFfmpeg(base.subarray(0, n), `${name} cut at ${n}`)) ? 'decoded' : 'rejected']++;
      // Everything before the first whole sample is refused; from there on it decodes.
      expect(results.rejected, name).toBeGreaterThanOrEqual(dataOffset / stride);
      expect(results.decoded, name).toBeGreaterThanOrEqual(4);
    }
  }, 120_000);

  it('the 64-bit layouts: RF64 (size in ds64) and Sony Wave64 decode as ffmpeg decodes them', async () => {
    const rf64 = read('wav-rf64-s16-22k.wav');
    expect(String.fromCharCode(...rf64.subarray(0, 4))).toBe('RF64');
    const info = parseWav(rf64);
    expect(info).toMatchObject({ format: 's16', sampleRate: 22050, channels: 1 });
    expect(info.dataLength).toBe(ffmpegSamples(rf64).length * 2);
    expect(await agreeWithFfmpeg(read('wav-w64-f32-16k.w64'), 'Wave64')).toBe(true);
  });
});
