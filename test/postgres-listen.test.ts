import pg from 'pg';
import { expect, it } from 'vitest';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { channelOf } from '../src/kernel/postgres/listen.js';
import { post as send } from './support/http.js';
import { pgReplicas } from './support/pg-replicas.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { A, B, LEASE, RELEASE } from './support/names.js';

/**
 * A replica whose LISTEN connection breaks misses the NOTIFYs sent meanwhile;
 * once it listens again, every request it holds asks again, so a release made
 * while it was deaf still hands the lease over.
 */

const post = (url: string, path: string, body: unknown, prefer?: string) =>
  send(url, path, body, { prefer, timeoutMs: 25_000 });

describePostgres('LISTEN reconnects on PostgreSQL replicas', () => {
  const replicas = pgReplicas();

  it('wakes held requests after the LISTEN connection is cut, so a release meanwhile is not missed', async () => {
    // The next in line asks again only after 20 s on its own: a grant sooner comes from the wake.
    const [one, two] = await replicas.pair({ nextInLineWaitMs: 20_000 });
    const { schema } = replicas;
    const resource = 'lock:listen/reconnect';
    expect((await post(one.url, LEASE, { resource, actorDid: A })).status).toBe(200);
    const started = performance.now();
    const held = post(two.url, LEASE, { resource, actorDid: B }, 'wait=25');

    const admin = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema }));
    await admin.connect();
    try {
      // Until B waits in the queue as the database sees it (bounded).
      for (let i = 0; i < 300; i += 1) {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT jsonb_array_length(state->'queue') AS n FROM lease_gate_resources WHERE resource = $1`,
          [resource],
        );
        if ((rows[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Both replicas' LISTEN connections go (their backends run nothing but LISTEN on this plane).
      const listening = `LISTEN ${channelOf(schema)}`;
      const cut = await admin.query<{ done: boolean }>(
        `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE query = $1`,
        [listening],
      );
      expect(cut.rows.filter((r) => r.done)).toHaveLength(2);
      // Released while nobody listens: this NOTIFY reaches no replica.
      expect((await post(one.url, RELEASE, { resource, actorDid: A })).body).toMatchObject({
        released: true,
      });
    } finally {
      await admin.end();
    }
    const granted = await held;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    expect(performance.now() - started).toBeLessThan(10_000); // the wake, not B's ask 20 s on
  });
});
