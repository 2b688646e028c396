import { defineConfig } from 'vite';
import { ROOT } from '../../config/paths';
import { evalData, ISOLATION_HEADERS, serviceWorkerAtRoot } from '../../config/vite-plugins';

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
    entries: [`${ROOT}/test/e2e/app/index.html`, `${ROOT}/src/sw/service-worker.ts`, `${ROOT}/engine/worker.ts`],
    include: ['idb', 'comlink', '@huggingface/tokenizers'],
    exclude: ['onnxruntime-web'],
  },
});
