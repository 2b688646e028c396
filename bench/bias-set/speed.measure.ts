/**
 * Decoding cost of biasing with a custom model at its 10,000-phrase limit, on real clips, as the engine
 * decodes (engine/decoding/steering.ts): the unbiased pass alone, and that pass plus decodeWithPhrases with 1
 * phrase, 250 (the inline limit) and 10,000 (keys and tries built once before timing, as a cached custom model has them).
 * Env: REPS (default 3), MODEL, FILES (comma-separated paths under EVAL_DIR; default fw_hotwords and jfk),
 * DRAWS (default 1, at most 3): 250-phrase lists timed, each ComfyUI and another 249 of the 10,000. Which
 * made-up names a list holds decides what its proposals write, and so their length; the mean of several
 * draws separates that from what the list's size costs. With more than one, the 1-phrase list is left
 * out: the engine's caches hold 4 phrase lists (recent-lists.ts), and timing more in turn would rebuild
 * their keys and tries every time.
 * The unbiased pass decodes with the engine's beams for the model (src/transcriber.ts), or DECODING=fast|accurate.
 * WORDS=least-most (e.g. 3-6): the made-up names run together into phrases of that many words (product
 * names, titles) instead of one name a phrase.
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { biasPlan, decodeWithPhrases } from '../../engine/biasing/phrases/phrase-pass';
import { DEFAULT_BIAS_STRENGTH, defaultDecoding, type Decoding, type ModelName } from '../../engine/protocol';
import { decodeWindow } from '../../engine/decoding/fallback';
import { BEAMS } from '../../engine/decoding/steering';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpLongPhrases, madeUpPhrases, wordRange } from './phrase-list';

it('decoding cost with 10,000 phrases', async () => {
  const modelName = process.env.MODEL ?? 'whisper-tiny';
  const model = await loadNodeWhisper(modelName);
  const plan = biasPlan(DEFAULT_BIAS_STRENGTH)!;
  const beams = BEAMS[(process.env.DECODING as Decoding | undefined) ?? defaultDecoding(modelName as ModelName)];
  const biased = (encoded: Parameters<typeof decodeWithPhrases>[1], opts: Parameters<typeof decodeWithPhrases>[2], first: Parameters<typeof decodeWithPhrases>[3], phrases: string[]) =>
    decodeWithPhrases(model, encoded, opts, first, phrases, plan);
  const words = wordRange('WORDS');
  const many = ['ComfyUI', ...(words ? madeUpLongPhrases(9_999, words) : madeUpPhrases(9_999))];
  const draws = Number(process.env.DRAWS ?? 1);
  if (!(Number.isInteger(draws) && draws >= 1 && draws <= 3)) throw new Error(`DRAWS must be 1, 2 or 3, not ${process.env.DRAWS}`);
  const drawNames = Array.from({ length: draws }, (_, d) => (d === 0 ? '250 phrases' : `250 phrases, draw ${d + 1}`));
  const lists: Record<string, string[]> = draws === 1 ? { unbiased: [], '1 phrase': ['ComfyUI'] } : { unbiased: [] };
  drawNames.forEach((name, d) => (lists[name] = ['ComfyUI', ...many.slice(1 + 249 * d, 250 + 249 * d)]));
  lists['10,000 phrases'] = many;
  const totals = new Map(Object.keys(lists).map((k) => [k, 0]));
  const reps = Number(process.env.REPS ?? 3);
  let windows = 0;
  for (const file of (process.env.FILES ?? 'bias/fw_hotwords.mp3,en/jfk.flac').split(',')) {
    const audio = readAudio(join(EVAL_DIR, file));
    const clip = await encodeClip(model, audio);
    const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, { ...opts, beams });
    // warm-up: keys and tries of both lists built here, not timed
    for (const phrases of Object.values(lists)) await biased(clip.encoded, opts, first, phrases);
    for (let r = 0; r < reps; r++, windows++) {
      for (const [name, phrases] of Object.entries(lists)) {
        // encoded again, untimed: a window's first decoder run computes its cross-attention cache, as in the engine
        const { encoded } = await encodeClip(model, audio);
        const start = performance.now();
        const pass = await decodeWindow(model, encoded, { ...opts, beams });
        if (phrases.length > 0) await biased(encoded, opts, pass, phrases);
        totals.set(name, totals.get(name)! + performance.now() - start);
      }
    }
  }
  const per = (name: string) => totals.get(name)! / windows;
  console.log(`${modelName}, first pass ${beams} beam(s), ${windows} windows`);
  for (const name of totals.keys()) console.log(`${name}: ${per(name).toFixed(0)} ms per window (${(per(name) / per('unbiased')).toFixed(2)}x unbiased)`);
  const versus = (name: string, ms: number) => console.log(`10,000 phrases vs ${name}: ${(((per('10,000 phrases') - ms) / ms) * 100).toFixed(1)}% per window`);
  for (const base of ['1 phrase', '250 phrases']) if (totals.has(base)) versus(base, per(base));
  if (draws > 1) versus(`the mean of ${draws} 250-phrase draws`, drawNames.reduce((sum, name) => sum + per(name), 0) / draws);
});
