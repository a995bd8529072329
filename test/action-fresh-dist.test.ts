import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceHash } from '../scripts/source-hash.mjs';
import { staleReason } from './support/fresh-dist.js';

/** The globalSetup's rule: dist/ is rebuilt when what it is built from has another hash. */

const BUNDLES = ['main/main.js', 'main/index.js', 'post/post.js', 'post/index.js'];
const ALL = [
  ...BUNDLES,
  'cli/cli.js',
  'cli/index.js',
  'notify/notify.js',
  'notify/index.js',
  'keeper/keeper.js',
  'keeper/index.js',
  'console/index.html',
].map((f) => `dist/${f}`);
let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A tree with these files, each given its text, and every bundle. */
function tree(sources: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'lease-gate-fresh-dist-'));
  for (const [file, text] of Object.entries({ ...sources, ...built() })) write(file, text);
  return root;
}

function write(file: string, text: string, seconds?: number): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  if (seconds !== undefined) utimesSync(join(root, file), seconds, seconds);
}

const built = () => Object.fromEntries(ALL.map((file) => [file, '']));
const stamp = (dir: string) => write('dist/sources.sha256', `${sourceHash(dir)}\n`);

describe('dist/ freshness before the black-box tests', () => {
  it('is fresh when the recorded hash is the sources', () => {
    const dir = tree({ 'src/action/post.ts': 'post', 'package-lock.json': '{}' });
    stamp(dir);
    expect(staleReason(dir)).toBeUndefined();
  });

  it('is fresh on a fresh clone, where sources are written after dist/', () => {
    const dir = tree({ 'src/action/post.ts': 'post' });
    stamp(dir);
    for (const file of ALL) utimesSync(join(dir, file), 1_000, 1_000);
    write('src/action/post.ts', 'post', 3_000);
    expect(staleReason(dir)).toBeUndefined();
  });

  it('is stale when a source, a new file or the lockfile changed, or the stamp is missing', () => {
    const dir = tree({ 'src/action/post.ts': 'post', 'package-lock.json': '{}' });
    expect(staleReason(dir)).toBe('dist/sources.sha256 is missing');
    stamp(dir);
    write('src/action/post.ts', 'post, edited');
    expect(staleReason(dir)).toBe('the sources changed since dist/ was built');
    stamp(dir);
    write('src/action/new.ts', '');
    expect(staleReason(dir)).toMatch(/sources changed/);
    stamp(dir);
    write('package-lock.json', '{"lockfileVersion":3}');
    expect(staleReason(dir)).toMatch(/sources changed/);
  });

  it('is stale when a bundle is missing', () => {
    const dir = tree({ 'src/a.ts': '' });
    stamp(dir);
    rmSync(join(dir, 'dist/post/post.js'));
    expect(staleReason(dir)).toBe('dist/post/post.js is missing');
  });

  it("matches the committed stamp of this checkout's own dist/", () => {
    // What .ci/run's rebuild-and-compare also proves; here so a stale stamp shows in npm test.
    expect(staleReason('.')).toBeUndefined();
  });
});
