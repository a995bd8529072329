import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STAMP, sourceHash } from '../../scripts/source-hash.mjs';

/**
 * vitest globalSetup: the black-box tests spawn dist/, so dist/ is rebuilt
 * (`npm run build`, once, before any test) when what it was built from has
 * changed: the hash of the sources (`scripts/source-hash.mjs`) differs from
 * the one the build recorded in dist/sources.sha256. Content, not mtimes: a
 * fresh clone's files all have the clone's time, in no useful order, and
 * must not rebuild an identical dist/ (1–2 min on two busy cores).
 */

const BUNDLES = [
  'dist/main/main.js',
  'dist/main/index.js',
  'dist/post/post.js',
  'dist/post/index.js',
  'dist/cli/cli.js',
  'dist/cli/index.js',
  'dist/notify/notify.js',
  'dist/notify/index.js',
  'dist/keeper/keeper.js',
  'dist/keeper/index.js',
  'dist/console/index.html',
];

/** Why dist/ must be rebuilt, or undefined when it was built from the sources as they are. */
export function staleReason(root = '.'): string | undefined {
  const missing = BUNDLES.find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return `${STAMP} is missing`;
  const recorded = readFileSync(stamp, 'utf8').trim();
  const now = sourceHash(root);
  return recorded === now ? undefined : `the sources changed since dist/ was built`;
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
