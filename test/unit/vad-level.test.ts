import { describe, expect, it } from 'vitest';
import { LEVEL_DEFAULTS, VadLevel } from '../../engine/vad/level';
import { SAMPLE_RATE } from '../../engine/protocol';

const frame = (peak: number): Float32Array => Float32Array.from({ length: LEVEL_DEFAULTS.frameSamples }, (_, i) => (i === 7 ? -peak : (peak * i) / 1024));
const framesPerSecond = SAMPLE_RATE / LEVEL_DEFAULTS.frameSamples;

describe('VadLevel: the gain in front of the VAD', () => {
  it('lifts a quiet frame to the target peak, never past the largest gain, and never lowers a loud one', () => {
    expect(new VadLevel().gain(frame(0.05))).toBeCloseTo(LEVEL_DEFAULTS.targetPeak / 0.05, 4);
    expect(new VadLevel().gain(frame(1e-6))).toBe(LEVEL_DEFAULTS.maxGain);
    expect(new VadLevel().gain(frame(0.9))).toBe(1);
  });

  it('leaves digital silence at gain 1', () => {
    expect(new VadLevel().gain(new Float32Array(LEVEL_DEFAULTS.frameSamples))).toBe(1);
  });

  it('follows a louder frame at once and a quieter stretch slowly (1/e per release time)', () => {
    const level = new VadLevel();
    expect(level.gain(frame(0.01))).toBeCloseTo(50, 4);
    // a loud frame: no overshoot on it
    expect(level.gain(frame(0.25))).toBeCloseTo(2, 4);
    // then silence: the envelope decays from 0.25 by 1/e over releaseSeconds
    let gain = 0;
    for (let i = 0; i < Math.round(LEVEL_DEFAULTS.releaseSeconds * framesPerSecond); i++) gain = level.gain(frame(0));
    expect(gain).toBeCloseTo(2 * Math.E, 1);
  });

  it('keeps one recording apart from the next: a new instance starts from no envelope', () => {
    const first = new VadLevel();
    first.gain(frame(0.8));
    expect(first.gain(frame(0.01))).toBeLessThan(1.01);
    expect(new VadLevel().gain(frame(0.01))).toBeCloseTo(50, 4);
  });
});
