import { describe, expect, it } from 'vitest';
import { planarSource } from '../../src/audio/downmix';
import { resample, resampledLength } from '../../src/audio/resample';
import { rms } from './audio-compare';

const dB = (x: number) => 20 * Math.log10(x);

/** Linear chirp from f0 to f1 Hz over `seconds`. */
function sweep(rate: number, f0: number, f1: number, seconds: number, amp = 0.5): Float32Array {
  const n = Math.round(rate * seconds);
  const out = new Float32Array(n);
  const k = (f1 - f0) / seconds;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    out[i] = amp * Math.sin(2 * Math.PI * (f0 * t + (k * t * t) / 2));
  }
  return out;
}

const tone = (rate: number, f: number, n: number, amp = 0.5) =>
  Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * f * i) / rate));

/** What an anti-aliasing-free resampler does: linear interpolation between neighbours. */
function linearInterpolation(x: Float32Array, inRate: number, outRate: number): Float32Array {
  const out = new Float32Array(resampledLength(x.length, inRate, outRate));
  for (let n = 0; n < out.length; n++) {
    const p = (n * inRate) / outRate;
    const i = Math.floor(p);
    out[n] = (x[i] ?? 0) * (1 - (p - i)) + (x[i + 1] ?? 0) * (p - i);
  }
  return out;
}

/** Level of `y` relative to `x` in dB, ignoring a second at each end (filter edges). */
const relativeLevel = (y: Float32Array, x: Float32Array, outRate: number, inRate: number) =>
  dB(rms(y, outRate, y.length - outRate) / rms(x, inRate, x.length - inRate));

describe('resampler', () => {
  it('suppresses aliasing: a sweep above 8 kHz comes out more than 70 dB down (linear interpolation: not)', async () => {
    for (const inRate of [44100, 48000, 22050]) {
      const x = sweep(inRate, 8300, inRate / 2 - 100, 6);
      const ours = relativeLevel(await resample(planarSource([x], inRate), 16000), x, 16000, inRate);
      const naive = relativeLevel(linearInterpolation(x, inRate, 16000), x, 16000, inRate);
      expect(ours, `${inRate} Hz`).toBeLessThan(-70);
      expect(naive, `${inRate} Hz naive`).toBeGreaterThan(-20);
    }
  });

  it('keeps the passband: tones up to 6.5 kHz pass within 0.05 dB and undistorted', async () => {
    for (const inRate of [8000, 11025, 22050, 44100, 48000, 96000]) {
      for (const f of [100, 1000, 3000, 6500]) {
        if (f > inRate * 0.42) continue;
        const x = tone(inRate, f, inRate * 3);
        const y = await resample(planarSource([x], inRate), 16000);
        const ideal = tone(16000, f, y.length);
        expect(Math.abs(relativeLevel(y, x, 16000, inRate)), `${inRate} Hz, ${f} Hz gain`).toBeLessThan(0.05);
        let err = 0;
        for (let i = 16000; i < y.length - 16000; i++) err += (y[i]! - ideal[i]!) ** 2;
        const snr = dB(rms(ideal, 16000, y.length - 16000) / Math.sqrt(err / (y.length - 32000)));
        // Upsampling would leave images of the tone (8 kHz − f) inside the band if it were not filtered.
        expect(snr, `${inRate} Hz, ${f} Hz SNR`).toBeGreaterThan(60);
      }
    }
  });

  it('handles rates with no small common factor with 16 kHz (banked and per-sample phases)', async () => {
    for (const inRate of [44101, 96001]) {
      const x = tone(inRate, 1000, inRate * 3);
      const y = await resample(planarSource([x], inRate), 16000);
      expect(y.length).toBe(resampledLength(x.length, inRate, 16000));
      expect(Math.abs(relativeLevel(y, x, 16000, inRate)), String(inRate)).toBeLessThan(0.05);
    }
  });

  it('makes durations agree within one output sample period', async () => {
    for (const inRate of [8000, 22050, 44100, 48000, 44101, 7999]) {
      for (const n of [1, 2, 999, 44100 * 2 + 3]) {
        const y = await resample(planarSource([new Float32Array(n)], inRate), 16000);
        expect(Math.abs(y.length / 16000 - n / inRate)).toBeLessThanOrEqual(1 / 16000);
      }
    }
  });

  it('writes in place over its own input when downsampling 32 kHz to 16 kHz, identically', async () => {
    const x = sweep(32000, 50, 15000, 3);
    const fresh = await resample(planarSource([x], 32000), 16000);
    const inPlace = await resample(planarSource([x], 32000), 16000, { into: x });
    expect(inPlace.buffer).toBe(x.buffer);
    expect(Array.from(inPlace)).toEqual(Array.from(fresh));
    // Where reads would trail writes, it refuses instead of corrupting.
    const y = new Float32Array(16016 * 2);
    await expect(resample(planarSource([y], 16016), 16000, { into: y })).rejects.toThrow(/in place/);
  });
});
