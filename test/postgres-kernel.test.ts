import { createPublicKey } from 'node:crypto';
import pg from 'pg';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { PostgresService } from '../src/kernel/postgres/backend.js';
import { MIGRATIONS, migrate } from '../src/kernel/postgres/migrations.js';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { Ledger } from '../src/ledger/ledger.js';
import { createPlaneClient } from '../src/plane/client.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { meaningBreach, signingKey, startReplica } from './support/pg-kernel.js';
import { pgReplicas } from './support/pg-replicas.js';
import { A, B, C, R } from './support/names.js';

describePostgres('the kernel on PostgreSQL, two replicas in one process', () => {
  const replicas = pgReplicas();
  const replica = replicas.replica;

  it('serves the documented contract from either replica', async () => {
    const [one, two] = [await replica(), await replica()];
    const a = createPlaneClient({ apiUrl: one.url });
    const b = createPlaneClient({ apiUrl: two.url });
    const resource = `${R}/contract`;
    const granted = await a.lease({ resource, actorDid: A });
    if (granted.kind !== 'granted') throw new Error('expected a grant');
    expect(await b.lease({ resource, actorDid: B })).toMatchObject({ kind: 'held', holder: A });
    expect(await b.status(resource)).toMatchObject({ holder: A, id: granted.lease.id });
    // Renewal on the other replica keeps id and fence.
    const renewed = await b.lease({ resource, actorDid: A });
    expect(renewed).toMatchObject({
      kind: 'granted',
      lease: { id: granted.lease.id, fence: granted.lease.fence },
    });
    expect(await b.release({ resource, actorDid: B })).toEqual({
      released: false,
      releasedIds: [],
    });
    expect((await b.release({ resource, actorDid: A })).releasedIds).toEqual([granted.lease.id]);
    expect(await a.status(resource)).toBeNull();
    const next = await b.lease({ resource, actorDid: B });
    if (next.kind !== 'granted') throw new Error('expected a grant');
    expect(next.lease.fence).toBeGreaterThan(granted.lease.fence!);
  });

  it('answers a refusal with 409, a revoke on one replica holds on the other', async () => {
    const [one, two] = [
      await replica({ adminKey: 'admin-key' }),
      await replica({ adminKey: 'admin-key' }),
    ];
    const resource = `${R}/revoke`;
    const post = async (url: string, path: string, body: unknown, auth?: string) => {
      const res = await request(url + path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    const lease = '/api/v1/acp/coordination/lease';
    expect((await post(one.url, lease, { resource, actorDid: A })).status).toBe(200);
    const held = await post(two.url, lease, { resource, actorDid: B });
    expect(held).toMatchObject({ status: 409, body: { reason: 'lease_held', holder: A } });
    const revoked = await post(
      two.url,
      '/api/v1/acp/coordination/revoke',
      { resource, reason: 'incident 42' },
      'Bearer admin-key',
    );
    expect(revoked.body).toMatchObject({ ok: true, revoked: true, holder: A });
    expect(await post(one.url, lease, { resource, actorDid: A })).toMatchObject({
      status: 409,
      body: { reason: 'revoked', message: 'incident 42' },
    });
    // B waits for A to give back (on either replica), then is granted.
    expect(await post(one.url, lease, { resource, actorDid: B })).toMatchObject({
      status: 409,
      body: { reason: 'lease_held', holder: A },
    });
    await post(two.url, '/api/v1/acp/coordination/release', { resource, actorDid: A });
    expect((await post(one.url, lease, { resource, actorDid: B })).status).toBe(200);
  });

  it('keeps a freed resource for the next in line across replicas', async () => {
    const [one, two] = [await replica(), await replica()];
    const resource = `${R}/reserve`;
    const a = createPlaneClient({ apiUrl: one.url });
    const b = createPlaneClient({ apiUrl: two.url });
    await a.lease({ resource, actorDid: A });
    expect(await b.lease({ resource, actorDid: B })).toMatchObject({ kind: 'held' });
    await a.release({ resource, actorDid: A });
    const overview = await request(`${two.url}/api/v1/kernel/resources`);
    const { resources } = (await overview.body.json()) as {
      resources: Array<{ resource: string }>;
    };
    expect(resources.find((r) => r.resource === resource)).toMatchObject({
      lease: null,
      reserved: { holder: B },
      queue: [{ actorDid: B, position: 0 }],
    });
    expect(await a.lease({ resource, actorDid: C })).toMatchObject({ kind: 'held', holder: B });
    expect(await b.lease({ resource, actorDid: B })).toMatchObject({ kind: 'granted' });
  });

  it('records a lapse that no replica timer owns, and tells a replica that listens', async () => {
    const granting = await startReplica(replicas.schema, { ttlMs: 300 });
    const watching = await replica({ ttlMs: 300 });
    const resource = `${R}/lapse`;
    const told: string[] = [];
    watching.pg.onChange((r, e) => r === resource && told.push(e.kind));
    await watching.pg.listen(resource);
    await createPlaneClient({ apiUrl: granting.url }).lease({ resource, actorDid: A });
    await granting.close(); // the replica that granted is gone
    const deadline = Date.now() + 10_000;
    while (!told.includes('lapse') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(told).toEqual(['grant', 'lapse']);
    expect(await createPlaneClient({ apiUrl: watching.url }).status(resource)).toBeNull();
  });

  it('serves one ledger from any replica, identical checkpoints, verified with its meaning', async () => {
    const [one, two] = [await replica(), await replica()];
    const a = createPlaneClient({ apiUrl: one.url });
    for (let i = 0; i < 5; i += 1) {
      await a.lease({ resource: `${R}/ledger`, actorDid: i % 2 ? A : B });
      await a.release({ resource: `${R}/ledger`, actorDid: i % 2 ? A : B });
    }
    const { bundle } = await fetchLedger(two.url);
    const checked = verifyBundle(bundle, createPublicKey(signingKey));
    const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries.map(
      (e) => e.entry,
    );
    expect(checked.size).toBe(entries.length);
    expect(meaningBreach(entries)).toBeUndefined();
    const cp = async (url: string) =>
      (await request(`${url}/api/v1/acp/ledger/checkpoint`)).body.text();
    const [c1, c2] = [await cp(one.url), await cp(two.url)];
    expect(c1).toBe(c2);
  });

  it('answers /healthz and /readyz', async () => {
    const one = await replica();
    expect((await request(`${one.url}/healthz`)).statusCode).toBe(200);
    const ready = await request(`${one.url}/readyz`);
    expect([ready.statusCode, await ready.body.json()]).toEqual([200, { ok: true }]);
  });
});

describePostgres('migrations', () => {
  const replicas = pgReplicas();

  it('apply once when several replicas start together, and are idempotent', async () => {
    const { schema } = replicas;
    const clients = Array.from(
      { length: 4 },
      () => new pg.Client(connectionConfig({ url: POSTGRES_URL, schema })),
    );
    await Promise.all(clients.map((c) => c.connect()));
    const applied = await Promise.all(clients.map((c) => migrate(c, schema)));
    expect(applied.flat()).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await migrate(clients[0]!, schema)).toEqual([]);
    await Promise.all(clients.map((c) => c.end()));
  });

  it('refuses a database whose schema is newer than this binary', async () => {
    const { schema } = replicas;
    const admin = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema }));
    await admin.connect();
    await admin.query(`INSERT INTO lease_gate_migrations (version, name) VALUES (99, 'future')`);
    await admin.end();
    await expect(
      PostgresService.open({ url: POSTGRES_URL, schema, ledger: new Ledger(signingKey) }),
    ).rejects.toThrow(
      new RegExp(
        `schema .* is at version 99, newer than this lease-gate \\(version ${MIGRATIONS.length}\\)`,
      ),
    );
  });
});
