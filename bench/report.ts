/**
 * `npm run eval -- --report [--sets ../shared/dev,../shared/holdout] [--model whisper-tiny,whisper-base,whisper-small]
 *   [--clips 'en/*,long/*'] [--threads 2] [--out FILE]
 *
 * Issue 31's one report: for every set and model, WER, RTF (short clips and long-form apart) and peak
 * renderer memory of this library beside transformers.js, both run by `npm run bench` in one process per
 * set (same machine, same Chromium, same threads, same clips), then printed as one table. Each set is a
 * separate bench run, so the ratios compare runs made one after the other, never across sets.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { SideReport } from './lib/bench-run';
import { fixed, formatTable, megabytes, percent, ratio } from './lib/table';

const ROOT = resolve(import.meta.dirname, '..');

export const REPORT_USAGE = `npm run eval -- --report [--sets DIR,DIR] [--model NAME,NAME] [--clips GLOBS] [--threads N] [--out FILE]
  For each set (default ../shared/dev,../shared/holdout) and model (default whisper-tiny,whisper-base,
  whisper-small): WER, RTF and peak renderer memory of this library beside transformers.js, measured in
  one bench run per set (npm run bench; default clips en/* and long/*, 2 threads), printed as one table.`;

/** `options`: parsed by bench/lib/args.ts parseRunnerOptions (bench/eval.mjs) with REPORT_USAGE. */
export function runReport(options: Map<string, string>): number {
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const sets = (options.get('sets') ?? '../shared/dev,../shared/holdout').split(',').map((s) => resolve(cwd, s));
  const models = options.get('model') ?? 'whisper-tiny,whisper-base,whisper-small';
  const dir = mkdtempSync(join(tmpdir(), 'eval-report-'));
  const rows: Array<{ set: string; clips: number; model: string; ours: SideReport; peer: SideReport | undefined }> = [];
  for (const set of sets) {
    const out = join(dir, `${basename(set)}.json`);
    const args = ['bench/bench.mjs', '--data', set, '--model', models, '--clips', options.get('clips') ?? 'en/*,long/*', '--threads', options.get('threads') ?? '2', '--out', out];
    console.log(`\n# ${set}: node ${args.join(' ')}`);
    const run = spawnSync('node', args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    // bench exits 1 when a side failed to load; its file still says which, and the table shows it
    if (!existsSync(out)) {
      console.error(`bench wrote no results for ${set} (exit ${run.status})`);
      return 1;
    }
    const body = JSON.parse(readFileSync(out, 'utf8')) as { clips: string[]; runs: SideReport[] };
    for (const ours of body.runs.filter((r) => r.side === 'ours')) {
      const peer = body.runs.find((r) => r.side === 'peer' && r.model === ours.model && r.threads === ours.threads);
      rows.push({ set: basename(set), clips: body.clips.length, model: ours.model, ours, peer });
    }
  }
  const header = ['set', 'clips', 'model', 'WER ours', 'WER peer', 'RTF ours', 'RTF peer', 'short speed vs peer', 'long speed vs peer', 'peak ours', 'peak peer', 'failed ours/peer'];
  const table = rows.map((r) => [
    r.set,
    String(r.clips),
    r.model,
    percent(r.ours.short.wer),
    percent(r.peer?.short.wer ?? null),
    fixed(r.ours.short.rtf),
    fixed(r.peer?.short.rtf ?? null),
    // throughput ratio: the peer's RTF over ours (2.00x = twice the peer's throughput)
    ratio(r.peer?.short.rtf ?? null, r.ours.short.rtf),
    ratio(r.peer?.long.rtf ?? null, r.ours.long.rtf),
    megabytes(r.ours.peak_renderer_bytes),
    megabytes(r.peer?.peak_renderer_bytes ?? 0),
    `${r.ours.short.failed + r.ours.long.failed}/${r.peer ? r.peer.short.failed + r.peer.long.failed : '-'}`,
  ]);
  console.log(`\nReport (threads ${options.get('threads') ?? '2'}; per-set bench outputs in ${dir})`);
  console.log(formatTable(header, table));
  const file = options.get('out');
  if (file) writeFileSync(resolve(cwd, file), `${JSON.stringify({ created: new Date().toISOString(), rows }, null, 2)}\n`);
  return 0;
}
