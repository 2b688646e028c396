import { defineConfig } from 'vite';
import { ROOT } from '../../config/paths';

// Static build of the WebGPU bench page (bench/webgpu/README.md): served by serve.py on a
// machine that has Chromium and Python but no Node.
export default defineConfig({
  root: ROOT,
  publicDir: false,
  logLevel: 'warn',
  worker: { format: 'es' },
  build: {
    outDir: `${ROOT}/tmp/webgpu/site`,
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { input: `${ROOT}/bench/webgpu/page.html` },
  },
});
