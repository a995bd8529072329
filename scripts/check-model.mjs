// Samples spec/lease.qnt with Quint's simulator (docs/model.md): 10 000 random runs of the
// plane's rules must keep every invariant (`safety`), and the same spec with the bug put in
// on purpose (module `buggy`: a grant that skips the lock-delay) must be caught. Offline:
// the TypeScript backend; the default Rust one downloads a binary.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const SAMPLES = process.env.LEASE_GATE_MODEL_SAMPLES ?? '10000';
const STEPS = process.env.LEASE_GATE_MODEL_STEPS ?? '10';
const quint = ['node_modules/.bin/quint', '.tmp/quint/node_modules/.bin/quint'].find((bin) =>
  existsSync(bin),
);
if (!quint) {
  console.error('check:model: quint is not installed; run npm ci (it is a devDependency)');
  process.exit(1);
}

function run(main) {
  const args = ['run', '--backend=typescript', `--main=${main}`, '--invariant=safety'];
  args.push(`--max-samples=${SAMPLES}`, `--max-steps=${STEPS}`, 'spec/lease.qnt');
  const started = Date.now();
  const result = spawnSync(quint, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout}${result.stderr}`;
  return { status: result.status, output, seconds: (Date.now() - started) / 1000 };
}

const ok = run('main');
const summary = /\[(ok|violation)\][^\n]*/.exec(ok.output)?.[0] ?? '(no verdict)';
console.log(
  `model: ${SAMPLES} samples of ${STEPS} steps: ${summary} in ${ok.seconds.toFixed(1)} s`,
);
if (ok.status !== 0 || !ok.output.includes('[ok]')) {
  console.error(ok.output);
  console.error('check:model: spec/lease.qnt violates an invariant (above)');
  process.exit(1);
}

const bug = run('buggy');
console.log(
  `model with the bug (a grant inside the lock-delay): ${/\[(ok|violation)\][^\n]*/.exec(bug.output)?.[0] ?? '(no verdict)'}`,
);
if (bug.status === 0 || !bug.output.includes('[violation]')) {
  console.error(bug.output);
  console.error('check:model: the model did not catch the bug put in on purpose');
  process.exit(1);
}
console.log('2 passed, 0 failed');
