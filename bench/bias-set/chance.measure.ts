/**
 * How often a phrase list offers a candidate by chance: the unbiased passes of ../shared/dev's English
 * recordings and meeting windows (the first 30 s of each; no listed phrase is spoken there), the words the
 * pass was unsure of as the phrase pass reads them (passWords), against the bench's made-up names and names run
 * together into products of 3-6 words, 250 and 10,000 of each. Per list: windows with a candidate at its
 * list's floor (candidateMinSim) and at other floors, and the most alike phrase per window (10th percentile /
 * median / 90th / most). What `CANDIDATE_MIN_SIM_AT_LIMIT` was chosen on: the least floor at which 10,000
 * phrases give no more windows a candidate than 250 at `CANDIDATE_MIN_SIM`.
 * Env: MODEL (default whisper-tiny).
 * `npx vitest run -c bench/bias-set/vitest.config.ts bench/bias-set/chance.measure.ts`
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { DEV_DIR } from '../../config/paths';
import { decodeWindow } from '../../engine/decoding/fallback';
import { BEAMS } from '../../engine/decoding/steering';
import { defaultDecoding, type ModelName } from '../../engine/protocol';
import { passWords } from '../../engine/biasing/phrases/splice';
import { rankPhrases, soundMatch, type HeardWords } from '../../engine/biasing/phrases/shortlist';
import { candidateMinSim } from '../../engine/biasing/phrases/phrase-pass';
import { loadClips } from '../lib/manifest';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';
import { madeUpLongPhrases } from './phrase-list';

const SHAPES: Record<string, [number, number]> = { names: [1, 1], 'products (3-6 words)': [3, 6] };
const FLOORS = [0.4, 0.44, 0.45, 0.46, 0.47, 0.48, 0.5];

it('candidates by chance in unbiased passes, 250 against 10,000 phrases', async () => {
  const modelName = (process.env.MODEL ?? 'whisper-tiny') as ModelName;
  const model = await loadNodeWhisper(modelName);
  const beams = BEAMS[defaultDecoding(modelName)];
  const heard: HeardWords[] = [];
  const clips = loadClips(DEV_DIR, ['en', 'diar']).filter((c) => c.lang === 'en' || c.folder === 'diar');
  for (const clip of clips) {
    const { encoded, seconds } = await encodeClip(model, readAudio(join(DEV_DIR, clip.folder, clip.file)));
    const first = await decodeWindow(model, encoded, { language: 'en', wantAttention: false, audioSeconds: seconds, beams });
    encoded.hidden.dispose();
    const pass = passWords(model.vocab, first.tokens);
    if (pass.unsure.includes(true)) heard.push(pass);
  }
  const lines = [
    `${modelName}: ${heard.length} of ${clips.length} windows with an unsure word`,
    `phrases | list | floor | windows with a candidate at it | at ${FLOORS.join(' / ')} | most alike per window: 10th / median / 90th / most`,
  ];
  for (const [name, shape] of Object.entries(SHAPES)) {
    for (const size of [250, 10_000]) {
      const list = madeUpLongPhrases(size, shape);
      const best = heard.map((h) => soundMatch(rankPhrases(h, list, 0, 1)[0]!, h).sim).sort((a, b) => a - b);
      const over = (floor: number) => best.filter((s) => s >= floor).length;
      const at = (q: number) => best[Math.min(best.length - 1, Math.floor(q * best.length))]!.toFixed(2);
      const floor = candidateMinSim(size);
      lines.push(`${name} | ${size} | ${floor.toFixed(2)} | ${over(floor)} | ${FLOORS.map(over).join(' / ')} | ${at(0.1)} / ${at(0.5)} / ${at(0.9)} / ${best.at(-1)!.toFixed(2)}`);
    }
  }
  console.log(lines.join('\n'));
});
