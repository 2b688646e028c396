/**
 * The demo (demo/), driven like a person: pick a real clip, set options, watch the progress bars,
 * read the transcript, export, manage custom models, use the /v1 console, record from a (fake)
 * microphone, and reload with the network off. whisper-tiny throughout (CI has no GPU and 2 cores).
 *
 * The tests share one page and run in order: the model loads once, and the offline test needs the
 * caches the earlier tests filled. Screenshots go to test-results/screenshots/.
 */
import { readFileSync } from 'node:fs';
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { EVAL_DIR } from '../../config/paths';

const SHOTS = 'test-results/screenshots';
const JFK = `${EVAL_DIR}/en/jfk.flac`;
/** A two-speaker clip, fetched by the page from the dev server's read-only view of EVAL_DIR (config/vite-plugins.ts). */
const TWO_SPEAKERS_URL = '/__eval/diar/pyannote_sample.wav';

const test = base.extend<object, { shared: { context: BrowserContext; page: Page } }>({
  shared: [
    async ({ browser }, use, workerInfo) => {
      const context = await browser.newContext({
        ...workerInfo.project.use,
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
      await use({ context, page });
      await context.close();
    },
    { scope: 'worker' },
  ],
});
test.describe.configure({ mode: 'serial' });

async function open(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.locator('#api-status')).toContainText('ready', { timeout: 30_000 });
  await page.getByLabel('Model', { exact: true }).selectOption('whisper-tiny');
  await page.getByLabel('Language', { exact: true }).fill('en');
}

/** Each test can also run on its own (-g): it opens the demo when an earlier test has not. */
async function ensureOpen(page: Page): Promise<void> {
  if (page.url() === 'about:blank') await open(page);
}

/** Runs a transcription and waits for both bars to finish. */
async function transcribe(page: Page, timeout = 90_000): Promise<void> {
  await page.getByRole('button', { name: 'Transcribe' }).click();
  await expect(page.locator('#run-text')).toHaveText('done', { timeout });
  await expect(page.locator('#run-progress')).toHaveJSProperty('value', 1);
  await expect(page.locator('#load-progress')).toHaveJSProperty('value', 1);
  await expect(page.locator('#error')).toBeHidden();
}

test('transcribes a chosen clip with words and confidence, plays from a word, exports SRT', async ({ shared: { page } }) => {
  await open(page);
  await page.getByLabel('timestamps', { exact: true }).check();
  await page.getByLabel('words', { exact: true }).check();
  await page.getByLabel('confidence', { exact: true }).check();
  await page.locator('#file').setInputFiles(JFK);
  await expect(page.locator('#audio-name')).toContainText('jfk.flac');

  await page.getByRole('button', { name: 'Transcribe' }).click();
  // The model download shows on its own bar before the transcription finishes.
  await expect.poll(() => page.locator('#load-progress').evaluate((p: HTMLProgressElement) => p.value), { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(page.locator('#run-text')).toHaveText('done', { timeout: 90_000 });
  await expect(page.locator('#error')).toBeHidden();

  const view = page.locator('#transcript');
  await expect(view).toContainText(/ask not what your country can do for you/i);
  const words = view.locator('.word');
  expect(await words.count()).toBeGreaterThan(15);
  const confidences = await words.evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.confidence)));
  expect(confidences.every((c) => c > 0 && c <= 1)).toBe(true);
  await expect(page.locator('#legend')).toBeVisible();

  // Clicking a word plays from its start.
  const country = words.filter({ hasText: /^country/i }).first();
  const startMs = Number(await country.getAttribute('data-start-ms'));
  expect(startMs).toBeGreaterThan(3000);
  await country.click();
  await expect.poll(() => page.locator('#player').evaluate((a: HTMLAudioElement) => a.currentTime)).toBeGreaterThanOrEqual(startMs / 1000 - 0.05);
  await page.locator('#player').evaluate((a: HTMLAudioElement) => a.pause());

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'SRT' }).click()]);
  expect(download.suggestedFilename()).toBe('jfk.srt');
  const srt = readFileSync(await download.path(), 'utf8');
  expect(srt).toMatch(/^1\n00:00:0\d,\d{3} --> 00:00:\d\d,\d{3}\n\S/);
  const cues = srt.trim().split('\n\n');
  expect(cues.length).toBeGreaterThan(1);
  cues.forEach((cue, i) => expect(cue).toMatch(new RegExp(`^${i + 1}\\n\\d\\d:\\d\\d:\\d\\d,\\d{3} --> \\d\\d:\\d\\d:\\d\\d,\\d{3}\\n.+`)));
  expect(srt.toLowerCase()).toContain('country');

  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'JSON' }).click()]);
  const body = JSON.parse(readFileSync(await json.path(), 'utf8')) as { text: string; words: unknown[]; duration_ms: number };
  expect(body.text).toMatch(/country/i);
  expect(body.words.length).toBe(await words.count());
  expect(body.duration_ms).toBe(11000);

  await page.screenshot({ path: `${SHOTS}/demo-transcript.png`, fullPage: true });
});

test('shows a bad option as a readable error, and a run can be cancelled', async ({ shared: { page } }) => {
  await ensureOpen(page);
  await page.getByLabel('Language', { exact: true }).fill('xx');
  await page.getByRole('button', { name: 'Transcribe' }).click();
  await expect(page.locator('#error')).toContainText('400 invalid_query_parameter: language');
  await expect(page.getByRole('button', { name: 'Transcribe' })).toBeEnabled();

  await page.getByLabel('Language', { exact: true }).fill('en');
  await page.getByRole('button', { name: 'Transcribe' }).click();
  await expect(page.getByRole('button', { name: 'Cancel' })).toBeEnabled();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('#run-text')).toHaveText('cancelled');
  await expect(page.locator('#error')).toContainText('Cancelled');
  await expect(page.getByRole('button', { name: 'Transcribe' })).toBeEnabled();
});

test('manages a custom model through /v1: create, page through phrases, add, delete', async ({ shared: { page } }) => {
  await ensureOpen(page);
  const panel = page.getByRole('region', { name: /Custom models/ });
  await panel.getByText('New custom model').click();
  await panel.getByLabel('Name', { exact: true }).fill('Cafe menu');
  await panel.getByLabel('Description', { exact: true }).fill('Drinks we sell');
  const phrases = Array.from({ length: 25 }, (_, i) => `drink ${i + 1}`);
  await panel.getByLabel('Phrases, one per line', { exact: true }).fill(phrases.join('\n'));
  await panel.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('#cm-message')).toHaveText('Created "Cafe menu" with 25 phrases.');
  await expect(panel.locator('#cm-list tr', { hasText: 'Cafe menu' })).toContainText('25');
  await expect(page.locator('#cm-page')).toHaveText('page 1 of 2 · 25 phrases');
  await expect(page.locator('#cm-phrases li')).toHaveCount(20);

  await panel.getByRole('button', { name: 'Next ›' }).click();
  await expect(page.locator('#cm-page')).toHaveText('page 2 of 2 · 25 phrases');
  await expect(page.locator('#cm-phrases li')).toHaveText(phrases.slice(20));
  await expect(panel.getByRole('button', { name: 'Next ›' })).toBeDisabled();

  await panel.getByLabel('Add phrases, one per line').fill('flat white\ndrink 3');
  await panel.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.locator('#cm-message')).toHaveText('Added 1, skipped 1 already there.');
  await expect(page.locator('#cm-page')).toHaveText('page 2 of 2 · 26 phrases');

  await panel.getByLabel('drink 21').check();
  await panel.getByLabel('flat white').check();
  await panel.getByRole('button', { name: 'Delete ticked' }).click();
  await expect(page.locator('#cm-message')).toHaveText('Deleted 2 phrases.');
  await expect(page.locator('#cm-page')).toHaveText('page 2 of 2 · 24 phrases');
  await expect(page.locator('#cm-phrases li')).toHaveText(phrases.slice(21));

  // The service's own error, readable; and the model is offered in the options form.
  await panel.getByLabel('Add phrases, one per line').fill('x'.repeat(201));
  await panel.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.locator('#cm-message')).toContainText('400 INVALID_REQUEST:');
  await expect(page.getByLabel('Custom model', { exact: true }).locator('option', { hasText: 'Cafe menu (24)' })).toHaveCount(1);
  await panel.screenshot({ path: `${SHOTS}/demo-custom-models.png` });
});

test('the /v1 console sends a raw request and shows the answer', async ({ shared: { page } }) => {
  await ensureOpen(page);
  const consolePanel = page.getByRole('region', { name: '/v1 console' });
  await consolePanel.getByLabel('Example').selectOption('list-models');
  await expect(consolePanel.getByLabel('Headers, one per line')).toHaveValue(/^Authorization: ApiKey lsk_demo_\w+$/);
  await consolePanel.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#con-status')).toHaveAttribute('data-status', '200');
  await expect(page.locator('#con-status')).toContainText('200');
  const shown = (await page.locator('#con-response').textContent()) ?? '';
  const list = JSON.parse(shown.slice(shown.indexOf('\n\n') + 2)) as { name: string; phraseCount: number }[];
  expect(list.map((m) => [m.name, m.phraseCount])).toContainEqual(['Cafe menu', 24]);

  // A file as the body: the /v1 service hands the transcription to this page's engine.
  await consolePanel.getByLabel('Example').selectOption('transcribe');
  await expect(consolePanel.getByLabel('Path')).toHaveValue('/v1/speech-to-text/prerecorded?include_timestamps=true');
  await consolePanel.getByLabel('…or a file as the body').setInputFiles(`${EVAL_DIR}/en/psx_cards_001.wav`);
  await consolePanel.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#con-status')).toHaveAttribute('data-status', '200', { timeout: 60_000 });
  await expect(page.locator('#con-response')).toContainText(/"text": ".*club/i);
  await expect(page.locator('#con-response')).toContainText('"duration_ms": 1095');
  await consolePanel.getByRole('button', { name: 'Clear file' }).click();

  // Without the key: the service's 401, shown as is.
  await consolePanel.getByLabel('Example').selectOption('list-models');
  await consolePanel.getByLabel('Headers, one per line').fill('');
  await consolePanel.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#con-status')).toHaveAttribute('data-status', '401');
  await expect(page.locator('#con-response')).toContainText('UNAUTHORIZED');
  await consolePanel.screenshot({ path: `${SHOTS}/demo-console.png` });
});

test('records from the microphone and transcribes the recording', async ({ shared: { page } }) => {
  await ensureOpen(page);
  // The fake microphone plays psx_cards_001.wav ("ten of clubs") in a loop.
  await page.getByRole('button', { name: '● Record' }).click();
  await expect(page.locator('#audio-name')).toContainText('Recording…');
  await page.waitForTimeout(3000);
  await page.getByRole('button', { name: '■ Stop' }).click();
  await expect(page.locator('#audio-name')).toContainText(/recording-\d{6}\.webm/);
  const recorded = await page.locator('#player').evaluate(async (a: HTMLAudioElement) => {
    const bytes = new Uint8Array(await (await fetch(a.src)).arrayBuffer());
    return { size: bytes.length, head: [...bytes.slice(0, 4)] };
  });
  expect(recorded.head, 'a WebM (EBML) file').toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  expect(recorded.size).toBeGreaterThan(10_000);
  await page.getByLabel('confidence', { exact: true }).uncheck();
  await transcribe(page);
  await expect(page.locator('#transcript')).toContainText(/club/i);
});

test('diarizes a two-speaker clip: turns in distinct colours', async ({ shared: { page } }) => {
  await ensureOpen(page);
  // Dropped onto the drop zone, as from a file manager.
  const dataTransfer = await page.evaluateHandle(async (url) => {
    const bytes = await (await fetch(url)).blob();
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'pyannote_sample.wav', { type: 'audio/wav' }));
    return dt;
  }, TWO_SPEAKERS_URL);
  await page.locator('#drop').dispatchEvent('dragover', { dataTransfer });
  await expect(page.locator('#drop')).toHaveClass(/over/);
  await page.locator('#drop').dispatchEvent('drop', { dataTransfer });
  await expect(page.locator('#audio-name')).toContainText('pyannote_sample.wav · 938 KB');
  await page.getByLabel('speakers', { exact: true }).check();
  await page.getByLabel('at most', { exact: true }).selectOption('2');
  await page.getByLabel('words', { exact: true }).uncheck();
  await transcribe(page, 120_000);
  const segments = page.locator('#transcript .segment');
  const speakers = new Set(await segments.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.speaker)));
  expect([...speakers].sort()).toEqual(['0', '1']);
  const colours = await segments.evaluateAll((els) => [...new Set(els.map((e) => getComputedStyle(e).borderLeftColor))]);
  expect(colours).toHaveLength(2);
  await expect(segments.first().locator('.speaker')).toHaveText('Speaker 1');
  await page.screenshot({ path: `${SHOTS}/demo-speakers.png`, fullPage: true });
  await page.getByLabel('speakers', { exact: true }).uncheck();
});

test('reloads with the network off and still transcribes', async ({ shared: { page, context } }) => {
  await expect.poll(() => page.locator('#cache-info').textContent()).toMatch(/[1-9]\d* model files/);
  await context.setOffline(true);
  try {
    const navigation = page.waitForResponse((r) => r.request().isNavigationRequest());
    await page.reload();
    const doc = await navigation;
    expect(doc.fromServiceWorker()).toBe(true);
    expect(doc.headers()['x-localscribe-cache']).toBe('hit');
    // Debian's Chromium 150 does not carry the emulated offline state into the document the reload made
    // (navigator.onLine reads true there, and stays true) until it is set again
    await context.setOffline(false);
    await context.setOffline(true);
    await expect.poll(() => page.evaluate(() => navigator.onLine)).toBe(false);
    await expect(page.locator('#network')).toHaveText('offline');
    // The stylesheet came back too (a panel has its border radius), and the /v1 service still answers.
    await expect(page.locator('.panel').first()).toHaveCSS('border-top-left-radius', '8px');
    await expect(page.locator('#api-status')).toContainText('ready');
    await expect(page.locator('#cm-list')).toContainText('Cafe menu');

    await page.getByLabel('Model', { exact: true }).selectOption('whisper-tiny');
    await page.getByLabel('Language', { exact: true }).fill('en');
    // a clip tiny gets right on fitted and on full windows alike (the test is about working offline)
    await page.locator('#file').setInputFiles(`${EVAL_DIR}/en/jfk.flac`);
    await transcribe(page);
    await expect(page.locator('#transcript')).toContainText(/ask not what your country can do for you/i);
    await page.screenshot({ path: `${SHOTS}/demo-offline.png`, fullPage: true });
  } finally {
    await context.setOffline(false);
  }
});

test('clears the cached models', async ({ shared: { page } }) => {
  await ensureOpen(page);
  await expect(page.locator('#cache-info')).toContainText(/Cached: [1-9]\d* model files/);
  await page.getByRole('button', { name: 'Clear cached models' }).click();
  await expect(page.locator('#cache-info')).toContainText('Cleared the model cache');
  await expect(page.locator('#cache-info')).toContainText('Cached: 0 model files (0.0 MB)');
  expect(await page.evaluate(() => caches.has('localscribe-models-v1'))).toBe(false);
});
