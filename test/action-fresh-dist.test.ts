import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleReason } from './support/fresh-dist.js';

/** The globalSetup's rule: dist/ is rebuilt when anything it is built from is newer. */

const BUNDLES = ['main/main.js', 'main/index.js', 'post/post.js', 'post/index.js'];
const ALL = [...BUNDLES, 'cli/cli.js', 'cli/index.js', 'console/index.html'].map(
  (f) => `dist/${f}`,
);
let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tree(times: Record<string, number>): string {
  root = mkdtempSync(join(tmpdir(), 'lease-gate-fresh-dist-'));
  for (const [file, seconds] of Object.entries(times)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
    utimesSync(join(root, file), seconds, seconds);
  }
  return root;
}

const built = (seconds: number) => Object.fromEntries(ALL.map((file) => [file, seconds]));

describe('dist/ freshness before the black-box tests', () => {
  it('is fresh when every bundle is newer than every source', () => {
    expect(staleReason(tree({ 'src/action/post.ts': 1_000, ...built(2_000) }))).toBeUndefined();
  });

  it('is stale when a source changed after the build, naming what changed', () => {
    const dir = tree({ 'src/action/post.ts': 3_000, 'src/bin/main.ts': 1_000, ...built(2_000) });
    expect(staleReason(dir)).toBe(`${join(dir, 'src')} changed after dist/ was built`);
  });

  it('is stale when the lockfile moved or a bundle is missing', () => {
    expect(staleReason(tree({ 'package-lock.json': 3_000, ...built(2_000) }))).toMatch(
      /package-lock\.json changed/,
    );
    const partial = built(2_000);
    delete partial['dist/post/post.js'];
    expect(staleReason(tree({ 'src/a.ts': 1_000, ...partial }))).toBe(
      'dist/post/post.js is missing',
    );
  });
});
