// Handover with blocking acquire (release → the held waiter's grant), kernel in its own
// process from the committed dist/cli. Loopback only; about ten seconds.
import { execFileSync } from 'node:child_process';

execFileSync(
  'npx',
  ['ncc', 'build', 'bench/blocking-run.ts', '-o', '.tmp/bench-blocking', '--quiet'],
  {
    stdio: 'inherit',
  },
);
execFileSync(process.execPath, ['.tmp/bench-blocking/index.js'], { stdio: 'inherit' });
