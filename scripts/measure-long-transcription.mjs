#!/usr/bin/env node
/**
 * A one-hour recording of real speech transcribed end to end in headless Chromium, through the JS API
 * or through `/v1` answered by the real service worker, with the renderers' memory watched throughout.
 * A bench, not a test: one run takes minutes to tens of minutes on 2 cores.
 *
 * The recording: every English clip of ../shared/dev/en, ../shared/eval/en, ../shared/dev/diar and
 * ../shared/eval/diar (about 19 minutes of speech), 0.5 s of silence after each, in a new seeded order
 * per pass until the hour is full, cut at exactly `minutes`. It is written to MEASURE_AUDIO_DIR (default
 * /tmp/localscribe-long-speech, never the repository) as 16 kHz mono WAV, then encoded by ffmpeg as MP3
 * (44.1 kHz stereo 64k), Opus (48 kHz mono 24k) and M4A (AAC 44.1 kHz stereo 64k), the shapes
 * scripts/measure-audio-memory.mjs measured decoding on. A JSON beside it lists where each clip sits.
 *
 * Usage:
 *   node scripts/measure-long-transcription.mjs --model=whisper-base --door=js|v1 --format=wav|mp3|opus|m4a
 *        [--minutes=60] [--abort-after=SECONDS] [--load-only] [--chromium-args='…'] [--out=FILE.jsonl]
 *        [--folders=holdout/en,holdout/diar,holdout/long]
 * --door=js: `createTranscriber({ model }).transcribe(blob, params)` in the page (the file as a Blob, as
 *   a user's File arrives).
 * --door=v1: the e2e app (test/e2e/app, `?model=`) hosts the engine and registers the service worker;
 *   the page POSTs the Blob to /v1/speech-to-text/prerecorded with fetch(), which the service worker
 *   answers (a streamed 200 after streamAfterMs, the default 60 s), and the body is parsed and checked
 *   as the spec's Transcript.
 * Both send language=en&include_timestamps=true&include_words=true and the model's default decoding.
 * --abort-after: stop the transcription after that many seconds (a partial memory figure, reported as
 *   such, never as a transcription).
 * --config=JSON: more createTranscriber options for the JS door, e.g. '{"decoding":"fast"}' or
 *   '{"numThreads":1}', to see what a part of the engine's memory is (not the default: say so).
 * --folders: the ../shared folders whose English clips make the recording (default the development
 *   ones above); the report-only split's, holdout/en,holdout/diar,holdout/long, to report a figure there.
 * --load-only: the JS door loads the models (`transcriber.load()`), waits 6 s and stops: the memory of
 *   the load alone, with no audio decoded or transcribed.
 * --chromium-args='…': more Chromium flags, space-separated, e.g. '--js-flags=--liftoff-only' to see what
 *   WebAssembly tier-up compilation adds to the peak.
 *
 * Memory: a fresh browser per run. Just before the file is fetched, each renderer's peak resident set
 * (VmHWM) is reset to its current resident set through /proc/PID/clear_refs where the kernel allows it,
 * and that resident set is the idle baseline. Reported: the largest VmHWM minus baseline of any renderer
 * (the page's renderer holds the engine worker, a thread of it) and the largest sum over renderers of
 * resident set above baseline in samples every 2 s (the service worker may run in another renderer).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, createReadStream, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer } from 'vite';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const SHARED = resolve(ROOT, '../shared');
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const model = arg('model', 'whisper-base');
const door = arg('door', 'js');
const format = arg('format', 'wav');
const minutes = Number(arg('minutes', '60'));
const abortAfter = arg('abort-after') ? Number(arg('abort-after')) : null;
const outFile = arg('out');
const extraConfig = JSON.parse(process.argv.find((a) => a.startsWith('--config='))?.slice('--config='.length) ?? '{}');
const loadOnly = process.argv.includes('--load-only');
const chromiumArgs = (process.argv.find((a) => a.startsWith('--chromium-args='))?.slice('--chromium-args='.length) ?? '').split(' ').filter(Boolean);
const OUT = resolve(process.env.MEASURE_AUDIO_DIR ?? '/tmp/localscribe-long-speech');
const QUERY = 'language=en&include_timestamps=true&include_words=true';
const API_KEY = 'measure-long-key-0123456789abcdef';
if (loadOnly && door !== 'js') throw new Error('--load-only takes --door=js');
if (!['js', 'v1'].includes(door) || !['wav', 'mp3', 'opus', 'm4a'].includes(format)) {
  throw new Error('usage: --door=js|v1 --format=wav|mp3|opus|m4a (see the comment at the top)');
}
mkdirSync(OUT, { recursive: true });

// ---------- the recording ----------
const RATE = 16000;
const DEVELOPMENT = ['dev/en', 'eval/en', 'dev/diar', 'eval/diar'];
const FOLDERS = arg('folders', DEVELOPMENT.join(',')).split(',');

/** Mulberry32: a fixed order per pass, so every run builds the same bytes. */
function seeded(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function buildWav(path, layoutPath) {
  const clips = FOLDERS.flatMap((folder) =>
    JSON.parse(readFileSync(join(SHARED, folder, 'manifest.json'), 'utf8'))
      .filter((c) => (c.lang ?? 'en') === 'en')
      .map((c) => ({ file: `${folder}/${c.file}`, text: c.text ?? null })),
  );
  const pcm = clips.map((c) =>
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', join(SHARED, c.file), '-ac', '1', '-ar', String(RATE),
      '-f', 's16le', '-'], { maxBuffer: 1 << 30 }),
  );
  const gap = Buffer.alloc(RATE); // 0.5 s of 16-bit silence
  const total = minutes * 60 * RATE * 2;
  const parts = [];
  const layout = [];
  let bytes = 0;
  for (let pass = 0; bytes < total; pass++) {
    const random = seeded(1000 + pass);
    const order = clips.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const i of order) {
      if (bytes >= total) break;
      layout.push({ startMs: Math.round((bytes / 2 / RATE) * 1000), file: clips[i].file, pass });
      parts.push(pcm[i], gap);
      bytes += pcm[i].length + gap.length;
    }
  }
  const data = Buffer.concat(parts).subarray(0, total);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([header, data]));
  writeFileSync(layoutPath, JSON.stringify({ minutes, clips: clips.length, layout }, null, 1));
}

const recording = `speech-${minutes}m${FOLDERS.join(',') === DEVELOPMENT.join(',') ? '' : `-${FOLDERS.join('+').replaceAll('/', '-')}`}`;
const base = join(OUT, recording);
const ENCODE = {
  mp3: ['.mp3', ['-ar', '44100', '-ac', '2', '-c:a', 'libmp3lame', '-b:a', '64k']],
  opus: ['.ogg', ['-ac', '1', '-c:a', 'libopus', '-b:a', '24k']],
  m4a: ['.m4a', ['-ar', '44100', '-ac', '2', '-c:a', 'aac', '-b:a', '64k', '-f', 'ipod']],
};
if (!existsSync(`${base}.wav`)) buildWav(`${base}.wav`, `${base}.layout.json`);
const fileName = format === 'wav' ? `${recording}.wav` : `${recording}${ENCODE[format][0]}`;
const filePath = join(OUT, fileName);
if (!existsSync(filePath)) {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', `${base}.wav`, ...ENCODE[format][1], filePath]);
}

// ---------- the server ----------
/** Serves the long files from outside the repository, streamed from disk (ahead of Vite's own routes). */
const longFiles = {
  name: 'measure-long-files',
  configureServer(s) {
    s.middlewares.use('/__long/', (req, res) => {
      const path = join(OUT, decodeURIComponent(req.url.slice(1).split('?')[0]));
      if (!path.startsWith(OUT) || !existsSync(path)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(path).size });
      createReadStream(path).pipe(res);
    });
  },
};
const PORT = Number(process.env.MEASURE_PORT ?? 5198);
const server = await createServer({
  configFile: join(ROOT, 'test/e2e/vite.config.ts'), plugins: [longFiles], logLevel: 'error',
  // Its own dependency cache, so a dev server of another checkout sharing node_modules is not disturbed;
  // node_modules may be a link to another checkout's (a clean worktree of a commit, for example).
  cacheDir: join(OUT, 'vite-cache'),
  server: { port: PORT, strictPort: true, host: '127.0.0.1', fs: { allow: [realpathSync(join(ROOT, 'node_modules'))] } },
});
await server.listen();
const origin = `http://127.0.0.1:${PORT}`;
const { chromiumLaunchOptions } = await server.ssrLoadModule(join(ROOT, 'config/browser.ts'));

// ---------- memory ----------
const procStatus = (pid) => Object.fromEntries(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')
  .filter((l) => l.startsWith('Vm')).map((l) => [l.split(':')[0], Number(l.split(/\s+/)[1]) / 1024]));
/** Resets VmHWM to the current resident set (Linux clear_refs 5); false where not permitted. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

// ---------- the run ----------
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const row = { model, door, format, ...(Object.keys(extraConfig).length && { config: extraConfig }), file: fileName, MB: +(statSync(filePath).size / 2 ** 20).toFixed(1), minutes,
  loadBefore: loadAverage(), startedAt: new Date().toISOString(),
  // The dev server serves the working tree: say which commit, and which files differed from it.
  head: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
  dirty: execFileSync('git', ['diff', '--name-only', 'HEAD', '--', 'src', 'engine'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean) };
const browser = await chromium.launch({ ...chromiumLaunchOptions, args: [...chromiumLaunchOptions.args, ...chromiumArgs] });
let sampler;
try {
  const page = await browser.newPage();
  page.on('console', (m) => m.text().startsWith('[long]') && console.log(m.text()));
  page.on('pageerror', (e) => console.log('[pageerror]', String(e)));
  if (door === 'v1') {
    await page.goto(`${origin}/?model=${model}`);
    if (!(await page.evaluate(() => window.e2e.ready))) throw new Error('the page is not controlled by the service worker');
    await page.evaluate(async ({ key, bytes }) => {
      await window.e2e.clearAll();
      await window.e2e.provisionApiKey({ key, label: 'measure' });
      // The WAV hour (115 MB) is over the default 100 MiB body limit; nothing else is changed.
      await window.e2e.setLimits({ maxBodyBytes: Math.max(100 * 2 ** 20, bytes + 1) });
    }, { key: API_KEY, bytes: statSync(filePath).size });
  } else {
    await page.goto(`${origin}/?engine=0`);
  }
  await new Promise((r) => setTimeout(r, 3000)); // let the page settle before the idle figure
  const cdp = await browser.newBrowserCDPSession();
  const renderers = async () => (await cdp.send('SystemInfo.getProcessInfo')).processInfo
    .filter((p) => p.type === 'renderer').map((p) => p.id);
  const idle = {};
  let hwmReset = true;
  for (const pid of await renderers()) {
    hwmReset = resetPeak(pid) && hwmReset;
    idle[pid] = procStatus(pid).VmRSS;
  }
  let sumPeak = 0;
  let sumPeakAt = 0;
  const series = []; // [seconds, MB above idle summed over renderers], kept beside the transcript
  const t0 = Date.now();
  let lastLog = 0;
  sampler = setInterval(async () => {
    try {
      const pids = await renderers();
      let sum = 0;
      for (const pid of pids) sum += procStatus(pid).VmRSS - (idle[pid] ?? 0);
      if (sum > sumPeak) [sumPeak, sumPeakAt] = [sum, (Date.now() - t0) / 1000];
      series.push([Math.round((Date.now() - t0) / 1000), Math.round(sum)]);
      if (Date.now() - lastLog > 60_000) {
        lastLog = Date.now();
        console.log(`[mem] t=${((Date.now() - t0) / 1000).toFixed(0)}s renderers above idle ${sum.toFixed(0)} MB (peak ${sumPeak.toFixed(0)}), load ${loadAverage()}`);
      }
    } catch {
      // a renderer that just went away
    }
  }, 2000);

  const result = await page.evaluate(async ({ url, api, model, door, query, key, abortAfter, extraConfig, loadOnly }) => {
    const blob = await (await fetch(url)).blob();
    const t0 = performance.now();
    const controller = new AbortController();
    if (abortAfter !== null) setTimeout(() => controller.abort(), abortAfter * 1000);
    try {
      if (door === 'js') {
        const { createTranscriber } = await import(api);
        let lastLog = 0;
        const t = createTranscriber({
          model,
          ...extraConfig,
          onProgress: (e) => {
            if (e.stage === 'transcribe' && performance.now() - lastLog > 60_000) {
              lastLog = performance.now();
              console.log(`[long] ${(e.processedMs / 60000).toFixed(1)} of ${(e.totalMs / 60000).toFixed(1)} min after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
            }
          },
        });
        try {
          if (loadOnly) {
            await t.load();
            await new Promise((done) => setTimeout(done, 6000));
            return { ok: true, ms: performance.now() - t0, json: null };
          }
          const transcript = await t.transcribe(blob, new URLSearchParams(query), { signal: controller.signal });
          return { ok: true, ms: performance.now() - t0, json: JSON.stringify(transcript) };
        } finally {
          await t.dispose();
        }
      }
      const res = await fetch(`/v1/speech-to-text/prerecorded?${query}`, {
        method: 'POST', headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'application/octet-stream' },
        body: blob, signal: controller.signal,
      });
      const headersMs = performance.now() - t0;
      const text = await res.text();
      return { ok: res.status === 200, status: res.status, contentType: res.headers.get('content-type'), headersMs,
        ms: performance.now() - t0, json: text };
    } catch (err) {
      return { ok: false, ms: performance.now() - t0, error: String(err) };
    }
  }, {
    url: `/__long/${fileName}`, api: `/@fs${join(ROOT, 'src/index.ts')}`, model, door, query: QUERY, key: API_KEY, abortAfter, extraConfig, loadOnly,
  });
  clearInterval(sampler);

  const pids = await renderers();
  const peaks = pids.map((pid) => ({ pid, hwm: procStatus(pid).VmHWM, above: procStatus(pid).VmHWM - (idle[pid] ?? 0) }));
  Object.assign(row, {
    ok: result.ok,
    ...(result.error && { error: result.error }),
    ...(door === 'v1' && { status: result.status, contentType: result.contentType, headersS: +(result.headersMs / 1000).toFixed(1) }),
    wallS: +(result.ms / 1000).toFixed(1),
    rtf: loadOnly ? null : +(result.ms / 1000 / (minutes * 60)).toFixed(3),
    peakRendererMBAboveIdle: Math.round(Math.max(...peaks.map((p) => p.above))),
    peakSumRenderersMBAboveIdle: Math.round(sumPeak),
    peakSumAtS: Math.round(sumPeakAt),
    idleRendererMB: Object.values(idle).map(Math.round),
    hwmReset,
    abortAfterS: abortAfter,
    ...(loadOnly && { loadOnly }),
    ...(chromiumArgs.length > 0 && { chromiumArgs }),
    loadAfter: loadAverage(),
  });
  if (result.json && result.ok) Object.assign(row, check(result.json));
  // Named by everything that varies, so a short check never overwrites an hour's transcript.
  const tag = `${model}-${door}-${format}-${recording.slice('speech-'.length)}${loadOnly ? '-load-only' : ''}${abortAfter === null ? '' : `-abort${abortAfter}s`}${Object.keys(extraConfig).length ? `-${Object.values(extraConfig).join('-')}` : ''}`;
  if (result.json) writeFileSync(join(OUT, `transcript-${tag}.json`), result.json);
  writeFileSync(join(OUT, `memory-${tag}.json`), JSON.stringify(series));
  if (result.json && !result.ok) row.body = result.json.slice(0, 500);
} catch (err) {
  row.ok = false;
  row.error = String(err);
} finally {
  clearInterval(sampler);
  await browser.close();
  await server.close();
}
console.log(JSON.stringify(row));
if (outFile) appendFileSync(outFile, `${JSON.stringify(row)}\n`);

/**
 * Checks a transcript is the spec's shape (2.4 with include_timestamps and include_words) and covers
 * the hour: words per 10-minute stretch (a lost window or a cut-off tail shows as a thin stretch) and
 * the longest stretch without a word.
 */
function check(text) {
  let t;
  try {
    t = JSON.parse(text);
  } catch (err) {
    return { specJson: false, specProblem: `not JSON: ${err}` };
  }
  const problems = [];
  const isMs = (v) => Number.isInteger(v) && v >= 0;
  if (typeof t.text !== 'string') problems.push('text is not a string');
  if (!isMs(t.start_ms) || !isMs(t.duration_ms)) problems.push('start_ms/duration_ms missing or not integer ms');
  if (!Array.isArray(t.words)) problems.push('words missing');
  const allowed = new Set(['text', 'start_ms', 'duration_ms', 'words']);
  for (const k of Object.keys(t)) if (!allowed.has(k)) problems.push(`unexpected field ${k}`);
  const words = Array.isArray(t.words) ? t.words : [];
  let prevStart = -1;
  for (const [i, w] of words.entries()) {
    if (typeof w.text !== 'string' || !isMs(w.start_ms) || !isMs(w.duration_ms) || Object.keys(w).length !== 3) {
      problems.push(`word ${i} is not {text, start_ms, duration_ms}: ${JSON.stringify(w)}`);
      break;
    }
    if (w.start_ms < prevStart) {
      problems.push(`word ${i} starts before word ${i - 1}`);
      break;
    }
    prevStart = w.start_ms;
  }
  const stretchMs = 10 * 60 * 1000;
  const perStretch = Array.from({ length: Math.ceil((minutes * 60000) / stretchMs) }, () => 0);
  let maxGapMs = words.length ? words[0].start_ms : minutes * 60000;
  let maxGapAtMs = 0;
  for (let i = 0; i < words.length; i++) {
    perStretch[Math.min(perStretch.length - 1, Math.floor(words[i].start_ms / stretchMs))]++;
    const next = i + 1 < words.length ? words[i + 1].start_ms : t.duration_ms;
    const gap = next - (words[i].start_ms + words[i].duration_ms);
    if (gap > maxGapMs) [maxGapMs, maxGapAtMs] = [gap, words[i].start_ms + words[i].duration_ms];
  }
  const last = words.at(-1);
  return {
    specJson: problems.length === 0,
    ...(problems.length && { specProblems: problems.slice(0, 5) }),
    durationMin: +(t.duration_ms / 60000).toFixed(3),
    words: words.length,
    textWords: t.text.split(/\s+/).filter(Boolean).length,
    lastWordEndMin: last ? +((last.start_ms + last.duration_ms) / 60000).toFixed(2) : null,
    wordsPer10Min: perStretch,
    longestGapS: +(maxGapMs / 1000).toFixed(1),
    longestGapAtMin: +(maxGapAtMs / 60000).toFixed(2),
  };
}
