import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEGMENTATION_MODEL_FILE, SEGMENTATION_MODEL_SHA256 } from '../../config/paths';
import { LOCAL_SPEAKERS, powersetActivity, SEGMENT_FRAME_SAMPLES, SEGMENT_WINDOW_SAMPLES, windowStarts, type SegmentationWindow } from '../../engine/speakers/segmentation';
import { SegmentationModel, SegmentationModelError, verifySegmentationModel } from '../../engine/speakers/segmentation-model';
import { bestAssignment } from '../../engine/speakers/segmented-diarize';
import { loadEvalClip } from './helpers/audio';

ort.env.wasm.numThreads = 1;

// The real model from ../shared/models (STS_MODELS_DIR): never committed, never shipped.
const bytes = new Uint8Array(readFileSync(SEGMENTATION_MODEL_FILE));

describe('segmentation model verification', () => {
  it('accepts the file whose SHA-256 was given', async () => {
    await expect(verifySegmentationModel(bytes, SEGMENTATION_MODEL_SHA256.toUpperCase(), 'm.onnx')).resolves.toBeUndefined();
  });

  it('rejects a changed file, naming the expected and the actual hash', async () => {
    const changed = bytes.slice();
    changed[1000] = changed[1000]! ^ 1;
    const err = await verifySegmentationModel(changed, SEGMENTATION_MODEL_SHA256, 'm.onnx').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SegmentationModelError);
    expect((err as Error).message).toContain(`expected ${SEGMENTATION_MODEL_SHA256}`);
    expect((err as Error).message).toMatch(/got [0-9a-f]{64}/);
    expect((err as Error).message).not.toContain(`got ${SEGMENTATION_MODEL_SHA256}`);
  });
});

describe('sliding windows and powerset decoding', () => {
  it('starts windows on the frame grid and covers the end', () => {
    const starts = windowStarts(61 * 16_000, 40_000);
    expect(starts[0]).toBe(0);
    for (const s of starts) expect(s % SEGMENT_FRAME_SAMPLES).toBe(0);
    expect(starts[starts.length - 1]! + SEGMENT_WINDOW_SAMPLES).toBeGreaterThanOrEqual(61 * 16_000);
    expect(windowStarts(5 * 16_000, 40_000)).toEqual([0]);
  });

  it('maps the 7 powerset classes to at most two of three local speakers', () => {
    const logp = new Float32Array(7 * 7).fill(-10);
    for (let f = 0; f < 7; f++) logp[f * 7 + f] = 0; // frame f: class f
    expect([...powersetActivity(logp, 7)]).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1]);
  });

  it('gives the local speakers of one window distinct speakers when there are enough', () => {
    // both prefer speaker 0; the pair is two people, so the second goes to speaker 1
    expect(bestAssignment([[5, 1], [4, 2]], 2)).toEqual([0, 1]);
    expect(bestAssignment([[1, 5], [4, 2]], 2)).toEqual([1, 0]);
    expect(bestAssignment([[5, 1], [4, 2]], 1)).toEqual([0, 0]);
  });
});

describe('the real model on a two-speaker clip (eval/diar/pyannote_sample.wav)', () => {
  let windows: SegmentationWindow[];
  beforeAll(async () => {
    const model = await SegmentationModel.fromBytes(ort, bytes, 'shared copy');
    windows = await model.windows(loadEvalClip('diar/pyannote_sample.wav'), 80_000);
    await model.release();
  });

  it('labels 589 frames per 10 s window', () => {
    expect(windows.length).toBe(windowStarts(30 * 16_000, 80_000).length);
    for (const w of windows) expect(w.frames).toBe(589);
  });

  it('hears two local speakers in one window, and frames where both talk', () => {
    const talkers = windows.map((w) => [0, 1, 2].filter((k) => w.activity.some((a, i) => a === 1 && i % LOCAL_SPEAKERS === k)).length);
    expect(Math.max(...talkers)).toBeGreaterThanOrEqual(2);
    const overlapFrames = windows.reduce((n, w) => {
      for (let f = 0; f < w.frames; f++) if (w.activity[f * 3]! + w.activity[f * 3 + 1]! + w.activity[f * 3 + 2]! === 2) n++;
      return n;
    }, 0);
    expect(overlapFrames).toBeGreaterThan(10);
  });
});
