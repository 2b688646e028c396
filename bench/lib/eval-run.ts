import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROOT } from '../../config/paths';
import { SEGMENTATION_MODEL_PATH, SEGMENTATION_MODEL_SHA256 } from '../../config/shared-models';
import { createScorer, type Scorer } from '../score/error-rate';
import { loadSpellings } from '../score/spellings';
import { splitList } from './args';
import { EVAL_FOLDERS, loadClips, type Clip } from './manifest';
import { runSide, type ClipRun, type SideRun } from './run-side';
import { startBenchServer } from './server';
import { summarizeDiarization } from './diarization-summary';
import { byFolder, containsRequired, scoreRun, summarize } from './summary';
import { candidatesFor, LANGUAGE_PASSES, languagePassParams, printLanguageReport, printWordsAndLanguage, type LanguagePass } from './words-language-report';
import { fixed, formatTable, megabytes, percent, seconds, snippet } from './table';

/** One line of the --out file: the contract of issue #2 ({folder, file, transcript, wall_ms, audio_ms}), plus the model. */
interface EvalEntry {
  folder: string;
  file: string;
  transcript: ClipRun['transcript'];
  wall_ms: number;
  audio_ms: number;
  model: string;
  params: string;
  error?: string;
}

export async function runEval(options: Map<string, string>): Promise<number> {
  const evalDir = process.env.STS_EVAL_DIR!;
  const models = splitList(options.get('model') ?? 'whisper-tiny,whisper-base');
  const folders = options.has('folders') ? splitList(options.get('folders')!) : [...EVAL_FOLDERS];
  const query = options.get('params');
  const threads = options.has('threads') ? Number(options.get('threads')) : null;
  const timeout = options.get('timeout');
  const encoderWindow = options.get('encoder-window') as 'fit' | 'full' | undefined;
  const decoding = options.get('decoding') as 'fast' | 'accurate' | undefined;
  // ../shared/models is served at /__models/ (config/vite-plugins.ts); the engine verifies the hash as a user's would
  const segmentationModel = options.has('segmentation') ? { url: `/__models/${SEGMENTATION_MODEL_PATH}`, sha256: SEGMENTATION_MODEL_SHA256 } : undefined;
  const out = options.get('out') ? resolve(process.env.INIT_CWD ?? process.cwd(), options.get('out')!) : null;
  if (!existsSync(evalDir)) {
    console.error(`no evaluation set at ${evalDir}`);
    return 1;
  }
  const clips = loadClips(evalDir, folders);
  if (clips.length === 0) {
    console.error(`no manifest.json with clips under ${evalDir} (folders ${folders.join(', ')})`);
    return 1;
  }
  const candidates = options.has('candidates') ? Number(options.get('candidates')) : null;
  // a clip listed with bias phrases is transcribed with them, as a user who knows its terms would
  const phrasesOf = (clip: Clip) => (clip.biasPhrases.length > 0 ? `phrases=${encodeURIComponent(clip.biasPhrases.join(','))}` : '');
  const baseParams = (clip: Clip): string => [query ?? (clip.folder === 'en' ? 'language=en' : ''), phrasesOf(clip)].filter(Boolean).join('&');
  const paramsFor = (clip: Clip): string =>
    candidates ? [baseParams(clip), `language=${candidatesFor(clip, candidates, clips.indexOf(clip)).join(',')}`].filter(Boolean).join('&') : baseParams(clip);
  const scorer = createScorer(loadSpellings(ROOT));
  console.log(`eval: ${clips.length} clips from ${evalDir}; models ${models.join(', ')}`);

  const server = await startBenchServer();
  const runs: SideRun[] = [];
  const languageReport = options.has('language-report') ? Number(options.get('language-report')) : 0;
  const reports: { model: string; passes: Record<LanguagePass, SideRun> }[] = [];
  const entries: EvalEntry[] = [];
  try {
    for (const model of models) {
      console.log(`\n== ${model}`);
      if (languageReport) {
        // issue 5: three passes (auto, among candidates, given), reported together (words-language-report.ts)
        const passes = {} as Record<LanguagePass, SideRun>;
        for (const pass of LANGUAGE_PASSES) {
          console.log(`  -- ${pass}`);
          passes[pass] = await runSide(clips, {
            baseUrl: server.url, side: 'ours', model, threads, ...(encoderWindow ? { encoderWindow } : {}), input: 'blob',
            paramsFor: (clip) => languagePassParams(pass, clip, languageReport, clips.indexOf(clip), query),
            timeoutMs: timeout ? Number(timeout) * 1000 : null, log: (line) => console.log(`  ${line}`), onClip: (r) => printClip(r, scorer),
          });
          for (const r of passes[pass].clips) entries.push({ folder: r.clip.folder, file: r.clip.file, transcript: r.transcript, wall_ms: Math.round(r.wall_ms), audio_ms: r.audio_ms, model, params: r.params, ...(r.error ? { error: r.error } : {}) });
        }
        reports.push({ model, passes });
        runs.push(passes.auto);
        if (out) writeFileSync(out, `${JSON.stringify(entries, null, 2)}\n`);
        continue;
      }
      const run = await runSide(clips, {
        baseUrl: server.url,
        side: 'ours',
        model,
        threads,
        ...(encoderWindow ? { encoderWindow } : {}),
        ...(decoding ? { decoding } : {}),
        ...(segmentationModel ? { segmentationModel } : {}),
        input: 'blob',
        paramsFor,
        timeoutMs: timeout ? Number(timeout) * 1000 : null,
        log: (line) => console.log(`  ${line}`),
        onClip: (r) => printClip(r, scorer),
      });
      runs.push(run);
      console.log(`  load ${seconds(run.load?.load_ms ?? null)}, peak renderer ${megabytes(run.peakRendererBytes)}`);
      for (const r of run.clips) {
        entries.push({
          folder: r.clip.folder,
          file: r.clip.file,
          transcript: r.transcript,
          wall_ms: Math.round(r.wall_ms),
          audio_ms: r.audio_ms,
          model,
          params: r.params,
          ...(r.error ? { error: r.error } : {}),
        });
      }
      if (out) writeFileSync(out, `${JSON.stringify(entries, null, 2)}\n`); // after each model: partial results survive
    }
  } finally {
    await server.close();
  }
  for (const run of runs) {
    printTable(run, scorer);
    const report = reports.find((r) => r.passes.auto === run);
    if (report) printLanguageReport(report.model, report.passes, scorer);
    else printWordsAndLanguage(run);
  }
  if (out) console.log(`\nwrote ${entries.length} entries to ${out}`);
  return runs.some((r) => r.load === null) ? 1 : 0;
}

function printClip(run: ClipRun, scorer: Scorer): void {
  const name = `${run.clip.folder}/${run.clip.file}`;
  if (run.error) {
    console.log(`  ${name}  FAILED: ${run.error}`);
    return;
  }
  const text = run.transcript?.text ?? '';
  const score = scoreRun(run, scorer);
  const errors = score ? `  ${score.unit === 'char' ? 'cer' : 'wer'} ${score.edits}/${score.referenceLength}` : '';
  const must = containsRequired(run.clip, text);
  const contains = must === null ? '' : `  contains ${run.clip.mustContain.join(', ')}: ${must ? 'yes' : 'NO'}`;
  console.log(`  ${name}  rtf ${fixed(run.wall_ms / run.audio_ms)}${errors}${contains}  "${snippet(text)}"`);
}

function printTable(run: SideRun, scorer: Scorer): void {
  const rows: string[][] = [];
  for (const [folder, group] of byFolder(run.clips)) {
    const s = summarize(group, scorer);
    const mark = s.approximate ? '*' : '';
    rows.push([
      folder,
      String(s.clips),
      s.wer === null ? '-' : `${percent(s.wer)}${mark} of ${s.referenceWords}`,
      s.cer === null ? '-' : `${percent(s.cer)}${mark} of ${s.referenceChars}`,
      fixed(s.rtf),
      seconds(s.audioMs),
      String(s.failed),
    ]);
  }
  const all = summarize(run.clips, scorer);
  rows.push(['all', String(all.clips), '', '', fixed(all.rtf), seconds(all.audioMs), String(all.failed)]);
  console.log(`\n${run.model}: load ${seconds(run.load?.load_ms ?? null)}, peak renderer ${megabytes(run.peakRendererBytes)}${run.loadError && !run.load ? `, LOAD FAILED: ${run.loadError}` : ''}`);
  console.log(formatTable(['folder', 'clips', 'WER', 'CER', 'RTF', 'audio', 'failed'], rows));
  const en = run.clips.filter((r) => r.clip.folder === 'en');
  if (en.length > 0) {
    const s = summarize(en, scorer);
    console.log(`en/ overall: WER ${percent(s.wer)} over ${s.referenceWords} words, RTF ${fixed(s.rtf)}`);
  }
  if (rows.some((r) => r.some((c) => c.includes('*')))) console.log('* some references approximate (manifest ref_quality): indicative only');
  printDiarization(run);
}

/** Per folder with diarized transcripts (diarize=true): DER pooled over its clips, its parts, the right speaker count. */
function printDiarization(run: SideRun): void {
  const rows: string[][] = [];
  for (const [folder, group] of byFolder(run.clips)) {
    const s = summarizeDiarization(group);
    if (!s) continue;
    rows.push([folder, `${s.scored} of ${s.clips}`, percent(s.der25), percent(s.der0), percent(s.missed), percent(s.falseAlarm), percent(s.confusion), s.counted ? `${s.countRight} of ${s.counted}` : '-']);
  }
  if (rows.length === 0) return;
  console.log('\ndiarization: DER pooled over the clips with reference turns and timed segments (include_timestamps=true), collar 0.25 s and 0, overlap scored; its parts at collar 0.25');
  console.log(formatTable(['folder', 'scored', 'DER c0.25', 'DER c0', 'missed', 'false alarm', 'confusion', 'right count'], rows));
}
