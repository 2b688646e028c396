import { readFileSync } from 'node:fs';
import { WhisperFeatureExtractor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { FFT } from '../../engine/whisper/fft';
import { FULL_FRAMES, logMelSpectrogram, melFilterBank, N_MELS } from '../../engine/whisper/features';
import { loadEvalClip } from './helpers/audio';

describe('FFT', () => {
  it('matches a direct DFT for n = 400', () => {
    const n = 400;
    const x = Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) + 0.3 * Math.cos(i * 1.91) + (i % 7) / 10);
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    new FFT(n).realForward(x, re, im);
    for (const k of [0, 1, 7, 50, 133, 200, 399]) {
      let dr = 0;
      let di = 0;
      for (let t = 0; t < n; t++) {
        dr += x[t]! * Math.cos((-2 * Math.PI * k * t) / n);
        di += x[t]! * Math.sin((-2 * Math.PI * k * t) / n);
      }
      expect(re[k]).toBeCloseTo(dr, 8);
      expect(im[k]).toBeCloseTo(di, 8);
    }
  });
});

describe('log-mel front end', () => {
  it('has 80 Slaney filters whose peaks rise with frequency and whose areas follow Slaney normalisation', () => {
    const bank = melFilterBank();
    expect(bank).toHaveLength(N_MELS);
    const peaks = bank.map((row) => row.indexOf(Math.max(...row)));
    for (let i = 1; i < peaks.length; i++) expect(peaks[i]!).toBeGreaterThanOrEqual(peaks[i - 1]!);
    for (const row of bank) expect(Math.max(...row)).toBeGreaterThan(0);
  });

  it('matches transformers.js WhisperFeatureExtractor on a real clip (independent implementation)', async () => {
    const audio = loadEvalClip('en/jfk.flac');
    const config = JSON.parse(readFileSync('public/models/whisper-tiny/preprocessor_config.json', 'utf8'));
    const reference = await new WhisperFeatureExtractor(config)._call(audio);
    const ref = reference.input_features.data as Float32Array;
    const ours = logMelSpectrogram(audio, FULL_FRAMES);
    expect(ours.length).toBe(ref.length);
    let maxDiff = 0;
    let sumDiff = 0;
    for (let i = 0; i < ours.length; i++) {
      const d = Math.abs(ours[i]! - ref[i]!);
      sumDiff += d;
      if (d > maxDiff) maxDiff = d;
    }
    expect(sumDiff / ours.length).toBeLessThan(1e-4);
    expect(maxDiff).toBeLessThan(2e-3);
    // ffmpeg and two 30 s spectrograms: about 2 s alone, past the default 5 s on the shared, loaded machine
  }, 60_000);

  it('gives a shorter window with the same leading frames when asked for fewer frames', () => {
    const audio = loadEvalClip('en/jfk.flac').subarray(0, 16000 * 5);
    const full = logMelSpectrogram(audio, 600);
    const short = logMelSpectrogram(audio, 500);
    expect(short.length).toBe(N_MELS * 500);
    // frames well inside the audio are identical up to the clamp floor, which depends on the window max only
    expect(short[0 * 500 + 100]).toBeCloseTo(full[0 * 600 + 100]!, 5);
  });
});
