import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio, type AudioEncoding, type DecodeOptions } from '../../src/audio/index';
import { checkBeforeDecode } from '../../src/audio/integrity';
import { sniff } from '../../src/audio/sniff';
import { DEFAULT_TRANSCRIPTION_PARAMS } from '../../src/api/params';
import { audioLengthOf } from '../../src/sw/credit-estimate';
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
const WAVS = [
  'wav-s16-44k-stereo.wav', 'wav-ext-s24-stereo.wav', 'wav-mulaw-8k.wav', 'wav-ami-f32.wav', 'wav-f64-8k.wav',
  'wav-streamed-sox-8k.wav', 'wav-rf64-s16-22k.wav', 'wav-w64-f32-16k.w64',
];
/** Raw bodies, cut anywhere: a partial frame is invalid_audio, whole frames decode. */
const RAW: [string, AudioEncoding, number][] = [
  ['raw-mulaw-8k.ul', 'mulaw', 1], ['raw-alaw-8k.al', 'alaw', 1], ['raw-mulaw-8k-stereo.ul', 'mulaw', 2], ['raw-s16-16k.pcm', 'pcm_s16le', 1],
];

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

  it('the full WAV and raw decode: cut at many points, bytes flipped anywhere', async () => {
    const tally = { decoded: 0, rejected: 0, skipped: 0 };
    let slowest = 0;
    /** Either whole finite samples or 400 invalid_audio; never another error, never a long stall. */
    const expectDecodedOrInvalid = async (b: Uint8Array, options: DecodeOptions, what: string) => {
      const found = options.encoding === 'auto' ? sniff(b) : undefined;
      if (found?.kind === 'known' && found.container !== 'wav') return void tally.skipped++; // now looks like a compressed format: needs WebAudio
      const t0 = performance.now();
      const outcome = await decodeAudio(b.slice().buffer, options).catch((e: unknown) => e);
      slowest = Math.max(slowest, performance.now() - t0);
      if (outcome instanceof Float32Array) {
        expect(outcome.length, what).toBeGreaterThan(0);
        expect(outcome.every(Number.isFinite), what).toBe(true);
        tally.decoded++;
        return;
      }
      expect(outcome, what).toBeInstanceOf(ApiError);
      expect((outcome as ApiError).status, what).toBe(400);
      expect((outcome as ApiError).code, `${what}: ${(outcome as ApiError).detail}`).toBe('invalid_audio');
      tally.rejected++;
    };
    const auto: DecodeOptions = { encoding: 'auto', sampleRate: 16000, channels: 1 };
    for (const [i, name] of WAVS.entries()) {
      const r = rng(100 + i);
      const wav = read(name);
      // Every cut inside the first 160 bytes (all the headers), then random cuts through the samples.
      const cuts = [...Array.from({ length: 161 }, (_, n) => n), ...Array.from({ length: 40 }, () => Math.floor(r() * wav.length))];
      for (const n of cuts) await expectDecodedOrInvalid(wav.subarray(0, n), auto, `${name} cut at ${n}`);
      for (let k = 0; k < 40; k++) {
        const b = wav.slice();
        // 1 to 8 bytes overwritten: half the variants in the headers, half anywhere in the file.
        const span = k % 2 ? b.length : Math.min(b.length, 256);
        const flips = 1 + Math.floor(r() * 8);
        for (let f = 0; f < flips; f++) b[Math.floor(r() * span)] = Math.floor(r() * 256);
        await expectDecodedOrInvalid(b, auto, `${name} flip variant ${k}`);
      }
    }
    for (const [i, [name, encoding, channels]] of RAW.entries()) {
      const r = rng(200 + i);
      const body = read(name);
      for (let k = 0; k < 30; k++) {
        const n = k < 5 ? k : Math.floor(r() * body.length);
        await expectDecodedOrInvalid(body.subarray(0, n), { encoding, sampleRate: 8000, channels }, `${name} cut at ${n}`);
      }
    }
    console.log(`WAV/raw hostile inputs: ${tally.decoded} decoded, ${tally.rejected} rejected with invalid_audio, ${tally.skipped} now sniffed as a compressed format (skipped); slowest ${slowest.toFixed(0)} ms`);
    // Cuts before the first whole frame are rejected; most cuts and flips still decode, as in ffmpeg.
    expect(tally.rejected).toBeGreaterThan(WAVS.length * 30);
    expect(tally.decoded).toBeGreaterThan(WAVS.length * 60);
    expect(slowest).toBeLessThan(10_000);
  }, 300_000);

  it('a damaged WAV header declaring an absurd sample rate is rejected, not resampled for hours', async () => {
    const b = read('wav-s16-44k-stereo.wav');
    new DataView(b.buffer, b.byteOffset).setUint32(24, 0xfffffff0, true);
    await expect(decodeAudio(b.buffer as ArrayBuffer, { encoding: 'auto', sampleRate: 16000, channels: 1 })).rejects.toMatchObject({
      code: 'invalid_audio',
      detail: expect.stringMatching(/sample rate of 4294967280 Hz/),
    });
  });
});

describe('what a container declares, against what it holds', () => {
  it('a WebM whose bytes are zeroed after its start is refused as damaged before the demuxer (whose resync would spin forever)', () => {
    const whole = read('webm-opus.webm');
    expect(checkBeforeDecode('matroska', whole)).toEqual({ duration: 0 });
    for (const from of [300, 1000, Math.floor(whole.length / 2)]) {
      const b = whole.slice();
      b.fill(0, from);
      expect(() => checkBeforeDecode('matroska', b), `zeroed from ${from}`).toThrow(/damaged: (inside the cluster at byte \d+, )?from byte \d+ to its segment's end/);
    }
  });
  it('a WebM damaged in the middle (zeroed or overwritten bytes where blocks should be) is refused, in a file of known sizes and in a live one of unknown sizes; whole ones pass', () => {
    const live = join(mkdtempSync(join(tmpdir(), 'webm-live-')), 'live.webm');
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', join(dir, 'webm-opus.webm'), '-c', 'copy', '-live', '1', '-f', 'webm', live]);
    for (const [name, whole] of [['webm-opus.webm', read('webm-opus.webm')], ['mka-vorbis.mka', read('mka-vorbis.mka')], ['live.webm', new Uint8Array(readFileSync(live))]] as const) {
      expect(checkBeforeDecode('matroska', whole), name).toEqual({ duration: 0 });
      const middle = Math.floor(whole.length / 2);
      const zeroed = whole.slice();
      zeroed.fill(0, middle, middle + 2000);
      expect(() => checkBeforeDecode('matroska', zeroed), name).toThrow(/damaged: inside the cluster at byte \d+, bytes \d+ to \d+ are no element/);
      const overwritten = whole.slice();
      for (let i = middle; i < middle + 2000; i++) overwritten[i] = (i * 2654435761) >>> 24;
      expect(() => checkBeforeDecode('matroska', overwritten), name).toThrow(/damaged: inside the cluster at byte \d+, bytes \d+ to \d+ are no element/);
    }
    // A live file declares no segment size, so a cut is found where its last block stops short.
    const liveBytes = new Uint8Array(readFileSync(live));
    const cut = liveBytes.slice(0, liveBytes.length - 3);
    expect(() => checkBeforeDecode('matroska', cut)).toThrow(/truncated: its block at byte \d+ is cut short/);
  });
  it('an Ogg file damaged anywhere (bytes zeroed or overwritten between pages, a byte changed inside one, a zeroed tail) is refused; whole files and bytes after the end-of-stream page pass', () => {
    for (const name of ['ogg-opus.ogg', 'ogg-vorbis.ogg']) {
      const whole = read(name);
      expect(checkBeforeDecode('ogg', whole).lengthHint, name).toBeGreaterThan(0);
      const middle = Math.floor(whole.length / 2);
      const zeroed = whole.slice();
      const pageStart = Buffer.from(whole).indexOf('OggS', middle); // the next page's start
      zeroed.fill(0, pageStart, pageStart + 3000);
      expect(() => checkBeforeDecode('ogg', zeroed), name).toThrow(/Ogg file is damaged: bytes \d+ to \d+ are not Ogg pages/);
      const flipped = whole.slice();
      flipped[middle]! ^= 0x10;
      expect(() => checkBeforeDecode('ogg', flipped), name).toThrow(/Ogg file is damaged: its page at byte \d+ fails its checksum/);
      const tail = whole.slice();
      tail.fill(0, pageStart);
      expect(() => checkBeforeDecode('ogg', tail), name).toThrow(/Ogg file is damaged: from byte \d+ to its end .* no Ogg page follows/);
      const padded = new Uint8Array(whole.length + 4096);
      padded.set(whole);
      expect(checkBeforeDecode('ogg', padded).lengthHint, `${name} with zeros after its last page`).toBe(checkBeforeDecode('ogg', whole).lengthHint);
    }
  });
  it("a short 8 kHz MP3 declares its decoded length (LAME's delay and padding taken off), not its frames' length", () => {
    // LAME's delay and padding (0.2 s here) are more than the truncation check's tolerance
    const out = join(mkdtempSync(join(tmpdir(), 'mp3-8k-')), 'short.mp3');
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', join(dir, 'wav-s16-44k-stereo.wav'), '-ac', '1', '-ar', '8000', '-t', '1.3', '-c:a', 'libmp3lame', '-b:a', '16k', out]);
    const e = checkBeforeDecode('mp3', new Uint8Array(readFileSync(out)));
    // ffmpeg wrote 1.3 s; its 11 frames of 1152 samples hold 1.58 s
    expect(e.duration).toBeCloseTo(1.3, 2);
  });
  it("a WAV's credit length comes from its channels, rate and sample size, not its byte-rate field", () => {
    const b = read('wav-s16-44k-stereo.wav');
    const seconds = (bytes: Uint8Array) => audioLengthOf(bytes.slice().buffer as ArrayBuffer, { ...DEFAULT_TRANSCRIPTION_PARAMS }).seconds;
    const truth = seconds(b);
    expect(truth).toBeCloseTo(11, 1);
    for (const byteRate of [1, 0xffffffff]) {
      const damaged = b.slice();
      new DataView(damaged.buffer).setUint32(28, byteRate, true);
      expect(seconds(damaged), `byte rate ${byteRate}`).toBe(truth);
    }
  });
});
