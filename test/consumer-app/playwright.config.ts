import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../../config/browser';

/** The consumer-app check (consumer.spec.ts): packs the library, installs it into a copy of app/, builds, serves. */
export default defineConfig({
  testDir: '.',
  testMatch: 'consumer.spec.ts',
  outputDir: '../../test-results/consumer-app',
  workers: 1,
  timeout: 300_000,
  reporter: process.env.CI ? 'line' : 'list',
  use: { launchOptions: chromiumLaunchOptions, browserName: 'chromium' },
});
