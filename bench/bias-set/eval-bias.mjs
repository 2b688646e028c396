/**
 * `npm run eval -- --bias [--model whisper-tiny,whisper-base] [--voices slt,kal] [--strengths 0,0.45,1] [--en 0|1] [--set flite|real] [--half tune|report] [--one-window]`
 *
 * Phrases are measured through the worker's Engine in Node (phrases.measure.ts ENGINE=1: whole requests,
 * as users send them); `--one-window` decodes one full 30 s window per clip instead, the older mode.
 *
 * `--set real`: the real-speech set (real-speech.json: rare words of ../shared/eval/en and ../shared/dev/en that
 * Whisper missed unbiased), its terms' `--half` only (default both), instead of the flite voices and their codes.
 *
 * The biasing report: runs bench/bias-set/phrases.measure.ts (term recall, WER on the phrase clips, WER
 * and false insertions of the 250-phrase list on unrelated audio) and patterns.measure.ts (codes exact)
 * for every model × flite voice, each strength decoded as the engine would (phrase-pass.ts biasPlan), and
 * prints one table. ../shared/eval/en (voice-independent) is decoded with the first voice only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export const BIAS_USAGE = `npm run eval -- --bias [--model whisper-tiny,whisper-base] [--voices slt,kal] [--strengths 0,0.45,1] [--en 0|1] [--set flite|real] [--half tune|report] [--one-window]`;

/** `options`: parsed by bench/lib/args.ts parseRunnerOptions (bench/eval.mjs) with BIAS_USAGE. */
export function runBiasEval(options) {
  const models = (options.get('model') ?? 'whisper-tiny,whisper-base').split(',');
  const voices = (options.get('voices') ?? 'slt,kal').split(',');
  const strengths = (options.get('strengths') ?? '0,0.45,1').split(',');
  const withEn = (options.get('en') ?? '1') !== '0';
  const real = options.get('set') === 'real';
  if (real) voices.splice(0, voices.length, 'real speech');
  const dir = mkdtempSync(join(tmpdir(), 'bias-eval-'));
  const rows = [];
  for (const model of models) {
    for (const [vi, voice] of voices.entries()) {
      const log = join(dir, `${model}-${voice.replace(/\W+/g, '-')}.log`);
      const env = {
        ...process.env,
        MODEL: model,
        VOICES: voice,
        CONDITIONS: strengths.map((s) => `S${s}`).join(','),
        EN: withEn && vi === 0 ? '1' : '0',
        UNRELATED: vi === 0 ? '1' : '0',
        LOG: log,
        ...(options.has('one-window') ? {} : { ENGINE: '1' }),
        ...(real ? { SET: 'real', ...(options.get('half') ? { HALF: options.get('half') } : {}) } : {}),
      };
      for (const file of real ? ['phrases.measure.ts'] : ['phrases.measure.ts', 'patterns.measure.ts']) {
        const run = spawnSync('npx', ['vitest', 'run', '-c', 'bench/bias-set/vitest.config.ts', `bench/bias-set/${file}`], {
          cwd: ROOT,
          env,
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        if (run.status !== 0) {
          console.error(`${file} failed for ${model}/${voice} (exit ${run.status}); its log: ${log}`);
          return 1;
        }
      }
      const lines = readFileSync(log, 'utf8').split('\n');
      for (const line of lines) {
        const m = /^S([\d.]+) \| (.*)$/.exec(line);
        if (m) rows.push(`${model} | ${voice} | ${m[1]} | ${m[2]}`);
        if (line.startsWith('codes exact') || line.startsWith('false rewrites')) rows.push(`${model} | ${voice} | patterns | ${line}`);
      }
    }
  }
  console.log('model | voice | bias_strength | term recall | WER (phrase clips) | WER (unrelated) | false insertions (unrelated) | false insertions (phrase clips) | decode s');
  for (const r of rows) console.log(r);
  console.log(`(per-clip transcripts: ${dir})`);
  return 0;
}
