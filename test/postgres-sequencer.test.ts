import { createPublicKey } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { planeLocks } from '../src/kernel/postgres/locks.js';
import { sequenceOnce } from '../src/kernel/postgres/sequencer.js';
import { createPlaneClient } from '../src/plane/client.js';
import { LEDGER_PATHS } from '../src/plane/schema.js';
import { meaningBreach, signingKey, startReplica } from './support/pg-kernel.js';
import { pgReplicas } from './support/pg-replicas.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';

/**
 * The ledger's sequencer (src/kernel/postgres/sequencer.ts): changes commit
 * with pending entries and no lock every change shares; the sequencer numbers
 * them later. Whatever stops it, nothing committed is lost or reordered.
 */

const agent = (i: number) => `did:web:acme.example:agent:${i}`;

describePostgres('the PostgreSQL ledger sequencer', () => {
  const replicas = pgReplicas();
  const clients: pg.Client[] = [];
  // Registered after pgReplicas: vitest runs after-hooks as a stack, so the clients end
  // (and their locks go) before the replicas close.
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.end().catch(() => undefined);
  });

  const replica = () => replicas.replica();
  const admin = async () => {
    const client = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema: replicas.schema }));
    client.on('error', () => undefined);
    await client.connect();
    clients.push(client);
    return client;
  };
  const count = async (client: pg.Client, table: string) =>
    Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  /** Every cycle a lease and a release, by `workers` clients at once on their own resources. */
  const cycles = async (urls: string[], workers: number, rounds: number, tag: string) => {
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const client = createPlaneClient({ apiUrl: urls[w % urls.length]! });
        const resource = `lock:${tag}/${w % 12}`;
        for (let i = 0; i < rounds; i += 1) {
          const answer = await client.lease({ resource, actorDid: agent(w) });
          if (answer.kind === 'granted') await client.release({ resource, actorDid: agent(w) });
        }
      }),
    );
  };
  const verified = async (url: string) => {
    const { bundle } = await fetchLedger(url);
    const checked = verifyBundle(bundle, createPublicKey(signingKey));
    const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries.map(
      (e) => e.entry,
    );
    expect(checked.size).toBe(entries.length);
    expect(meaningBreach(entries)).toBeUndefined();
    return entries;
  };

  it('keeps one history when two replicas commit at once on many resources', async () => {
    const [one, two] = [await replica(), await replica()];
    await cycles([one.url, two.url], 24, 8, 'many');
    const entries = await verified(two.url);
    // Grants' fences rise along the ledger, and each resource's entries follow its own order.
    const grants = entries.filter((e) => e.kind === 'grant').map((e) => e.fence);
    expect(grants).toEqual([...grants].sort((a, b) => a - b));
    expect(new Set(grants).size).toBe(grants.length);
    const db = await admin();
    expect(await count(db, 'lease_gate_pending')).toBe(0);
    const checkpoint = async (url: string) =>
      ((await fetchLedger(url)).bundle as { checkpoint: string }).checkpoint;
    expect(await checkpoint(one.url)).toBe(await checkpoint(two.url));
  });

  it('serves a ledger of several chunks from the database, keeping only its tree in memory', async () => {
    const one = await replica();
    // 12 × 50 cycles: 1,200 entries, past four of the tree's 256-line chunks.
    await cycles([one.url], 12, 50, 'chunks');
    await one.pg.syncLedger();
    const { ledger } = one.pg;
    expect(ledger.size).toBeGreaterThanOrEqual(1_200);
    // Chunk roots and the last chunk's nodes, not 1,200 lines (each well over 100 bytes).
    expect(ledger.heldBytes).toBeLessThan(32_000);
    const entries = await verified(one.url);
    expect(entries).toHaveLength(ledger.size);
    // A page that starts and ends inside chunks.
    const res = await fetch(
      `${one.url}${LEDGER_PATHS.bundle}?from=250&to=${ledger.size - 3}&limit=600`,
    );
    expect(res.status).toBe(200);
    const page = (await res.json()) as { checkpoint: string; entries: Array<{ index: number }> };
    expect(page.entries.map((e) => e.index)).toEqual(
      Array.from({ length: 600 }, (_, i) => 250 + i),
    );
    expect(verifyBundle(page, createPublicKey(signingKey), { allowPartial: true }).size).toBe(
      ledger.size,
    );
    // A replica that starts now reads the tree back from the table and signs the same.
    const two = await replica();
    const checkpoint = async (url: string) =>
      ((await fetchLedger(url)).bundle as { checkpoint: string }).checkpoint;
    expect(await checkpoint(two.url)).toBe(await checkpoint(one.url));
  });

  it("starts a replica from the tree's saved frontier when it agrees with the rows, else from every row", async () => {
    const one = await replica();
    await cycles([one.url], 12, 50, 'frontier');
    await one.pg.syncLedger();
    const db = await admin();
    const saved = await db.query<{ size: string }>('SELECT size FROM lease_gate_tree');
    expect(Number(saved.rows[0]!.size)).toBeGreaterThanOrEqual(1_024);
    const checkpoint = async (url: string) =>
      ((await fetchLedger(url)).bundle as { checkpoint: string }).checkpoint;
    const signed = await checkpoint(one.url);
    const logged: string[] = [];
    const started = async () => {
      return replicas.replica({ log: (line) => logged.push(line) });
    };
    // A row before the frontier is spoiled: a replica that reads every row refuses to start,
    // so one that starts has not read it.
    const original = (
      await db.query<{ line: string }>('SELECT line FROM lease_gate_ledger WHERE seq = 5')
    ).rows[0]!.line;
    await db.query(`UPDATE lease_gate_ledger SET line = line || ' ' WHERE seq = 5`);
    try {
      const two = await started();
      // Its checkpoint reads the last rows only; an export reaches the spoiled row and is refused.
      const res = await fetch(two.url + LEDGER_PATHS.checkpoint);
      expect(await res.text()).toBe(signed);
      expect(logged).toEqual([]);
      await expect(fetchLedger(two.url)).rejects.toThrow();
      // A frontier that does not agree with the rows is told and not taken.
      await db.query(`UPDATE lease_gate_tree SET root = $1`, [Buffer.alloc(32).toString('base64')]);
      await expect(started()).rejects.toThrow('lease_gate_ledger entry 5');
      expect(logged.join('\n')).toContain('does not agree');
    } finally {
      await db.query('UPDATE lease_gate_ledger SET line = $1 WHERE seq = 5', [original]);
    }
    // Rows whole but the frontier wrong: a replica would sign another root than one started
    // from the frontier, so it signs neither and says what to check.
    await expect(started()).rejects.toThrow('do not hash to the tree saved');
    // With the wrong frontier gone, it starts from every row, signs the same, and saves it anew.
    await db.query('DELETE FROM lease_gate_tree');
    logged.length = 0;
    const three = await started();
    expect(await checkpoint(three.url)).toBe(signed);
    expect(logged).toEqual([]);
    const again = await db.query<{ size: string }>('SELECT size FROM lease_gate_tree');
    expect(Number(again.rows[0]!.size)).toBeGreaterThanOrEqual(1_024);
  });

  it('commits while the ledger head is locked, and loses nothing when the sequencer is killed mid-way', async () => {
    const one = await replica();
    const db = await admin();
    const before = await count(db, 'lease_gate_ledger');
    // Another session holds the head: every sequencing transaction stops at its UPDATE.
    await db.query('BEGIN');
    await db.query('SELECT * FROM lease_gate_sequenced FOR UPDATE');
    const lockerPid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!
      .pid;
    await cycles([one.url], 6, 3, 'headlocked');
    const watcher = await admin();
    let killed = 0;
    for (let i = 0; i < 200 && killed === 0; i += 1) {
      const { rows } = await watcher.query<{ done: boolean }>(
        `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
          WHERE query LIKE '%INSERT INTO lease_gate_ledger%' AND pg_blocking_pids(pid) @> ARRAY[$1::int]`,
        [lockerPid],
      );
      killed = rows.filter((r) => r.done).length;
      if (killed === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(killed).toBeGreaterThan(0);
    expect(await count(watcher, 'lease_gate_ledger')).toBe(before);
    expect(await count(watcher, 'lease_gate_pending')).toBe(6 * 3 * 2);
    await db.query('COMMIT');
    // A ledger read sequences first: every change is there, in an order that verifies.
    const entries = await verified(one.url);
    expect(entries.length).toBe(before + 6 * 3 * 2);
    expect(await count(watcher, 'lease_gate_pending')).toBe(0);
  });

  it("sequences a dead replica's pending entries from another replica", async () => {
    const db = await admin();
    // Its statements give up soon, so it stops while its sequencer is still stuck.
    const dying = await startReplica(replicas.schema, { statementTimeoutMs: 500 });
    // The dying replica cannot sequence: its sequencer waits on this lock, then it goes.
    await db.query('BEGIN');
    await db.query('SELECT * FROM lease_gate_sequenced FOR UPDATE');
    await cycles([dying.url], 4, 2, 'dead');
    await dying.close();
    const pending = await count(db, 'lease_gate_pending');
    expect(pending).toBeGreaterThan(0);
    await db.query('COMMIT');
    const other = await replica();
    const entries = await verified(other.url);
    expect(entries.filter((e) => e.resource.startsWith('lock:dead/')).length).toBe(4 * 2 * 2);
    expect(await count(db, 'lease_gate_pending')).toBe(0);
  });

  it('numbers only what committed below the watermark: a commit still open is waited for', async () => {
    const one = await replica();
    await cycles([one.url], 1, 1, 'mark');
    const db = await admin();
    const locks = planeLocks(replicas.schema);
    // A writer that drew a fence and has not committed: the sequencer's watermark waits for it.
    const writer = await admin();
    await writer.query(`BEGIN; SELECT pg_advisory_xact_lock_shared(${locks.writer})`);
    await writer.query(`SELECT nextval('lease_gate_fence') AS f`);
    const sequencing = sequenceOnce(db, locks, true);
    let settled = false;
    void sequencing.finally(() => (settled = true));
    for (let i = 0; i < 5; i += 1) await writer.query('SELECT 1');
    expect(settled).toBe(false);
    await writer.query('COMMIT');
    expect((await sequencing)?.length).toBeGreaterThanOrEqual(0);
    await verified(one.url);
  });
});
