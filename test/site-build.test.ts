import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The static playground site (`scripts/build-console.mjs --site`): every file its page
 * asks for is in the site, asked for relative to the page (GitHub Pages serves a project
 * under /<repo>/, where /favicon.svg is another site's). Issue 37, item 8.
 */

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-site-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the static playground site', () => {
  it('holds every file its page links to, the favicon too', () => {
    execFileSync(process.execPath, ['scripts/build-console.mjs', '--site', dir], {
      timeout: 120_000,
      stdio: 'ignore',
    });
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const links = [...html.matchAll(/(?:href|src)="([^"#]+)"/g)].map((m) => m[1] ?? '');
    expect(links).toContain('favicon.svg');
    for (const link of links.filter((l) => !/^https?:/.test(l))) {
      expect(link, 'relative to the page').not.toMatch(/^\//);
      expect(existsSync(join(dir, link)), link).toBe(true);
    }
    expect(readFileSync(join(dir, 'favicon.svg'), 'utf8')).toMatch(/^<svg [^]*<\/svg>$/);
  }, 150_000);
});
