import { API_KEY, AUTH, call, expect, test, type ApiReply } from './helpers';

const TRANSCRIBE = '/v1/speech-to-text/prerecorded';

function expectCustomModel401(res: ApiReply, detail: RegExp): void {
  expect(res.status).toBe(401);
  expect(res.contentType).toContain('application/json');
  expect(res.json).toMatchObject({ code: 'UNAUTHORIZED' });
  expect((res.json as { message: string }).message).toMatch(detail);
}

function expectProblem401(res: ApiReply, detail: RegExp): void {
  expect(res.status).toBe(401);
  expect(res.contentType).toBe('application/problem+json');
  expect(res.json).toMatchObject({ status: 401, code: 'unauthorized', title: 'Unauthorized' });
  expect((res.json as { detail: string }).detail).toMatch(detail);
}

async function token(app: Parameters<typeof call>[0]): Promise<string> {
  const res = await call(app, '/v1/auth/token', { method: 'POST', headers: AUTH });
  expect(res.status).toBe(200);
  return (res.json as { access_token: string }).access_token;
}

const credentials: [string, Record<string, string>, RegExp][] = [
  ['missing', {}, /missing Authorization/],
  ['malformed (no credential)', { Authorization: 'ApiKey' }, /malformed/],
  ['malformed (extra parts)', { Authorization: 'ApiKey a b' }, /malformed/],
  ['an unsupported scheme', { Authorization: 'Basic dXNlcjpwYXNz' }, /unsupported authorization scheme/],
  ['an unknown key', { Authorization: 'ApiKey not-a-provisioned-key-123' }, /unknown API key/],
  ['a malformed token', { Authorization: 'Bearer abc' }, /malformed access token/],
];

for (const [what, headers, detail] of credentials) {
  test(`${what} credentials give 401 in each endpoint family's format`, async ({ app }) => {
    expectCustomModel401(await call(app, '/v1/custom-model', { headers }), detail);
    expectProblem401(await call(app, TRANSCRIBE, { headers, body: 'x' }), detail);
    if (!headers.Authorization?.startsWith('Bearer')) {
      expectCustomModel401(await call(app, '/v1/auth/token', { method: 'POST', headers }), detail);
    }
  });
}

test('a fresh origin has no keys: everything is 401 until the app provisions one', async ({ app }) => {
  await app.evaluate(() => window.e2e.clearAll());
  expectCustomModel401(await call(app, '/v1/custom-model', { headers: AUTH }), /unknown API key/);
  const provisioned = await app.evaluate(() => window.e2e.provisionApiKey({ label: 'fresh' }));
  expect(provisioned.key).toMatch(/^lsk_[A-Za-z0-9_-]{43}$/);
  const ok = await call(app, '/v1/custom-model', { headers: { Authorization: `ApiKey ${provisioned.key}` } });
  expect(ok.status).toBe(200);
  expect(ok.json).toEqual([]);
});

test('only a hash of a key is stored', async ({ app }) => {
  const stored = await app.evaluate(async () => {
    const db = await indexedDB.databases();
    return db.map((d) => d.name);
  });
  expect(stored).toContain('localscribe');
  const dump = await app.evaluate(
    () =>
      new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('localscribe');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const req = open.result.transaction('apiKeys').objectStore('apiKeys').getAll();
          req.onsuccess = () => {
            resolve(JSON.stringify(req.result));
            open.result.close();
          };
        };
      }),
  );
  expect(dump).not.toContain(API_KEY);
  expect(dump).toMatch(/"hash":"[0-9a-f]{64}"/);
});

test('a token from /v1/auth/token works as Bearer on both families', async ({ app }) => {
  const res = await call(app, '/v1/auth/token', { method: 'POST', headers: AUTH });
  expect(res.status).toBe(200);
  const body = res.json as { access_token: string; token_type: string; expires_in: number };
  expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
  expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
  const bearer = { Authorization: `Bearer ${body.access_token}` };
  expect((await call(app, '/v1/custom-model', { headers: bearer })).status).toBe(200);
  // Past auth, the transcription endpoint validates parameters next.
  const tr = await call(app, `${TRANSCRIBE}?diarize=maybe`, { headers: bearer, body: 'x' });
  expect(tr.status).toBe(400);
  expect(tr.json).toMatchObject({ code: 'invalid_query_parameter' });
});

test('the token endpoint takes an API key only', async ({ app }) => {
  const bearer = { Authorization: `Bearer ${await token(app)}` };
  expectCustomModel401(await call(app, '/v1/auth/token', { method: 'POST', headers: bearer }), /ApiKey/);
});

test('tampered and forged tokens are 401', async ({ app }) => {
  const good = await token(app);
  const [payload, signature] = good.split('.') as [string, string];
  const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp: number };
  const reencode = (o: unknown) => btoa(JSON.stringify(o)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const extended = `${reencode({ ...claims, exp: claims.exp + 86_400 })}.${signature}`;
  const flipped = `${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
  const forged = await app.evaluate(async (p) => {
    const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const sig = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(p)));
    return `${p}.${btoa(String.fromCharCode(...sig)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
  }, payload);
  for (const t of [extended, flipped, forged]) {
    const headers = { Authorization: `Bearer ${t}` };
    expectCustomModel401(await call(app, '/v1/custom-model', { headers }), /signature is invalid/);
    expectProblem401(await call(app, TRANSCRIBE, { headers, body: 'x' }), /signature is invalid/);
  }
});

test('an expired token is 401 and stays unusable', async ({ app }) => {
  await app.evaluate(() => window.e2e.setLimits({ tokenTtlSeconds: 1 }));
  const res = await call(app, '/v1/auth/token', { method: 'POST', headers: AUTH });
  expect(res.json).toMatchObject({ expires_in: 1 });
  const headers = { Authorization: `Bearer ${(res.json as { access_token: string }).access_token}` };
  await app.waitForTimeout(2100);
  expectCustomModel401(await call(app, '/v1/custom-model', { headers }), /expired/);
  expectProblem401(await call(app, TRANSCRIBE, { headers, body: 'x' }), /expired/);
});

test('revoking a key revokes it and the tokens issued for it', async ({ app }) => {
  const bearer = { Authorization: `Bearer ${await token(app)}` };
  const keys = await app.evaluate(() => window.e2e.listApiKeys());
  expect(keys).toHaveLength(1);
  expect(await app.evaluate((id) => window.e2e.revokeApiKey(id), keys[0]!.id)).toBe(true);
  expectCustomModel401(await call(app, '/v1/custom-model', { headers: AUTH }), /unknown API key/);
  expectCustomModel401(await call(app, '/v1/custom-model', { headers: bearer }), /revoked/);
});

test('unknown paths under /v1 are 404, in the family format of the path', async ({ app }) => {
  for (const path of ['/v1', '/v1/', '/v1/nothing', '/v1/custom-model/', '/v1/custom-model/a/b/c']) {
    const res = await call(app, path, { headers: AUTH });
    expect(res.status, path).toBe(404);
    expect(res.json, path).toMatchObject({ code: 'NOT_FOUND' });
  }
  const tr = await call(app, '/v1/speech-to-text/streaming', { headers: AUTH, body: 'x' });
  expect(tr.status).toBe(404);
  expect(tr.contentType).toBe('application/problem+json');
  expect(tr.json).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: expect.any(String) });
});

test('wrong methods are 405 with an Allow header', async ({ app }) => {
  const cases: [string, string, string][] = [
    ['DELETE', '/v1/custom-model', 'GET, POST'],
    ['PUT', '/v1/custom-model/abc', 'GET'],
    ['DELETE', '/v1/custom-model/abc/phrases', 'GET, POST'],
    ['GET', '/v1/custom-model/abc/phrases/delete', 'POST'],
    ['GET', '/v1/auth/token', 'POST'],
    ['GET', TRANSCRIBE, 'POST'],
  ];
  for (const [method, path, allow] of cases) {
    const res = await call(app, path, { method, headers: AUTH });
    expect(res.status, `${method} ${path}`).toBe(405);
    expect(res.headers.allow, `${method} ${path}`).toBe(allow);
  }
  const tr = await call(app, TRANSCRIBE, { method: 'GET', headers: AUTH });
  expect(tr.contentType).toBe('application/problem+json');
  expect(tr.json).not.toHaveProperty('code');
});

test('requests outside /v1 pass through to the network untouched', async ({ app }) => {
  const manifest = await call(app, '/__eval/en/manifest.json');
  expect(manifest.status).toBe(200);
  expect(Array.isArray(manifest.json)).toBe(true);
  const near = await call(app, '/v1x/custom-model', { headers: AUTH });
  expect(near.contentType).toContain('text/html'); // the dev server's page, not a /v1 answer
  expect(near.json).toBeNull();
});
