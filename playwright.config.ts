import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './config/browser';

/**
 * End-to-end tests of the /v1 service (test/e2e/*.spec.ts): real Chromium, the real service worker,
 * real IndexedDB and whisper-tiny, served by Vite from test/e2e/vite.config.ts.
 *
 * The port is chosen once by the runner and handed to its workers through the environment (they
 * re-read this file), so parallel runs on one machine do not collide. E2E_PORT pins it.
 */
function freePort(): number {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})";
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
}
process.env.E2E_PORT ??= String(freePort());
const port = Number(process.env.E2E_PORT);

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
  webServer: {
    command: `npx vite --config test/e2e/vite.config.ts --port ${port} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
