import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumLaunchOptions } from './config/browser';
import { EVAL_DIR } from './config/paths';

/**
 * End-to-end tests of the /v1 service (test/e2e/*.spec.ts, project "api"): real Chromium, the real
 * service worker, real IndexedDB and whisper-tiny, served by Vite from test/e2e/vite.config.ts.
 * The demo (test/e2e/demo*.spec.ts, project "demo") is driven like a person would, served by the
 * demo's own dev server (vite.config.ts, --mode e2e) on a second port.
 *
 * The port is chosen once by the runner and handed to its workers through the environment (they
 * re-read this file), so parallel runs on one machine do not collide. E2E_PORT pins it.
 */
function freePort(): number {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})";
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
}
process.env.E2E_PORT ??= String(freePort());
process.env.DEMO_E2E_PORT ??= String(freePort());
const port = Number(process.env.E2E_PORT);
const demoPort = Number(process.env.DEMO_E2E_PORT);

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  // One worker: the tests share one origin (one service worker, one IndexedDB) and CI has 2 cores.
  workers: 1,
  fullyParallel: false,
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: chromiumLaunchOptions,
    browserName: 'chromium',
  },
  projects: [
    { name: 'api', testIgnore: '**/demo*.spec.ts' },
    {
      name: 'demo',
      testMatch: '**/demo*.spec.ts',
      use: {
        baseURL: `http://127.0.0.1:${demoPort}`,
        acceptDownloads: true,
        // A microphone that plays a real clip, and no permission prompt, for the recording test.
        permissions: ['microphone'],
        launchOptions: {
          ...chromiumLaunchOptions,
          args: [
            ...CHROMIUM_ARGS,
            '--use-fake-ui-for-media-stream',
            '--use-fake-device-for-media-stream',
            `--use-file-for-fake-audio-capture=${EVAL_DIR}/en/psx_cards_001.wav`,
          ],
        },
      },
    },
  ],
  webServer: [
    {
      command: `npx vite --config test/e2e/vite.config.ts --port ${port} --strictPort --host 127.0.0.1`,
      url: `http://127.0.0.1:${port}/`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // DEMO_E2E_BUILD=1: test the static build in dist-demo (`npm run build` first) instead of the dev server.
      command: process.env.DEMO_E2E_BUILD
        ? `npx vite preview --config vite.config.ts --port ${demoPort} --strictPort --host 127.0.0.1`
        : `npx vite --config vite.config.ts --mode e2e --port ${demoPort} --strictPort --host 127.0.0.1`,
      url: `http://127.0.0.1:${demoPort}/`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
