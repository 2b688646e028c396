import { mkdirSync, writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { chromiumLaunchOptions } from '../../config/browser';
import { AUTH, CLIP, call, expect, openApp, resetOrigin, test } from './helpers';

// src/store/ against real IndexedDB behind the real service worker: credit holds, a failing debit,
// provisioning from two tabs at once, a full quota, IndexedDB forbidden.

const URL_ = '/v1/speech-to-text/prerecorded';

/** Raw IndexedDB access from the page, beside the library's own connection. */
async function rawMeta(page: Parameters<typeof call>[0], op: 'get' | 'put', value?: unknown): Promise<unknown> {
  return page.evaluate(
    ([op, value]) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('localscribe');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction('meta', op === 'get' ? 'readonly' : 'readwrite');
          const req = op === 'get' ? tx.objectStore('meta').get('usage') : tx.objectStore('meta').put(value, 'usage');
          tx.oncomplete = () => {
            db.close();
            resolve(req.result);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    [op, value] as const,
  );
}

test('concurrent requests cannot overdraw the credit: each holds its length before the engine runs', async ({ app }) => {
  // Room for one 1.095 s clip, not two; three at once are all admitted by the concurrency limit.
  await app.evaluate(() => window.e2e.setLimits({ creditSeconds: 1.5, maxConcurrent: 3 }));
  const replies = await app.evaluate(
    async ([url, clip]) => {
      const bytes = await (await fetch(clip)).arrayBuffer();
      const send = () =>
        fetch(url, { method: 'POST', headers: { Authorization: 'ApiKey e2e-test-key-0123456789abcdef' }, body: bytes.slice(0) }).then(
          async (r) => ({ status: r.status, body: (await r.json()) as { detail?: string } }),
        );
      return Promise.all([send(), send(), send()]);
    },
    [URL_, CLIP] as const,
  );
  const statuses = replies.map((r) => r.status).sort();
  expect(statuses).toEqual([200, 402, 402]);
  for (const r of replies.filter((r) => r.status === 402)) expect(r.body.detail).toMatch(/credit exhausted: this request's audio lasts 1\.1 s/);
  const used = (await app.evaluate(() => window.e2e.getUsage())).usedSeconds;
  expect(used).toBeGreaterThan(1.0);
  expect(used).toBeLessThanOrEqual(1.5);
  // Every hold ended: the credit left is usable again by a request that fits (none does here: 402, not a hold).
  expect((await call(app, URL_, { headers: AUTH, bodyFrom: CLIP })).status).toBe(402);
  await app.evaluate(() => window.e2e.setLimits({ creditSeconds: 2.5 }));
  expect((await call(app, URL_, { headers: AUTH, bodyFrom: CLIP })).status).toBe(200);
});

test('a failing debit still returns the finished transcript', async ({ app }) => {
  // A damaged usage record makes the debit fail for real; the credit is unlimited, so admission never reads it.
  await rawMeta(app, 'put', 'not a usage record');
  const res = await call(app, URL_, { headers: AUTH, bodyFrom: CLIP });
  expect(res.status, res.text).toBe(200);
  expect((res.json as { text: string }).text.toLowerCase()).toContain('club');
  expect(await rawMeta(app, 'get')).toBe('not a usage record'); // nothing debited, nothing half-written
  await expect(app.evaluate(() => window.e2e.getUsage())).rejects.toThrow(/stored credit usage is unreadable/);
});

test('two tabs provisioning the same key at once end with one key', async ({ app }) => {
  const other = await app.context().newPage(); // same context: the same origin storage
  await other.goto('/?engine=0');
  await other.evaluate(() => window.e2e.ready);
  for (let round = 0; round < 5; round++) {
    const key = `race-key-${round}-0123456789abcdef`;
    const results = await Promise.all(
      [app, other, app, other].map((page, i) => page.evaluate(([k, label]) => window.e2e.provisionApiKey({ key: k, label }), [key, `tab ${i}`] as const)),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(new Set(results.map((r) => r.createdAt)).size).toBe(1);
  }
  const keys = await app.evaluate(() => window.e2e.listApiKeys());
  expect(keys.filter((k) => k.label.startsWith('tab '))).toHaveLength(5);
  await other.close();
});

test('a full storage quota gives 500 with a detail naming the quota, and nothing half-written', async ({ baseURL }, testInfo) => {
  // A persistent context: Chromium applies CDP's quota override to the default storage partition only,
  // not to the off-the-record contexts tests normally get, and only before the origin's storage is in use.
  const context = await chromium.launchPersistentContext(testInfo.outputPath('profile'), { ...chromiumLaunchOptions, baseURL });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    const origin = new URL(baseURL!).origin;
    // The override counts only when set before the origin's database is opened: first room for the
    // service worker's scripts (unbundled under the dev server: several MB), then, once they are stored
    // and before any IndexedDB use, what they take plus 256 KiB: a key, not 10,000 phrases (over 2 MB).
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 256 * 1024 * 1024 });
    await openApp(page, '?engine=0');
    const { usage } = (await cdp.send('Storage.getUsageAndQuota', { origin })) as { usage: number };
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 256 * 1024 });
    await resetOrigin(page);
    const phrases = Array.from({ length: 10_000 }, (_, i) => `quota filler phrase number ${i} ${'x'.repeat(150)}`);
    const res = await call(page, '/v1/custom-model', { headers: AUTH, json: { name: 'big', description: 'fills the quota', phrases } });
    expect(res.status, res.text).toBe(500);
    expect(res.json).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect((res.json as { message: string }).message).toMatch(
      /storage quota for this origin is full \(QuotaExceededError\) while storing the custom model; nothing was written/,
    );
    expect(await page.evaluate(() => window.e2e.countRows())).toEqual({ models: 0, phrases: 0 });
    // With room again, the same service worker stores it.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 256 * 1024 * 1024 });
    const ok = await call(page, '/v1/custom-model', { headers: AUTH, json: { name: 'big', description: 'fits now', phrases } });
    expect(ok.status, ok.text).toBe(201);
    expect(await page.evaluate(() => window.e2e.countRows())).toEqual({ models: 1, phrases: 10_000 });
  } finally {
    await context.close();
  }
});

test('IndexedDB forbidden (site data blocked) gives an error that names the cause', async ({ baseURL }, testInfo) => {
  // A profile that blocks site data for every site, as a user can in Chromium's settings.
  const profile = testInfo.outputPath('blocked-profile');
  mkdirSync(`${profile}/Default`, { recursive: true });
  writeFileSync(`${profile}/Default/Preferences`, JSON.stringify({ profile: { default_content_setting_values: { cookies: 2 } } }));
  const context = await chromium.launchPersistentContext(profile, { ...chromiumLaunchOptions, baseURL });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('/?engine=0');
    const error = await page.evaluate(() =>
      window.e2e.provisionApiKey({ label: 'x' }).then(
        () => 'stored',
        (e: { status?: number; code?: string; detail?: string }) => ({ status: e.status, code: e.code, detail: e.detail }),
      ),
    );
    expect(error).toMatchObject({ status: 500, code: 'internal_server_error' });
    expect((error as { detail: string }).detail).toMatch(
      /IndexedDB, where the \/v1 service keeps its keys, custom models and credit, is unavailable: UnknownError while opening the database: The user denied permission/,
    );
  } finally {
    await context.close();
  }
});
