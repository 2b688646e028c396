#!/usr/bin/env node
/**
 * Peak renderer memory of decodeAudio (and optionally a whole transcription) on 1-hour recordings,
 * in headless Chromium. For each file and decoder: a fresh browser, a page on the Vite dev server,
 * fetch the bytes, decodeAudio; the renderer's peak resident set (VmHWM from /proc) minus its
 * resident set just before the fetch is the figure reported (it includes the fetched body itself).
 *
 * Decoders compared for compressed files: `webaudio` (decodeAudioData, the whole file decoded at
 * its own rate and channel count: the old path) and `stream` (mediabunny + WebCodecs in chunks,
 * compressedDecoder 'stream-only', so a silent fallback cannot pass for it). WAV has one path.
 *
 * The files are made with ffmpeg by looping the evaluation set's en/jfk.flac, in a folder outside
 * the repository (MEASURE_AUDIO_DIR, default /tmp/localscribe-audio-long), never committed.
 *
 * Usage: node scripts/measure-audio-memory.mjs [minutes=60] [only files whose name contains this]
 *          [--decoder=webaudio|stream] [--blob] [--transcribe[=whisper-tiny]]
 * --blob fetches the body as a Blob (as a user's File arrives) instead of an ArrayBuffer: a large
 * WAV is then read in slices and never sits in the renderer whole.
 * --transcribe runs `createTranscriber({ model }).transcribe(bytes)` (the JS API, default decoding
 * path) instead of decodeAudio alone: the peak then includes the engine worker, a thread of the
 * page's renderer.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { createServer } from 'vite';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name) => process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
const minutes = Number(positional[0] ?? 60);
const only = positional[1] ?? '';
const decoderFlag = flag('decoder')?.split('=')[1];
const transcribeFlag = flag('transcribe');
const asBlob = !!flag('blob');
const model = transcribeFlag ? (transcribeFlag.split('=')[1] ?? 'whisper-tiny') : null;
const OUT = resolve(process.env.MEASURE_AUDIO_DIR ?? '/tmp/localscribe-audio-long');
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
const chosen = FILES.filter((x) => x.name.includes(only));
for (const f of chosen) {
  const path = join(OUT, f.name);
  if (existsSync(path)) continue;
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-stream_loop', String(loops), '-i', JFK,
    '-t', String(minutes * 60), ...f.args, path]);
}

/** Serves the long files from outside the repository, streamed from disk (ahead of Vite's own routes). */
const longFiles = {
  name: 'measure-long-files',
  configureServer(s) {
    s.middlewares.use('/__long/', (req, res) => {
      const path = join(OUT, decodeURIComponent(req.url.slice(1)));
      if (!path.startsWith(OUT) || !existsSync(path)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(path).size });
      createReadStream(path).pipe(res);
    });
  },
};
const server = await createServer({
  configFile: join(ROOT, 'vite.config.ts'), plugins: [longFiles], server: { port: 5199, strictPort: true }, logLevel: 'error',
});
await server.listen();
const { chromiumLaunchOptions } = await server.ssrLoadModule(join(ROOT, 'config/browser.ts'));
const status = (pid) => Object.fromEntries(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')
  .filter((l) => l.startsWith('Vm')).map((l) => [l.split(':')[0], Number(l.split(/\s+/)[1]) / 1024]));

// A transcription takes the default path (streaming, WebAudio only as fallback): one run per file.
const runs = chosen.flatMap((f) => (f.name.endsWith('.wav') ? ['wav'] : model ? ['default'] : ['webaudio', 'stream'])
  .filter((d) => d === 'wav' || d === 'default' || !decoderFlag || d === decoderFlag).map((decoder) => ({ ...f, decoder })));

const rows = [];
try {
  for (const f of runs) {
    const browser = await chromium.launch(chromiumLaunchOptions);
    const page = await browser.newPage();
    await page.goto('http://localhost:5199/__fixtures/audio/manifest.json');
    const cdp = await browser.newBrowserCDPSession();
    const renderers = async () => (await cdp.send('SystemInfo.getProcessInfo')).processInfo
      .filter((p) => p.type === 'renderer').map((p) => p.id);
    const before = Object.fromEntries((await renderers()).map((pid) => [pid, status(pid).VmRSS]));
    const result = await page.evaluate(async ({ url, audio, api, decoder, model, asBlob }) => {
      const res = await fetch(url);
      const bytes = asBlob ? await res.blob() : await res.arrayBuffer();
      const compressedDecoder = decoder === 'webaudio' ? 'webaudio' : 'stream-only';
      const t0 = performance.now();
      if (!model) {
        const { decodeAudio } = await import(audio);
        const out = await decodeAudio(bytes, { encoding: 'auto', sampleRate: 16000, channels: 1, compressedDecoder });
        return { samples: out.length, ms: performance.now() - t0 };
      }
      const { createTranscriber } = await import(api);
      const t = createTranscriber({ model });
      try {
        const res = await t.transcribe(bytes);
        return { samples: Math.round(res.duration * 16000), ms: performance.now() - t0, words: res.text.split(/\s+/).length };
      } finally {
        await t.dispose();
      }
    }, {
      url: `/__long/${f.name}`, decoder: f.decoder, model, asBlob,
      audio: `/@fs${join(ROOT, 'src/audio/index.ts')}`, api: `/@fs${join(ROOT, 'src/index.ts')}`,
    });
    // Renderers that appeared since (none expected: workers are threads of the page's renderer).
    const pids = await renderers();
    const peak = Math.max(...pids.map((pid) => status(pid).VmHWM - (before[pid] ?? 0)));
    rows.push({
      file: f.name,
      decoder: f.decoder,
      body: asBlob ? 'Blob' : 'ArrayBuffer',
      MB: +(statSync(join(OUT, f.name)).size / 2 ** 20).toFixed(1),
      decodedSeconds: +(result.samples / 16000).toFixed(3),
      peakRendererMBAboveBaseline: Math.round(peak),
      seconds: +(result.ms / 1000).toFixed(1),
      ...(model && { model, words: result.words }),
    });
    console.log(JSON.stringify(rows.at(-1)));
    await browser.close();
  }
} finally {
  await server.close();
}
console.table(rows);
