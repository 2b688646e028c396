import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createServer, type Plugin, type ViteDevServer } from 'vite';
import { ROOT } from '../../config/paths';
import { evalData, ISOLATION_HEADERS, serveDir } from '../../config/vite-plugins';
import { warmUp } from './warm-up';

/** The bench pages, one per side, each exposing window.benchDriver. */
export const BENCH_PAGES = { ours: '/bench/pages/ours.html', peer: '/bench/pages/peer.html' } as const;

/**
 * The Vite dev server both runners drive: the bench pages (bench/pages/), the library's sources,
 * models at /models/ (public/), the evaluation set at /__eval/ (evalData(), STS_EVAL_DIR), and the
 * peer's own onnxruntime-web files at /__peer-ort/, all cross-origin isolated for WASM threads.
 * The pages' module graphs are requested once before returning, so no transform is timed.
 * Import this module only after setting process.env.STS_EVAL_DIR: config/paths reads it on import.
 */
export async function startBenchServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: ViteDevServer = await createServer({
    configFile: false,
    root: ROOT,
    publicDir: join(ROOT, 'public'),
    // Its own dependency cache, so a bench run never re-optimises under another Vite server in this checkout.
    cacheDir: join(ROOT, 'node_modules/.vite-bench'),
    logLevel: 'warn',
    appType: 'mpa',
    plugins: [evalData(), peerOrtFiles()],
    server: {
      host: '127.0.0.1',
      port: 0,
      headers: ISOLATION_HEADERS,
      fs: { allow: [ROOT] },
      hmr: false,
      watch: null,
    },
    worker: { format: 'es' },
    optimizeDeps: {
      entries: ['bench/pages/*.html'],
      // Named up front: a dependency first met inside the worker would re-optimise mid-run.
      include: ['@huggingface/transformers', '@huggingface/tokenizers', 'comlink', 'idb'],
      exclude: ['onnxruntime-web'],
    },
  });
  await server.listen();
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite: no local URL');
  await warmUp(url.replace(/\/$/, ''), Object.values(BENCH_PAGES));
  return { url: url.replace(/\/$/, ''), close: () => server.close() };
}

/** transformers.js's nested onnxruntime-web (its .wasm and .mjs), served as-is at /__peer-ort/. */
function peerOrtFiles(): Plugin {
  const require = createRequire(join(ROOT, 'package.json'));
  // The package exports no package.json; its main file lives in dist/.
  const transformers = dirname(dirname(require.resolve('@huggingface/transformers')));
  const dist = join(transformers, 'node_modules/onnxruntime-web/dist');
  if (!existsSync(dist)) throw new Error(`transformers.js's own onnxruntime-web is missing: ${dist}`);
  return {
    name: 'localscribe-bench-peer-ort',
    configureServer(server) {
      server.middlewares.use(serveDir('/__peer-ort/', dist));
    },
  };
}
