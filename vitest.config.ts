import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Black-box tests spawn dist/: rebuild it first when src/ is newer.
    globalSetup: ['test/support/fresh-dist.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
