export const id = 846;
export const ids = [846];
export const modules = {

/***/ 3846:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  kernel: () => (/* binding */ kernel)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: ./src/kernel/rules.ts
var rules = __webpack_require__(1514);
;// CONCATENATED MODULE: ./src/kernel/core.ts


/**
 * Every resource's state and the fence counter, in memory, with no I/O:
 * `decide` computes a change without keeping it, `put` keeps it. The service
 * puts a decision only once it is durable.
 */
class ResourceTable {
    ttlMs;
    nextInLineWaitMs;
    random;
    /** The last fence taken (durable or not: fences never go back, gaps are fine). */
    fence = 0;
    states = new Map();
    constructor(options = {}) {
        this.ttlMs = options.ttlMs ?? rules/* DEFAULT_TTL_MS */.KT;
        this.nextInLineWaitMs = options.nextInLineWaitMs ?? rules/* NEXT_IN_LINE_WAIT_MS */.i2;
        this.random = options.random ?? Math.random;
    }
    get(resource) {
        return this.states.get(resource) ?? (0,rules/* emptyState */.p$)(resource);
    }
    decide(resource, command, now) {
        return (0,rules/* decide */.LD)(this.get(resource), command, {
            now,
            ttlMs: this.ttlMs,
            nextInLineWaitMs: this.nextInLineWaitMs,
            nextFence: () => (this.fence += 1),
            random: this.random,
        });
    }
    put(state) {
        if ((0,rules/* isIdle */.xB)(state))
            this.states.delete(state.resource);
        else
            this.states.set(state.resource, state);
    }
    values() {
        return this.states.values();
    }
    get size() {
        return this.states.size;
    }
}
/**
 * The rules over a table, applied at once, for in-process use (tests, the
 * bench's core row). The HTTP kernel goes through the service instead.
 */
class LeaseKernel {
    table;
    events = [];
    constructor(options = {}) {
        this.table = new ResourceTable(options);
    }
    get ttlMs() {
        return this.table.ttlMs;
    }
    lease(resource, actorDid, now) {
        return this.apply(resource, { kind: 'lease', actorDid }, now);
    }
    release(resource, actorDid, now) {
        return this.apply(resource, { kind: 'release', actorDid }, now);
    }
    /** The operator's lever: ends the lease at once, whoever holds it. */
    revoke(resource, reason, now) {
        const reply = this.apply(resource, { kind: 'revoke', reason }, now);
        return reply.lease ?? undefined;
    }
    status(resource, now) {
        return this.apply(resource, { kind: 'status' }, now).lease;
    }
    /** Applies every lapse due by `now` (a scan: for tests; the service uses a heap). */
    reclaim(now) {
        for (const state of [...this.table.values()])
            this.apply(state.resource, { kind: 'expire' }, now);
    }
    nextExpiry() {
        let next;
        for (const { lease } of this.table.values()) {
            if (lease && (next === undefined || lease.expiresAtMs < next))
                next = lease.expiresAtMs;
        }
        return next;
    }
    /** Hands over the changes of holder since the last call (renewals left out). */
    drainEvents() {
        const events = this.events;
        this.events = [];
        return events;
    }
    apply(resource, command, now) {
        const { state, reply, events } = this.table.decide(resource, command, now);
        this.table.put(state);
        for (const event of events)
            if (event.kind !== 'renew')
                this.events.push(event);
        return reply;
    }
}

// EXTERNAL MODULE: ./src/ledger/entry.ts
var ledger_entry = __webpack_require__(5641);
// EXTERNAL MODULE: ./src/ledger/merkle.ts
var merkle = __webpack_require__(9527);
// EXTERNAL MODULE: ./src/ledger/checkpoint.ts
var checkpoint = __webpack_require__(4491);
// EXTERNAL MODULE: ./src/ledger/ledger-error.ts
var ledger_error = __webpack_require__(5919);
;// CONCATENATED MODULE: ./src/ledger/lines.ts
/**
 * The ledger's lines as UTF-8 bytes in large chunks, with a small index: a
 * ledger of millions of entries stays off the JavaScript heap, so the garbage
 * collector never copies or scans it while the kernel serves requests.
 */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Per line: its chunk, its offset in the chunk, its length in bytes. */
const SLOTS = 3;
class LineStore {
    chunks = [];
    used = CHUNK_BYTES;
    index = new Uint32Array(SLOTS * 1024);
    length = 0;
    /** Keeps one line; returns its bytes (a view that stays valid, for hashing). */
    push(line) {
        const most = line.length * 3;
        if (this.chunks.length === 0 || this.used + most > this.chunks.at(-1).length) {
            this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, most)));
            this.used = 0;
        }
        const chunk = this.chunks.length - 1;
        const bytes = this.chunks[chunk].write(line, this.used, 'utf8');
        if ((this.length + 1) * SLOTS > this.index.length) {
            const bigger = new Uint32Array(this.index.length * 2);
            bigger.set(this.index);
            this.index = bigger;
        }
        const at = this.length * SLOTS;
        this.index[at] = chunk;
        this.index[at + 1] = this.used;
        this.index[at + 2] = bytes;
        this.length += 1;
        const view = this.chunks[chunk].subarray(this.used, this.used + bytes);
        this.used += bytes;
        return view;
    }
    /** The line at `i` (0 ≤ i < length). */
    at(i) {
        const at = i * SLOTS;
        const start = this.index[at + 1];
        return this.chunks[this.index[at]].toString('utf8', start, start + this.index[at + 2]);
    }
}

;// CONCATENATED MODULE: ./src/ledger/ledger.ts







/**
 * The append-only, Merkle-sealed record of every grant, renewal, release,
 * lapse and revocation, in memory. Whoever keeps it durable (the kernel's
 * store) prepares entries, writes their lines, and only then accepts them.
 * Without a signing key it is still a log and a tree, but signs no checkpoint.
 */
class Ledger {
    signingKey;
    origin;
    publicKey;
    tree = new merkle/* MerkleTree */.vU();
    /** The accepted entries as their canonical lines (the Merkle leaves), off the heap. */
    lines = new LineStore();
    lastTs = -1;
    signed;
    constructor(signingKey) {
        this.signingKey = signingKey;
        this.publicKey = signingKey && (0,external_node_crypto_.createPublicKey)(signingKey);
        this.origin = this.publicKey && (0,checkpoint/* originFor */.Ag)(this.publicKey);
    }
    get size() {
        return this.tree.size;
    }
    get signs() {
        return this.signingKey !== undefined;
    }
    /** Numbers and times new entries after the accepted ones; changes nothing. */
    prepare(events) {
        let seq = this.lines.length;
        let lastTs = this.lastTs;
        const entries = [];
        const lines = [];
        let text = '';
        for (const event of events) {
            // The plane's clock, made strictly increasing for the ledger.
            lastTs = Math.max(Math.round(event.atMs), lastTs + 1);
            const entry = (0,ledger_entry/* entryOf */.Ms)(event, seq, lastTs);
            seq += 1;
            const line = (0,ledger_entry/* entryJson */.Bm)(entry);
            entries.push(entry);
            lines.push(line);
            text += `${line}\n`;
        }
        return { entries, text, lines };
    }
    /** Takes prepared entries in once they are durable; `lines` are their canonical JSON when known. */
    accept(entries, lines) {
        entries.forEach((entry, i) => {
            if (entry.seq !== this.lines.length)
                throw new ledger_error/* LedgerError */.o(`entry ${entry.seq} accepted out of order`);
            this.tree.append(this.lines.push(lines?.[i] ?? (0,ledger_entry/* entryJson */.Bm)(entry)));
            this.lastTs = entry.tsMs;
        });
    }
    /** Prepares and accepts one entry at once (an in-memory ledger). */
    append(event) {
        const { entries, lines } = this.prepare([event]);
        this.accept(entries, lines);
        return entries[0];
    }
    /** Takes in one line read back from durable storage, checked as untrusted. */
    load(line, where) {
        let parsed;
        try {
            parsed = JSON.parse(line);
        }
        catch {
            throw new ledger_error/* LedgerError */.o(`${where} is not JSON; the ledger is damaged before its last record`);
        }
        const entry = ledger_entry/* entrySchema */.Oo.safeParse(parsed);
        if (!entry.success ||
            entry.data.seq !== this.lines.length ||
            (0,ledger_entry/* canonicalJson */.dj)(entry.data) !== line) {
            throw new ledger_error/* LedgerError */.o(`${where} is not the ledger entry ${this.lines.length} in canonical form`);
        }
        this.accept([entry.data], [line]);
        return entry.data;
    }
    entry(index) {
        if (!(Number.isInteger(index) && index >= 0 && index < this.lines.length))
            return undefined;
        return JSON.parse(this.lines.at(index));
    }
    /** The signed checkpoint of the first `size` entries (all by default). */
    checkpoint(size = this.tree.size) {
        if (!this.signingKey || !this.origin)
            throw new ledger_error/* LedgerError */.o('this kernel has no signing key, so it signs no checkpoint');
        if (this.signed?.size === size)
            return this.signed.text;
        const root = this.tree.root(size);
        if (this.signed && size > this.signed.size) {
            const proof = this.tree.consistencyProof(this.signed.size, size);
            if (!(0,merkle/* verifyConsistency */.Ko)(this.signed.size, size, this.signed.root, root, proof)) {
                throw new ledger_error/* LedgerError */.o('refusing to sign a checkpoint inconsistent with the last one signed');
            }
        }
        // Ed25519 is deterministic: an older size signs to the same note it had.
        const text = (0,checkpoint/* signCheckpoint */.Ch)({ origin: this.origin, size, root }, this.signingKey);
        if (!this.signed || size > this.signed.size)
            this.signed = { size, root, text };
        return text;
    }
    /** Entries [from, to) with inclusion proofs against the tree of `size` (a page of an export). */
    page(from, to, size = this.size) {
        return this.pageJson(from, to, size).map((json) => JSON.parse(json));
    }
    /**
     * The same page, each bundle entry already as JSON: the entry's canonical
     * line is spliced in as it is kept, never parsed and written again.
     */
    pageJson(from, to, size = this.size) {
        if (!(0 <= from && from <= to && to <= size && size <= this.size)) {
            throw new ledger_error/* LedgerError */.o(`range ${from}..${to} is not within 0..${size}`);
        }
        const proofs = this.tree.inclusionProofs(from, to, size);
        const json = [];
        for (let index = from; index < to; index += 1) {
            const proof = proofs[index - from].map((h) => Buffer.from(h).toString('base64'));
            json.push(`{"index":${index},"entry":${this.lines.at(index)},"inclusionProof":${JSON.stringify(proof)}}`);
        }
        return json;
    }
    /** Entries [from, to) with inclusion proofs against the current checkpoint. */
    bundle(from = 0, to = this.size) {
        if (!(Number.isInteger(from) &&
            Number.isInteger(to) &&
            0 <= from &&
            from <= to &&
            to <= this.size)) {
            throw new ledger_error/* LedgerError */.o(`range ${from}..${to} is not within 0..${this.size}`);
        }
        const checkpoint = this.checkpoint();
        return { checkpoint, entries: this.page(from, to) };
    }
}

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 6 modules
var schemas = __webpack_require__(0);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
;// CONCATENATED MODULE: ./src/kernel/held.ts
/**
 * The longest a request is held, whatever it prefers: below the 30 s that
 * many clients and proxies give one request, so a held answer is not cut off.
 */
const MAX_HELD_WAIT_S = 25;
/** Past this many requests held at once, a request that prefers to wait is answered at once. */
const MAX_HELD_REQUESTS = 1_000;
const realTimers = {
    set: (run, ms) => setTimeout(run, ms),
    clear: (handle) => clearTimeout(handle),
};
/**
 * `wait=N` from RFC 7240 `Prefer` header(s) (node joins repeated ones with
 * ", "); the first `wait` counts. Undefined when absent or not delta-seconds:
 * a preference the server does not understand is ignored, never an error.
 */
function preferredWait(header) {
    if (!header)
        return undefined;
    for (const preference of header.split(',')) {
        const [token = '', ...rest] = (preference.split(';')[0] ?? '').split('=');
        if (token.trim().toLowerCase() !== 'wait')
            continue;
        const value = rest
            .join('=')
            .trim()
            .replace(/^"(.*)"$/, '$1');
        return /^\d{1,10}$/.test(value) ? Number(value) : undefined;
    }
    return undefined;
}
/**
 * Lease requests held open until they can be granted (blocking acquire).
 * A held request is an ordinary waiter in the rules' queue: it asked once and
 * was refused, so it has its place, and the rules keep a freed resource for
 * the head of the queue. It asks again, in-process, when the service says the
 * resource changed (release, lapse, revoke, from any store) and whenever its
 * told wait runs out, which keeps its place from lapsing while it is held.
 * Its answer is the service's, so a grant is answered only once it is durable.
 */
class HeldRequests {
    service;
    byResource = new Map();
    maxWaitS;
    maxHeld;
    timers;
    unsubscribe;
    count = 0;
    closing = false;
    constructor(service, options = {}) {
        this.service = service;
        this.maxWaitS = options.maxWaitS ?? MAX_HELD_WAIT_S;
        this.maxHeld = options.maxHeld ?? MAX_HELD_REQUESTS;
        this.timers = options.timers ?? realTimers;
        this.unsubscribe = service.onResourceChanged((resource) => this.wake(resource));
    }
    /** True once `close` was called: answers should close their connections. */
    get stopping() {
        return this.closing;
    }
    /** How many requests are held (or admitted to be) right now. */
    get size() {
        return this.count;
    }
    /**
     * Asks for the lease; with a preferred wait of N ≥ 1 seconds (and room),
     * holds the request until it is granted, refused for good, or min(N, cap)
     * seconds pass, then answers with the last reply.
     */
    async lease(resource, actorDid, preferredS, signal) {
        if (!preferredS || preferredS < 1 || this.count >= this.maxHeld || this.closing) {
            return { reply: await this.service.lease(resource, actorDid) };
        }
        const appliedWaitS = Math.min(preferredS, this.maxWaitS);
        this.count += 1;
        try {
            const deadline = this.service.now() + appliedWaitS * 1_000;
            const reply = await this.service.lease(resource, actorDid);
            if (!mayWait(reply))
                return { reply, appliedWaitS };
            if (signal.aborted) {
                await this.service.leave(resource, actorDid);
                return { reply, appliedWaitS };
            }
            return { reply: await this.hold(resource, actorDid, reply, deadline, signal), appliedWaitS };
        }
        finally {
            this.count -= 1;
        }
    }
    /** Answers every held request at once with a fresh ask (the kernel is stopping). */
    close() {
        this.closing = true;
        this.unsubscribe();
        for (const holds of this.byResource.values())
            for (const hold of holds)
                hold.wake();
    }
    hold(resource, actorDid, first, deadline, signal) {
        return new Promise((resolve, reject) => {
            let last = first;
            let timer;
            let asking = false;
            let again = false;
            let done = false;
            const finish = (settle) => {
                if (done)
                    return;
                done = true;
                this.timers.clear(timer);
                signal.removeEventListener('abort', gone);
                const holds = this.byResource.get(resource);
                holds?.delete(hold);
                if (holds?.size === 0)
                    this.byResource.delete(resource);
                settle();
            };
            const arm = (reply) => {
                const left = deadline - this.service.now();
                timer = this.timers.set(ask, Math.max(0, Math.min(reply.stampede.waitMs, left)));
            };
            const ask = () => {
                if (done)
                    return;
                if (asking) {
                    again = true;
                    return;
                }
                asking = true;
                this.timers.clear(timer);
                this.service.lease(resource, actorDid).then((reply) => {
                    asking = false;
                    last = reply;
                    if (done)
                        return;
                    const over = this.closing || this.service.now() >= deadline;
                    if (!mayWait(reply) || over)
                        return finish(() => resolve(reply));
                    if (again) {
                        again = false;
                        return ask();
                    }
                    arm(reply);
                }, (error) => {
                    asking = false;
                    finish(() => reject(error instanceof Error ? error : new Error(String(error))));
                });
            };
            const gone = () => finish(() => {
                resolve(last);
                // Its place goes to the next in line at once; a failed leave lapses with the place.
                this.service.leave(resource, actorDid).catch(() => undefined);
            });
            const hold = { wake: ask };
            let holds = this.byResource.get(resource);
            if (!holds)
                this.byResource.set(resource, (holds = new Set()));
            holds.add(hold);
            signal.addEventListener('abort', gone, { once: true });
            arm(first);
        });
    }
    /** Every request held on this resource asks again, in arrival order. */
    wake(resource) {
        const holds = this.byResource.get(resource);
        if (holds)
            for (const hold of [...holds])
                hold.wake();
    }
}
const mayWait = (reply) => !reply.ok && reply.reason === 'lease_held';

// EXTERNAL MODULE: external "node:timers/promises"
var promises_ = __webpack_require__(8500);
;// CONCATENATED MODULE: ./src/kernel/ledger-routes.ts



const DEFAULT_PAGE = 1_000;
const MAX_PAGE = 10_000;
/** Entries built between two yields to the event loop, so renewals keep flowing. */
const SLICE = 250;
/**
 * The ledger's routes. An export is pinned to the ledger's size S when it
 * starts; every page carries the checkpoint of S and proofs against it, and a
 * cursor to the next page.
 */
function ledgerRoutes(ledger) {
    const signed = () => {
        if (!ledger.signs || !ledger.publicKey) {
            throw new HttpError(404, 'no_signing_key', 'This kernel runs without a signing key: it keeps its log but signs no checkpoint.');
        }
        return ledger.publicKey;
    };
    return {
        [`GET ${schema/* LEDGER_PATHS */.Tc.checkpoint}`]: async () => {
            signed();
            return { status: 200, body: ledger.checkpoint() };
        },
        [`GET ${schema/* LEDGER_PATHS */.Tc.publicKey}`]: async () => ({
            status: 200,
            body: String(signed().export({ type: 'spki', format: 'pem' })),
        }),
        [`GET ${schema/* LEDGER_PATHS */.Tc.bundle}`]: async (req) => {
            signed();
            const { size, from, end, limit } = pageRequest(req.query, ledger.size);
            const to = Math.min(end, from + limit);
            const next = to < end ? encodeCursor(size, to, end) : null;
            return { status: 200, body: bundlePage(ledger, size, from, to, next) };
        },
    };
}
function pageRequest(query, currentSize) {
    const limit = whole(query.get('limit'), DEFAULT_PAGE, 'limit');
    if (limit < 1 || limit > MAX_PAGE) {
        throw new HttpError(400, 'bad_request', `limit: expected a whole number from 1 to ${MAX_PAGE}`);
    }
    const cursor = query.get('cursor');
    if (cursor !== null) {
        const decoded = decodeCursor(cursor);
        if (!decoded ||
            decoded.size > currentSize ||
            decoded.from > decoded.end ||
            decoded.end > decoded.size) {
            throw new HttpError(400, 'bad_request', 'cursor: expected the `next` value of an earlier page');
        }
        return { ...decoded, limit };
    }
    const from = whole(query.get('from'), 0, 'from');
    const end = whole(query.get('to'), currentSize, 'to');
    if (from > end || end > currentSize) {
        throw new HttpError(400, 'bad_request', `from/to: expected 0 ≤ from ≤ to ≤ ${currentSize}`);
    }
    return { size: currentSize, from, end, limit };
}
function whole(value, fallback, name) {
    if (value === null)
        return fallback;
    if (!/^\d{1,15}$/.test(value))
        throw new HttpError(400, 'bad_request', `${name}: expected a whole number`);
    return Number(value);
}
const encodeCursor = (size, from, end) => Buffer.from(`v1.${size}.${from}.${end}`, 'utf8').toString('base64url');
function decodeCursor(cursor) {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor))
        return undefined;
    const match = /^v1\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!match)
        return undefined;
    return { size: Number(match[1]), from: Number(match[2]), end: Number(match[3]) };
}
/** The page as JSON pieces, yielding to the event loop between slices. */
async function* bundlePage(ledger, size, from, to, next) {
    yield `{"checkpoint":${JSON.stringify(ledger.checkpoint(size))},"entries":[`;
    for (let start = from; start < to; start += SLICE) {
        if (start > from)
            await (0,promises_.setImmediate)();
        const slice = ledger.pageJson(start, Math.min(to, start + SLICE), size);
        yield `${start > from ? ',' : ''}${slice.join(',')}`;
    }
    yield `],"next":${JSON.stringify(next)}}`;
}

// EXTERNAL MODULE: ./src/kernel/service.ts + 1 modules
var kernel_service = __webpack_require__(4396);
;// CONCATENATED MODULE: ./src/kernel/app.ts






/** A user's mistake or a refusal: answered with `{ ok: false, reason, message }`. */
class HttpError extends Error {
    status;
    reason;
    constructor(status, reason, message) {
        super(message);
        this.status = status;
        this.reason = reason;
    }
}
const resource = schemas/* string */.YjP().regex(schema/* RESOURCE_PATTERN */.iY, `expected ${schema/* RESOURCE_FORM */.We}`);
const actorDid = schemas/* string */.YjP().refine(schema/* isDid */.Cn, `expected ${schema/* DID_FORM */.PN}`);
const leaseBody = schemas/* object */.Ikc({ resource, actorDid });
const revokeBody = schemas/* object */.Ikc({
    resource,
    reason: schemas/* string */.YjP().max(1_000).default('revoked by an operator'),
});
const NEVER_ABORTED = new AbortController().signal;
/**
 * The lease and release body: a well-formed one is taken as it is (the hot
 * path); anything else goes through the schema, which names what is wrong.
 */
function leaseOf(body) {
    if (typeof body === 'object' && body !== null) {
        const { resource: r, actorDid: a } = body;
        if (typeof r === 'string' && typeof a === 'string' && schema/* RESOURCE_PATTERN */.iY.test(r) && (0,schema/* isDid */.Cn)(a))
            return { resource: r, actorDid: a };
    }
    return parse(leaseBody, body);
}
/** Routing, keys, origin checks and validation; the service does the rest. */
function createKernelApp(options) {
    const { service } = options;
    const held = options.held ?? new HeldRequests(service);
    const ok = (body, status = 200) => ({ status, body });
    const routes = {
        [`POST ${schema/* LEASE_PATH */.B0}`]: async (req) => {
            const { resource: r, actorDid: a } = leaseOf(await req.json());
            const wait = preferredWait(req.headers.prefer);
            // Only a held request listens for its client going away.
            const signal = wait ? req.signal : NEVER_ABORTED;
            const { reply, appliedWaitS } = await held.lease(r, a, wait, signal);
            const answer = reply.ok
                ? ok({ ok: true, lease: publicLease(reply.lease), renewed: reply.renewed })
                : ok(reply, 409);
            if (appliedWaitS !== undefined) {
                answer.headers = { 'preference-applied': `wait=${appliedWaitS}` };
                // Answered because the kernel is stopping: do not keep the connection for another.
                if (held.stopping)
                    answer.headers.connection = 'close';
            }
            return answer;
        },
        [`POST ${schema/* RELEASE_PATH */.Sq}`]: async (req) => {
            const { resource: r, actorDid: a } = leaseOf(await req.json());
            return ok(await service.release(r, a));
        },
        [`POST ${schema/* REVOKE_PATH */.DQ}`]: async (req) => {
            if (!options.adminKey) {
                throw new HttpError(403, 'revoke_disabled', 'Revoking needs the kernel to be started with LEASE_GATE_ADMIN_KEY.');
            }
            if (!bearerMatches(req.headers.authorization, options.adminKey)) {
                throw new HttpError(403, 'forbidden', 'Revoking needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.');
            }
            const { resource: r, reason } = parse(revokeBody, await req.json());
            const { lease } = await service.revoke(r, reason);
            return ok({
                ok: true,
                revoked: lease !== null,
                leaseId: lease?.id ?? null,
                holder: lease?.holder ?? null,
            });
        },
        [`GET ${schema/* LEASE_PATH */.B0}`]: async (req) => {
            const r = req.query.get('resource') ?? '';
            parse(schemas/* object */.Ikc({ resource }), { resource: r });
            const lease = await service.status(r);
            return ok({ ok: true, lease: lease && publicLease(lease) });
        },
        [`GET ${schema/* KERNEL_RESOURCES_PATH */.KY}`]: async () => ok({ ok: true, ...(await service.overview()) }),
        'GET /healthz': async () => ok({ ok: true }),
        'GET /readyz': async () => {
            try {
                await service.ready();
                return ok({ ok: true });
            }
            catch (error) {
                return ok({
                    ok: false,
                    reason: 'store_unavailable',
                    message: `the kernel's store is not writable: ${error.message}`,
                }, 503);
            }
        },
        ...syncedFirst(ledgerRoutes(service.ledger), service),
    };
    const open = new Set(['GET /healthz', 'GET /readyz']);
    const paths = new Set(Object.keys(routes).map((r) => r.slice(r.indexOf(' ') + 1)));
    const app = async (req) => {
        try {
            const name = `${req.method} ${req.path}`;
            const route = routes[name];
            if (!route) {
                throw paths.has(req.path)
                    ? new HttpError(405, 'method_not_allowed', `${req.method} is not served on ${req.path}.`)
                    : new HttpError(404, 'not_found', `No route ${req.method} ${req.path}.`);
            }
            if (req.method === 'POST')
                refuseCrossOrigin(req);
            const revoking = req.path === schema/* REVOKE_PATH */.DQ;
            if (options.key &&
                !revoking &&
                !open.has(name) &&
                !bearerMatches(req.headers.authorization, options.key)) {
                throw new HttpError(401, 'unauthorized', 'This kernel needs its key (LEASE_GATE_KERNEL_KEY) as a Bearer token.');
            }
            return await route(req);
        }
        catch (error) {
            if (error instanceof HttpError) {
                return {
                    status: error.status,
                    body: { ok: false, reason: error.reason, message: error.message },
                };
            }
            if (error instanceof kernel_service/* StoreUnavailableError */.o2) {
                return {
                    status: 503,
                    body: { ok: false, reason: 'store_unavailable', message: error.message },
                };
            }
            throw error;
        }
    };
    return Object.assign(app, {
        serves: (path) => paths.has(path),
        close: () => held.close(),
    });
}
/** A replica's ledger catches up with the shared store before it answers. */
function syncedFirst(routes, service) {
    if (!service.syncLedger)
        return routes;
    const synced = {};
    for (const [name, route] of Object.entries(routes)) {
        synced[name] = async (req) => {
            await service.syncLedger?.();
            return route(req);
        };
    }
    return synced;
}
/** A browser page from another origin may not change anything here. */
function refuseCrossOrigin(req) {
    const origin = req.headers.origin;
    const own = `http://${req.headers.host ?? ''}`;
    if ((origin !== undefined && origin !== own) || req.headers['sec-fetch-site'] === 'cross-site') {
        throw new HttpError(403, 'cross_origin', `Requests that change leases must come from this kernel's own origin (${own}), not from a page on another site.`);
    }
}
function parse(schema, body) {
    const result = schema.safeParse(body);
    if (result.success)
        return result.data;
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    throw new HttpError(400, 'bad_request', `${field}: ${issue?.message ?? 'invalid'}`);
}
function publicLease(lease) {
    const { id, resource: r, holder, expiresAtMs, fence } = lease;
    return { id, resource: r, holder, expiresAtMs, fence };
}
const digest = (value) => (0,external_node_crypto_.createHash)('sha256').update(value).digest();
/** Compares in constant time (over digests, so lengths do not leak either). */
function bearerMatches(header, key) {
    const value = header ?? '';
    const token = value.startsWith('Bearer ') ? value.slice(7) : '';
    return (0,external_node_crypto_.timingSafeEqual)(digest(token), digest(key)) && token.length > 0;
}

// EXTERNAL MODULE: ./src/kernel/store.ts
var kernel_store = __webpack_require__(7636);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: external "node:url"
var external_node_url_ = __webpack_require__(3136);
;// CONCATENATED MODULE: ./src/console/serve.ts



/** No inline script or style, nothing from another origin, no framing. */
const CONTENT_SECURITY_POLICY = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
].join('; ');
/** Request path → built file. Nothing else is served, so no path reaches the file system. */
const PAGES = {
    '/': 'index.html',
    '/console/': 'index.html',
    '/playground': 'playground.html',
    '/playground/': 'playground.html',
    '/console/console.js': 'console.js',
    '/console/playground.js': 'playground.js',
    '/console/console.css': 'console.css',
};
const TYPES = {
    html: 'text/html; charset=utf-8',
    js: 'text/javascript; charset=utf-8',
    css: 'text/css; charset=utf-8',
};
function defaultAssetsDir() {
    const here = (0,external_node_path_.dirname)((0,external_node_url_.fileURLToPath)(import.meta.url));
    // dist/cli/index.js → dist/console; src/console/serve.ts → dist/console.
    const candidates = [(0,external_node_path_.join)(here, '..', 'console'), (0,external_node_path_.join)(here, '..', '..', 'dist', 'console')];
    return candidates.find((dir) => (0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, 'index.html')));
}
function serve_createConsole(options = {}) {
    // Read on first use: a kernel nobody opens the console of pays nothing.
    const cache = new Map();
    const read = (file) => {
        if (!cache.has(file)) {
            const dir = options.assetsDir ?? defaultAssetsDir();
            cache.set(file, dir && (0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, file)) ? (0,external_node_fs_.readFileSync)((0,external_node_path_.join)(dir, file)) : null);
        }
        return cache.get(file) ?? null;
    };
    return (req, res) => {
        if (req.method !== 'GET' && req.method !== 'HEAD')
            return false;
        const path = (req.url ?? '').split('?')[0] ?? '';
        const file = PAGES[path];
        if (!file)
            return false;
        const body = read(file);
        const headers = {
            'content-security-policy': CONTENT_SECURITY_POLICY,
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
            'cross-origin-opener-policy': 'same-origin',
            'cache-control': 'no-cache',
        };
        if (!body) {
            const text = 'The console is not built: run npm run build.\n';
            res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
            res.end(req.method === 'HEAD' ? undefined : text);
            return true;
        }
        const type = TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
        res.writeHead(200, { ...headers, 'content-type': type, 'content-length': body.length });
        res.end(req.method === 'HEAD' ? undefined : body);
        return true;
    };
}

;// CONCATENATED MODULE: ./src/kernel/server.ts








const BODY_LIMIT_BYTES = 64 * 1024;
/** Epoch milliseconds that never go backwards, whatever the wall clock does. */
function epochMonotonic() {
    const wallStart = Date.now();
    const perfStart = performance.now();
    return () => Math.round(wallStart + performance.now() - perfStart);
}
/** Opens the service (replaying its store) and builds the app on it. */
async function openKernel(options) {
    if (options.service) {
        const { service } = options;
        return {
            service,
            app: createKernelApp({ service, key: options.key, adminKey: options.adminKey }),
        };
    }
    const table = options.table ?? options.kernel?.table ?? new ResourceTable();
    const log = options.log ?? ((line) => console.error(line));
    const { service, warning } = await kernel_service/* KernelService */.h3.open({
        table,
        store: options.store ?? (0,kernel_store/* memoryStore */.LK)(),
        ledger: options.ledger ?? new Ledger(),
        now: options.now ?? epochMonotonic(),
        onEvents: options.onEvents,
        log,
    });
    const app = createKernelApp({ service, key: options.key, adminKey: options.adminKey });
    return { service, app, warning };
}
/** A node:http handler for the kernel; the service opens in the background. */
function createKernelHandler(options) {
    const opened = openKernel(options);
    const log = options.log ?? ((line) => console.error(line));
    let handle;
    const handler = async (req, res) => {
        if (!handle)
            handle = nodeAdapter((await opened).app, log, options.console ?? createConsole());
        return handle(req, res);
    };
    return Object.assign(handler, { opened });
}
/** The thin adapter: node's request to the app's, the app's answer to node's response. */
function nodeAdapter(app, log, consoleHook) {
    return async (req, res) => {
        const url = req.url ?? '/';
        const mark = url.indexOf('?');
        const path = mark < 0 ? url : url.slice(0, mark);
        if (!app.serves(path) && consoleHook?.(req, res))
            return;
        const request = new NodeRequest(req, res, path, mark < 0 ? '' : url.slice(mark + 1));
        try {
            const answer = await app(request);
            await send(res, answer, () => request.signal);
        }
        catch (error) {
            if (error instanceof ClientGone) {
                log(`kernel: the client went away before its ${req.method} ${server_escape(path)} body ended`);
                return;
            }
            log(`kernel: ${req.method} ${server_escape(path)} failed: ${error.stack ?? String(error)}`);
            if (!res.headersSent) {
                await send(res, {
                    status: 500,
                    body: { ok: false, reason: 'internal', message: 'The kernel failed; see its log.' },
                });
            }
            else {
                res.destroy();
            }
        }
    };
}
async function startKernelServer(options) {
    const { service, app, warning } = await openKernel(options);
    const log = options.log ?? ((line) => console.error(line));
    const handle = nodeAdapter(app, log, options.console ?? serve_createConsole());
    const server = (0,external_node_http_.createServer)((req, res) => void handle(req, res));
    server.keepAliveTimeout = 5_000;
    server.on('clientError', answerClientError);
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    const address = server.address();
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return {
        url: `http://${host}:${address.port}`,
        server,
        service,
        warning,
        close: async () => {
            app.close();
            await new Promise((resolve) => {
                server.close(() => resolve());
                server.closeIdleConnections();
            });
            await service.close();
        },
    };
}
/** Malformed HTTP gets a JSON answer too, then the connection closes. */
function answerClientError(error, socket) {
    if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
    }
    const [status, reason, message] = error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request headers are too large.']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'request_timeout', 'The request took too long to arrive.']
            : [400, 'bad_request', 'The request is not well-formed HTTP/1.1.'];
    const body = JSON.stringify({ ok: false, reason, message });
    socket.end(`HTTP/1.1 ${status} ${external_node_http_.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
/**
 * The app's view of one node request. A class, so `signal` is a getter on the
 * prototype: a getter in a per-request object literal makes V8 allocate an
 * accessor pair in the old generation, which then held the request's whole
 * graph (req, res, their buffers) through every young collection until the
 * next full one, and most of the kernel's collector time went to that.
 */
class NodeRequest {
    req;
    res;
    path;
    method;
    query;
    headers;
    gone;
    constructor(req, res, path, search) {
        this.req = req;
        this.res = res;
        this.path = path;
        this.method = req.method ?? 'GET';
        this.query = new URLSearchParams(search);
        this.headers = req.headers;
    }
    json() {
        return readJson(this.req);
    }
    /** Built on first use: most answers are immediate and never look at it. */
    get signal() {
        return (this.gone ??= goneSignal(this.res));
    }
}
class ClientGone extends Error {
}
/** Aborted when the client goes away before its answer is finished (also if it already has). */
function goneSignal(res) {
    const controller = new AbortController();
    const abort = () => res.writableFinished || controller.abort();
    if (res.closed || res.destroyed)
        abort();
    else
        res.once('close', abort);
    return controller.signal;
}
async function readJson(req) {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(type)) {
        req.resume();
        throw new HttpError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    }
    const text = await readLimited(req);
    try {
        return JSON.parse(text);
    }
    catch {
        throw new HttpError(400, 'bad_json', 'The body is not valid JSON.');
    }
}
/** Reads the body up to the limit; past it, drains the rest so the answer can still be sent. */
function readLimited(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        req.on('data', (chunk) => {
            size += chunk.length;
            if (size <= BODY_LIMIT_BYTES)
                chunks.push(chunk);
        });
        req.on('error', () => reject(new ClientGone()));
        req.on('close', () => req.complete || reject(new ClientGone()));
        req.on('end', () => {
            if (size > BODY_LIMIT_BYTES) {
                reject(new HttpError(413, 'payload_too_large', `The body is over ${BODY_LIMIT_BYTES} bytes.`));
            }
            else {
                resolve(Buffer.concat(chunks).toString('utf8'));
            }
        });
    });
}
const isStream = (body) => typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
/** JSON, plain text for a string (the checkpoint, the public key), or JSON in pieces. */
async function send(res, answer, signal) {
    const { status, body, headers } = answer;
    if (isStream(body)) {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        const gone = signal?.();
        for await (const piece of body) {
            if (gone?.aborted)
                return;
            if (!res.write(piece))
                await drainedOrClosed(res);
        }
        res.end();
        return;
    }
    const plain = typeof body === 'string';
    const text = plain ? body : JSON.stringify(body);
    res.writeHead(status, {
        'content-type': plain ? 'text/plain; charset=utf-8' : 'application/json',
        'content-length': Buffer.byteLength(text),
        ...headers,
    });
    res.end(text);
}
/** Resolves on the first of drain or close, leaving no listener behind for the next wait. */
function drainedOrClosed(res) {
    return new Promise((resolve) => {
        const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
        };
        res.on('drain', done).on('close', done);
    });
}
/** A path from the wire, made safe for one log line. */
const server_escape = (text) => JSON.stringify(text.slice(0, 200)).slice(1, -1);

// EXTERNAL MODULE: ./src/plane/url.ts
var url = __webpack_require__(4043);
// EXTERNAL MODULE: ./src/fs/processes.ts
var processes = __webpack_require__(5810);
// EXTERNAL MODULE: ./src/kernel/postgres/settings.ts
var settings = __webpack_require__(3808);
// EXTERNAL MODULE: ./src/cli/options.ts + 1 modules
var cli_options = __webpack_require__(1156);
;// CONCATENATED MODULE: ./src/cli/kernel-postgres.ts


const STORE_OPTIONS = {
    store: { type: 'string' },
    schema: { type: 'string' },
    'pool-size': { type: 'string' },
};
const STORE_FORM = "'memory', 'postgres' (the URL from DATABASE_URL) or a postgres://user@host:5432/db URL";
/**
 * The PostgreSQL settings from `--store`, `--schema` and `--pool-size`, or
 * undefined for the in-process stores. DATABASE_URL is read only when asked
 * for (`--store postgres`), so a job that happens to set it keeps a local kernel.
 */
function postgresFrom(values, env) {
    const store = values.store ?? 'memory';
    if (store === 'memory') {
        if (values.schema !== undefined || values['pool-size'] !== undefined)
            throw new cli_options/* UsageError */.eb('--schema and --pool-size go with --store postgres.');
        return undefined;
    }
    let url = store;
    if (store === 'postgres') {
        url = env.DATABASE_URL ?? '';
        if (!url)
            throw new cli_options/* UsageError */.eb('--store postgres reads its URL from DATABASE_URL, which is not set.');
    }
    if (!/^postgres(ql)?:\/\//.test(url))
        throw new cli_options/* UsageError */.eb(`Invalid --store. Expected ${STORE_FORM}.`);
    const schema = values.schema ?? env.LEASE_GATE_PG_SCHEMA ?? 'public';
    if (!settings/* SCHEMA_PATTERN */.f_.test(schema))
        throw new cli_options/* UsageError */.eb(`Invalid --schema '${schema}'. Expected ${settings/* SCHEMA_FORM */.B4}.`);
    const size = values['pool-size'] ?? '10';
    if (!/^\d{1,3}$/.test(size) || Number(size) < 2 || Number(size) > 100)
        throw new cli_options/* UsageError */.eb(`Invalid --pool-size '${size}'. Expected a whole number from 2 to 100.`);
    return { url, schema, poolSize: Number(size) };
}
/** Opens the PostgreSQL service (loaded only when asked for: `pg` stays off every other path). */
async function openPostgres(options, rest) {
    const { PostgresService } = await Promise.all(/* import() */[__webpack_require__.e(849), __webpack_require__.e(386)]).then(__webpack_require__.bind(__webpack_require__, 2386));
    return PostgresService.open({ ...options, ...rest });
}
/** `lease-gate kernel migrate --store …`: brings the schema to this version, and nothing else. */
async function migrateCommand(args, io, env) {
    const { values } = (0,cli_options/* parse */.qg)(args, STORE_OPTIONS);
    const options = postgresFrom(values, env);
    if (!options)
        throw new cli_options/* UsageError */.eb(`kernel migrate needs --store. Expected ${STORE_FORM}.`);
    const { migrateDatabase } = await Promise.all(/* import() */[__webpack_require__.e(849), __webpack_require__.e(996)]).then(__webpack_require__.bind(__webpack_require__, 5996));
    const applied = await migrateDatabase(options);
    io.out(applied.length
        ? `migrated schema ${options.schema} to version ${applied.at(-1)} (applied ${applied.join(', ')})`
        : `schema ${options.schema} is current`);
    return cli_options/* EXIT */.dc.done;
}

;// CONCATENATED MODULE: ./src/cli/kernel-command.ts











/** `lease-gate kernel`: the local plane on loopback, until SIGINT or SIGTERM. */
async function kernel(args, io, env) {
    if (args[0] === 'migrate')
        return migrateCommand(args.slice(1), io, env);
    const { values } = (0,cli_options/* parse */.qg)(args, {
        ...STORE_OPTIONS,
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8787' },
        'ttl-ms': { type: 'string', default: '30000' },
        state: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        'exit-with-pid': { type: 'string', default: '0' },
        'signing-key': { type: 'string' },
        ledger: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
    });
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65_535) {
        throw new cli_options/* UsageError */.eb(`Invalid --port '${values.port}'. Expected a port number from 0 to 65535 (0 picks a free one).`);
    }
    const ttlMs = Number(values['ttl-ms']);
    if (!/^\d+$/.test(values['ttl-ms']) || ttlMs < 100 || ttlMs > 3_600_000) {
        throw new cli_options/* UsageError */.eb(`Invalid --ttl-ms '${values['ttl-ms']}'. Expected milliseconds from 100 to 3600000.`);
    }
    const key = env.LEASE_GATE_KERNEL_KEY || undefined;
    const host = values.host.replace(/^\[(.*)\]$/, '$1');
    if (!(0,url/* isLoopbackHost */.c)(host) && !key) {
        throw new cli_options/* UsageError */.eb(`Refusing to listen on ${values.host} without a key: set LEASE_GATE_KERNEL_KEY, or keep --host on loopback.`);
    }
    const postgres = postgresFrom(values, env);
    if (postgres && (values.state || values.ledger))
        throw new cli_options/* UsageError */.eb('--store postgres keeps the log in the database: drop --state and --ledger.');
    if (postgres && !values['signing-key'])
        throw new cli_options/* UsageError */.eb('--store postgres needs --signing-key FILE: every replica signs the shared ledger with the same key.');
    // The log is the kernel's one durable record; --state names where it lives.
    const logFile = values.ledger ?? (values.state ? `${values.state}.ledger.jsonl` : undefined);
    const store = logFile ? (0,kernel_store/* fileStore */.oX)(logFile, values.state) : (0,kernel_store/* memoryStore */.LK)();
    const log = (events) => {
        if (values.quiet)
            return;
        for (const e of events) {
            if (e.kind === 'renew')
                continue;
            io.out(`${new Date(e.atMs).toISOString()} ${e.kind} ${e.resource} ${e.actorDid} ${e.leaseId} fence=${e.fence}${e.reason ? ` reason=${JSON.stringify(e.reason)}` : ''}`);
        }
    };
    const ledger = new Ledger(readSigningKey(values['signing-key']));
    const service = postgres
        ? await openPostgres(postgres, { ledger, ttlMs, onEvents: log, log: (line) => io.err(line) })
        : undefined;
    const running = await startKernelServer({
        service,
        ledger,
        table: new ResourceTable({ ttlMs }),
        store,
        key,
        adminKey: env.LEASE_GATE_ADMIN_KEY || undefined,
        host,
        port,
        onEvents: log,
        log: (line) => io.err(line),
    });
    const stopped = new Promise((resolve) => {
        process.once('SIGINT', resolve).once('SIGTERM', resolve);
        // A dry run's kernel goes when the job that started it goes.
        const parent = Number(values['exit-with-pid']);
        if (parent > 0)
            setInterval(() => (0,processes/* isAlive */._)(parent) || resolve(), 2_000).unref();
    });
    io.out(`lease-gate kernel listening on ${running.url}`);
    if (running.warning)
        io.err(`warning: ${running.warning}`);
    if (postgres && !values.quiet)
        io.out(`store: PostgreSQL ${(0,settings/* redactUrl */.BO)(postgres.url)}, schema ${postgres.schema}`);
    if (!values['signing-key'] && !values.quiet) {
        io.out(`ledger ${ledger.origin} signs with a key made for this run; its public key:\n${String(ledger.publicKey?.export({ type: 'spki', format: 'pem' })).trim()}`);
    }
    await stopped;
    await running.close();
    return cli_options/* EXIT */.dc.done;
}
/** A key file, or one made for this run (its checkpoints then mean something only while it runs). */
function readSigningKey(file) {
    if (!file)
        return (0,external_node_crypto_.generateKeyPairSync)('ed25519').privateKey;
    let key;
    try {
        key = (0,external_node_crypto_.createPrivateKey)((0,external_node_fs_.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        throw new cli_options/* UsageError */.eb(`Cannot read the signing key ${file}: ${error.message}`);
    }
    if (key.asymmetricKeyType !== 'ed25519')
        throw new cli_options/* UsageError */.eb(`The signing key ${file} is not an Ed25519 key.`);
    return key;
}


/***/ }),

/***/ 5810:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   _: () => (/* binding */ isAlive)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
function isAlive(pid) {
    try {
        process.kill(pid, 0);
    }
    catch (error) {
        return error.code === 'EPERM';
    }
    try {
        return !/^\d+ \(.*\) Z/.test((0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(`/proc/${pid}/stat`, 'utf8'));
    }
    catch {
        return true;
    }
}


/***/ }),

/***/ 4566:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   b: () => (/* binding */ overviewOf)
/* harmony export */ });
/** Every resource with a live lease, a reservation or waiters, as seen at `now`. */
function overviewOf(states, now) {
    const resources = [];
    for (const s of states) {
        const lease = s.lease && s.lease.expiresAtMs > now ? s.lease : null;
        const queue = s.queue
            .filter((w) => w.keepUntil >= now)
            .map((w, position) => ({ actorDid: w.actorDid, position }));
        const head = queue[0];
        const reserved = !lease && head && s.reservedUntilMs > now
            ? { holder: head.actorDid, untilMs: s.reservedUntilMs }
            : null;
        if (!lease && !reserved && queue.length === 0)
            continue;
        resources.push({
            resource: s.resource,
            lease: lease && {
                id: lease.id,
                holder: lease.holder,
                expiresAtMs: lease.expiresAtMs,
                fence: lease.fence,
                grantedAtMs: lease.grantedAtMs,
            },
            reserved,
            queue,
        });
    }
    resources.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    return { nowMs: now, resources };
}


/***/ }),

/***/ 3808:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   B4: () => (/* binding */ SCHEMA_FORM),
/* harmony export */   BO: () => (/* binding */ redactUrl),
/* harmony export */   Lf: () => (/* binding */ DEFAULT_STATEMENT_TIMEOUT_MS),
/* harmony export */   f_: () => (/* binding */ SCHEMA_PATTERN),
/* harmony export */   od: () => (/* binding */ DEFAULT_CONNECT_TIMEOUT_MS),
/* harmony export */   pP: () => (/* binding */ schemaOf),
/* harmony export */   xl: () => (/* binding */ DEFAULT_POOL_SIZE)
/* harmony export */ });
/* harmony import */ var _store_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7636);

/** A schema name we put in search_path and in a NOTIFY channel: plain, short, unquoted. */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;
const SCHEMA_FORM = 'a lower-case SQL name of at most 40 letters, digits and _';
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
function schemaOf(options) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_PATTERN.test(schema))
        throw new _store_js__WEBPACK_IMPORTED_MODULE_0__/* .StoreError */ .AD(`schema: expected ${SCHEMA_FORM}`);
    return schema;
}
/** Hides the password of a connection string that is shown to a person. */
function redactUrl(url) {
    try {
        const parsed = new URL(url);
        if (parsed.password)
            parsed.password = '***';
        return parsed.toString();
    }
    catch {
        return 'the PostgreSQL URL';
    }
}


/***/ }),

/***/ 1514:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Gg: () => (/* binding */ nextDeadline),
/* harmony export */   KT: () => (/* binding */ DEFAULT_TTL_MS),
/* harmony export */   LD: () => (/* binding */ decide),
/* harmony export */   M$: () => (/* binding */ afterRestart),
/* harmony export */   eZ: () => (/* binding */ replay),
/* harmony export */   i2: () => (/* binding */ NEXT_IN_LINE_WAIT_MS),
/* harmony export */   p$: () => (/* binding */ emptyState),
/* harmony export */   xB: () => (/* binding */ isIdle)
/* harmony export */ });
/* unused harmony exports WAITER_GRACE_MS, MAX_RESERVATION_MS */
/**
 * The plane's rules for one resource, with no I/O: `decide` takes the
 * resource's state, a command and a context (the time, the TTL, the next fence,
 * randomness) and returns the next state, the reply and the events to record.
 * Every store (memory, file, PostgreSQL) keeps states its own way and calls
 * this one function, so the rules live in one place.
 */
const DEFAULT_TTL_MS = 30_000;
/** The agent next in line polls this often, so a handover costs one short sleep. */
const NEXT_IN_LINE_WAIT_MS = 500;
/** A waiter is dropped when it has not asked again this long after its told wait. */
const WAITER_GRACE_MS = 2_000;
/** A freed resource is kept for the next in line at most this long, whatever others were told. */
const MAX_RESERVATION_MS = 2_500;
const emptyState = (resource) => ({
    resource,
    lease: null,
    queue: [],
    reservedUntilMs: 0,
    typicalHoldMs: null,
    revoked: [],
});
/** Nothing worth keeping: the store may forget this resource. */
const isIdle = (s) => s.lease === null && s.queue.length === 0 && s.revoked.length === 0 && s.typicalHoldMs === null;
function decide(state, command, ctx) {
    const events = [];
    const s = settle(state, ctx.now, events);
    switch (command.kind) {
        case 'lease':
            return { state: s, reply: lease(s, command.actorDid, ctx, events), events };
        case 'release':
            return { state: s, reply: release(s, command.actorDid, ctx.now, events), events };
        case 'revoke': {
            const ended = s.lease;
            if (ended) {
                end(s, 'revoke', ctx.now, events, command.reason);
                // The revoked agent is refused at least a lease lifetime; others may take it at once.
                s.reservedUntilMs = 0;
                s.revoked.push({
                    actorDid: ended.holder,
                    message: command.reason,
                    untilMs: ctx.now + ctx.ttlMs,
                });
                s.queue = s.queue.filter((w) => w.actorDid !== ended.holder);
            }
            return { state: s, reply: { revoked: ended !== null, lease: ended }, events };
        }
        case 'status':
            return { state: s, reply: { lease: s.lease }, events };
        case 'expire':
            return { state: s, reply: null, events };
        case 'leave':
            // Its place, and a reservation kept for it, pass to the next in line (settle drops an empty one).
            s.queue = s.queue.filter((w) => w.actorDid !== command.actorDid);
            if (s.queue.length === 0)
                s.reservedUntilMs = 0;
            return { state: s, reply: null, events };
    }
}
/** The earliest time at which `expire` would change this state, for the alarm. */
function nextDeadline(s) {
    let next = s.lease?.expiresAtMs;
    const consider = (at) => {
        if (next === undefined || at < next)
            next = at;
    };
    for (const w of s.queue)
        consider(w.keepUntil + 1);
    for (const m of s.revoked)
        consider(m.untilMs + 1);
    if (s.reservedUntilMs > 0)
        consider(s.reservedUntilMs);
    return next;
}
/** A copy with lapses, departed waiters, and old marks and reservations applied. */
function settle(state, now, events) {
    const s = {
        ...state,
        queue: state.queue.filter((w) => w.keepUntil >= now),
        revoked: state.revoked.filter((m) => m.untilMs > now),
    };
    if (s.lease && s.lease.expiresAtMs <= now)
        end(s, 'lapse', now, events);
    if (s.reservedUntilMs > 0 && (s.reservedUntilMs <= now || s.queue.length === 0)) {
        s.reservedUntilMs = 0;
    }
    return s;
}
function lease(s, actorDid, ctx, events) {
    const { now } = ctx;
    const mark = s.revoked.find((m) => m.actorDid === actorDid);
    if (mark) {
        // Asking again keeps the refusal alive: a lease lifetime after the last ask.
        const untilMs = Math.max(mark.untilMs, now + ctx.ttlMs);
        s.revoked = s.revoked.map((m) => (m === mark ? { ...mark, untilMs } : m));
        return {
            ok: false,
            reason: 'revoked',
            holder: s.lease?.holder ?? actorDid,
            message: mark.message,
        };
    }
    const current = s.lease;
    if (current?.holder === actorDid) {
        s.lease = { ...current, expiresAtMs: now + ctx.ttlMs };
        record(events, 'renew', s.lease, now);
        return { ok: true, lease: s.lease, renewed: true };
    }
    const reservedFor = s.reservedUntilMs > now ? s.queue[0]?.actorDid : undefined;
    if (!current && (reservedFor === undefined || reservedFor === actorDid)) {
        s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
        s.reservedUntilMs = 0;
        const fence = ctx.nextFence();
        s.lease = {
            id: `lease_${fence.toString(36)}_${randomHex(ctx.random, 8)}`,
            resource: s.resource,
            holder: actorDid,
            expiresAtMs: now + ctx.ttlMs,
            fence,
            grantedAtMs: now,
        };
        record(events, 'grant', s.lease, now);
        return { ok: true, lease: s.lease, renewed: false };
    }
    let position = s.queue.findIndex((w) => w.actorDid === actorDid);
    if (position < 0) {
        s.queue = [...s.queue, { actorDid, keepUntil: 0 }];
        position = s.queue.length - 1;
    }
    const bound = current ? current.expiresAtMs - now : s.reservedUntilMs - now;
    const waitMs = waitFor(s, position, bound, ctx);
    s.queue = s.queue.map((w, i) => i === position ? { actorDid, keepUntil: now + waitMs + WAITER_GRACE_MS } : w);
    if (current) {
        return {
            ok: false,
            reason: 'lease_held',
            holder: current.holder,
            stampede: { waitMs },
            position,
        };
    }
    return {
        ok: false,
        reason: 'lease_held',
        holder: reservedFor,
        reserved: true,
        stampede: { waitMs },
        position,
    };
}
function release(s, actorDid, now, events) {
    s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
    const current = s.lease;
    if (current?.holder !== actorDid)
        return { ok: true, released: false, releasedIds: [] };
    end(s, 'release', now, events);
    return { ok: true, released: true, releasedIds: [current.id] };
}
/** Ends the lease; a freed resource is kept for the next in line for a short grace only. */
function end(s, kind, now, events, reason) {
    const lease = s.lease;
    s.lease = null;
    // A lapse happened when the lease ran out, however late it is noticed.
    const at = kind === 'lapse' ? Math.min(now, lease.expiresAtMs) : now;
    s.typicalHoldMs = typical(s.typicalHoldMs, at - lease.grantedAtMs);
    s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
    record(events, kind, lease, now, reason);
}
const typical = (before, held) => before === null ? held : 0.7 * before + 0.3 * held;
function record(events, kind, lease, atMs, reason) {
    const event = {
        kind,
        atMs,
        resource: lease.resource,
        actorDid: lease.holder,
        leaseId: lease.id,
        fence: lease.fence,
    };
    if (kind === 'grant' || kind === 'renew')
        event.expiresAtMs = lease.expiresAtMs;
    if (reason !== undefined)
        event.reason = reason;
    events.push(event);
}
/**
 * The next in line polls briefly, so a handover costs at most one short
 * sleep. Those further back cannot be served before the holds ahead of them
 * end: they wait about half the typical time of those holds (never less than
 * the next in line, jittered so they do not stampede), never past the lease's
 * end (or the reservation's).
 */
function waitFor(s, position, boundMs, ctx) {
    const next = ctx.nextInLineWaitMs;
    let wait = next;
    if (position > 0) {
        const ahead = position * (s.typicalHoldMs ?? 0);
        wait = Math.max(next, ahead / 2) * (1 + 0.2 * ctx.random());
    }
    return Math.max(1, Math.round(Math.min(wait, boundMs)));
}
function randomHex(random, length) {
    let hex = '';
    while (hex.length < length)
        hex += Math.floor(random() * 16).toString(16);
    return hex;
}
/**
 * Rebuilds a resource's durable part from one recorded event (a restart's
 * replay). Queues are not durable: waiters ask again.
 */
function replay(state, e, ttlMs) {
    const s = { ...state, queue: [], reservedUntilMs: 0 };
    if (e.kind === 'grant') {
        // A grant to a revoked agent can only follow its refusal's end.
        if (s.revoked.length > 0)
            s.revoked = s.revoked.filter((m) => m.actorDid !== e.actorDid);
        s.lease = {
            id: e.leaseId,
            resource: e.resource,
            holder: e.actorDid,
            expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs,
            fence: e.fence,
            grantedAtMs: e.atMs,
        };
    }
    else if (e.kind === 'renew') {
        if (s.lease)
            s.lease = { ...s.lease, expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs };
    }
    else {
        const held = s.lease ? e.atMs - s.lease.grantedAtMs : null;
        if (held !== null)
            s.typicalHoldMs = typical(s.typicalHoldMs, held);
        s.lease = null;
        if (e.kind === 'revoke') {
            s.revoked = [
                ...s.revoked.filter((m) => m.actorDid !== e.actorDid),
                { actorDid: e.actorDid, message: e.reason ?? '', untilMs: e.atMs + ttlMs },
            ];
        }
    }
    return s;
}
/**
 * After a restart, a revoke the log has not seen end refuses its agent one lease lifetime
 * from now: the asks that kept the refusal alive before the crash are not logged, and a
 * refusal a little too long is safer than a revoke undone.
 */
function afterRestart(state, now, ttlMs) {
    if (state.revoked.length === 0)
        return state;
    const untilMs = now + ttlMs;
    return {
        ...state,
        revoked: state.revoked.map((m) => ({ ...m, untilMs: Math.max(m.untilMs, untilMs) })),
    };
}


/***/ }),

/***/ 4396:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  h3: () => (/* binding */ KernelService),
  o2: () => (/* binding */ StoreUnavailableError)
});

// UNUSED EXPORTS: toEvent

;// CONCATENATED MODULE: ./src/kernel/alarms.ts
/** A binary min-heap of (time, resource): the next lapse without a scan of every lease. */
class AlarmHeap {
    items = [];
    get size() {
        return this.items.length;
    }
    peek() {
        return this.items[0]?.at;
    }
    push(at, resource) {
        const items = this.items;
        items.push({ at, resource });
        let i = items.length - 1;
        while (i > 0) {
            const parent = (i - 1) >> 1;
            if (items[parent].at <= at)
                break;
            [items[parent], items[i]] = [items[i], items[parent]];
            i = parent;
        }
    }
    /** Removes and returns the earliest alarm due by `now`. */
    popDue(now) {
        const items = this.items;
        const top = items[0];
        if (!top || top.at > now)
            return undefined;
        const last = items.pop();
        if (items.length) {
            items[0] = last;
            let i = 0;
            for (;;) {
                const l = 2 * i + 1;
                const r = l + 1;
                let m = i;
                if (l < items.length && items[l].at < items[m].at)
                    m = l;
                if (r < items.length && items[r].at < items[m].at)
                    m = r;
                if (m === i)
                    break;
                [items[m], items[i]] = [items[i], items[m]];
                i = m;
            }
        }
        return top;
    }
}

// EXTERNAL MODULE: ./src/kernel/overview.ts
var overview = __webpack_require__(4566);
// EXTERNAL MODULE: ./src/kernel/rules.ts
var rules = __webpack_require__(1514);
// EXTERNAL MODULE: ./src/kernel/store.ts
var store = __webpack_require__(7636);
;// CONCATENATED MODULE: ./src/kernel/service.ts




/** A change could not be made durable; nothing changed. Answered 503 store_unavailable. */
class StoreUnavailableError extends Error {
    name = 'StoreUnavailableError';
}
const ALARM_RETRY_MS = 1_000;
const noop = () => undefined;
const FREEING = new Set(['release', 'lapse', 'revoke']);
/**
 * Owns the rules, the store, the ledger and the lapse alarms. Every call
 * resolves only after its change is durable: changes decided in the same
 * event-loop turn share one write and one sync (group commit). Commands on one
 * resource run one at a time against its durable state; a failed write keeps
 * memory as it was and rejects with StoreUnavailableError.
 */
class KernelService {
    options;
    table;
    ledger;
    now;
    store;
    inflight = new Map();
    listeners = new Set();
    changedListeners = new Set();
    alarms = new AlarmHeap();
    scheduled = new Map();
    timer;
    timerAt = Infinity;
    pending;
    writing;
    closed = false;
    constructor(options) {
        this.options = options;
        this.table = options.table;
        this.ledger = options.ledger;
        this.store = options.store;
        this.now = options.now;
    }
    /** Replays the store's log into the ledger and the table, then arms the alarms. */
    static async open(options) {
        const service = new KernelService(options);
        const recovered = await options.store.open();
        const { table, ledger } = options;
        recovered.lines.forEach((line, i) => {
            const entry = ledger.load(line, `${options.store.describe} line ${i + 1}`);
            const event = toEvent(entry);
            table.put((0,rules/* replay */.eZ)(table.get(entry.resource), event, table.ttlMs));
            if (entry.kind === 'grant')
                table.fence = Math.max(table.fence, entry.fence);
        });
        table.fence = Math.max(table.fence, recovered.fenceFloor);
        const now = options.now();
        for (const state of [...table.values()])
            table.put((0,rules/* afterRestart */.M$)(state, now, table.ttlMs));
        for (const state of table.values())
            service.schedule(state);
        service.arm();
        options.store.watch?.((resource) => service.resourceChanged(resource));
        return { service, ...(recovered.warning ? { warning: recovered.warning } : {}) };
    }
    lease(resource, actorDid) {
        return this.run(resource, { kind: 'lease', actorDid });
    }
    release(resource, actorDid) {
        return this.run(resource, { kind: 'release', actorDid });
    }
    revoke(resource, reason) {
        return this.run(resource, { kind: 'revoke', reason });
    }
    async status(resource) {
        const reply = (await this.run(resource, { kind: 'status' }));
        return reply.lease;
    }
    /** Every resource with a live lease, a reservation or waiters. */
    overview() {
        return (0,overview/* overviewOf */.b)(this.table.values(), this.now());
    }
    /** Told after each durable change (a grant, renewal, release, lapse or revoke). */
    onChange(listener) {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }
    /** Takes a waiter out of the queue at once (nothing durable changes). */
    async leave(resource, actorDid) {
        await this.run(resource, { kind: 'leave', actorDid });
        this.resourceChanged(resource);
    }
    /**
     * Told when a resource may have become free: a release, lapse or revoke made
     * durable here, a waiter that left, or a change a shared store reports from
     * another replica (`KernelStore.watch`). Held requests wake on it.
     */
    onResourceChanged(listener) {
        this.changedListeners.add(listener);
        return () => this.changedListeners.delete(listener);
    }
    /** Raises the "resource changed" signal; any store or notifier may call it. */
    resourceChanged(resource) {
        for (const listener of this.changedListeners)
            listener(resource);
    }
    /** Throws a StoreError when the store cannot take a write now. */
    async ready() {
        await this.store.probe();
    }
    async close() {
        this.closed = true;
        if (this.timer)
            clearTimeout(this.timer);
        while (this.writing)
            await this.writing;
        await this.store.close();
    }
    async run(resource, command) {
        for (let busy = this.inflight.get(resource); busy; busy = this.inflight.get(resource)) {
            await busy;
        }
        const decision = this.table.decide(resource, command, this.now());
        if (decision.events.length === 0) {
            this.keep(decision.state);
            return decision.reply;
        }
        const batch = this.enqueue({ state: decision.state, events: decision.events });
        this.inflight.set(resource, batch.settled);
        await batch.promise;
        return decision.reply;
    }
    /** Once a batch is durable: keeps its decisions and tells the listeners, in order. */
    applied(batch) {
        for (const { state, events } of batch.decided) {
            const { resource } = state;
            if (this.inflight.get(resource) === batch.settled)
                this.inflight.delete(resource);
            this.keep(state);
            for (const event of events) {
                for (const listener of this.listeners)
                    listener(resource, event);
            }
            if (events.some((e) => FREEING.has(e.kind)))
                this.resourceChanged(resource);
        }
    }
    /** A batch that could not be written: memory stays as it was; waiting commands go on. */
    dropped(batch) {
        for (const { state } of batch.decided) {
            if (this.inflight.get(state.resource) === batch.settled)
                this.inflight.delete(state.resource);
        }
    }
    keep(state) {
        this.table.put(state);
        this.schedule(state);
        this.arm();
    }
    /** Joins this turn's batch, whose promise resolves once it is written and synced. */
    enqueue(decided) {
        if (this.closed)
            throw new StoreUnavailableError('the kernel is stopping');
        let batch = this.pending;
        if (!batch) {
            let resolve;
            let reject;
            const promise = new Promise((res, rej) => {
                resolve = res;
                reject = rej;
            });
            const settled = promise.then(noop, noop);
            batch = this.pending = { events: [], decided: [], promise, settled, resolve, reject };
            if (!this.writing)
                setImmediate(() => void this.flush());
        }
        batch.events.push(...decided.events);
        batch.decided.push(decided);
        return batch;
    }
    async flush() {
        const batch = this.pending;
        if (!batch || this.writing)
            return;
        this.pending = undefined;
        const write = (async () => {
            const prepared = this.ledger.prepare(batch.events);
            try {
                await this.store.append(prepared.text, prepared.entries);
            }
            catch (error) {
                const message = error instanceof store/* StoreError */.AD ? error.message : String(error);
                this.dropped(batch);
                batch.reject(new StoreUnavailableError(`the kernel's store cannot write: ${message}`));
                return;
            }
            this.ledger.accept(prepared.entries, prepared.lines);
            this.options.onEvents?.(batch.events);
            this.applied(batch);
            batch.resolve();
        })();
        this.writing = write;
        await write;
        this.writing = undefined;
        if (this.pending)
            void this.flush();
    }
    /** Keeps one alarm per resource at its earliest deadline (a renewal needs none). */
    schedule(state) {
        const at = (0,rules/* nextDeadline */.Gg)(state);
        if (at === undefined)
            return;
        const current = this.scheduled.get(state.resource);
        if (current !== undefined && current <= at)
            return;
        this.scheduled.set(state.resource, at);
        this.alarms.push(at, state.resource);
    }
    arm() {
        const next = this.alarms.peek();
        if (next === undefined || next >= this.timerAt || this.closed)
            return;
        if (this.timer)
            clearTimeout(this.timer);
        this.timerAt = next;
        this.timer = setTimeout(() => this.ring(), Math.max(0, next - this.now()) + 1);
        this.timer.unref();
    }
    ring() {
        this.timer = undefined;
        this.timerAt = Infinity;
        const now = this.now();
        for (let due = this.alarms.popDue(now); due; due = this.alarms.popDue(now)) {
            const { at, resource } = due;
            if (this.scheduled.get(resource) !== at)
                continue;
            this.scheduled.delete(resource);
            this.run(resource, { kind: 'expire' }).catch((error) => {
                this.options.log?.(`kernel: could not record a lapse on ${resource}: ${error.message}`);
                this.scheduled.set(resource, now + ALARM_RETRY_MS);
                this.alarms.push(now + ALARM_RETRY_MS, resource);
                this.arm();
            });
        }
        this.arm();
    }
}
function toEvent(entry) {
    const { kind, tsMs, resource, actorDid, leaseId, fence, expiresAtMs, reason } = entry;
    const event = { kind, atMs: tsMs, resource, actorDid, leaseId, fence };
    if (expiresAtMs !== undefined)
        event.expiresAtMs = expiresAtMs;
    if (reason !== undefined)
        event.reason = reason;
    return event;
}


/***/ }),

/***/ 7636:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   AD: () => (/* reexport safe */ _store_error_js__WEBPACK_IMPORTED_MODULE_2__.A),
/* harmony export */   LK: () => (/* binding */ memoryStore),
/* harmony export */   oX: () => (/* binding */ fileStore)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(0);
/* harmony import */ var _store_error_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(959);





/** Nothing outlives the process; appends always succeed. */
function memoryStore() {
    return {
        describe: 'memory',
        open: async () => ({ lines: [], fenceFloor: 0 }),
        append: async () => undefined,
        probe: async () => undefined,
        close: async () => undefined,
    };
}
const legacyStateSchema = zod__WEBPACK_IMPORTED_MODULE_3__/* .object */ .Ikc({
    version: zod__WEBPACK_IMPORTED_MODULE_3__/* .literal */ .euz(1),
    fence: zod__WEBPACK_IMPORTED_MODULE_3__/* .number */ .aig().int().nonnegative(),
});
/**
 * A file of canonical JSON lines, appended and fdatasync'ed per batch. A failed
 * write is cut back to the last durable byte before the error is reported, and
 * retried on the next batch, so the file never holds half a batch that memory
 * does not. `legacyState` is an older release's state file, read only for its fence.
 */
function fileStore(path, legacyState) {
    let handle;
    let durableBytes = 0;
    let dirty = false;
    const repair = async () => {
        if (!dirty || !handle)
            return;
        try {
            await handle.truncate(durableBytes);
            await handle.datasync();
            dirty = false;
        }
        catch (error) {
            throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`cannot repair ${path}: ${error.message}`);
        }
    };
    return {
        describe: path,
        async open() {
            const logExists = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.existsSync)(path);
            const fenceFloor = legacyState ? readLegacyFence(legacyState, logExists, path) : 0;
            let text = '';
            if (logExists) {
                try {
                    text = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(path, 'utf8');
                }
                catch (error) {
                    throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`Cannot read the kernel's log ${path}: ${error.message}`);
                }
            }
            const lines = text.split('\n');
            const tail = lines.pop() ?? '';
            durableBytes = Buffer.byteLength(text) - Buffer.byteLength(tail);
            let warning;
            if (tail) {
                const fd = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync)(path, 'r+');
                (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.ftruncateSync)(fd, durableBytes);
                (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.closeSync)(fd);
                warning = `${path}: the last record was torn (${Buffer.byteLength(tail)} bytes without an end); it was cut off and the ${lines.length} records before it kept`;
            }
            try {
                handle = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.open)(path, 'a', 0o600);
            }
            catch (error) {
                throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`Cannot open the kernel's log ${path}: ${error.message}`);
            }
            return { lines, fenceFloor, ...(warning ? { warning } : {}) };
        },
        async append(text) {
            if (!handle)
                throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`${path} is not open`);
            await repair();
            const bytes = Buffer.from(text, 'utf8');
            try {
                dirty = true;
                await handle.write(bytes, 0, bytes.length, null);
                await handle.datasync();
                durableBytes += bytes.length;
                dirty = false;
            }
            catch (error) {
                await repair().catch(() => undefined);
                throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`cannot write ${path}: ${error.message}`);
            }
        },
        async probe() {
            if (!handle)
                throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`${path} is not open`);
            await repair();
            try {
                await handle.datasync();
            }
            catch (error) {
                throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`cannot sync ${path}: ${error.message}`);
            }
        },
        async close() {
            await handle?.close();
            handle = undefined;
        },
    };
}
/** An older release's state file: its fence is a floor; without the log beside it, refuse. */
function readLegacyFence(file, logExists, logPath) {
    let text;
    try {
        text = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(file, 'utf8');
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return 0;
        throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`Cannot read the state file ${file}: ${error.message}`);
    }
    let parsed;
    try {
        parsed = JSON.parse(text);
    }
    catch {
        throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`The state file ${file} is not valid JSON; refusing to start rather than forget its fences. Move it away to start afresh.`);
    }
    const result = legacyStateSchema.safeParse(parsed);
    if (!result.success) {
        throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`The state file ${file} is not a lease-gate kernel state; refusing to start rather than forget its fences.`);
    }
    if (!logExists) {
        throw new _store_error_js__WEBPACK_IMPORTED_MODULE_2__/* .StoreError */ .A(`The state file ${file} exists but the kernel's log ${logPath} is missing: the log is the kernel's only record. Put the log back, or move both away to start a new plane (its fences start at 1 again).`);
    }
    return result.data.fence;
}


/***/ }),

/***/ 4491:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Ag: () => (/* binding */ originFor),
/* harmony export */   Ch: () => (/* binding */ signCheckpoint),
/* harmony export */   jg: () => (/* binding */ CheckpointError),
/* harmony export */   om: () => (/* binding */ verifyCheckpoint)
/* harmony export */ });
/* unused harmony exports rawPublicKey, keyId, checkpointBody */
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);

class CheckpointError extends Error {
    name = 'CheckpointError';
}
const ED25519 = 0x01;
const SIGNATURE_PREFIX = '— ';
/** The 32 raw bytes of an Ed25519 public key. */
function rawPublicKey(key) {
    const publicKey = key.type === 'public' ? key : (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createPublicKey)(key);
    const der = publicKey.export({ format: 'der', type: 'spki' });
    return new Uint8Array(der.subarray(der.length - 32));
}
/** The log's origin (and key name), bound to its key so that a verifier can expect it. */
function originFor(key) {
    const digest = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256').update(rawPublicKey(key)).digest('hex');
    return `lease-gate.kernel/${digest.slice(0, 16)}`;
}
function keyId(name, publicKey) {
    const digest = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256')
        .update(name, 'utf8')
        .update(Uint8Array.of(0x0a, ED25519))
        .update(rawPublicKey(publicKey))
        .digest();
    return new Uint8Array(digest.subarray(0, 4));
}
function checkpointBody({ origin, size, root }) {
    return `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`;
}
function signCheckpoint(checkpoint, privateKey) {
    const publicKey = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createPublicKey)(privateKey);
    const name = checkpoint.origin;
    const body = checkpointBody(checkpoint);
    const signature = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.sign)(null, Buffer.from(body, 'utf8'), privateKey);
    const blob = Buffer.concat([keyId(name, publicKey), signature]).toString('base64');
    return `${body}\n${SIGNATURE_PREFIX}${name} ${blob}\n`;
}
/** Parses a signed checkpoint and checks its signature by `publicKey`; throws with the reason. */
function verifyCheckpoint(text, publicKey) {
    const split = text.indexOf('\n\n');
    if (split < 0)
        throw new CheckpointError('checkpoint: no blank line between the note and its signatures');
    const body = text.slice(0, split + 1);
    const lines = body.split('\n');
    const [origin = '', sizeText = '', rootText = ''] = lines;
    if (!origin)
        throw new CheckpointError('checkpoint: empty origin line');
    if (!/^(0|[1-9]\d*)$/.test(sizeText))
        throw new CheckpointError(`checkpoint: tree size '${sizeText}' is not a decimal number`);
    const root = new Uint8Array(Buffer.from(rootText, 'base64'));
    if (root.length !== 32 || Buffer.from(root).toString('base64') !== rootText) {
        throw new CheckpointError('checkpoint: the root is not a base64 SHA-256 hash');
    }
    const expectedOrigin = originFor(publicKey);
    if (origin !== expectedOrigin) {
        throw new CheckpointError(`checkpoint: origin '${origin}' is not this key's log ('${expectedOrigin}')`);
    }
    const id = Buffer.from(keyId(origin, publicKey));
    const signatures = text
        .slice(split + 2)
        .split('\n')
        .filter(Boolean);
    for (const line of signatures) {
        if (!line.startsWith(SIGNATURE_PREFIX))
            throw new CheckpointError(`checkpoint: malformed signature line '${line}'`);
        const [name, blob = ''] = line.slice(SIGNATURE_PREFIX.length).split(' ');
        const bytes = Buffer.from(blob, 'base64');
        if (name !== origin || bytes.length !== 4 + 64 || !bytes.subarray(0, 4).equals(id))
            continue;
        if ((0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.verify)(null, Buffer.from(body, 'utf8'), publicKey, bytes.subarray(4))) {
            return { origin, size: Number(sizeText), root };
        }
        throw new CheckpointError('checkpoint: the signature does not verify with this public key');
    }
    throw new CheckpointError('checkpoint: no signature by this public key');
}


/***/ }),

/***/ 5641:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Bm: () => (/* binding */ entryJson),
/* harmony export */   Ms: () => (/* binding */ entryOf),
/* harmony export */   Oo: () => (/* binding */ entrySchema),
/* harmony export */   dj: () => (/* binding */ canonicalJson),
/* harmony export */   eS: () => (/* binding */ leafBytes)
/* harmony export */ });
/* unused harmony export ENTRY_KINDS */
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(0);

const ENTRY_KINDS = ['grant', 'renew', 'release', 'lapse', 'revoke'];
/** One ledger entry; its canonical JSON is the Merkle leaf. */
const entrySchema = zod__WEBPACK_IMPORTED_MODULE_0__/* .object */ .Ikc({
    seq: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().nonnegative(),
    tsMs: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().nonnegative(),
    kind: zod__WEBPACK_IMPORTED_MODULE_0__/* ["enum"] */ .k5n(ENTRY_KINDS),
    resource: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP(),
    actorDid: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP(),
    leaseId: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP(),
    fence: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int(),
    /** The end the holder was told (grants and renewals), so a replay never shortens a lease. */
    expiresAtMs: zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig().int().optional(),
    reason: zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP().optional(),
})
    .strict();
/** JSON with sorted keys and no whitespace, so the same entry always hashes the same. */
function canonicalJson(value) {
    if (Array.isArray(value))
        return `[${value.map(canonicalJson).join(',')}]`;
    if (value && typeof value === 'object') {
        const entries = Object.entries(value)
            .filter(([, v]) => v !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    return JSON.stringify(value);
}
/**
 * The entry for an event, field by field. Not `{ ...rest, seq, tsMs }` after
 * `{ atMs, ...rest }`: V8 gave every object built that way a hidden class of
 * its own, in the old generation, and the kernel's entries then outlived the
 * young collections (three times the bytes promoted under load).
 */
function entryOf(event, seq, tsMs) {
    const { kind, resource, actorDid, leaseId, fence, expiresAtMs, reason } = event;
    const entry = { kind, resource, actorDid, leaseId, fence, seq, tsMs };
    if (expiresAtMs !== undefined)
        entry.expiresAtMs = expiresAtMs;
    if (reason !== undefined)
        entry.reason = reason;
    return entry;
}
/**
 * The canonical JSON of an entry the kernel built itself, written with its keys
 * already in sorted order (no sort, no schema check on the hot path). Equal to
 * `canonicalJson(entry)`; a test holds the two together.
 */
function entryJson(e) {
    const s = JSON.stringify;
    let text = `{"actorDid":${s(e.actorDid)}`;
    if (e.expiresAtMs !== undefined)
        text += `,"expiresAtMs":${e.expiresAtMs}`;
    text += `,"fence":${e.fence},"kind":"${e.kind}","leaseId":${s(e.leaseId)}`;
    if (e.reason !== undefined)
        text += `,"reason":${s(e.reason)}`;
    return `${text},"resource":${s(e.resource)},"seq":${e.seq},"tsMs":${e.tsMs}}`;
}
const leafBytes = (entry) => new Uint8Array(Buffer.from(entryJson(entry), 'utf8'));


/***/ }),

/***/ 9527:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Jq: () => (/* binding */ leafHash),
/* harmony export */   Ko: () => (/* binding */ verifyConsistency),
/* harmony export */   l$: () => (/* binding */ equalHashes),
/* harmony export */   vU: () => (/* binding */ MerkleTree),
/* harmony export */   yR: () => (/* binding */ verifyInclusion)
/* harmony export */ });
/* unused harmony exports sha256, nodeHash, EMPTY_ROOT */
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);


const HASH_BYTES = 32;
const sha256 = (...parts) => {
    const h = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256');
    for (const part of parts)
        h.update(part);
    return new Uint8Array(h.digest());
};
const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);
/**
 * One-shot SHA-256 (Node ≥ 20.12): no Hash object per digest. Those objects
 * hold native handles that survive the young generation's collections, which
 * made the collector the largest cost of an append. Older Nodes use createHash.
 */
const oneShot = node_crypto__WEBPACK_IMPORTED_MODULE_0__.hash;
let scratch = Buffer.allocUnsafeSlow(1024);
/** SHA-256 of one prefix byte and the parts; the digest is a fresh buffer. */
function prefixedDigest(prefix, a, b) {
    if (!oneShot) {
        const h = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256').update(prefix).update(a);
        return (b ? h.update(b) : h).digest();
    }
    const size = 1 + a.length + (b?.length ?? 0);
    if (size > scratch.length)
        scratch = Buffer.allocUnsafeSlow(size * 2);
    scratch[0] = prefix[0];
    scratch.set(a, 1);
    if (b)
        scratch.set(b, 1 + a.length);
    return oneShot('sha256', scratch.subarray(0, size), 'buffer');
}
const leafHash = (data) => sha256(LEAF_PREFIX, data);
const nodeHash = (left, right) => sha256(NODE_PREFIX, left, right);
const EMPTY_ROOT = sha256();
/** The largest power of two strictly below n (n ≥ 2). */
function splitPoint(n) {
    let k = 1;
    while (k * 2 < n)
        k *= 2;
    return k;
}
/** A growable array of 32-byte hashes in one buffer (millions of leaves stay compact). */
class HashList {
    buffer = new Uint8Array(HASH_BYTES * 1024);
    length = 0;
    push(hash) {
        if ((this.length + 1) * HASH_BYTES > this.buffer.length) {
            const bigger = new Uint8Array(this.buffer.length * 2);
            bigger.set(this.buffer);
            this.buffer = bigger;
        }
        this.buffer.set(hash, this.length * HASH_BYTES);
        this.length += 1;
    }
    at(index) {
        return this.buffer.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES);
    }
}
class MerkleTree {
    /** levels[k][i] is the hash of leaves [i·2^k, (i+1)·2^k). */
    levels = [new HashList()];
    get size() {
        return this.levels[0].length;
    }
    /** Appends a leaf's data; returns its index. */
    append(data) {
        // The list copies what it keeps, so the digests need no copy of their own.
        return this.appendHash(prefixedDigest(LEAF_PREFIX, data));
    }
    appendHash(hash) {
        const index = this.size;
        let node = hash;
        for (let level = 0, i = index;; level += 1, i >>= 1) {
            const list = (this.levels[level] ??= new HashList());
            list.push(node);
            if (i % 2 === 0)
                break;
            node = prefixedDigest(NODE_PREFIX, list.at(i - 1), node);
        }
        return index;
    }
    leafHashAt(index) {
        return this.levels[0].at(index);
    }
    /** The root of the first `size` leaves (the whole tree by default). */
    root(size = this.size) {
        this.checkSize(size);
        return size === 0 ? EMPTY_ROOT : this.range(0, size);
    }
    /** RFC 9162 §2.1.3.1 PATH(m, D[n]). */
    inclusionProof(index, size = this.size) {
        this.checkSize(size);
        if (!(index >= 0 && index < size))
            throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
        const proof = [];
        let lo = 0;
        let hi = size;
        let m = index;
        const stack = [];
        while (hi - lo > 1) {
            const k = splitPoint(hi - lo);
            if (m < k) {
                stack.push(this.range(lo + k, hi));
                hi = lo + k;
            }
            else {
                stack.push(this.range(lo, lo + k));
                lo += k;
                m -= k;
            }
        }
        while (stack.length)
            proof.push(stack.pop());
        return proof;
    }
    /**
     * Inclusion proofs of leaves [from, to) in the tree of `size`. The hashes of
     * incomplete subtrees are shared by neighbouring proofs, so they are
     * computed once for the whole run.
     */
    inclusionProofs(from, to, size = this.size) {
        const memo = new Map();
        const cached = (lo, hi) => {
            const n = hi - lo;
            if ((n & (n - 1)) === 0 && lo % n === 0)
                return this.range(lo, hi);
            const key = lo * 2 ** 26 + n;
            let hash = memo.get(key);
            if (!hash)
                memo.set(key, (hash = this.range(lo, hi)));
            return hash;
        };
        const proofs = [];
        for (let index = from; index < to; index += 1)
            proofs.push(this.pathOf(index, size, cached));
        return proofs;
    }
    pathOf(index, size, range) {
        this.checkSize(size);
        if (!(index >= 0 && index < size))
            throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
        const stack = [];
        let lo = 0;
        let hi = size;
        let m = index;
        while (hi - lo > 1) {
            const k = splitPoint(hi - lo);
            if (m < k) {
                stack.push(range(lo + k, hi));
                hi = lo + k;
            }
            else {
                stack.push(range(lo, lo + k));
                lo += k;
                m -= k;
            }
        }
        return stack.reverse();
    }
    /** RFC 9162 §2.1.4.1 PROOF(m, D[n]). */
    consistencyProof(first, second = this.size) {
        this.checkSize(second);
        if (!(first >= 0 && first <= second))
            throw new RangeError(`cannot prove ${first} → ${second}`);
        if (first === 0 || first === second)
            return [];
        const stack = [];
        let lo = 0;
        let hi = second;
        let m = first;
        let whole = true;
        for (;;) {
            const n = hi - lo;
            if (m === n) {
                if (!whole)
                    stack.push(this.range(lo, hi));
                break;
            }
            const k = splitPoint(n);
            if (m <= k) {
                stack.push(this.range(lo + k, hi));
                hi = lo + k;
            }
            else {
                stack.push(this.range(lo, lo + k));
                lo += k;
                m -= k;
                whole = false;
            }
        }
        return stack.reverse();
    }
    /** MTH(D[lo:hi]) from the stored complete subtrees. */
    range(lo, hi) {
        const n = hi - lo;
        if ((n & (n - 1)) === 0 && lo % n === 0)
            return this.levels[Math.log2(n)].at(lo / n);
        const k = splitPoint(n);
        return nodeHash(this.range(lo, lo + k), this.range(lo + k, hi));
    }
    checkSize(size) {
        if (!(Number.isInteger(size) && size >= 0 && size <= this.size)) {
            throw new RangeError(`tree size ${size} is not between 0 and ${this.size}`);
        }
    }
}
const equalHashes = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);
const half = (n) => Math.floor(n / 2);
/**
 * The proof walk that RFC 9162 §2.1.3.2 and §2.1.4.2 share: `left(p)` when the
 * proof hash sits to the left of the running hash, `right(p)` otherwise.
 * Returns the final `sn` (0 for a proof of the right length), or -1 when the
 * proof is too long.
 */
function walk(fn, sn, proof, left, right) {
    for (const p of proof) {
        if (sn === 0)
            return -1;
        if (fn % 2 === 1 || fn === sn) {
            left(p);
            while (fn % 2 === 0 && fn !== 0) {
                fn = half(fn);
                sn = half(sn);
            }
        }
        else {
            right(p);
        }
        fn = half(fn);
        sn = half(sn);
    }
    return sn;
}
/** RFC 9162 §2.1.3.2: does `proof` put `leaf` at `index` in the tree of `size` with `root`? */
function verifyInclusion(index, size, leaf, proof, root) {
    if (!(index >= 0 && index < size))
        return false;
    let r = leaf;
    const sn = walk(index, size - 1, proof, (p) => (r = nodeHash(p, r)), (p) => (r = nodeHash(r, p)));
    return sn === 0 && equalHashes(r, root);
}
/** RFC 9162 §2.1.4.2: is the tree of `second` with `secondRoot` an extension of `first`? */
function verifyConsistency(first, second, firstRoot, secondRoot, proof) {
    if (first > second || first < 0)
        return false;
    if (first === second)
        return proof.length === 0 && equalHashes(firstRoot, secondRoot);
    if (first === 0)
        return proof.length === 0;
    if (proof.length === 0)
        return false;
    const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : proof;
    let fn = first - 1;
    let sn = second - 1;
    while (fn % 2 === 1) {
        fn = half(fn);
        sn = half(sn);
    }
    let fr = path[0];
    let sr = path[0];
    const end = walk(fn, sn, path.slice(1), (c) => {
        fr = nodeHash(c, fr);
        sr = nodeHash(c, sr);
    }, (c) => (sr = nodeHash(sr, c)));
    return end === 0 && equalHashes(fr, firstRoot) && equalHashes(sr, secondRoot);
}


/***/ })

};

//# sourceMappingURL=846.index.js.map