import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';
import { ROOT } from './config/paths';

/**
 * The npm package's JavaScript (`npm run build:lib`): dist/index.js (main thread) and dist/worker.js (the
 * engine's Web Worker), ES modules with the runtime dependencies left as imports, so the consumer's
 * bundler resolves them once (and emits onnxruntime-web's .wasm itself). dist/sw.js comes from
 * src/sw/vite.config.ts, the declarations from tsconfig.lib.json.
 */
const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { dependencies: Record<string, string> };
const external = Object.keys(pkg.dependencies);

/**
 * src/transcriber.ts starts its worker with `new Worker(new URL('../engine/worker.ts', import.meta.url))`,
 * which Vite would bundle into the library. Here the URL becomes the sibling dist/worker.js instead, in the
 * same pattern, so the consumer's bundler (Vite, webpack 5, esbuild, ...) finds and bundles the worker.
 */
function workerFromPackage(): Plugin {
  const placeholder = '__LOCALSCRIBE_WORKER_URL__';
  return {
    name: 'localscribe-worker-from-package',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith('/src/transcriber.ts')) return null;
      const literal = "new URL('../engine/worker.ts', import.meta.url)";
      if (!code.includes(literal)) this.error(`src/transcriber.ts no longer creates its worker with ${literal}`);
      // Same line, same lines after: the source map stays valid (map: null keeps it).
      return { code: code.replace(literal, `new URL(${placeholder}, import.meta.url)`), map: null };
    },
    generateBundle() {
      // tsconfig.lib.json writes the declarations under dist/types/; the package's types entry points here.
      this.emitFile({ type: 'asset', fileName: 'index.d.ts', source: "export * from './types/src/index';\n" });
    },
    renderChunk(code) {
      return code.includes(placeholder) ? { code: code.replace(placeholder, "'./worker.js'"), map: null } : null;
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [workerFromPackage()],
  build: {
    outDir: `${ROOT}/dist`,
    emptyOutDir: true,
    target: 'es2022',
    minify: false,
    sourcemap: true,
    lib: {
      entry: { index: `${ROOT}/src/index.ts`, worker: `${ROOT}/engine/worker.ts` },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    rolldownOptions: {
      external: (id) => external.some((dep) => id === dep || id.startsWith(`${dep}/`)),
      output: { chunkFileNames: '[name]-[hash].js' },
    },
  },
});
