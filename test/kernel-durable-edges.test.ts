import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { nodeLogFs, type LogFs } from '../src/kernel/store/log-file.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { fileStore } from '../src/kernel/store/store.js';
import { Ledger, type LedgerBundle } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { A, B, LEASE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
let running: RunningKernel | undefined;
closeAfterEach(() => [running]);

async function lease(url: string, resource: string, actorDid: string) {
  const res = await request(url + LEASE, {
    method: 'POST',
    body: JSON.stringify({ resource, actorDid }),
    headers: { 'content-type': 'application/json' },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the kernel's answer, read by the test
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
}

async function status(url: string, resource: string) {
  const res = await request(`${url}${LEASE}?resource=${encodeURIComponent(resource)}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the kernel's answer, read by the test
  return (await res.body.json()) as Record<string, any>;
}

/**
 * node's file system with writes that come up short on a real file: the next
 * write takes only `short` bytes; with `full` set, the write after it fails
 * with ENOSPC, as a full disk does.
 */
function shortWrites() {
  const control = { short: 0, full: false, writes: 0 };
  const fs: LogFs = {
    ...nodeLogFs,
    async openLog(path) {
      const file = await nodeLogFs.openLog(path);
      let failNext = false;
      return {
        ...file,
        async write(bytes, offset, length, position) {
          control.writes += 1;
          if (failNext) {
            failNext = false;
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
              code: 'ENOSPC',
            });
          }
          if (control.short > 0 && length > control.short) {
            const n = await file.write(bytes, offset, control.short, position);
            control.short = 0;
            failNext = control.full;
            return n;
          }
          return file.write(bytes, offset, length, position);
        },
      };
    },
  };
  return { fs, control };
}

const fresh = () => join(mkdtempSync(join(tmpdir(), 'lease-gate-edges-')), 'kernel.log');

async function exported(url: string) {
  const { bundle } = await fetchLedger(url);
  return verifyBundle(bundle, publicKey);
}

describe('a write is durable whole, or not acknowledged', () => {
  it('goes on after a short write and counts only the bytes written', async () => {
    const log = fresh();
    const { fs, control } = shortWrites();
    running = await startKernelServer({
      store: fileStore(log, { fs }),
      ledger: new Ledger(privateKey),
    });
    expect((await lease(running.url, 'r0', A)).status).toBe(200);
    control.short = 7;
    const granted = await lease(running.url, 'r1', A);
    expect(granted).toMatchObject({ status: 200, body: { lease: { fence: 2 } } });
    const text = readFileSync(log, 'utf8');
    expect(text.split('\n').map((l) => l && JSON.parse(l).fence)).toEqual([1, 2, '']);
    expect(await exported(running.url)).toMatchObject({ size: 2 });
  });

  it('answers 503 for a short write on a full disk, keeps memory and file as they were, and heals', async () => {
    const log = fresh();
    const { fs, control } = shortWrites();
    const open = () =>
      startKernelServer({
        store: fileStore(log, { fs }),
        ledger: new Ledger(privateKey),
      });
    running = await open();
    expect((await lease(running.url, 'r', A)).status).toBe(200);
    const before = readFileSync(log);
    control.short = 9;
    control.full = true;
    const refused = await lease(running.url, 's', B);
    expect(refused).toMatchObject({ status: 503, body: { reason: 'store_unavailable' } });
    expect(refused.body.message).toMatch(/ENOSPC/);
    expect((await status(running.url, 's')).lease).toBeNull();
    // The 9 bytes that did land were cut back: the file is exactly what was acknowledged.
    expect(readFileSync(log).equals(before)).toBe(true);
    control.full = false;
    const again = await lease(running.url, 's', B);
    expect(again).toMatchObject({ status: 200, body: { lease: { holder: B, fence: 3 } } });
    await running.close();
    running = await open();
    expect(running.warning).toBeUndefined();
    expect((await status(running.url, 's')).lease).toMatchObject({ holder: B, fence: 3 });
    expect(readFileSync(log, 'utf8')).not.toContain('\0');
    // Two grants, and the restart's renewals of both leases it found open.
    expect(await exported(running.url)).toMatchObject({ size: 4 });
  });
});

describe('nothing acknowledged is ever cut', () => {
  async function logWith(grants: number) {
    const log = fresh();
    running = await startKernelServer({ store: fileStore(log), ledger: new Ledger(privateKey) });
    for (let i = 0; i < grants; i += 1) await lease(running.url, `r${i}`, A);
    await running.close();
    running = undefined;
    return log;
  }

  it('keeps a whole last record that lacks its newline, and adds the newline', async () => {
    const log = await logWith(3);
    writeFileSync(log, readFileSync(log, 'utf8').replace(/\n$/, ''));
    running = await startKernelServer({ store: fileStore(log), ledger: new Ledger(privateKey) });
    expect(running.warning).toMatch(/last record .* had no newline; it is whole and was kept/);
    expect((await status(running.url, 'r2')).lease).toMatchObject({ holder: A, fence: 3 });
    expect(await lease(running.url, 'x', B)).toMatchObject({ body: { lease: { fence: 4 } } });
    const lines = readFileSync(log, 'utf8').split('\n');
    // Three grants, the restart's renewals of them, the new grant.
    expect(lines.map((l) => l && JSON.parse(l).fence)).toEqual([1, 2, 3, 1, 2, 3, 4, '']);
    expect(await exported(running.url)).toMatchObject({ size: 7 });
  });

  it('saves torn bytes beside the log before cutting them, names the copy, and seeds fences above them', async () => {
    const log = await logWith(2);
    const torn = '{"actorDid":"did:web:x","expiresAtMs":99,"fence":41,"kind":"gr';
    writeFileSync(log, readFileSync(log, 'utf8') + torn);
    running = await startKernelServer({
      store: fileStore(log, { now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) }),
      ledger: new Ledger(privateKey),
    });
    const copy = `${log}.cut-2026-01-02T03-04-05-006Z`;
    expect(running.warning).toBe(
      `${log}: the last record was torn (${torn.length} bytes without an end); it was saved to ${copy}, cut off, and the 2 records before it kept`,
    );
    expect(readFileSync(copy, 'utf8')).toBe(torn);
    expect(readdirSync(join(log, '..')).filter((f) => f.includes('.cut-'))).toHaveLength(1);
    expect(await lease(running.url, 'x', B)).toMatchObject({ body: { lease: { fence: 42 } } });
    expect(await exported(running.url)).toMatchObject({ size: 5 });
  });
});

describe('a restart never shortens a lease, whatever the clock did', () => {
  const TTL = 30_000;
  function kernelAt(log: string, clock: { now: number }) {
    return startKernelServer({
      store: fileStore(log),
      ledger: new Ledger(privateKey),
      table: new ResourceTable({ ttlMs: TTL }),
      now: () => clock.now,
    });
  }

  it('a clock stepped 60 s forward while down: the lease lasts a full TTL from the restart', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    running = await kernelAt(log, clock);
    const granted = await lease(running.url, 'r', A);
    expect(granted.body.lease).toMatchObject({ fence: 1, expiresAtMs: 1_030_000 });
    clock.now += 2_000; // 28 s left
    await running.close();
    clock.now += 60_000; // down a moment, the wall clock 60 s ahead when it comes back
    running = await kernelAt(log, clock);
    const restartAt = clock.now;
    expect((await status(running.url, 'r')).lease).toMatchObject({
      holder: A,
      fence: 1,
      expiresAtMs: restartAt + TTL,
    });
    clock.now = restartAt + TTL - 1;
    expect(await lease(running.url, 'r', B)).toMatchObject({
      status: 409,
      body: { reason: 'lease_held', holder: A },
    });
    clock.now = restartAt + TTL;
    expect(await lease(running.url, 'r', B)).toMatchObject({
      status: 200,
      body: { lease: { holder: B, fence: 2 } },
    });
    expect(await exported(running.url)).toMatchObject({ size: 4 });
  });

  it('the holder renews across the forward step with its own lease and fence', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    running = await kernelAt(log, clock);
    const first = (await lease(running.url, 'r', A)).body.lease;
    await running.close();
    clock.now += 50_000; // past the told expiry by the new clock
    running = await kernelAt(log, clock);
    clock.now += 5_000;
    const renewed = await lease(running.url, 'r', A);
    expect(renewed.body).toMatchObject({
      renewed: true,
      lease: { id: first.id, fence: 1, expiresAtMs: clock.now + TTL },
    });
    expect(await exported(running.url)).toMatchObject({ size: 3 });
  });

  it('a clock stepped an hour back: entry times still go forward, leases last no shorter', async () => {
    const log = fresh();
    const clock = { now: 10_000_000 };
    running = await kernelAt(log, clock);
    await lease(running.url, 'r', A);
    clock.now += 1_000;
    await running.close();
    clock.now -= 3_600_000;
    running = await kernelAt(log, clock);
    const b = await lease(running.url, 's', B);
    // Granted on the clock as the log left it, never before it.
    expect(b.body.lease.expiresAtMs).toBeGreaterThanOrEqual(10_000_000 + TTL);
    expect(await lease(running.url, 'r', B)).toMatchObject({ status: 409 });
    const { bundle } = await fetchLedger(running.url);
    const times = (bundle as LedgerBundle).entries.map((e) => e.entry.tsMs);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(verifyBundle(bundle, publicKey)).toMatchObject({ size: 2 });
  });
});
