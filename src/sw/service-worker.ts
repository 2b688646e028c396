/// <reference lib="webworker" />
/**
 * The service worker that serves the /v1 API on the page's own origin.
 *
 * Register it with registerLocalApi() (src/register.ts) as a module worker whose scope covers
 * `<basePath>/v1/`; the base path travels in the script URL (`sw.js?base=/api`). Requests outside
 * `<basePath>/v1` are not touched (no respondWith). Custom models, auth and limits are answered here;
 * transcription is handed to a page hosting the engine (bridge.ts), since a service worker cannot
 * start workers, decode audio or import().
 */
import { ApiError } from '../api/errors';
import { EngineBridge } from './bridge';
import { InFlight } from './concurrency';
import { errorResponse } from './error-responses';
import type { Handler } from './handlers/context';
import {
  addModelPhrases,
  createModel,
  deleteModelPhrases,
  getModel,
  listModelPhrases,
  listModels,
} from './handlers/custom-models';
import { issueAccessToken } from './handlers/token';
import { transcribe } from './handlers/transcription';
import { HOST, UNHOST } from './protocol';
import { apiPath, matchRoute, normalizeBasePath, type Route } from './router';

declare const self: ServiceWorkerGlobalScope;

const ROUTES: readonly Route<Handler>[] = [
  { pattern: /^\/v1\/speech-to-text\/prerecorded$/, family: 'transcription', methods: { POST: transcribe } },
  { pattern: /^\/v1\/custom-model$/, family: 'custom-model', methods: { GET: listModels, POST: createModel } },
  { pattern: /^\/v1\/custom-model\/([^/]+)$/, family: 'custom-model', methods: { GET: getModel } },
  {
    pattern: /^\/v1\/custom-model\/([^/]+)\/phrases$/,
    family: 'custom-model',
    methods: { GET: listModelPhrases, POST: addModelPhrases },
  },
  { pattern: /^\/v1\/custom-model\/([^/]+)\/phrases\/delete$/, family: 'custom-model', methods: { POST: deleteModelPhrases } },
  { pattern: /^\/v1\/auth\/token$/, family: 'auth', methods: { POST: issueAccessToken } },
];

const basePath = normalizeBasePath(new URL(self.location.href).searchParams.get('base'));
const bridge = new EngineBridge(self.clients);
const inFlight = new InFlight();

self.addEventListener('install', () => {
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('message', (event) => {
  const source = event.source as Client | null;
  const type = (event.data as { type?: unknown } | null)?.type;
  if (!source || typeof source.id !== 'string') return;
  if (type === HOST) bridge.addHost(source.id);
  else if (type === UNHOST) bridge.removeHost(source.id);
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  const path = apiPath(url, self.location.origin, basePath);
  if (path === null) return;
  event.respondWith(handle(event.request, url, path));
});

async function handle(request: Request, url: URL, path: string): Promise<Response> {
  const route = matchRoute(ROUTES, request.method, path);
  if (route.kind === 'not-found') {
    const code = route.family === 'transcription' ? undefined : 'NOT_FOUND';
    return errorResponse(route.family, new ApiError(404, code, `no endpoint at ${path}`));
  }
  if (route.kind === 'method-not-allowed') {
    const code = route.family === 'transcription' ? undefined : 'INVALID_REQUEST';
    const detail = `${request.method} is not allowed on ${path}; allowed: ${route.allow.join(', ')}`;
    return errorResponse(route.family, new ApiError(405, code, detail), { Allow: route.allow.join(', ') });
  }
  try {
    return await route.handler({ request, url, params: route.params, bridge, inFlight });
  } catch (err) {
    return errorResponse(route.family, err);
  }
}
