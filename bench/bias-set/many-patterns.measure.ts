/**
 * Cost of the pattern pass as the number of patterns grows to a request's limit (50): per clip, the
 * pass's time and output with the bias set's six patterns and with 50 distinct ones (a letter then
 * digits, as order codes are), after the same first pass.
 * Env: MODEL, FILES (comma-separated: bias-set clip names, or paths under EVAL_DIR).
 * `npx vitest run -c bench/bias-set/vitest.config.ts bench/bias-set/many-patterns.measure.ts`
 */
import { join } from 'node:path';
import { it } from 'vitest';
import { EVAL_DIR } from '../../config/paths';
import { compilePattern } from '../../src/api/patterns';
import { decodeWithPatterns } from '../../engine/biasing/patterns/pattern-pass';
import { decodeWindow } from '../../engine/decoding/fallback';
import { generateBiasSet } from './generate.mjs';
import { encodeClip, loadNodeWhisper, readAudio } from './node-model';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const SETS = {
  six: ['AMZ[0-9]{3}', '[A-Z][0-9]{3}[A-Z]', 'XR[0-9]{3}', 'TK-[0-9]{4}', '[A-Z]{2}[0-9]{2} [A-Z]{3}', '[A-Z]{2}[0-9]{3}'],
  fifty: [...[...LETTERS].map((l) => `${l}[0-9]{3}[A-Z]?`), ...[...LETTERS.slice(0, 24)].map((l) => `[A-Z]${l}[0-9]{2,4}`)],
};

it('pattern pass cost with up to 50 patterns', async () => {
  const { dir } = generateBiasSet();
  const model = await loadNodeWhisper(process.env.MODEL ?? 'whisper-tiny');
  const files = (process.env.FILES ?? 'code-confirm-slt.wav,code-flight-kal.wav,en/jfk.flac').split(',');
  for (const file of files) {
    const clip = await encodeClip(model, readAudio(file.includes('/') ? join(EVAL_DIR, file) : join(dir, file)));
    const opts = { language: 'en', wantAttention: false, audioSeconds: clip.seconds };
    const first = await decodeWindow(model, clip.encoded, opts);
    for (const [name, sources] of Object.entries(SETS)) {
      let tried = 0;
      const start = performance.now();
      const gen = await decodeWithPatterns(model, clip.encoded, opts, first, sources.map(compilePattern), 0.45, () => tried++);
      const ms = performance.now() - start;
      console.log(`${file}, ${name} patterns: ${ms.toFixed(0)} ms, ${tried} passes scored: «${model.vocab.decode(gen.tokens.map((t) => t.id)).trim()}»`);
    }
    clip.encoded.hidden.dispose();
  }
});
