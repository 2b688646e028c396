/**
 * The demo's /v1 service: registers demo/sw.ts (the library's service worker plus the app-shell cache),
 * provisions this browser's API key, and gives the rest of the demo an authorised fetch.
 *
 * The key is kept in localStorage: provisionApiKey({ key }) with the same key is idempotent, so a
 * reload (or a cleared IndexedDB) re-registers it instead of piling up new keys.
 */
import { ApiError, provisionApiKey, registerLocalApi, type LocalApi } from '../src/index';
import type { TranscriptionHost } from '../src/register';

const KEY_STORAGE = 'localscribe-demo:api-key';

/** vite.config.ts serves demo/sw.ts here in dev and emits it here in a build. */
export const SW_URL = '/sw.js';

export interface DemoApi {
  api: LocalApi;
  key: string;
  authorization: string;
}

let started: Promise<DemoApi> | null = null;

export function startLocalApi(transcriber: TranscriptionHost): Promise<DemoApi> {
  started ??= (async () => {
    const api = await registerLocalApi({ transcriber, scriptUrl: new URL(SW_URL, location.href).href });
    let key = localStorage.getItem(KEY_STORAGE);
    if (!key) {
      key = `lsk_demo_${crypto.randomUUID().replace(/-/g, '')}`;
      localStorage.setItem(KEY_STORAGE, key);
    }
    await provisionApiKey({ key, label: 'demo page' });
    return { api, key, authorization: `ApiKey ${key}` };
  })();
  return started;
}

/** The started service (main.ts starts it once, with the page's transcriber). */
export function localApi(): Promise<DemoApi> {
  if (!started) return Promise.reject(new Error('the /v1 service has not been started'));
  return started;
}

/** fetch() against the /v1 service with this page's key; throws ApiError for non-2xx answers. */
export async function apiJson<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const { authorization } = await localApi();
  const headers = new Headers({ Authorization: authorization });
  let body: string | undefined;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) throw errorFromBody(res.status, parsed, text);
  return parsed as T;
}

/** An ApiError from either error shape of the service: problem+json (detail) or custom-model JSON (message). */
export function errorFromBody(status: number, body: unknown, text: string): ApiError {
  const b = (body ?? {}) as { code?: unknown; detail?: unknown; message?: unknown };
  const code = typeof b.code === 'string' ? (b.code as ApiError['code']) : undefined;
  const detail = typeof b.detail === 'string' ? b.detail : typeof b.message === 'string' ? b.message : text.slice(0, 300) || `HTTP ${status}`;
  return new ApiError(status, code, detail);
}

/** A readable one-line message for anything thrown. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.status}${err.code ? ` ${err.code}` : ''}: ${err.detail}`;
  if (err instanceof DOMException && err.name === 'AbortError') return 'Cancelled.';
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
