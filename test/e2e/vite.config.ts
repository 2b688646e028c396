import { defineConfig, type Plugin } from 'vite';
import { ROOT } from '../../config/paths';
import { evalData, ISOLATION_HEADERS } from '../../config/vite-plugins';

/**
 * Serves the /v1 service worker source at /sw.js (the origin root, so its scope covers /v1/). Vite
 * transforms it like any module; Chromium runs it as a module service worker with static imports.
 */
function serviceWorkerAtRoot(): Plugin {
  return {
    name: 'e2e-service-worker-at-root',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if ((req.url ?? '').split('?')[0] === '/sw.js') req.url = `/@fs${ROOT}/src/sw/service-worker.ts`;
        next();
      });
    },
  };
}

// The e2e app (test/e2e/app) for the Playwright suite: one page that hosts the engine and exposes helpers.
export default defineConfig({
  root: `${ROOT}/test/e2e/app`,
  publicDir: `${ROOT}/public`,
  plugins: [serviceWorkerAtRoot(), evalData()],
  // No HMR and no file watching: other edits to the checkout must not reload pages mid-test.
  server: { headers: ISOLATION_HEADERS, fs: { allow: [ROOT] }, strictPort: true, hmr: false, watch: null },
  worker: { format: 'es' },
  // Pre-bundle every dependency the page, the service worker and the engine worker import, so the dev
  // server never re-optimizes (and reloads the page) in the middle of a test.
  optimizeDeps: {
    entries: [`${ROOT}/test/e2e/app/index.html`, `${ROOT}/src/sw/service-worker.ts`, `${ROOT}/worker/engine.ts`],
    include: ['idb', 'comlink', '@huggingface/tokenizers'],
    exclude: ['onnxruntime-web'],
  },
});
