export const id = 884;
export const ids = [884];
export const modules = {

/***/ 5884:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  PostgresService: () => (/* binding */ PostgresService)
});

// UNUSED EXPORTS: PostgresBackend

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: ./src/kernel/rules/overview.ts
var overview = __webpack_require__(9454);
// EXTERNAL MODULE: ./src/kernel/rules/rules.ts + 5 modules
var rules = __webpack_require__(1811);
// EXTERNAL MODULE: ./src/kernel/service/service.ts + 10 modules
var service_service = __webpack_require__(5014);
// EXTERNAL MODULE: ./src/kernel/store/store-error.ts
var store_error = __webpack_require__(7561);
// EXTERNAL MODULE: ./src/kernel/postgres/connect.ts
var postgres_connect = __webpack_require__(6739);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
// EXTERNAL MODULE: ./src/kernel/rules/work.ts
var rules_work = __webpack_require__(1512);
// EXTERNAL MODULE: ./src/kernel/rules/state.ts
var rules_state = __webpack_require__(1648);
;// CONCATENATED MODULE: ./src/kernel/postgres/commit-context.ts


/** COMMIT was sent and failed or went unanswered: the batch may be durable, so it is never run again. */
class CommitUnknownError extends errors/* LeaseGateError */.eg {
    name = 'CommitUnknownError';
    constructor(options) {
        const { cause } = options;
        super((0,errors/* causeText */.xv)(cause), {
            cause,
            code: 'store_commit_unknown',
        });
    }
}
function parseState(raw, resource) {
    const state = (0,rules_state/* readResourceState */.yF)(raw, resource);
    if (!state)
        throw new Error(`the stored state of ${JSON.stringify(resource)} is not a lease-gate state`);
    return state;
}

;// CONCATENATED MODULE: ./src/kernel/postgres/commit.ts





/** lease_gate_commit (migration 4), prepared once per connection by its name. */
const COMMIT = {
    name: 'lease_gate_commit',
    text: 'SELECT * FROM lease_gate_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
};
/**
 * One round trip: the batch decided against the rows kept here at the projected
 * clock, sent with the versions it read; lease_gate_commit writes it only if every row
 * is still at that version (and the clock not behind the decision), in the statement's
 * own transaction, so an answer means committed. A refusal writes nothing and answers
 * the rows as they are, kept here for the next attempt. A grant's fence is a
 * placeholder until the database draws it (commit-sql.ts); the answer's fences fill in
 * the decisions. Before its first answer a replica has no clock: it only reads the rows.
 */
async function commitOnce(client, work, settings, context) {
    const { rows, clock } = context;
    const names = [...new Set(work.map((w) => w.resource))].sort();
    const now = clock.now();
    const loaded = new Map(names.map((r) => [r, rows.get(r)]));
    let values;
    let decided;
    let drawn = 0;
    if (now === undefined) {
        values = params(context, Number.MAX_VALUE, names, loaded, undefined, 0);
    }
    else {
        const hold = context.hold?.(now);
        decided = (0,rules_work/* decideBatch */.js)(work, (resource) => loaded.get(resource).state, (resource) => (0,rules_work/* ruleContext */.wm)(settings, resource, now, () => -++drawn, hold));
        values = params(context, now, names, loaded, decided, drawn);
    }
    const answer = (await client.query({ ...COMMIT, values })).rows[0];
    if (!answer || answer.o_conflict || !decided) {
        // Nothing was written: a row that is not a lease-gate state is the store's fault.
        try {
            clock.reset(answer.o_clock);
            keepRead(rows, names, answer.o_rows ?? []);
        }
        catch (error) {
            throw new store_error/* StoreUnavailableError */.o2(`the kernel's store answered rows it cannot read`, {
                cause: error,
            });
        }
        return { conflict: true };
    }
    try {
        clock.saw(answer.o_clock);
        const fences = (answer.o_fences ?? []).map(Number);
        if (fences.length !== drawn)
            throw new errors/* InternalError */.Gd('lease_gate_commit drew other fences');
        if (drawn > 0)
            fillFences(decided.decisions, fences);
        for (const resource of decided.changed)
            rows.set(resource, { state: decided.states.get(resource), version: answer.o_version });
    }
    catch (error) {
        // Committed, but not answerable as written: never run again.
        throw new CommitUnknownError({ cause: error });
    }
    return { conflict: false, decisions: decided.decisions, listened: answer.o_listened ?? [] };
}
/** The rows a refused commit read: kept, and the ones it did not find kept as absent. */
function keepRead(rows, names, read) {
    const found = new Map(read.map((r) => [r.resource, r]));
    for (const resource of names) {
        const row = found.get(resource);
        rows.set(resource, row
            ? { state: parseState(row.state, resource), version: row.version }
            : { state: (0,rules/* emptyState */.p$)(resource), version: null });
    }
}
/** lease_gate_commit's parameters, in its order. */
function params(context, now, names, loaded, decided, drawn) {
    const events = decided ? decided.decisions.flatMap((d) => d.events) : [];
    const ids = drawn > 0 ? placeholderIds(events) : undefined;
    const text = (value) => {
        const json = JSON.stringify(value);
        return ids ? templated(json, ids) : json;
    };
    const changed = decided?.changed;
    return [
        context.locks.stripes,
        context.locks.plane,
        now,
        names,
        names.map((r) => loaded.get(r).version),
        names.map((r) => (changed?.has(r) ? text(decided.states.get(r)) : null)),
        names.map((r) => (changed?.has(r) ? ((0,rules/* nextDeadline */.Gg)(decided.states.get(r)) ?? null) : null)),
        events.map(text),
        grantsBefore(events),
        drawn,
        context.replica,
        events.length > 0,
    ];
}
/**
 * For each entry, which of the batch's fences its major is (sequencer.ts): the last
 * grant's at or before it, or 0 for the fence sequence's value before the batch's draws.
 */
function grantsBefore(events) {
    let last = 0;
    return events.map((e) => {
        if (e.kind === 'grant' && e.fence < 0)
            last = Math.max(last, -e.fence);
        return last;
    });
}
/** The lease ids a batch made before its fences were drawn, by their placeholder's number. */
function placeholderIds(events) {
    const ids = new Map();
    for (const e of events)
        if (e.kind === 'grant' && e.fence < 0)
            ids.set(e.leaseId, -e.fence);
    return ids;
}
const MARK = '\u0001';
const FENCE = /"fence":-(\d+)(?=[,}])/g;
/**
 * The JSON with each placeholder marked for lease_gate_fenced: a `fence` key's
 * negative value (only a placeholder is negative; `"fence":` is always a key, as a
 * quote inside a string is escaped), and a string that is exactly a placeholder lease
 * id (lease.ts: `lease_<fence in base 36>_<random hex>`).
 */
function templated(json, ids) {
    let out = json.replace(FENCE, `"fence":${MARK}$1${MARK}`);
    for (const [id, k] of ids) {
        const prefix = `lease_${(-k).toString(36)}`;
        if (!id.startsWith(prefix))
            throw new errors/* InternalError */.Gd(`a lease id not made by lease.ts: ${id}`);
        out = out.replaceAll(`"${id}"`, `"lease_${MARK}b${k}${MARK}${id.slice(prefix.length)}"`);
    }
    return out;
}
/** The decisions as written: each placeholder fence, and lease id, made the drawn one. */
function fillFences(decisions, fences) {
    const ids = new Map();
    for (const d of decisions)
        for (const e of d.events)
            if (e.kind === 'grant' && e.fence < 0) {
                const fence = fences[-e.fence - 1];
                const prefix = `lease_${e.fence.toString(36)}`;
                ids.set(e.leaseId, `lease_${fence.toString(36)}${e.leaseId.slice(prefix.length)}`);
            }
    const fill = (value) => {
        if (Array.isArray(value))
            for (const item of value)
                fill(item);
        else if (value !== null && typeof value === 'object') {
            const record = value;
            for (const [key, item] of Object.entries(record)) {
                if (key === 'fence' && typeof item === 'number' && item < 0)
                    record[key] = fences[-item - 1];
                else if (typeof item === 'string') {
                    const id = ids.get(item);
                    if (id !== undefined)
                        record[key] = id;
                }
                else
                    fill(item);
            }
        }
    };
    for (const d of decisions)
        fill([d.state, d.reply, d.events]);
}

;// CONCATENATED MODULE: ./src/kernel/postgres/transaction.ts



const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::float8`;
// Their own module, so commit.ts can use them without importing this file back.

/**
 * One attempt at a batch (commit.ts: one round trip, its own transaction unless the
 * caller opened one). Not committed when it throws an ERROR (the statement's transaction
 * rolled back) or answers a conflict; committed when it answers decisions. No answer, or
 * FATAL/PANIC, may come after the commit record: CommitUnknownError, never run again.
 */
async function runCommands(client, work, settings, context) {
    const unreplicated = watchSyncCancel(client);
    let attempt;
    try {
        attempt = await commitOnce(client, work, settings, context);
    }
    catch (error) {
        if (!sent(error) || error.severity === 'ERROR')
            throw error;
        throw new CommitUnknownError({ cause: error });
    }
    finally {
        unreplicated.stop();
    }
    // Committed on the primary, but its wait for the synchronous standby was cancelled (our
    // statement_timeout, or an operator): a failover now would lose it, so it is not answered.
    if (unreplicated.seen())
        throw new CommitUnknownError({
            cause: new Error(`the synchronous standby did not confirm the commit: ${unreplicated.seen()}`),
        });
    return attempt;
}
/** Whether an error came from the database or the connection (ours are thrown before sending). */
const sent = (error) => !(error instanceof errors/* LeaseGateError */.eg);
/**
 * PostgreSQL answers a COMMIT whose wait for synchronous replication was cancelled with
 * success and a WARNING ("canceling wait for synchronous replication \u2026; the transaction
 * has already committed locally, but might not have been replicated to the standby").
 * The text is the server's in English (lc_messages); its SQLSTATE is only 01000.
 */
function watchSyncCancel(client) {
    let seen;
    const onNotice = (notice) => {
        const message = notice.message ?? '';
        if (/synchronous replication/i.test(message))
            seen = message.slice(0, 200);
    };
    client.on('notice', onNotice);
    return { seen: () => seen, stop: () => void client.off('notice', onNotice) };
}


;// CONCATENATED MODULE: ./src/kernel/postgres/commit-batch.ts



const ATTEMPTS = 4;
/** Optimistic attempts of a batch before its rows are locked from the read to the write. */
const OPTIMISTIC = 3;
/** A batch whose COMMIT went unanswered: answered 503, never run again. */
class OutcomeUnknownError extends store_error/* StoreUnavailableError */.o2 {
    name = 'OutcomeUnknownError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'store_outcome_unknown' });
    }
}
/**
 * One batch as one transaction, run again whole on a retryable conflict.
 * When a batch of several fails before its COMMIT, each call runs alone, so
 * one bad row answers 503 only to the calls on it.
 */
async function commitBatch(context, work) {
    try {
        const { decisions, listened } = await transact(context, work);
        return {
            results: decisions.map((value) => ({ status: 'fulfilled', value })),
            listened: new Set(listened),
        };
    }
    catch (error) {
        // Alone again only when nothing can have been committed: a batch is never applied twice.
        if (work.length === 1 || error instanceof OutcomeUnknownError)
            throw error;
        const listened = new Set();
        const results = await Promise.allSettled(work.map(async (w) => {
            const committed = await transact(context, [w]);
            const [decision] = committed.decisions;
            if (!decision)
                throw new store_error/* StoreUnavailableError */.o2(`no decision for the call on ${w.resource}`);
            for (const resource of committed.listened)
                listened.add(resource);
            return decision;
        }));
        return { results, listened };
    }
}
async function transact(context, work) {
    for (let attempt = 1;; attempt += 1) {
        const client = await context.connect();
        try {
            const committed = await decideUntilWritten(client, context, work);
            client.release();
            return committed;
        }
        catch (error) {
            // A connection that failed mid-transaction is not reused; the server rolled it back.
            client.release(true);
            // What the batch left is not known here: its rows are read before the next decision.
            context.rows.forget(work.map((w) => w.resource));
            if (error instanceof CommitUnknownError) {
                throw new OutcomeUnknownError(`the kernel's store did not confirm the change: ${(0,postgres_connect/* describe */.q0)(error.cause)}`, { cause: error.cause });
            }
            if ((0,postgres_connect/* isRetryable */.r3)(error) && attempt < ATTEMPTS)
                continue;
            throw new store_error/* StoreUnavailableError */.o2(`the kernel's store cannot write: ${(0,postgres_connect/* describe */.q0)(error)}`, {
                cause: error,
            });
        }
    }
}
/**
 * Decided against the rows kept here, and again against the rows a refusal answers
 * (another replica wrote one meanwhile), OPTIMISTIC times at most; then with the rows
 * locked from the read to the write, so a batch on a resource that keeps changing
 * still gets through (three round trips and a COMMIT, once).
 */
async function decideUntilWritten(client, context, work) {
    for (let attempt = 0; attempt < OPTIMISTIC; attempt += 1) {
        const done = await runCommands(client, work, context.settings, context);
        if (!done.conflict)
            return done;
    }
    await client.query('BEGIN');
    try {
        // The first reads the rows (no version kept matches '') and keeps them locked.
        context.rows.forget(work.map((w) => w.resource));
        for (let attempt = 0; attempt < 2; attempt += 1) {
            const done = await runCommands(client, work, context.settings, context);
            if (done.conflict)
                continue;
            await commit(client);
            return done;
        }
    }
    catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
    }
    await client.query('ROLLBACK');
    throw new store_error/* StoreUnavailableError */.o2("the kernel's store refused a batch decided on rows it held locked (the database's clock went back?)");
}
/** COMMIT of the locked form: an ERROR means rolled back; no answer, that it may be durable. */
async function commit(client) {
    const unreplicated = watchSyncCancel(client);
    try {
        await client.query('COMMIT');
    }
    catch (error) {
        if (error.severity === 'ERROR')
            throw error;
        throw new CommitUnknownError({ cause: error });
    }
    finally {
        unreplicated.stop();
    }
    const cancelled = unreplicated.seen();
    if (cancelled)
        throw new CommitUnknownError({
            cause: new Error(`the synchronous standby did not confirm the commit: ${cancelled}`),
        });
}

// EXTERNAL MODULE: ./src/kernel/postgres/settings.ts
var settings = __webpack_require__(3808);
;// CONCATENATED MODULE: ./src/kernel/postgres/batching.ts


/** Calls committed together at most (group commit). */
const MAX_BATCH = 64;
/**
 * Batches in flight per replica: the second only once the first has taken
 * SPARE_AFTER_MS (see GroupCommit). One at a time gathers the most calls, and
 * on two cores 16 clients on one replica did 15% more cycles so than with two
 * always open (and 5% more than starting the next as soon as the first holds
 * its rows); the second keeps a batch stuck on a locked row from holding back the rest.
 */
const BATCH_SLOTS = 2;
const SPARE_AFTER_MS = 10;
/** How the service batches a replica's calls (GroupCommit): bounded by its connections. */
function batchingOf(options) {
    return {
        maxBatch: MAX_BATCH,
        slots: Math.min(BATCH_SLOTS, options.poolSize ?? settings/* DEFAULT_POOL_SIZE */.xl),
        waitMs: options.connectTimeoutMs ?? settings/* DEFAULT_CONNECT_TIMEOUT_MS */.od,
        spareAfterMs: SPARE_AFTER_MS,
        busy: () => new store_error/* StoreUnavailableError */.o2("the kernel's store is busy: every connection is in use"),
    };
}

// EXTERNAL MODULE: ./src/kernel/rules/failover.ts
var failover = __webpack_require__(8219);
;// CONCATENATED MODULE: ./src/kernel/postgres/timeline.ts



/** The server's current WAL insert timeline; fails on a standby (recovery is in progress). */
const CURRENT = `('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint`;
/**
 * Run on each connection before its first change. A primary's timeline is fixed while it
 * runs (only a promotion, of a standby, starts a new one), so a connection that found
 * its server writable on timeline t writes on t until it closes. When lease_gate_timeline
 * names another timeline, this is the first connection to the promoted standby: it
 * records the new timeline and the time (the database's clock), and raises the fence
 * sequence to the new timeline's epoch (failover.ts), in one transaction whose row lock
 * makes the replicas that race here do it once. setval is not transactional: the floor
 * holds as soon as it is set, before any change of this connection.
 * Needs no privilege beyond the schema's: pg_walfile_name and pg_current_wal_lsn are
 * PUBLIC, and pg_current_wal_lsn refuses a standby, so a kernel never writes on one.
 */
async function followTimeline(client) {
    const seen = await read(client);
    if (seen.stored === seen.timeline)
        return seen;
    const floor = (0,failover/* fenceFloor */.qu)(seen.timeline);
    if (floor === undefined)
        throw new store_error/* StoreError */.AD(`the database is on timeline ${seen.timeline}, past ${failover/* MAX_TIMELINE */.dm}: its fences would exceed 2^53; restore it to a fresh cluster (timeline 1)`);
    await client.query('BEGIN');
    try {
        await client.query(`UPDATE lease_gate_timeline SET timeline = $1, changed_ms = ${NOW_MS},
              size_at_change = (SELECT size FROM lease_gate_sequenced WHERE id = 1)
        WHERE id = 1 AND timeline <> $1`, [seen.timeline]);
        await client.query(`SELECT setval('lease_gate_fence', $1::bigint, true)
        WHERE $1::bigint > (SELECT last_value FROM lease_gate_fence)`, [floor]);
        await client.query('COMMIT');
    }
    catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
    }
    const after = await read(client);
    if (after.stored !== after.timeline)
        throw new store_error/* StoreError */.AD(`lease_gate_timeline names timeline ${after.stored} after recording ${after.timeline}`);
    return after;
}
async function read(client) {
    const { rows } = await client.query(`SELECT ${CURRENT} AS current, t.timeline AS stored, t.changed_ms, t.size_at_change
       FROM lease_gate_timeline AS t WHERE t.id = 1`);
    const row = rows[0];
    if (!row)
        throw new store_error/* StoreError */.AD('lease_gate_timeline has no row: run lease-gate kernel migrate');
    return {
        timeline: Number(row.current),
        stored: Number(row.stored),
        changedMs: row.changed_ms,
        sizeAtChange: Number(row.size_at_change),
    };
}

;// CONCATENATED MODULE: ./src/kernel/postgres/connections.ts




const guarded = new WeakSet();
/** Connections that checked the database's timeline (timeline.ts) before their first use. */
const followed = new WeakSet();
/**
 * A replica's connections to the database: every one of the main pool is checked against
 * the database's timeline before its first use, so a failover is seen (the hold that
 * follows it, and a replica whose ledger read entries the failover lost stops serving).
 */
class Connections {
    ledger;
    ttlMs;
    log;
    pool;
    /**
     * The sequencer's own connection: its watermark waits for commits in flight, and a
     * commit stuck on a row lock must not leave a batch without a connection meanwhile.
     */
    sequencerPool;
    /** The latest timeline change any connection found (changedMs 0: none): the failover hold. */
    timeline;
    /** Set when this replica's ledger holds entries a failover lost: it then serves nothing. */
    forked;
    stopped = false;
    constructor(options, ledger, ttlMs, log) {
        this.ledger = ledger;
        this.ttlMs = ttlMs;
        this.log = log;
        this.pool = (0,postgres_connect/* createPool */.b)(options, log);
        this.sequencerPool = (0,postgres_connect/* createPool */.b)({ ...options, poolSize: 1 }, log);
    }
    /** The failover hold at `now` (rules/failover.ts), from the latest timeline change found. */
    hold(now) {
        const seen = this.timeline;
        return seen && (0,failover/* failoverHold */.cm)(seen.changedMs, this.ttlMs, now, seen.timeline);
    }
    /** No connection is handed out from now on: the kernel is stopping. */
    stop() {
        this.stopped = true;
    }
    async end() {
        await Promise.all([this.pool.end(), this.sequencerPool.end()]).catch(() => undefined);
    }
    /**
     * A pooled connection. One of the main pool is first checked against the database's
     * timeline (`follow`, timeline.ts): a failover is seen before anything is decided on
     * the promoted standby, and a standby (still in recovery) is never used.
     */
    async connect(pool = this.pool, follow = true) {
        if (this.stopped)
            throw new store_error/* StoreUnavailableError */.o2('the kernel is stopping');
        if (this.forked)
            throw new store_error/* StoreUnavailableError */.o2(this.forked);
        let client;
        try {
            client = await pool.connect();
        }
        catch (error) {
            throw new store_error/* StoreUnavailableError */.o2(`the kernel's store is unreachable: ${(0,postgres_connect/* describe */.q0)(error)}`, {
                cause: error,
            });
        }
        // A connection that breaks while checked out fails its query; its 'error' event must not crash us.
        if (!guarded.has(client)) {
            guarded.add(client);
            client.on('error', () => undefined);
        }
        // The sequencer's too: it numbers entries only once the change and the ledger's size then are recorded.
        if (follow && !followed.has(client)) {
            try {
                this.sawTimeline(await followTimeline(client));
                if (this.forked)
                    throw new store_error/* StoreUnavailableError */.o2(this.forked);
                followed.add(client);
            }
            catch (error) {
                client.release(true);
                if (error instanceof store_error/* StoreError */.AD || error instanceof store_error/* StoreUnavailableError */.o2)
                    throw error;
                throw new store_error/* StoreUnavailableError */.o2(`the kernel's store cannot be written (a standby?): ${(0,postgres_connect/* describe */.q0)(error)}`, { cause: error });
            }
        }
        return client;
    }
    /**
     * Keeps the latest timeline change found, and says when one is first seen here. A
     * replica that read more of the ledger than the new primary had when the change was
     * recorded holds entries (signed, perhaps exported) that the failover lost: numbering
     * goes on from the shorter ledger, so this replica would sign two histories. It stops
     * serving (503 to every call, /readyz failing) until it is restarted, which reads the
     * new primary's ledger from its rows.
     */
    sawTimeline(seen) {
        const before = this.timeline;
        if (before && before.timeline === seen.timeline && before.changedMs >= seen.changedMs)
            return;
        if (before && seen.changedMs < before.changedMs)
            return;
        this.timeline = seen;
        if (!before || before.timeline === seen.timeline)
            return;
        this.log(`kernel: the database is now on timeline ${seen.timeline} (was ${before.timeline}): fences start above ${seen.timeline}'s epoch, and no lease is granted or renewed until ${new Date(seen.changedMs + this.ttlMs).toISOString()}`);
        if (this.ledger.size > seen.sizeAtChange) {
            this.forked = `this replica read ${this.ledger.size} ledger entries, but the database had ${seen.sizeAtChange} when it failed over to timeline ${seen.timeline} (asynchronous replication lost the rest): restart this replica to read the ledger the new primary has`;
            this.log(`kernel: ${this.forked}`);
        }
    }
    async query(text, values = []) {
        try {
            return await this.withClient(this.pool, (client) => client.query(text, values));
        }
        catch (error) {
            if (error instanceof store_error/* StoreUnavailableError */.o2)
                throw error;
            throw new store_error/* StoreUnavailableError */.o2(`the kernel's store cannot read: ${(0,postgres_connect/* describe */.q0)(error)}`, {
                cause: error,
            });
        }
    }
    /** A pooled connection for one task; one that failed is closed, never reused. */
    async withClient(pool, task) {
        const client = await this.connect(pool);
        try {
            const result = await task(client);
            client.release();
            return result;
        }
        catch (error) {
            client.release(true);
            throw error;
        }
    }
}

// EXTERNAL MODULE: ./src/ledger/entry.ts
var entry = __webpack_require__(5641);
// EXTERNAL MODULE: ./src/ledger/fetched-lines.ts
var fetched_lines = __webpack_require__(3778);
;// CONCATENATED MODULE: ./src/kernel/postgres/ledger-tree.ts




const PAGE = 5_000;
/** The tree's frontier is saved first at this size, then each time the ledger doubles \u2026 */
const TREE_FIRST = 1_024;
/** \u2026 or grows by this many entries. */
const TREE_EVERY = 65_536;
/**
 * A replica's ledger over lease_gate_ledger (postgres/backend.ts): the lines stay in the
 * database, and the replica keeps the Merkle tree's chunk roots, reads back the lines a
 * route asks for (FetchedLines), loads what was numbered since its last read, and saves
 * the tree's frontier in lease_gate_tree so that a replica that starts reads only the
 * rows after it.
 */
class PostgresLedger {
    ledger;
    schema;
    query;
    log;
    reading;
    readNext;
    /** The size of the tree's frontier last saved or restored here. */
    savedTree = 0;
    constructor(ledger, schema, query, log) {
        this.ledger = ledger;
        this.schema = schema;
        this.query = query;
        this.log = log;
    }
    /**
     * A read of the ledger that starts after this call: a read already in flight may have
     * taken its snapshot before the caller's pass committed, so it is followed by one more
     * (shared by every caller that comes while it waits). One read at a time loads entries.
     */
    readAfterNow() {
        if (this.readNext)
            return this.readNext;
        if (!this.reading) {
            const reading = this.readLedger().finally(() => {
                this.reading = undefined;
            });
            this.reading = reading;
            return reading;
        }
        const next = this.reading
            .catch(() => undefined)
            .then(() => {
            this.readNext = undefined;
            return this.readAfterNow();
        });
        this.readNext = next;
        return next;
    }
    /** Loads the entries numbered since the last read, a page at a time. */
    async readLedger() {
        for (;;) {
            const { rows } = await this.query('SELECT line FROM lease_gate_ledger WHERE seq >= $1 ORDER BY seq LIMIT $2', [this.ledger.size, PAGE]);
            for (const { line } of rows) {
                this.ledger.load(line, `${this.schema}.lease_gate_ledger entry ${this.ledger.size}`);
            }
            if (rows.length < PAGE)
                break;
        }
        await this.saveTree();
    }
    fetchedLines() {
        return new fetched_lines/* FetchedLines */.N2((lo, hi) => this.linesBetween(lo, hi));
    }
    /**
     * Starts the ledger's tree from the frontier saved in lease_gate_tree when it
     * agrees with the rows (its chunk roots and the rows after them give the root
     * it names, and its last stamp is the stamp of the row before its size): then
     * only the rows after it are read. Otherwise the tree starts empty and is
     * built from every row; a saved frontier that did not agree is returned, to
     * be checked against them.
     */
    async openTree() {
        const { rows } = await this.query('SELECT size, last_ts, root, chunk_roots FROM lease_gate_tree WHERE id = 1');
        const row = rows[0];
        if (!row) {
            this.ledger.readFrom(this.fetchedLines());
            return undefined;
        }
        const snapshot = {
            size: Number(row.size),
            lastTs: Number(row.last_ts),
            root: row.root,
            chunkRoots: row.chunk_roots,
        };
        const lines = this.fetchedLines();
        try {
            lines.restore(snapshot.size);
            const tail = snapshot.size - (snapshot.size % fetched_lines/* FETCH_CHUNK */.Fs);
            await lines.load(Math.max(0, Math.min(tail, snapshot.size - 1)), snapshot.size);
            if (snapshot.size > 0) {
                // The row's own text never reaches the log: a parse error would quote it.
                const last = entry/* entrySchema */.Oo.safeParse(parseJson(lines.at(snapshot.size - 1)));
                if (!last.success || last.data.seq !== snapshot.size - 1)
                    throw new Error('its last row is not the ledger entry before its size');
                if (last.data.tsMs !== snapshot.lastTs)
                    throw new Error('its last stamp is not the last row\u2019s');
            }
            this.ledger.restoreFrom(lines, snapshot);
            this.savedTree = snapshot.size;
            return undefined;
        }
        catch (error) {
            this.log(`kernel: the ledger tree saved at ${snapshot.size} entries does not agree with ${this.schema}.lease_gate_ledger (${(0,postgres_connect/* describe */.q0)(error)}); building it from every row`);
            this.ledger.readFrom(this.fetchedLines());
            return snapshot;
        }
    }
    /**
     * After a tree built from every row because the saved frontier did not
     * agree: when the rows reach its size, their root there must be the one it
     * names. Else a row changed after it was saved (or the frontier is wrong),
     * and a replica started from the frontier would sign another root for the
     * same size: this one refuses to start rather than sign either.
     */
    async checkRowsAgainst(frontier) {
        const { size } = frontier;
        if (this.ledger.size < size) {
            this.log(`kernel: ${this.schema}.lease_gate_ledger has ${this.ledger.size} entries, fewer than the ${size} its saved tree had (restored from a backup?)`);
            return;
        }
        const root = await this.ledger.read(size, size, size, () => this.ledger.rootAt(size));
        if (root !== frontier.root)
            throw new store_error/* StoreError */.AD(`the rows of ${this.schema}.lease_gate_ledger before entry ${size} do not hash to the tree saved at ${size} entries in lease_gate_tree: a row changed after it was signed, or the saved tree is wrong. This replica signs neither; compare an export with an earlier one, and delete the row of lease_gate_tree only once the ledger's rows are known to be right`);
    }
    /**
     * Saves the tree's frontier once it has grown by as many entries as it had
     * (and every 65,536 at most), so a replica that starts reads only the rows
     * after it; a newer one is never replaced by an older. A failure is told and
     * costs only time at the next start.
     */
    async saveTree() {
        const size = this.ledger.size;
        if (size - this.savedTree < Math.max(TREE_FIRST, Math.min(this.savedTree, TREE_EVERY)))
            return;
        const snapshot = this.ledger.snapshot();
        try {
            await this.query(`INSERT INTO lease_gate_tree AS t (id, size, last_ts, root, chunk_roots)
              VALUES (1, $1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET size = EXCLUDED.size, last_ts = EXCLUDED.last_ts,
                root = EXCLUDED.root, chunk_roots = EXCLUDED.chunk_roots
          WHERE t.size < EXCLUDED.size`, [snapshot.size, snapshot.lastTs, snapshot.root, snapshot.chunkRoots]);
            this.savedTree = size;
        }
        catch (error) {
            this.log(`kernel: could not save the ledger tree's frontier: ${(0,postgres_connect/* describe */.q0)(error)}`);
        }
    }
    /** See PlaneService.searchLedger: one statement, however far back it looks. */
    async search(needle, from, limit) {
        const { rows } = await this.query('SELECT seq FROM lease_gate_ledger WHERE seq >= $1 AND strpos(line, $2) > 0 ORDER BY seq DESC LIMIT $3', [from, needle, limit]);
        return rows.map((r) => Number(r.seq));
    }
    /** Ledger lines [lo, hi), in order, as they were numbered. */
    async linesBetween(lo, hi) {
        const { rows } = await this.query('SELECT line FROM lease_gate_ledger WHERE seq >= $1 AND seq < $2 ORDER BY seq', [lo, hi]);
        return rows.map((r) => r.line);
    }
}
/** JSON text as a value, or undefined when it is not JSON (the caller says what it expected). */
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}

// EXTERNAL MODULE: external "node:perf_hooks"
var external_node_perf_hooks_ = __webpack_require__(643);
;// CONCATENATED MODULE: ./src/kernel/postgres/rows.ts


/** Rows kept at most; the least recently used go first (a miss costs one round trip). */
const KEPT = 10_000;
/**
 * The rows this replica decides against without reading them (commit.ts). Never the
 * truth: lease_gate_commit writes only if the row is still at the version kept here.
 */
class RowCache {
    limit;
    rows = new Map();
    constructor(limit = KEPT) {
        this.limit = limit;
    }
    /** The row as last seen; a resource never seen is guessed absent (new resources are). */
    get(resource) {
        const row = this.rows.get(resource);
        if (!row)
            return { state: (0,rules/* emptyState */.p$)(resource), version: null };
        this.rows.delete(resource);
        this.rows.set(resource, row);
        return row;
    }
    set(resource, row) {
        this.rows.delete(resource);
        this.rows.set(resource, row);
        if (this.rows.size > this.limit)
            this.rows.delete(this.rows.keys().next().value);
    }
    /** What a failed batch left is not known: read before deciding on these again. */
    forget(resources) {
        for (const resource of resources)
            this.set(resource, { state: (0,rules/* emptyState */.p$)(resource), version: '' });
    }
}
/**
 * The database's clock as seen from here: the last value a commit read, plus the time
 * elapsed on this process's monotonic clock since its answer arrived. That value was
 * read before the answer left the database, so the projection is at most the
 * database's clock now (clocks that run at one rate); lease_gate_commit refuses a
 * decision ahead of it, and `reset` then starts again from the value it answers.
 */
class DbClock {
    base;
    at = 0;
    /** The projected clock, or undefined before the first answer. */
    now() {
        if (this.base === undefined)
            return undefined;
        return this.base + Math.floor(external_node_perf_hooks_.performance.now() - this.at);
    }
    /** A commit read `clockMs`: the projection never goes back for it. */
    saw(clockMs) {
        const projected = this.now();
        if (projected !== undefined && projected >= clockMs)
            return;
        this.base = clockMs;
        this.at = external_node_perf_hooks_.performance.now();
    }
    /** The projection was ahead of the database's clock: start again from `clockMs`. */
    reset(clockMs) {
        this.base = clockMs;
        this.at = external_node_perf_hooks_.performance.now();
    }
}

// EXTERNAL MODULE: ./node_modules/pg/esm/index.mjs
var esm = __webpack_require__(3849);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./src/kernel/rules/event.ts
var rules_event = __webpack_require__(4445);
;// CONCATENATED MODULE: ./src/kernel/postgres/listen.ts




const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];
/** A change notice: one resource's events of one commit. */
const changeNoticeSchema = schemas/* object */.Ikc({
    resource: schemas/* string */.YjP(),
    events: schemas/* array */.YOg(rules_event/* kernelEventSchema */.J),
    /** A change with no ledger entry that may free the resource (a revoked holder gave back). */
    freed: schemas/* optional */.lqM(schemas/* boolean */.zMY()),
});
/** A NOTIFY payload: the notices of one replica (`from`), in the order it committed them. */
const noticesSchema = schemas/* object */.Ikc({
    from: schemas/* string */.YjP(),
    changes: schemas/* array */.YOg(changeNoticeSchema),
});
/** The NOTIFY channel of one plane (one schema). */
const channelOf = (schema) => `lease_gate_${schema}`;
/**
 * One connection that LISTENs on the plane's channel and hands each payload
 * on. When it breaks (the database restarted) it connects again, backing off;
 * `onReconnect` is told, since notifications sent meanwhile are lost.
 */
function listenForChanges(options) {
    let client;
    let closed = false;
    let failures = 0;
    let timer;
    let first = true;
    const connect = async () => {
        const next = new esm/* default.Client */.Ay.Client((0,postgres_connect/* connectionConfig */.tv)(options.connection));
        next.on('notification', (message) => {
            if (message.channel === options.channel && message.payload)
                options.onPayload(message.payload);
        });
        next.on('error', (error) => lost(next, error));
        next.on('end', () => lost(next, new Error('the connection ended')));
        client = next;
        await next.connect();
        await next.query(`LISTEN ${options.channel}`);
        if (failures > 0)
            options.log('kernel: listening for changes again');
        if (!first)
            options.onReconnect?.();
        first = false;
        failures = 0;
    };
    const lost = (which, error) => {
        if (closed || which !== client)
            return;
        client = undefined;
        which.removeAllListeners('end');
        which.on('error', () => undefined);
        void which.end().catch(() => undefined);
        if (failures === 0)
            options.log(`kernel: lost the LISTEN connection: ${(0,postgres_connect/* describe */.q0)(error)}`);
        retry();
    };
    const retry = () => {
        if (closed || timer)
            return;
        const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
        failures += 1;
        timer = setTimeout(() => {
            timer = undefined;
            connect().catch((error) => {
                if (client)
                    lost(client, error);
                else
                    retry();
            });
        }, delay);
        timer.unref();
    };
    const ready = connect().catch((error) => {
        if (client)
            lost(client, error);
        throw error;
    });
    return {
        ready,
        async close() {
            closed = true;
            if (timer)
                clearTimeout(timer);
            const last = client;
            client = undefined;
            if (last) {
                last.removeAllListeners('end');
                last.on('error', () => undefined);
                await last.end().catch(() => undefined);
            }
        },
    };
}

;// CONCATENATED MODULE: ./src/kernel/postgres/listening.ts


/** How long a registration lasts in lease_gate_listening (the database's clock). */
const LISTEN_FOR_MS = 5 * 60_000;
/**
 * A registration is renewed once this old, so it outlives anything that relies on
 * it (a held request or a watch is held 25 s at most, and registers again to be held again).
 */
const RENEW_AFTER_MS = 60_000;
/**
 * This replica's rows of lease_gate_listening: the resources on which it holds
 * requests or watches, so that another replica's commit on one of them tells it
 * (NOTIFY) and a commit on any other resource tells nobody. A caller registers
 * before it looks at the resource (its first ask, a watch's status): a commit
 * reads the rows after its row locks, so one that changes the resource after
 * the look sees the row, and one before it is what the look sees.
 *
 * A registration that fails is logged and not remembered: the request goes on,
 * and is woken by its own told wait instead (a wake-up is never a record).
 */
class Listening {
    query;
    replica;
    log;
    clock;
    /** When each resource was last registered here (this process's monotonic clock). */
    registered = new Map();
    pending = new Map();
    failing = false;
    constructor(query, replica, log, clock = () => performance.now()) {
        this.query = query;
        this.replica = replica;
        this.log = log;
        this.clock = clock;
    }
    /** Resolves once a commit on `resource` that follows will be told to this replica. */
    listen(resource) {
        const at = this.registered.get(resource);
        if (at !== undefined && this.clock() - at < RENEW_AFTER_MS)
            return Promise.resolve();
        const running = this.pending.get(resource);
        if (running)
            return running;
        const started = this.clock();
        // No wait for the WAL flush: a row is seen by every commit once committed, and a
        // database that loses it (a crash) breaks the LISTEN connection too, after which `again`.
        const registering = this.query(`WITH quick AS (SELECT set_config('synchronous_commit', 'off', true))
       INSERT INTO lease_gate_listening (resource, replica, until_ms)
         SELECT $1, $2, ${NOW_MS} + ${LISTEN_FOR_MS} FROM quick
         ON CONFLICT (resource, replica) DO UPDATE SET until_ms = EXCLUDED.until_ms`, [resource, this.replica])
            .then(() => {
            this.registered.set(resource, started);
            if (this.failing)
                this.log('kernel: registers its listeners again');
            this.failing = false;
        }, (error) => {
            if (!this.failing)
                this.log(`kernel: could not register a listener; held requests and watches here wake at their told wait instead: ${(0,errors/* causeText */.xv)(error)}`);
            this.failing = true;
        })
            .finally(() => this.pending.delete(resource));
        this.pending.set(resource, registering);
        return registering;
    }
    /**
     * The database may have lost the rows (the LISTEN connection broke): writes again
     * every registration that may be in use, so requests held meanwhile are told again.
     */
    async again() {
        const recent = [...this.registered.keys()];
        this.registered.clear();
        await Promise.all(recent.map((resource) => this.listen(resource)));
    }
    /**
     * Deletes every replica's registrations that ran out (a replica that died leaves its
     * own), and forgets this replica's that are due for renewal anyway.
     */
    async prune() {
        const now = this.clock();
        for (const [resource, at] of this.registered)
            if (now - at >= RENEW_AFTER_MS)
                this.registered.delete(resource);
        await this.query(`DELETE FROM lease_gate_listening WHERE until_ms < ${NOW_MS}`, []);
    }
    /** This replica's rows go when it stops: no commit tells a replica that is gone. */
    async close() {
        this.registered.clear();
        await this.query('DELETE FROM lease_gate_listening WHERE replica = $1', [this.replica]);
    }
}

;// CONCATENATED MODULE: ./src/kernel/postgres/locks.ts

// The first half of each advisory lock key: ours, whatever else shares the database.
const SEQUENCER = 0x4c470002;
/** The writers' stripes: this plus 0 \u2026 WRITER_STRIPES - 1. */
const WRITERS = 0x4c470100;
const WRITER_STRIPES = 16;
function planeLocks(schema) {
    const id = (0,external_node_crypto_.createHash)('sha256').update(`lease-gate ${schema}`).digest().readInt32BE(0);
    return {
        stripes: WRITERS,
        plane: id,
        writer: `${WRITERS} + pg_backend_pid() % ${WRITER_STRIPES}, ${id}`,
        watermark: `SELECT pg_advisory_lock(k, ${id}), pg_advisory_unlock(k, ${id})
                  FROM generate_series(${WRITERS}, ${WRITERS + WRITER_STRIPES - 1}) AS k`,
        sequencer: `${SEQUENCER}, ${id}`,
    };
}

;// CONCATENATED MODULE: ./src/kernel/postgres/notices.ts

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; ours stay below this. */
const MAX_PAYLOAD = 7_000;
/** Notices per NOTIFY statement at most. */
const MAX_PER_SEND = 1_000;
/**
 * One replica's change notices, sent after their commits rather than inside
 * them. A NOTIFY in a transaction takes a lock that every notifying commit in
 * the database waits for from before its WAL flush to its end, so commits with
 * a NOTIFY cannot share a flush; sent after, each change commits on its own.
 * Notices go out in the order their commits were answered here, coalesced (one
 * statement for all that queued while the last one was out, as few payloads
 * as fit, each naming this replica so it skips its own), on a connection of
 * their own, without waiting for a WAL flush: a notice is no record. A notice
 * lost to a crash or a broken connection only delays a wake-up: a held request
 * asks again when its told wait runs out, and a watch looks again when its
 * wait ends (docs/self-hosting.md).
 */
class NoticeSender {
    pool;
    channel;
    log;
    /** Each queued notice as JSON, under the payload limit. */
    queue = [];
    sending;
    failing = false;
    head;
    constructor(pool, channel, log, 
    /** This replica's name in its payloads (noticePrefix). */
    from) {
        this.pool = pool;
        this.channel = channel;
        this.log = log;
        this.head = noticePrefix(from);
    }
    /** Queues one batch's notices (changesOf), each split small enough. */
    changed(notices) {
        for (const notice of notices)
            this.queue.push(...payloads(notice.resource, notice.events));
        this.drain();
    }
    /** A change with no ledger entry that may free the resource (a revoked holder gave back). */
    freed(resource) {
        this.queue.push(freedNotice(resource));
        this.drain();
    }
    /** Resolves once everything queued has been sent (or given up). */
    async idle() {
        while (this.sending)
            await this.sending;
    }
    /** Sends what is queued, then closes its connection. */
    async close() {
        await this.idle();
        await this.pool.end().catch(() => undefined);
    }
    drain() {
        if (this.sending)
            return;
        this.sending = this.sendAll().finally(() => {
            this.sending = undefined;
        });
    }
    async sendAll() {
        while (this.queue.length > 0) {
            const notices = this.queue.splice(0, MAX_PER_SEND);
            try {
                await this.pool.query(`SELECT pg_notify($1, n) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS s,
                  unnest($2::text[]) AS n`, [this.channel, packed(this.head, notices)]);
                if (this.failing)
                    this.log('kernel: change notices are sent again');
                this.failing = false;
            }
            catch (error) {
                if (!this.failing)
                    this.log(`kernel: could not tell the other replicas of ${notices.length} change(s); their waiters ask again when their wait runs out: ${(0,postgres_connect/* describe */.q0)(error)}`);
                this.failing = true;
            }
        }
    }
}
/** How a replica's payloads begin: another replica parses them, this one skips them. */
const noticePrefix = (from) => `{"from":${JSON.stringify(from)},"changes":[`;
/** A batch's events as one notice per resource, in the order each resource first changed. */
function changesOf(events) {
    const byResource = new Map();
    for (const e of events) {
        const list = byResource.get(e.resource);
        if (list)
            list.push(e);
        else
            byResource.set(e.resource, [e]);
    }
    return [...byResource].map(([resource, list]) => ({ resource, events: list }));
}
/** Notices, in order, joined into as few payloads as stay under the limit. */
function packed(head, notices) {
    const out = [];
    let part = '';
    let bytes = Buffer.byteLength(head) + 2;
    for (const notice of notices) {
        const length = Buffer.byteLength(notice) + 1;
        if (part && bytes + length > MAX_PAYLOAD) {
            out.push(`${head}${part}]}`);
            part = '';
            bytes = Buffer.byteLength(head) + 2;
        }
        part += part ? `,${notice}` : notice;
        bytes += length;
    }
    if (part)
        out.push(`${head}${part}]}`);
    return out;
}
/** "Changed, may be free": wakes the waiters, who ask again. */
const freedNotice = (resource) => JSON.stringify({ resource, events: [], freed: true });
/**
 * A resource's events as notices under the payload limit (with room for a
 * replica's name), in order; an event too large on its own is told as
 * "changed, may be free", which wakes the waiters (they ask again) though a
 * watch then learns the end from the ledger.
 */
function payloads(resource, events) {
    const out = [];
    let part = [];
    let size = 0;
    // The notice's own words, its resource's JSON and a replica's name, with room to spare.
    const overhead = 200 + Buffer.byteLength(JSON.stringify(resource));
    const flush = () => {
        if (part.length)
            out.push(JSON.stringify({ resource, events: part }));
        part = [];
        size = 0;
    };
    for (const event of events) {
        const length = Buffer.byteLength(JSON.stringify(event)) + 1;
        if (length + overhead > MAX_PAYLOAD) {
            flush();
            out.push(freedNotice(resource));
            continue;
        }
        if (size + length + overhead > MAX_PAYLOAD)
            flush();
        part.push(event);
        size += length;
    }
    flush();
    return out;
}

// EXTERNAL MODULE: ./src/kernel/postgres/migrations.ts + 1 modules
var migrations = __webpack_require__(7441);
// EXTERNAL MODULE: ./src/ledger/checkpoint.ts
var checkpoint = __webpack_require__(4491);
;// CONCATENATED MODULE: ./src/kernel/postgres/plane-key.ts


/** A replica whose signing key is not the plane's: it must not serve (one line, exit 1). */
class PlaneKeyError extends store_error/* StoreError */.AD {
    name = 'PlaneKeyError';
}
/**
 * Records the plane's public key at its first start (the first replica's to commit wins)
 * and refuses a replica whose key differs: its checkpoints over the shared ledger would
 * not verify against the key the plane published. An unsigned ledger (tests) records none.
 */
async function checkPlaneKey(client, publicKey) {
    if (!publicKey)
        return;
    const origin = (0,checkpoint/* originFor */.Ag)(publicKey);
    const pem = String(publicKey.export({ type: 'spki', format: 'pem' }));
    // Of replicas that start together one inserts the row; the others' inserts wait for its
    // commit and do nothing, and each then reads the row that won (read committed).
    await client.query(`INSERT INTO lease_gate_plane_key (id, origin, public_key) VALUES (1, $1, $2)
       ON CONFLICT (id) DO NOTHING`, [origin, pem]);
    const { rows } = await client.query(`SELECT origin, public_key, to_char(recorded_at AT TIME ZONE 'UTC',
       'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS recorded FROM lease_gate_plane_key WHERE id = 1`);
    const plane = rows[0];
    if (!plane)
        throw new store_error/* StoreError */.AD("the plane's public key is not recorded");
    if (plane.public_key.trim() !== pem.trim())
        throw new PlaneKeyError(`this replica's --signing-key signs as ${origin}, but the plane's ledger is signed by ${plane.origin} (recorded ${plane.recorded}): start every replica with the plane's --signing-key FILE`);
}

// EXTERNAL MODULE: ./src/ledger/ledger.ts + 1 modules
var ledger = __webpack_require__(7781);
;// CONCATENATED MODULE: ./src/kernel/postgres/literals.ts

/**
 * SQL literals for the statements sent as one simple query (several statements,
 * a transaction's whole read or its write and COMMIT, in one round trip: the
 * extended protocol takes one round trip per statement). Every value is
 * escaped here and nowhere else; NUL, which would end a query's text, is refused.
 */
/** A text literal in the escape-string form, whatever `standard_conforming_strings` says. */
function textLiteral(value) {
    if (value.includes('\0'))
        throw new errors/* InternalError */.Gd('a value sent to PostgreSQL contains NUL');
    return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
/** A whole number as a literal (NULL for null); anything else is refused. */
function integerLiteral(value) {
    if (value === null)
        return 'NULL';
    if (!Number.isSafeInteger(value))
        throw new errors/* InternalError */.Gd(`not a whole number for PostgreSQL: ${value}`);
    return String(value);
}
/** An array literal of `type` (text, jsonb, bigint, int). */
function arrayLiteral(values, type) {
    const items = values.map((v) => (typeof v === 'string' ? textLiteral(v) : integerLiteral(v)));
    return `ARRAY[${items.join(',')}]::${type}[]`;
}

;// CONCATENATED MODULE: ./src/kernel/postgres/sequencer.ts





/** Entries numbered per sequencing transaction at most. */
const SEQUENCE_BATCH = 2_000;
/**
 * One sequencing transaction: moves committed pending entries into the
 * ledger, numbered after its head, in (major, key) order. Returns the entries
 * it numbered, in that order, or undefined when another replica is sequencing
 * (`wait` false).
 *
 * Which pending entries may be numbered now: those whose major is at most F,
 * the fence sequence's value read before the watermark. Every commit holds a
 * writers stripe shared from its first statement to its end (locks.ts), and
 * the watermark takes each stripe exclusively for a moment, so once it is
 * through, every transaction that drew a fence \u2264 F has ended; PostgreSQL
 * makes a commit visible before it releases its locks, so the next
 * statement's snapshot sees all of them. Then:
 * - a grant numbered now has fence \u2264 F, and every grant with a smaller fence
 *   drew it earlier, so it is visible too and numbered with it or before:
 *   fences rise along the ledger;
 * - an entry numbered now came after its resource's earlier changes, which
 *   committed before its row lock was taken, drew smaller keys and no larger
 *   major, so they are visible and numbered with it or before: each resource's
 *   history keeps its order.
 * Nothing is lost at a crash: the pending rows go in the transaction that
 * writes their ledger lines, and an entry is signed only once sequenced.
 */
async function sequenceOnce(client, locks, wait, limit = SEQUENCE_BATCH) {
    const take = wait
        ? `pg_advisory_xact_lock(${locks.sequencer}) IS NOT NULL`
        : `pg_try_advisory_xact_lock(${locks.sequencer})`;
    // One round trip: the sequencer's lock, then F (kept for the transaction; -1 when the lock
    // is another replica's), then the watermark (locks.ts), then, in a statement of its own and
    // so a snapshot taken after the watermark, the entries taken out of pending, lowest first.
    // Only the sequencer deletes pending rows, one at a time (its lock), so the rows it picks
    // are still where it found them; a rollback puts them back.
    try {
        const read = (await client.query(`BEGIN;
SELECT set_config('lease_gate.mark', CASE WHEN ${take}
         THEN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM lease_gate_fence)::text
         ELSE '-1' END, true) AS f;
${locks.watermark} WHERE current_setting('lease_gate.mark')::bigint >= 0;
WITH taken AS (
  DELETE FROM lease_gate_pending WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM lease_gate_pending WHERE major <= current_setting('lease_gate.mark')::bigint
     ORDER BY major, key LIMIT ${integerLiteral(limit)}))
  RETURNING key, major, event)
SELECT h.size, h.last_ts, p.key, p.event FROM lease_gate_sequenced AS h
  LEFT JOIN taken AS p ON true WHERE h.id = 1 ORDER BY p.major, p.key`));
        if (read[1].rows[0]?.f === '-1') {
            await client.query('ROLLBACK');
            return undefined;
        }
        const rows = read[3].rows;
        const head = rows[0];
        const pending = rows.filter((r) => r.key !== null);
        if (pending.length === 0) {
            await client.query('COMMIT');
            return [];
        }
        const events = pending.map((r) => {
            const parsed = rules_event/* kernelEventSchema */.J.safeParse(JSON.parse(r.event));
            if (!parsed.success)
                throw new store_error/* StoreError */.AD(`lease_gate_pending entry ${r.key} is not a lease-gate change`);
            return parsed.data;
        });
        const entries = (0,ledger/* numberEntries */.y)(events, Number(head.size), Number(head.last_ts));
        const last = entries.at(-1);
        await client.query(`WITH logged AS (INSERT INTO lease_gate_ledger (seq, line)
                           SELECT * FROM unnest(${arrayLiteral(entries.map((e) => e.seq), 'bigint')}, ${arrayLiteral(entries.map(entry/* entryJson */.Bm), 'text')}))
         UPDATE lease_gate_sequenced SET size = ${integerLiteral(last.seq + 1)},
                last_ts = ${integerLiteral(last.tsMs)} WHERE id = 1;
         COMMIT`);
        return entries;
    }
    catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/kernel/postgres/backend.ts





















/**
 * How soon after a commit its entries are sequenced: more commits join the same pass, and
 * a pass is a few round trips and a WAL flush of its own (a ledger read runs one first).
 */
const SEQUENCE_AFTER_MS = 50;
/** Every replica sequences this often too, so a replica that died leaves nothing pending. */
const SEQUENCE_EVERY_MS = 1_000;
/** Sequencing transactions per pass at most (each numbers up to SEQUENCE_BATCH entries). */
const SEQUENCE_ROUNDS = 50;
/** How often a replica deletes registrations to listen that ran out (listening.ts). */
const PRUNE_EVERY_MS = 60_000;
const PostgresService = {
    /** Migrates (under an advisory lock), loads the ledger, listens, and starts the sweep. */
    async open(options) {
        const { service } = await service_service/* KernelService */.h.over(new PostgresBackend(options), options);
        return service;
    },
};
/**
 * The kernel's state in PostgreSQL: no state in the process. Each batch is one
 * transaction that runs the shared rules on the resources' locked rows at the
 * database's clock; any number of replicas serve one plane. A replica tells its own
 * waiters of its changes at once; NOTIFY tells only the other replicas registered as
 * listening for a changed resource (lease_gate_listening); the service sweeps `due` on every
 * replica for lapses no call has noticed (a replica that granted a lease may
 * be gone). The ledger's lines stay in the database: a replica keeps its Merkle
 * tree's chunk roots and reads back the lines a route asks for (FetchedLines).
 */
class PostgresBackend {
    options;
    ledger;
    shared = true;
    name = 'the PostgreSQL store';
    ttlMs;
    batching;
    /** The replica's connections, checked against the database's timeline (connections.ts). */
    connections;
    /** Change notices, sent after their commits on a connection of their own (notices.ts). */
    notices;
    /** How this replica's own notices begin: it has told its own changes already. */
    ownNotices;
    /** This replica's name: in its notices, and in lease_gate_listening. */
    replica;
    schema;
    settings;
    channel;
    log;
    heard;
    sequenced;
    listener;
    /** The ledger's rows, read back and kept in a tree here (ledger-tree.ts). */
    lines;
    locks;
    /** The pass of the sequencer that will start next, and the one running (at most one of each). */
    queued;
    running = Promise.resolve();
    sequenceTimer;
    sequenceEvery;
    pruneEvery;
    /** The resources this replica asked to hear other replicas' changes of. */
    listening;
    /** The rows this replica decides against, and its view of the database's clock (commit.ts). */
    optimistic = { rows: new RowCache(), clock: new DbClock() };
    closed = false;
    constructor(options) {
        this.options = options;
        this.ledger = options.ledger;
        this.schema = (0,settings/* schemaOf */.pP)(options);
        this.channel = channelOf(this.schema);
        this.locks = planeLocks(this.schema);
        this.log = options.log ?? ((line) => console.error(line));
        const ttlMs = options.ttlMs ?? rules/* DEFAULT_TTL_MS */.KT;
        this.ttlMs = ttlMs;
        this.connections = new Connections(options, this.ledger, ttlMs, this.log);
        this.lines = new PostgresLedger(this.ledger, this.schema, (text, values) => this.connections.query(text, values), this.log);
        const from = (0,external_node_crypto_.randomBytes)(8).toString('hex');
        this.ownNotices = noticePrefix(from);
        this.replica = from;
        // The pool's own query: a stopping replica still deletes its registrations.
        const { pool } = this.connections;
        this.listening = new Listening((text, values) => pool.query(text, values), from, this.log);
        this.notices = new NoticeSender((0,postgres_connect/* createPool */.b)({ ...options, poolSize: 1 }, this.log), this.channel, this.log, from);
        this.batching = batchingOf(options);
        this.settings = {
            ttlMs,
            nextInLineWaitMs: options.nextInLineWaitMs ?? rules/* NEXT_IN_LINE_WAIT_MS */.i2,
            lockDelayMs: options.lockDelayMs ?? (0,rules/* defaultLockDelayMs */.m_)(ttlMs),
            random: options.random ?? Math.random,
            window: options.window,
        };
    }
    async open() {
        try {
            // Before the timeline is followed: a new schema's lease_gate_timeline is made here.
            const client = await this.connections.connect(this.connections.pool, false);
            try {
                await (0,migrations/* migrate */._r)(client, this.schema);
                await checkPlaneKey(client, this.ledger.publicKey);
            }
            finally {
                client.release();
            }
            // The lines stay in the database: this replica keeps the tree and reads back what a route asks for.
            const notTaken = await this.lines.openTree();
            await this.syncLedger();
            if (notTaken)
                await this.lines.checkRowsAgainst(notTaken);
            const listener = listenForChanges({
                connection: this.options,
                channel: this.channel,
                onPayload: (payload) => this.tell(payload),
                // Registered again first, so the held requests woken then are told from now on.
                onReconnect: () => void this.listening.again().then(() => this.missedNotices()),
                log: this.log,
            });
            this.listener = listener;
            await listener.ready;
            this.sequenceEvery = setInterval(() => this.sequenceSoon(0), SEQUENCE_EVERY_MS);
            this.sequenceEvery.unref();
            this.pruneEvery = setInterval(() => {
                this.listening.prune().catch((error) => {
                    if (!this.closed)
                        this.log(`kernel: could not prune listeners: ${(0,postgres_connect/* describe */.q0)(error)}`);
                });
            }, PRUNE_EVERY_MS);
            this.pruneEvery.unref();
        }
        catch (error) {
            await this.close();
            if (error instanceof store_error/* StoreError */.AD)
                throw error;
            throw new store_error/* StoreError */.AD(`cannot open the PostgreSQL store: ${(0,postgres_connect/* describe */.q0)(error)}`, {
                cause: error,
            });
        }
        return {};
    }
    async commit(work) {
        const { results, listened } = await commitBatch({
            connect: () => this.connections.connect(),
            settings: this.settings,
            locks: this.locks,
            replica: this.replica,
            ...this.optimistic,
            // Read at each transaction's `now`: a connection opened within this batch may be the
            // first to find the new timeline.
            hold: (now) => this.connections.hold(now),
        }, [...work]);
        const events = results.flatMap((r) => (r.status === 'fulfilled' ? r.value.events : []));
        if (events.length > 0) {
            const changes = changesOf(events);
            // Told to the other replicas only where one listens (it holds requests or watches there).
            const wanted = changes.filter((c) => listened.has(c.resource));
            if (wanted.length > 0)
                this.notices.changed(wanted);
            this.sequenceSoon(SEQUENCE_AFTER_MS);
            // This replica's own changes are told here, at once; the others hear them by NOTIFY.
            // They are committed: a listener that throws is logged, never the batch's failure.
            for (const change of changes) {
                try {
                    this.heard?.(change);
                }
                catch (error) {
                    this.log(`kernel: a change listener failed: ${(0,postgres_connect/* describe */.q0)(error)}`);
                }
            }
        }
        return results;
    }
    /**
     * Numbers what has committed into the ledger (sequencer.ts): one pass after
     * the last one started here ends. `wait`: take our turn even when another
     * replica is sequencing (a ledger read must see every change answered before it).
     */
    sequence(wait) {
        if (this.queued) {
            this.queued.wait ||= wait;
            return this.queued.done;
        }
        const queued = { wait, done: Promise.resolve() };
        queued.done = this.running.then(async () => {
            this.queued = undefined;
            for (let round = 0; round < SEQUENCE_ROUNDS; round += 1) {
                const numbered = await this.connections.withClient(this.connections.sequencerPool, (client) => sequenceOnce(client, this.locks, queued.wait));
                // Another replica is at it (it numbers ours too), or nothing more is there.
                if (numbered === undefined || numbered.length === 0)
                    return;
                this.sequenced?.(numbered);
                // A pass that was not full took everything committed before it began: what came
                // since waits for the next pass, so passes stay large under load (each is a
                // watermark, two round trips and a WAL flush however few entries it numbers).
                if (numbered.length < SEQUENCE_BATCH)
                    return;
            }
        });
        this.queued = queued;
        this.running = queued.done.catch(() => undefined);
        return queued.done;
    }
    /** A pass soon, in the background; a failure is told and tried again by the next one. */
    sequenceSoon(delayMs) {
        if (this.sequenceTimer || this.closed)
            return;
        this.sequenceTimer = setTimeout(() => {
            this.sequenceTimer = undefined;
            if (this.closed)
                return;
            this.sequence(false).catch((error) => {
                if (!this.closed)
                    this.log(`kernel: sequencing the ledger failed: ${(0,postgres_connect/* describe */.q0)(error)}`);
            });
        }, delayMs);
        this.sequenceTimer.unref();
    }
    /**
     * The LISTEN connection came back: what was notified meanwhile is lost, so
     * every resource someone waits for is told it may be free and held requests ask again.
     */
    async missedNotices() {
        try {
            const { rows } = await this.connections.query(`SELECT resource FROM lease_gate_resources WHERE jsonb_array_length(state->'queue') > 0`);
            for (const { resource } of rows)
                this.heard?.({ resource, events: [], freed: true });
        }
        catch (error) {
            this.log(`kernel: could not wake the held requests after reconnecting: ${(0,postgres_connect/* describe */.q0)(error)}`);
        }
    }
    async due(limit) {
        const { rows } = await this.connections.query(`SELECT resource FROM lease_gate_resources WHERE deadline_ms <= ${NOW_MS}
         ORDER BY deadline_ms LIMIT ${Math.floor(limit)}`);
        return rows.map((r) => r.resource);
    }
    /** None: the sweep finds them, whichever replica decided them. */
    deadlines = () => [];
    watch(listener) {
        this.heard = listener;
    }
    /** Another replica's commits on `resource` are told here from now on (listening.ts). */
    listen(resource) {
        return this.listening.listen(resource);
    }
    onSequenced(listener) {
        this.sequenced = listener;
    }
    /** A revoked holder giving back ends its lock-delay without a ledger entry: wake every replica's waiters. */
    async announceFreed(resource) {
        this.heard?.({ resource, events: [], freed: true });
        this.notices.freed(resource);
        await this.notices.idle();
    }
    /** Only paces held requests on this replica; expiry is the database's clock. */
    now() {
        return Date.now();
    }
    async overview() {
        const { rows } = await this.connections.query(`SELECT resource, state, ${NOW_MS} AS now_ms FROM lease_gate_resources WHERE deadline_ms IS NOT NULL OR state ? 'frozen'`);
        const now = rows[0]?.now_ms ?? Date.now();
        return (0,overview/* overviewOf */.bq)(rows.map((r) => parseState(r.state, r.resource)), now);
    }
    /** Reachable, and the schema is this binary's version. */
    async ready() {
        let client;
        try {
            client = await this.connections.connect();
        }
        catch (error) {
            throw new store_error/* StoreError */.AD((0,errors/* causeText */.xv)(error), { cause: error });
        }
        try {
            await (0,migrations/* checkSchema */._U)(client, this.schema);
            client.release();
        }
        catch (error) {
            client.release(true);
            throw error instanceof store_error/* StoreError */.AD ? error : new store_error/* StoreError */.AD((0,postgres_connect/* describe */.q0)(error));
        }
    }
    /** Sequences what has committed, then reads the entries numbered since the last read. */
    async syncLedger() {
        try {
            await this.sequence(true);
        }
        catch (error) {
            throw error instanceof store_error/* StoreError */.AD
                ? error
                : new store_error/* StoreUnavailableError */.o2(`the kernel's store cannot sequence: ${(0,postgres_connect/* describe */.q0)(error)}`);
        }
        return this.lines.readAfterNow();
    }
    /** See PlaneService.searchLedger: one statement, however far back it looks. */
    searchLedger(needle, from, limit) {
        return this.lines.search(needle, from, limit);
    }
    async close() {
        if (this.closed)
            return;
        this.closed = true;
        this.connections.stop();
        if (this.sequenceTimer)
            clearTimeout(this.sequenceTimer);
        if (this.sequenceEvery)
            clearInterval(this.sequenceEvery);
        if (this.pruneEvery)
            clearInterval(this.pruneEvery);
        await this.running;
        await this.listening.close().catch(() => undefined);
        await this.notices.close();
        await this.listener?.close();
        await this.connections.end();
    }
    /** Another replica's commits on resources this one listens for (its own are told in `commit`). */
    tell(payload) {
        if (payload.startsWith(this.ownNotices))
            return;
        let notices;
        try {
            notices = noticesSchema.parse(JSON.parse(payload)).changes;
        }
        catch {
            this.log('kernel: ignored a change notice that is not ours');
            return;
        }
        for (const notice of notices)
            this.heard?.(notice);
    }
}


/***/ }),

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

//# sourceMappingURL=884.index.js.map