const require_durable = require("./durable-3qlBTb9V.js");
const require_cli = require("./cli.js");
const require_remote = require("./remote-BeUzwwFI.js");
require("./zod-en-DySWmmj3.js");
const require_checkpoint = require("./checkpoint-G5ROIOCl.js");
const require_entry_kinds = require("./entry-kinds-DYb7pk0U.js");
const require_run_pass = require("./run-pass-B7n0Po02.js");
let node_fs = require("node:fs");
let node_crypto = require("node:crypto");
let node_path = require("node:path");
let node_v8 = require("node:v8");
// src/ledger/bundle-reader.ts
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
const MAX_KEY_BYTES = 1024;
/** A file the reader cannot stream is read whole as before, up to this size. */
const MAX_WHOLE_BYTES = 64 << 20;
/** Inside the reader: what it cannot stream (not JSON, not the bundle's shape, too long). */
var CannotStream = class extends require_cli.LeaseGateError {
	name = "CannotStream";
	constructor(message) {
		super(message, { code: "bundle_not_streamable" });
	}
};
const SPACE = /* @__PURE__ */ new Set([
	32,
	9,
	10,
	13
]);
const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;
const COLON = 58;
/**
* The file's bytes from a position, a chunk at a time. JSON's structure is
* ASCII and no byte of a multi-byte UTF-8 character is, so the reader walks
* bytes and decodes only the values it keeps.
*/
var Bytes = class {
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
		if (this.pos >= this.length && !this.refill()) return -1;
		return this.buffer[this.pos];
	}
	take() {
		const byte = this.peek();
		if (byte >= 0) this.pos += 1;
		return byte;
	}
	skipSpace() {
		while (SPACE.has(this.peek())) this.pos += 1;
	}
	expect(byte, what) {
		this.skipSpace();
		if (this.take() !== byte) throw this.cannot(`expected ${what}`);
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
		if (first < 0) throw this.cannot(`${what}: the file ends before its value`);
		const scalar = first !== OPEN_OBJECT && first !== OPEN_ARRAY && first !== QUOTE;
		let depth = 0;
		let inString = false;
		let escaped = false;
		for (;;) {
			if (this.pos >= this.length) {
				size += this.length - start;
				if (size > limit) throw this.cannot(`${what} is longer than ${limit} bytes`);
				if (keep) pieces.push(Buffer.from(this.buffer.subarray(start, this.length)));
				start = 0;
				if (!this.refill()) {
					if (scalar) break;
					throw this.cannot(`${what}: the file ends inside it`);
				}
			}
			const byte = this.buffer[this.pos];
			if (inString) {
				if (escaped) escaped = false;
				else if (byte === BACKSLASH) escaped = true;
				else if (byte === QUOTE) {
					inString = false;
					if (depth === 0) {
						this.pos += 1;
						break;
					}
				}
			} else if (byte === QUOTE) {
				if (scalar) break;
				inString = true;
			} else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
				if (scalar) break;
				depth += 1;
			} else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
				if (scalar) break;
				depth -= 1;
				if (depth === 0) {
					this.pos += 1;
					break;
				}
			} else if (scalar && (byte === COMMA || SPACE.has(byte))) break;
			this.pos += 1;
		}
		size += this.pos - start;
		if (size > limit) throw this.cannot(`${what} is longer than ${limit} bytes`);
		if (!keep) return void 0;
		pieces.push(this.buffer.subarray(start, this.pos));
		return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
	}
	/** value() parsed; a syntax error is JSON.parse's, with where it is. */
	parsed(limit, what) {
		const at = this.offset;
		const bytes = this.value(limit, what, true);
		try {
			return JSON.parse(bytes.toString("utf8"));
		} catch (error) {
			throw new CannotStream(`${what} at byte ${at}: ${require_cli.causeText(error)}`);
		}
	}
	refill() {
		this.base += this.length;
		this.pos = 0;
		this.length = (0, node_fs.readSync)(this.fd, this.buffer, 0, CHUNK_BYTES, this.base);
		return this.length > 0;
	}
};
/** Walks the whole file once, strictly: anything but the bundle's shape cannot be streamed. */
function read(fd, reading) {
	const bytes = new Bytes(fd);
	bytes.expect(OPEN_OBJECT, "a JSON object");
	bytes.skipSpace();
	const seen = /* @__PURE__ */ new Set();
	if (bytes.peek() === CLOSE_OBJECT) bytes.take();
	else for (;;) {
		bytes.skipSpace();
		if (bytes.peek() !== QUOTE) throw bytes.cannot("expected a key");
		const key = bytes.parsed(MAX_KEY_BYTES, "a key");
		if (typeof key !== "string") throw bytes.cannot("expected a key");
		if ((key === "checkpoint" || key === "entries") && seen.has(key)) throw bytes.cannot(`a second "${key}"`);
		seen.add(key);
		bytes.expect(COLON, "':'");
		bytes.skipSpace();
		if (key === "entries" && bytes.peek() === OPEN_ARRAY) {
			if (!readEntries(bytes, reading)) return;
		} else if (key === "checkpoint") reading.checkpoint(bytes.parsed(MAX_VALUE_BYTES, key));
		else if (key === "entries") reading.entriesValue(bytes.parsed(MAX_VALUE_BYTES, key));
		else bytes.parsed(MAX_VALUE_BYTES, JSON.stringify(key).slice(0, 80));
		bytes.skipSpace();
		const next = bytes.take();
		if (next === CLOSE_OBJECT) break;
		if (next !== COMMA) throw bytes.cannot("expected ',' or '}'");
	}
	bytes.skipSpace();
	if (bytes.peek() >= 0) throw bytes.cannot("data after the bundle");
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
			if (reading.entry(bytes.parsed(1048576, what), i) === false) return false;
		} else bytes.value(MAX_VALUE_BYTES, what, false);
		bytes.skipSpace();
		const next = bytes.take();
		if (next === CLOSE_ARRAY) return true;
		if (next !== COMMA) throw bytes.cannot(`${what}: expected ',' or ']'`);
	}
}
// src/ledger/verify-error.ts
/** A bundle that does not verify; the message names the first problem. */
var BundleError = class extends require_cli.LeaseGateError {
	name = "BundleError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "bundle"
		});
	}
};
// src/ledger/frontier.ts
/**
* The right edge of an RFC 9162 Merkle tree: one hash per complete subtree
* (at most one per bit of the size), enough to give the root of the leaves
* appended so far without keeping them. A verifier that streams a bundle
* holds this instead of the tree.
*/
var MerkleFrontier = class {
	/** Hashes of the complete subtrees, largest (leftmost) first. */
	nodes = [];
	size = 0;
	appendHash(leaf) {
		let node = leaf;
		for (let n = this.size; n % 2 === 1; n = Math.floor(n / 2)) node = require_checkpoint.nodeHash(this.nodes.pop(), node);
		this.nodes.push(node);
		this.size += 1;
	}
	/** MTH of the leaves so far: the subtrees folded from the right, as the split rule nests them. */
	root() {
		if (this.nodes.length === 0) return require_checkpoint.EMPTY_ROOT;
		let root = this.nodes[this.nodes.length - 1];
		for (let i = this.nodes.length - 2; i >= 0; i -= 1) root = require_checkpoint.nodeHash(this.nodes[i], root);
		return root;
	}
};
// src/ledger/issuer-check.ts
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
	if (e.issuer === void 0) return void 0;
	let url;
	try {
		url = new URL(e.issuer);
	} catch {
		return `its issuer ${JSON.stringify(e.issuer.slice(0, 200))} is not a URL`;
	}
	const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
	if (!(url.protocol === "https:" || url.protocol === "http:" && require_cli.isLoopbackHost(host))) return `its issuer ${e.issuer} is not an https:// URL (plain http:// only on loopback)`;
	const expected = namespaceOf(url, e.actorDid);
	if (expected !== void 0 && !e.actorDid.startsWith(expected)) return `its holder ${e.actorDid} is not in the namespace of its issuer ${e.issuer} (${expected}\u2026)`;
}
/** A GitHub run attempt's DID prefix (plane/ci-job.ts), whatever its host. */
const GITHUB_RUN = /^did:web:[^:]+:[^:]+:[^:]+:actions:runs:\d+:attempts:\d+:/;
function namespaceOf(url, did) {
	switch (require_cli.kindOfIssuer(url.href)) {
		case "github": return GITHUB_RUN.test(did) ? did : "did:web:<host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>:";
		case "circleci": return `did:web:oidc.circleci.com:circleci:orgs:${/^\/org\/([^/]+)\/?$/.exec(url.pathname)?.[1] ?? "?"}:`;
		case "buildkite": return "did:web:agent.buildkite.com:buildkite:";
		case "gitlab": return `did:web:${require_cli.didSegment(url.host)}:gitlab:projects:`;
		case "custom":
		case void 0: {
			const gitlab = `did:web:${require_cli.didSegment(url.host)}:gitlab:projects:`;
			return /^did:web:[^:]+:gitlab:projects:/.test(did) ? gitlab : void 0;
		}
	}
}
// src/ledger/meaning-passes.ts
/**
* verify's reading of break-glass entries (meaning.ts): what a pass must name, and that one
* approval approves one pass. An OIDC approval names its run and attempt (`approval`); a
* second pass approved by the same one is refused, as the kernel refuses it (one token of a
* team that may approve would otherwise let any number of jobs through).
*/
var PassApprovals = class {
	seen = /* @__PURE__ */ new Map();
	/** A break-glass entry says why, who opened it and until when; its approver is someone else. */
	passOf(e) {
		if (!e.reason || !e.by || e.expiresAtMs === void 0) throw new BundleError(`entry ${e.seq}: a break_glass must name its reason, who opened it (by) and its end (expiresAtMs)`);
		if (e.approvedBy !== void 0 && e.approvedBy === e.by) throw new BundleError(`entry ${e.seq}: a break_glass approved by ${e.approvedBy}, who opened it; the approver must be another operator`);
		if (e.approval !== void 0) {
			if (e.approvedBy === void 0) throw new BundleError(`entry ${e.seq}: a break_glass names an approval (${e.approval}) but no approver (approvedBy)`);
			const first = this.seen.get(e.approval);
			if (first !== void 0) throw new BundleError(`entry ${e.seq}: a break_glass approved by ${e.approval}, which already approved the break_glass of entry ${first}; one approval approves one pass`);
			this.seen.set(e.approval, e.seq);
		}
		return {
			seq: e.seq,
			actorDid: e.actorDid,
			expiresAtMs: e.expiresAtMs
		};
	}
};
/**
* A withdrawal (`break_glass_withdrawn`) names who withdrew it and the agent of the pass it
* ends: that pass is gone, as it is for the kernel's replay (rules/break-glass.ts).
*/
function withdraw(passes, e) {
	if (!e.by) throw new BundleError(`entry ${e.seq}: a break_glass_withdrawn must name who withdrew it (by)`);
	if (passes.get(e.resource)?.actorDid === e.actorDid) passes.delete(e.resource);
}
/** Why a grant inside a freeze is refused: no pass for it, or its pass ended before it. */
function frozenGrant(e, freeze, at, pass) {
	const grants = `entry ${e.seq}: grants ${e.leaseId} on ${e.resource}`;
	const when = freeze.expiresAtMs === void 0 || e.clockMs !== void 0 || at === e.tsMs ? "while it is frozen" : `stamped ${e.tsMs} in a run of +1 stamps ${Number.isFinite(at) ? `from ${at}` : "that began before this range"}, so maybe before the freeze's end ${freeze.expiresAtMs} (a grant in a run must carry its clock, clockMs)`;
	if (pass && require_run_pass.passCovers(pass.actorDid, e.actorDid)) return `${grants} ${when} (entry ${freeze.seq}); the break-glass of entry ${pass.seq} ended at ${pass.expiresAtMs}, and the grant is stamped ${e.tsMs}${e.clockMs !== void 0 ? ` (clock ${e.clockMs})` : " with no clock of its own (clockMs)"}`;
	return `${grants} ${when} (entry ${freeze.seq}) and no break-glass names ${e.actorDid}`;
}
// src/ledger/granted-ids.ts
/** Slots at first; the table doubles when it is half full. */
const FIRST_SLOTS = 1024;
/**
* The lease ids granted so far, for verify's rule that no id is granted twice,
* as 64-bit fingerprints in typed arrays: 8 to 16 bytes a grant off the
* JavaScript heap, instead of each id and where it was granted in a Map (about
* 100 bytes a grant on the heap, where every one is a copy the young
* generation's collections make and grow for). A match is confirmed by
* `find`, so the verdict and message are those of an exact set. The hash is
* seeded per run, so no bundle can be made to match often.
*/
var GrantedIds = class {
	find;
	hi = new Uint32Array(FIRST_SLOTS);
	lo = new Uint32Array(FIRST_SLOTS);
	count = 0;
	seedHi = (0, node_crypto.randomInt)(2 ** 32 - 1);
	seedLo = (0, node_crypto.randomInt)(2 ** 32 - 1);
	constructor(find) {
		this.find = find;
	}
	/** Where `leaseId` was granted before `seq`, or undefined (and it is recorded as granted now). */
	grant(leaseId, seq) {
		const [hi, lo] = this.fingerprint(leaseId);
		const mask = this.hi.length - 1;
		let slot = lo & mask;
		for (; this.hi[slot] !== 0 || this.lo[slot] !== 0; slot = slot + 1 & mask) {
			if (this.hi[slot] !== hi || this.lo[slot] !== lo) continue;
			const earlier = this.find(leaseId, seq);
			if (earlier) return earlier;
		}
		this.hi[slot] = hi;
		this.lo[slot] = lo;
		this.count += 1;
		if (this.count * 2 > this.hi.length) this.grow();
	}
	/** Bytes the table holds. */
	get heldBytes() {
		return this.hi.byteLength + this.lo.byteLength;
	}
	/** Two 32-bit FNV-1a style hashes of the UTF-16 code units, finished as murmur3's; never 0 and 0. */
	fingerprint(id) {
		let a = this.seedHi ^ 2166136261;
		let b = this.seedLo ^ 2538058380;
		for (let i = 0; i < id.length; i += 1) {
			const c = id.charCodeAt(i);
			a = Math.imul(a ^ c, 16777619);
			b = Math.imul(b ^ c, 1540483477);
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
			if (hi[i] === 0 && lo[i] === 0) continue;
			let slot = lo[i] & mask;
			while (this.hi[slot] !== 0 || this.lo[slot] !== 0) slot = slot + 1 & mask;
			this.hi[slot] = hi[i];
			this.lo[slot] = lo[i];
		}
	}
};
/** murmur3's 32-bit finish: every input bit moves every output bit. */
function mix(h) {
	h = Math.imul(h ^ h >>> 16, 2246822507);
	h = Math.imul(h ^ h >>> 13, 3266489909);
	return h ^ h >>> 16;
}
const named = (e) => `entry ${e.seq} (${e.kind} of ${e.leaseId} on ${e.resource})`;
/**
* checkMeaning one entry at a time, for a verifier that streams a bundle: it
* keeps the state of each resource (its open lease, its freeze; a resource
* with neither is forgotten, except on a partial range, where "known to have
* none" differs from unknown) and, to refuse a lease id granted twice, a
* fingerprint of each granted id (granted-ids.ts; `findGrant` reads the
* earlier grant back when one matches), never the entries themselves.
*/
var MeaningCheck = class {
	partial;
	open = /* @__PURE__ */ new Map();
	granted;
	frozen = /* @__PURE__ */ new Map();
	/** Each resource's break-glass not used yet. */
	passes = /* @__PURE__ */ new Map();
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
		this.promotions = promote?.size && !partial ? new require_checkpoint.PromotionRecord(promote) : void 0;
	}
	/** Throws a BundleError if `e`, after every entry checked before it, breaks the history. */
	check(e) {
		const earliest = this.advanceClock(e);
		checkClockMs(e);
		const foreign = e.kind === "grant" ? issuerProblem(e) : void 0;
		if (foreign) throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource}, but ${foreign}`);
		if (require_entry_kinds.namesNoLease(e.kind)) return this.noLease(e);
		this.checkPolicy(e, earliest);
		const known = this.open.has(e.resource) || !this.partial;
		const current = this.open.get(e.resource) ?? null;
		if (e.kind === "grant") return this.grant(e, current, earliest);
		this.follow(e, current, known, earliest);
	}
	/** The first stamp of `e`'s run of +1 stamps (its `earliest`), kept across entries. */
	advanceClock(e) {
		if (this.previousTs === void 0 || e.tsMs !== this.previousTs + 1) {
			const unknown = this.previousTs === void 0 && this.partial;
			this.earliest = unknown ? -Infinity : e.tsMs;
			this.runStart = unknown ? void 0 : e.seq;
		}
		this.previousTs = e.tsMs;
		return this.earliest;
	}
	/** A freeze, unfreeze or break-glass (given or withdrawn): names no lease, changes no lease. */
	noLease(e) {
		if (e.leaseId !== "" || e.fence !== 0) throw new BundleError(`entry ${e.seq}: a ${e.kind} names no lease, but this one names ${e.leaseId} (fence ${e.fence})`);
		if (e.kind === "break_glass") this.passes.set(e.resource, this.approvals.passOf(e));
		else if (e.kind === "break_glass_withdrawn") withdraw(this.passes, e);
		else if (e.kind === "freeze") this.frozen.set(e.resource, {
			seq: e.seq,
			expiresAtMs: e.expiresAtMs
		});
		else this.frozen.delete(e.resource);
	}
	/**
	* A grant is let in by the promotion order and no freeze, or by an unused break-glass;
	* every entry of a lease is recorded for the promotion order (it may complete a hold).
	*/
	checkPolicy(e, earliest) {
		const freeze = this.frozen.get(e.resource);
		const pass = e.kind === "grant" ? this.passes.get(e.resource) : void 0;
		const passAt = e.clockMs ?? e.tsMs;
		const covers = pass !== void 0 && require_run_pass.passCovers(pass.actorDid, e.actorDid);
		const passed = covers && passAt - 1e3 < pass.expiresAtMs;
		if (covers) this.passes.delete(e.resource);
		const at = e.clockMs ?? earliest;
		const unpromoted = e.kind === "grant" ? this.promotions?.missing(e.resource, e.deploy, e.promotedVia) : void 0;
		if (unpromoted !== void 0 && !passed) throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource} to ${e.actorDid}, but ${unpromoted}; no break-glass names it`);
		this.promotions?.add(e);
		if (e.kind === "grant" && freeze && (freeze.expiresAtMs === void 0 || at < freeze.expiresAtMs) && !passed) throw new BundleError(frozenGrant(e, freeze, at, pass));
	}
	/** A grant: no holder open, a fence above every earlier one, a lease id never granted, not expired. */
	grant(e, current, earliest) {
		if (current) throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource} while ${current.leaseId} (entry ${current.seq}) is still open: two holders at once`);
		const lastGrant = this.lastGrant;
		if (lastGrant && e.fence <= lastGrant.fence) throw new BundleError(e.fence === lastGrant.fence ? `entry ${e.seq}: fence ${e.fence} was already issued at entry ${lastGrant.seq}` : `entry ${e.seq}: fence ${e.fence} is below fence ${lastGrant.fence} of entry ${lastGrant.seq}`);
		const twin = this.granted.grant(e.leaseId, e.seq);
		if (twin) throw new BundleError(`${named(e)}: lease id ${e.leaseId} was already granted at entry ${twin.seq} (grant on ${twin.resource})`);
		if (e.expiresAtMs !== void 0 && e.expiresAtMs <= earliest - 1e3) throw new BundleError(`${named(e)}: expires at ${e.expiresAtMs}, already past when it was granted (no earlier than ${earliest})`);
		this.lastGrant = {
			fence: e.fence,
			seq: e.seq
		};
		this.open.set(e.resource, {
			leaseId: e.leaseId,
			actorDid: e.actorDid,
			fence: e.fence,
			seq: e.seq,
			expiresAtMs: e.expiresAtMs,
			toldAt: e.seq,
			toldKind: e.kind
		});
	}
	/** A renewal or an end (release, lapse, revoke): names the open lease, in time. */
	follow(e, current, known, earliest) {
		if (current) {
			if (current.leaseId !== e.leaseId || current.actorDid !== e.actorDid || current.fence !== e.fence) throw new BundleError(`entry ${e.seq}: ${e.kind} names ${e.leaseId} (fence ${e.fence}) but the open lease on ${e.resource} is ${current.leaseId} (fence ${current.fence}, entry ${current.seq})`);
			checkTime(e, current, earliest, this.runStart);
		} else if (known) throw new BundleError(`entry ${e.seq}: ${e.kind} of ${e.leaseId} on ${e.resource}, which has no open lease`);
		if (e.kind !== "renew") {
			if (this.partial) this.open.set(e.resource, null);
			else this.open.delete(e.resource);
			return;
		}
		this.open.set(e.resource, {
			leaseId: e.leaseId,
			actorDid: e.actorDid,
			fence: e.fence,
			seq: current?.seq ?? e.seq,
			expiresAtMs: e.expiresAtMs ?? current?.expiresAtMs,
			toldAt: e.expiresAtMs === void 0 && current ? current.toldAt : e.seq,
			toldKind: e.expiresAtMs === void 0 && current ? current.toldKind : e.kind
		});
	}
};
/** Only a lapse or a grant carries the clock that decided it, and never above its stamp. */
function checkClockMs(e) {
	const clocked = e.kind === "lapse" || e.kind === "grant";
	if (e.clockMs !== void 0 && (!clocked || e.clockMs > e.tsMs)) throw new BundleError(clocked ? `${named(e)}: clockMs ${e.clockMs} is after its stamp ${e.tsMs} (a stamp never trails the clock)` : `${named(e)}: carries clockMs, which only a lapse or a grant does`);
}
/** A renewal before the told expiry, a lapse not before it (a release or revoke may come any time). */
function checkTime(e, current, earliest, runStart) {
	const told = current.expiresAtMs;
	if (told === void 0) return;
	const by = `entry ${current.toldAt} (${current.toldKind})`;
	if (e.kind === "lapse") {
		const at = e.clockMs ?? earliest;
		if (at >= told) return;
		if (e.clockMs !== void 0 || at === e.tsMs) throw new BundleError(`${named(e)}: lapses at ${at}, ${told - at} ms before the expiry ${told} told at ${by}`);
		const run = runStart === void 0 ? "a run of +1 stamps that began before this range" : `a run of +1 stamps from ${earliest} (entry ${runStart})`;
		throw new BundleError(`${named(e)}: stamped ${e.tsMs} in ${run}, so it may have lapsed ${Number.isFinite(at) ? `${told - at} ms ` : ""}before the expiry ${told} told at ${by}; a lapse in a run must carry the clock that found it due (clockMs)`);
	}
	if (e.kind === "renew" && earliest - 1e3 >= told) throw new BundleError(`${named(e)}: renews at ${earliest} or later, after the lease expired at ${told} (told at ${by})`);
}
// src/ledger/verify.ts
/** One entry of a bundle as it is written: its index, the entry, and its inclusion proof. */
const bundleEntrySchema = require_cli.object({
	index: require_cli.number().check(require_cli.int(), require_cli._nonnegative()),
	entry: require_checkpoint.entrySchema,
	inclusionProof: require_cli.array(require_cli.string())
});
const bundleSchema = require_cli.object({
	checkpoint: require_cli.string(),
	entries: require_cli.array(bundleEntrySchema)
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
		throw new BundleError(`bundle: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
	}
	const entries = parsed.data.entries;
	const verifier = new BundleVerifier(parsed.data.checkpoint, publicKey, options, (id, seq) => {
		for (const { index, entry } of entries) {
			if (index >= seq) break;
			if (entry.kind === "grant" && entry.leaseId === id) return {
				seq: entry.seq,
				resource: entry.resource
			};
		}
	});
	for (const item of parsed.data.entries) verifier.add(item);
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
var BundleVerifier = class {
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
	constructor(checkpointText, publicKey, options, findGrant) {
		this.publicKey = publicKey;
		this.options = options;
		this.findGrant = findGrant;
		this.checkpoint = guard(() => require_checkpoint.verifyCheckpoint(checkpointText, publicKey));
		if (options.previous !== void 0) {
			let size;
			try {
				size = require_checkpoint.verifyCheckpoint(options.previous, publicKey).size;
			} catch (error) {
				if (!(error instanceof require_checkpoint.CheckpointError)) throw error;
			}
			if (size !== void 0) {
				this.older = {
					size,
					frontier: new MerkleFrontier()
				};
				if (size === 0) this.older.root = this.older.frontier.root();
			}
		}
	}
	add({ index, entry, inclusionProof }) {
		const i = this.count;
		const checkpoint = this.checkpoint;
		if (i === 0) this.first = index;
		const first = this.first;
		if (index !== first + i) throw new BundleError(`entry ${i}: index ${index} breaks the order (expected ${first + i})`);
		if (entry.seq !== index) throw new BundleError(`entry ${index}: seq ${entry.seq} does not match its index`);
		const previousTs = this.previousTs;
		if (previousTs !== void 0 && entry.tsMs <= previousTs) throw new BundleError(`entry ${index}: tsMs ${entry.tsMs} is not after ${previousTs}`);
		const leaf = require_checkpoint.leafHashBase64(require_checkpoint.entryJson(entry));
		this.inclusion ??= new require_checkpoint.InclusionVerifier(checkpoint.size, checkpoint.root);
		const included = this.inclusion.verify(index, leaf, inclusionProof);
		if (included === "length") throw new BundleError(`entry ${index}: a proof hash is not 32 bytes`);
		if (!included) throw new BundleError(`entry ${index}: the inclusion proof does not lead to the checkpoint's root`);
		this.count = i + 1;
		this.previousTs = entry.tsMs;
		const older = this.older;
		if (older && older.root === void 0) {
			older.frontier.appendHash(new Uint8Array(Buffer.from(leaf, "base64")));
			if (older.frontier.size === older.size) older.root = older.frontier.root();
		}
		if (this.meaningError) return;
		this.meaning ??= new MeaningCheck(first !== 0, this.options.promote, this.findGrant);
		try {
			this.meaning.check(entry);
		} catch (error) {
			if (!(error instanceof BundleError)) throw error;
			this.meaningError = error;
		}
	}
	/** The verdict once every entry is added: completeness, meaning, --previous. */
	finish() {
		const { checkpoint, first, count, options } = this;
		const complete = first === 0 && count === checkpoint.size;
		if (!complete && !options.allowPartial) throw new BundleError(`bundle holds entries ${first}..${first + count - 1} of ${checkpoint.size}: some are missing (use --allow-partial for a range)`);
		if (this.meaningError) throw this.meaningError;
		if (options.previous !== void 0) {
			if (!complete) throw new BundleError("--previous needs a complete bundle");
			const older = guard(() => require_checkpoint.verifyCheckpoint(options.previous, this.publicKey));
			if (older.size > checkpoint.size) throw new BundleError(`the previous checkpoint (size ${older.size}) is larger than this one (${checkpoint.size})`);
			const root = this.older?.root;
			if (!root || !require_checkpoint.equalHashes(root, older.root)) throw new BundleError(`not consistent with the previous checkpoint: the first ${older.size} entries were rewritten`);
		}
		return {
			...checkpoint,
			first,
			count
		};
	}
};
function guard(check) {
	try {
		return check();
	} catch (error) {
		if (error instanceof require_checkpoint.CheckpointError) throw new BundleError(error.message, { cause: error });
		throw error;
	}
}
// src/ledger/verify-file.ts
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
var BundleReadError = class extends require_cli.LeaseGateError {
	name = "BundleReadError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "bundle_read"
		});
	}
};
const ABSENT = Symbol("absent");
const entriesSchema = require_cli.array(bundleEntrySchema);
const issueOf = (error, prefix) => {
	const issue = error.issues[0];
	return new BundleError(`bundle: ${[...prefix, ...issue?.path ?? []].join(".") || "(root)"}: ${issue?.message}`);
};
/**
* verifyBundle on a file, streamed: memory holds one chunk, one entry and the
* verifier's state, whatever the file's size. A checkpoint written after the
* entries is found first by a walk that skips them. Throws BundleReadError
* for a file that is not readable JSON, BundleError for one that does not verify.
*/
function verifyBundleFile(file, publicKey, options = {}, wholeBytes = MAX_WHOLE_BYTES) {
	let fd;
	try {
		fd = (0, node_fs.openSync)(file, "r");
	} catch (error) {
		throw new BundleReadError(require_cli.causeText(error), { cause: error });
	}
	try {
		return streamed(fd, publicKey, options);
	} catch (error) {
		if (!(error instanceof CannotStream)) throw readError(error);
		return whole(fd, file, error, publicKey, options, wholeBytes);
	} finally {
		(0, node_fs.closeSync)(fd);
	}
}
function readError(error) {
	return error instanceof require_cli.LeaseGateError || !(error instanceof Error && "code" in error) ? error : new BundleReadError(require_cli.causeText(error), { cause: error });
}
/** What cannot be streamed is read whole, as verify always did, when it is small enough. */
function whole(fd, file, cannot, publicKey, options, wholeBytes) {
	const size = (0, node_fs.fstatSync)(fd).size;
	if (size > wholeBytes) throw new BundleReadError(`${cannot.message}; a bundle of ${Math.round(size / 2 ** 20)} MiB is read only as {"checkpoint": \u2026, "entries": [\u2026]}`);
	let raw;
	try {
		raw = JSON.parse((0, node_fs.readFileSync)(file, "utf8"));
	} catch (error) {
		throw new BundleReadError(require_cli.causeText(error), { cause: error });
	}
	return verifyBundle(raw, publicKey, options);
}
function streamed(fd, publicKey, options) {
	let checkpointIssue;
	let entriesIssue;
	let problem;
	let verifier;
	let checkpoint = ABSENT;
	let hasEntries = false;
	const takeCheckpoint = (value) => {
		if (checkpoint !== ABSENT) return;
		checkpoint = value;
		const parsed = bundleSchema.shape.checkpoint.safeParse(value);
		if (!parsed.success) {
			checkpointIssue = issueOf(parsed.error, ["checkpoint"]);
			return;
		}
		try {
			verifier = new BundleVerifier(parsed.data, publicKey, options, (id, seq) => grantInFile(fd, id, seq));
		} catch (error) {
			if (!(error instanceof BundleError)) throw error;
			problem = error;
		}
	};
	read(fd, {
		checkpoint: takeCheckpoint,
		entriesBegin: () => {
			hasEntries = true;
			if (checkpoint === ABSENT) {
				let found = void 0;
				read(fd, {
					checkpoint: (value) => found = value,
					entriesBegin: () => false,
					entry: () => void 0,
					entriesValue: () => void 0
				});
				takeCheckpoint(found);
			}
			return true;
		},
		entry: (value, i) => {
			if (entriesIssue) return;
			const item = bundleEntrySchema.safeParse(value);
			if (!item.success) {
				entriesIssue = issueOf(item.error, ["entries", i]);
				return;
			}
			if (!verifier || problem || checkpointIssue) return;
			try {
				verifier.add(item.data);
			} catch (error) {
				if (!(error instanceof BundleError)) throw error;
				problem = error;
			}
		},
		entriesValue: (value) => {
			hasEntries = true;
			const parsed = entriesSchema.safeParse(value);
			if (!parsed.success) entriesIssue = issueOf(parsed.error, ["entries"]);
		}
	});
	if (checkpoint === ABSENT) takeCheckpoint(void 0);
	if (!hasEntries) {
		const parsed = entriesSchema.safeParse(void 0);
		if (!parsed.success) entriesIssue = issueOf(parsed.error, ["entries"]);
	}
	const first = checkpointIssue ?? entriesIssue ?? problem;
	if (first) throw first;
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
		checkpoint: () => void 0,
		entriesBegin: () => true,
		entry: (value) => {
			const item = bundleEntrySchema.safeParse(value);
			if (!item.success || item.data.index >= seq) return false;
			const { entry } = item.data;
			if (entry.kind !== "grant" || entry.leaseId !== leaseId) return true;
			found = {
				seq: entry.seq,
				resource: entry.resource
			};
			return false;
		},
		entriesValue: () => void 0
	});
	return found;
}
// src/cli/small-heap.ts
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
	(0, node_v8.setFlagsFromString)("--semi-space-growth-factor=1");
	(0, node_v8.setFlagsFromString)("--optimize-for-size");
}
// src/cli/ledger-commands.ts
/** `lease-gate keygen --out DIR`: an Ed25519 key pair for signing the ledger. */
function keygen(args, io) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.KEYGEN.flags));
	if (!values.out) throw new require_cli.UsageError("keygen needs --out DIR.");
	const keyFile = (0, node_path.join)(values.out, "ledger.key");
	const pubFile = (0, node_path.join)(values.out, "ledger.pub");
	if ((0, node_fs.existsSync)(keyFile)) throw new require_cli.UsageError(`${keyFile} exists already; refusing to overwrite a signing key.`);
	(0, node_fs.mkdirSync)(values.out, { recursive: true });
	const { privateKey, publicKey } = (0, node_crypto.generateKeyPairSync)("ed25519");
	(0, node_fs.writeFileSync)(keyFile, privateKey.export({
		type: "pkcs8",
		format: "pem"
	}), { mode: 384 });
	(0, node_fs.chmodSync)(keyFile, 384);
	(0, node_fs.writeFileSync)(pubFile, publicKey.export({
		type: "spki",
		format: "pem"
	}));
	io.out(`wrote ${keyFile} (private, mode 0600) and ${pubFile}`);
	return require_cli.EXIT.done;
}
/** `lease-gate ledger export [--api-url U] [--out FILE]`: the kernel's ledger as a bundle. */
async function ledger(args, io, env) {
	const [sub, ...rest] = args;
	if (sub !== "export") throw new require_cli.UsageError(`Unknown ledger command '${sub ?? ""}'. Expected 'export'.`);
	const { values } = require_cli.parse(rest, require_cli.optionsOf(require_cli.LEDGER_EXPORT.flags));
	if (values["api-url"] !== void 0 && values.url !== void 0) throw new require_cli.UsageError("Give --api-url or its older name --url, not both.");
	const given = require_cli.givenApiUrl(values["api-url"] ?? values.url, env, values.url === void 0 ? "--api-url" : "--url");
	const url = require_cli.parsePlaneUrl(given.value);
	if (!url.ok) throw new require_cli.UsageError(`Invalid ${given.from} '${require_cli.untrusted(given.value, 200)}'. Expected an https:// origin (plain http:// only for loopback).`);
	const key = require_cli.keyFromEnv(env).value || env.LEASE_GATE_KERNEL_KEY;
	keepHeapSmall();
	const progress = (count, size) => io.err(`ledger export: ${count} of ${size} entries`);
	if (values.out) {
		await exportToFile(url.url, key, values.out, progress);
		io.out(`wrote ${values.out} and its public key ${values.out}.pub`);
	} else if (io.write) {
		await require_remote.exportLedger(url.url, key, io.write, progress);
		await io.write("\n");
	} else {
		let text = "";
		await require_remote.exportLedger(url.url, key, (piece) => void (text += piece), progress);
		io.out(text);
	}
	return require_cli.EXIT.done;
}
/**
* The bundle written to FILE.tmp as its pages arrive, flushed to disk, then
* renamed to FILE (after FILE.pub): an export that fails or is stopped never
* leaves a cut bundle under FILE, only FILE.tmp, removed when it fails.
*/
async function exportToFile(apiUrl, key, out, progress) {
	const shared = { mode: 438 };
	await require_durable.writeFileDurable(out, async (write) => {
		const { publicKey } = await require_remote.exportLedger(apiUrl, key, write, progress);
		await require_durable.writeFileDurable(`${out}.pub`, publicKey, {
			...shared,
			temp: `${out}.pub.tmp`
		});
	}, {
		...shared,
		temp: `${out}.tmp`
	});
}
/** `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT]`: offline. */
function verify(args, io) {
	const { values, positionals } = require_cli.parse(args, require_cli.optionsOf(require_cli.VERIFY.flags), true);
	const promote = require_checkpoint.promoteFlag(values.promote);
	const [file] = positionals;
	if (!file || !values["public-key"]) throw new require_cli.UsageError("verify needs FILE and --public-key KEY.");
	let key;
	try {
		const pem = (0, node_fs.readFileSync)(values["public-key"], "utf8");
		key = pem.includes("PRIVATE KEY") ? (0, node_crypto.createPublicKey)((0, node_crypto.createPrivateKey)(pem)) : (0, node_crypto.createPublicKey)(pem);
	} catch (error) {
		throw new require_cli.UsageError(`Cannot read the public key ${values["public-key"]}: ${require_cli.causeText(error)}`, { cause: error });
	}
	keepHeapSmall();
	let previous;
	try {
		previous = values.previous ? (0, node_fs.readFileSync)(values.previous, "utf8") : void 0;
	} catch (error) {
		try {
			verifyBundleFile(file, key);
		} catch (unreadable) {
			if (unreadable instanceof BundleReadError) return unreadableBundle(io, file, unreadable);
		}
		throw error;
	}
	try {
		const result = verifyBundleFile(file, key, {
			previous,
			allowPartial: values["allow-partial"],
			promote
		});
		const root = Buffer.from(result.root).toString("base64");
		if (values.json) io.out(JSON.stringify({
			ok: true,
			origin: result.origin,
			size: result.size,
			root,
			first: result.first,
			count: result.count
		}));
		else io.out(`OK ${result.origin}: size ${result.size}, root ${root}, ${result.count} entries verified${values.previous ? ", consistent with the previous checkpoint" : ""}`);
		return require_cli.EXIT.done;
	} catch (error) {
		if (error instanceof BundleReadError) return unreadableBundle(io, file, error);
		if (!(error instanceof BundleError)) throw error;
		io.err(`FAIL: ${error.message}`);
		return require_cli.EXIT.refused;
	}
}
function unreadableBundle(io, file, error) {
	io.err(`FAIL: ${file} is not a readable JSON bundle (${error.message})`);
	return require_cli.EXIT.refused;
}
exports.keygen = keygen;
exports.ledger = ledger;
exports.verify = verify;

//# sourceMappingURL=ledger-commands-DQOzNejM.js.map