// The hash of everything dist/ is built from, recorded as dist/sources.sha256 by `npm run
// build`. The tests' globalSetup (test/support/fresh-dist.ts) rebuilds dist/ only when the
// sources' hash differs from the recorded one: content, not mtimes, because `git clone`
// writes files in no useful order and a fresh clone would otherwise rebuild an identical
// dist/. Run as a script it writes the stamp; imported, it only hashes.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SOURCES = [
  'src',
  'scripts/build.mjs',
  'scripts/licenses.mjs',
  'scripts/dist-loader.cjs',
  'scripts/build-console.mjs',
  'package-lock.json',
  'tsconfig.json',
];
export const STAMP = 'dist/sources.sha256';

function files(root, path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => files(root, join(path, name)));
}

/** One SHA-256 over each source file's path (with '/' separators) and content, in order. */
export function sourceHash(root = '.') {
  const hash = createHash('sha256');
  for (const path of SOURCES.flatMap((p) => files(root, p))) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path.split(sep).join('/')}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(STAMP, `${sourceHash()}\n`);
}
