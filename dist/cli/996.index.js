export const id = 996;
export const ids = [996];
export const modules = {

/***/ 6739:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   b: () => (/* binding */ createPool),
/* harmony export */   q0: () => (/* binding */ describe),
/* harmony export */   r3: () => (/* binding */ isRetryable),
/* harmony export */   tv: () => (/* binding */ connectionConfig)
/* harmony export */ });
/* harmony import */ var pg__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3849);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3916);
/* harmony import */ var _store_round_trips_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(230);
/* harmony import */ var _settings_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3808);




/** What every connection of this kernel is set to: its schema, and bounds on waiting. */
function connectionConfig(options) {
    const statement = options.statementTimeoutMs ?? _settings_js__WEBPACK_IMPORTED_MODULE_3__/* .DEFAULT_STATEMENT_TIMEOUT_MS */ .Lf;
    return {
        connectionString: options.url,
        options: `-c search_path=${(0,_settings_js__WEBPACK_IMPORTED_MODULE_3__/* .schemaOf */ .pP)(options)}`,
        connectionTimeoutMillis: options.connectTimeoutMs ?? _settings_js__WEBPACK_IMPORTED_MODULE_3__/* .DEFAULT_CONNECT_TIMEOUT_MS */ .od,
        statement_timeout: statement,
        lock_timeout: statement,
        // A replica that stalls inside a transaction must not keep a resource locked.
        idle_in_transaction_session_timeout: 2 * statement,
        query_timeout: statement + 1_000,
        keepAlive: true,
        application_name: 'lease-gate kernel',
    };
}
/**
 * A bounded pool. An idle connection that breaks (the database restarted)
 * is dropped and reported, never thrown: the next call opens a fresh one.
 */
function createPool(options, log) {
    const pool = new pg__WEBPACK_IMPORTED_MODULE_0__/* ["default"].Pool */ .Ay.Pool({
        ...connectionConfig(options),
        max: options.poolSize ?? _settings_js__WEBPACK_IMPORTED_MODULE_3__/* .DEFAULT_POOL_SIZE */ .xl,
        idleTimeoutMillis: 30_000,
    });
    pool.on('error', (error) => log(`kernel: a PostgreSQL connection broke: ${describe(error)}`));
    pool.on('connect', (client) => (0,_store_round_trips_js__WEBPACK_IMPORTED_MODULE_2__/* .countRoundTrips */ .s)(client));
    return pool;
}
/** A one-line account of a driver or server error, without the connection string. */
function describe(error) {
    if (!(error instanceof Error))
        return (0,_errors_js__WEBPACK_IMPORTED_MODULE_1__/* .causeText */ .xv)(error);
    const code = error.code;
    return typeof code === 'string' ? `${(0,_errors_js__WEBPACK_IMPORTED_MODULE_1__/* .causeText */ .xv)(error)} (${code})` : (0,_errors_js__WEBPACK_IMPORTED_MODULE_1__/* .causeText */ .xv)(error);
}
const RETRYABLE = new Set([
    '23505', // another replica created the resource's row first
    '40001', // serialization failure
    '40P01', // deadlock detected
]);
/** Worth running the whole transaction again (the answer is then decided afresh). */
const isRetryable = (error) => typeof error?.code === 'string' &&
    RETRYABLE.has(error.code);


/***/ }),

/***/ 5996:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   migrateDatabase: () => (/* binding */ migrateDatabase)
/* harmony export */ });
/* harmony import */ var pg__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3849);
/* harmony import */ var _store_store_error_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(7561);
/* harmony import */ var _connect_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6739);
/* harmony import */ var _settings_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3808);
/* harmony import */ var _migrations_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(7441);





/** One connection, the migrations under their advisory lock, then gone. */
async function migrateDatabase(options) {
    const client = new pg__WEBPACK_IMPORTED_MODULE_0__/* ["default"].Client */ .Ay.Client((0,_connect_js__WEBPACK_IMPORTED_MODULE_2__/* .connectionConfig */ .tv)(options));
    client.on('error', () => undefined);
    try {
        await client.connect();
    }
    catch (error) {
        throw new _store_store_error_js__WEBPACK_IMPORTED_MODULE_1__/* .StoreError */ .AD(`cannot reach ${(0,_settings_js__WEBPACK_IMPORTED_MODULE_3__/* .redactUrl */ .BO)(options.url)}: ${(0,_connect_js__WEBPACK_IMPORTED_MODULE_2__/* .describe */ .q0)(error)}`, {
            cause: error,
        });
    }
    try {
        return await (0,_migrations_js__WEBPACK_IMPORTED_MODULE_4__/* .migrate */ ._r)(client, (0,_settings_js__WEBPACK_IMPORTED_MODULE_3__/* .schemaOf */ .pP)(options));
    }
    catch (error) {
        if (error instanceof _store_store_error_js__WEBPACK_IMPORTED_MODULE_1__/* .StoreError */ .AD)
            throw error;
        throw new _store_store_error_js__WEBPACK_IMPORTED_MODULE_1__/* .StoreError */ .AD(`migrating ${(0,_settings_js__WEBPACK_IMPORTED_MODULE_3__/* .redactUrl */ .BO)(options.url)} failed: ${(0,_connect_js__WEBPACK_IMPORTED_MODULE_2__/* .describe */ .q0)(error)}`, {
            cause: error,
        });
    }
    finally {
        await client.end().catch(() => undefined);
    }
}


/***/ }),

/***/ 7441:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  _U: () => (/* binding */ checkSchema),
  _r: () => (/* binding */ migrate)
});

// UNUSED EXPORTS: MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError, schemaVersion

// EXTERNAL MODULE: ./src/kernel/store/store-error.ts
var store_error = __webpack_require__(7561);
;// CONCATENATED MODULE: ./src/kernel/postgres/commit-sql.ts
/**
 * Migration 4: a batch commits in one round trip (commit.ts). A replica decides against
 * the rows it last read or wrote, and lease_gate_commit writes its decisions only if
 * every row is still the version it decided on; otherwise it writes nothing and answers
 * the rows as they are, to decide again.
 *
 * - version: a random uuid per writing transaction, so a version is never reused, not
 *   after a row is deleted and made again, not after a failover hands out old xids again.
 *   An older replica's write (rolling upgrade) gets a new one from a trigger.
 * - decided_ms: the clock the row's last decision ran at; a decision runs at a later
 *   one, so each resource's time never goes back, whichever replica decides.
 *
 * lease_gate_commit, in order: the writers stripe shared (locks.ts), the rows locked in
 * resource order (no deadlock between replicas), the versions and the clock checked
 * (the replica's clock, projected from the database's, must not be ahead of it), then
 * lease_gate_listening read, the fence sequence's value (`base`), the batch's fences
 * drawn, the rows and pending entries written with the fences filled in
 * (lease_gate_fenced), and queue-only batches committed without a flush. The order of
 * the draws is the one sequencer.ts relies on: after the rows are locked, `base` before
 * the fences, the keys in the batch's order.
 *
 * A decision takes fence k of its batch before the database draws it: the replica
 * writes the k-th as a placeholder, chr(1) k chr(1) (a number) or chr(1) 'b' k chr(1)
 * (base 36, in a lease id), which JSON text never holds raw (JSON.stringify escapes
 * control characters), and lease_gate_fenced puts the drawn fence in its place.
 */
const COMMIT_IN_ONE_ROUND_TRIP = `
ALTER TABLE lease_gate_resources
  ADD COLUMN version uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN decided_ms float8 NOT NULL DEFAULT 0;

-- A replica older than this schema, still running while the others upgrade, writes rows
-- without a new version: given one here, so no replica's kept version survives its write.
CREATE FUNCTION lease_gate_versioned() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.version := gen_random_uuid();
  RETURN NEW;
END
$fn$;
CREATE TRIGGER lease_gate_versioned BEFORE UPDATE ON lease_gate_resources
  FOR EACH ROW WHEN (NEW.version = OLD.version) EXECUTE FUNCTION lease_gate_versioned();

CREATE FUNCTION lease_gate_base36(n bigint) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  WITH RECURSIVE d(q, s) AS (
    SELECT n, ''::text
    UNION ALL
    SELECT q / 36, substr('0123456789abcdefghijklmnopqrstuvwxyz', (q % 36)::int + 1, 1) || s
      FROM d WHERE q > 0)
  SELECT CASE WHEN n = 0 THEN '0' ELSE (SELECT s FROM d WHERE q = 0) END
$fn$;

CREATE FUNCTION lease_gate_fenced(doc text, fences bigint[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE WHEN doc IS NULL OR strpos(doc, chr(1)) = 0 THEN doc ELSE (
    SELECT string_agg(CASE
             WHEN p.n % 2 = 1 THEN p.part
             WHEN left(p.part, 1) = 'b' THEN lease_gate_base36(fences[substr(p.part, 2)::int])
             ELSE fences[p.part::int]::text END, '' ORDER BY p.n)
      FROM unnest(string_to_array(doc, chr(1))) WITH ORDINALITY AS p(part, n)) END
$fn$;

CREATE FUNCTION lease_gate_commit(
  p_stripe int, p_plane int, p_now float8, p_names text[], p_expected text[],
  p_states text[], p_deadlines bigint[], p_events text[], p_grants int[], p_fences int,
  p_replica text, p_durable boolean,
  OUT o_conflict boolean, OUT o_clock float8, OUT o_version uuid, OUT o_fences bigint[],
  OUT o_listened text[], OUT o_rows json)
  LANGUAGE plpgsql AS $fn$
DECLARE
  v_base bigint;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(p_stripe + pg_backend_pid() % 16, p_plane);
  PERFORM 1 FROM (SELECT 1 FROM lease_gate_resources AS r
                   WHERE r.resource = ANY(p_names) ORDER BY r.resource FOR UPDATE) AS t;
  -- Read once every lock is held: later than any decision on these rows that committed.
  o_clock := floor(extract(epoch FROM clock_timestamp()) * 1000)::float8;
  o_conflict := p_now > o_clock OR EXISTS (
    SELECT 1 FROM unnest(p_names, p_expected) AS e(resource, expected)
      LEFT JOIN lease_gate_resources AS r ON r.resource = e.resource
     WHERE CASE WHEN e.expected IS NULL THEN r.resource IS NOT NULL
                ELSE r.resource IS NULL OR r.version::text <> e.expected
                     OR r.decided_ms > p_now END);
  IF o_conflict THEN
    SELECT json_agg(json_build_object('resource', r.resource, 'state', r.state,
                                      'version', r.version)) INTO o_rows
      FROM lease_gate_resources AS r WHERE r.resource = ANY(p_names);
    RETURN;
  END IF;
  o_listened := ARRAY(SELECT DISTINCT l.resource FROM lease_gate_listening AS l
                       WHERE l.resource = ANY(p_names) AND l.replica <> p_replica);
  SELECT CASE WHEN f.is_called THEN f.last_value ELSE 0 END INTO v_base FROM lease_gate_fence AS f;
  o_fences := ARRAY(SELECT nextval('lease_gate_fence') FROM generate_series(1, p_fences));
  o_version := gen_random_uuid();
  UPDATE lease_gate_resources AS r
     SET state = (CASE WHEN p_fences = 0 THEN u.state
                       ELSE lease_gate_fenced(u.state, o_fences) END)::jsonb,
         deadline_ms = u.deadline,
         version = o_version, decided_ms = p_now
    FROM unnest(p_names, p_expected, p_states, p_deadlines) AS u(resource, expected, state, deadline)
   WHERE r.resource = u.resource AND u.state IS NOT NULL AND u.expected IS NOT NULL;
  -- Never upserted: a replica that made the row meanwhile fails this (23505), and the batch
  -- is decided again against its row.
  INSERT INTO lease_gate_resources (resource, state, deadline_ms, version, decided_ms)
    SELECT u.resource, (CASE WHEN p_fences = 0 THEN u.state
                             ELSE lease_gate_fenced(u.state, o_fences) END)::jsonb,
           u.deadline, o_version, p_now
      FROM unnest(p_names, p_expected, p_states, p_deadlines) AS u(resource, expected, state, deadline)
     WHERE u.state IS NOT NULL AND u.expected IS NULL ORDER BY u.resource;
  INSERT INTO lease_gate_pending (key, major, event)
    SELECT nextval('lease_gate_key'), CASE WHEN e.g = 0 THEN v_base ELSE o_fences[e.g] END,
           CASE WHEN p_fences = 0 THEN e.event ELSE lease_gate_fenced(e.event, o_fences) END
      FROM unnest(p_events, p_grants) WITH ORDINALITY AS e(event, g, n) ORDER BY e.n;
  -- Only queues moved: not part of the durable record (waiters ask again), so no flush.
  IF NOT p_durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
END
$fn$;
`;

;// CONCATENATED MODULE: ./src/kernel/postgres/migrations.ts


/**
 * The schema, one version at a time. A migration is never edited once
 * released: a change is a new version. Each runs inside the one transaction
 * that also records it, so a crash leaves a database at a whole version.
 */
const MIGRATIONS = [
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
];
const SCHEMA_VERSION = MIGRATIONS.at(-1).version;
class SchemaTooNewError extends store_error/* StoreError */.AD {
    name = 'SchemaTooNewError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'store_schema_too_new' });
    }
}
/**
 * Brings the schema to this binary's version under an advisory lock, so
 * replicas that start together apply each migration once. Refuses a database
 * whose schema is newer than this binary. Returns the versions applied.
 */
async function migrate(client, schema) {
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
        if (current > SCHEMA_VERSION)
            throw tooNew(current, schema);
        const applied = [];
        for (const m of MIGRATIONS) {
            if (m.version <= current)
                continue;
            await client.query(m.sql);
            await client.query('INSERT INTO lease_gate_migrations (version, name) VALUES ($1, $2)', [
                m.version,
                m.name,
            ]);
            applied.push(m.version);
        }
        await client.query('COMMIT');
        return applied;
    }
    catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
    }
}
/** The schema's version (0: none yet). */
async function schemaVersion(client) {
    const exists = await client.query(`SELECT to_regclass('lease_gate_migrations') IS NOT NULL AS present`);
    if (!exists.rows[0]?.present)
        return 0;
    const { rows } = await client.query('SELECT max(version) AS version FROM lease_gate_migrations');
    return rows[0]?.version ?? 0;
}
/** Throws unless the schema is exactly this binary's version. */
async function checkSchema(client, schema) {
    const version = await schemaVersion(client);
    if (version > SCHEMA_VERSION)
        throw tooNew(version, schema);
    if (version < SCHEMA_VERSION) {
        throw new store_error/* StoreError */.AD(`the schema ${schema} is at version ${version}, this kernel needs ${SCHEMA_VERSION}: run lease-gate kernel migrate`);
    }
}
const tooNew = (version, schema) => new SchemaTooNewError(`the database's schema ${schema} is at version ${version}, newer than this lease-gate (version ${SCHEMA_VERSION}); run a lease-gate at least as new as the one that migrated it`);


/***/ })

};

//# sourceMappingURL=996.index.js.map