/**
 * Measures whether a /v1 answer that streams survives Chromium's 5-minute cap on a service worker's
 * fetch event (scripts/measure-sw-lifetime.sh opens this page in a Chromium with no DevTools attached:
 * DevTools keeps service workers alive, so Playwright cannot measure this).
 *
 * The page hosts a stand-in engine that works for `?minutes=` (default 7) and reports progress every
 * 10 s like the real one, so the measurement is of the browser and the /v1 plumbing, not of a model.
 * Results go to the console (Chromium's --enable-logging=stderr prints them), prefixed LIFETIME.
 */
import { provisionApiKey, registerLocalApi, setLimits, type TranscriptionHost } from '../../../src/register';
import { KEEPALIVE } from '../../../src/sw/protocol';

const query = new URLSearchParams(location.search);
const minutes = Number(query.get('minutes') ?? 7);
// `?keepalive=0`: drop the host's keepalive pings, to see whether the open response stream alone keeps
// the worker alive (a measurement control; the library always pings).
if (query.get('keepalive') === '0') {
  const post = ServiceWorker.prototype.postMessage;
  ServiceWorker.prototype.postMessage = function (this: ServiceWorker, message: unknown, ...rest: never[]) {
    if ((message as { type?: unknown } | null)?.type === KEEPALIVE) return;
    return post.call(this, message, ...rest);
  } as typeof post;
}
const log = (line: string) => console.log(`LIFETIME ${line.replaceAll('"', "'").replace(/\s+/g, ' ')}`); // one line, no quotes: the log line is quoted

const standIn: TranscriptionHost = {
  async transcribe(_input, _params, options) {
    const totalMs = minutes * 60_000;
    for (let done = 0; done < totalMs; done += 10_000) {
      options?.onProgress?.({ stage: 'transcribe', processedMs: done, totalMs });
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      options?.signal?.throwIfAborted();
    }
    return { text: `worked ${minutes} minutes`, duration_ms: totalMs };
  },
};

async function main(): Promise<void> {
  const api = await registerLocalApi({ transcriber: standIn });
  const { key } = await provisionApiKey({ label: 'lifetime' });
  await setLimits({ streamAfterMs: 1000 });
  log(`controlled=${api.controlled} keepalive=${query.get('keepalive') !== '0'} job of ${minutes} min starts`);
  const t0 = performance.now();
  const s = () => ((performance.now() - t0) / 1000).toFixed(1);
  const res = await fetch('/v1/speech-to-text/prerecorded', {
    method: 'POST',
    headers: { Authorization: `ApiKey ${key}` },
    body: new Uint8Array(3200),
  });
  log(`headers status=${res.status} after ${s()} s`);
  try {
    const text = await res.text();
    log(`body after ${s()} s: ${text}`);
  } catch (err) {
    log(`body error after ${s()} s: ${String(err)}`);
  }
}
main().catch((err: unknown) => log(`failed: ${String(err)}`));
