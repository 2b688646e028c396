/**
 * Page side of the /v1 service: registers the service worker and, when given a transcriber, serves the
 * transcription requests the service worker hands over (see src/sw/bridge.ts for the other side).
 *
 * Also re-exports what an app needs to run the service: API-key provisioning (a fresh origin has no
 * keys, so every /v1 request is 401 until the app provisions one) and limits.
 */
import { toApiError } from './api/problem';
import { checkMaxAudioSeconds } from './audio/limit';
import type { ProgressEvent } from '../engine/protocol';
import { normalizeBasePath } from './sw/router';
import {
  HOST,
  KEEPALIVE,
  KEEPALIVE_MS,
  PROBE,
  TRANSCRIBE,
  UNHOST,
  type JobControl,
  type JobReply,
  type ProbeReply,
  type TranscribeJob,
} from './sw/protocol';

export { listApiKeys, provisionApiKey, revokeApiKey, type ApiKeyInfo, type ProvisionedApiKey } from './store/api-keys';
export { DEFAULT_LIMITS, getLimits, resetLimits, setLimits, type Limits } from './store/limits';
export { getUsage, resetUsage, type Usage } from './store/usage';

/** What the bridge needs from a Transcriber (src/transcriber.ts satisfies it). */
export interface TranscriptionHost {
  transcribe(
    input: ArrayBuffer,
    params: URLSearchParams,
    options?: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void; maxAudioSeconds?: number },
  ): Promise<unknown>;
}

export interface RegisterLocalApiOptions {
  /** The engine this page hosts for /v1 transcription. Omit on pages that only register the worker. */
  transcriber?: TranscriptionHost;
  /** URL of the built service worker (src/sw/service-worker.ts). Default '/sw.js'. */
  scriptUrl?: string;
  /** Registration scope; must cover `<basePath>/v1/`. Default '/'. */
  scope?: string;
  /** Path the API lives under, before /v1: '' (default) serves `/v1/...`, '/api' serves `/api/v1/...`. */
  basePath?: string;
  /** How long to wait for this page to come under the worker's control. Default 10 s. */
  controlTimeoutMs?: number;
  /**
   * Longest audio /v1 accepts, in seconds (longer is 413); default: the transcriber's own
   * `maxAudioSeconds` (4 hours unless configured).
   */
  maxAudioSeconds?: number;
}

export interface LocalApi {
  registration: ServiceWorkerRegistration;
  /** Absolute URL of the API root, e.g. `https://app.example/v1`. */
  baseUrl: string;
  /** Whether this page's own fetches go through the service worker. */
  controlled: boolean;
  /** Stops serving transcriptions from this page; the service worker stays registered. */
  stop(): void;
}

export async function registerLocalApi(options: RegisterLocalApiOptions = {}): Promise<LocalApi> {
  if (!('serviceWorker' in navigator)) throw new Error('service workers are not available in this context');
  const basePath = normalizeBasePath(options.basePath);
  const script = new URL(options.scriptUrl ?? '/sw.js', location.href);
  if (basePath !== '') script.searchParams.set('base', basePath);
  const container = navigator.serviceWorker;

  const hosted = options.transcriber && withAudioLimit(options.transcriber, options.maxAudioSeconds);
  const stopHosting = hosted ? host(container, hosted) : () => undefined;
  const registration = await container.register(script.href, { scope: options.scope ?? '/', type: 'module' });
  await container.ready;
  const controlled = await waitForControl(container, options.controlTimeoutMs ?? 10_000);
  return {
    registration,
    baseUrl: new URL(`${basePath}/v1`, location.origin).href,
    controlled,
    stop: stopHosting,
  };
}

/** The transcriber, with /v1's own limit on the audio's length when one is configured. */
function withAudioLimit(transcriber: TranscriptionHost, maxAudioSeconds: number | undefined): TranscriptionHost {
  if (maxAudioSeconds === undefined) return transcriber;
  const limit = checkMaxAudioSeconds(maxAudioSeconds);
  return { transcribe: (input, params, options) => transcriber.transcribe(input, params, { ...options, maxAudioSeconds: limit }) };
}

function waitForControl(container: ServiceWorkerContainer, timeoutMs: number): Promise<boolean> {
  if (container.controller) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      container.removeEventListener('controllerchange', done);
      resolve(container.controller !== null);
    };
    const timer = setTimeout(done, timeoutMs);
    container.addEventListener('controllerchange', done);
  });
}

/** Serves jobs from the service worker with `transcriber`; returns a function that stops serving. */
function host(container: ServiceWorkerContainer, transcriber: TranscriptionHost): () => void {
  let active = true;
  const announce = (type: typeof HOST | typeof UNHOST) => {
    void container.ready.then((reg) => reg.active?.postMessage({ type }));
    container.controller?.postMessage({ type });
  };
  const onMessage = (event: MessageEvent) => {
    const data = event.data as { type?: unknown } | null;
    const port = event.ports[0];
    if (!active || !port) return;
    if (data?.type === PROBE) port.postMessage({ type: 'host' } satisfies ProbeReply);
    else if (data?.type === TRANSCRIBE) void keepAlive(container, serveJob(transcriber, data as TranscribeJob, port));
  };
  const onControllerChange = () => announce(HOST);
  const onPageHide = () => announce(UNHOST);
  const onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted) announce(HOST);
  };
  container.addEventListener('message', onMessage);
  container.addEventListener('controllerchange', onControllerChange);
  addEventListener('pagehide', onPageHide);
  addEventListener('pageshow', onPageShow);
  container.startMessages();
  announce(HOST);
  return () => {
    if (!active) return;
    active = false;
    announce(UNHOST);
    container.removeEventListener('message', onMessage);
    container.removeEventListener('controllerchange', onControllerChange);
    removeEventListener('pagehide', onPageHide);
    removeEventListener('pageshow', onPageShow);
  };
}

/**
 * Pings the service worker every KEEPALIVE_MS until `job` settles. A worker whose response streams a long
 * job has no event in flight; each message event restarts its idle timer, so it is not stopped while
 * the engine works (whether an open response stream alone keeps it alive varies between browsers).
 */
async function keepAlive(container: ServiceWorkerContainer, job: Promise<void>): Promise<void> {
  const ping = () => void container.ready.then((reg) => reg.active?.postMessage({ type: KEEPALIVE }));
  const timer = setInterval(ping, KEEPALIVE_MS);
  try {
    await job;
  } finally {
    clearInterval(timer);
  }
}

async function serveJob(transcriber: TranscriptionHost, job: TranscribeJob, port: MessagePort): Promise<void> {
  const reply = (message: JobReply) => port.postMessage(message);
  const controller = new AbortController();
  let received: (body: ArrayBuffer) => void = () => undefined;
  const body = new Promise<ArrayBuffer>((resolve) => (received = resolve));
  port.onmessage = (event: MessageEvent<JobControl>) => {
    if (event.data?.type === 'body') received(event.data.body);
    else if (event.data?.type === 'ping') reply({ type: 'alive' });
    else if (event.data?.type === 'cancel') controller.abort(new DOMException('the HTTP client went away', 'AbortError'));
  };
  reply({ type: 'accepted' });
  let audioMs = 0;
  try {
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    const input = await Promise.race([body, aborted]);
    const transcript = await transcriber.transcribe(input, new URLSearchParams(job.query), {
      signal: controller.signal,
      onProgress: (event) => {
        if (event.stage !== 'transcribe') return;
        audioMs = Math.max(audioMs, event.totalMs);
        reply({ type: 'progress' }); // the job is running: the worker's stall deadline restarts
      },
    });
    const durationMs = (transcript as { duration_ms?: unknown }).duration_ms;
    if (audioMs === 0 && typeof durationMs === 'number') audioMs = durationMs;
    reply({ type: 'result', json: JSON.stringify(transcript), audioSeconds: audioMs / 1000 });
  } catch (err) {
    const e = toApiError(err);
    reply({ type: 'error', status: e.status, code: e.code, detail: e.detail });
  } finally {
    port.close();
  }
}
