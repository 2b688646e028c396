import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVAL_DIR, ROOT } from '../../config/paths';
import {
  decodingWindows,
  SPEECH_REGION_DEFAULTS,
  speechRegions,
  type SpeechRegion,
} from '../../engine/vad/windows';
import { SileroVad, VAD_FRAME_SAMPLES, VAD_MODEL_PATH } from '../../engine/vad/silero';
import { VadLevel } from '../../engine/vad/level';
import { framewiseProbabilities } from '../../bench/lib/silero-framewise';

const SR = 16_000;
const MODEL = join(ROOT, 'public/models', VAD_MODEL_PATH);

/** ffmpeg's decode of any file (or lavfi source) to 16 kHz mono float32. */
function ffmpegPcm(args: string[]): Float32Array {
  const out = execFileSync('ffmpeg', ['-v', 'error', ...args, '-f', 'f32le', '-ac', '1', '-ar', String(SR), '-'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4).slice();
}
const decode = (file: string): Float32Array => ffmpegPcm(['-i', join(EVAL_DIR, file)]);
const noise = (color: string, seconds: number, amplitude: number): Float32Array =>
  ffmpegPcm(['-f', 'lavfi', '-i', `anoisesrc=color=${color}:amplitude=${amplitude}:seed=7:duration=${seconds}:sample_rate=${SR}`]);

const rms = (x: Float32Array): number => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
const seconds = (samples: number): number => samples / SR;

/**
 * Where a clean studio recording's speech starts and ends, from its energy alone: the first and
 * last 10 ms block louder than 1/30 of the clip's loudest block (about -30 dB). An independent
 * reference for the VAD's boundaries.
 */
function energyBounds(x: Float32Array): { start: number; end: number } {
  const block = SR / 100;
  const levels: number[] = [];
  for (let i = 0; i + block <= x.length; i += block) levels.push(rms(x.subarray(i, i + block)));
  const limit = Math.max(...levels) / 30;
  const first = levels.findIndex((l) => l > limit);
  const last = levels.findLastIndex((l) => l > limit);
  return { start: first * block, end: (last + 1) * block };
}

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const covered = (regions: SpeechRegion[]): number => regions.reduce((n, r) => n + r.endSample - r.startSample, 0);

describe('SileroVad (real model, onnxruntime-web wasm in node)', { timeout: 120_000 }, () => {
  let vad: SileroVad;

  beforeAll(async () => {
    ort.env.wasm.numThreads = 1;
    vad = await SileroVad.create(ort, new Uint8Array(readFileSync(MODEL)));
  });
  afterAll(async () => {
    await vad.release();
  });

  it('gives one probability per 512 samples, high on speech', async () => {
    const audio = decode('en/jfk.flac');
    let lastProgress: [number, number] = [0, 0];
    const probs = await vad.probabilities(audio, (done, total) => (lastProgress = [done, total]));

    expect(probs.length).toBe(Math.ceil(audio.length / VAD_FRAME_SAMPLES));
    expect(lastProgress).toEqual([probs.length, probs.length]);
    expect(Math.min(...probs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...probs)).toBeLessThanOrEqual(1);

    const regions = speechRegions(probs, { totalSamples: audio.length });
    const bounds = energyBounds(audio);
    // JFK speaks for most of the 11 s clip, with pauses between phrases.
    expect(covered(regions) / audio.length).toBeGreaterThan(0.6);
    expect(regions[0]!.startSample).toBeLessThanOrEqual(bounds.start + 0.1 * SR);
    expect(regions[regions.length - 1]!.endSample).toBeGreaterThanOrEqual(bounds.end - 0.3 * SR);
    for (const r of regions) expect(r.endSample).toBeLessThanOrEqual(audio.length);
  });

  it("gives the plain model's numbers, frame for frame, whole or pushed in uneven pieces, levelled or not, one stream or two at once", async () => {
    // the reference: Silero's own graph run once per frame, its state and context carried by hand
    const plain = await ort.InferenceSession.create(new Uint8Array(readFileSync(MODEL)), { executionProviders: ['wasm'] });
    const framewise = async (audio: Float32Array, level: VadLevel | null) => Array.from(await framewiseProbabilities(ort, plain, audio, level));
    // 5.3 s: a last partial frame, and quiet enough (x 0.05) for the level to lift it
    const audio = decode('en/jfk.flac').subarray(0, 85_000).map((x) => x * 0.05);
    expect(Array.from(await vad.probabilities(audio))).toEqual(await framewise(audio, new VadLevel()));
    // two streams of one instance at once, as a diarized request runs them: each keeps its own state
    const stream = vad.stream(null);
    const levelled = vad.stream();
    try {
      for (let at = 0; at < audio.length; ) {
        const piece = [700, 33_000, 511, 16_384, 1][at % 5]!;
        await Promise.all([stream.push(audio.subarray(at, at + piece)), levelled.push(audio.subarray(at, at + piece))]);
        at += piece;
      }
      await Promise.all([stream.end(), levelled.end()]);
      expect(Array.from(stream.probabilities)).toEqual(await framewise(audio, null));
      expect(Array.from(levelled.probabilities)).toEqual(await framewise(audio, new VadLevel()));
    } finally {
      stream.close();
      levelled.close();
      await plain.release();
    }
  });

  it('is deterministic: the same audio twice gives the same probabilities (state is reset)', async () => {
    const audio = decode('en/1089-134691-0000.flac');
    const a = await vad.probabilities(audio);
    const b = await vad.probabilities(audio);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it('stops when aborted, reports progress in order, and stays usable', async () => {
    const audio = decode('en/jfk.flac');
    const reference = await vad.probabilities(audio);
    const controller = new AbortController();
    const seen: number[] = [];
    const run = vad.probabilities(
      audio,
      (done, total) => {
        seen.push(done);
        expect(total).toBe(Math.ceil(audio.length / VAD_FRAME_SAMPLES));
        if (done >= 64) controller.abort();
      },
      controller.signal,
    );
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([32, 64]);
    await expect(vad.probabilities(audio, undefined, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    // A concurrent call keeps its own recurrent state, and the aborted run left no trace in any.
    const [first, second] = await Promise.all([vad.probabilities(audio), vad.probabilities(audio)]);
    expect(Array.from(first)).toEqual(Array.from(reference));
    expect(Array.from(second)).toEqual(Array.from(reference));
  });

  it('finds no speech in 10 s of digital silence', async () => {
    const probs = await vad.probabilities(new Float32Array(10 * SR));
    expect(speechRegions(probs)).toEqual([]);
    expect(Math.max(...probs)).toBeLessThan(0.5);
  });

  it('hears a recording 40 dB quieter as it hears the original (its input level is normalised)', async () => {
    const audio = decode('en/jfk.flac');
    const speechFrames = (probs: Float32Array) => probs.filter((p) => p >= SPEECH_REGION_DEFAULTS.onsetThreshold).length;
    const original = speechFrames(await vad.probabilities(audio));
    expect(original).toBeGreaterThan(150);
    for (const gain of [0.1, 0.01]) {
      // without the level Silero found 36% of dev/en's speech frames at 0.01 (bench/README.md, VAD level)
      const quiet = speechFrames(await vad.probabilities(audio.map((x) => x * gain)));
      expect(quiet).toBeGreaterThan(0.9 * original);
      expect(quiet).toBeLessThan(1.1 * original);
    }
  });

  for (const color of ['white', 'pink']) {
    it(`finds no speech in faint ${color} noise, which the level lifts by its largest gain`, async () => {
      const audio = noise(color, 10, 0.003);
      expect(20 * Math.log10(rms(audio))).toBeLessThan(-50);
      const probs = await vad.probabilities(audio);
      expect(speechRegions(probs, { totalSamples: audio.length })).toEqual([]);
    });
  }

  for (const color of ['white', 'pink', 'brown']) {
    it(`finds no speech in 10 s of ${color} noise at a moderate level`, async () => {
      const audio = noise(color, 10, 0.3);
      const level = 20 * Math.log10(rms(audio));
      expect(level).toBeGreaterThan(-30); // moderate: about as loud as the speech clips
      expect(level).toBeLessThan(-6);
      const probs = await vad.probabilities(audio);
      expect(speechRegions(probs, { totalSamples: audio.length })).toEqual([]);
    });
  }

  it('splits speech + 5 s silence + speech into two regions at the right places', async () => {
    // Two single-phrase LibriSpeech utterances (no pause inside either), so the truth is two regions.
    const first = decode('en/1089-134686-0001.flac');
    const second = decode('en/1089-134691-0000.flac');
    const gap = new Float32Array(5 * SR);
    const audio = concat(first, gap, second);
    const firstEnd = energyBounds(first).end;
    const secondStart = first.length + gap.length + energyBounds(second).start;
    const probs = await vad.probabilities(audio);

    // Unpadded, the region edges are the VAD's own estimate of where speech stops and resumes.
    const bare = speechRegions(probs, { totalSamples: audio.length, padBeforeMs: 0, padAfterMs: 0 });
    expect(bare).toHaveLength(2);
    expect(Math.abs(seconds(bare[0]!.endSample - firstEnd))).toBeLessThanOrEqual(0.3);
    expect(Math.abs(seconds(bare[1]!.startSample - secondStart))).toBeLessThanOrEqual(0.3);

    // The default padding widens both regions and still keeps them apart.
    const padded = speechRegions(probs, { totalSamples: audio.length });
    expect(padded).toHaveLength(2);
    const { padBeforeMs, padAfterMs } = SPEECH_REGION_DEFAULTS;
    expect(Math.abs(seconds(padded[0]!.endSample - firstEnd) - padAfterMs / 1000)).toBeLessThanOrEqual(0.3);
    expect(Math.abs(seconds(secondStart - padded[1]!.startSample) - padBeforeMs / 1000)).toBeLessThanOrEqual(0.3);
  });

  it('cuts a 2-minute radio clip into windows of at most 30 s that cover the speech', async () => {
    const audio = decode('long/wts_radio_short_fr.mp3');
    expect(seconds(audio.length)).toBeGreaterThan(110);
    const t0 = performance.now();
    const probs = await vad.probabilities(audio);
    const wall = (performance.now() - t0) / 1000;
    const speed = seconds(audio.length) / wall;
    console.log(`VAD speed (node, 1 thread): ${speed.toFixed(0)} audio s per wall s on ${seconds(audio.length).toFixed(1)} s`);
    // About 40-50x on an idle core here; only a gross regression (per-frame allocations,
    // re-created sessions) would fall below real time, even on a loaded machine.
    expect(speed).toBeGreaterThan(1);

    const regions = speechRegions(probs, { totalSamples: audio.length });
    const windows = decodingWindows(regions, probs, audio.length);
    expect(windows.length).toBeGreaterThanOrEqual(Math.ceil(covered(regions) / (30 * SR)));
    let previousEnd = 0;
    for (const w of windows) {
      expect(w.endSample - w.startSample).toBeLessThanOrEqual(30 * SR);
      expect(w.startSample).toBeGreaterThanOrEqual(previousEnd);
      previousEnd = w.endSample;
    }
    expect(previousEnd).toBeLessThanOrEqual(audio.length);
    // Every confidently speech-like frame is decoded.
    const inWindow = (sample: number): boolean => windows.some((w) => sample >= w.startSample && sample < w.endSample);
    let speechFrames = 0;
    let missed = 0;
    probs.forEach((p, f) => {
      if (p < 0.8) return;
      speechFrames++;
      if (!inWindow(f * VAD_FRAME_SAMPLES + VAD_FRAME_SAMPLES / 2)) missed++;
    });
    expect(speechFrames).toBeGreaterThan(0.3 * probs.length);
    expect(missed / speechFrames).toBeLessThan(0.01);
  });
});
