import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { lockAddress, lockState, type StateLock } from '../src/kernel/store/state-lock.js';
import { StartRefusedError } from '../src/kernel/store/store-error.js';
import { fileStore } from '../src/kernel/store/store.js';
import { Ledger, type LedgerBundle } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import {
  SOURCE_CLI,
  runCli,
  startKernelProcess,
  type KernelProcess,
} from './support/kernel-process.js';
import { A, B, R } from './support/names.js';

const once = { retryUntilMs: 0 };
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `lease-gate-${name}-`));

const kernels: KernelProcess[] = [];
const locks: StateLock[] = [];
afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.stop('SIGKILL').catch(() => undefined);
  for (const lock of locks.splice(0)) await lock.close();
});

async function source(args: string[]): Promise<KernelProcess> {
  const kernel = await startKernelProcess(args, {}, SOURCE_CLI);
  kernels.push(kernel);
  return kernel;
}

async function grant(url: string, actorDid = A) {
  const answer = await createPlaneClient({ apiUrl: url }).lease({ resource: R, actorDid }, once);
  if (answer.kind !== 'granted') throw new Error(`not granted: ${answer.kind}`);
  return answer.lease;
}

describe('one kernel at a time on one log (issue 35, item 1)', () => {
  it('refuses a second kernel on the prefix, naming the first, and starts again once it is gone (kill -9)', async () => {
    const prefix = join(tmp('lock'), 'state');
    const first = await source(['--data-prefix', prefix, '--quiet']);
    const fence = (await grant(first.url)).fence!;

    const second = await runCli(['kernel', '--port', '0', '--data-prefix', prefix], {}, SOURCE_CLI);
    expect(second.code).toBe(2);
    expect(second.stdout).not.toContain('listening');
    const lines = second.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^lease-gate kernel: Refusing to start: another kernel \\(pid ${first.child.pid}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\) holds the kernel's log ${prefix}\\.ledger\\.jsonl\\.`,
      ),
    );
    // The first still serves, and its log has its one grant.
    expect(await createPlaneClient({ apiUrl: first.url }).status(R)).toMatchObject({ fence });

    await first.stop('SIGKILL');
    const third = await source(['--data-prefix', prefix, '--quiet']);
    // The lease held across the kill is still held: the log is one kernel's.
    expect(await grant(third.url, B).catch((e: Error) => e.message)).toMatch(/not granted/);
    expect(await grant(third.url)).toMatchObject({ fence });
  });

  it('is one lock for every name of the log: a symlink to it, a hard link (outside tester)', async () => {
    const dir = tmp('lock-links');
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    const log = join(dir, 'a', 'k.ledger.jsonl');
    writeFileSync(log, '', { mode: 0o600 });
    symlinkSync(log, join(dir, 'b', 'k.ledger.jsonl'));
    linkSync(log, join(dir, 'b', 'h.ledger.jsonl'));
    const first = await source(['--data-prefix', join(dir, 'a', 'k'), '--quiet']);
    const fence = (await grant(first.url)).fence!;
    for (const args of [
      ['--data-prefix', join(dir, 'b', 'k')],
      ['--ledger', join(dir, 'b', 'h.ledger.jsonl')],
    ]) {
      const other = await runCli(['kernel', '--port', '0', ...args], {}, SOURCE_CLI);
      expect(other.code).toBe(2);
      expect(other.stdout).not.toContain('listening');
      expect(other.stderr).toMatch(
        new RegExp(
          `^lease-gate kernel: Refusing to start: another kernel \\(pid ${first.child.pid},`,
        ),
      );
    }
    expect(await createPlaneClient({ apiUrl: first.url }).status(R)).toMatchObject({ fence });
  });

  it('creates a missing log to lock it, and refuses in one line a log whose folder is missing', async () => {
    const dir = tmp('lock-create');
    const log = join(dir, 'new.ledger.jsonl');
    locks.push(await lockState(log, { waitMs: 0, now: Date.now, sleep: async () => {} }));
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(statSync(log).size).toBe(0);
    rmSync(join(dir, 'gone'), { force: true, recursive: true });
    const missing = join(dir, 'gone', 'k.ledger.jsonl');
    await expect(
      lockState(missing, { waitMs: 0, now: Date.now, sleep: async () => {} }),
    ).rejects.toThrow(
      /^Cannot open the kernel's log .*gone\/k\.ledger\.jsonl \(ENOENT\): its folder must exist/,
    );
  });

  it('waits for a holder that goes within the wait, then takes the lock', async () => {
    const log = join(tmp('lock-wait'), 'k.ledger.jsonl');
    const held = await lockState(log, { waitMs: 0, now: Date.now, sleep: async () => {} });
    let clock = 0;
    let slept = 0;
    const next = await lockState(log, {
      waitMs: 5_000,
      now: () => clock,
      sleep: async (ms) => {
        slept += 1;
        clock += ms;
        // The old kernel goes while the new one waits: an overlapping restart.
        if (slept === 3) await held.close();
      },
    });
    locks.push(next);
    expect(slept).toBeGreaterThanOrEqual(3);
  });

  it('refuses once the wait is over, naming the holder; another log is free', async () => {
    const dir = tmp('lock-refuse');
    const log = join(dir, 'k.ledger.jsonl');
    locks.push(
      await lockState(log, {
        waitMs: 0,
        now: Date.now,
        sleep: async () => {},
        holder: { pid: 4242, startedAt: '2026-01-02T03:04:05.678Z' },
      }),
    );
    let clock = 0;
    const refused = lockState(join(dir, '.', 'k.ledger.jsonl'), {
      waitMs: 1_000,
      now: () => clock,
      sleep: async (ms) => void (clock += ms),
    });
    await expect(refused).rejects.toThrow(StartRefusedError);
    await expect(refused).rejects.toThrow(
      /another kernel \(pid 4242, started 2026-01-02T03:04:05\.678Z\) holds .*this one waited 1 s/,
    );
    locks.push(
      await lockState(join(dir, 'other.ledger.jsonl'), {
        waitMs: 0,
        now: Date.now,
        sleep: async () => {},
      }),
    );
  });

  it('takes over a socket file whose process was killed (the fallback beside Linux)', async () => {
    const log = join(tmp('lock-stale'), 'k.ledger.jsonl');
    const address = lockAddress(log, 'darwin');
    // A process that takes the socket file and dies by kill -9, leaving it behind.
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(address)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    await new Promise((done) => child.on('close', done));
    expect(existsSync(address)).toBe(true);
    const lock = await lockState(log, {
      waitMs: 0,
      now: Date.now,
      sleep: async () => {},
      platform: 'darwin',
    });
    locks.push(lock);
    await expect(
      lockState(log, { waitMs: 0, now: Date.now, sleep: async () => {}, platform: 'darwin' }),
    ).rejects.toThrow(/another kernel \(pid \d+/);
  });
});

describe('a memory kernel across restarts (issue 35, item 8)', () => {
  it('gives fences that rise across a restart', async () => {
    const first = await source(['--quiet']);
    const before = (await grant(first.url)).fence!;
    await first.stop();
    const second = await source(['--quiet']);
    const after = (await grant(second.url, B)).fence!;
    expect(Number.isSafeInteger(before) && Number.isSafeInteger(after)).toBe(true);
    expect(after).toBeGreaterThan(before);
  });
});

describe('a file kernel signs only the history it signed (issue 35, item 9)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  let running: RunningKernel | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  let said: string[] = [];
  const start = (log: string, ttlMs = 60_000) =>
    startKernelServer({
      table: new ResourceTable({ ttlMs }),
      store: fileStore(log),
      ledger: new Ledger(privateKey),
      log: (line) => said.push(line),
      console: () => false,
    });

  /** A kernel on `log` that grants `holders` in turn and hands out its checkpoint. */
  async function signed(log: string, holders: string[]) {
    running = await start(log);
    const client = createPlaneClient({ apiUrl: running.url });
    for (const holder of holders) {
      await client.lease({ resource: R, actorDid: holder }, once);
      await client.release({ resource: R, actorDid: holder }, once);
    }
    const { bundle } = await fetchLedger(running.url);
    await running.close();
    running = undefined;
    return bundle as LedgerBundle;
  }

  it('refuses to start on a log rewritten since its last checkpoint, and says how to recover', async () => {
    const dir = tmp('signed');
    const log = join(dir, 'k.ledger.jsonl');
    await signed(log, [A, B]);
    // The same entries in number, but B's grant made A's: another history.
    const forged = join(dir, 'forged.ledger.jsonl');
    await signed(forged, [A, A]);
    copyFileSync(forged, log);
    const refused = start(log);
    await expect(refused).rejects.toThrow(StartRefusedError);
    await expect(refused).rejects.toThrow(
      /^Refusing to start: the first 4 entries of .*k\.ledger\.jsonl are not what was signed .*the log was rewritten\. Put back the log that was signed/,
    );
  });

  it('refuses the rewritten log from the CLI in one line, exit 2', async () => {
    const dir = tmp('signed-cli');
    expect((await runCli(['keygen', '--out', dir], {}, SOURCE_CLI)).code).toBe(0);
    const args = (prefix: string) => [
      '--data-prefix',
      join(dir, prefix),
      '--quiet',
      '--signing-key',
      join(dir, 'ledger.key'),
    ];
    for (const [prefix, holder] of [
      ['kernel', A],
      ['forged', B],
    ] as const) {
      const kernel = await source(args(prefix));
      await grant(kernel.url, holder);
      await fetchLedger(kernel.url);
      await kernel.stop();
    }
    copyFileSync(join(dir, 'forged.ledger.jsonl'), join(dir, 'kernel.ledger.jsonl'));
    const refused = await runCli(['kernel', '--port', '0', ...args('kernel')], {}, SOURCE_CLI);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^lease-gate kernel: Refusing to start: the first 1 entry of .*kernel\.ledger\.jsonl are not what was signed .*\n$/,
    );
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a log cut short of its last checkpoint, and starts on the log it signed', async () => {
    const dir = tmp('signed-short');
    const log = join(dir, 'k.ledger.jsonl');
    const bundle = await signed(log, [A, B]);
    expect(JSON.parse(readFileSync(`${log}.signed.json`, 'utf8'))).toMatchObject({ size: 4 });
    const whole = readFileSync(log);
    truncateSync(log, whole.indexOf('\n') + 1);
    await expect(start(log)).rejects.toThrow(
      /^Refusing to start: .*k\.ledger\.jsonl holds 1 entry, but a checkpoint of 4 entries was signed over it/,
    );
    // The log put back: it starts, and signs on from the same history.
    writeFileSync(log, whole);
    running = await start(log);
    const again = (await fetchLedger(running.url)).bundle as LedgerBundle;
    expect(again.entries.map((e) => e.entry)).toEqual(bundle.entries.map((e) => e.entry));
  });

  it('refuses a rewritten log whose .signed.json was removed: its snapshot disagrees (outside tester)', async () => {
    const dir = tmp('signed-snapshot');
    const log = join(dir, 'k.ledger.jsonl');
    await signed(log, [A, B]);
    await signed(join(dir, 'forged.ledger.jsonl'), [A, A]);
    copyFileSync(join(dir, 'forged.ledger.jsonl'), log);
    rmSync(`${log}.signed.json`);
    expect(existsSync(`${log}.snapshot.json`)).toBe(true);
    await expect(start(log)).rejects.toThrow(
      /^Refusing to start: .*k\.ledger\.jsonl\.snapshot\.json was taken of 4 entries of .*, and the log no longer holds them: it was cut short or rewritten since\. Put back the log/,
    );
    expect(existsSync(`${log}.signed.json`)).toBe(false);
  });

  it('refuses an emptied log whose .signed.json was removed: fences do not start over (outside tester)', async () => {
    const log = join(tmp('signed-emptied'), 'k.ledger.jsonl');
    await signed(log, [A, B]);
    truncateSync(log, 0);
    rmSync(`${log}.signed.json`);
    await expect(start(log)).rejects.toThrow(/snapshot\.json was taken of 4 entries/);
  });

  it('refuses a log rewritten under a snapshot it does not use (another lease lifetime): the root differs', async () => {
    const log = join(tmp('signed-root'), 'k.ledger.jsonl');
    await signed(log, [A, B]);
    rmSync(`${log}.signed.json`);
    // The first grant made B's, every byte where it was: the snapshot's last entry still stands.
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[0] = lines[0]!.replace(A, B);
    writeFileSync(log, lines.join('\n'));
    await expect(start(log, 30_000)).rejects.toThrow(/snapshot\.json was taken of 4 entries/);
  });

  it('writes a missing .signed.json at start from the log as it is, with a notice, and holds to it', async () => {
    const dir = tmp('signed-upgrade');
    const log = join(dir, 'k.ledger.jsonl');
    await signed(log, [A, B]);
    await signed(join(dir, 'forged.ledger.jsonl'), [A, A]);
    rmSync(`${log}.signed.json`);
    said = [];
    running = await start(log);
    expect(running.warning).toBeUndefined();
    expect(said.join('\n')).toMatch(
      /^notice: .*k\.ledger\.jsonl\.signed\.json was missing: it now holds the log's 4 entries as the history a restart is held to/,
    );
    expect(JSON.parse(readFileSync(`${log}.signed.json`, 'utf8'))).toMatchObject({ size: 4 });
    await running.close();
    running = undefined;
    // No checkpoint was handed out this run, yet a rewrite (its snapshot gone too) is refused.
    copyFileSync(join(dir, 'forged.ledger.jsonl'), log);
    rmSync(`${log}.snapshot.json`);
    await expect(start(log)).rejects.toThrow(/the first 4 entries of .* are not what was signed/);
  });

  it('starts a new history when the log, its snapshot and its record all go; a saved checkpoint catches it', async () => {
    const log = join(tmp('signed-new'), 'k.ledger.jsonl');
    const saved = (await signed(log, [A, B, A])).checkpoint;
    for (const file of [log, `${log}.snapshot.json`, `${log}.signed.json`]) rmSync(file);
    const again = await signed(log, [B, A, B, A]);
    // Verified alone it is a signed history; against the checkpoint kept elsewhere it is not that one.
    expect(verifyBundle(again, publicKey).size).toBe(again.entries.length);
    expect(() => verifyBundle(again, publicKey, { previous: saved })).toThrow(
      /not consistent with the previous checkpoint/,
    );
  });
});
