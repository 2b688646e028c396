import { defineConfig } from 'vite';
import { evalData, ISOLATION_HEADERS, serviceWorkerAtRoot } from './config/vite-plugins';
import { ROOT } from './config/paths';

// Serves and builds the demo (demo/index.html). Models and onnxruntime's wasm come from public/.
export default defineConfig({
  root: 'demo',
  publicDir: `${ROOT}/public`,
  plugins: [serviceWorkerAtRoot(), evalData()],
  server: { headers: ISOLATION_HEADERS, fs: { allow: [ROOT] }, port: 5173 },
  preview: { headers: ISOLATION_HEADERS, port: 4173 },
  worker: { format: 'es' },
  // Pre-bundle what the page and the engine worker import, so the dev server never re-optimizes (and
  // reloads the page) in the middle of someone's first transcription.
  optimizeDeps: {
    entries: [`${ROOT}/demo/index.html`, `${ROOT}/worker/engine.ts`],
    include: ['comlink', 'idb', '@huggingface/tokenizers'],
    exclude: ['onnxruntime-web'],
  },
  build: { outDir: `${ROOT}/dist-demo`, emptyOutDir: true, target: 'es2022' },
});
