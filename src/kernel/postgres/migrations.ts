import type { CauseOptions } from '../../errors.js';
import type pg from 'pg';
import { StoreError } from '../store/store-error.js';
import { COMMIT_FILLED_IN_PLPGSQL } from './commit-fill-sql.js';
import { COMMIT_IN_ONE_ROUND_TRIP } from './commit-sql.js';

/**
 * The schema, one version at a time. A migration is never edited once
 * released: a change is a new version. Each runs inside the one transaction
 * that also records it, so a crash leaves a database at a whole version.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    // Version 1 is the first release's (CHANGELOG: 1.0.0, unreleased): no database holds an
    // older form of it, so until that release it may still change; after it, never.
    version: 1,
    name: 'resources, ledger, pending entries, fences',
    sql: `
      -- Every change updates its row, and only the key is indexed, so each update is
      -- HOT (no index entry; its page prunes the old version itself) given room on its
      -- page: a busy resource's row stays one version deep between vacuums.
      CREATE TABLE lease_gate_resources (
        resource text PRIMARY KEY,
        state jsonb NOT NULL,
        -- When the rules' 'expire' would next change this row (epoch ms, the database's
        -- clock). Not indexed: the sweep reads the table, a row per resource, every quarter
        -- lease (at least once a second), while an index on it would cost every change
        -- two index entries.
        deadline_ms bigint
      ) WITH (fillfactor = 50);
      CREATE TABLE lease_gate_ledger (
        seq bigint PRIMARY KEY,
        line text NOT NULL
      );
      -- Entries committed with their change, not yet numbered: the sequencer
      -- (sequencer.ts) moves them into lease_gate_ledger in (major, key) order.
      -- major is the grant's fence, or for any other entry the fence sequence's
      -- value read after its row was locked; key orders entries of equal major.
      -- No primary key: key is unique by its sequence, and the sequencer finds
      -- rows by this one index and deletes them where it found them.
      CREATE TABLE lease_gate_pending (
        key bigint NOT NULL,
        major bigint NOT NULL,
        event text NOT NULL
      );
      -- The sequencer reads the lowest first: no sort of the whole table per pass.
      CREATE INDEX lease_gate_pending_order ON lease_gate_pending (major, key);
      CREATE SEQUENCE lease_gate_key;
      -- What the sequencer numbered: the ledger's size and last timestamp; only it writes here.
      CREATE TABLE lease_gate_sequenced (
        id int PRIMARY KEY CHECK (id = 1),
        size bigint NOT NULL,
        last_ts bigint NOT NULL
      );
      INSERT INTO lease_gate_sequenced VALUES (1, 0, -1);
      -- The ledger's size, every committed entry (numbered or pending), for whoever
      -- reads it: a change is in the ledger once it commits.
      CREATE VIEW lease_gate_ledger_head AS
        SELECT id, size + (SELECT count(*) FROM lease_gate_pending) AS size, last_ts
          FROM lease_gate_sequenced;
      CREATE SEQUENCE lease_gate_fence;
      -- Which replica wants to hear another's changes of a resource (it holds requests
      -- or watches on it), until when (epoch ms, the database's clock). A commit reads it
      -- after its row locks and tells the other replicas (NOTIFY) only the changes of
      -- resources listed here: a change nobody waits for wakes nobody.
      CREATE TABLE lease_gate_listening (
        resource text NOT NULL,
        replica text NOT NULL,
        until_ms bigint NOT NULL,
        PRIMARY KEY (resource, replica)
      );
      -- The ledger tree's frontier (Ledger.snapshot) at some size, written by a replica
      -- that read the rows up to it. A replica that starts takes it rather than hash every
      -- row, once it agrees with the rows (its root from its chunk roots and the rows of
      -- its last chunk, its last stamp the row's); a missing or wrong one only costs time.
      CREATE TABLE lease_gate_tree (
        id int PRIMARY KEY CHECK (id = 1),
        size bigint NOT NULL,
        last_ts bigint NOT NULL,
        root text NOT NULL,
        chunk_roots text NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'the timeline the kernel last wrote on (failover)',
    sql: `
      -- The database's timeline (PostgreSQL's, the first 8 hex digits of a WAL file's name)
      -- that the kernel last wrote on, and when (epoch ms, the database's clock) a replica
      -- saw it change: a promoted standby may lack what the old primary acknowledged, so
      -- fences then start above the new timeline's epoch and no new holder is granted for
      -- one lease time after changed_ms (timeline.ts). size_at_change: the ledger's numbered
      -- size when the change was recorded; a replica whose ledger was longer read entries the
      -- new primary lost, and stops. Recorded at migration: a new schema has nothing to lose.
      CREATE TABLE lease_gate_timeline (
        id int PRIMARY KEY CHECK (id = 1),
        timeline bigint NOT NULL,
        changed_ms float8 NOT NULL,
        size_at_change bigint NOT NULL
      );
      INSERT INTO lease_gate_timeline
        SELECT 1, ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint, 0, 0;
    `,
  },
  {
    version: 3,
    name: "the plane's ledger public key",
    sql: `
      -- The public key (SPKI PEM) that signs the plane's ledger, written by the first replica
      -- that starts with one; a replica with another key is refused at start (plane-key.ts),
      -- so every checkpoint the plane hands out verifies against this key.
      CREATE TABLE lease_gate_plane_key (
        id int PRIMARY KEY CHECK (id = 1),
        origin text NOT NULL,
        public_key text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 4,
    name: 'the commit in one round trip: row versions, lease_gate_commit',
    sql: COMMIT_IN_ONE_ROUND_TRIP,
  },
  {
    version: 5,
    name: 'lease_gate_commit fills its fences in PL/pgSQL, planned once per connection',
    sql: COMMIT_FILLED_IN_PLPGSQL,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

export class SchemaTooNewError extends StoreError {
  override name = 'SchemaTooNewError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'store_schema_too_new' });
  }
}

/**
 * Brings the schema to this binary's version under an advisory lock, so
 * replicas that start together apply each migration once. Refuses a database
 * whose schema is newer than this binary. Returns the versions applied.
 */
export async function migrate(client: pg.ClientBase, schema: string): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('lease-gate migrate ' || $1))`, [
      schema,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS lease_gate_migrations (
      version int PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersion(client);
    if (current > SCHEMA_VERSION) throw tooNew(current, schema);
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO lease_gate_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The schema's version (0: none yet). */
export async function schemaVersion(client: pg.ClientBase): Promise<number> {
  const exists = await client.query<{ present: boolean }>(
    `SELECT to_regclass('lease_gate_migrations') IS NOT NULL AS present`,
  );
  if (!exists.rows[0]?.present) return 0;
  const { rows } = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM lease_gate_migrations',
  );
  return rows[0]?.version ?? 0;
}

/** Throws unless the schema is exactly this binary's version. */
export async function checkSchema(client: pg.ClientBase, schema: string): Promise<void> {
  const version = await schemaVersion(client);
  if (version > SCHEMA_VERSION) throw tooNew(version, schema);
  if (version < SCHEMA_VERSION) {
    throw new StoreError(
      `the schema ${schema} is at version ${version}, this kernel needs ${SCHEMA_VERSION}: run lease-gate kernel migrate`,
    );
  }
}

const tooNew = (version: number, schema: string) =>
  new SchemaTooNewError(
    `the database's schema ${schema} is at version ${version}, newer than this lease-gate (version ${SCHEMA_VERSION}); run a lease-gate at least as new as the one that migrated it`,
  );
