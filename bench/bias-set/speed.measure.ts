/**
 * Decoding cost of biasing with a custom model at its 10,000-phrase limit: time per decoder step of a
 * greedy pass over real clips, without biasing and with it (trie already built, as when cached), and
 * time per window of the beam the engine uses when biasing (steering.ts) with 1 phrase and with 10,000.
 * Env: REPS (default 3), MODEL, BEAM=0 to skip the beam part.
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { createBiasProcessor } from '../../worker/biasing/processor';
import { BIAS_BEAM_SIZE, biasPlan, DEFAULT_STRENGTH } from '../../worker/steering';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpPhrases } from './phrase-list';

it('per-step decoding cost with 10,000 phrases', async () => {
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-tiny');
  const phrases = ['ComfyUI', ...madeUpPhrases(9_999)];
  let t = performance.now();
  createBiasProcessor(model.vocab, phrases, 0.45);
  const buildMs = performance.now() - t;
  t = performance.now();
  createBiasProcessor(model.vocab, phrases, 0.45);
  const cachedMs = performance.now() - t;
  const reps = Number(process.env.REPS ?? 3);
  const totals = { off: { ms: 0, steps: 0 }, on: { ms: 0, steps: 0 } };
  const beamModes = process.env.BEAM === '0' ? [] : (['beam, 1 phrase', 'beam, 10,000 phrases'] as const);
  const beamTotals = new Map(beamModes.map((m) => [m, { ms: 0, windows: 0, tokens: 0 }]));
  const boostStrength = biasPlan(DEFAULT_STRENGTH).boostStrength;
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
      for (const mode of beamModes) {
        const bias = createBiasProcessor(model.vocab, mode === 'beam, 1 phrase' ? ['ComfyUI'] : phrases, boostStrength);
        const start = performance.now();
        const gen = await model.generate(clip.encoded, {
          language: 'en',
          temperature: 0,
          wantAttention: false,
          audioSeconds: clip.seconds,
          beam: { size: BIAS_BEAM_SIZE, bias },
        });
        const t = beamTotals.get(mode)!;
        t.ms += performance.now() - start;
        t.windows++;
        t.tokens += gen.tokens.length;
      }
    }
  }
  const off = totals.off.ms / totals.off.steps;
  const on = totals.on.ms / totals.on.steps;
  console.log(
    `10,000 phrases: trie build ${buildMs.toFixed(0)} ms (cached: ${cachedMs.toFixed(1)} ms); ` +
      `decoder step ${off.toFixed(2)} ms without biasing, ${on.toFixed(2)} ms with (${(((on - off) / off) * 100).toFixed(1)}%)`,
  );
  const perToken = (m: (typeof beamModes)[number]) => beamTotals.get(m)!.ms / Math.max(1, beamTotals.get(m)!.tokens);
  for (const m of beamModes) {
    const t = beamTotals.get(m)!;
    console.log(`${m} (beam ${BIAS_BEAM_SIZE}): ${(t.ms / t.windows).toFixed(0)} ms per window, ${perToken(m).toFixed(1)} ms per output token`);
  }
  if (beamModes.length === 2) {
    const [one, many] = beamModes.map(perToken) as [number, number];
    console.log(`10,000 phrases vs 1 in the beam: ${(((many - one) / one) * 100).toFixed(1)}% per output token; greedy unbiased: ${off.toFixed(1)} ms per step`);
  }
});
