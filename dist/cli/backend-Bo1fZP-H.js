const require_kernel_command = require("./kernel-command-DtAmYtw2.js");
const require_round_trips = require("./round-trips-B-VRNRTe.js");
const require_migrations = require("./migrations-DEqxXIlL.js");
const require_cli = require("./cli.js");
const require_freeze = require("./freeze-DFg06IGh.js");
const require_checkpoint = require("./checkpoint-G5ROIOCl.js");
let node_crypto = require("node:crypto");
let node_perf_hooks = require("node:perf_hooks");
// src/kernel/postgres/commit-context.ts
/** COMMIT was sent and failed or went unanswered: the batch may be durable, so it is never run again. */
var CommitUnknownError = class extends require_cli.LeaseGateError {
	name = "CommitUnknownError";
	constructor(options) {
		const { cause } = options;
		super(require_cli.causeText(cause), {
			cause,
			code: "store_commit_unknown"
		});
	}
};
function parseState(raw, resource) {
	const state = require_kernel_command.readResourceState(raw, resource);
	if (!state) throw new Error(`the stored state of ${JSON.stringify(resource)} is not a lease-gate state`);
	return state;
}
// src/kernel/postgres/commit.ts
/** lease_gate_commit (migration 4, its body migration 5's), prepared once per connection by its name. */
const COMMIT = {
	name: "lease_gate_commit",
	text: "SELECT * FROM lease_gate_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
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
	if (now === void 0) values = params(context, Number.MAX_VALUE, names, loaded, void 0, 0);
	else {
		const hold = context.hold?.(now);
		decided = require_kernel_command.decideBatch(work, (resource) => loaded.get(resource).state, (resource) => require_kernel_command.ruleContext(settings, resource, now, () => -++drawn, hold));
		values = params(context, now, names, loaded, decided, drawn);
	}
	const answer = (await client.query({
		...COMMIT,
		values
	})).rows[0];
	if (!answer || answer.o_conflict || !decided) {
		try {
			clock.reset(answer.o_clock);
			keepRead(rows, names, answer.o_rows ?? []);
		} catch (error) {
			throw new require_round_trips.StoreUnavailableError(`the kernel's store answered rows it cannot read`, { cause: error });
		}
		return { conflict: true };
	}
	try {
		clock.saw(answer.o_clock);
		const fences = (answer.o_fences ?? []).map(Number);
		if (fences.length !== drawn) throw new require_cli.InternalError("lease_gate_commit drew other fences");
		if (drawn > 0) fillFences(decided.decisions, fences);
		for (const resource of decided.changed) rows.set(resource, {
			state: decided.states.get(resource),
			version: answer.o_version
		});
	} catch (error) {
		throw new CommitUnknownError({ cause: error });
	}
	return {
		conflict: false,
		decisions: decided.decisions,
		listened: answer.o_listened ?? []
	};
}
/** The rows a refused commit read: kept, and the ones it did not find kept as absent. */
function keepRead(rows, names, read) {
	const found = new Map(read.map((r) => [r.resource, r]));
	for (const resource of names) {
		const row = found.get(resource);
		rows.set(resource, row ? {
			state: parseState(row.state, resource),
			version: row.version
		} : {
			state: require_kernel_command.emptyState(resource),
			version: null
		});
	}
}
/** lease_gate_commit's parameters, in its order. */
function params(context, now, names, loaded, decided, drawn) {
	const events = decided ? decided.decisions.flatMap((d) => d.events) : [];
	const ids = drawn > 0 ? placeholderIds(events) : void 0;
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
		names.map((r) => changed?.has(r) ? text(decided.states.get(r)) : null),
		names.map((r) => changed?.has(r) ? require_kernel_command.nextDeadline(decided.states.get(r)) ?? null : null),
		events.map(text),
		grantsBefore(events),
		drawn,
		context.replica,
		events.length > 0
	];
}
/**
* For each entry, which of the batch's fences its major is (sequencer.ts): the last
* grant's at or before it, or 0 for the fence sequence's value before the batch's draws.
*/
function grantsBefore(events) {
	let last = 0;
	return events.map((e) => {
		if (e.kind === "grant" && e.fence < 0) last = Math.max(last, -e.fence);
		return last;
	});
}
/** The lease ids a batch made before its fences were drawn, by their placeholder's number. */
function placeholderIds(events) {
	const ids = /* @__PURE__ */ new Map();
	for (const e of events) if (e.kind === "grant" && e.fence < 0) {
		if (!e.leaseId.startsWith(`lease_${e.fence.toString(36)}_`)) throw new require_cli.InternalError(`a lease id not made by lease.ts: ${e.leaseId}`);
		ids.set(e.leaseId, -e.fence);
	}
	return ids;
}
const MARK = "";
/** A `fence` key's negative value, or a string that may be a placeholder lease id. */
const PLACEHOLDER = /"fence":-(\d+)(?=[,}])|"(lease_-[0-9a-z]+_[^"\\]*)"/g;
/**
* The JSON with each placeholder marked for lease_gate_filled (migration 5): a `fence`
* key's negative value (only a placeholder is negative; `"fence":` is always a key, as a
* quote inside a string is escaped), and a string that is exactly a placeholder lease
* id (lease.ts: `lease_<fence in base 36>_<random hex>`). One pass over the text,
* however many grants the batch made.
*/
function templated(json, ids) {
	return json.replace(PLACEHOLDER, (match, fence, id) => {
		if (fence !== void 0) return `"fence":${MARK}${fence}${MARK}`;
		const k = ids.get(id);
		if (k === void 0) return match;
		return `"lease_${MARK}b${k}${MARK}${id.slice(`lease_${(-k).toString(36)}`.length)}"`;
	});
}
/** The decisions as written: each placeholder fence, and lease id, made the drawn one. */
function fillFences(decisions, fences) {
	const ids = /* @__PURE__ */ new Map();
	for (const d of decisions) for (const e of d.events) if (e.kind === "grant" && e.fence < 0) {
		const fence = fences[-e.fence - 1];
		const prefix = `lease_${e.fence.toString(36)}`;
		ids.set(e.leaseId, `lease_${fence.toString(36)}${e.leaseId.slice(prefix.length)}`);
	}
	const fill = (value) => {
		if (Array.isArray(value)) for (const item of value) fill(item);
		else if (value !== null && typeof value === "object") {
			const record = value;
			for (const [key, item] of Object.entries(record)) if (key === "fence" && typeof item === "number" && item < 0) record[key] = fences[-item - 1];
			else if (typeof item === "string") {
				const id = ids.get(item);
				if (id !== void 0) record[key] = id;
			} else fill(item);
		}
	};
	for (const d of decisions) fill([
		d.state,
		d.reply,
		d.events
	]);
}
// src/kernel/postgres/transaction.ts
const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::float8`;
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
	} catch (error) {
		if (!sent(error) || error.severity === "ERROR") throw error;
		throw new CommitUnknownError({ cause: error });
	} finally {
		unreplicated.stop();
	}
	if (unreplicated.seen()) throw new CommitUnknownError({ cause: /* @__PURE__ */ new Error(`the synchronous standby did not confirm the commit: ${unreplicated.seen()}`) });
	return attempt;
}
/** Whether an error came from the database or the connection (ours are thrown before sending). */
const sent = (error) => !(error instanceof require_cli.LeaseGateError);
/**
* PostgreSQL answers a COMMIT whose wait for synchronous replication was cancelled with
* success and a WARNING ("canceling wait for synchronous replication \u2026; the transaction
* has already committed locally, but might not have been replicated to the standby").
* The text is the server's in English (lc_messages); its SQLSTATE is only 01000.
*/
function watchSyncCancel(client) {
	let seen;
	const onNotice = (notice) => {
		const message = notice.message ?? "";
		if (/synchronous replication/i.test(message)) seen = message.slice(0, 200);
	};
	client.on("notice", onNotice);
	return {
		seen: () => seen,
		stop: () => void client.off("notice", onNotice)
	};
}
// src/kernel/postgres/commit-batch.ts
const ATTEMPTS = 4;
/** Optimistic attempts of a batch before its rows are locked from the read to the write. */
const OPTIMISTIC = 3;
/** A batch whose COMMIT went unanswered: answered 503, never run again. */
var OutcomeUnknownError = class extends require_round_trips.StoreUnavailableError {
	name = "OutcomeUnknownError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "store_outcome_unknown"
		});
	}
};
/**
* One batch as one transaction, run again whole on a retryable conflict.
* When a batch of several fails before its COMMIT, each call runs alone, so
* one bad row answers 503 only to the calls on it.
*/
async function commitBatch(context, work) {
	try {
		const { decisions, listened } = await transact(context, work);
		return {
			results: decisions.map((value) => ({
				status: "fulfilled",
				value
			})),
			listened: new Set(listened)
		};
	} catch (error) {
		if (work.length === 1 || error instanceof OutcomeUnknownError) throw error;
		const listened = /* @__PURE__ */ new Set();
		return {
			results: await Promise.allSettled(work.map(async (w) => {
				const committed = await transact(context, [w]);
				const [decision] = committed.decisions;
				if (!decision) throw new require_round_trips.StoreUnavailableError(`no decision for the call on ${w.resource}`);
				for (const resource of committed.listened) listened.add(resource);
				return decision;
			})),
			listened
		};
	}
}
async function transact(context, work) {
	for (let attempt = 1;; attempt += 1) {
		const client = await context.connect();
		try {
			const committed = await decideUntilWritten(client, context, work);
			client.release();
			return committed;
		} catch (error) {
			client.release(true);
			context.rows.forget(work.map((w) => w.resource));
			if (error instanceof CommitUnknownError) throw new OutcomeUnknownError(`the kernel's store did not confirm the change: ${require_migrations.describe(error.cause)}`, { cause: error.cause });
			if (require_migrations.isRetryable(error) && attempt < ATTEMPTS) continue;
			throw new require_round_trips.StoreUnavailableError(`the kernel's store cannot write: ${require_migrations.describe(error)}`, { cause: error });
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
		if (!done.conflict) return done;
	}
	await client.query("BEGIN");
	try {
		context.rows.forget(work.map((w) => w.resource));
		for (let attempt = 0; attempt < 2; attempt += 1) {
			const done = await runCommands(client, work, context.settings, context);
			if (done.conflict) continue;
			await commit(client);
			return done;
		}
	} catch (error) {
		await client.query("ROLLBACK").catch(() => void 0);
		throw error;
	}
	await client.query("ROLLBACK");
	throw new require_round_trips.StoreUnavailableError("the kernel's store refused a batch decided on rows it held locked (the database's clock went back?)");
}
/** COMMIT of the locked form: an ERROR means rolled back; no answer, that it may be durable. */
async function commit(client) {
	const unreplicated = watchSyncCancel(client);
	try {
		await client.query("COMMIT");
	} catch (error) {
		if (error.severity === "ERROR") throw error;
		throw new CommitUnknownError({ cause: error });
	} finally {
		unreplicated.stop();
	}
	const cancelled = unreplicated.seen();
	if (cancelled) throw new CommitUnknownError({ cause: /* @__PURE__ */ new Error(`the synchronous standby did not confirm the commit: ${cancelled}`) });
}
// src/kernel/postgres/batching.ts
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
		slots: Math.min(BATCH_SLOTS, options.poolSize ?? 10),
		waitMs: options.connectTimeoutMs ?? 2e3,
		spareAfterMs: SPARE_AFTER_MS,
		busy: () => new require_round_trips.StoreUnavailableError("the kernel's store is busy: every connection is in use")
	};
}
// src/kernel/postgres/timeline.ts
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
	if (seen.stored === seen.timeline) return seen;
	const floor = require_freeze.fenceFloor(seen.timeline);
	if (floor === void 0) throw new require_round_trips.StoreError(`the database is on timeline ${seen.timeline}, past ${require_freeze.MAX_TIMELINE}: its fences would exceed 2^53; restore it to a fresh cluster (timeline 1)`);
	await client.query("BEGIN");
	try {
		await client.query(`UPDATE lease_gate_timeline SET timeline = $1, changed_ms = ${NOW_MS},
              size_at_change = (SELECT size FROM lease_gate_sequenced WHERE id = 1)
        WHERE id = 1 AND timeline <> $1`, [seen.timeline]);
		await client.query(`SELECT setval('lease_gate_fence', $1::bigint, true)
        WHERE $1::bigint > (SELECT last_value FROM lease_gate_fence)`, [floor]);
		await client.query("COMMIT");
	} catch (error) {
		await client.query("ROLLBACK").catch(() => void 0);
		throw error;
	}
	const after = await read(client);
	if (after.stored !== after.timeline) throw new require_round_trips.StoreError(`lease_gate_timeline names timeline ${after.stored} after recording ${after.timeline}`);
	return after;
}
async function read(client) {
	const { rows } = await client.query(`SELECT ${CURRENT} AS current, t.timeline AS stored, t.changed_ms, t.size_at_change
       FROM lease_gate_timeline AS t WHERE t.id = 1`);
	const row = rows[0];
	if (!row) throw new require_round_trips.StoreError("lease_gate_timeline has no row: run lease-gate kernel migrate");
	return {
		timeline: Number(row.current),
		stored: Number(row.stored),
		changedMs: row.changed_ms,
		sizeAtChange: Number(row.size_at_change)
	};
}
// src/kernel/postgres/connections.ts
const guarded = /* @__PURE__ */ new WeakSet();
/** Connections that checked the database's timeline (timeline.ts) before their first use. */
const followed = /* @__PURE__ */ new WeakSet();
/**
* A replica's connections to the database: every one of the main pool is checked against
* the database's timeline before its first use, so a failover is seen (the hold that
* follows it, and a replica whose ledger read entries the failover lost stops serving).
*/
var Connections = class {
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
		this.pool = require_migrations.createPool(options, log);
		this.sequencerPool = require_migrations.createPool({
			...options,
			poolSize: 1
		}, log);
	}
	/** The failover hold at `now` (rules/failover.ts), from the latest timeline change found. */
	hold(now) {
		const seen = this.timeline;
		return seen && require_freeze.failoverHold(seen.changedMs, this.ttlMs, now, seen.timeline);
	}
	/** No connection is handed out from now on: the kernel is stopping. */
	stop() {
		this.stopped = true;
	}
	async end() {
		await Promise.all([this.pool.end(), this.sequencerPool.end()]).catch(() => void 0);
	}
	/**
	* A pooled connection. One of the main pool is first checked against the database's
	* timeline (`follow`, timeline.ts): a failover is seen before anything is decided on
	* the promoted standby, and a standby (still in recovery) is never used.
	*/
	async connect(pool = this.pool, follow = true) {
		if (this.stopped) throw new require_round_trips.StoreUnavailableError("the kernel is stopping");
		if (this.forked) throw new require_round_trips.StoreUnavailableError(this.forked);
		let client;
		try {
			client = await pool.connect();
		} catch (error) {
			throw new require_round_trips.StoreUnavailableError(`the kernel's store is unreachable: ${require_migrations.describe(error)}`, { cause: error });
		}
		if (!guarded.has(client)) {
			guarded.add(client);
			client.on("error", () => void 0);
		}
		if (follow && !followed.has(client)) try {
			this.sawTimeline(await followTimeline(client));
			if (this.forked) throw new require_round_trips.StoreUnavailableError(this.forked);
			followed.add(client);
		} catch (error) {
			client.release(true);
			if (error instanceof require_round_trips.StoreError || error instanceof require_round_trips.StoreUnavailableError) throw error;
			throw new require_round_trips.StoreUnavailableError(`the kernel's store cannot be written (a standby?): ${require_migrations.describe(error)}`, { cause: error });
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
		if (before && before.timeline === seen.timeline && before.changedMs >= seen.changedMs) return;
		if (before && seen.changedMs < before.changedMs) return;
		this.timeline = seen;
		if (!before || before.timeline === seen.timeline) return;
		this.log(`kernel: the database is now on timeline ${seen.timeline} (was ${before.timeline}): fences start above ${seen.timeline}'s epoch, and no lease is granted or renewed until ${new Date(seen.changedMs + this.ttlMs).toISOString()}`);
		if (this.ledger.size > seen.sizeAtChange) {
			this.forked = `this replica read ${this.ledger.size} ledger entries, but the database had ${seen.sizeAtChange} when it failed over to timeline ${seen.timeline} (asynchronous replication lost the rest): restart this replica to read the ledger the new primary has`;
			this.log(`kernel: ${this.forked}`);
		}
	}
	async query(text, values = []) {
		try {
			return await this.withClient(this.pool, (client) => client.query(text, values));
		} catch (error) {
			if (error instanceof require_round_trips.StoreUnavailableError) throw error;
			throw new require_round_trips.StoreUnavailableError(`the kernel's store cannot read: ${require_migrations.describe(error)}`, { cause: error });
		}
	}
	/** A pooled connection for one task; one that failed is closed, never reused. */
	async withClient(pool, task) {
		const client = await this.connect(pool);
		try {
			const result = await task(client);
			client.release();
			return result;
		} catch (error) {
			client.release(true);
			throw error;
		}
	}
};
// src/kernel/postgres/ledger-tree.ts
const PAGE = 5e3;
/** The tree's frontier is saved first at this size, then each time the ledger doubles \u2026 */
const TREE_FIRST = 1024;
/** \u2026 or grows by this many entries. */
const TREE_EVERY = 65536;
/**
* A replica's ledger over lease_gate_ledger (postgres/backend.ts): the lines stay in the
* database, and the replica keeps the Merkle tree's chunk roots, reads back the lines a
* route asks for (FetchedLines), loads what was numbered since its last read, and saves
* the tree's frontier in lease_gate_tree so that a replica that starts reads only the
* rows after it.
*/
var PostgresLedger = class {
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
		if (this.readNext) return this.readNext;
		if (!this.reading) {
			const reading = this.readLedger().finally(() => {
				this.reading = void 0;
			});
			this.reading = reading;
			return reading;
		}
		const next = this.reading.catch(() => void 0).then(() => {
			this.readNext = void 0;
			return this.readAfterNow();
		});
		this.readNext = next;
		return next;
	}
	/** Loads the entries numbered since the last read, a page at a time. */
	async readLedger() {
		for (;;) {
			const { rows } = await this.query("SELECT line FROM lease_gate_ledger WHERE seq >= $1 ORDER BY seq LIMIT $2", [this.ledger.size, PAGE]);
			for (const { line } of rows) this.ledger.load(line, `${this.schema}.lease_gate_ledger entry ${this.ledger.size}`);
			if (rows.length < PAGE) break;
		}
		await this.saveTree();
	}
	fetchedLines() {
		return new require_kernel_command.FetchedLines((lo, hi) => this.linesBetween(lo, hi));
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
		const { rows } = await this.query("SELECT size, last_ts, root, chunk_roots FROM lease_gate_tree WHERE id = 1");
		const row = rows[0];
		if (!row) {
			this.ledger.readFrom(this.fetchedLines());
			return;
		}
		const snapshot = {
			size: Number(row.size),
			lastTs: Number(row.last_ts),
			root: row.root,
			chunkRoots: row.chunk_roots
		};
		const lines = this.fetchedLines();
		try {
			lines.restore(snapshot.size);
			const tail = snapshot.size - snapshot.size % 256;
			await lines.load(Math.max(0, Math.min(tail, snapshot.size - 1)), snapshot.size);
			if (snapshot.size > 0) {
				const last = require_checkpoint.entrySchema.safeParse(parseJson(lines.at(snapshot.size - 1)));
				if (!last.success || last.data.seq !== snapshot.size - 1) throw new Error("its last row is not the ledger entry before its size");
				if (last.data.tsMs !== snapshot.lastTs) throw new Error("its last stamp is not the last row\u2019s");
			}
			this.ledger.restoreFrom(lines, snapshot);
			this.savedTree = snapshot.size;
			return;
		} catch (error) {
			this.log(`kernel: the ledger tree saved at ${snapshot.size} entries does not agree with ${this.schema}.lease_gate_ledger (${require_migrations.describe(error)}); building it from every row`);
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
		if (await this.ledger.read(size, size, size, () => this.ledger.rootAt(size)) !== frontier.root) throw new require_round_trips.StoreError(`the rows of ${this.schema}.lease_gate_ledger before entry ${size} do not hash to the tree saved at ${size} entries in lease_gate_tree: a row changed after it was signed, or the saved tree is wrong. This replica signs neither; compare an export with an earlier one, and delete the row of lease_gate_tree only once the ledger's rows are known to be right`);
	}
	/**
	* Saves the tree's frontier once it has grown by as many entries as it had
	* (and every 65,536 at most), so a replica that starts reads only the rows
	* after it; a newer one is never replaced by an older. A failure is told and
	* costs only time at the next start.
	*/
	async saveTree() {
		const size = this.ledger.size;
		if (size - this.savedTree < Math.max(TREE_FIRST, Math.min(this.savedTree, TREE_EVERY))) return;
		const snapshot = this.ledger.snapshot();
		try {
			await this.query(`INSERT INTO lease_gate_tree AS t (id, size, last_ts, root, chunk_roots)
              VALUES (1, $1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET size = EXCLUDED.size, last_ts = EXCLUDED.last_ts,
                root = EXCLUDED.root, chunk_roots = EXCLUDED.chunk_roots
          WHERE t.size < EXCLUDED.size`, [
				snapshot.size,
				snapshot.lastTs,
				snapshot.root,
				snapshot.chunkRoots
			]);
			this.savedTree = size;
		} catch (error) {
			this.log(`kernel: could not save the ledger tree's frontier: ${require_migrations.describe(error)}`);
		}
	}
	/** See PlaneService.searchLedger: one statement, however far back it looks. */
	async search(needle, from, limit) {
		const { rows } = await this.query("SELECT seq FROM lease_gate_ledger WHERE seq >= $1 AND strpos(line, $2) > 0 ORDER BY seq DESC LIMIT $3", [
			from,
			needle,
			limit
		]);
		return rows.map((r) => Number(r.seq));
	}
	/** Ledger lines [lo, hi), in order, as they were numbered. */
	async linesBetween(lo, hi) {
		const { rows } = await this.query("SELECT line FROM lease_gate_ledger WHERE seq >= $1 AND seq < $2 ORDER BY seq", [lo, hi]);
		return rows.map((r) => r.line);
	}
};
/** JSON text as a value, or undefined when it is not JSON (the caller says what it expected). */
function parseJson(text) {
	try {
		return JSON.parse(text);
	} catch {
		return;
	}
}
// src/kernel/postgres/rows.ts
/** Rows kept at most; the least recently used go first (a miss costs one round trip). */
const KEPT = 1e4;
/**
* The rows this replica decides against without reading them (commit.ts). Never the
* truth: lease_gate_commit writes only if the row is still at the version kept here.
*/
var RowCache = class {
	limit;
	rows = /* @__PURE__ */ new Map();
	constructor(limit = KEPT) {
		this.limit = limit;
	}
	/** The row as last seen; a resource never seen is guessed absent (new resources are). */
	get(resource) {
		const row = this.rows.get(resource);
		if (!row) return {
			state: require_kernel_command.emptyState(resource),
			version: null
		};
		this.rows.delete(resource);
		this.rows.set(resource, row);
		return row;
	}
	set(resource, row) {
		this.rows.delete(resource);
		this.rows.set(resource, row);
		if (this.rows.size > this.limit) this.rows.delete(this.rows.keys().next().value);
	}
	/** What a failed batch left is not known: read before deciding on these again. */
	forget(resources) {
		for (const resource of resources) this.set(resource, {
			state: require_kernel_command.emptyState(resource),
			version: ""
		});
	}
};
/**
* The database's clock as seen from here: the last value a commit read, plus the time
* elapsed on this process's monotonic clock since its answer arrived. That value was
* read before the answer left the database, so the projection is at most the
* database's clock now (clocks that run at one rate); lease_gate_commit refuses a
* decision ahead of it, and `reset` then starts again from the value it answers.
*/
var DbClock = class {
	base;
	at = 0;
	/** The projected clock, or undefined before the first answer. */
	now() {
		if (this.base === void 0) return void 0;
		return this.base + Math.floor(node_perf_hooks.performance.now() - this.at);
	}
	/** A commit read `clockMs`: the projection never goes back for it. */
	saw(clockMs) {
		const projected = this.now();
		if (projected !== void 0 && projected >= clockMs) return;
		this.base = clockMs;
		this.at = node_perf_hooks.performance.now();
	}
	/** The projection was ahead of the database's clock: start again from `clockMs`. */
	reset(clockMs) {
		this.base = clockMs;
		this.at = node_perf_hooks.performance.now();
	}
};
// src/kernel/postgres/listen.ts
const RETRY_MS = [
	250,
	500,
	1e3,
	2e3,
	5e3
];
/** A change notice: one resource's events of one commit. */
const changeNoticeSchema = require_cli.object({
	resource: require_cli.string(),
	events: require_cli.array(require_kernel_command.kernelEventSchema),
	/** A change with no ledger entry that may free the resource (a revoked holder gave back). */
	freed: require_cli.optional(require_cli.boolean())
});
/** A NOTIFY payload: the notices of one replica (`from`), in the order it committed them. */
const noticesSchema = require_cli.object({
	from: require_cli.string(),
	changes: require_cli.array(changeNoticeSchema)
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
		const next = new require_migrations.esm_default.Client(require_migrations.connectionConfig(options.connection));
		next.on("notification", (message) => {
			if (message.channel === options.channel && message.payload) options.onPayload(message.payload);
		});
		next.on("error", (error) => lost(next, error));
		next.on("end", () => lost(next, /* @__PURE__ */ new Error("the connection ended")));
		client = next;
		await next.connect();
		await next.query(`LISTEN ${options.channel}`);
		if (failures > 0) options.log("kernel: listening for changes again");
		if (!first) options.onReconnect?.();
		first = false;
		failures = 0;
	};
	const lost = (which, error) => {
		if (closed || which !== client) return;
		client = void 0;
		which.removeAllListeners("end");
		which.on("error", () => void 0);
		which.end().catch(() => void 0);
		if (failures === 0) options.log(`kernel: lost the LISTEN connection: ${require_migrations.describe(error)}`);
		retry();
	};
	const retry = () => {
		if (closed || timer) return;
		const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
		failures += 1;
		timer = setTimeout(() => {
			timer = void 0;
			connect().catch((error) => {
				if (client) lost(client, error);
				else retry();
			});
		}, delay);
		timer.unref();
	};
	return {
		ready: connect().catch((error) => {
			if (client) lost(client, error);
			throw error;
		}),
		async close() {
			closed = true;
			if (timer) clearTimeout(timer);
			const last = client;
			client = void 0;
			if (last) {
				last.removeAllListeners("end");
				last.on("error", () => void 0);
				await last.end().catch(() => void 0);
			}
		}
	};
}
// src/kernel/postgres/listening.ts
/** How long a registration lasts in lease_gate_listening (the database's clock). */
const LISTEN_FOR_MS = 3e5;
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
var Listening = class {
	query;
	replica;
	log;
	clock;
	/** When each resource was last registered here (this process's monotonic clock). */
	registered = /* @__PURE__ */ new Map();
	pending = /* @__PURE__ */ new Map();
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
		if (at !== void 0 && this.clock() - at < 6e4) return Promise.resolve();
		const running = this.pending.get(resource);
		if (running) return running;
		const started = this.clock();
		const registering = this.query(`WITH quick AS (SELECT set_config('synchronous_commit', 'off', true))
       INSERT INTO lease_gate_listening (resource, replica, until_ms)
         SELECT $1, $2, ${NOW_MS} + ${LISTEN_FOR_MS} FROM quick
         ON CONFLICT (resource, replica) DO UPDATE SET until_ms = EXCLUDED.until_ms`, [resource, this.replica]).then(() => {
			this.registered.set(resource, started);
			if (this.failing) this.log("kernel: registers its listeners again");
			this.failing = false;
		}, (error) => {
			if (!this.failing) this.log(`kernel: could not register a listener; held requests and watches here wake at their told wait instead: ${require_cli.causeText(error)}`);
			this.failing = true;
		}).finally(() => this.pending.delete(resource));
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
		for (const [resource, at] of this.registered) if (now - at >= 6e4) this.registered.delete(resource);
		await this.query(`DELETE FROM lease_gate_listening WHERE until_ms < ${NOW_MS}`, []);
	}
	/** This replica's rows go when it stops: no commit tells a replica that is gone. */
	async close() {
		this.registered.clear();
		await this.query("DELETE FROM lease_gate_listening WHERE replica = $1", [this.replica]);
	}
};
// src/kernel/postgres/locks.ts
const SEQUENCER = 1279721474;
/** The writers' stripes: this plus 0 \u2026 WRITER_STRIPES - 1. */
const WRITERS = 1279721728;
const WRITER_STRIPES = 16;
function planeLocks(schema) {
	const id = (0, node_crypto.createHash)("sha256").update(`lease-gate ${schema}`).digest().readInt32BE(0);
	return {
		stripes: WRITERS,
		plane: id,
		writer: `${WRITERS} + pg_backend_pid() % ${WRITER_STRIPES}, ${id}`,
		watermark: `SELECT pg_advisory_lock(k, ${id}), pg_advisory_unlock(k, ${id})
                  FROM generate_series(${WRITERS}, 1279721743) AS k`,
		sequencer: `${SEQUENCER}, ${id}`
	};
}
// src/kernel/postgres/notices.ts
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; ours stay below this. */
const MAX_PAYLOAD = 7e3;
/** Notices per NOTIFY statement at most. */
const MAX_PER_SEND = 1e3;
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
var NoticeSender = class {
	pool;
	channel;
	log;
	/** Each queued notice as JSON, under the payload limit. */
	queue = [];
	sending;
	failing = false;
	head;
	constructor(pool, channel, log, from) {
		this.pool = pool;
		this.channel = channel;
		this.log = log;
		this.head = noticePrefix(from);
	}
	/** Queues one batch's notices (changesOf), each split small enough. */
	changed(notices) {
		for (const notice of notices) this.queue.push(...payloads(notice.resource, notice.events));
		this.drain();
	}
	/** A change with no ledger entry that may free the resource (a revoked holder gave back). */
	freed(resource) {
		this.queue.push(freedNotice(resource));
		this.drain();
	}
	/** Resolves once everything queued has been sent (or given up). */
	async idle() {
		while (this.sending) await this.sending;
	}
	/** Sends what is queued, then closes its connection. */
	async close() {
		await this.idle();
		await this.pool.end().catch(() => void 0);
	}
	drain() {
		if (this.sending) return;
		this.sending = this.sendAll().finally(() => {
			this.sending = void 0;
		});
	}
	async sendAll() {
		while (this.queue.length > 0) {
			const notices = this.queue.splice(0, MAX_PER_SEND);
			try {
				await this.pool.query(`SELECT pg_notify($1, n) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS s,
                  unnest($2::text[]) AS n`, [this.channel, packed(this.head, notices)]);
				if (this.failing) this.log("kernel: change notices are sent again");
				this.failing = false;
			} catch (error) {
				if (!this.failing) this.log(`kernel: could not tell the other replicas of ${notices.length} change(s); their waiters ask again when their wait runs out: ${require_migrations.describe(error)}`);
				this.failing = true;
			}
		}
	}
};
/** How a replica's payloads begin: another replica parses them, this one skips them. */
const noticePrefix = (from) => `{"from":${JSON.stringify(from)},"changes":[`;
/** A batch's events as one notice per resource, in the order each resource first changed. */
function changesOf(events) {
	const byResource = /* @__PURE__ */ new Map();
	for (const e of events) {
		const list = byResource.get(e.resource);
		if (list) list.push(e);
		else byResource.set(e.resource, [e]);
	}
	return [...byResource].map(([resource, list]) => ({
		resource,
		events: list
	}));
}
/** Notices, in order, joined into as few payloads as stay under the limit. */
function packed(head, notices) {
	const out = [];
	let part = "";
	let bytes = Buffer.byteLength(head) + 2;
	for (const notice of notices) {
		const length = Buffer.byteLength(notice) + 1;
		if (part && bytes + length > MAX_PAYLOAD) {
			out.push(`${head}${part}]}`);
			part = "";
			bytes = Buffer.byteLength(head) + 2;
		}
		part += part ? `,${notice}` : notice;
		bytes += length;
	}
	if (part) out.push(`${head}${part}]}`);
	return out;
}
/** "Changed, may be free": wakes the waiters, who ask again. */
const freedNotice = (resource) => JSON.stringify({
	resource,
	events: [],
	freed: true
});
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
	const overhead = 200 + Buffer.byteLength(JSON.stringify(resource));
	const flush = () => {
		if (part.length) out.push(JSON.stringify({
			resource,
			events: part
		}));
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
		if (size + length + overhead > MAX_PAYLOAD) flush();
		part.push(event);
		size += length;
	}
	flush();
	return out;
}
// src/kernel/postgres/plane-key.ts
/** A replica whose signing key is not the plane's: it must not serve (one line, exit 1). */
var PlaneKeyError = class extends require_round_trips.StoreError {
	name = "PlaneKeyError";
};
/**
* Records the plane's public key at its first start (the first replica's to commit wins)
* and refuses a replica whose key differs: its checkpoints over the shared ledger would
* not verify against the key the plane published. An unsigned ledger (tests) records none.
*/
async function checkPlaneKey(client, publicKey) {
	if (!publicKey) return;
	const origin = require_checkpoint.originFor(publicKey);
	const pem = String(publicKey.export({
		type: "spki",
		format: "pem"
	}));
	await client.query(`INSERT INTO lease_gate_plane_key (id, origin, public_key) VALUES (1, $1, $2)
       ON CONFLICT (id) DO NOTHING`, [origin, pem]);
	const { rows } = await client.query(`SELECT origin, public_key, to_char(recorded_at AT TIME ZONE 'UTC',
       'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS recorded FROM lease_gate_plane_key WHERE id = 1`);
	const plane = rows[0];
	if (!plane) throw new require_round_trips.StoreError("the plane's public key is not recorded");
	if (plane.public_key.trim() !== pem.trim()) throw new PlaneKeyError(`this replica's --signing-key signs as ${origin}, but the plane's ledger is signed by ${plane.origin} (recorded ${plane.recorded}): start every replica with the plane's --signing-key FILE`);
}
// src/kernel/postgres/literals.ts
/**
* SQL literals for the statements sent as one simple query (several statements,
* a transaction's whole read or its write and COMMIT, in one round trip: the
* extended protocol takes one round trip per statement). Every value is
* escaped here and nowhere else; NUL, which would end a query's text, is refused.
*/
/** A text literal in the escape-string form, whatever `standard_conforming_strings` says. */
function textLiteral(value) {
	if (value.includes("\0")) throw new require_cli.InternalError("a value sent to PostgreSQL contains NUL");
	return `E'${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}
/** A whole number as a literal (NULL for null); anything else is refused. */
function integerLiteral(value) {
	if (value === null) return "NULL";
	if (!Number.isSafeInteger(value)) throw new require_cli.InternalError(`not a whole number for PostgreSQL: ${value}`);
	return String(value);
}
/** An array literal of `type` (text, jsonb, bigint, int). */
function arrayLiteral(values, type) {
	return `ARRAY[${values.map((v) => typeof v === "string" ? textLiteral(v) : integerLiteral(v)).join(",")}]::${type}[]`;
}
// src/kernel/postgres/sequencer.ts
/** Entries numbered per sequencing transaction at most. */
const SEQUENCE_BATCH = 2e3;
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
	const take = wait ? `pg_advisory_xact_lock(${locks.sequencer}) IS NOT NULL` : `pg_try_advisory_xact_lock(${locks.sequencer})`;
	try {
		const read = await client.query(`BEGIN;
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
  LEFT JOIN taken AS p ON true WHERE h.id = 1 ORDER BY p.major, p.key`);
		if (read[1].rows[0]?.f === "-1") {
			await client.query("ROLLBACK");
			return;
		}
		const rows = read[3].rows;
		const head = rows[0];
		const pending = rows.filter((r) => r.key !== null);
		if (pending.length === 0) {
			await client.query("COMMIT");
			return [];
		}
		const events = pending.map((r) => {
			const parsed = require_kernel_command.kernelEventSchema.safeParse(JSON.parse(r.event));
			if (!parsed.success) throw new require_round_trips.StoreError(`lease_gate_pending entry ${r.key} is not a lease-gate change`);
			return parsed.data;
		});
		const entries = require_kernel_command.numberEntries(events, Number(head.size), Number(head.last_ts));
		const last = entries.at(-1);
		await client.query(`WITH logged AS (INSERT INTO lease_gate_ledger (seq, line)
                           SELECT * FROM unnest(${arrayLiteral(entries.map((e) => e.seq), "bigint")}, ${arrayLiteral(entries.map(require_checkpoint.entryJson), "text")}))
         UPDATE lease_gate_sequenced SET size = ${integerLiteral(last.seq + 1)},
                last_ts = ${integerLiteral(last.tsMs)} WHERE id = 1;
         COMMIT`);
		return entries;
	} catch (error) {
		await client.query("ROLLBACK").catch(() => void 0);
		throw error;
	}
}
// src/kernel/postgres/backend.ts
/**
* How soon after a commit its entries are sequenced: more commits join the same pass, and
* a pass is a few round trips and a WAL flush of its own (a ledger read runs one first).
*/
const SEQUENCE_AFTER_MS = 50;
/** Every replica sequences this often too, so a replica that died leaves nothing pending. */
const SEQUENCE_EVERY_MS = 1e3;
/** Sequencing transactions per pass at most (each numbers up to SEQUENCE_BATCH entries). */
const SEQUENCE_ROUNDS = 50;
/** How often a replica deletes registrations to listen that ran out (listening.ts). */
const PRUNE_EVERY_MS = 6e4;
const PostgresService = { 
/** Migrates (under an advisory lock), loads the ledger, listens, and starts the sweep. */
async open(options) {
	const { service } = await require_kernel_command.KernelService.over(new PostgresBackend(options), options);
	return service;
} };
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
var PostgresBackend = class {
	options;
	ledger;
	shared = true;
	name = "the PostgreSQL store";
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
	optimistic = {
		rows: new RowCache(),
		clock: new DbClock()
	};
	closed = false;
	constructor(options) {
		this.options = options;
		this.ledger = options.ledger;
		this.schema = require_round_trips.schemaOf(options);
		this.channel = channelOf(this.schema);
		this.locks = planeLocks(this.schema);
		this.log = options.log ?? ((line) => console.error(line));
		const ttlMs = options.ttlMs ?? 3e4;
		this.ttlMs = ttlMs;
		this.connections = new Connections(options, this.ledger, ttlMs, this.log);
		this.lines = new PostgresLedger(this.ledger, this.schema, (text, values) => this.connections.query(text, values), this.log);
		const from = (0, node_crypto.randomBytes)(8).toString("hex");
		this.ownNotices = noticePrefix(from);
		this.replica = from;
		const { pool } = this.connections;
		this.listening = new Listening((text, values) => pool.query(text, values), from, this.log);
		this.notices = new NoticeSender(require_migrations.createPool({
			...options,
			poolSize: 1
		}, this.log), this.channel, this.log, from);
		this.batching = batchingOf(options);
		this.settings = {
			ttlMs,
			nextInLineWaitMs: options.nextInLineWaitMs ?? 500,
			lockDelayMs: options.lockDelayMs ?? require_kernel_command.defaultLockDelayMs(ttlMs),
			random: options.random ?? Math.random,
			window: options.window
		};
	}
	async open() {
		try {
			const client = await this.connections.connect(this.connections.pool, false);
			try {
				await require_migrations.migrate(client, this.schema);
				await checkPlaneKey(client, this.ledger.publicKey);
			} finally {
				client.release();
			}
			const notTaken = await this.lines.openTree();
			await this.syncLedger();
			if (notTaken) await this.lines.checkRowsAgainst(notTaken);
			const listener = listenForChanges({
				connection: this.options,
				channel: this.channel,
				onPayload: (payload) => this.tell(payload),
				onReconnect: () => void this.listening.again().then(() => this.missedNotices()),
				log: this.log
			});
			this.listener = listener;
			await listener.ready;
			this.sequenceEvery = setInterval(() => this.sequenceSoon(0), SEQUENCE_EVERY_MS);
			this.sequenceEvery.unref();
			this.pruneEvery = setInterval(() => {
				this.listening.prune().catch((error) => {
					if (!this.closed) this.log(`kernel: could not prune listeners: ${require_migrations.describe(error)}`);
				});
			}, PRUNE_EVERY_MS);
			this.pruneEvery.unref();
		} catch (error) {
			await this.close();
			if (error instanceof require_round_trips.StoreError) throw error;
			throw new require_round_trips.StoreError(`cannot open the PostgreSQL store: ${require_migrations.describe(error)}`, { cause: error });
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
			hold: (now) => this.connections.hold(now)
		}, [...work]);
		const events = results.flatMap((r) => r.status === "fulfilled" ? r.value.events : []);
		if (events.length > 0) {
			const changes = changesOf(events);
			const wanted = changes.filter((c) => listened.has(c.resource));
			if (wanted.length > 0) this.notices.changed(wanted);
			this.sequenceSoon(SEQUENCE_AFTER_MS);
			for (const change of changes) try {
				this.heard?.(change);
			} catch (error) {
				this.log(`kernel: a change listener failed: ${require_migrations.describe(error)}`);
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
		const queued = {
			wait,
			done: Promise.resolve()
		};
		queued.done = this.running.then(async () => {
			this.queued = void 0;
			for (let round = 0; round < SEQUENCE_ROUNDS; round += 1) {
				const numbered = await this.connections.withClient(this.connections.sequencerPool, (client) => sequenceOnce(client, this.locks, queued.wait));
				if (numbered === void 0 || numbered.length === 0) return;
				this.sequenced?.(numbered);
				if (numbered.length < 2e3) return;
			}
		});
		this.queued = queued;
		this.running = queued.done.catch(() => void 0);
		return queued.done;
	}
	/** A pass soon, in the background; a failure is told and tried again by the next one. */
	sequenceSoon(delayMs) {
		if (this.sequenceTimer || this.closed) return;
		this.sequenceTimer = setTimeout(() => {
			this.sequenceTimer = void 0;
			if (this.closed) return;
			this.sequence(false).catch((error) => {
				if (!this.closed) this.log(`kernel: sequencing the ledger failed: ${require_migrations.describe(error)}`);
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
			for (const { resource } of rows) this.heard?.({
				resource,
				events: [],
				freed: true
			});
		} catch (error) {
			this.log(`kernel: could not wake the held requests after reconnecting: ${require_migrations.describe(error)}`);
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
		this.heard?.({
			resource,
			events: [],
			freed: true
		});
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
		return require_kernel_command.overviewOf(rows.map((r) => parseState(r.state, r.resource)), now);
	}
	/** Reachable, and the schema is this binary's version. */
	async ready() {
		let client;
		try {
			client = await this.connections.connect();
		} catch (error) {
			throw new require_round_trips.StoreError(require_cli.causeText(error), { cause: error });
		}
		try {
			await require_migrations.checkSchema(client, this.schema);
			client.release();
		} catch (error) {
			client.release(true);
			throw error instanceof require_round_trips.StoreError ? error : new require_round_trips.StoreError(require_migrations.describe(error));
		}
	}
	/** Sequences what has committed, then reads the entries numbered since the last read. */
	async syncLedger() {
		try {
			await this.sequence(true);
		} catch (error) {
			throw error instanceof require_round_trips.StoreError ? error : new require_round_trips.StoreUnavailableError(`the kernel's store cannot sequence: ${require_migrations.describe(error)}`);
		}
		return this.lines.readAfterNow();
	}
	/** See PlaneService.searchLedger: one statement, however far back it looks. */
	searchLedger(needle, from, limit) {
		return this.lines.search(needle, from, limit);
	}
	async close() {
		if (this.closed) return;
		this.closed = true;
		this.connections.stop();
		if (this.sequenceTimer) clearTimeout(this.sequenceTimer);
		if (this.sequenceEvery) clearInterval(this.sequenceEvery);
		if (this.pruneEvery) clearInterval(this.pruneEvery);
		await this.running;
		await this.listening.close().catch(() => void 0);
		await this.notices.close();
		await this.listener?.close();
		await this.connections.end();
	}
	/** Another replica's commits on resources this one listens for (its own are told in `commit`). */
	tell(payload) {
		if (payload.startsWith(this.ownNotices)) return;
		let notices;
		try {
			notices = noticesSchema.parse(JSON.parse(payload)).changes;
		} catch {
			this.log("kernel: ignored a change notice that is not ours");
			return;
		}
		for (const notice of notices) this.heard?.(notice);
	}
};
exports.PostgresService = PostgresService;

//# sourceMappingURL=backend-Bo1fZP-H.js.map