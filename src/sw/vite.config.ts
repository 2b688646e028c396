import { defineConfig } from 'vite';
import { ROOT } from '../../config/paths';

/**
 * Builds the /v1 service worker as one self-contained file, dist/sw.js (idb and everything else
 * inlined, no import statements left, so it runs as a module or a classic worker):
 *   npx vite build --config src/sw/vite.config.ts
 * Serve it at the root of the app (or anywhere whose scope covers `<basePath>/v1/`) and pass its URL
 * to registerLocalApi({ scriptUrl }).
 */
export default defineConfig({
  publicDir: false,
  build: {
    outDir: process.env.SW_OUT_DIR ?? `${ROOT}/dist`,
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: `${ROOT}/src/sw/service-worker.ts`,
      formats: ['es'],
      fileName: () => 'sw.js',
    },
  },
});
