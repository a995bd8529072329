import { blockingHandover, loadWhileWaiting } from './blocking-handover.js';

// Run by scripts/bench-blocking.mjs: blocking acquire's handover (memory and file
// store) and the plane's load while agents wait, against the committed CLI's kernel.
const cli = 'dist/cli/index.js';
console.log(`node ${process.version}`);
for (const store of ['memory', 'file'] as const) {
  console.log(JSON.stringify(await blockingHandover({ cli, store })));
}
console.log(JSON.stringify(await loadWhileWaiting({ cli })));
