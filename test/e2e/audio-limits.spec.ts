import { AUTH, CLIP, call, expect, openApp, resetOrigin, test } from './helpers';

const URL_ = '/v1/speech-to-text/prerecorded';

/** POSTs CLIP (16 kHz WAV, 1.1 s) from inside the page, its RIFF and data sizes first set to `sizes`. */
async function postClip(page: import('@playwright/test').Page, sizes?: { riff: number; data: number }) {
  return page.evaluate(
    async ({ url, clip, sizes }) => {
      const bytes = new Uint8Array(await (await fetch(clip)).arrayBuffer());
      if (sizes) {
        const v = new DataView(bytes.buffer);
        v.setUint32(4, sizes.riff, true);
        v.setUint32(40, sizes.data, true); // this clip's data chunk header is at 36
      }
      const res = await fetch(url, {
        method: 'POST',
        headers: { Authorization: 'ApiKey e2e-test-key-0123456789abcdef', 'Content-Type': 'application/octet-stream' },
        body: bytes,
      });
      return { status: res.status, body: await res.json() };
    },
    { url: URL_, clip: CLIP, sizes },
  );
}

test('a streamed WAV (placeholder RIFF and data sizes) transcribes through /v1 like the original', async ({ app }) => {
  const original = await postClip(app);
  const streamed = await postClip(app, { riff: 0xffffffff, data: 0x7fff0000 });
  expect(original.status, JSON.stringify(original.body)).toBe(200);
  expect(streamed.status, JSON.stringify(streamed.body)).toBe(200);
  expect(streamed.body).toEqual(original.body);
  expect((streamed.body as { text: string }).text.toLowerCase()).toContain('clubs');
});

test('maxAudioSeconds from the registration options: 413 without a code, naming the limit and the length', async ({ page }) => {
  await openApp(page, '?maxAudioSeconds=0.5');
  await resetOrigin(page);
  const res = await call(page, URL_, { headers: AUTH, bodyFrom: CLIP });
  expect(res.status, res.text).toBe(413);
  expect(res.contentType).toBe('application/problem+json');
  const body = res.json as { detail: string };
  expect(body).not.toHaveProperty('code');
  expect(body.detail).toMatch(/1\.1 s .*limit of 0\.5 s/);
  // Nothing was transcribed, so nothing was debited.
  expect(await page.evaluate(() => window.e2e.getUsage())).toEqual({ usedSeconds: 0 });
  // A body within the limit still transcribes (0.25 s of raw silence).
  const short = await page.evaluate(async (url) => {
    const res = await fetch(`${url}?encoding=pcm_s16le&sample_rate=16000`, {
      method: 'POST',
      headers: { Authorization: 'ApiKey e2e-test-key-0123456789abcdef' },
      body: new Uint8Array(8000),
    });
    return res.status;
  }, URL_);
  expect(short).toBe(200);
});
