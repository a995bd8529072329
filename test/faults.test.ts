import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer } from '../src/kernel/http/server.js';
import { createPlaneClient } from '../src/plane/client.js';
import { openSession } from '../src/lease/session.js';
import {
  RECOVER_BOUND_MS,
  TTL_MS,
  figures,
  startHolders,
  verifiedLedger,
} from './support/fault-holders.js';
import { until } from './support/wait.js';
import { startFaultProxy } from './support/fault-proxy.js';
import { fencedIncrement, startFencedStore } from './support/fenced-store.js';
import { postJson } from './support/http.js';
import { runStep } from './support/runner.js';
import {
  DIST_CLI,
  runCli,
  startKernelProcess,
  type KernelProcess,
} from './support/kernel-process.js';

/**
 * Faults on one machine (#36 item 3), each bounded: a stopped kernel, a stopped `run`, a
 * faulty network between client and kernel, a wall-clock step. Clients write through the
 * shipped fence checker (examples/fence-check); every scenario prints one line
 * `faults: <scenario> ops=… faults=… stale=… lost=… overlaps=… recover_ms=…`:
 * `stale` and `lost` are with fences (0), `overlaps` what a store without them would have
 * taken from a stale holder after a newer one, `recover_ms` from the heal to the next grant.
 */

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

let keyDir: string;
beforeAll(async () => {
  keyDir = mkdtempSync(join(tmpdir(), 'lease-gate-faults-'));
  expect((await runCli(['keygen', '--out', keyDir])).code).toBe(0);
});

async function kernel(): Promise<KernelProcess> {
  const args = ['--ttl-ms', String(TTL_MS), '--signing-key', join(keyDir, 'ledger.key'), '--quiet'];
  const k = await startKernelProcess(args, {}, DIST_CLI);
  cleanups.push(async () => {
    k.child.kill('SIGCONT');
    await k.stop();
  });
  return k;
}

async function store() {
  const s = await startFencedStore();
  cleanups.push(() => s.close());
  return s;
}

function report(scenario: string, f: Record<string, number | string>) {
  console.log(
    `faults: ${scenario} ${Object.entries(f)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
}

describe('faults on one machine', () => {
  it('a kernel stopped (SIGSTOP) for 2× the lease time: no stale write, a grant soon after SIGCONT', async () => {
    const k = await kernel();
    const s = await store();
    const resource = 'lock:faults/kernel-stop';
    const holders = startHolders({
      urls: [k.url, k.url, k.url],
      resource,
      op: (fence, who) => fencedIncrement(s.url, resource, fence, who),
      // Long holds: the holder is mid-deploy when the kernel stops, and after.
      holdMs: () => 3 * TTL_MS,
    });
    cleanups.push(() => holders.stop());
    const recovers: number[] = [];
    for (let round = 0; round < 2; round += 1) {
      await until('a holder', () => holders.holding.size > 0, { timeoutMs: 30_000, everyMs: 10 });
      await sleep(300);
      k.child.kill('SIGSTOP');
      await sleep(2 * TTL_MS);
      k.child.kill('SIGCONT');
      const healed = Date.now();
      recovers.push((await holders.nextGrant(healed)).atMs - healed);
    }
    await sleep(1_000);
    await holders.stop();
    await verifiedLedger(k.url, keyDir);
    const f = figures(s, resource);
    report('kernel-sigstop', { ...f, faults: 2, recover_ms: Math.max(...recovers) });
    expect(f).toMatchObject({ stale: 0, lost: 0 });
    expect(f.ops).toBeGreaterThan(0);
    expect(Math.max(...recovers)).toBeLessThanOrEqual(RECOVER_BOUND_MS);
  }, 120_000);

  it('a `lease-gate run` stopped (SIGSTOP, its command too) for 2× the lease time: the next holder in time, the late writes refused', async () => {
    const k = await kernel();
    const s = await store();
    const resource = 'lock:faults/run-stop';
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-faults-run-'));
    const script = join(dir, 'writer.cjs');
    writeFileSync(script, WRITER);
    const run = (who: string) => {
      const child = spawn(
        process.execPath,
        [
          ...DIST_CLI,
          'run',
          '--resource',
          resource,
          '--actor-did',
          `did:web:faults.example:agent:${who}`,
          '--api-url',
          k.url,
          '--',
          process.execPath,
          script,
        ],
        {
          env: { PATH: process.env.PATH ?? '', STORE: s.url, RESOURCE: resource, WHO: who },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((done) => child.on('close', done));
      cleanups.push(async () => {
        child.kill('SIGCONT');
        child.kill('SIGTERM');
        await exited;
      });
      return { child, exited, stderr: () => stderr };
    };
    const writerPid = (who: string) =>
      s.attempts.map((w) => w.who.split(' ')).find(([name]) => name === who)?.[1];
    const a = run('a');
    await until("A's command writing", () => writerPid('a') !== undefined, {
      timeoutMs: 30_000,
      everyMs: 10,
    });
    const b = run('b');
    // B waits its turn (asks and is told the holder) while A writes.
    await sleep(1_500);
    const commandGroup = Number(writerPid('a'));
    const stoppedAt = Date.now();
    a.child.kill('SIGSTOP');
    process.kill(-commandGroup, 'SIGSTOP');
    await until("B's command writing", () => writerPid('b') !== undefined, {
      timeoutMs: 4 * TTL_MS,
      everyMs: 10,
    });
    await sleep(Math.max(0, stoppedAt + 2 * TTL_MS - Date.now()));
    const attemptsBefore = s.attempts.filter((w) => w.who.startsWith('a ')).length;
    // The command wakes first (as a deploy step does while its `run` is still starved).
    process.kill(-commandGroup, 'SIGCONT');
    await sleep(200);
    a.child.kill('SIGCONT');
    const codeA = await a.exited;
    await sleep(500);
    b.child.kill('SIGTERM');
    await b.exited;
    const entries = await verifiedLedger(k.url, keyDir);
    const grantB = entries.find((e) => e.kind === 'grant' && e.actorDid.endsWith(':b'))!;
    const lateA = s.attempts.filter((w) => w.who.startsWith('a ')).length - attemptsBefore;
    const f = figures(s, resource);
    const recover = grantB.tsMs - stoppedAt;
    report('run-sigstop', { ...f, faults: 1, late_writes: lateA, recover_ms: recover });
    expect(f).toMatchObject({ stale: 0, lost: 0 });
    // A's command asked with its old fence after SIGCONT, until `run` stopped it: every one
    // of those was refused, and a store without fences would have served them after B's.
    expect(lateA).toBeGreaterThan(0);
    expect(f.overlaps).toBeGreaterThan(0);
    expect(s.accepted.filter((w) => w.who.startsWith('a ') && w.atMs > grantB.tsMs)).toEqual([]);
    // `run` learned of the loss and stopped its command: a non-zero exit.
    expect(codeA).not.toBe(0);
    expect(a.stderr()).toMatch(/lease-gate: .*lock:faults\/run-stop/);
    expect(recover).toBeLessThanOrEqual(RECOVER_BOUND_MS);
  }, 120_000);

  it("the action's keeper stopped (SIGSTOP) for 2× the lease time while the deploy goes on", async () => {
    const k = await kernel();
    const s = await store();
    const resource = 'lock:faults/keeper-stop';
    const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-faults-keeper-'));
    const inputs = { 'api-url': k.url, resource };
    const env = { INTRAMEDIAL_KEY: 'k' };
    const main = await runStep('main', { inputs, env, tempDir });
    expect(main.code).toBe(0);
    const keeperPid = Number(main.state['keeper-pid']);
    const fence = Number(main.outputs.fence);
    cleanups.push(async () => void process.kill(keeperPid, 'SIGCONT'));
    // The deploy step: fenced read-modify-writes with the action's `fence` output, all along.
    let deploying = true;
    const deploy = (async () => {
      while (deploying) {
        await fencedIncrement(s.url, resource, fence, 'job').catch(() => undefined);
        await sleep(20);
      }
    })();
    // Another job waits for the lease.
    const other = startHolders({
      urls: [k.url],
      resource,
      op: (f, who) => fencedIncrement(s.url, resource, f, who),
    });
    cleanups.push(() => other.stop());
    await sleep(1_000);
    const stoppedAt = Date.now();
    process.kill(keeperPid, 'SIGSTOP');
    const next = await other.nextGrant(stoppedAt, 4 * TTL_MS);
    await sleep(Math.max(0, stoppedAt + 2 * TTL_MS - Date.now()));
    process.kill(keeperPid, 'SIGCONT');
    await sleep(1_000);
    deploying = false;
    await deploy;
    const post = await runStep('post', { inputs, env, tempDir, state: main.state });
    await other.stop();
    await verifiedLedger(k.url, keyDir);
    const f = figures(s, resource);
    const recover = next.atMs - stoppedAt;
    report('keeper-sigstop', { ...f, faults: 1, recover_ms: recover });
    expect(f).toMatchObject({ stale: 0, lost: 0 });
    // The deploy wrote on with its old fence after the other job's grant: refused here.
    expect(f.overlaps).toBeGreaterThan(0);
    // A store can refuse the old fence only once it has seen the new one: no write of the
    // job's after the first write it accepted with a higher fence (a grant the store has not
    // heard of yet cannot be enforced there, which is why the new holder writes first).
    const firstNewer = s.accepted.find((w) => w.fence > fence);
    expect(firstNewer).toBeDefined();
    expect(s.accepted.filter((w) => w.who === 'job' && w.atMs > firstNewer!.atMs)).toEqual([]);
    // Post never fails the job, and says the lease was lost.
    expect(post.code).toBe(0);
    expect(post.stdout).toMatch(/::error/);
    expect(recover).toBeLessThanOrEqual(RECOVER_BOUND_MS);
  }, 120_000);

  it('a network between a client and the kernel that delays, drops and cuts', async () => {
    const k = await kernel();
    const s = await store();
    const resource = 'lock:faults/proxy';
    const target = new URL(k.url);
    const proxy = await startFaultProxy(target.hostname, Number(target.port));
    cleanups.push(() => proxy.close());
    const viaProxy = `http://127.0.0.1:${proxy.port}`;
    // h0 reaches the kernel through the proxy, h1 and h2 directly: a partition cuts one holder off.
    const holders = startHolders({
      urls: [viaProxy, k.url, k.url],
      resource,
      op: (fence, who) => fencedIncrement(s.url, resource, fence, who),
      // h0 holds long: it is mid-deploy when the partition comes, and writes on through it.
      holdMs: (who) => (who === 'h0' ? 3 * TTL_MS : 300),
    });
    cleanups.push(() => holders.stop());
    const recovers: Record<string, number> = {};
    let faults = 0;
    for (const fault of [
      { mode: 'delay', delayMs: 400 },
      { mode: 'drop' },
      { mode: 'cut' },
    ] as const) {
      // A fresh grant of h0's: it is early in its hold, so it writes on through the fault.
      await holders.nextGrant(Date.now(), 60_000, 'h0');
      await sleep(200);
      const at = Date.now();
      proxy.set(fault);
      faults += 1;
      if (fault.mode === 'delay') {
        // Slow but whole: h0 keeps renewing through it.
        await sleep(TTL_MS);
        proxy.set({ mode: 'pass' });
        continue;
      }
      // Cut off, h0's lease lapses and another holder gets it within the bound.
      const next = await holders.nextGrant(at);
      recovers[fault.mode] = next.atMs - at;
      await sleep(Math.max(0, at + 2 * TTL_MS - Date.now()));
      proxy.set({ mode: 'pass' });
    }
    await sleep(1_000);
    await holders.stop();
    await verifiedLedger(k.url, keyDir);
    const f = figures(s, resource);
    report('proxy-client-kernel', {
      ...f,
      faults,
      recover_ms: Math.max(...Object.values(recovers)),
      ...Object.fromEntries(Object.entries(recovers).map(([m, ms]) => [`recover_${m}_ms`, ms])),
    });
    expect(f).toMatchObject({ stale: 0, lost: 0 });
    // h0 wrote on, cut off, after another holder's grant: refused here, taken without fences.
    expect(f.overlaps).toBeGreaterThan(0);
    expect(Math.max(...Object.values(recovers))).toBeLessThanOrEqual(RECOVER_BOUND_MS);
  }, 150_000);

  it('a wall-clock step (±1 h on Date.now, the monotonic clock unchanged) moves no expiry', async () => {
    // A whole-machine clock step is not safe on a shared host: the kernel runs here with its
    // default clock (epoch at start + monotonic since), and Date.now() is stepped under it.
    let offset = 0;
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
    cleanups.push(async () => vi.restoreAllMocks());
    const running = await startKernelServer({
      table: new ResourceTable({ ttlMs: TTL_MS }),
      log: () => undefined,
    });
    cleanups.push(() => running.close());
    const LEASE = '/api/v1/acp/coordination/lease';
    const resource = 'lock:faults/clock';
    const ask = (who: string) =>
      postJson(running.url, LEASE, { resource, actorDid: `did:web:faults.example:agent:${who}` });
    const stepped: Record<string, number> = {};
    for (const step of [-3_600_000, 3_600_000]) {
      offset = 0;
      const granted = await ask('a');
      expect(granted.status).toBe(200);
      const grantedAt = performance.now();
      offset = step;
      // Neither ended early (a step forward) nor kept an hour longer (a step back).
      expect((await ask('b')).body).toMatchObject({ reason: 'lease_held' });
      let answer = await ask('b');
      while (answer.status !== 200 && performance.now() - grantedAt < 3 * TTL_MS) {
        await sleep(50);
        answer = await ask('b');
      }
      const heldMs = Math.round(performance.now() - grantedAt);
      expect(answer.status).toBe(200);
      expect(heldMs).toBeGreaterThanOrEqual(TTL_MS - 500);
      stepped[step > 0 ? 'forward_held_ms' : 'back_held_ms'] = heldMs;
      await postJson(running.url, '/api/v1/acp/coordination/release', {
        resource,
        actorDid: 'did:web:faults.example:agent:b',
      });
    }
    // A client on the stepped clock believes a grant an hour behind it: the expiry is checked
    // against the kernel's own clock (its Date header), never the runner's.
    offset = 3_600_000;
    const client = createPlaneClient({ apiUrl: running.url });
    const asC = { resource, actorDid: 'did:web:faults.example:agent:c' };
    const believed = await client.lease(asC, { retryUntilMs: 0 });
    expect(believed.kind).toBe('granted');
    expect((await client.release(asC)).released).toBe(true);
    await client.close();
    report('wall-step', { ops: 4, faults: 2, stale: 0, lost: 0, overlaps: 0, ...stepped });
  }, 60_000);
});

describe('a client whose wall clock is behind the kernel', () => {
  // #36 item 3's finding, fixed: the keeper paced renewals from expiresAtMs less its own wall
  // clock, so 10 s behind a kernel of 3 s leases it waited ~4 s to renew and the lease lapsed.
  // It now paces from the lease time the kernel tells (ttlMs), from when it sent the request.
  it('keeps a 3 s lease through 2 lifetimes while 10 s behind', async () => {
    const running = await startKernelServer({
      table: new ResourceTable({ ttlMs: TTL_MS }),
      log: () => undefined,
    });
    cleanups.push(() => running.close());
    const realNow = Date.now.bind(Date);
    const session = openSession({
      apiUrl: running.url,
      key: '',
      resource: 'lock:faults/skew',
      actorDid: 'did:web:faults.example:agent:skewed',
      wallNow: () => realNow() - 10_000,
    });
    cleanups.push(() => session.close());
    const got = await session.acquire({ timeoutMs: 10_000 });
    if (got.outcome !== 'granted') throw new Error(`not granted: ${got.outcome}`);
    const stop = new AbortController();
    const keeping = got.held.keep({ signal: stop.signal });
    await sleep(2 * TTL_MS);
    stop.abort();
    const status = await keeping;
    expect(status.lost).toBeUndefined();
  }, 30_000);
});

/** `run`'s command: fenced read-modify-writes every 20 ms until stopped, whatever the store says. */
const WRITER = `const { STORE, RESOURCE, WHO, LEASE_GATE_FENCE } = process.env;
const headers = { 'lease-gate-resource': RESOURCE, 'lease-gate-fence': LEASE_GATE_FENCE, 'x-writer': WHO + ' ' + process.pid };
async function op() {
  const read = await fetch(STORE + '/value', { headers });
  const seen = await read.json();
  if (read.status === 409) return;
  await fetch(STORE + '/value', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ value: seen.value + 1 }) }).then((r) => r.text());
}
(async () => { for (;;) { await op().catch(() => undefined); await new Promise((r) => setTimeout(r, 20)); } })();
`;
