import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Black-box tests spawn dist/: rebuild it first when src/ is newer.
    globalSetup: ['test/support/fresh-dist.ts'],
    // Generous: the suite must pass while both cores are busy with other work
    // (a CLI test that spawns a dozen processes took 21 s there). Speed is bench's.
    testTimeout: 60_000,
    // Four files at once on two cores: most tests wait on child processes, sockets and
    // PostgreSQL rather than compute, so two workers left the cores half idle (a full run:
    // 306 s with 2, 181 s with 4, on this 2-core machine).
    maxWorkers: 4,
    hookTimeout: 60_000,
  },
});
