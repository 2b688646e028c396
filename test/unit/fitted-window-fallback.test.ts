import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudio } from '../../bench/bias-set/node-model';
import { startNodeEngine, type NodeEngine } from '../../bench/lib/node-engine';
import { loadSpellings } from '../../bench/score/spellings';
import { createScorer } from '../../bench/score/error-rate';
import { EVAL_DIR, ROOT } from '../../config/paths';

/**
 * The whole engine (engine/pipeline.ts) in Node with whisper-tiny on fitted encoder windows. On these
 * one-word commands of ../shared/dev/en (0.8-1 s), tiny's temperature-0 pass on the fitted encoding
 * loops ("33. 33. 33. ..."), and the temperature fallback on that encoding ended in invented text
 * (150 word errors on the first clip); on the full 30 s window the first pass is right.
 */
const CLIPS = [
  { file: 'an4_cen3-fjdn-b.wav', text: 'thirty three' },
  { file: 'an4_an416-fjlp-b.wav', text: 'no' },
  { file: 'an4_an392-mjwl-b.wav', text: 'repeat' },
];

describe('a fitted window whose pass fails Whisper\'s checks is decoded on the full window (engine/pipeline.ts)', () => {
  let engine: NodeEngine;
  const scorer = createScorer(loadSpellings(ROOT));

  beforeAll(async () => {
    engine = await startNodeEngine('whisper-tiny');
  }, 120_000);
  afterAll(() => engine?.close());

  for (const clip of CLIPS) {
    it(`transcribes ${clip.file} ("${clip.text}") without invented words`, async () => {
      const audio = readAudio(resolve(EVAL_DIR, '../dev/en', clip.file));
      const result = await engine.transcribe(audio, { encoderWindow: 'fit', decoding: 'fast' });
      const text = result.segments.map((s) => s.text).join(' ');
      expect(scorer.score(clip.text, text, 'en').edits, text).toBe(0);
    }, 60_000);
  }
});
