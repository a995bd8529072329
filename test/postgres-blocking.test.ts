import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createKernelApp } from '../src/kernel/http/app.js';
import { HeldRequests, type Timers } from '../src/kernel/service/held.js';
import { PostgresService } from '../src/kernel/postgres/backend.js';
import { nodeAdapter } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { post as send } from './support/http.js';
import { signingKey, startReplica } from './support/pg-kernel.js';
import { pgReplicas, waitsInQueue as queued } from './support/pg-replicas.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { A, B, LEASE, RELEASE } from './support/names.js';

/**
 * Blocking acquire (`Prefer: wait=N`) across two replicas on one database:
 * a request held on one replica is woken by the other's NOTIFY, or by the
 * NOTIFY of a lapse that the sweep found after the granting replica went away.
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
