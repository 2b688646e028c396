import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { chromiumLaunchOptions } from './config/browser';
import { ROOT } from './config/paths';
import { evalData, ISOLATION_HEADERS } from './config/vite-plugins';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        publicDir: `${ROOT}/public`,
        plugins: [evalData()],
        server: { headers: ISOLATION_HEADERS, fs: { allow: [ROOT] } },
        worker: { format: 'es' },
        // mediabunny pre-bundled up front: found mid-run, its optimisation reloads the test page.
        optimizeDeps: { include: ['mediabunny'], exclude: ['onnxruntime-web'] },
        test: {
          name: 'browser',
          globalSetup: ['scripts/browser-test-setup.mjs'],
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: chromiumLaunchOptions }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
