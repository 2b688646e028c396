/**
 * A small /v1 console: a raw fetch() with the method, path, headers and body typed in (or a file as
 * the body), answered by the service worker like any HTTP client would see it.
 */
import { statusTitle } from '../src/api/problem';
import { describeError, localApi } from './local-api';

/** The reason phrase, which a service worker's Response leaves empty unless it sets one. */
const reason = (status: number, statusText: string) =>
  statusText || ({ 200: 'OK', 201: 'Created', 204: 'No Content' } as Record<number, string>)[status] || (status >= 400 ? statusTitle(status) : '');

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** "Name: value" lines → Headers; lines without a colon are reported, not dropped silently. */
export function parseHeaderLines(text: string): Headers {
  const headers = new Headers();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`header line ${i + 1} is not "Name: value": ${line}`);
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

function pretty(text: string, contentType: string): string {
  if (!/json/.test(contentType)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function bindConsole(): void {
  const method = $<HTMLSelectElement>('con-method');
  const path = $<HTMLInputElement>('con-path');
  const headers = $<HTMLTextAreaElement>('con-headers');
  const body = $<HTMLTextAreaElement>('con-body');
  const file = $<HTMLInputElement>('con-file');
  const status = $<HTMLElement>('con-status');
  const out = $<HTMLPreElement>('con-response');
  const send = $<HTMLButtonElement>('con-send');

  void localApi().then(({ authorization }) => {
    if (!headers.value.trim()) headers.value = `Authorization: ${authorization}`;
  });

  const presets: Record<string, [string, string, string, string]> = {
    'list-models': ['GET', '/v1/custom-model', '', ''],
    'create-model': ['POST', '/v1/custom-model', 'Content-Type: application/json', '{"name": "Menu", "description": "Cafe menu items", "phrases": ["flat white", "cortado"]}'],
    transcribe: ['POST', '/v1/speech-to-text/prerecorded?include_timestamps=true', 'Content-Type: application/octet-stream', ''],
    token: ['POST', '/v1/auth/token', '', ''],
  };
  $<HTMLSelectElement>('con-preset').addEventListener('change', (e) => {
    const preset = presets[(e.target as HTMLSelectElement).value];
    if (!preset) return;
    const [m, p, h, b] = preset;
    method.value = m;
    path.value = p;
    const auth = headers.value.split('\n').find((l) => /^authorization:/i.test(l.trim()));
    headers.value = [auth, h].filter(Boolean).join('\n');
    body.value = b;
  });
  $<HTMLButtonElement>('con-clear-file').addEventListener('click', () => {
    file.value = '';
  });

  send.addEventListener('click', async () => {
    send.disabled = true;
    status.className = 'con-status';
    status.textContent = 'Sending…';
    delete status.dataset.status;
    out.textContent = '';
    const started = performance.now();
    try {
      const chosen = file.files?.[0];
      const withBody = method.value !== 'GET' && method.value !== 'HEAD';
      const init: RequestInit = { method: method.value, headers: parseHeaderLines(headers.value) };
      if (withBody) init.body = chosen ?? body.value;
      const url = new URL(path.value.trim() || '/', location.href);
      if (url.origin !== location.origin) throw new Error('the console only talks to this origin');
      const res = await fetch(url, init);
      const type = res.headers.get('content-type') ?? '';
      const text = await res.text();
      const ms = performance.now() - started;
      status.textContent = `${res.status} ${reason(res.status, res.statusText)} · ${ms.toFixed(0)} ms${type ? ` · ${type}` : ''}`;
      status.classList.add(res.ok ? 'ok' : 'bad');
      status.dataset.status = String(res.status);
      const head = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
      out.textContent = `${head}\n\n${pretty(text, type)}`;
    } catch (err) {
      status.textContent = `Request failed: ${describeError(err)}`;
      status.classList.add('bad');
      delete status.dataset.status;
    } finally {
      send.disabled = false;
    }
  });
}
