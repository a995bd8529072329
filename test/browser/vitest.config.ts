import { defineConfig } from 'vitest/config';

// The browser tests: Debian's Chromium driven by playwright-core (npm run test:browser).
export default defineConfig({
  test: {
    root: '.',
    include: ['test/browser/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    fileParallelism: false,
  },
});
