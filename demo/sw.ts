/// <reference lib="webworker" />
/**
 * The demo's one service worker: the library's /v1 service (imported as is: its install, activate,
 * message and fetch listeners) plus an app-shell cache so the demo opens and runs with the network off.
 *
 * - Requests the /v1 service answers are left to it (it calls respondWith first; this listener skips them).
 * - Model files (/models/) are cached by the library itself (Cache Storage in the engine worker), and
 *   test data (/__eval/ ...) is not app shell: both pass through untouched.
 * - Everything else same-origin and GET is app shell: hashed build assets (/assets/) cache-first,
 *   the rest network-first (so a dev server's edits show up) with the cached copy when the network fails.
 * - The page reports what it loaded before this worker controlled it ('cache-shell' message, see
 *   demo/offline.ts); a build also lists its whole shell in shell.json (vite.config.ts writes it).
 * Responses served from this cache carry `X-Localscribe-Cache: hit`.
 */
import '../src/sw/service-worker';
import { apiPath, normalizeBasePath } from '../src/sw/router';
import { CACHE_SHELL_MESSAGE, SHELL_CACHE } from './sw-protocol';

declare const self: ServiceWorkerGlobalScope;

const basePath = normalizeBasePath(new URL(self.location.href).searchParams.get('base'));
const scope = new URL(self.registration.scope);

/** The cache key of a shell request, or null when the request is not app shell. */
function shellKey(request: Request): string | null {
  if (request.method !== 'GET' || request.headers.has('range')) return null;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(scope.pathname)) return null;
  if (apiPath(url, self.location.origin, basePath) !== null) return null;
  const rest = url.pathname.slice(scope.pathname.length - 1);
  if (rest.startsWith('/models/') || rest.startsWith('/__') || rest.startsWith('/@vite/env')) return null;
  // Vite's dev client pings the server to learn it is back; a cached answer would make it reload forever.
  if ((request.headers.get('accept') ?? '').includes('text/x-vite-ping')) return null;
  url.hash = '';
  if (request.mode === 'navigate' || rest === '/index.html') return new URL(scope.pathname, url).href;
  return url.href;
}

function fromCache(res: Response): Response {
  const headers = new Headers(res.headers);
  headers.set('X-Localscribe-Cache', 'hit');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

async function store(key: string, res: Response): Promise<void> {
  if (!res.ok || res.type !== 'basic') return;
  const cache = await caches.open(SHELL_CACHE);
  await cache.put(key, res);
}

async function networkFirst(event: FetchEvent, key: string): Promise<Response> {
  try {
    const res = await fetch(event.request);
    event.waitUntil(store(key, res.clone()).catch(() => undefined));
    return res;
  } catch (err) {
    const hit = await caches.match(key, { cacheName: SHELL_CACHE });
    if (hit) return fromCache(hit);
    throw err;
  }
}

async function cacheFirst(event: FetchEvent, key: string): Promise<Response> {
  const hit = await caches.match(key, { cacheName: SHELL_CACHE });
  if (hit) return fromCache(hit);
  const res = await fetch(event.request);
  event.waitUntil(store(key, res.clone()).catch(() => undefined));
  return res;
}

self.addEventListener('fetch', (event) => {
  const key = shellKey(event.request);
  if (key === null) return;
  const hashed = new URL(key).pathname.startsWith(`${scope.pathname}assets/`);
  event.respondWith(hashed ? cacheFirst(event, key) : networkFirst(event, key));
});

/** Fetches and caches the given same-origin shell URLs that are not cached yet; returns how many are cached. */
async function cacheShell(urls: readonly string[]): Promise<number> {
  const cache = await caches.open(SHELL_CACHE);
  let cached = 0;
  await Promise.all(
    [...new Set(urls)].map(async (raw) => {
      const key = shellKey(new Request(new URL(raw, scope)));
      if (key === null) return;
      if (!(await cache.match(key))) {
        try {
          // Ask as a <link rel=stylesheet> would: Vite's dev server answers a bare .css request with a JS module.
          const css = new URL(key).pathname.endsWith('.css');
          const res = await fetch(key, { cache: 'no-cache', ...(css ? { headers: { Accept: 'text/css,*/*;q=0.1' } } : {}) });
          if (!res.ok) return;
          await cache.put(key, res);
        } catch {
          return;
        }
      }
      cached++;
    }),
  );
  return cached;
}

/** Drops hashed assets of earlier builds (those the current build's shell list does not name). */
async function pruneAssets(current: readonly string[]): Promise<void> {
  const keep = new Set(current);
  const cache = await caches.open(SHELL_CACHE);
  const assets = `${scope.pathname}assets/`;
  for (const request of await cache.keys()) {
    if (new URL(request.url).pathname.startsWith(assets) && !keep.has(request.url)) await cache.delete(request);
  }
}

/** A build's shell list (shell.json next to index.html, written by vite.config.ts); null in dev. */
async function buildShell(): Promise<{ precache: string[]; current: string[] } | null> {
  const urls = (list: unknown) =>
    Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string').map((p) => new URL(p, scope).href) : [];
  try {
    const res = await fetch(new URL('shell.json', scope), { cache: 'no-cache' });
    if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return null;
    const body = (await res.json()) as { precache?: unknown; current?: unknown };
    return { precache: urls(body.precache), current: urls(body.current) };
  } catch {
    return null;
  }
}

self.addEventListener('message', (event) => {
  const data = event.data as { type?: unknown; urls?: unknown } | null;
  if (data?.type !== CACHE_SHELL_MESSAGE) return;
  const urls = Array.isArray(data.urls) ? data.urls.filter((x): x is string => typeof x === 'string') : [];
  const port = event.ports[0];
  event.waitUntil(
    (async () => {
      const build = await buildShell();
      const cached = await cacheShell([...urls, ...(build?.precache ?? [])]);
      if (build) await pruneAssets(build.current);
      port?.postMessage({ cached });
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((names) =>
      Promise.all(names.filter((n) => n.startsWith('localscribe-demo-shell') && n !== SHELL_CACHE).map((n) => caches.delete(n))),
    ),
  );
});
