/**
 * Cost of the phrase shortlist (shortlist.ts rankPhrases) as a list grows from 250 to 10,000 phrases and
 * its phrases from names to titles, with no model: windows of about 80 words (30 s of speech) cut from the
 * references of ../shared/dev/en, every word taken as unsure (the most the shortlist reads).
 * Phrases are the bench's made-up names, run together into phrases of 1, 1-2, 3-6 and 8-14 words. How often a
 * list offers a candidate by chance is chance.measure.ts.
 * Env: WINDOWS (default 20). `npx vitest run -c bench/bias-set/vitest.config.ts bench/bias-set/shortlist.measure.ts`
 */
import { it } from 'vitest';
import { DEV_DIR } from '../../config/paths';
import { loadClips } from '../lib/manifest';
import { heardText, rankPhrases } from '../../engine/biasing/phrases/shortlist';
import { MAX_PROMPT_PHRASES } from '../../engine/biasing/phrases/prompt';
import { candidateMinSim } from '../../engine/biasing/phrases/phrase-pass';
import { madeUpLongPhrases } from './phrase-list';

const WINDOW_WORDS = 80;
const SHAPES: Record<string, [number, number]> = { 'names (1 word)': [1, 1], 'names (1-2 words)': [1, 2], 'products (3-6 words)': [3, 6], 'titles (8-14 words)': [8, 14] };

const devWords = () => loadClips(DEV_DIR, ['en']).flatMap((c) => (c.text ?? '').split(/\s+/).filter(Boolean));

it('shortlist cost, 250 against 10,000 phrases', () => {
  const words = devWords();
  const count = Number(process.env.WINDOWS ?? 20);
  const windows = Array.from({ length: Math.min(count, Math.floor(words.length / WINDOW_WORDS)) }, (_, w) => words.slice(w * WINDOW_WORDS, (w + 1) * WINDOW_WORDS).join(' '));
  const lines = [`${windows.length} windows of ${WINDOW_WORDS} words, every word unsure`, 'phrases | 250: ms per window | 10,000: ms per window | ratio'];
  for (const [name, shape] of Object.entries(SHAPES)) {
    const ms: number[] = [];
    for (const list of [madeUpLongPhrases(250, shape), madeUpLongPhrases(10_000, shape)]) {
      rankPhrases(heardText('warm up'), list, candidateMinSim(list.length), MAX_PROMPT_PHRASES); // keys the list once, as a worker does
      const start = performance.now();
      for (const text of windows) rankPhrases(heardText(text), list, candidateMinSim(list.length), MAX_PROMPT_PHRASES);
      ms.push((performance.now() - start) / windows.length);
    }
    lines.push(`${name} | ${ms[0]!.toFixed(1)} | ${ms[1]!.toFixed(1)} | ${(ms[1]! / ms[0]!).toFixed(1)}x`);
  }
  console.log(lines.join('\n'));
});

