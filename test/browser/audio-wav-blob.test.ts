import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors';
import { decodeAudio } from '../../src/audio/index';

const opts = { encoding: 'auto' as const, sampleRate: 16000, channels: 1 };

/** A WAV header (44 bytes) for `dataBytes` of samples; `declared` overrides the data size field. */
function header(format: number, channels: number, rate: number, bits: number, dataBytes: number, declared = dataBytes): Uint8Array<ArrayBuffer> {
  const h = new Uint8Array(44);
  const v = new DataView(h.buffer);
  h.set([82, 73, 70, 70], 0); // RIFF
  v.setUint32(4, (36 + dataBytes) >>> 0, true);
  h.set([87, 65, 86, 69, 102, 109, 116, 32], 8); // WAVEfmt
  v.setUint32(16, 16, true);
  v.setUint16(20, format, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, (rate * channels * bits) / 8, true);
  v.setUint16(32, (channels * bits) / 8, true);
  v.setUint16(34, bits, true);
  h.set([100, 97, 116, 97], 36); // data
  v.setUint32(40, declared >>> 0, true);
  return h;
}

/** `seconds` of a two-tone stereo s16 signal at 44.1 kHz (noise-free, so any slip shows). */
function stereoS16(seconds: number): Uint8Array {
  const n = Math.round(44100 * seconds);
  const d = new Int16Array(n * 2);
  for (let i = 0; i < n; i++) {
    d[2 * i] = Math.round(12000 * Math.sin(i * 0.031));
    d[2 * i + 1] = Math.round(9000 * Math.sin(i * 0.173 + 1));
  }
  return new Uint8Array(d.buffer);
}

const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
};

describe('a large WAV Blob is read in slices', () => {
  it('gives exactly the samples of the whole-body path, for declared, placeholder and overlong sizes', async () => {
    const data = stereoS16(100); // 17.6 MB: above the 16 MiB whole-read threshold, several 4 MiB slices
    for (const declared of [data.length, 0xffffffff, 0, data.length * 2]) {
      const file = join(header(1, 2, 44100, 16, data.length, declared), data);
      const whole = await decodeAudio(file.slice().buffer, opts);
      const sliced = await decodeAudio(new Blob([file]), opts);
      expect(sliced.length, `declared ${declared}`).toBe(whole.length);
      expect(sliced.length).toBe(1_600_000);
      let same = true;
      for (let i = 0; i < whole.length && same; i++) same = sliced[i] === whole[i];
      expect(same, `declared ${declared}`).toBe(true);
      expect(sliced.buffer.byteLength).toBe(sliced.byteLength);
    }
  });

  it('names the frame of a NaN in a later slice, and applies the length limit before reading', async () => {
    const frames = 16000 * 300; // f32 mono 16 kHz, 19.2 MB
    const samples = new Float32Array(frames);
    const bad = 16000 * 250 + 7;
    samples[bad] = NaN;
    const file = new Blob([header(3, 1, 16000, 32, frames * 4), new Uint8Array(samples.buffer)]);
    const err = await decodeAudio(file, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).detail).toMatch(new RegExp(`NaN floating-point sample at frame ${bad} \\(250\\.000 s\\)`));
    const long = await decodeAudio(file, { ...opts, maxAudioSeconds: 60 }).catch((e: unknown) => e);
    expect((long as ApiError).status).toBe(413);
    expect((long as ApiError).detail).toMatch(/WAV file holds 300\.0 s .*limit of 60 s/);
  });
});
