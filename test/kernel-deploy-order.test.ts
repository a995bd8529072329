import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { fileStore } from '../src/kernel/store/store.js';
import { Ledger } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import type { Deploy } from '../src/plane/deploy.js';
import { postJson } from './support/http.js';
import { LEASE, RELEASE } from './support/names.js';

/** Deploy order in the kernel over HTTP: the extension fields, the ledger, restarts, fairness. */

const open: RunningKernel[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const kernel of open.splice(0)) await kernel.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function kernel(
  options: { file?: string; signingKey?: ReturnType<typeof keys>['privateKey'] } = {},
) {
  const running = await startKernelServer({
    table: new ResourceTable({ nextInLineWaitMs: 50 }),
    ...(options.file ? { store: fileStore(options.file) } : {}),
    ledger: new Ledger(options.signingKey),
    log: () => undefined,
  });
  open.push(running);
  return running;
}

const keys = () => generateKeyPairSync('ed25519');

const post = postJson;

async function status(url: string, resource: string) {
  const res = await request(`${url}${LEASE}?resource=${encodeURIComponent(resource)}`);
  return ((await res.body.json()) as { lease: Record<string, unknown> | null }).lease;
}

const run = (n: number, ref = 'refs/heads/main', extra: Partial<Deploy> = {}): Deploy => ({
  repository: 'acme/shop',
  workflow: '.github/workflows/deploy.yml',
  ref,
  commit: n.toString(16).padStart(40, '0'),
  runNumber: n,
  runAttempt: 1,
  runUrl: `https://github.com/acme/shop/actions/runs/${9000 + n}`,
  ...extra,
});
const did = (n: number, ref = 'main') => `did:web:github.com:acme:shop:run:${ref}:${n}`;

describe('the deploy extension fields', () => {
  it.each([
    [{ commit: 'abc' }, /^deploy\.commit: expected a full commit SHA/],
    [{ repository: 'not a repo' }, /^deploy\.repository: expected owner\/repo/],
    [{ runNumber: 0 }, /^deploy\.runNumber: expected a whole number from 1/],
    [{ runNumber: 1.5 }, /^deploy\.runNumber/],
    [{ runAttempt: '2' }, /^deploy\.runAttempt/],
    [{ runUrl: 'http://github.com/x' }, /^deploy\.runUrl: expected an https:\/\/ URL/],
    [{ runUrl: 'https://u:p@github.com/x' }, /^deploy\.runUrl/],
    [{ ref: 'refs/heads/a b' }, /^deploy\.ref/],
    [{ workflow: 'a\nb' }, /^deploy\.workflow: expected one line/],
    [{ workflow: 'x'.repeat(300) }, /^deploy\.workflow/],
  ])('refuses %j with a 400 naming the field, and grants nothing', async (bad, message) => {
    const { url } = await kernel();
    const answer = await post(url, LEASE, {
      resource: 'lock:deploy/production',
      actorDid: did(1),
      deploy: { ...run(1), ...bad },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ ok: false, reason: 'bad_request' });
    expect(answer.body.message).toMatch(message);
    expect(await status(url, 'lock:deploy/production')).toBeNull();
  });

  it('refuses a queue mode it does not know, and an outdated flag that is not a boolean', async () => {
    const { url } = await kernel();
    const body = { resource: 'r', actorDid: did(1) };
    const queue = await post(url, LEASE, { ...body, queue: 'lifo' });
    expect(queue.status).toBe(400);
    expect(queue.body.message).toMatch(/^queue: /);
    const release = await post(url, RELEASE, { ...body, outdated: 'yes' });
    expect(release.status).toBe(400);
    expect(release.body.message).toMatch(/^outdated: expected true or false/);
  });

  it('drops deploy fields it does not know (a newer gate may say more)', async () => {
    const { url } = await kernel();
    const answer = await post(url, LEASE, {
      resource: 'r',
      actorDid: did(1),
      deploy: { ...run(1), environment: 'production' },
    });
    expect(answer.status).toBe(200);
    expect((answer.body.lease as { deploy: unknown }).deploy).toEqual(run(1));
  });

  it('shows the deploy in status, records it in the grant entry, and the ledger verifies', async () => {
    const { privateKey } = keys();
    const { url } = await kernel({ signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    const first = await client.lease({ resource: 'r', actorDid: did(1), deploy: run(1) });
    expect(first).toMatchObject({ kind: 'granted' });
    expect(first).not.toHaveProperty('previous');
    expect((await status(url, 'r'))?.deploy).toEqual(run(1));
    await client.release({ resource: 'r', actorDid: did(1) });
    const second = await client.lease({ resource: 'r', actorDid: did(2), deploy: run(2) });
    expect(second).toMatchObject({ kind: 'granted', previous: run(1) });
    // A lease without a deploy (the hosted plane's shape) is granted as before.
    await client.lease({ resource: 'other', actorDid: did(3) });
    await client.close();
    const { bundle, publicKey } = await fetchLedger(url);
    const entries = (bundle as { entries: Array<{ entry: Record<string, unknown> }> }).entries;
    const grants = entries.map((e) => e.entry).filter((e) => e.kind === 'grant');
    expect(grants.map((g) => g.deploy)).toEqual([run(1), run(2), undefined]);
    expect(entries.find((e) => e.entry.kind === 'release')?.entry).not.toHaveProperty('deploy');
    expect(verifyBundle(bundle, createPublicKey(publicKey))).toMatchObject({ count: 4 });
  });

  it('answers previous per repository: another repository grant does not count', async () => {
    const { url } = await kernel();
    const client = createPlaneClient({ apiUrl: url });
    await client.lease({ resource: 'r', actorDid: did(1), deploy: run(1) });
    await client.release({ resource: 'r', actorDid: did(1) });
    const other = { ...run(7), repository: 'acme/docs' };
    expect(
      await client.lease({ resource: 'r', actorDid: did(7), deploy: other }),
    ).not.toHaveProperty('previous');
    await client.release({ resource: 'r', actorDid: did(7) });
    expect(await client.lease({ resource: 'r', actorDid: did(2), deploy: run(2) })).toMatchObject({
      previous: run(1),
    });
    await client.close();
  });
});

describe('previous across an outdated release and a restart (file store)', () => {
  it('undoes an outdated grant, and a restart rebuilds both from the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-order-'));
    dirs.push(dir);
    const file = join(dir, 'kernel.log');
    let running = await kernel({ file });
    let client = createPlaneClient({ apiUrl: running.url });
    await client.lease({ resource: 'r', actorDid: did(5), deploy: run(5) });
    await client.release({ resource: 'r', actorDid: did(5) });
    // An old run is granted, finds itself outdated and gives the lease back without deploying.
    const old = await client.lease({ resource: 'r', actorDid: did(3), deploy: run(3) });
    expect(old).toMatchObject({ kind: 'granted', previous: run(5) });
    await client.release({ resource: 'r', actorDid: did(3), outdated: true });
    await client.close();
    await running.close();
    open.splice(0);

    running = await kernel({ file });
    client = createPlaneClient({ apiUrl: running.url });
    // The live commit is still run 5's, not the skipped run 3's.
    const next = await client.lease({ resource: 'r', actorDid: did(4), deploy: run(4) });
    expect(next).toMatchObject({ kind: 'granted', previous: run(5) });
    await client.release({ resource: 'r', actorDid: did(4) });
    await client.close();
    await running.close();
    open.splice(0);

    running = await kernel({ file });
    client = createPlaneClient({ apiUrl: running.url });
    const after = await client.lease({ resource: 'r', actorDid: did(6), deploy: run(6) });
    expect(after).toMatchObject({ kind: 'granted', previous: run(4) });
    await client.close();
  });
});

describe('superseding', () => {
  it('never supersedes the holder', async () => {
    const { url } = await kernel();
    const body = (n: number) => ({
      resource: 'r',
      actorDid: did(n),
      deploy: run(n),
      queue: 'newest',
    });
    expect((await post(url, LEASE, body(1))).body.ok).toBe(true);
    expect((await post(url, LEASE, body(2))).body).toMatchObject({ reason: 'lease_held' });
    expect((await post(url, LEASE, body(1))).body).toMatchObject({ ok: true, renewed: true });
    // Run 3 supersedes run 2, the waiter, not run 1, the holder.
    expect((await post(url, LEASE, body(3))).body).toMatchObject({
      reason: 'lease_held',
      position: 0,
    });
    expect((await post(url, LEASE, body(2))).body).toEqual({
      ok: false,
      reason: 'superseded',
      by: run(3).runUrl,
    });
    expect((await post(url, LEASE, body(1))).body).toMatchObject({ ok: true, renewed: true });
  });

  it('a rerun (same run number, higher attempt) neither supersedes nor is superseded by its run', async () => {
    const { url } = await kernel();
    const hold = { resource: 'r', actorDid: did(99, 'x'), deploy: run(99, 'refs/heads/x') };
    await post(url, LEASE, hold);
    const first = { resource: 'r', actorDid: did(4), deploy: run(4), queue: 'newest' };
    const rerun = {
      resource: 'r',
      actorDid: `${did(4)}:attempt2`,
      deploy: run(4, 'refs/heads/main', { runAttempt: 2 }),
      queue: 'newest',
    };
    expect((await post(url, LEASE, first)).body).toMatchObject({ position: 0 });
    expect((await post(url, LEASE, rerun)).body).toMatchObject({ position: 1 });
    expect((await post(url, LEASE, first)).body).toMatchObject({ position: 0 });
  });

  it('a stream of pushes to one branch cannot keep another branch waiting beyond its FIFO turn', async () => {
    const { url } = await kernel();
    const ask = (n: number, ref: string) =>
      post(url, LEASE, {
        resource: 'r',
        actorDid: did(n, ref),
        deploy: run(n, `refs/heads/${ref}`),
        queue: 'newest',
      });
    expect((await ask(1, 'main')).body.ok).toBe(true); // main #1 holds
    expect((await ask(2, 'main')).body).toMatchObject({ position: 0 });
    expect((await ask(3, 'dev')).body).toMatchObject({ position: 1 }); // dev's FIFO turn: second
    const positions: number[] = [];
    for (let n = 4; n < 24; n += 1) {
      const push = await ask(n, 'main');
      expect(push.body).toMatchObject({ reason: 'lease_held' });
      // The push before it (main #2 for the first) is superseded by it.
      expect((await ask(n === 4 ? 2 : n - 1, 'main')).body).toMatchObject({
        reason: 'superseded',
        by: run(n).runUrl,
      });
      positions.push((await ask(3, 'dev')).body.position as number);
    }
    // main #2 was superseded by #4 at once; dev never moved back, and is next.
    expect(Math.max(...positions)).toBeLessThanOrEqual(1);
    expect(positions.at(-1)).toBe(0);
    await post(url, RELEASE, { resource: 'r', actorDid: did(1, 'main') });
    expect((await ask(3, 'dev')).body).toMatchObject({ ok: true });
    expect((await ask(23, 'main')).body).toMatchObject({ reason: 'lease_held', position: 0 });
  });

  it('ends a held request (Prefer: wait) with superseded, not a hold to its end', async () => {
    const { url } = await kernel();
    await post(url, LEASE, { resource: 'r', actorDid: did(1), deploy: run(1) });
    const body = (n: number) => ({
      resource: 'r',
      actorDid: did(n),
      deploy: run(n),
      queue: 'newest',
    });
    expect((await post(url, LEASE, body(2))).body).toMatchObject({ position: 0 });
    const started = Date.now();
    const held = post(url, LEASE, body(2), { prefer: 'wait=20' });
    // The held request has asked once (it keeps its place) before the newer run joins.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await post(url, LEASE, body(3));
    const answer = await held;
    expect(answer.body).toEqual({ ok: false, reason: 'superseded', by: run(3).runUrl });
    // A final answer ends the hold: not lease_held after the 20 s it asked for.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
