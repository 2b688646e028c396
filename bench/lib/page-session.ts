import { chromium, type Browser, type Page } from 'playwright';
import { chromiumLaunchOptions } from '../../config/browser';
import type { LoadInfo, LoadOptions, TranscribeJob, TranscribeOutcome } from '../pages/driver';

/** One headless Debian Chromium with one bench page open, driven through window.benchDriver. */
export class PageSession {
  private constructor(
    private readonly browser: Browser,
    private readonly page: Page,
  ) {}

  static async open(url: string, log: (line: string) => void): Promise<PageSession> {
    const browser = await chromium.launch({ ...chromiumLaunchOptions, headless: true });
    try {
      const page = await browser.newPage();
      page.on('pageerror', (error) => log(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) log(`console: ${message.text()}`);
      });
      page.on('crash', () => log('renderer crashed'));
      page.on('response', (response) => {
        if (response.status() >= 400) log(`HTTP ${response.status()} ${response.url()}`);
      });
      await page.goto(url);
      await page.waitForFunction(() => window.benchDriver !== undefined || window.benchDriverError !== undefined, null, {
        timeout: 180_000,
      });
      const failure = await page.evaluate(() => window.benchDriverError);
      if (failure) throw new Error(`bench page failed to start: ${failure}`);
      return new PageSession(browser, page);
    } catch (error) {
      await browser.close().catch(() => {});
      throw error;
    }
  }

  load(options: LoadOptions, timeoutMs: number): Promise<LoadInfo> {
    return withTimeout(
      this.page.evaluate((o) => window.benchDriver!.load(o), options),
      timeoutMs,
      `loading ${options.model}`,
    );
  }

  transcribe(job: TranscribeJob, timeoutMs: number): Promise<TranscribeOutcome> {
    return withTimeout(this.page.evaluate((j) => window.benchDriver!.transcribe(j), job), timeoutMs, job.url);
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => {});
  }
}

export class TimeoutError extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  work.catch(() => {}); // once timed out, the browser is closed under it: that rejection is expected
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
