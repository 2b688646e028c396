/**
 * Decoding cost of biasing with a custom model at its 10,000-phrase limit: time per decoder step of a
 * greedy pass over real clips, without biasing and with it (trie already built, as when cached).
 * Env: REPS (default 3).
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { createBiasProcessor } from '../../worker/biasing/processor';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpPhrases } from './phrase-list';

it('per-step decoding cost with 10,000 phrases', async () => {
  const model = await loadNodeWhisper();
  const phrases = ['ComfyUI', ...madeUpPhrases(9_999)];
  let t = performance.now();
  createBiasProcessor(model.vocab, phrases, 0.45);
  const buildMs = performance.now() - t;
  t = performance.now();
  createBiasProcessor(model.vocab, phrases, 0.45);
  const cachedMs = performance.now() - t;
  const reps = Number(process.env.REPS ?? 3);
  const totals = { off: { ms: 0, steps: 0 }, on: { ms: 0, steps: 0 } };
  for (const file of ['bias/fw_hotwords.mp3', 'en/jfk.flac']) {
    const clip = await encodeClip(model, readAudio(join(EVAL_DIR, file)));
    for (let r = 0; r < reps; r++) {
      for (const mode of ['off', 'on'] as const) {
        const bias = createBiasProcessor(model.vocab, mode === 'on' ? phrases : [], 0.45);
        const start = performance.now();
        const gen = await model.generate(clip.encoded, {
          language: 'en',
          temperature: 0,
          wantAttention: false,
          audioSeconds: clip.seconds,
          adjustLogits: (l, g) => bias.adjustLogits(l, g),
        });
        totals[mode].ms += performance.now() - start;
        totals[mode].steps += gen.tokens.length + 1;
      }
    }
  }
  const off = totals.off.ms / totals.off.steps;
  const on = totals.on.ms / totals.on.steps;
  console.log(
    `10,000 phrases: trie build ${buildMs.toFixed(0)} ms (cached: ${cachedMs.toFixed(1)} ms); ` +
      `decoder step ${off.toFixed(2)} ms without biasing, ${on.toFixed(2)} ms with (${(((on - off) / off) * 100).toFixed(1)}%)`,
  );
});
