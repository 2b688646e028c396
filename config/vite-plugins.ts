import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { EVAL_DIR, SPEAKERS_DIR } from './paths';

/** Cross-origin isolation, so onnxruntime-web can use WASM threads (SharedArrayBuffer). */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.wav': 'audio/wav',
  '.flac': 'audio/flac',
  '.mp3': 'audio/mpeg',
  '.rttm': 'text/plain',
  '.txt': 'text/plain',
};

function serveDir(prefix: string, dir: string): Connect.NextHandleFunction {
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

/** Serves the evaluation data read-only at /__eval/ and /__speakers/ (dev, preview and tests only). */
export function evalData(): Plugin {
  return {
    name: 'localscribe-eval-data',
    configureServer(server) {
      server.middlewares.use(serveDir('/__eval/', EVAL_DIR));
      server.middlewares.use(serveDir('/__speakers/', SPEAKERS_DIR));
    },
    configurePreviewServer(server) {
      server.middlewares.use(serveDir('/__eval/', EVAL_DIR));
      server.middlewares.use(serveDir('/__speakers/', SPEAKERS_DIR));
    },
  };
}
