// Start-up of the action's main step on its fastest path (an invalid input: the whole
// bundle is loaded and evaluated, then the step fails without a request), for one or more
// dist/ folders, runs interleaved so a busy machine slows each alike. Medians in ms.
//   node scripts/startup.mjs [DIST ...]   (default: dist)
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

const RUNS = Number(process.env.STARTUP_RUNS ?? 30);
const dists = process.argv.slice(2).length ? process.argv.slice(2) : ['dist'];
const env = { ...process.env, 'INPUT_ON-TIMEOUT': 'bogus' };
const cases = [
  { name: 'bare node -e ""', args: ['-e', ''] },
  ...dists.map((dist) => ({
    name: `${dist}/main/index.js`,
    args: [join(dist, 'main', 'index.js')],
  })),
];
const times = new Map(cases.map((c) => [c.name, []]));
for (let i = 0; i < RUNS + 2; i++) {
  for (const c of cases) {
    const start = process.hrtime.bigint();
    spawnSync(process.execPath, c.args, { env, stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (i >= 2) times.get(c.name).push(ms); // two warm-up rounds
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const c of cases)
  console.log(`${median(times.get(c.name)).toFixed(1).padStart(7)} ms  ${c.name}`);
for (const dist of dists) {
  const kb = (f) => (statSync(join(dist, f)).size / 1024).toFixed(1);
  for (const entry of ['main', 'post', 'cli']) {
    const files = [`${entry}/index.js`, `${entry}/${entry}.js`, `${entry}/${entry}.js.map`];
    console.log(
      `${dist}/${entry}: ${files
        .map((f) => {
          try {
            return `${f} ${kb(f)} KB`;
          } catch {
            return `${f} -`;
          }
        })
        .join(', ')}`,
    );
  }
}
