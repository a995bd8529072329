import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post } from './support/http.js';
import { A, B, LEASE, R, RELEASE } from './support/names.js';
import { startReplica } from './support/pg-kernel.js';
import { describePostgres, testSchema } from './support/postgres.js';

/**
 * The metrics of a replica on the real PostgreSQL: its batches counted under
 * store="postgres", their commit latency, the round trips they took, and the grants.
 */

const ADMIN = 'metrics-postgres-admin-key';

describePostgres('metrics on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof testSchema>>;
  let replica: Awaited<ReturnType<typeof startReplica>>;
  beforeAll(async () => {
    schema = await testSchema();
    replica = await startReplica(schema.schema, { adminKey: ADMIN });
  });
  afterAll(async () => {
    await replica?.close();
    await schema?.drop();
  });

  const sample = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('counts the store’s batches, their latency and round trips, and the grants', async () => {
    const scrape = async () => {
      const res = await request(`${replica.url}/metrics`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(res.statusCode).toBe(200);
      return res.body.text();
    };
    const before = sample(await scrape(), 'lease_gate_postgres_round_trips_total') ?? 0;
    expect((await post(replica.url, LEASE, { resource: R, actorDid: A })).body).toMatchObject({
      ok: true,
    });
    expect((await post(replica.url, LEASE, { resource: R, actorDid: B })).body).toMatchObject({
      reason: 'lease_held',
    });
    expect((await post(replica.url, RELEASE, { resource: R, actorDid: A })).status).toBe(200);
    const text = await scrape();
    expect(sample(text, `lease_gate_grants_total{resource="${R}"}`)).toBe(1);
    expect(sample(text, `lease_gate_releases_total{resource="${R}"}`)).toBe(1);
    expect(
      sample(text, 'lease_gate_store_batch_size_count{store="postgres"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'lease_gate_store_commit_seconds_count{store="postgres"}'),
    ).toBeGreaterThanOrEqual(3);
    // Each batch is at least one round trip (its read, then its write and COMMIT).
    const trips = sample(text, 'lease_gate_postgres_round_trips_total') ?? 0;
    expect(trips - before).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'lease_gate_ready')).toBe(1);
    expect(sample(text, 'lease_gate_ledger_entries')).toBe(2);
  });
});
