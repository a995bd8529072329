import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `npm run demo` (scripts/demo.mjs) as a newcomer runs it, with stdout not a terminal:
 * job B says who holds production and its place as soon as it waits, a renewal is
 * shown, the handover time is printed, no colour codes, no warning, and nothing is
 * left in the temporary folder, also when the demo is stopped half-way. Issue 21, item 5.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function demo(tmp: string, onOutput?: (text: string, stop: () => void) => void) {
  const child = spawn(process.execPath, ['scripts/demo.mjs'], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    onOutput?.(out, () => child.kill('SIGTERM'));
  });
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out })),
  );
}

function freshTmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-demo-test-'));
  dirs.push(dir);
  return dir;
}

describe('npm run demo', () => {
  it('shows the holder and place at once, a renewal and the handover; plain text; no files left', async () => {
    const tmp = freshTmp();
    const { code, out } = await demo(tmp);
    expect(code, out).toBe(0);
    expect(out).not.toContain('\x1b[');
    const lines = out.split('\n');
    const index = (test: RegExp) => lines.findIndex((line) => test.test(line));
    const waiting = index(
      /\[job B\] NOTICE: lock:deploy\/production is held by did:web:github\.com:acme:shop:actions:runs:1001:.*next in line/,
    );
    // As soon as it waits: before job A even leaves its deploy.
    expect(waiting).toBeGreaterThan(0);
    expect(waiting).toBeLessThan(index(/\[job A\] ▶ Post Run/));
    expect(lines[waiting]).toContain('That is run #41 of "Deploy" in acme/shop, started by alice');
    expect(
      index(/\[kernel\] renewed by job A's keeper: lease_\S+, fence \d+, expires/),
    ).toBeGreaterThan(0);
    expect(out).toMatch(
      /\njob B waited \d+\.\d s behind job A; handover: \d+ ms from job A's release/,
    );
    expect(out).toContain(
      "Deploy order: this run's commit is newer than the last one granted here",
    );
    expect(out).not.toMatch(/WARNING|names no commit/);
    expect(out).toMatch(/lease-gate verify ledger\.json --public-key ledger\.json\.pub → OK/);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it('removes its temporary folder when stopped half-way', async () => {
    const tmp = freshTmp();
    let stopped = false;
    const { code } = await demo(tmp, (text, stop) => {
      if (!stopped && /\[job A\] ▶ Deploy/.test(text)) {
        stopped = true;
        stop();
      }
    });
    expect(stopped).toBe(true);
    expect(code).not.toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);
});
