/**
 * Pattern recovery on the code clips of the bias set with the real model in Node: exact-match rate of
 * the codes in the plain transcript and after applyPatterns, decoded without and with the pattern
 * prompt (worker/biasing/pattern-prompt.ts). Env: VOICES=slt,kal (subset), MODEL, PATTERN_PROMPT=0 (skip it), LOG=file.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { compilePattern } from '../../src/api/patterns';
import { promptForPatterns } from '../../worker/biasing/pattern-prompt';
import { applyPatterns } from '../../worker/biasing/spoken-patterns';
import { generateBiasSet } from './generate.mjs';
import { decodeClip, encodeClip, loadNodeWhisper, readAudio } from './node-model';

const log = (line: string) => {
  console.log(line);
  if (process.env.LOG) appendFileSync(process.env.LOG, `${line}\n`);
};

it('pattern recovery: exact codes', async () => {
  const { dir, clips } = generateBiasSet();
  const voices = process.env.VOICES?.split(',');
  const codes = clips.filter((c) => c.kind === 'code' && (!voices || voices.includes(c.speaker.slice(6))));
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-tiny');
  const modes = process.env.PATTERN_PROMPT === '0' ? (['no prompt'] as const) : (['no prompt', 'pattern prompt'] as const);
  const counts = modes.map(() => ({ plainHits: 0, hits: 0 }));
  let total = 0;
  for (const clip of codes) {
    const enc = await encodeClip(model, readAudio(join(dir, clip.file)));
    const patterns = (clip.patterns ?? []).map(compilePattern);
    total += clip.codes?.length ?? 0;
    for (const [m, mode] of modes.entries()) {
      const promptIds = mode === 'pattern prompt' ? promptForPatterns(model.vocab, patterns) : undefined;
      const plain = await decodeClip(model, enc, promptIds ? { promptIds } : {});
      const fixed = applyPatterns(plain, patterns);
      for (const code of clip.codes ?? []) {
        if (plain.includes(code)) counts[m]!.plainHits++;
        if (fixed.includes(code)) counts[m]!.hits++;
      }
      log(`${clip.file} [${mode}]: «${plain}» → «${fixed}»`);
    }
  }
  for (const [m, mode] of modes.entries()) {
    log(`codes exact (${mode}): plain ${counts[m]!.plainHits}/${total}, with applyPatterns ${counts[m]!.hits}/${total}`);
  }
});
