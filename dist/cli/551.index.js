export const id = 551;
export const ids = [551];
export const modules = {

/***/ 6478:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  keygen: () => (/* binding */ keygen),
  ledger: () => (/* binding */ ledger_commands_ledger),
  verify: () => (/* binding */ verify)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: ./src/fs/durable.ts
var durable = __webpack_require__(9224);
// EXTERNAL MODULE: ./src/lease/settings.ts
var settings = __webpack_require__(4801);
// EXTERNAL MODULE: ./src/ledger/remote.ts
var remote = __webpack_require__(2555);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
;// CONCATENATED MODULE: ./src/ledger/bundle-reader.ts


/**
 * The bundle file's reader (verify-file.ts): a small reader for exactly the
 * bundle's shape, `{"checkpoint": "\u2026", "entries": [ {\u2026}, {\u2026}, \u2026 ]}` in any key
 * order and spacing, that hands each value to a Reading as it comes, a chunk of
 * the file in memory at a time.
 */
/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;
/** The longest entry, checkpoint or other value (an entry of a long ledger is about 1 KB). */
const MAX_VALUE_BYTES = 1 << 20;
/** The longest key: the bundle's keys are short words. */
const MAX_KEY_BYTES = 1_024;
/** A file the reader cannot stream is read whole as before, up to this size. */
const MAX_WHOLE_BYTES = 64 << 20;
/** Inside the reader: what it cannot stream (not JSON, not the bundle's shape, too long). */
class CannotStream extends errors/* LeaseGateError */.eg {
    name = 'CannotStream';
    constructor(message) {
        super(message, { code: 'bundle_not_streamable' });
    }
}
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/**
 * The file's bytes from a position, a chunk at a time. JSON's structure is
 * ASCII and no byte of a multi-byte UTF-8 character is, so the reader walks
 * bytes and decodes only the values it keeps.
 */
class Bytes {
    fd;
    buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    length = 0;
    pos = 0;
    /** The file offset of buffer[0]. */
    base = 0;
    constructor(fd) {
        this.fd = fd;
    }
    get offset() {
        return this.base + this.pos;
    }
    /** The next byte without taking it; -1 at the end of the file. */
    peek() {
        if (this.pos >= this.length && !this.refill())
            return -1;
        return this.buffer[this.pos];
    }
    take() {
        const byte = this.peek();
        if (byte >= 0)
            this.pos += 1;
        return byte;
    }
    skipSpace() {
        while (SPACE.has(this.peek()))
            this.pos += 1;
    }
    expect(byte, what) {
        this.skipSpace();
        if (this.take() !== byte)
            throw this.cannot(`expected ${what}`);
    }
    cannot(what) {
        return new CannotStream(`${what} at byte ${this.offset}`);
    }
    /**
     * One JSON value's bytes, from the next non-space byte to its end (strings
     * and nesting followed; its syntax is left to JSON.parse). Kept only when
     * `keep`, and never more than `limit` bytes.
     */
    value(limit, what, keep) {
        this.skipSpace();
        const pieces = [];
        let size = 0;
        let start = this.pos;
        const first = this.peek();
        if (first < 0)
            throw this.cannot(`${what}: the file ends before its value`);
        const scalar = first !== OPEN_OBJECT && first !== OPEN_ARRAY && first !== QUOTE;
        let depth = 0;
        let inString = false;
        let escaped = false;
        for (;;) {
            if (this.pos >= this.length) {
                size += this.length - start;
                if (size > limit)
                    throw this.cannot(`${what} is longer than ${limit} bytes`);
                if (keep)
                    pieces.push(Buffer.from(this.buffer.subarray(start, this.length)));
                start = 0;
                if (!this.refill()) {
                    if (scalar)
                        break;
                    throw this.cannot(`${what}: the file ends inside it`);
                }
            }
            const byte = this.buffer[this.pos];
            if (inString) {
                if (escaped)
                    escaped = false;
                else if (byte === BACKSLASH)
                    escaped = true;
                else if (byte === QUOTE) {
                    inString = false;
                    if (depth === 0) {
                        this.pos += 1;
                        break;
                    }
                }
            }
            else if (byte === QUOTE) {
                if (scalar)
                    break;
                inString = true;
            }
            else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
                if (scalar)
                    break;
                depth += 1;
            }
            else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
                if (scalar)
                    break;
                depth -= 1;
                if (depth === 0) {
                    this.pos += 1;
                    break;
                }
            }
            else if (scalar && (byte === COMMA || SPACE.has(byte)))
                break;
            this.pos += 1;
        }
        size += this.pos - start;
        if (size > limit)
            throw this.cannot(`${what} is longer than ${limit} bytes`);
        if (!keep)
            return undefined;
        pieces.push(this.buffer.subarray(start, this.pos));
        return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
    }
    /** value() parsed; a syntax error is JSON.parse's, with where it is. */
    parsed(limit, what) {
        const at = this.offset;
        const bytes = this.value(limit, what, true);
        try {
            return JSON.parse(bytes.toString('utf8'));
        }
        catch (error) {
            throw new CannotStream(`${what} at byte ${at}: ${(0,errors/* causeText */.xv)(error)}`);
        }
    }
    refill() {
        this.base += this.length;
        this.pos = 0;
        this.length = (0,external_node_fs_.readSync)(this.fd, this.buffer, 0, CHUNK_BYTES, this.base);
        return this.length > 0;
    }
}
/** Walks the whole file once, strictly: anything but the bundle's shape cannot be streamed. */
function read(fd, reading) {
    const bytes = new Bytes(fd);
    bytes.expect(OPEN_OBJECT, 'a JSON object');
    bytes.skipSpace();
    const seen = new Set();
    if (bytes.peek() === CLOSE_OBJECT)
        bytes.take();
    else {
        for (;;) {
            bytes.skipSpace();
            if (bytes.peek() !== QUOTE)
                throw bytes.cannot('expected a key');
            const key = bytes.parsed(MAX_KEY_BYTES, 'a key');
            if (typeof key !== 'string')
                throw bytes.cannot('expected a key');
            if ((key === 'checkpoint' || key === 'entries') && seen.has(key))
                throw bytes.cannot(`a second "${key}"`);
            seen.add(key);
            bytes.expect(COLON, "':'");
            bytes.skipSpace();
            if (key === 'entries' && bytes.peek() === OPEN_ARRAY) {
                if (!readEntries(bytes, reading))
                    return;
            }
            else if (key === 'checkpoint')
                reading.checkpoint(bytes.parsed(MAX_VALUE_BYTES, key));
            else if (key === 'entries')
                reading.entriesValue(bytes.parsed(MAX_VALUE_BYTES, key));
            else
                bytes.parsed(MAX_VALUE_BYTES, JSON.stringify(key).slice(0, 80));
            bytes.skipSpace();
            const next = bytes.take();
            if (next === CLOSE_OBJECT)
                break;
            if (next !== COMMA)
                throw bytes.cannot("expected ',' or '}'");
        }
    }
    bytes.skipSpace();
    if (bytes.peek() >= 0)
        throw bytes.cannot('data after the bundle');
}
/** The entries' array; false when a Reading ended the walk. */
function readEntries(bytes, reading) {
    bytes.take();
    const keep = reading.entriesBegin();
    bytes.skipSpace();
    if (bytes.peek() === CLOSE_ARRAY) {
        bytes.take();
        return true;
    }
    for (let i = 0;; i += 1) {
        const what = `entries.${i}`;
        if (keep) {
            if (reading.entry(bytes.parsed(MAX_VALUE_BYTES, what), i) === false)
                return false;
        }
        else
            bytes.value(MAX_VALUE_BYTES, what, false);
        bytes.skipSpace();
        const next = bytes.take();
        if (next === CLOSE_ARRAY)
            return true;
        if (next !== COMMA)
            throw bytes.cannot(`${what}: expected ',' or ']'`);
    }
}

;// CONCATENATED MODULE: ./src/ledger/verify-error.ts

/** A bundle that does not verify; the message names the first problem. */
class BundleError extends errors/* LeaseGateError */.eg {
    name = 'BundleError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'bundle' });
    }
}

// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/zod-en.ts
var zod_en = __webpack_require__(3184);
// EXTERNAL MODULE: ./src/ledger/checkpoint.ts
var ledger_checkpoint = __webpack_require__(4491);
// EXTERNAL MODULE: ./src/ledger/entry.ts
var ledger_entry = __webpack_require__(5641);
// EXTERNAL MODULE: ./src/ledger/merkle.ts
var merkle = __webpack_require__(9527);
;// CONCATENATED MODULE: ./src/ledger/frontier.ts

/**
 * The right edge of an RFC 9162 Merkle tree: one hash per complete subtree
 * (at most one per bit of the size), enough to give the root of the leaves
 * appended so far without keeping them. A verifier that streams a bundle
 * holds this instead of the tree.
 */
class MerkleFrontier {
    /** Hashes of the complete subtrees, largest (leftmost) first. */
    nodes = [];
    size = 0;
    appendHash(leaf) {
        let node = leaf;
        // Each trailing 1 bit of the old size is a subtree of the new one's size that now pairs up.
        for (let n = this.size; n % 2 === 1; n = Math.floor(n / 2))
            node = (0,merkle/* nodeHash */.zB)(this.nodes.pop(), node);
        this.nodes.push(node);
        this.size += 1;
    }
    /** MTH of the leaves so far: the subtrees folded from the right, as the split rule nests them. */
    root() {
        if (this.nodes.length === 0)
            return merkle/* EMPTY_ROOT */.zg;
        let root = this.nodes[this.nodes.length - 1];
        for (let i = this.nodes.length - 2; i >= 0; i -= 1)
            root = (0,merkle/* nodeHash */.zB)(this.nodes[i], root);
        return root;
    }
}

// EXTERNAL MODULE: ./src/ledger/merkle-proof.ts
var merkle_proof = __webpack_require__(5588);
// EXTERNAL MODULE: ./src/ledger/promotion.ts
var promotion = __webpack_require__(1356);
// EXTERNAL MODULE: ./src/plane/entry-kinds.ts
var entry_kinds = __webpack_require__(4152);
// EXTERNAL MODULE: ./src/plane/run-pass.ts
var run_pass = __webpack_require__(4941);
// EXTERNAL MODULE: ./src/plane/ci-job.ts
var ci_job = __webpack_require__(1242);
// EXTERNAL MODULE: ./src/plane/did.ts
var plane_did = __webpack_require__(4027);
// EXTERNAL MODULE: ./src/plane/url.ts
var plane_url = __webpack_require__(4043);
;// CONCATENATED MODULE: ./src/ledger/issuer-check.ts



/**
 * A grant's `issuer` (the OIDC issuer whose token its holder proved itself with), as
 * `verify` checks it: an https URL (plain http only on loopback, as the kernel fetches keys),
 * and the holder's DID in that issuer's namespace (plane/ci-job.ts), so a signer who swaps
 * the issuer of a grant is caught:
 *
 *   GitHub's         a run's: did:web:<any host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>:
 *                    (its DIDs name their own host, --oidc-did-host)
 *   CircleCI's       did:web:oidc.circleci.com:circleci:orgs:<the org id in the URL>:
 *   Buildkite's      did:web:agent.buildkite.com:buildkite:
 *   gitlab.com, and any other URL whose DIDs say gitlab: did:web:<its host>:gitlab:projects:
 *   any other issuer (GHES, custom): not checked, its kind is not in the ledger
 *
 * The reason it does not hold, or undefined.
 */
function issuerProblem(e) {
    if (e.issuer === undefined)
        return undefined;
    let url;
    try {
        url = new URL(e.issuer);
    }
    catch {
        return `its issuer ${JSON.stringify(e.issuer.slice(0, 200))} is not a URL`;
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!(url.protocol === 'https:' || (url.protocol === 'http:' && (0,plane_url/* isLoopbackHost */.c)(host)))) {
        return `its issuer ${e.issuer} is not an https:// URL (plain http:// only on loopback)`;
    }
    const expected = namespaceOf(url, e.actorDid);
    if (expected !== undefined && !e.actorDid.startsWith(expected)) {
        return `its holder ${e.actorDid} is not in the namespace of its issuer ${e.issuer} (${expected}\u2026)`;
    }
    return undefined;
}
/** A GitHub run attempt's DID prefix (plane/ci-job.ts), whatever its host. */
const GITHUB_RUN = /^did:web:[^:]+:[^:]+:[^:]+:actions:runs:\d+:attempts:\d+:/;
function namespaceOf(url, did) {
    switch ((0,ci_job/* kindOfIssuer */.pS)(url.href)) {
        case 'github':
            // Any host (--oidc-did-host), but always a run's attempt: a grant of another CI's job
            // relabelled as GitHub's is caught.
            return GITHUB_RUN.test(did)
                ? did
                : 'did:web:<host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>:';
        case 'circleci': {
            const org = /^\/org\/([^/]+)\/?$/.exec(url.pathname)?.[1] ?? '?';
            return `did:web:oidc.circleci.com:circleci:orgs:${org}:`;
        }
        case 'buildkite':
            return 'did:web:agent.buildkite.com:buildkite:';
        case 'gitlab':
            return `did:web:${(0,plane_did/* didSegment */.f4)(url.host)}:gitlab:projects:`;
        case 'custom':
        case undefined: {
            // A self-managed GitLab (or a loopback one): its DIDs say gitlab after the host.
            const gitlab = `did:web:${(0,plane_did/* didSegment */.f4)(url.host)}:gitlab:projects:`;
            return /^did:web:[^:]+:gitlab:projects:/.test(did) ? gitlab : undefined;
        }
    }
}

;// CONCATENATED MODULE: ./src/ledger/meaning-passes.ts


/**
 * verify's reading of break-glass entries (meaning.ts): what a pass must name, and that one
 * approval approves one pass. An OIDC approval names its run and attempt (`approval`); a
 * second pass approved by the same one is refused, as the kernel refuses it (one token of a
 * team that may approve would otherwise let any number of jobs through).
 */
class PassApprovals {
    seen = new Map();
    /** A break-glass entry says why, who opened it and until when; its approver is someone else. */
    passOf(e) {
        if (!e.reason || !e.by || e.expiresAtMs === undefined) {
            throw new BundleError(`entry ${e.seq}: a break_glass must name its reason, who opened it (by) and its end (expiresAtMs)`);
        }
        if (e.approvedBy !== undefined && e.approvedBy === e.by) {
            throw new BundleError(`entry ${e.seq}: a break_glass approved by ${e.approvedBy}, who opened it; the approver must be another operator`);
        }
        if (e.approval !== undefined) {
            if (e.approvedBy === undefined) {
                throw new BundleError(`entry ${e.seq}: a break_glass names an approval (${e.approval}) but no approver (approvedBy)`);
            }
            const first = this.seen.get(e.approval);
            if (first !== undefined) {
                throw new BundleError(`entry ${e.seq}: a break_glass approved by ${e.approval}, which already approved the break_glass of entry ${first}; one approval approves one pass`);
            }
            this.seen.set(e.approval, e.seq);
        }
        return { seq: e.seq, actorDid: e.actorDid, expiresAtMs: e.expiresAtMs };
    }
}
/**
 * A withdrawal (`break_glass_withdrawn`) names who withdrew it and the agent of the pass it
 * ends: that pass is gone, as it is for the kernel's replay (rules/break-glass.ts).
 */
function withdraw(passes, e) {
    if (!e.by) {
        throw new BundleError(`entry ${e.seq}: a break_glass_withdrawn must name who withdrew it (by)`);
    }
    if (passes.get(e.resource)?.actorDid === e.actorDid)
        passes.delete(e.resource);
}
/** Why a grant inside a freeze is refused: no pass for it, or its pass ended before it. */
function frozenGrant(e, freeze, at, pass) {
    const grants = `entry ${e.seq}: grants ${e.leaseId} on ${e.resource}`;
    const when = freeze.expiresAtMs === undefined || e.clockMs !== undefined || at === e.tsMs
        ? 'while it is frozen'
        : `stamped ${e.tsMs} in a run of +1 stamps ${Number.isFinite(at) ? `from ${at}` : 'that began before this range'}, so maybe before the freeze's end ${freeze.expiresAtMs} (a grant in a run must carry its clock, clockMs)`;
    if (pass && (0,run_pass/* passCovers */._I)(pass.actorDid, e.actorDid)) {
        return `${grants} ${when} (entry ${freeze.seq}); the break-glass of entry ${pass.seq} ended at ${pass.expiresAtMs}, and the grant is stamped ${e.tsMs}${e.clockMs !== undefined ? ` (clock ${e.clockMs})` : ' with no clock of its own (clockMs)'}`;
    }
    return `${grants} ${when} (entry ${freeze.seq}) and no break-glass names ${e.actorDid}`;
}

;// CONCATENATED MODULE: ./src/ledger/granted-ids.ts

/** Slots at first; the table doubles when it is half full. */
const FIRST_SLOTS = 1 << 10;
/**
 * The lease ids granted so far, for verify's rule that no id is granted twice,
 * as 64-bit fingerprints in typed arrays: 8 to 16 bytes a grant off the
 * JavaScript heap, instead of each id and where it was granted in a Map (about
 * 100 bytes a grant on the heap, where every one is a copy the young
 * generation's collections make and grow for). A match is confirmed by
 * `find`, so the verdict and message are those of an exact set. The hash is
 * seeded per run, so no bundle can be made to match often.
 */
class GrantedIds {
    find;
    hi = new Uint32Array(FIRST_SLOTS);
    lo = new Uint32Array(FIRST_SLOTS);
    count = 0;
    seedHi = (0,external_node_crypto_.randomInt)(2 ** 32 - 1);
    seedLo = (0,external_node_crypto_.randomInt)(2 ** 32 - 1);
    constructor(find) {
        this.find = find;
    }
    /** Where `leaseId` was granted before `seq`, or undefined (and it is recorded as granted now). */
    grant(leaseId, seq) {
        const [hi, lo] = this.fingerprint(leaseId);
        const mask = this.hi.length - 1;
        let slot = lo & mask;
        for (; this.hi[slot] !== 0 || this.lo[slot] !== 0; slot = (slot + 1) & mask) {
            if (this.hi[slot] !== hi || this.lo[slot] !== lo)
                continue;
            const earlier = this.find(leaseId, seq);
            if (earlier)
                return earlier;
            // Two ids alike: this one is kept beside it, and matches ask `find` again.
        }
        this.hi[slot] = hi;
        this.lo[slot] = lo;
        this.count += 1;
        if (this.count * 2 > this.hi.length)
            this.grow();
        return undefined;
    }
    /** Bytes the table holds. */
    get heldBytes() {
        return this.hi.byteLength + this.lo.byteLength;
    }
    /** Two 32-bit FNV-1a style hashes of the UTF-16 code units, finished as murmur3's; never 0 and 0. */
    fingerprint(id) {
        let a = this.seedHi ^ 0x811c9dc5;
        let b = this.seedLo ^ 0x9747b28c;
        for (let i = 0; i < id.length; i += 1) {
            const c = id.charCodeAt(i);
            a = Math.imul(a ^ c, 0x01000193);
            b = Math.imul(b ^ c, 0x5bd1e995);
            b ^= b >>> 15;
        }
        const hi = mix(a ^ id.length) >>> 0;
        const lo = mix(b ^ id.length) >>> 0;
        return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
    }
    grow() {
        const { hi, lo } = this;
        this.hi = new Uint32Array(hi.length * 2);
        this.lo = new Uint32Array(hi.length * 2);
        const mask = this.hi.length - 1;
        for (let i = 0; i < hi.length; i += 1) {
            if (hi[i] === 0 && lo[i] === 0)
                continue;
            let slot = lo[i] & mask;
            while (this.hi[slot] !== 0 || this.lo[slot] !== 0)
                slot = (slot + 1) & mask;
            this.hi[slot] = hi[i];
            this.lo[slot] = lo[i];
        }
    }
}
/** murmur3's 32-bit finish: every input bit moves every output bit. */
function mix(h) {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return h ^ (h >>> 16);
}

;// CONCATENATED MODULE: ./src/ledger/meaning.ts







/**
 * Replicas read their clocks before they take the ledger's order, so an
 * entry's stamp may trail the one before it by a few milliseconds' race; a
 * renewal or grant is judged late only past this margin. (A lapse needs none:
 * the clock that found it due read no earlier than the expiry.)
 */
const CLOCK_RACE_MS = 1_000;
const named = (e) => `entry ${e.seq} (${e.kind} of ${e.leaseId} on ${e.resource})`;
/**
 * Checks that the entries tell a valid history in order and in time: per
 * resource, a grant and its end alternate, and every renewal or end names the
 * open lease (its id, holder and fence); grant fences strictly increase across
 * the log and lease ids are never granted twice; no grant is already expired,
 * no renewal comes after the lease expired, and no lapse comes before the
 * lease's last told expiry (a release or revoke may end it early). On a
 * partial range, a resource's state before its first entry in the range is
 * unknown, and the same rules hold from there on. Freezes and unfreezes name
 * no lease (empty id, fence 0) and leave the open lease alone, but no grant
 * may fall inside a freeze: between a freeze and its unfreeze or the end it named.
 *
 * Time: stamps strictly increase, so entries in one millisecond are stamped
 * one apart and a run of +1 stamps may run ahead of the clock; its first stamp
 * does not. An entry happened no earlier than the first stamp of its run (its
 * `earliest`) and no later than its own stamp. A grant or renewal is judged at
 * its earliest (the reading that makes it valid: neither lets anyone else in).
 * A lapse is what lets the next holder in, so it is judged at the earliest it
 * can have happened: its `clockMs` (the kernel's clock that found it due,
 * which a lapse inside a run carries, never above its stamp), else the first
 * stamp of its run. A lapse judged at its own stamp would let a signer hide an
 * early one behind a run of +1 stamps it wrote (one entry a millisecond, read
 * as a burst in the run's first millisecond).
 */
function checkMeaning(entries, partial, promote) {
    const meaning = new MeaningCheck(partial, promote, grantIn(entries));
    for (const e of entries)
        meaning.check(e);
}
/** FindGrant over entries in memory: the first grant of the id before `seq`. */
function grantIn(entries) {
    return (leaseId, seq) => {
        const e = entries.find((x) => x.seq < seq && x.kind === 'grant' && x.leaseId === leaseId);
        return e && { seq: e.seq, resource: e.resource };
    };
}
/**
 * checkMeaning one entry at a time, for a verifier that streams a bundle: it
 * keeps the state of each resource (its open lease, its freeze; a resource
 * with neither is forgotten, except on a partial range, where "known to have
 * none" differs from unknown) and, to refuse a lease id granted twice, a
 * fingerprint of each granted id (granted-ids.ts; `findGrant` reads the
 * earlier grant back when one matches), never the entries themselves.
 */
class MeaningCheck {
    partial;
    open = new Map();
    granted;
    frozen = new Map();
    /** Each resource's break-glass not used yet. */
    passes = new Map();
    /** Each approval that approved a pass, so none approves two. */
    approvals = new PassApprovals();
    lastGrant;
    earliest = 0;
    /** The entry whose stamp is `earliest` (undefined: before a partial range). */
    runStart;
    previousTs;
    /**
     * With `promote` (each resource and the one before it, as the kernel's `--promote`): every
     * grant of a resource with a step before it names a commit that completed a hold there
     * earlier in the ledger, or is let through by a break-glass. Not on a partial range, whose
     * earlier holds are unknown.
     */
    promotions;
    constructor(partial, promote, findGrant) {
        this.partial = partial;
        this.granted = new GrantedIds(findGrant);
        this.promotions = promote?.size && !partial ? new promotion/* PromotionRecord */.VL(promote) : undefined;
    }
    /** Throws a BundleError if `e`, after every entry checked before it, breaks the history. */
    check(e) {
        const earliest = this.advanceClock(e);
        checkClockMs(e);
        const foreign = e.kind === 'grant' ? issuerProblem(e) : undefined;
        if (foreign)
            throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource}, but ${foreign}`);
        if ((0,entry_kinds/* namesNoLease */.Y)(e.kind))
            return this.noLease(e);
        this.checkPolicy(e, earliest);
        const known = this.open.has(e.resource) || !this.partial;
        const current = this.open.get(e.resource) ?? null;
        if (e.kind === 'grant')
            return this.grant(e, current, earliest);
        this.follow(e, current, known, earliest);
    }
    /** The first stamp of `e`'s run of +1 stamps (its `earliest`), kept across entries. */
    advanceClock(e) {
        // A range's first run may have begun before the range: its clock is unknown there.
        if (this.previousTs === undefined || e.tsMs !== this.previousTs + 1) {
            const unknown = this.previousTs === undefined && this.partial;
            this.earliest = unknown ? -Infinity : e.tsMs;
            this.runStart = unknown ? undefined : e.seq;
        }
        this.previousTs = e.tsMs;
        return this.earliest;
    }
    /** A freeze, unfreeze or break-glass (given or withdrawn): names no lease, changes no lease. */
    noLease(e) {
        if (e.leaseId !== '' || e.fence !== 0) {
            throw new BundleError(`entry ${e.seq}: a ${e.kind} names no lease, but this one names ${e.leaseId} (fence ${e.fence})`);
        }
        if (e.kind === 'break_glass')
            this.passes.set(e.resource, this.approvals.passOf(e));
        else if (e.kind === 'break_glass_withdrawn')
            withdraw(this.passes, e);
        else if (e.kind === 'freeze')
            this.frozen.set(e.resource, { seq: e.seq, expiresAtMs: e.expiresAtMs });
        else
            this.frozen.delete(e.resource);
    }
    /**
     * A grant is let in by the promotion order and no freeze, or by an unused break-glass;
     * every entry of a lease is recorded for the promotion order (it may complete a hold).
     */
    checkPolicy(e, earliest) {
        const freeze = this.frozen.get(e.resource);
        const pass = e.kind === 'grant' ? this.passes.get(e.resource) : undefined;
        // Each judged at the reading that would show a violation: the pass at the clock the grant
        // carries (else its own stamp, the latest it can have been), with the race's margin; the
        // freeze at the grant's clock, else the first stamp of its run (the earliest it can have been).
        const passAt = e.clockMs ?? e.tsMs;
        // A pass names the agent, or the run whose DIDs it covers (plane/run-pass.ts); used once.
        const covers = pass !== undefined && (0,run_pass/* passCovers */._I)(pass.actorDid, e.actorDid);
        const passed = covers && passAt - CLOCK_RACE_MS < pass.expiresAtMs;
        if (covers)
            this.passes.delete(e.resource);
        const at = e.clockMs ?? earliest;
        const unpromoted = e.kind === 'grant'
            ? this.promotions?.missing(e.resource, e.deploy, e.promotedVia)
            : undefined;
        if (unpromoted !== undefined && !passed) {
            throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource} to ${e.actorDid}, but ${unpromoted}; no break-glass names it`);
        }
        this.promotions?.add(e);
        if (e.kind === 'grant' &&
            freeze &&
            (freeze.expiresAtMs === undefined || at < freeze.expiresAtMs) &&
            !passed) {
            throw new BundleError(frozenGrant(e, freeze, at, pass));
        }
    }
    /** A grant: no holder open, a fence above every earlier one, a lease id never granted, not expired. */
    grant(e, current, earliest) {
        if (current) {
            throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource} while ${current.leaseId} (entry ${current.seq}) is still open: two holders at once`);
        }
        const lastGrant = this.lastGrant;
        if (lastGrant && e.fence <= lastGrant.fence) {
            throw new BundleError(e.fence === lastGrant.fence
                ? `entry ${e.seq}: fence ${e.fence} was already issued at entry ${lastGrant.seq}`
                : `entry ${e.seq}: fence ${e.fence} is below fence ${lastGrant.fence} of entry ${lastGrant.seq}`);
        }
        // Recorded now: a problem below ends the check, so the id's record is never read again.
        const twin = this.granted.grant(e.leaseId, e.seq);
        if (twin) {
            throw new BundleError(`${named(e)}: lease id ${e.leaseId} was already granted at entry ${twin.seq} (grant on ${twin.resource})`);
        }
        if (e.expiresAtMs !== undefined && e.expiresAtMs <= earliest - CLOCK_RACE_MS) {
            throw new BundleError(`${named(e)}: expires at ${e.expiresAtMs}, already past when it was granted (no earlier than ${earliest})`);
        }
        this.lastGrant = { fence: e.fence, seq: e.seq };
        this.open.set(e.resource, {
            leaseId: e.leaseId,
            actorDid: e.actorDid,
            fence: e.fence,
            seq: e.seq,
            expiresAtMs: e.expiresAtMs,
            toldAt: e.seq,
            toldKind: e.kind,
        });
    }
    /** A renewal or an end (release, lapse, revoke): names the open lease, in time. */
    follow(e, current, known, earliest) {
        if (current) {
            if (current.leaseId !== e.leaseId ||
                current.actorDid !== e.actorDid ||
                current.fence !== e.fence) {
                throw new BundleError(`entry ${e.seq}: ${e.kind} names ${e.leaseId} (fence ${e.fence}) but the open lease on ${e.resource} is ${current.leaseId} (fence ${current.fence}, entry ${current.seq})`);
            }
            checkTime(e, current, earliest, this.runStart);
        }
        else if (known) {
            throw new BundleError(`entry ${e.seq}: ${e.kind} of ${e.leaseId} on ${e.resource}, which has no open lease`);
        }
        if (e.kind !== 'renew') {
            // Ended: on a whole ledger a resource not in `open` has no lease, so it need not stay.
            if (this.partial)
                this.open.set(e.resource, null);
            else
                this.open.delete(e.resource);
            return;
        }
        this.open.set(e.resource, {
            leaseId: e.leaseId,
            actorDid: e.actorDid,
            fence: e.fence,
            seq: current?.seq ?? e.seq,
            expiresAtMs: e.expiresAtMs ?? current?.expiresAtMs,
            toldAt: e.expiresAtMs === undefined && current ? current.toldAt : e.seq,
            toldKind: e.expiresAtMs === undefined && current ? current.toldKind : e.kind,
        });
    }
}
/** Only a lapse or a grant carries the clock that decided it, and never above its stamp. */
function checkClockMs(e) {
    const clocked = e.kind === 'lapse' || e.kind === 'grant';
    if (e.clockMs !== undefined && (!clocked || e.clockMs > e.tsMs)) {
        throw new BundleError(clocked
            ? `${named(e)}: clockMs ${e.clockMs} is after its stamp ${e.tsMs} (a stamp never trails the clock)`
            : `${named(e)}: carries clockMs, which only a lapse or a grant does`);
    }
}
/** A renewal before the told expiry, a lapse not before it (a release or revoke may come any time). */
function checkTime(e, current, earliest, runStart) {
    const told = current.expiresAtMs;
    if (told === undefined)
        return;
    const by = `entry ${current.toldAt} (${current.toldKind})`;
    if (e.kind === 'lapse') {
        const at = e.clockMs ?? earliest;
        if (at >= told)
            return;
        if (e.clockMs !== undefined || at === e.tsMs) {
            throw new BundleError(`${named(e)}: lapses at ${at}, ${told - at} ms before the expiry ${told} told at ${by}`);
        }
        const run = runStart === undefined
            ? 'a run of +1 stamps that began before this range'
            : `a run of +1 stamps from ${earliest} (entry ${runStart})`;
        throw new BundleError(`${named(e)}: stamped ${e.tsMs} in ${run}, so it may have lapsed ${Number.isFinite(at) ? `${told - at} ms ` : ''}before the expiry ${told} told at ${by}; a lapse in a run must carry the clock that found it due (clockMs)`);
    }
    if (e.kind === 'renew' && earliest - CLOCK_RACE_MS >= told) {
        throw new BundleError(`${named(e)}: renews at ${earliest} or later, after the lease expired at ${told} (told at ${by})`);
    }
}

;// CONCATENATED MODULE: ./src/ledger/verify.ts









/** One entry of a bundle as it is written: its index, the entry, and its inclusion proof. */
const bundleEntrySchema = schemas/* object */.Ikc({
    index: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _nonnegative */.UI()),
    entry: ledger_entry/* entrySchema */.Oo,
    inclusionProof: schemas/* array */.YOg(schemas/* string */.YjP()),
});
const bundleSchema = schemas/* object */.Ikc({
    checkpoint: schemas/* string */.YjP(),
    entries: schemas/* array */.YOg(bundleEntrySchema),
});
/**
 * Checks a ledger bundle with nothing but the public key: the checkpoint's
 * signature and origin, every entry's inclusion proof, their order and
 * timestamps, completeness, consistency with an older checkpoint, and the
 * meaning of the entries (one holder at a time, fences strictly rising).
 * Throws a BundleError naming the first problem.
 */
function verifyBundle(raw, publicKey, options = {}) {
    const parsed = bundleSchema.safeParse(raw);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BundleError(`bundle: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
    }
    const entries = parsed.data.entries;
    const verifier = new BundleVerifier(parsed.data.checkpoint, publicKey, options, (id, seq) => {
        // The entries checked so far: their indexes rise from the first, each its seq.
        for (const { index, entry } of entries) {
            if (index >= seq)
                break;
            if (entry.kind === 'grant' && entry.leaseId === id)
                return { seq: entry.seq, resource: entry.resource };
        }
        return undefined;
    });
    for (const item of parsed.data.entries)
        verifier.add(item);
    return verifier.finish();
}
/**
 * verifyBundle one entry at a time, in the bundle's order, holding only the
 * checkpoint, the entry before, the meaning's state per resource and (for
 * --previous) a Merkle frontier: memory does not grow with the bundle. The
 * verdict and its message are verifyBundle's: `add` throws the first problem
 * of order and proof at once; a problem of meaning waits for `finish`, because
 * a bundle with missing entries is refused as such first.
 */
class BundleVerifier {
    publicKey;
    options;
    findGrant;
    checkpoint;
    meaning;
    meaningError;
    first = 0;
    count = 0;
    previousTs;
    inclusion;
    /** For --previous: the leaves so far, and the root of the older checkpoint's first `size`. */
    older;
    constructor(checkpointText, publicKey, options, 
    /** Reads an earlier grant back (the bundle in memory, or its file again): granted-ids.ts. */
    findGrant) {
        this.publicKey = publicKey;
        this.options = options;
        this.findGrant = findGrant;
        this.checkpoint = guard(() => (0,ledger_checkpoint/* verifyCheckpoint */.om)(checkpointText, publicKey));
        if (options.previous !== undefined) {
            // Its own problems are told in finish(), in verifyBundle's order; here only its size matters.
            let size;
            try {
                size = (0,ledger_checkpoint/* verifyCheckpoint */.om)(options.previous, publicKey).size;
            }
            catch (error) {
                if (!(error instanceof ledger_checkpoint/* CheckpointError */.jg))
                    throw error;
            }
            if (size !== undefined) {
                this.older = { size, frontier: new MerkleFrontier() };
                if (size === 0)
                    this.older.root = this.older.frontier.root();
            }
        }
    }
    add({ index, entry, inclusionProof }) {
        const i = this.count;
        const checkpoint = this.checkpoint;
        if (i === 0)
            this.first = index;
        const first = this.first;
        if (index !== first + i)
            throw new BundleError(`entry ${i}: index ${index} breaks the order (expected ${first + i})`);
        if (entry.seq !== index)
            throw new BundleError(`entry ${index}: seq ${entry.seq} does not match its index`);
        const previousTs = this.previousTs;
        if (previousTs !== undefined && entry.tsMs <= previousTs) {
            throw new BundleError(`entry ${index}: tsMs ${entry.tsMs} is not after ${previousTs}`);
        }
        const leaf = (0,merkle/* leafHashBase64 */.yJ)((0,ledger_entry/* entryJson */.Bm)(entry));
        this.inclusion ??= new merkle_proof/* InclusionVerifier */.bu(checkpoint.size, checkpoint.root);
        const included = this.inclusion.verify(index, leaf, inclusionProof);
        if (included === 'length')
            throw new BundleError(`entry ${index}: a proof hash is not 32 bytes`);
        if (!included) {
            throw new BundleError(`entry ${index}: the inclusion proof does not lead to the checkpoint's root`);
        }
        this.count = i + 1;
        this.previousTs = entry.tsMs;
        const older = this.older;
        if (older && older.root === undefined) {
            older.frontier.appendHash(new Uint8Array(Buffer.from(leaf, 'base64')));
            if (older.frontier.size === older.size)
                older.root = older.frontier.root();
        }
        if (this.meaningError)
            return;
        // A range that starts past 0 cannot know the state before it (checkMeaning's `partial`).
        this.meaning ??= new MeaningCheck(first !== 0, this.options.promote, this.findGrant);
        try {
            this.meaning.check(entry);
        }
        catch (error) {
            if (!(error instanceof BundleError))
                throw error;
            this.meaningError = error;
        }
    }
    /** The verdict once every entry is added: completeness, meaning, --previous. */
    finish() {
        const { checkpoint, first, count, options } = this;
        const complete = first === 0 && count === checkpoint.size;
        if (!complete && !options.allowPartial) {
            throw new BundleError(`bundle holds entries ${first}..${first + count - 1} of ${checkpoint.size}: some are missing (use --allow-partial for a range)`);
        }
        if (this.meaningError)
            throw this.meaningError;
        if (options.previous !== undefined) {
            if (!complete)
                throw new BundleError('--previous needs a complete bundle');
            const older = guard(() => (0,ledger_checkpoint/* verifyCheckpoint */.om)(options.previous, this.publicKey));
            if (older.size > checkpoint.size) {
                throw new BundleError(`the previous checkpoint (size ${older.size}) is larger than this one (${checkpoint.size})`);
            }
            const root = this.older?.root;
            if (!root || !(0,merkle/* equalHashes */.l$)(root, older.root)) {
                throw new BundleError(`not consistent with the previous checkpoint: the first ${older.size} entries were rewritten`);
            }
        }
        return { ...checkpoint, first, count };
    }
}
function guard(check) {
    try {
        return check();
    }
    catch (error) {
        if (error instanceof ledger_checkpoint/* CheckpointError */.jg)
            throw new BundleError(error.message, { cause: error });
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/ledger/verify-file.ts







/**
 * `verify FILE` without the file in memory: a small reader for exactly the
 * bundle's shape, `{"checkpoint": "\u2026", "entries": [ {\u2026}, {\u2026}, \u2026 ]}` in any key
 * order and spacing, hands the entries one at a time (each parsed on its own
 * by JSON.parse) to the streaming BundleVerifier. The verdict is the one
 * verifyBundle gives the parsed file, with its message: a file that is not
 * JSON is refused as such even when an entry before the bad byte is wrong, and
 * a shape problem of any entry comes before a problem of meaning.
 */
/** A bundle file that is not readable JSON; the message says why (and where). */
class BundleReadError extends errors/* LeaseGateError */.eg {
    name = 'BundleReadError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'bundle_read' });
    }
}
const ABSENT = Symbol('absent');
const entriesSchema = schemas/* array */.YOg(bundleEntrySchema);
const issueOf = (error, prefix) => {
    const issue = error.issues[0];
    const path = [...prefix, ...(issue?.path ?? [])].join('.');
    return new BundleError(`bundle: ${path || '(root)'}: ${issue?.message}`);
};
/**
 * verifyBundle on a file, streamed: memory holds one chunk, one entry and the
 * verifier's state, whatever the file's size. A checkpoint written after the
 * entries is found first by a walk that skips them. Throws BundleReadError
 * for a file that is not readable JSON, BundleError for one that does not verify.
 */
function verifyBundleFile(file, publicKey, options = {}, 
/** Up to this size a file that cannot be streamed is read whole (tests pass 0). */
wholeBytes = MAX_WHOLE_BYTES) {
    let fd;
    try {
        fd = (0,external_node_fs_.openSync)(file, 'r');
    }
    catch (error) {
        throw new BundleReadError((0,errors/* causeText */.xv)(error), { cause: error });
    }
    try {
        return streamed(fd, publicKey, options);
    }
    catch (error) {
        if (!(error instanceof CannotStream))
            throw readError(error);
        return whole(fd, file, error, publicKey, options, wholeBytes);
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
}
function readError(error) {
    // A read that fails (a directory, an I/O error) is an unreadable bundle, as readFileSync's was.
    return error instanceof errors/* LeaseGateError */.eg || !(error instanceof Error && 'code' in error)
        ? error
        : new BundleReadError((0,errors/* causeText */.xv)(error), { cause: error });
}
/** What cannot be streamed is read whole, as verify always did, when it is small enough. */
function whole(fd, file, cannot, publicKey, options, wholeBytes) {
    const size = (0,external_node_fs_.fstatSync)(fd).size;
    if (size > wholeBytes) {
        throw new BundleReadError(`${cannot.message}; a bundle of ${Math.round(size / 2 ** 20)} MiB is read only as {"checkpoint": \u2026, "entries": [\u2026]}`);
    }
    let raw;
    try {
        raw = JSON.parse((0,external_node_fs_.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        throw new BundleReadError((0,errors/* causeText */.xv)(error), { cause: error });
    }
    return verifyBundle(raw, publicKey, options);
}
function streamed(fd, publicKey, options) {
    // verifyBundle's order: the schema's first issue (the checkpoint's, then the entries' in
    // order), then the first problem the verifier finds. Every entry is still read to its end,
    // because a later byte that is not JSON makes the whole file unreadable.
    let checkpointIssue;
    let entriesIssue;
    let problem;
    let verifier;
    let checkpoint = ABSENT;
    let hasEntries = false;
    const takeCheckpoint = (value) => {
        if (checkpoint !== ABSENT)
            return; // found first by the walk that skipped the entries
        checkpoint = value;
        const parsed = bundleSchema.shape.checkpoint.safeParse(value);
        if (!parsed.success) {
            checkpointIssue = issueOf(parsed.error, ['checkpoint']);
            return;
        }
        try {
            verifier = new BundleVerifier(parsed.data, publicKey, options, (id, seq) => grantInFile(fd, id, seq));
        }
        catch (error) {
            if (!(error instanceof BundleError))
                throw error;
            problem = error;
        }
    };
    read(fd, {
        checkpoint: takeCheckpoint,
        entriesBegin: () => {
            hasEntries = true;
            if (checkpoint === ABSENT) {
                let found = undefined;
                read(fd, {
                    checkpoint: (value) => (found = value),
                    entriesBegin: () => false,
                    entry: () => undefined,
                    entriesValue: () => undefined,
                });
                takeCheckpoint(found);
            }
            return true;
        },
        entry: (value, i) => {
            if (entriesIssue)
                return;
            const item = bundleEntrySchema.safeParse(value);
            if (!item.success) {
                entriesIssue = issueOf(item.error, ['entries', i]);
                return;
            }
            if (!verifier || problem || checkpointIssue)
                return;
            try {
                verifier.add(item.data);
            }
            catch (error) {
                if (!(error instanceof BundleError))
                    throw error;
                problem = error;
            }
        },
        entriesValue: (value) => {
            hasEntries = true;
            const parsed = entriesSchema.safeParse(value);
            if (!parsed.success)
                entriesIssue = issueOf(parsed.error, ['entries']);
        },
    });
    if (checkpoint === ABSENT)
        takeCheckpoint(undefined);
    if (!hasEntries) {
        const parsed = entriesSchema.safeParse(undefined);
        if (!parsed.success)
            entriesIssue = issueOf(parsed.error, ['entries']);
    }
    const first = checkpointIssue ?? entriesIssue ?? problem;
    if (first)
        throw first;
    return verifier.finish();
}
/**
 * The first grant of `leaseId` among the entries before `seq`, read from the file again
 * (FindGrant, granted-ids.ts): asked only when a lease id is granted twice, or its
 * fingerprint matches another's, so the walk's cost is paid once at most, on a refusal.
 */
function grantInFile(fd, leaseId, seq) {
    let found;
    read(fd, {
        checkpoint: () => undefined,
        entriesBegin: () => true,
        entry: (value) => {
            const item = bundleEntrySchema.safeParse(value);
            // The entries before `seq` were read and checked already: past them, none is.
            if (!item.success || item.data.index >= seq)
                return false;
            const { entry } = item.data;
            if (entry.kind !== 'grant' || entry.leaseId !== leaseId)
                return true;
            found = { seq: entry.seq, resource: entry.resource };
            return false;
        },
        entriesValue: () => undefined,
    });
    return found;
}

// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/cli/promote-flag.ts
var promote_flag = __webpack_require__(1961);
// EXTERNAL MODULE: ./src/cli/flags/ledger.ts
var ledger = __webpack_require__(3749);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
// EXTERNAL MODULE: ./src/cli/plane-url.ts
var cli_plane_url = __webpack_require__(8252);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: external "node:v8"
var external_node_v8_ = __webpack_require__(8877);
;// CONCATENATED MODULE: ./src/cli/small-heap.ts

/**
 * For a command that streams a ledger of any size (`verify`, `ledger export`), whose live
 * memory is a page or an entry and the checker's bounded state: V8's defaults size the heap
 * for throughput, and grow it with the work, not with what stays alive. The young
 * generation doubles each time the bytes that survived its collections since it last grew
 * exceed its size, so any long steady allocation, however little of it survives, takes it
 * to its maximum (64 MiB a semi-space on Node 24: 128 MiB of a 1M-entry verify's 288 MiB
 * peak RSS); the old generation may grow to about four times what was live at its last
 * collection. Here the young generation keeps its first size and the old one grows as for
 * a small device (`--optimize-for-size`): more, shorter collections, and a peak that does
 * not grow with the ledger (docs/performance.md, "export and verify"). Both flags are read
 * when V8 decides to grow, so setting them now takes effect; the process is the command's.
 */
function keepHeapSmall() {
    (0,external_node_v8_.setFlagsFromString)('--semi-space-growth-factor=1');
    (0,external_node_v8_.setFlagsFromString)('--optimize-for-size');
}

;// CONCATENATED MODULE: ./src/cli/ledger-commands.ts

















/** `lease-gate keygen --out DIR`: an Ed25519 key pair for signing the ledger. */
function keygen(args, io) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(ledger/* KEYGEN */.cO.flags));
    if (!values.out)
        throw new options/* UsageError */.eb('keygen needs --out DIR.');
    const keyFile = (0,external_node_path_.join)(values.out, 'ledger.key');
    const pubFile = (0,external_node_path_.join)(values.out, 'ledger.pub');
    if ((0,external_node_fs_.existsSync)(keyFile))
        throw new options/* UsageError */.eb(`${keyFile} exists already; refusing to overwrite a signing key.`);
    (0,external_node_fs_.mkdirSync)(values.out, { recursive: true });
    const { privateKey, publicKey } = (0,external_node_crypto_.generateKeyPairSync)('ed25519');
    (0,external_node_fs_.writeFileSync)(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    (0,external_node_fs_.chmodSync)(keyFile, 0o600);
    (0,external_node_fs_.writeFileSync)(pubFile, publicKey.export({ type: 'spki', format: 'pem' }));
    io.out(`wrote ${keyFile} (private, mode 0600) and ${pubFile}`);
    return options/* EXIT */.dc.done;
}
/** `lease-gate ledger export [--api-url U] [--out FILE]`: the kernel's ledger as a bundle. */
async function ledger_commands_ledger(args, io, env) {
    const [sub, ...rest] = args;
    if (sub !== 'export')
        throw new options/* UsageError */.eb(`Unknown ledger command '${sub ?? ''}'. Expected 'export'.`);
    const { values } = (0,options/* parse */.qg)(rest, (0,table/* optionsOf */.cz)(ledger/* LEDGER_EXPORT */.TO.flags));
    if (values['api-url'] !== undefined && values.url !== undefined)
        throw new options/* UsageError */.eb('Give --api-url or its older name --url, not both.');
    const given = (0,cli_plane_url/* givenApiUrl */.dT)(values['api-url'] ?? values.url, env, values.url === undefined ? '--api-url' : '--url');
    const url = (0,plane_url/* parsePlaneUrl */.p)(given.value);
    if (!url.ok)
        throw new options/* UsageError */.eb(`Invalid ${given.from} '${(0,lease_escape/* untrusted */.bp)(given.value, 200)}'. Expected an https:// origin (plain http:// only for loopback).`);
    const key = (0,settings/* keyFromEnv */.ji)(env).value || env.LEASE_GATE_KERNEL_KEY;
    keepHeapSmall();
    const progress = (count, size) => io.err(`ledger export: ${count} of ${size} entries`);
    if (values.out) {
        await exportToFile(url.url, key, values.out, progress);
        io.out(`wrote ${values.out} and its public key ${values.out}.pub`);
    }
    else if (io.write) {
        await (0,remote/* exportLedger */.Qc)(url.url, key, io.write, progress);
        await io.write('\n');
    }
    else {
        let text = '';
        await (0,remote/* exportLedger */.Qc)(url.url, key, (piece) => void (text += piece), progress);
        io.out(text);
    }
    return options/* EXIT */.dc.done;
}
/**
 * The bundle written to FILE.tmp as its pages arrive, flushed to disk, then
 * renamed to FILE (after FILE.pub): an export that fails or is stopped never
 * leaves a cut bundle under FILE, only FILE.tmp, removed when it fails.
 */
async function exportToFile(apiUrl, key, out, progress) {
    // Files to share (mode 0666 less the umask, as before); FILE.pub is in place before FILE.
    const shared = { mode: 0o666 };
    await (0,durable/* writeFileDurable */.Ld)(out, async (write) => {
        const { publicKey } = await (0,remote/* exportLedger */.Qc)(apiUrl, key, write, progress);
        await (0,durable/* writeFileDurable */.Ld)(`${out}.pub`, publicKey, { ...shared, temp: `${out}.pub.tmp` });
    }, { ...shared, temp: `${out}.tmp` });
}
/** `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT]`: offline. */
function verify(args, io) {
    const { values, positionals } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(ledger/* VERIFY */.k7.flags), true);
    const promote = (0,promote_flag/* promoteFlag */.V)(values.promote);
    const [file] = positionals;
    if (!file || !values['public-key'])
        throw new options/* UsageError */.eb('verify needs FILE and --public-key KEY.');
    let key;
    try {
        const pem = (0,external_node_fs_.readFileSync)(values['public-key'], 'utf8');
        key = pem.includes('PRIVATE KEY')
            ? (0,external_node_crypto_.createPublicKey)((0,external_node_crypto_.createPrivateKey)(pem))
            : (0,external_node_crypto_.createPublicKey)(pem);
    }
    catch (error) {
        throw new options/* UsageError */.eb(`Cannot read the public key ${values['public-key']}: ${(0,errors/* causeText */.xv)(error)}`, { cause: error });
    }
    keepHeapSmall();
    // The bundle is read as a stream (verifyBundleFile): a file too large to hold verifies in
    // memory that does not grow with it. As before, a bundle that is not JSON is said before
    // an unreadable --previous.
    let previous;
    try {
        previous = values.previous ? (0,external_node_fs_.readFileSync)(values.previous, 'utf8') : undefined;
    }
    catch (error) {
        try {
            verifyBundleFile(file, key);
        }
        catch (unreadable) {
            if (unreadable instanceof BundleReadError)
                return unreadableBundle(io, file, unreadable);
        }
        throw error;
    }
    try {
        const result = verifyBundleFile(file, key, {
            previous,
            allowPartial: values['allow-partial'],
            promote,
        });
        const root = Buffer.from(result.root).toString('base64');
        if (values.json)
            io.out(JSON.stringify({
                ok: true,
                origin: result.origin,
                size: result.size,
                root,
                first: result.first,
                count: result.count,
            }));
        else
            io.out(`OK ${result.origin}: size ${result.size}, root ${root}, ${result.count} entries verified${values.previous ? ', consistent with the previous checkpoint' : ''}`);
        return options/* EXIT */.dc.done;
    }
    catch (error) {
        if (error instanceof BundleReadError)
            return unreadableBundle(io, file, error);
        if (!(error instanceof BundleError))
            throw error;
        io.err(`FAIL: ${error.message}`);
        return options/* EXIT */.dc.refused;
    }
}
function unreadableBundle(io, file, error) {
    io.err(`FAIL: ${file} is not a readable JSON bundle (${error.message})`);
    return options/* EXIT */.dc.refused;
}


/***/ }),

/***/ 2555:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   QE: () => (/* binding */ eachLedgerPage),
/* harmony export */   Qc: () => (/* binding */ exportLedger)
/* harmony export */ });
/* unused harmony exports LedgerFetchError, fetchLedger */
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(8395);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3276);
/* harmony import */ var _plane_schema_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3659);




/**
 * Reads a kernel's ledger over HTTP through the one HTTP client (src/http/):
 * its proxies, timeouts and answer cap, and its errors, which every face
 * already prints as one line.
 */
/** A page may take this long: a large ledger's pages carry long proofs. */
const TIMEOUT_MS = 30_000;
/**
 * Entries asked per page: a page of a large ledger costs about 1 KB an entry
 * (the proofs grow with the log). 100 keep a page's text, its parsed entries
 * and the text written near 1 MB in all, so an export's memory is bounded by
 * far less than the 4 MiB the client accepts in one answer (500 a page held
 * several MB at once); the kernel serves each page sooner, too.
 */
const PAGE = 100;
/** An export stops after this many pages (10 million entries). */
const MAX_PAGES = 100_000;
/** A ledger answer that is not what the kernel serves: a broken or foreign server. */
class LedgerFetchError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'LedgerFetchError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'ledger_fetch' });
    }
}
const pageSchema = zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .object */ .Ikc({
    checkpoint: zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .string */ .YjP(),
    entries: zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .array */ .YOg(zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .unknown */ .L5J()),
    next: zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .nullable */ .mee(zod_mini__WEBPACK_IMPORTED_MODULE_3__/* .string */ .YjP())),
});
async function get(http, url, key) {
    const answer = await http.send({
        method: 'GET',
        url,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        timeoutMs: TIMEOUT_MS,
    });
    if (answer.status !== 200) {
        const text = answer.text.replace(/[\r\n]+/g, ' ').slice(0, 200);
        throw new LedgerFetchError(`[GET] "${url}": ${answer.status} ${text}`);
    }
    return answer.text;
}
function readPage(text, where) {
    let json;
    try {
        json = JSON.parse(text);
    }
    catch {
        throw new LedgerFetchError(`${where}: not a ledger bundle page (not JSON)`);
    }
    const page = pageSchema.safeParse(json);
    if (!page.success)
        throw new LedgerFetchError(`${where}: not a ledger bundle page`);
    return page.data;
}
/**
 * The pages of one export, in order, each checked against the first one's
 * checkpoint (the kernel pins an export to its size when it starts): only one
 * page is held at a time.
 */
async function* pagesOf(http, apiUrl, key) {
    let path = `${_plane_schema_js__WEBPACK_IMPORTED_MODULE_2__/* .LEDGER_PATHS */ .Tc.bundle}?limit=${PAGE}`;
    let checkpoint;
    for (let pages = 0;; pages += 1) {
        if (pages >= MAX_PAGES) {
            throw new LedgerFetchError(`the ledger export did not end within ${MAX_PAGES} pages`);
        }
        const page = readPage(await get(http, apiUrl + path, key), apiUrl + path);
        if (checkpoint !== undefined && page.checkpoint !== checkpoint) {
            throw new LedgerFetchError('the kernel changed the checkpoint in the middle of one export');
        }
        checkpoint = page.checkpoint;
        yield {
            checkpoint,
            entries: page.entries,
            size: Number(checkpoint.split('\n')[1]),
        };
        if (page.next === null || page.next === undefined)
            return;
        path = `${_plane_schema_js__WEBPACK_IMPORTED_MODULE_2__/* .LEDGER_PATHS */ .Tc.bundle}?cursor=${encodeURIComponent(page.next)}&limit=${PAGE}`;
    }
}
/**
 * The kernel's whole ledger as one bundle, following the pages of one export
 * (every page carries the same checkpoint), and the public key that checks it.
 * In memory: for a ledger of any size, exportLedger writes it as it comes.
 */
async function fetchLedger(apiUrl, key, progress) {
    const http = createHttpClient({ bodyTimeoutMs: TIMEOUT_MS });
    try {
        const publicKey = await get(http, apiUrl + LEDGER_PATHS.publicKey, key);
        const entries = [];
        let checkpoint;
        for await (const page of pagesOf(http, apiUrl, key)) {
            checkpoint = page.checkpoint;
            for (const entry of page.entries)
                entries.push(entry);
            progress?.(entries.length, page.size);
        }
        const bundle = { checkpoint, entries };
        return { bundle: bundle, bundleText: JSON.stringify(bundle), publicKey };
    }
    finally {
        await http.close();
    }
}
/**
 * fetchLedger's bundle text, written to `write` a page at a time as the pages
 * arrive: the same bytes as `bundleText` (JSON.stringify of the whole bundle,
 * whose checkpoint comes first), with memory bounded by one page. Returns the
 * public key and how many entries were written.
 */
async function exportLedger(apiUrl, key, write, progress) {
    const http = (0,_http_client_js__WEBPACK_IMPORTED_MODULE_1__/* .createHttpClient */ .u)({ bodyTimeoutMs: TIMEOUT_MS });
    try {
        const publicKey = await get(http, apiUrl + _plane_schema_js__WEBPACK_IMPORTED_MODULE_2__/* .LEDGER_PATHS */ .Tc.publicKey, key);
        let count = 0;
        let begun = false;
        for await (const page of pagesOf(http, apiUrl, key)) {
            let text = begun ? '' : `{"checkpoint":${JSON.stringify(page.checkpoint)},"entries":[`;
            begun = true;
            for (const entry of page.entries) {
                text += `${count === 0 ? '' : ','}${JSON.stringify(entry)}`;
                count += 1;
            }
            await write(text);
            progress?.(count, page.size);
        }
        await write(']}');
        return { publicKey, count };
    }
    finally {
        await http.close();
    }
}
/**
 * Each page's entries of one export, as they arrive (`lease-gate history`): memory
 * bounded by a page and what `each` keeps. The entries are `{ index, entry, inclusionProof }`.
 */
async function eachLedgerPage(apiUrl, key, each) {
    const http = (0,_http_client_js__WEBPACK_IMPORTED_MODULE_1__/* .createHttpClient */ .u)({ bodyTimeoutMs: TIMEOUT_MS });
    try {
        for await (const page of pagesOf(http, apiUrl, key))
            each(page.entries);
    }
    finally {
        await http.close();
    }
}


/***/ }),

/***/ 252:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   A: () => (/* export default binding */ __WEBPACK_DEFAULT_EXPORT__)
/* harmony export */ });
/* harmony import */ var _core_util_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4723);

const error = () => {
    const Sizable = {
        string: { unit: "characters", verb: "to have" },
        file: { unit: "bytes", verb: "to have" },
        array: { unit: "items", verb: "to have" },
        set: { unit: "items", verb: "to have" },
        map: { unit: "entries", verb: "to have" },
    };
    function getSizing(origin) {
        return Sizable[origin] ?? null;
    }
    const FormatDictionary = {
        regex: "input",
        email: "email address",
        url: "URL",
        emoji: "emoji",
        uuid: "UUID",
        uuidv4: "UUIDv4",
        uuidv6: "UUIDv6",
        nanoid: "nanoid",
        guid: "GUID",
        cuid: "cuid",
        cuid2: "cuid2",
        ulid: "ULID",
        xid: "XID",
        ksuid: "KSUID",
        datetime: "ISO datetime",
        date: "ISO date",
        time: "ISO time",
        duration: "ISO duration",
        ipv4: "IPv4 address",
        ipv6: "IPv6 address",
        mac: "MAC address",
        cidrv4: "IPv4 range",
        cidrv6: "IPv6 range",
        base64: "base64-encoded string",
        base64url: "base64url-encoded string",
        json_string: "JSON string",
        e164: "E.164 number",
        currency_code: "currency code",
        credit_card: "credit card number",
        iban: "IBAN",
        jwt: "JWT",
        template_literal: "input",
    };
    // type names: missing keys = do not translate (use raw value via ?? fallback)
    const TypeDictionary = {
        // Compatibility: "nan" -> "NaN" for display
        nan: "NaN",
        // All other type names omitted - they fall back to raw values via ?? operator
    };
    function getTypeName(type, input) {
        if (type === "number" && typeof input === "number" && !Number.isFinite(input)) {
            return String(input);
        }
        return TypeDictionary[type] ?? type;
    }
    return (issue) => {
        switch (issue.code) {
            case "invalid_type": {
                const expected = getTypeName(issue.expected);
                const receivedType = _core_util_js__WEBPACK_IMPORTED_MODULE_0__/* .parsedType */ .GW(issue.input);
                const received = getTypeName(receivedType, issue.input);
                return `Invalid input: expected ${expected}, received ${received}`;
            }
            case "invalid_value":
                if (issue.values.length === 1)
                    return `Invalid input: expected ${_core_util_js__WEBPACK_IMPORTED_MODULE_0__/* .stringifyPrimitive */ .B7(issue.values[0])}`;
                return `Invalid option: expected one of ${_core_util_js__WEBPACK_IMPORTED_MODULE_0__/* .joinValues */ .jw(issue.values, "|")}`;
            case "too_big": {
                const adj = issue.exact ? "exactly " : issue.inclusive ? "<=" : "<";
                const sizing = getSizing(issue.origin);
                if (sizing)
                    return `Too big: expected ${issue.origin ?? "value"} to have ${adj}${issue.maximum.toString()} ${sizing.unit ?? "elements"}`;
                return `Too big: expected ${issue.origin ?? "value"} to be ${adj}${issue.maximum.toString()}`;
            }
            case "too_small": {
                const adj = issue.exact ? "exactly " : issue.inclusive ? ">=" : ">";
                const sizing = getSizing(issue.origin);
                if (sizing) {
                    return `Too small: expected ${issue.origin} to have ${adj}${issue.minimum.toString()} ${sizing.unit}`;
                }
                return `Too small: expected ${issue.origin} to be ${adj}${issue.minimum.toString()}`;
            }
            case "invalid_format": {
                const _issue = issue;
                if (_issue.format === "starts_with") {
                    return `Invalid string: must start with "${_issue.prefix}"`;
                }
                if (_issue.format === "ends_with")
                    return `Invalid string: must end with "${_issue.suffix}"`;
                if (_issue.format === "includes")
                    return `Invalid string: must include "${_issue.includes}"`;
                if (_issue.format === "regex")
                    return `Invalid string: must match pattern ${_issue.pattern}`;
                return `Invalid ${FormatDictionary[_issue.format] ?? issue.format}`;
            }
            case "not_multiple_of":
                return `Invalid number: must be a multiple of ${issue.divisor}`;
            case "unrecognized_keys":
                return `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${_core_util_js__WEBPACK_IMPORTED_MODULE_0__/* .joinValues */ .jw(issue.keys, ", ")}`;
            case "invalid_key":
                return `Invalid key in ${issue.origin}`;
            case "invalid_union":
                if (issue.options && Array.isArray(issue.options) && issue.options.length > 0) {
                    const opts = issue.options.map((o) => `'${o}'`).join(" | ");
                    return `Invalid discriminator value. Expected ${opts}`;
                }
                if (issue.inclusive === false) {
                    return "Invalid input: more than one option matched";
                }
                return "Invalid input";
            case "invalid_element":
                return `Invalid value in ${issue.origin}`;
            default:
                return `Invalid input`;
        }
    };
};
/* harmony default export */ function __WEBPACK_DEFAULT_EXPORT__() {
    return {
        localeError: error(),
    };
}


/***/ })

};

//# sourceMappingURL=551.index.js.map