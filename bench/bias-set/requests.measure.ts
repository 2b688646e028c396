/**
 * Biasing's cost on whole requests, as issue 34 states its time target: each recording transcribed by the
 * engine in Node (bench/lib/node-engine.ts: VAD, every window, seeks, alignment) at bias_strength 0 and at
 * the default strength with the same 250-phrase list, and at the default strength with 10,000 phrases (a
 * custom model at its limit). speed.measure.ts times the decoding of one window; this times what a user waits for.
 * Env: MODEL (default whisper-tiny), FILES (comma-separated paths under EVAL_DIR), REPS (default 2). Each
 * rep runs the conditions in turn, in reverse order every other rep, so that a machine slowing down or
 * speeding up during the run weighs on every condition alike; one untimed request per list first builds its
 * keys and tries (the engine keeps them for recent lists, as it would for a cached custom model).
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { DEFAULT_BIAS_STRENGTH, defaultDecoding, SAMPLE_RATE, type ModelName } from '../../engine/protocol';
import { startNodeEngine } from '../lib/node-engine';
import { readAudio } from './node-model';
import { madeUpPhrases } from './phrase-list';

it('whole requests: biased against strength 0 with the same list', async () => {
  const modelName = (process.env.MODEL ?? 'whisper-tiny') as ModelName;
  const files = (process.env.FILES ?? '').split(',').filter(Boolean);
  if (files.length === 0) throw new Error('FILES: the recordings to transcribe, comma-separated, under EVAL_DIR');
  const reps = Number(process.env.REPS ?? 2);
  const many = ['ComfyUI', ...madeUpPhrases(9_999)];
  const list = many.slice(0, 250);
  const conditions: Record<string, { phrases: string[]; biasStrength: number }> = {
    'strength 0, 250 phrases': { phrases: list, biasStrength: 0 },
    '250 phrases': { phrases: list, biasStrength: DEFAULT_BIAS_STRENGTH },
    '10,000 phrases': { phrases: many, biasStrength: DEFAULT_BIAS_STRENGTH },
  };
  const engine = await startNodeEngine(modelName);
  const config = { encoderWindow: 'fit' as const, decoding: defaultDecoding(modelName) };
  const totals = new Map(Object.keys(conditions).map((k) => [k, 0]));
  let seconds = 0;
  try {
    for (const file of files) {
      const audio = readAudio(join(EVAL_DIR, file));
      seconds += (audio.length / SAMPLE_RATE) * reps;
      for (const request of Object.values(conditions)) await engine.transcribe(audio, config, request);
      for (let r = 0; r < reps; r++) {
        const names = Object.keys(conditions);
        for (const name of r % 2 ? names.reverse() : names) {
          const start = performance.now();
          await engine.transcribe(audio, config, conditions[name]!);
          totals.set(name, totals.get(name)! + performance.now() - start);
        }
      }
    }
  } finally {
    await engine.close();
  }
  const off = totals.get('strength 0, 250 phrases')!;
  console.log(`${modelName} (${config.decoding}), ${files.length} recordings, ${seconds.toFixed(0)} s of audio over ${reps} reps`);
  for (const [name, ms] of totals) console.log(`${name}: ${(ms / 1000).toFixed(1)} s, RTF ${(ms / 1000 / seconds).toFixed(3)}, ${(ms / off).toFixed(2)}x strength 0`);
  const versus = totals.get('10,000 phrases')! / totals.get('250 phrases')! - 1;
  console.log(`10,000 phrases vs 250: ${(versus * 100).toFixed(1)}%`);
});
