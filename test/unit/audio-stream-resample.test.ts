import { describe, expect, it } from 'vitest';
import { planarSource } from '../../src/audio/downmix';
import { resample } from '../../src/audio/resample';
import { SampleBuffer } from '../../src/audio/sample-buffer';
import { StreamResampler } from '../../src/audio/stream-resample';

/** A deterministic pseudo-random signal (noise plus a tone), so every tap matters. */
function signal(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = 0.3 * Math.sin(i * 0.05) + 0.4 * (s / 2 ** 32 - 0.5);
  }
  return out;
}

/** Pushes `x` in chunks of pseudo-random sizes from 1 to `maxChunk`, collecting the output. */
function streamed(x: Float32Array, inRate: number, outRate: number, maxChunk: number, expected: number): Float32Array {
  const out = new SampleBuffer(expected);
  const r = new StreamResampler(inRate, outRate, (block) => out.append(block));
  let s = 12345;
  for (let i = 0; i < x.length; ) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const len = 1 + (s % maxChunk);
    r.push(x.subarray(i, Math.min(i + len, x.length)));
    i += len;
  }
  r.finish();
  return out.take();
}

describe('StreamResampler (push, chunk by chunk)', () => {
  it('gives exactly the samples of the whole-signal resampler, for any chunking and length', async () => {
    const cases: [number, number, number][] = [
      [44100, 16000, 44100 * 2 + 17], [48000, 16000, 48000 + 5], [32000, 16000, 32001], [22050, 16000, 22050 * 3],
      [8000, 16000, 8003], [11025, 16000, 7], [24000, 16000, 2], [16000, 16000, 16000 + 3], [96000, 16000, 96000],
    ];
    for (const [inRate, outRate, n] of cases) {
      const x = signal(n, inRate + n);
      const whole = await resample(planarSource([x], inRate), outRate);
      for (const maxChunk of [1, 333, 1024, 50000]) {
        // A too-small estimate on purpose: the buffer must grow without losing samples.
        const got = streamed(x, inRate, outRate, maxChunk, 100);
        expect(got.length, `${inRate}->${outRate} n=${n} chunk≤${maxChunk}`).toBe(whole.length);
        let maxDiff = 0;
        for (let i = 0; i < got.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i]! - whole[i]!));
        expect(maxDiff, `${inRate}->${outRate} n=${n} chunk≤${maxChunk}`).toBe(0);
      }
    }
  });

  it('keeps only the filter history between pushes, not the signal', () => {
    let emitted = 0;
    const r = new StreamResampler(48000, 16000, (b) => (emitted += b.length));
    const chunk = signal(4800, 1);
    for (let k = 0; k < 1000; k++) r.push(chunk); // 100 s
    // All but the last filter half-width of output is out before finish().
    expect(emitted).toBeGreaterThan(100 * 16000 - 200);
    expect((r as unknown as { hist: Float32Array }).hist.length).toBeLessThanOrEqual(16384);
    r.finish();
    expect(emitted).toBe(100 * 16000);
  });

  it('SampleBuffer hands over an array owning exactly its samples, grown and shrunk in place', () => {
    const b = new SampleBuffer(10000, 1e6);
    b.append(new Float32Array([1, 2, 3]));
    const first = b.take();
    expect(Array.from(first)).toEqual([1, 2, 3]);
    expect(first.buffer.byteLength).toBe(12);
    // Past the estimate (but within the maximum): the same buffer grows, nothing is copied.
    const c = new SampleBuffer(2000, 1e6);
    const chunk = Float32Array.from({ length: 1500 }, (_, i) => i);
    for (let k = 0; k < 3; k++) c.append(chunk);
    const out = c.take();
    expect(out.length).toBe(4500);
    expect(out.buffer.byteLength).toBe(4500 * 4);
    expect((out.buffer as ArrayBuffer & { resizable?: boolean }).resizable).toBe(true);
    expect(out[4499]).toBe(1499);
    // Past the maximum too: it still keeps every sample (by copying).
    const d = new SampleBuffer(1024, 1500);
    for (let k = 0; k < 3; k++) d.append(chunk);
    const all = d.take();
    expect(all.length).toBe(4500);
    expect(all.buffer.byteLength).toBe(4500 * 4);
    expect(all[3000]).toBe(0);
  });
});
