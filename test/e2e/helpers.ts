import { test as base, expect, type Page } from '@playwright/test';

/** A key every test provisions on a cleared origin. */
export const API_KEY = 'e2e-test-key-0123456789abcdef';
export const AUTH = { Authorization: `ApiKey ${API_KEY}` };
/** A short real clip (1.1 s, "ten of clubs"). */
export const CLIP = '/__eval/en/psx_cards_001.wav';

export interface ApiReply {
  status: number;
  contentType: string | null;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON body (serialized in the page). */
  json?: unknown;
  /** A raw string body. */
  body?: string;
  /** Fetch this same-origin URL in the page and send its bytes as the body. */
  bodyFrom?: string;
}

/** fetch() inside the page, so the request goes through the service worker (page.request would not). */
export async function call(page: Page, path: string, options: CallOptions = {}): Promise<ApiReply> {
  return page.evaluate(
    async ({ path, options }) => {
      const headers = new Headers(options.headers);
      let body: BodyInit | undefined;
      if (options.json !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(options.json);
      } else if (options.body !== undefined) {
        body = options.body;
      } else if (options.bodyFrom) {
        headers.set('Content-Type', 'application/octet-stream');
        body = await (await fetch(options.bodyFrom)).arrayBuffer();
      }
      const res = await fetch(path, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body });
      const text = await res.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        headers: Object.fromEntries(res.headers.entries()),
        text,
        json,
      };
    },
    { path, options },
  );
}

/** Opens the e2e app controlled by the service worker, on a cleared origin with API_KEY provisioned. */
export async function openApp(page: Page, query = ''): Promise<void> {
  await page.goto(`/${query}`);
  const controlled = await page.evaluate(() => window.e2e.ready);
  expect(controlled, 'the page is controlled by the /v1 service worker').toBe(true);
}

export async function resetOrigin(page: Page): Promise<void> {
  await page.evaluate(async (key) => {
    await window.e2e.clearAll();
    await window.e2e.provisionApiKey({ key, label: 'e2e' });
  }, API_KEY);
}

/**
 * `app`: one page of the e2e app per worker, reused across tests (registering the service worker and
 * loading the page for every test would dominate the run), reset to a cleared origin before each test.
 * Tests that reload or close pages use the built-in `page`/`context` fixtures instead.
 */
export const test = base.extend<{ app: Page }, { sharedApp: Page }>({
  sharedApp: [
    async ({ browser }, use) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await openApp(page);
      await use(page);
      await context.close();
    },
    { scope: 'worker' },
  ],
  app: async ({ sharedApp }, use) => {
    await resetOrigin(sharedApp);
    await use(sharedApp);
  },
});

export { expect };
