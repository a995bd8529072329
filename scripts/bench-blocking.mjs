// Handover with blocking acquire (release → the held waiter's grant), kernel in its own
// process from the committed dist/cli. Loopback only; about ten seconds.
import { execFileSync } from 'node:child_process';
import { bundleBench } from './bench-bundle.mjs';

const bench = await bundleBench('bench/blocking-run.ts', '.tmp/bench-blocking');
execFileSync(process.execPath, [bench], { stdio: 'inherit' });
