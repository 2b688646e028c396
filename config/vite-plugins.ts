import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { EVAL_DIR, FIXTURES_DIR, ROOT, SHARED_MODELS_DIR, SPEAKERS_DIR } from './paths';

/** Cross-origin isolation, so onnxruntime-web can use WASM threads (SharedArrayBuffer). */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.wav': 'audio/wav',
  '.flac': 'audio/flac',
  '.mp3': 'audio/mpeg',
  '.rttm': 'text/plain',
  '.txt': 'text/plain',
  '.ogg': 'audio/ogg',
  '.webm': 'audio/webm',
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
};

/** Serves the files under `dir` read-only at URL `prefix`, with the isolation headers. */
export function serveDir(prefix: string, dir: string): Connect.NextHandleFunction {
  return (req, res, next) => {
    const url = req.url?.split('?')[0] ?? '';
    if (!url.startsWith(prefix)) return next();
    const rel = normalize(decodeURIComponent(url.slice(prefix.length)));
    if (rel.startsWith('..')) return next();
    const file = join(dir, rel);
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      return res.end(`not found: ${rel}`);
    }
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', String(statSync(file).size));
    for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
    createReadStream(file).pipe(res);
  };
}

const ROUTES: [string, string][] = [
  ['/__eval/', EVAL_DIR],
  ['/__speakers/', SPEAKERS_DIR],
  ['/__fixtures/', FIXTURES_DIR],
  // pretrained models that may not be committed or shipped (../shared/models), for tests that supply one by URL
  ['/__models/', SHARED_MODELS_DIR],
  // onnxruntime-web's wasm at a fixed URL, for tests that pass wasmBaseUrl '/ort/' (builds emit their own).
  ['/ort/', `${ROOT}/node_modules/onnxruntime-web/dist`],
];

/**
 * Serves evaluation data, generated test fixtures and ../shared/models read-only at /__eval/,
 * /__speakers/, /__fixtures/ and /__models/, and onnxruntime-web's dist/ at /ort/ (dev server,
 * preview and tests only; never part of a build).
 */
export function evalData(): Plugin {
  return {
    name: 'localscribe-eval-data',
    configureServer(server) {
      for (const [prefix, dir] of ROUTES) server.middlewares.use(serveDir(prefix, dir));
    },
    configurePreviewServer(server) {
      for (const [prefix, dir] of ROUTES) server.middlewares.use(serveDir(prefix, dir));
    },
  };
}

/**
 * Serves the /v1 service worker source at /sw.js (the origin root, so its scope covers /v1/) in dev.
 * Vite transforms it like any module; Chromium runs it as a module service worker with static imports.
 * Builds use the self-contained dist/sw.js from src/sw/vite.config.ts instead.
 */
export function serviceWorkerAtRoot(): Plugin {
  return {
    name: 'localscribe-service-worker-at-root',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if ((req.url ?? '').split('?')[0] === '/sw.js') req.url = `/@fs${ROOT}/src/sw/service-worker.ts`;
        next();
      });
    },
  };
}
