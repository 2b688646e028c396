/**
 * Pattern recovery on the code clips of the bias set with the real model in Node: exact-match rate of
 * the codes in the plain transcript and after applyPatterns. Env: VOICES=slt,kal (subset), LOG=file.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { compilePattern } from '../../src/api/patterns';
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
  let plainHits = 0;
  let hits = 0;
  let total = 0;
  for (const clip of codes) {
    const enc = await encodeClip(model, readAudio(join(dir, clip.file)));
    const plain = await decodeClip(model, enc, {});
    const fixed = applyPatterns(plain, (clip.patterns ?? []).map(compilePattern));
    for (const code of clip.codes ?? []) {
      total++;
      if (plain.includes(code)) plainHits++;
      if (fixed.includes(code)) hits++;
    }
    log(`${clip.file}: «${plain}» → «${fixed}»`);
  }
  log(`codes exact: plain ${plainHits}/${total}, with applyPatterns ${hits}/${total}`);
});
