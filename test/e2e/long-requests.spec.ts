/**
 * /v1 transcriptions that outlast the wait for the response headers (`streamAfterMs`, made short here
 * instead of transcribing for minutes): a 200 whose body streams the transcript, an engine failure after
 * the headers as a body error, and client aborts that cancel the engine job and debit nothing.
 */
import type { Page } from '@playwright/test';
import { AUTH, CLIP, call, expect, test } from './helpers';

const URL_ = '/v1/speech-to-text/prerecorded';
const SPEECH_30S = '/__eval/diar/pyannote_sample.wav'; // 30 s, 16 kHz mono 16-bit
const RAW = 'encoding=pcm_s16le&sample_rate=16000&channels=1';

interface Timed {
  status: number;
  headersMs: number;
  /** The body text, or the error reading it threw. */
  text?: string;
  bodyError?: string;
  bodyMs: number;
}

/** fetch() in the page, timing the headers and the body apart. */
function timedCall(page: Page, query: string, audioUrl: string): Promise<Timed> {
  return page.evaluate(
    async ({ url, auth, audioUrl }) => {
      const body = await (await fetch(audioUrl)).arrayBuffer();
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers: auth, body });
      const headersMs = performance.now() - t0;
      try {
        const text = await res.text();
        return { status: res.status, headersMs, text, bodyMs: performance.now() - t0 };
      } catch (err) {
        return { status: res.status, headersMs, bodyError: String(err), bodyMs: performance.now() - t0 };
      }
    },
    { url: `${URL_}?${query}`, auth: AUTH, audioUrl },
  );
}

test('a job still running after streamAfterMs is a 200 whose body is exactly the JS API transcript', async ({ app }) => {
  await app.evaluate(() => window.e2e.setLimits({ streamAfterMs: 1 }));
  const res = await timedCall(app, 'include_words=true', '/__eval/en/jfk.flac');
  expect(res.status).toBe(200);
  // The headers came before the transcript was done.
  expect(res.bodyMs - res.headersMs).toBeGreaterThan(200);
  expect(res.text).toBe(await app.evaluate(() => window.e2e.transcribeJs('/__eval/en/jfk.flac', 'include_words=true')));
});

test('an engine failure after the headers errors the body, debits nothing, and the next request works', async ({ app }) => {
  await app.evaluate(() => window.e2e.setLimits({ streamAfterMs: 1, creditSeconds: 1000 }));
  const before = await app.evaluate(() => window.e2e.jobsStarted);
  const pending = timedCall(app, '', '/__eval/en/jfk.flac');
  await expect.poll(() => app.evaluate(() => window.e2e.jobsStarted)).toBeGreaterThan(before);
  await app.evaluate(() => window.e2e.crashEngine());
  const res = await pending;
  expect(res.status).toBe(200);
  expect(res.text, 'the body must not read as a transcript').toBeUndefined();
  expect(res.bodyError).toMatch(/TypeError/);
  await expect.poll(() => app.evaluate(async () => (await window.e2e.getUsage()).usedSeconds)).toBe(0);
  expect((await call(app, URL_, { headers: AUTH, bodyFrom: CLIP })).status).toBe(200);
});

/**
 * Starts a 4-minute raw transcription (the 30 s clip 8 times), aborts its fetch `abortAfterMs` after
 * the engine took the job, and says how the fetch ended.
 */
function abortLongJob(page: Page, abortAfterMs: number): Promise<{ error: string }> {
  return page.evaluate(
    async ({ url, auth, clip, abortAfterMs }) => {
      const wav = new Uint8Array(await (await fetch(clip)).arrayBuffer());
      // The samples follow the 'data' chunk's 8-byte header.
      const at = new TextDecoder('latin1').decode(wav.subarray(0, 4096)).indexOf('data');
      const pcm = wav.subarray(at + 8);
      const body = new Uint8Array(pcm.length * 8);
      for (let i = 0; i < 8; i++) body.set(pcm, i * pcm.length);
      const started = window.e2e.jobsStarted;
      const controller = new AbortController();
      const done = fetch(url, { method: 'POST', headers: auth, body, signal: controller.signal }).then((res) => res.text());
      while (window.e2e.jobsStarted === started) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, abortAfterMs));
      controller.abort();
      const error = await done.then(
        () => 'completed',
        (err: unknown) => String(err),
      );
      return { error };
    },
    { url: `${URL_}?${RAW}`, auth: AUTH, clip: SPEECH_30S, abortAfterMs },
  );
}

/**
 * Chromium (150, Debian) does not abort the service worker's `request.signal` when the client aborts a
 * fetch whose respondWith is still pending (measured: the page never got the cancel). The abort is seen
 * once the streamed answer starts, as a cancelled body stream. So an abort is noticed at once after the
 * headers, and at the latest `streamAfterMs` after the request before them.
 */
const CASES = [
  { name: 'after the headers', streamAfterMs: 1 },
  { name: 'before the headers (noticed when streamAfterMs passes)', streamAfterMs: 4000 },
];
for (const { name, streamAfterMs } of CASES) {
  test(`a client abort ${name} cancels the engine job and debits nothing`, async ({ app }) => {
    test.setTimeout(120_000);
    await app.evaluate((ms) => window.e2e.setLimits({ streamAfterMs: ms, creditSeconds: 10_000, maxConcurrent: 1 }), streamAfterMs);
    const aborted = await abortLongJob(app, 1000);
    expect(aborted.error).toMatch(/AbortError/);
    // The page's transcriber call is cancelled (4 minutes of audio take whisper-tiny far longer than this):
    // within streamAfterMs plus a slack for a loaded 2-core machine.
    await expect.poll(() => app.evaluate(() => window.e2e.jobsRunning), { timeout: streamAfterMs + 10_000 }).toBe(0);
    expect(await app.evaluate(() => window.e2e.lastJobError)).toMatch(/the HTTP client went away/);
    // The slot (maxConcurrent 1) is free and the engine answers the next request.
    const next = await call(app, URL_, { headers: AUTH, bodyFrom: CLIP });
    expect(next.status, next.text).toBe(200);
    // Only the short clip (1.1 s) was debited; the aborted request's hold is gone.
    const usage = await app.evaluate(() => window.e2e.getUsage());
    expect(usage.usedSeconds).toBeCloseTo(1.1, 0);
  });
}
