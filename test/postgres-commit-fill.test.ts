import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { commitOnce, type Optimistic } from '../src/kernel/postgres/commit.js';
import { planeLocks } from '../src/kernel/postgres/locks.js';
import { MIGRATIONS, migrate, schemaVersion } from '../src/kernel/postgres/migrations.js';
import { DbClock, RowCache } from '../src/kernel/postgres/rows.js';
import type { CommitContext, RuleSettings } from '../src/kernel/postgres/transaction.js';
import { workFor } from '../src/kernel/rules/work.js';
import { describePostgres, POSTGRES_URL, testSchema } from './support/postgres.js';
import { A, B, R } from './support/names.js';

const settings: RuleSettings = {
  ttlMs: 30_000,
  nextInLineWaitMs: 20,
  lockDelayMs: 30_000,
  random: () => 0.5,
};
const M = '\u0001';

describePostgres('migration 5: lease_gate_commit fills its fences in PL/pgSQL', () => {
  let schema: string;
  let drop: () => Promise<void>;
  let db: pg.Client;
  beforeEach(async () => {
    ({ schema, drop } = await testSchema());
    db = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema }));
    await db.connect();
  });
  afterEach(async () => {
    await db.end();
    await drop();
  });

  /** The schema as a replica of the version before left it: migrations 1 to 4. */
  async function atVersion4() {
    await db.query(`CREATE TABLE lease_gate_migrations (
      version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const m of MIGRATIONS.filter((m) => m.version <= 4)) {
      await db.query(m.sql);
      await db.query('INSERT INTO lease_gate_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
    }
  }

  function replica(client: pg.ClientBase) {
    const context: CommitContext & Optimistic = {
      locks: planeLocks(schema),
      replica: 'r1',
      rows: new RowCache(),
      clock: new DbClock(),
    };
    return (work: Parameters<typeof commitOnce>[1]) => commitOnce(client, work, settings, context);
  }

  it('fills each placeholder as migration 4 did, each fence in base 36 in a lease id', async () => {
    await migrate(db, schema);
    const fences = [1, 35, 36, 1295, 46_656, 2 ** 40 + 7];
    const docs = [
      null,
      '{"no":"placeholder"}',
      `{"fence":${M}1${M},"leaseId":"lease_${M}b1${M}_ab"}`,
      `[${M}2${M},${M}3${M},"lease_${M}b4${M}_cd","lease_${M}b5${M}_ef",${M}6${M},"lease_${M}b6${M}_01"]`,
      `${M}b3${M}`,
      '',
    ];
    const { rows } = await db.query<{ filled: string[]; fenced: string[] }>(
      `SELECT lease_gate_filled($1::text[], $2::bigint[]) AS filled,
              ARRAY(SELECT lease_gate_fenced(d, $2::bigint[]) FROM unnest($1::text[]) WITH ORDINALITY AS t(d, n) ORDER BY n) AS fenced`,
      [docs, fences],
    );
    expect(rows[0]!.filled).toEqual(rows[0]!.fenced);
    expect(rows[0]!.filled).toEqual([
      null,
      '{"no":"placeholder"}',
      '{"fence":1,"leaseId":"lease_1_ab"}',
      `[35,36,"lease_zz_cd","lease_1000_ef",${2 ** 40 + 7},"lease_${(2 ** 40 + 7).toString(36)}_01"]`,
      '10',
      '',
    ]);
    const none = await db.query<{ filled: string[] }>(
      `SELECT lease_gate_filled($1::text[], '{}') AS filled`,
      [[`${M}1${M}`]],
    );
    expect(none.rows[0]!.filled).toEqual([`${M}1${M}`]);
  });

  it('brings a schema at version 4 with rows to 5, and a commit then checks versions as before', async () => {
    await atVersion4();
    const before = replica(db);
    const granted = await before([workFor(R, { kind: 'lease', actorDid: A })]);
    expect(granted.conflict).toBe(true); // no clock yet: the first attempt only reads
    const first = await before([workFor(R, { kind: 'lease', actorDid: A })]);
    expect(first.conflict).toBe(false);

    expect(await migrate(db, schema)).toEqual([5]);
    expect(await schemaVersion(db)).toBe(5);

    // A replica that kept the row from before the migration writes on it.
    const released = await before([workFor(R, { kind: 'release', actorDid: A })]);
    expect(released.conflict).toBe(false);
    // Another replica's rows are stale now: refused, nothing written, the row answered.
    const other = replica(db);
    expect((await other([workFor(R, { kind: 'lease', actorDid: B })])).conflict).toBe(true);
    const second = await other([workFor(R, { kind: 'lease', actorDid: B })]);
    expect(second.conflict).toBe(false);
    if (second.conflict) return;
    const reply = (second.decisions[0]!.reply as { lease: { fence: number; id: string } }).lease;
    const { rows } = await db.query<{ state: { lease: { id: string; fence: number } } }>(
      `SELECT state FROM lease_gate_resources WHERE resource = $1`,
      [R],
    );
    expect(rows[0]!.state.lease).toMatchObject({ id: reply.id, fence: reply.fence });
    expect(reply.id).toMatch(new RegExp(`^lease_${reply.fence.toString(36)}_`));
    const pending = await db.query<{ major: string; event: string }>(
      'SELECT major, event FROM lease_gate_pending ORDER BY key',
    );
    expect(pending.rows.map((r) => JSON.parse(r.event).kind)).toEqual([
      'grant',
      'release',
      'grant',
    ]);
    expect(pending.rows.at(-1)!.event).toContain(`"${reply.id}"`);
    expect(pending.rows.at(-1)!.event).not.toContain(M);
  });
});
