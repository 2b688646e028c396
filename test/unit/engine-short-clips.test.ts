import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudio } from '../../bench/bias-set/node-model';
import { startNodeEngine, type NodeEngine } from '../../bench/lib/node-engine';
import { loadSpellings } from '../../bench/score/spellings';
import { createScorer } from '../../bench/score/error-rate';
import { EVAL_DIR, ROOT } from '../../config/paths';

/** The whole engine (engine/pipeline.ts) in Node with whisper-tiny on fitted encoder windows, on short clips of ../shared/eval and ../shared/dev. */
describe('the engine on short clips (whisper-tiny, fitted windows)', () => {
  let engine: NodeEngine;
  const scorer = createScorer(loadSpellings(ROOT));
  const transcribe = async (path: string, wantWordTimes = true) => {
    const result = await engine.transcribe(readAudio(resolve(EVAL_DIR, path)), { encoderWindow: 'fit', decoding: 'fast' }, { wantWordTimes });
    return result.segments.map((s) => s.text).join(' ');
  };

  beforeAll(async () => {
    engine = await startNodeEngine('whisper-tiny');
  }, 120_000);
  afterAll(() => engine?.close());

  /*
   * On these one-word commands (0.8-1 s), tiny's temperature-0 pass on the fitted encoding loops
   * ("33. 33. 33. ..."), and the temperature fallback on that encoding ended in invented text (150 word
   * errors on the first clip); on the full 30 s window the first pass is right.
   */
  describe("a fitted window whose pass fails Whisper's checks is decoded on the full window", () => {
    const CLIPS = [
      { file: 'an4_cen3-fjdn-b.wav', text: 'thirty three' },
      { file: 'an4_an416-fjlp-b.wav', text: 'no' },
      { file: 'an4_an392-mjwl-b.wav', text: 'repeat' },
    ];
    for (const clip of CLIPS) {
      it(`transcribes ${clip.file} ("${clip.text}") without invented words`, async () => {
        const text = await transcribe(`../dev/en/${clip.file}`);
        expect(scorer.score(clip.text, text, 'en').edits, text).toBe(0);
      }, 60_000);
    }
  });

  /*
   * After the sentence, tiny wrote it again into the silence at the window's end (11 word errors); the
   * alignment packed the copy into the audio's last frame (engine/postprocess/hallucination.ts).
   */
  describe('text written after the speech is dropped', () => {
    const path = '../dev/en/2412-153948-0002.flac';
    const reference = 'no one who is himself honest will doubt my being so';

    it('keeps one copy of the sentence', async () => {
      const text = await transcribe(path);
      expect(scorer.score(reference, text, 'en').edits, text).toBe(0);
    }, 60_000);

    it('gives the same text when no word times are asked for', async () => {
      expect(await transcribe(path, false)).toBe(await transcribe(path, true));
    }, 60_000);
  });
});
