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
    expectProblem(await call(app, URL_, { headers: AUTH, bodyFrom: CLIP }), 402, 'session_rejected');
    expect(await app.evaluate(() => window.e2e.jobsStarted)).toBe(0);
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
