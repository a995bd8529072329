import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createKernelApp } from '../src/kernel/http/app.js';
import { HeldRequests, type Timers } from '../src/kernel/service/held.js';
import { PostgresService } from '../src/kernel/postgres/backend.js';
import { nodeAdapter } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { fetchLedger } from '../src/ledger/remote.js';
import type { CommittedBatch } from '../src/kernel/service/observer.js';
import { post as send } from './support/http.js';
import { meaningBreach, signingKey, startReplica } from './support/pg-kernel.js';
import { pgReplicas, waitsInQueue as queued } from './support/pg-replicas.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { A, B, C, LEASE, RELEASE } from './support/names.js';

/**
 * Blocking acquire (`Prefer: wait=N`) across two replicas on one database:
 * a request held on one replica is woken by the other's NOTIFY, or by the
 * NOTIFY of a lapse that the sweep found after the granting replica went away.
 * On one replica, the request held there asks in the release's own batch.
 */

const post = (url: string, path: string, body: unknown, prefer?: string) =>
  send(url, path, body, { prefer, timeoutMs: 15_000 });

/** Timers that never fire: a held request then asks again only when it is woken. */
const wakeOnly: Timers = { set: () => undefined, clear: () => undefined };

describePostgres('blocking acquire across PostgreSQL replicas', () => {
  const replicas = pgReplicas();

  it('grants a request held on one replica soon after the holder releases on the other', async () => {
    // The next in line is told to ask again only after 20 s: a fast grant can only come from the wake.
    const [one, two] = await replicas.pair({ nextInLineWaitMs: 20_000 });
    const resource = 'lock:deploy/handover';
    expect((await post(one.url, LEASE, { resource, actorDid: A })).status).toBe(200);
    const refused = await post(two.url, LEASE, { resource, actorDid: B });
    expect((refused.body.stampede as { waitMs: number }).waitMs).toBeGreaterThanOrEqual(15_000);

    const held = post(two.url, LEASE, { resource, actorDid: B }, 'wait=20');
    await queued(two.url, resource, B);
    const released = await post(one.url, RELEASE, { resource, actorDid: A });
    expect(released.body).toMatchObject({ released: true });
    const granted = await held;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    expect(granted.applied).toBe('wait=20');
    expect(granted.at - released.at).toBeLessThan(10_000); // not B's next ask, 15 s on
  });

  it('wakes a held request on another replica when the sweep finds the lease lapsed', async () => {
    const ttlMs = 1_000;
    const granting = await startReplica(replicas.schema, { ttlMs });
    const service = await PostgresService.open({
      url: POSTGRES_URL,
      schema: replicas.schema,
      ledger: new Ledger(signingKey),
      ttlMs,
      log: () => undefined,
    });
    const app = createKernelApp({ service, held: new HeldRequests(service, { timers: wakeOnly }) });
    const handle = nodeAdapter(app, () => undefined);
    const server = createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const watching = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    replicas.cleanup(async () => {
      app.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
    });

    const resource = 'lock:deploy/lapse';
    const grant = await post(granting.url, LEASE, { resource, actorDid: A });
    const lease = grant.body.lease as { id: string; expiresAtMs: number };
    const held = post(watching, LEASE, { resource, actorDid: B }, 'wait=20');
    await queued(watching, resource, B);
    await granting.close(); // the replica that granted is gone; no timer of its own will fire

    const granted = await held;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    // Within the lease, a sweep (a quarter of the TTL here) and generous slack of its end.
    expect(granted.at - grant.at).toBeLessThan(ttlMs + 9_000);
    await service.syncLedger();
    const { ledger } = service;
    const kinds = (await ledger.read(0, ledger.size, ledger.size, () => ledger.bundle())).entries
      .map(({ entry }) => entry)
      .filter((e) => e.resource === resource)
      .map((e) => [e.kind, e.actorDid]);
    expect(kinds).toEqual([
      ['grant', A],
      ['lapse', A],
      ['grant', B],
    ]);
    expect(lease.id).not.toBe((granted.body.lease as { id: string }).id);
  });
});

/** Each batch the replica commits, as its commands' kinds and whether each was granted. */
function batchesOf(replica: {
  pg: { observe(o: { committed(b: CommittedBatch): void }): unknown };
}) {
  const batches: Array<Array<{ kind: string; granted?: boolean }>> = [];
  replica.pg.observe({
    committed: ({ commands, decisions }) =>
      batches.push(
        commands.map((c, i) => {
          const reply = decisions[i]?.reply as { ok?: boolean; lease?: unknown } | undefined;
          return c.kind === 'lease'
            ? { kind: c.kind, granted: reply?.ok === true }
            : { kind: c.kind };
        }),
      ),
  });
  return batches;
}

async function ledgerOf(url: string, resource: string) {
  const { bundle } = (await fetchLedger(url)) as {
    bundle: { entries: Array<{ entry: LedgerEntry }> };
  };
  const entries = bundle.entries.map((e) => e.entry);
  expect(meaningBreach(entries)).toBeUndefined();
  return entries.filter((e) => e.resource === resource).map((e) => [e.kind, e.actorDid]);
}

describePostgres('handover on one PostgreSQL replica', () => {
  const replicas = pgReplicas();

  it('grants the request held there in the release’s own commit', async () => {
    // The next in line is told to ask again only after 20 s: only the release's batch can grant it.
    const replica = await replicas.replica({ nextInLineWaitMs: 20_000 });
    const batches = batchesOf(replica);
    const resource = 'lock:deploy/one-commit';
    expect((await post(replica.url, LEASE, { resource, actorDid: A })).status).toBe(200);
    const held = post(replica.url, LEASE, { resource, actorDid: B }, 'wait=20');
    await queued(replica.url, resource, B);

    const released = await post(replica.url, RELEASE, { resource, actorDid: A });
    expect(released.body).toMatchObject({ released: true });
    const granted = await held;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    expect(granted.applied).toBe('wait=20');
    // One batch, one transaction: the release, then B's ask granted on what it left.
    const releasing = batches.find((b) => b.some((c) => c.kind === 'release'));
    expect(releasing).toEqual([{ kind: 'release' }, { kind: 'lease', granted: true }]);
    expect(await ledgerOf(replica.url, resource)).toEqual([
      ['grant', A],
      ['release', A],
      ['grant', B],
    ]);
  });

  it('keeps the freed resource for the head of the queue when it is not held there', async () => {
    const replica = await replicas.replica({ nextInLineWaitMs: 20_000 });
    const batches = batchesOf(replica);
    const resource = 'lock:deploy/head-elsewhere';
    expect((await post(replica.url, LEASE, { resource, actorDid: A })).status).toBe(200);
    // C asks without waiting and is first in line; B is held behind it.
    expect((await post(replica.url, LEASE, { resource, actorDid: C })).status).toBe(409);
    const held = post(replica.url, LEASE, { resource, actorDid: B }, 'wait=20');
    await queued(replica.url, resource, B);

    expect((await post(replica.url, RELEASE, { resource, actorDid: A })).body).toMatchObject({
      released: true,
    });
    // B asked in the release's batch and was refused: the resource is kept for C.
    const releasing = batches.find((b) => b.some((c) => c.kind === 'release'));
    expect(releasing).toEqual([{ kind: 'release' }, { kind: 'lease', granted: false }]);
    expect((await post(replica.url, LEASE, { resource, actorDid: C })).status).toBe(200);
    expect((await post(replica.url, RELEASE, { resource, actorDid: C })).status).toBe(200);
    expect((await held).body).toMatchObject({ ok: true, lease: { holder: B } });
    expect(await ledgerOf(replica.url, resource)).toEqual([
      ['grant', A],
      ['release', A],
      ['grant', C],
      ['release', C],
      ['grant', B],
    ]);
  });
});
