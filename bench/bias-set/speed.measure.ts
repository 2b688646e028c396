/**
 * Decoding cost of biasing with a custom model at its 10,000-phrase limit, on real clips, as the engine
 * decodes (worker/steering.ts): the unbiased pass alone, and that pass plus decodeWithPhrases with 1
 * phrase, 250 (the inline limit) and 10,000 (keys and tries built once before timing, as a cached custom model has them).
 * Env: REPS (default 3), MODEL, FILES (comma-separated paths under EVAL_DIR; default fw_hotwords and jfk).
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { biasPlan, DEFAULT_STRENGTH, decodeWithPhrases } from '../../worker/biasing/phrase-pass';
import { decodeWindow } from '../../worker/decode-window';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpPhrases } from './phrase-list';

it('decoding cost with 10,000 phrases', async () => {
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-tiny');
  const plan = biasPlan(DEFAULT_STRENGTH)!;
  const many = ['ComfyUI', ...madeUpPhrases(9_999)];
  const lists = { unbiased: [], '1 phrase': ['ComfyUI'], '250 phrases': many.slice(0, 250), '10,000 phrases': many };
  const totals = new Map(Object.keys(lists).map((k) => [k, 0]));
  const reps = Number(process.env.REPS ?? 3);
  let windows = 0;
  for (const file of (process.env.FILES ?? 'bias/fw_hotwords.mp3,en/jfk.flac').split(',')) {
    const audio = readAudio(join(EVAL_DIR, file));
    const clip = await encodeClip(model, audio);
    const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, opts);
    // warm-up: keys and tries of both lists built here, not timed
    for (const phrases of Object.values(lists)) await decodeWithPhrases(model, clip.encoded, opts, first, phrases, plan);
    for (let r = 0; r < reps; r++, windows++) {
      for (const [name, phrases] of Object.entries(lists)) {
        // encoded again, untimed: a window's first decoder run computes its cross-attention cache, as in the engine
        const { encoded } = await encodeClip(model, audio);
        const start = performance.now();
        const pass = await decodeWindow(model, encoded, opts);
        await decodeWithPhrases(model, encoded, opts, pass, phrases, plan);
        totals.set(name, totals.get(name)! + performance.now() - start);
      }
    }
  }
  const per = (name: string) => totals.get(name)! / windows;
  for (const name of totals.keys()) console.log(`${name}: ${per(name).toFixed(0)} ms per window (${(per(name) / per('unbiased')).toFixed(2)}x unbiased)`);
  for (const base of ['1 phrase', '250 phrases']) {
    console.log(`10,000 phrases vs ${base}: ${(((per('10,000 phrases') - per(base)) / per(base)) * 100).toFixed(1)}% per window`);
  }
});
