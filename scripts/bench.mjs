// npm run bench: bundles bench/ with ncc (it compiles the TypeScript) and runs it.
// Not part of npm test; loopback only; about four minutes on two cores.
import { execFileSync } from 'node:child_process';

execFileSync('npx', ['ncc', 'build', 'bench/index.ts', '-o', '.tmp/bench', '--quiet'], {
  stdio: 'inherit',
});
execFileSync(process.execPath, ['.tmp/bench/index.js', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
