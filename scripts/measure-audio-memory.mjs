#!/usr/bin/env node
/**
 * Peak memory of decodeAudio on 1-hour recordings, in headless Chromium.
 * For each file: a fresh browser, a page on the Vite dev server, fetch the bytes, decodeAudio;
 * the renderer's peak resident set (VmHWM from /proc) minus its resident set just before the
 * fetch is the figure reported (it includes the fetched body itself).
 * Usage: node scripts/measure-audio-memory.mjs [minutes=60] [only files whose name contains this]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer } from 'vite';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const minutes = Number(process.argv[2] ?? 60);
const OUT = join(ROOT, 'test/.fixtures/audio-long');
const JFK = resolve(ROOT, process.env.STS_EVAL_DIR ?? '../shared/eval', 'en/jfk.flac');
mkdirSync(OUT, { recursive: true });

const loops = Math.ceil((minutes * 60) / 11);
const FILES = [
  { name: `wav-s16-16k-mono-${minutes}m.wav`, args: ['-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le'] },
  { name: `wav-s16-44k-stereo-${minutes}m.wav`, args: ['-ar', '44100', '-c:a', 'pcm_s16le'] },
  { name: `mp3-44k-stereo-${minutes}m.mp3`, args: ['-c:a', 'libmp3lame', '-b:a', '64k'] },
  { name: `opus-48k-mono-${minutes}m.ogg`, args: ['-ac', '1', '-c:a', 'libopus', '-b:a', '24k'] },
  { name: `m4a-aac-44k-stereo-${minutes}m.m4a`, args: ['-c:a', 'aac', '-b:a', '64k', '-f', 'ipod'] },
];
const only = process.argv[3] ?? '';
for (const f of FILES) {
  const path = join(OUT, f.name);
  if (existsSync(path)) continue;
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-stream_loop', String(loops), '-i', JFK,
    '-t', String(minutes * 60), ...f.args, path]);
}

const server = await createServer({ configFile: join(ROOT, 'vite.config.ts'), server: { port: 5199, strictPort: true }, logLevel: 'error' });
await server.listen();
const { chromiumLaunchOptions } = await server.ssrLoadModule(join(ROOT, 'config/browser.ts'));
const status = (pid) => Object.fromEntries(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')
  .filter((l) => l.startsWith('Vm')).map((l) => [l.split(':')[0], Number(l.split(/\s+/)[1]) / 1024]));

const rows = [];
try {
  for (const f of FILES.filter((x) => x.name.includes(only))) {
    const browser = await chromium.launch(chromiumLaunchOptions);
    const page = await browser.newPage();
    await page.goto('http://localhost:5199/__fixtures/audio/manifest.json');
    const cdp = await browser.newBrowserCDPSession();
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    const renderers = processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
    const before = Object.fromEntries(renderers.map((pid) => [pid, status(pid).VmRSS]));
    const result = await page.evaluate(async ({ url, mod }) => {
      const { decodeAudio } = await import(mod);
      const bytes = await (await fetch(url)).arrayBuffer();
      const t0 = performance.now();
      const out = await decodeAudio(bytes, { encoding: 'auto', sampleRate: 16000, channels: 1 });
      return { samples: out.length, ms: performance.now() - t0 };
    }, { url: `/__fixtures/audio-long/${f.name}`, mod: `/@fs${join(ROOT, 'src/audio/index.ts')}` });
    const peak = Math.max(...renderers.map((pid) => status(pid).VmHWM - before[pid]));
    rows.push({
      file: f.name,
      MB: +(statSync(join(OUT, f.name)).size / 2 ** 20).toFixed(1),
      decodedSeconds: +(result.samples / 16000).toFixed(3),
      outputMB: +((result.samples * 4) / 2 ** 20).toFixed(1),
      peakRendererMBAboveBaseline: Math.round(peak),
      decodeSeconds: +(result.ms / 1000).toFixed(1),
    });
    console.log(JSON.stringify(rows.at(-1)));
    await browser.close();
  }
} finally {
  await server.close();
}
console.table(rows);
