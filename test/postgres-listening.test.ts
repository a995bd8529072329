import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { LISTEN_FOR_MS, Listening, RENEW_AFTER_MS } from '../src/kernel/postgres/listening.js';
import { migrate } from '../src/kernel/postgres/migrations.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { pgReplicas } from './support/pg-replicas.js';

/**
 * A replica's registrations to hear other replicas' changes
 * (src/kernel/postgres/listening.ts), on a real database with an injected clock:
 * written once and renewed only when due, pruned when run out, and a failed one
 * logged once and written again at the next listen.
 */
describePostgres('registrations to listen on PostgreSQL', () => {
  const kit = pgReplicas();
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool(connectionConfig({ url: POSTGRES_URL, schema: kit.schema }));
    const client = await pool.connect();
    await migrate(client, kit.schema);
    client.release();
  });
  afterAll(async () => {
    await pool.end();
  });

  const rows = async () =>
    (
      await pool.query<{ resource: string; replica: string; left: number }>(
        `SELECT resource, replica,
                (until_ms - floor(extract(epoch FROM clock_timestamp()) * 1000))::float8 AS left
           FROM lease_gate_listening ORDER BY resource, replica`,
      )
    ).rows;

  it('writes a registration once, renews it when due, prunes what ran out, writes again what was lost and deletes its own at close', async () => {
    let now = 0;
    const written: string[] = [];
    const query = (text: string, values: unknown[]) => {
      if (text.includes('INSERT INTO lease_gate_listening')) written.push(values[0] as string);
      return pool.query(text, values);
    };
    const listening = new Listening(
      query,
      'replica-a',
      () => undefined,
      () => now,
    );
    await Promise.all([listening.listen('lock:a'), listening.listen('lock:a')]);
    await listening.listen('lock:a');
    expect(written).toEqual(['lock:a']);
    const [first] = await rows();
    expect(first).toMatchObject({ resource: 'lock:a', replica: 'replica-a' });
    expect(first!.left).toBeGreaterThan(LISTEN_FOR_MS - 60_000);

    now = RENEW_AFTER_MS - 1;
    await listening.listen('lock:a');
    expect(written).toEqual(['lock:a']);
    now = RENEW_AFTER_MS;
    await listening.listen('lock:a');
    expect(written).toEqual(['lock:a', 'lock:a']);

    // Another replica's row that ran out (a replica killed long ago) goes; live ones stay.
    await pool.query(
      `INSERT INTO lease_gate_listening VALUES ('lock:a', 'replica-gone', 0), ('lock:b', 'replica-b', 9e15)`,
    );
    await listening.prune();
    expect((await rows()).map((r) => `${r.resource} ${r.replica}`)).toEqual([
      'lock:a replica-a',
      'lock:b replica-b',
    ]);
    // The database lost it (its LISTEN connection broke): written again at once.
    await pool.query(`DELETE FROM lease_gate_listening WHERE replica = 'replica-a'`);
    await listening.again();
    expect(written).toEqual(['lock:a', 'lock:a', 'lock:a']);
    expect((await rows()).map((r) => `${r.resource} ${r.replica}`)).toEqual([
      'lock:a replica-a',
      'lock:b replica-b',
    ]);
    await listening.close();
    expect((await rows()).map((r) => r.replica)).toEqual(['replica-b']);
    await pool.query('DELETE FROM lease_gate_listening');
  });

  it('logs a failed registration once, never remembers it, and says when it works again', async () => {
    const logged: string[] = [];
    let broken = true;
    const query = (text: string, values: unknown[]) =>
      broken ? Promise.reject(new Error('connection refused')) : pool.query(text, values);
    const listening = new Listening(
      query,
      'replica-c',
      (line) => logged.push(line),
      () => 0,
    );
    await listening.listen('lock:c');
    await listening.listen('lock:c');
    expect(logged).toEqual([
      'kernel: could not register a listener; held requests and watches here wake at their told wait instead: connection refused',
    ]);
    expect(await rows()).toEqual([]);
    broken = false;
    await listening.listen('lock:c');
    expect((await rows()).map((r) => r.resource)).toEqual(['lock:c']);
    expect(logged.at(-1)).toBe('kernel: registers its listeners again');
    await listening.close();
  });
});
