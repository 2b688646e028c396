import { defineConfig } from 'vite';

// README "Use it in your app": cross-origin isolation (for WASM threads), ES-module workers, and
// onnxruntime-web left out of dev pre-bundling so it finds its .wasm beside itself.
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
});
