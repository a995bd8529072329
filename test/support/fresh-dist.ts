import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * vitest globalSetup: the black-box tests spawn dist/, so dist/ is rebuilt
 * (`npm run build`, once, before any test) when a file it is built from is
 * newer than the oldest bundle. Otherwise a change to src/action/post.ts
 * could pass against a stale bundle. A full build takes 1–3 min on two busy
 * cores, so it runs only when needed; CI builds before it tests.
 */

const SOURCES = [
  'src',
  'scripts/build.mjs',
  'scripts/dist-loader.mjs',
  'scripts/build-console.mjs',
  'package-lock.json',
];
const BUNDLES = [
  'dist/main/main.js',
  'dist/main/index.js',
  'dist/post/post.js',
  'dist/post/index.js',
  'dist/cli/cli.js',
  'dist/cli/index.js',
  'dist/console/index.html',
];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // Files only: a folder's own time moves with unrelated entries (editor swap files).
  let newest = 0;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** Why dist/ must be rebuilt, or undefined when it is at least as new as its sources. */
export function staleReason(root = '.'): string | undefined {
  const missing = BUNDLES.find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  const built = Math.min(...BUNDLES.map((file) => statSync(join(root, file)).mtimeMs));
  const sources = SOURCES.map((path) => join(root, path)).filter((path) => existsSync(path));
  const changed = sources.find((path) => newestMtime(path) > built);
  return changed ? `${changed} changed after dist/ was built` : undefined;
}

export default function setup(): void {
  const reason = staleReason();
  if (!reason) return;
  const started = performance.now();
  process.stderr.write(`dist/ is stale (${reason}): running npm run build before the tests\n`);
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`dist/ rebuilt in ${seconds} s\n`);
}
