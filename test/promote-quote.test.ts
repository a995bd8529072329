import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `--promote dev->staging` unquoted (issue 55, item 4): bash makes a file named staging and the
 * committed CLI is given 'dev-'. It refuses before serving, and says to quote it.
 */

const CLI = resolve('dist/cli/index.js');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The line as a reader pastes it into bash, in an empty folder; what it printed and made. */
function pasted(line: string) {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-promote-quote-'));
  dirs.push(dir);
  const script = `lease-gate() { node ${JSON.stringify(CLI)} "$@"; }\n${line}`;
  const result = spawnSync('bash', ['--norc', '-c', script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: result.status, stderr: result.stderr, files: readdirSync(dir) };
}

describe('an unquoted --promote FROM->TO', () => {
  it('kernel: exit 2, one line that says to quote it (bash made the file)', () => {
    const r = pasted('lease-gate kernel --port 0 --promote dev->staging');
    expect(r.files).toEqual(['staging']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "Invalid --promote 'dev-': a shell reads an unquoted dev->TO as 'dev-' and a redirect to a file TO. Quote it: --promote 'dev->TO'. See 'lease-gate kernel --help'.\n",
    );
  });

  it('verify: the same hint', () => {
    const r = pasted(
      'lease-gate verify audit.json --public-key ledger.pub --promote staging->production',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Quote it: --promote 'staging->TO'.");
  });

  it('other bad forms keep the form they expected; a quoted one is not refused for its form', () => {
    expect(pasted("lease-gate kernel --port 0 --promote 'a->a'").stderr).toMatch(
      /^Invalid --promote 'a->a'\. Expected FROM->TO/,
    );
    expect(pasted("lease-gate kernel --port 0 --promote '-'").stderr).toMatch(
      /^Invalid --promote '-'\. Expected FROM->TO/,
    );
    const quoted = pasted(
      "lease-gate verify missing.json --public-key k.pub --promote 'dev->staging'",
    );
    expect(quoted.stderr).not.toContain('--promote');
    expect(quoted.files).toEqual([]);
  });
});
