import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { ROOT } from '../../config/paths';
import { createScorer, primaryLanguage, type Scorer } from '../score/error-rate';
import { loadSpellings } from '../score/spellings';
import { splitList } from './args';
import { clipMatcher, loadClips, type Clip } from './manifest';
import { runSide, type ClipRun, type Side, type SideRun } from './run-side';
import { startBenchServer } from './server';
import { scoreRun, summarize, type Summary } from './summary';
import { fixed, formatTable, megabytes, percent, ratio, seconds, snippet } from './table';

const DEFAULT_CLIPS = ['en/*', 'long/wts_radio_short_fr.mp3'];
/** Clips longer than this are long-form: the peer chunks them, and their RTF is reported apart. */
const LONG_MS = 30_000;

/** `language=xx` from the manifest, unless the clip mixes languages. */
function paramsFor(clip: Clip): string {
  return /^[a-z]{2,3}$/.test(clip.lang) ? `language=${primaryLanguage(clip.lang)}` : '';
}

export interface SideReport {
  side: Side;
  model: string;
  threads: number | null;
  load_ms: number | null;
  cross_origin_isolated: boolean | null;
  load_error?: string;
  peak_renderer_bytes: number;
  short: Summary;
  long: Summary;
  clips: (Omit<ClipRun, 'clip'> & { folder: string; file: string; edits: number | null; reference_length: number | null })[];
}

function report(run: SideRun, scorer: Scorer): SideReport {
  const isLong = (r: ClipRun): boolean => (r.clip.durationMs ?? 0) > LONG_MS;
  return {
    side: run.side,
    model: run.model,
    threads: run.threads,
    load_ms: run.load?.load_ms ?? null,
    cross_origin_isolated: run.load?.crossOriginIsolated ?? null,
    ...(run.loadError && !run.load ? { load_error: run.loadError } : {}),
    peak_renderer_bytes: run.peakRendererBytes,
    short: summarize(run.clips.filter((r) => !isLong(r)), scorer),
    long: summarize(run.clips.filter(isLong), scorer),
    clips: run.clips.map(({ clip, ...rest }) => {
      const score = scoreRun({ clip, ...rest }, scorer);
      return { folder: clip.folder, file: clip.file, ...rest, edits: score?.edits ?? null, reference_length: score?.referenceLength ?? null };
    }),
  };
}

function printClip(run: ClipRun, scorer: Scorer): void {
  const name = `${run.clip.folder}/${run.clip.file}`;
  if (run.error) {
    console.log(`  ${name}  FAILED: ${run.error}`);
    return;
  }
  const score = scoreRun(run, scorer);
  const errors = score ? `  ${score.unit === 'char' ? 'cer' : 'wer'} ${score.edits}/${score.referenceLength}` : '';
  console.log(
    `  ${name}  ${seconds(run.audio_ms)} audio  ${seconds(run.wall_ms)} wall  rtf ${fixed(run.wall_ms / run.audio_ms)}${errors}  "${snippet(run.transcript?.text ?? '')}"`,
  );
}

export async function runBench(options: Map<string, string>): Promise<number> {
  const evalDir = process.env.STS_EVAL_DIR!;
  const models = splitList(options.get('model') ?? 'whisper-tiny,whisper-base');
  const threadCounts = splitList(options.get('threads') ?? '1,2').map(Number);
  const decoding = options.get('decoding') as 'fast' | 'accurate' | undefined;
  const encoderWindow = options.get('encoder-window') as 'fit' | 'full' | undefined;
  if (threadCounts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--threads: positive integers');
  const sides: Side[] = options.has('side') ? [options.get('side') as Side] : ['ours', 'peer'];
  if (sides.some((s) => s !== 'ours' && s !== 'peer')) throw new Error('--side: ours or peer');
  const timeout = options.get('timeout');
  const clips = loadClips(evalDir).filter(clipMatcher(splitList(options.get('clips') ?? DEFAULT_CLIPS.join(','))));
  if (clips.length === 0) {
    console.error(`no clips match in ${evalDir}`);
    return 1;
  }
  const scorer = createScorer(loadSpellings(ROOT));
  console.log(`bench: ${clips.length} clips from ${evalDir}; models ${models.join(', ')}; threads ${threadCounts.join(', ')}; ${cpus().length} CPUs`);

  const server = await startBenchServer();
  const reports: SideReport[] = [];
  try {
    for (const model of models) {
      for (const threads of threadCounts) {
        for (const side of sides) {
          console.log(`\n== ${side === 'ours' ? 'localscribe' : 'transformers.js'}  ${model}  ${threads} thread(s)`);
          const run = await runSide(clips, {
            baseUrl: server.url,
            side,
            model,
            threads,
            ...(decoding && side === 'ours' ? { decoding } : {}),
            ...(encoderWindow && side === 'ours' ? { encoderWindow } : {}),
            input: 'pcm',
            paramsFor,
            timeoutMs: timeout ? Number(timeout) * 1000 : null,
            log: (line) => console.log(`  [${side}] ${line}`),
            onClip: (r) => printClip(r, scorer),
          });
          reports.push(report(run, scorer));
          console.log(`  load ${seconds(run.load?.load_ms ?? null)}, peak renderer ${megabytes(run.peakRendererBytes)}`);
        }
      }
    }
  } finally {
    await server.close();
  }

  printSummary(reports);
  const out = options.get('out');
  if (out) {
    const file = resolve(process.env.INIT_CWD ?? process.cwd(), out);
    const body = { created: new Date().toISOString(), eval_dir: evalDir, cpus: cpus().length, clips: clips.map((c) => `${c.folder}/${c.file}`), runs: reports, ratios: ratios(reports) };
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
    console.log(`\nwrote ${file}`);
  }
  return reports.some((r) => r.load_ms === null) ? 1 : 0;
}

function printSummary(reports: readonly SideReport[]): void {
  const approx = reports.some((r) => r.short.approximate) ? ' (* some references approximate)' : '';
  console.log(`\nSummary${approx}`);
  console.log(
    formatTable(
      ['side', 'model', 'thr', 'WER', 'RTF short', 'RTF long', 'load', 'peak RSS', 'failed'],
      reports.map((r) => [
        r.side === 'ours' ? 'localscribe' : 'transformers.js',
        r.model,
        String(r.threads ?? '-'),
        percent(r.short.wer) + (r.short.approximate ? '*' : ''),
        fixed(r.short.rtf),
        fixed(r.long.rtf),
        r.load_ms === null ? 'FAILED' : seconds(r.load_ms),
        megabytes(r.peak_renderer_bytes),
        `${r.short.failed + r.long.failed}/${r.short.clips + r.long.clips}`,
      ]),
    ),
  );
  const pairs = ratios(reports);
  if (pairs.length === 0) return;
  console.log('\nlocalscribe / transformers.js (below 1 is better for us)');
  console.log(
    formatTable(
      ['model', 'thr', 'WER ours-peer', 'RTF short', 'RTF long', 'load', 'peak RSS'],
      pairs.map((p) => [p.model, String(p.threads ?? '-'), p.wer_difference, p.rtf_short, p.rtf_long, p.load, p.peak_rss]),
    ),
  );
}

function ratios(reports: readonly SideReport[]) {
  const pairs = [];
  for (const ours of reports.filter((r) => r.side === 'ours')) {
    const peer = reports.find((r) => r.side === 'peer' && r.model === ours.model && r.threads === ours.threads);
    if (!peer) continue;
    const wer = ours.short.wer !== null && peer.short.wer !== null ? ours.short.wer - peer.short.wer : null;
    pairs.push({
      model: ours.model,
      threads: ours.threads,
      wer_difference: wer === null ? '-' : `${wer >= 0 ? '+' : ''}${(wer * 100).toFixed(1)} pt`,
      rtf_short: ratio(ours.short.rtf, peer.short.rtf),
      rtf_long: ratio(ours.long.rtf, peer.long.rtf),
      load: ratio(ours.load_ms, peer.load_ms),
      peak_rss: ratio(ours.peak_renderer_bytes, peer.peak_renderer_bytes),
    });
  }
  return pairs;
}
