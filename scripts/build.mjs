// Bundles each entry with ncc into dist/<name>/index.js; CI rebuilds and diffs.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const entries = ['main', 'post', 'cli'];
const only = process.argv.slice(2);
for (const name of only.length ? only : entries) {
  rmSync(`dist/${name}`, { recursive: true, force: true });
  execFileSync(
    'npx',
    [
      'ncc',
      'build',
      `src/bin/${name}.ts`,
      '-o',
      `dist/${name}`,
      '--minify',
      '--license',
      'licenses.txt',
      '--quiet',
    ],
    { stdio: 'inherit' },
  );
}
