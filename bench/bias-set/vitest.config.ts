import { defineConfig } from 'vitest/config';

/** Biasing measurements in Node with the real model: `npx vitest run -c bench/bias-set/vitest.config.ts`. */
export default defineConfig({
  test: {
    name: 'bias-measure',
    environment: 'node',
    include: ['bench/bias-set/*.measure.ts'],
    testTimeout: 3_600_000,
    fileParallelism: false,
  },
});
