import { build, defineConfig, type Plugin } from 'vite';
import { evalData, ISOLATION_HEADERS } from './config/vite-plugins';
import { ROOT } from './config/paths';

const SW_ENTRY = `${ROOT}/demo/sw.ts`;

/**
 * The demo's service worker (demo/sw.ts: the library's /v1 service plus the app-shell cache) at /sw.js.
 * Dev: /sw.js is the TypeScript source, transformed by Vite (Chromium runs it as a module worker).
 * Build: a self-contained dist-demo/sw.js, and shell.json listing the files the app needs offline.
 */
function demoServiceWorker(): Plugin {
  let outDir = '';
  return {
    name: 'localscribe-demo-service-worker',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if ((req.url ?? '').split('?')[0] === '/sw.js') req.url = `/@fs${SW_ENTRY}`;
        next();
      });
    },
    generateBundle(_options, bundle) {
      // current: everything this build emitted (onnxruntime's .wasm included: the engine loads it from
      // assets/). precache: all but the WebGPU runtime (27 MB), cached when someone first uses WebGPU.
      const current = ['./', ...Object.keys(bundle).filter((f) => !f.endsWith('.map'))];
      const precache = current.filter((f) => !/webgpu|asyncify/.test(f));
      this.emitFile({ type: 'asset', fileName: 'shell.json', source: `${JSON.stringify({ precache, current }, null, 1)}\n` });
    },
    async closeBundle() {
      if (!outDir) return;
      await build({
        configFile: false,
        publicDir: false,
        logLevel: 'warn',
        build: {
          outDir,
          emptyOutDir: false,
          target: 'es2022',
          lib: { entry: SW_ENTRY, formats: ['es'], fileName: () => 'sw.js' },
        },
      });
    },
  };
}

// Serves and builds the demo (demo/index.html). Models and onnxruntime's wasm come from public/.
// `--mode e2e` (the Playwright demo project): no HMR, no file watching (other edits to the checkout
// must not reload pages mid-test) and its own dependency cache (other dev servers may run beside it).
export default defineConfig(({ mode, command }) => {
  const e2e = mode === 'e2e';
  return {
    root: 'demo',
    publicDir: `${ROOT}/public`,
    plugins: [demoServiceWorker(), evalData()],
    ...(e2e ? { cacheDir: `${ROOT}/node_modules/.vite-demo-e2e` } : {}),
    server: {
      headers: ISOLATION_HEADERS,
      fs: { allow: [ROOT] },
      port: 5173,
      ...(e2e ? { hmr: false, watch: null, strictPort: true } : {}),
    },
    preview: { headers: ISOLATION_HEADERS, port: 4173 },
    worker: { format: 'es' },
    // Pre-bundle what the page, the service worker and the engine worker import, so the dev server never
    // re-optimizes (and reloads the page) in the middle of someone's first transcription.
    optimizeDeps: {
      entries: [`${ROOT}/demo/index.html`, SW_ENTRY, `${ROOT}/engine/worker.ts`],
      include: ['comlink', 'idb', '@huggingface/tokenizers', 'mediabunny'],
      exclude: ['onnxruntime-web'],
    },
    build: { outDir: `${ROOT}/dist-demo`, emptyOutDir: command === 'build', target: 'es2022' },
  };
});
