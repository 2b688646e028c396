import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateBiasSet } from '../../bench/bias-set/generate.mjs';
import { readAudio } from '../../bench/bias-set/node-model';
import { startNodeEngine, type NodeEngine } from '../../bench/lib/node-engine';
import { loadSpellings } from '../../bench/score/spellings';
import { createScorer } from '../../bench/score/error-rate';
import { ROOT } from '../../config/paths';
import { comparable } from '../../engine/postprocess/seek-overlap';

/** Every run of `n` words (compared as the seek overlap compares them) that the text holds more than once. */
function repeatedRuns(text: string, n: number): string[] {
  const words = text.split(/\s+/).map(comparable).filter((w) => w !== '');
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) {
    const run = words.slice(i, i + n).join(' ');
    if (seen.has(run)) twice.add(run);
    seen.add(run);
  }
  return [...twice];
}

/*
 * whisper-base (5 beams, fitted windows: the engine's defaults) on flite's slt voice reading two ~12 s
 * passages: its pass writes every word but closes with a timestamp at 7 s, the VAD hears 5 s of speech
 * after it, and the rest decoded from there used to write the passage's second half again (18-20 words),
 * while the pass's own words were timed into its first 7 s.
 */
describe("a seek's rest does not write again what the pass wrote (whisper-base, whole engine in Node)", () => {
  let engine: NodeEngine;
  const scorer = createScorer(loadSpellings(ROOT));

  beforeAll(async () => {
    engine = await startNodeEngine('whisper-base');
  }, 120_000);
  afterAll(() => engine?.close());

  for (const file of ['unrelated-passage-kitchen-slt.wav', 'unrelated-passage-garden-slt.wav']) {
    it(`transcribes ${file} once`, async () => {
      const { dir, clips } = generateBiasSet(['slt']);
      const reference = clips.find((c: { file: string }) => c.file === file)!.text as string;
      const result = await engine.transcribe(readAudio(join(dir, file)), { encoderWindow: 'fit', decoding: 'accurate' });
      const text = result.segments.map((s) => s.text).join(' ');
      expect(repeatedRuns(text, 4), text).toEqual([]);
      expect(scorer.score(reference, text, 'en').edits, text).toBeLessThanOrEqual(2);
      // the pass owns the whole passage again (the rest wrote nothing new): its last words are timed where
      // they were said, not packed before the early timestamp at 7 s
      const words = result.segments.flatMap((s) => s.words);
      expect(words.at(-1)!.startMs).toBeGreaterThan(0.8 * result.durationMs);
    }, 120_000);
  }
});
