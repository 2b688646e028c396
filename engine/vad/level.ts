/**
 * Level normalisation in front of the VAD. Silero VAD's speech probabilities fall with the input level:
 * over 30 clips of ../shared/dev/en it found 19% fewer speech frames with the audio 20 dB quieter, 38%
 * fewer at 30 dB and 64% fewer at 40 dB, and far or quiet talkers (AMI's far-field meetings, a quiet
 * phone line) lose whole utterances. So the VAD hears the audio lifted towards a common peak level by
 * an automatic gain: an envelope of frame peaks that follows a louder frame at once and falls slowly
 * (the usual peak-hold AGC), so pauses do not pump the noise floor up. The gain only ever lifts, and at
 * most by LEVEL_DEFAULTS.maxGain. Whisper is given the audio as it was (base kept its WER down to 30 dB
 * quieter; lifting its input too is not measured). The diarizer hears its own stream without the
 * level (engine/pipeline.ts). Constants and how they were chosen: bench/README.md (VAD level).
 */
import { SAMPLE_RATE } from '../protocol';

export interface LevelOptions {
  /** The peak level the gain lifts towards (full scale is 1). */
  targetPeak: number;
  /** The largest gain applied (a factor, not dB). */
  maxGain: number;
  /** The envelope falls by 1/e over this many seconds without a louder frame. */
  releaseSeconds: number;
  /** Samples per frame (the VAD's): one peak and one gain each. */
  frameSamples: number;
}

export const LEVEL_DEFAULTS: Readonly<LevelOptions> = {
  targetPeak: 0.5,
  maxGain: 100,
  releaseSeconds: 10,
  frameSamples: 512,
};

/** The gain of each frame of one recording, in order. */
export class VadLevel {
  private envelope = 0;
  private readonly decay: number;
  private readonly options: LevelOptions;

  constructor(options: Partial<LevelOptions> = {}) {
    this.options = { ...LEVEL_DEFAULTS, ...options };
    this.decay = Math.exp(-this.options.frameSamples / (this.options.releaseSeconds * SAMPLE_RATE));
  }

  /** The gain for the next frame: its peak joins the envelope first, so a loud frame is never lifted past the target. */
  gain(frame: Float32Array): number {
    let peak = 0;
    for (const x of frame) peak = Math.max(peak, Math.abs(x));
    this.envelope = Math.max(peak, this.envelope * this.decay);
    // digital silence stays silence
    if (this.envelope === 0) return 1;
    return Math.min(this.options.maxGain, Math.max(1, this.options.targetPeak / this.envelope));
  }
}
