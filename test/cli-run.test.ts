import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../src/cli/run-command.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { R } from './support/names.js';

/**
 * `lease-gate run` in-process (src/cli/run-command.ts) against the kernel with
 * 1.5 s leases: the command is still a real child in its own process group.
 * A real signal to the CLI process and the group kill are cli-run-dist.test.ts's.
 */

const ME = 'did:web:acme.example:agent:runner';
let plane: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;
let dir = '';

afterEach(async () => {
  await plane?.close();
  plane = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Once ME holds the lease (measured from the grant, not from a timer started before the run), `then`. */
function whenHeld(then: () => Promise<void>, afterMs: number) {
  let looking = false;
  const poll = setInterval(() => {
    if (looking || !plane) return;
    looking = true;
    void plane.kernel
      .status(R)
      .then((lease) => {
        if (lease?.holder !== ME) return;
        clearInterval(poll);
        setTimeout(() => void then(), afterMs);
      })
      .finally(() => (looking = false));
  }, 20);
}

/**
 * Runs `lease-gate run -- node -e script`. The command inherits this worker's
 * stdio, so it writes what the test reads to the file in $OUT.
 */
async function run(args: string[], script: string, onErr?: (line: string) => void) {
  dir = mkdtempSync(join(tmpdir(), 'lease-gate-run-'));
  const out = join(dir, 'out');
  const io = { out: [] as string[], err: [] as string[] };
  const code = await runCommand(
    ['--actor-did', ME, '--api-url', plane!.url, ...args, '--', process.execPath, '-e', script],
    {
      out: (line) => io.out.push(line),
      err: (line) => (io.err.push(line), onErr?.(line)),
    },
    { PATH: process.env.PATH ?? '', OUT: out, FLAG: join(dir, 'flag') },
  );
  const written = existsSync(out) ? readFileSync(out, 'utf8') : undefined;
  return { code, out: io.out, stderr: io.err.join('\n'), written };
}

const write = (text: string) => `require('fs').appendFileSync(process.env.OUT, ${text});`;

describe('lease-gate run', () => {
  it('holds the lease across several lifetimes, passes the exit code through and releases after', async () => {
    plane = await startLoggedKernel({ ttlMs: 1_500 });
    const result = await run(
      [],
      `${write('"fence " + process.env.LEASE_GATE_FENCE')} setTimeout(() => process.exit(3), 4000)`,
    );
    expect(result.code).toBe(3);
    expect(result.written).toBe('fence 1');
    expect(result.out).toEqual([]);
    expect(result.stderr).toContain(`released ${R}`);
    // No lapse (a lapse shows as a second grant), and renewed at least once per lifetime held;
    // the exact pace is keep.test.ts's.
    expect(plane.events.map((e) => [e.kind, e.actorDid])).toEqual([
      ['grant', ME],
      ['release', ME],
    ]);
    const asks = plane.requests.filter((r) => r.path.endsWith('/lease')).length;
    expect(asks).toBeGreaterThanOrEqual(1 + Math.floor(4_000 / 1_500));
  });

  it('terminates the command when the lease is revoked, naming the operator reason', async () => {
    plane = await startLoggedKernel({ ttlMs: 1_500 });
    const THIEF = 'did:web:acme.example:agent:hotfix';
    whenHeld(async () => {
      await plane!.kernel.revoke(R, 'hotfix');
      await plane!.kernel.lease(R, THIEF);
    }, 300);
    const result = await run([], 'setInterval(() => {}, 1000)');
    expect(result.code).toBe(143);
    expect(result.stderr).toMatch(
      // A revoked holder is refused as final (reason "revoked"), with the operator's reason.
      new RegExp(
        `Lost ${R} at .*an operator revoked the lease.*hotfix.*\\. Stopping the command\\.`,
      ),
    );
    expect(plane.events.filter((e) => e.kind === 'release')).toEqual([]);
  });

  it('lets the command finish on loss with --on-lost warn, but exits non-zero', async () => {
    plane = await startLoggedKernel({ ttlMs: 1_500 });
    whenHeld(async () => {
      await plane!.kernel.revoke(R, 'hotfix');
      await plane!.kernel.lease(R, 'did:web:x:y');
    }, 100);
    // The command finishes once the loss was reported (the event), so however slow the
    // machine, the loss comes while it runs; 30 s only ends a failing test.
    const script = `const fs = require('fs'); const end = Date.now() + 30000;
      const t = setInterval(() => { if (fs.existsSync(process.env.FLAG) || Date.now() > end) {
        clearInterval(t); ${write('"finished"')} process.exit(0) } }, 50)`;
    const result = await run(['--on-lost', 'warn'], script, (line) => {
      if (line.includes('Lost ')) writeFileSync(join(dir, 'flag'), '');
    });
    expect(result.written).toBe('finished');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Lost lock:deploy/production');
    expect(result.stderr).not.toContain('Stopping the command');
  });

  it('does not run the command when the lease stays held', async () => {
    plane = await startLoggedKernel();
    await plane.kernel.lease(R, 'did:web:other:job');
    const result = await run(['--wait-timeout', '0'], write('"ran"'));
    expect(result.code).toBe(1);
    expect(result.written).toBeUndefined();
    expect(result.stderr).toContain('The command did not run.');
  });

  it('exits 128 + N for any signal that ends the command', async () => {
    plane = await startLoggedKernel({ ttlMs: 30_000 });
    const result = await run([], 'process.kill(process.pid, "SIGQUIT")');
    expect(result.code).toBe(128 + 3);
  });
});
