import { AUTH, CLIP, call, expect, openApp, resetOrigin, test, type ApiReply } from './helpers';

const URL_ = '/v1/speech-to-text/prerecorded';

function expectProblem(res: ApiReply, status: number, code: string | undefined): void {
  expect(res.status, res.text).toBe(status);
  expect(res.contentType).toBe('application/problem+json');
  const body = res.json as Record<string, unknown>;
  const keys = ['type', 'title', 'status', 'detail', ...(code ? ['code'] : [])];
  expect(Object.keys(body)).toEqual(keys);
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe('string');
  if (code) expect(body.code).toBe(code);
}

test.describe('without the engine', () => {
  // Every parameter of spec 4.3 with a value it must refuse; the detail names the parameter.
  const invalid: [string, string][] = [
    ['encoding', 'encoding=wav'],
    ['sample_rate', 'sample_rate=abc'],
    ['sample_rate', 'sample_rate=16000.5'],
    ['channels', 'channels=0'],
    ['channels', 'channels=11'],
    ['language', 'language=xx'],
    ['language', 'language=en,fy'],
    ['phrases', `phrases=${Array.from({ length: 251 }, (_, i) => `p${i}`).join(',')}`],
    ['phrases', 'phrases=a,,b'],
    ['custom_model_id', 'custom_model_id='],
    ['bias_strength', 'bias_strength=-0.1'],
    ['bias_strength', 'bias_strength=strong'],
    ['include_timestamps', 'include_timestamps=yes'],
    ['include_words', 'include_words=1'],
    ['include_language', 'include_language=TRUE'],
    ['include_confidence', 'include_confidence='],
    ['diarize', 'diarize=maybe'],
    ['max_speakers', 'max_speakers=0'],
    ['max_speakers', 'max_speakers=5'],
    ['patterns', 'patterns=[a-z]{3}'],
    ['filler_mode', 'filler_mode=loud'],
  ];
  for (const [name, query] of invalid) {
    test(`400 invalid_query_parameter: ${query.slice(0, 40)}`, async ({ app }) => {
      const res = await call(app, `${URL_}?${query}`, { headers: AUTH, bodyFrom: CLIP });
      expectProblem(res, 400, 'invalid_query_parameter');
      expect((res.json as { detail: string }).detail).toContain(name);
    });
  }

  test('400 session_rejected: patterns with phrases, patterns with a custom model, unknown custom model', async ({ app }) => {
    const created = await call(app, '/v1/custom-model', { headers: AUTH, json: { name: 'm', description: 'd', phrases: ['x'] } });
    const id = (created.json as { id: string }).id;
    for (const query of [
      'patterns=[A-Z]{3}&phrases=alpha',
      `patterns=[A-Z]{3}&custom_model_id=${id}`,
      'custom_model_id=00000000-0000-4000-8000-000000000000',
    ]) {
      const res = await call(app, `${URL_}?${query}`, { headers: AUTH, bodyFrom: CLIP });
      expectProblem(res, 400, 'session_rejected');
    }
  });

  test('400 invalid_audio for an empty body', async ({ app }) => {
    expectProblem(await call(app, URL_, { method: 'POST', headers: AUTH }), 400, 'invalid_audio');
  });

  test('413 without a code, by Content-Length, and no state changes', async ({ app }) => {
    await app.evaluate(() => window.e2e.setLimits({ maxBodyBytes: 1000 }));
    const res = await call(app, URL_, { headers: AUTH, body: 'x'.repeat(1001) });
    expectProblem(res, 413, undefined);
    expect(await app.evaluate(() => window.e2e.getUsage())).toEqual({ usedSeconds: 0 });
  });

  test('413 while reading a streamed body that has no Content-Length', async ({ app }) => {
    await app.evaluate(() => window.e2e.setLimits({ maxBodyBytes: 1000 }));
    const res = await app.evaluate(async (url) => {
      const chunk = new Uint8Array(600);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 4) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const r = await fetch(url, {
        method: 'POST',
        headers: { Authorization: 'ApiKey e2e-test-key-0123456789abcdef' },
        body,
        duplex: 'half',
      } as RequestInit);
      return { status: r.status, body: await r.json() };
    }, URL_);
    expect(res.status).toBe(413);
    expect(res.body).not.toHaveProperty('code');
  });

  test('402 session_rejected when the credit is used up, before any work', async ({ app }) => {
    await app.evaluate(() => window.e2e.setLimits({ creditSeconds: 0 }));
    const before = await app.evaluate(() => window.e2e.jobsStarted); // the page is shared with earlier tests
    expectProblem(await call(app, URL_, { headers: AUTH, bodyFrom: CLIP }), 402, 'session_rejected');
    expect(await app.evaluate(() => window.e2e.jobsStarted)).toBe(before);
  });

  test('503 quickly when no page hosts the engine', async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openApp(page, '?engine=0');
    await resetOrigin(page);
    const started = Date.now();
    const res = await call(page, URL_, { headers: AUTH, bodyFrom: CLIP });
    expectProblem(res, 503, 'internal_server_error');
    expect((res.json as { detail: string }).detail).toMatch(/no page hosting the transcription engine/);
    expect(Date.now() - started).toBeLessThan(3000);
    await context.close();
  });
});

test.describe('with whisper-tiny', () => {
  test('200: no flags gives only text (rule 1), and both doors give byte-identical JSON', async ({ app }) => {
    const res = await call(app, URL_, { headers: AUTH, bodyFrom: CLIP });
    expect(res.status, res.text).toBe(200);
    expect(res.contentType).toContain('application/json');
    const body = res.json as { text: string };
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text.toLowerCase()).toMatch(/ten|10/);
    expect(body.text.toLowerCase()).toContain('club');
    const js = await app.evaluate((clip) => window.e2e.transcribeJs(clip, ''), CLIP);
    expect(res.text).toBe(js);
  });
});

test.describe('with whisper-tiny, all flags', () => {
  test('200 with every parameter set; diarize gives segments with per-segment fields (rules 2 and 3)', async ({ app }) => {
    const query = new URLSearchParams({
      encoding: 'auto',
      sample_rate: '16000',
      channels: '1',
      language: 'en',
      phrases: 'ten of clubs,clubs',
      bias_strength: '0.5',
      include_timestamps: 'true',
      include_words: 'true',
      include_language: 'true',
      include_confidence: 'true',
      diarize: 'true',
      max_speakers: '2',
      filler_mode: 'clean',
    }).toString();
    const res = await call(app, `${URL_}?${query}`, { headers: AUTH, bodyFrom: CLIP });
    expect(res.status, res.text).toBe(200);
    const body = res.json as { segments: Record<string, unknown>[] } & Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['duration_ms', 'segments', 'start_ms', 'text']);
    expect(body.segments.length).toBeGreaterThan(0);
    for (const seg of body.segments) {
      expect(Object.keys(seg).sort()).toEqual(['duration_ms', 'language', 'speaker_id', 'start_ms', 'text', 'words']);
      for (const w of seg.words as Record<string, number>[]) {
        expect(w.confidence).toBeGreaterThan(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
      }
    }
    const js = await app.evaluate(([clip, q]) => window.e2e.transcribeJs(clip, q), [CLIP, query] as const);
    expect(res.text).toBe(js);
  });

  test('200 with a custom model (diarized: rule 2), and with patterns on raw pcm_s16le', async ({ app }) => {
    const created = await call(app, '/v1/custom-model', {
      headers: AUTH,
      json: { name: 'cards', description: 'playing cards', phrases: ['ten of clubs', 'queen of clubs'] },
    });
    const id = (created.json as { id: string }).id;
    const diarized = await call(app, `${URL_}?custom_model_id=${id}&diarize=true`, { headers: AUTH, bodyFrom: CLIP });
    expect(diarized.status, diarized.text).toBe(200);
    const body = diarized.json as { text: string; segments: object[] };
    expect(Object.keys(body)).toEqual(['text', 'segments']);
    for (const seg of body.segments) expect(Object.keys(seg).sort()).toEqual(['speaker_id', 'text']);
    const raw = await call(app, `${URL_}?encoding=pcm_s16le&sample_rate=16000&patterns=[A-Z]{2}[0-9]{3}`, {
      headers: AUTH,
      bodyFrom: CLIP,
    });
    expect(raw.status, raw.text).toBe(200);
    expect(Object.keys(raw.json as object)).toEqual(['text']);
  });

  test('400 invalid_audio for bytes that are not audio', async ({ app }) => {
    const res = await call(app, URL_, { headers: AUTH, body: 'this is plainly not an audio file '.repeat(20) });
    expectProblem(res, 400, 'invalid_audio');
  });

  test('a restarted service worker finds the host page again (it forgot it when stopped)', async ({ app }) => {
    const cdp = await app.context().newCDPSession(app);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    const res = await call(app, URL_, { headers: AUTH, body: 'still not audio '.repeat(20) });
    // invalid_audio comes from the engine page, so the job reached it (no host would give 503).
    expectProblem(res, 400, 'invalid_audio');
    await cdp.detach();
  });

  test('credit: debited by the audio duration after success, then 402 for audio longer than what is left; the rejection debits nothing', async ({ app }) => {
    await app.evaluate(() => window.e2e.setLimits({ creditSeconds: 2 }));
    expect((await call(app, URL_, { headers: AUTH, bodyFrom: CLIP })).status).toBe(200);
    const used = (await app.evaluate(() => window.e2e.getUsage())).usedSeconds;
    expect(used).toBeGreaterThan(1.0);
    expect(used).toBeLessThan(1.2); // the clip is 1.095 s
    const refused = await call(app, URL_, { headers: AUTH, bodyFrom: CLIP });
    expectProblem(refused, 402, 'session_rejected');
    expect((refused.json as { detail: string }).detail).toMatch(/lasts 1\.1 s, and 0\.9 of 2 audio seconds are left/);
    expect((await app.evaluate(() => window.e2e.getUsage())).usedSeconds).toBe(used);
  });

  test('429 session_rejected over the concurrency limit', async ({ app }) => {
    await app.evaluate(() => window.e2e.setLimits({ maxConcurrent: 1 }));
    const statuses = await app.evaluate(
      async ([url, clip]) => {
        const bytes = await (await fetch(clip)).arrayBuffer();
        const send = () =>
          fetch(url, { method: 'POST', headers: { Authorization: 'ApiKey e2e-test-key-0123456789abcdef' }, body: bytes.slice(0) }).then(
            async (r) => ({ status: r.status, body: await r.json() }),
          );
        return Promise.all([send(), send()]);
      },
      [URL_, CLIP] as const,
    );
    const sorted = statuses.sort((a, b) => a.status - b.status);
    expect(sorted.map((s) => s.status)).toEqual([200, 429]);
    expect(sorted[1]!.body).toMatchObject({ status: 429, code: 'session_rejected' });
  });

  test('500 internal_server_error when the engine crashes mid-request', async ({ app }) => {
    const before = await app.evaluate(() => window.e2e.jobsStarted);
    const pending = call(app, URL_, { headers: AUTH, bodyFrom: '/__eval/en/jfk.flac' });
    await expect.poll(() => app.evaluate(() => window.e2e.jobsStarted)).toBeGreaterThan(before);
    await app.evaluate(() => window.e2e.crashEngine());
    expectProblem(await pending, 500, 'internal_server_error');
    // The engine restarts on the next call.
    expect((await call(app, URL_, { headers: AUTH, bodyFrom: CLIP })).status).toBe(200);
  });
});

test.describe('pages going away', () => {
  test('a host page that reloads mid-request fails that request fast and does not wedge later ones', async ({ context }) => {
    const host = await context.newPage();
    await openApp(host);
    await resetOrigin(host);
    await host.evaluate(() => window.e2e.setLimits({ maxConcurrent: 1 }));
    const client = await context.newPage();
    await openApp(client, '?engine=0');
    const pending = call(client, URL_, { headers: AUTH, bodyFrom: '/__eval/en/jfk.flac' });
    await expect.poll(() => host.evaluate(() => window.e2e.jobsStarted)).toBe(1);
    const started = Date.now();
    await host.reload();
    const res = await pending;
    expectProblem(res, 503, 'internal_server_error');
    expect((res.json as { detail: string }).detail).toMatch(/closed or reloaded/);
    expect(Date.now() - started).toBeLessThan(5000);
    await openApp(host);
    expect((await call(client, URL_, { headers: AUTH, bodyFrom: CLIP })).status).toBe(200);
  });

  test('a page that reloads while its own request runs does not leave the slot taken', async ({ page }) => {
    await openApp(page);
    await resetOrigin(page);
    await page.evaluate(() => window.e2e.setLimits({ maxConcurrent: 1 }));
    void call(page, URL_, { headers: AUTH, bodyFrom: '/__eval/en/jfk.flac' }).catch(() => undefined);
    await expect.poll(() => page.evaluate(() => window.e2e.jobsStarted)).toBe(1);
    await page.reload();
    await openApp(page);
    await page.waitForTimeout(1500);
    const res = await call(page, URL_, { headers: AUTH, bodyFrom: CLIP });
    expect(res.status, res.text).toBe(200);
  });
});
