import pg from 'pg';
import { expect, it } from 'vitest';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { getJson, post as send, statusAndBody } from './support/http.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { pgReplicas } from './support/pg-replicas.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import { A, B, LEASE } from './support/names.js';

const post = async (url: string, body: unknown) => statusAndBody(await send(url, LEASE, body));
const get = async (url: string, path: string) => statusAndBody(await getJson(url, path));

describePostgres('the PostgreSQL store under faults', () => {
  const replicas = pgReplicas();

  const viaProxy = async () => {
    const target = new URL(POSTGRES_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const url = new URL(POSTGRES_URL);
    url.port = String(proxy.port);
    const kernel = await replicas.replica({ url: url.toString(), connectTimeoutMs: 500 });
    replicas.closeAfter(proxy);
    return { proxy, kernel };
  };

  it('answers 503 store_unavailable while the database is away, and recovers by itself', async () => {
    const { proxy, kernel } = await viaProxy();
    const resource = 'lock:fault/down';
    expect((await post(kernel.url, { resource, actorDid: A })).status).toBe(200);
    proxy.takeDown();
    expect(await post(kernel.url, { resource, actorDid: B })).toEqual({
      status: 503,
      body: { ok: false, reason: 'store_unavailable', message: expect.any(String) },
    });
    expect(await get(kernel.url, '/readyz')).toMatchObject({
      status: 503,
      body: { ok: false, reason: 'store_unavailable' },
    });
    expect(await get(kernel.url, '/healthz')).toEqual({ status: 200, body: { ok: true } });
    proxy.bringUp();
    expect(await post(kernel.url, { resource, actorDid: B })).toMatchObject({
      status: 409,
      body: { reason: 'lease_held', holder: A },
    });
    expect((await get(kernel.url, '/readyz')).status).toBe(200);
  });

  it('leaves nothing half-applied when the connection breaks as the commit is sent', async () => {
    const { proxy, kernel } = await viaProxy();
    const resource = 'lock:fault/commit';
    const head = async () => {
      const client = new pg.Client(
        connectionConfig({ url: POSTGRES_URL, schema: replicas.schema }),
      );
      await client.connect();
      const { rows } = await client.query<{ size: string }>(
        'SELECT size FROM lease_gate_ledger_head',
      );
      const state = await client.query(
        'SELECT state FROM lease_gate_resources WHERE resource = $1',
        [resource],
      );
      await client.end();
      return { size: Number(rows[0]!.size), rows: state.rowCount };
    };
    const before = await head();
    proxy.cutWhenSent('lease_gate_commit');
    expect((await post(kernel.url, { resource, actorDid: A })).body).toMatchObject({
      reason: 'store_unavailable',
    });
    expect(await head()).toEqual(before);
    const granted = await post(kernel.url, { resource, actorDid: A });
    expect(granted).toMatchObject({ status: 200, body: { ok: true, renewed: false } });
    expect((await head()).size).toBe(before.size + 1);
  });

  it('answers 503 soon when every connection of the pool is busy', async () => {
    const kernel = await replicas.replica({
      poolSize: 2,
      connectTimeoutMs: 300,
      statementTimeoutMs: 8_000,
    });
    const stuck = 'lock:fault/stuck';
    expect((await post(kernel.url, { resource: stuck, actorDid: A })).status).toBe(200);
    // Another session holds the row: both pool connections wait on its lock.
    const holder = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema: replicas.schema }));
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM lease_gate_resources WHERE resource = $1 FOR UPDATE', [
      stuck,
    ]);
    const waiting = [
      post(kernel.url, { resource: stuck, actorDid: B }),
      post(kernel.url, { resource: stuck, actorDid: A }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asked = Date.now();
    const answer = await post(kernel.url, { resource: 'lock:fault/other', actorDid: A });
    const tookMs = Date.now() - asked;
    expect(answer).toMatchObject({ status: 503, body: { reason: 'store_unavailable' } });
    // Bounded by the pool's connect timeout (300 ms), far inside a client's 10 s.
    expect(tookMs).toBeLessThan(5_000);
    await holder.query('ROLLBACK');
    await holder.end();
    const settled = await Promise.all(waiting);
    expect(settled.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});
