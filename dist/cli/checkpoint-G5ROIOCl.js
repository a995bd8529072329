const require_rolldown_runtime = require("./rolldown-runtime-C-fzZZTt.js");
require("./zod-en-DySWmmj3.js");
const require_cli = require("./cli.js");
const require_entry_kinds = require("./entry-kinds-DYb7pk0U.js");
let node_crypto = require("node:crypto");
node_crypto = require_rolldown_runtime.__toESM(node_crypto, 1);
// src/ledger/promotion.ts
const PROMOTE_FORM = "FROM->TO, such as 'staging->production' (a name without ':' is lock:deploy/NAME) or 'lock:deploy/staging->lock:deploy/production'";
/** The release reason of a holder that did not deploy (kernel/rules/deploy-order.ts). */
const OUTDATED = "outdated";
const RESOURCE = /^[\x21-\x7e]{1,256}$/;
/** An environment name without ':' is its deploy lock (`production` is lock:deploy/production). */
const resourceOf = (name) => name.includes(":") ? name : `lock:deploy/${name}`;
/** `staging->production`, or undefined when it is not of PROMOTE_FORM. */
function parsePromotion(spec) {
	const parts = spec.split("->");
	if (parts.length !== 2) return void 0;
	const [from, to] = parts.map((p) => p.trim() ? resourceOf(p.trim()) : "");
	if (!from || !to || from === to || !RESOURCE.test(from) || !RESOURCE.test(to)) return void 0;
	return {
		from,
		to
	};
}
/** Each resource's one predecessor; undefined when two steps name the same `to` or it loops. */
function promotionChain(steps) {
	const before = /* @__PURE__ */ new Map();
	for (const { from, to } of steps) {
		if (before.has(to)) return `${to} is promoted to from two resources: give it one step before it`;
		before.set(to, from);
	}
	for (const start of before.keys()) {
		const seen = /* @__PURE__ */ new Set([start]);
		for (let at = before.get(start); at !== void 0; at = before.get(at)) {
			if (seen.has(at)) return `the promotion order loops through ${at}`;
			seen.add(at);
		}
	}
	return before;
}
const commitOf = (deploy) => {
	const repository = deploy?.repository;
	const commit = deploy?.commit;
	return typeof repository === "string" && typeof commit === "string" && commit !== "" ? {
		repository,
		commit
	} : void 0;
};
var PromotionRecord = class {
	before;
	froms;
	/** Open holds on a `from` resource that named a commit, by lease id. */
	open = /* @__PURE__ */ new Map();
	/** Per `from` resource, `repository commit` of each completed hold, oldest first. */
	completed = /* @__PURE__ */ new Map();
	constructor(chain) {
		this.before = chain;
		this.froms = new Set(chain.values());
	}
	get steps() {
		return [...this.before].map(([to, from]) => ({
			from,
			to
		}));
	}
	/** The step before `resource`, if the order names one. */
	stepBefore(resource) {
		return this.before.get(resource);
	}
	/** One entry, in the ledger's order. */
	add(e) {
		if (!this.froms.has(e.resource)) return;
		if (e.kind === "grant") {
			const c = commitOf(e.deploy);
			if (c) this.open.set(e.leaseId, `${c.repository} ${c.commit}`);
			return;
		}
		if (e.kind !== "release" && e.kind !== "lapse" && e.kind !== "revoke") return;
		const key = this.open.get(e.leaseId);
		if (key === void 0) return;
		this.open.delete(e.leaseId);
		if (e.kind !== "release" || e.reason === OUTDATED) return;
		const done = this.completed.get(e.resource) ?? /* @__PURE__ */ new Set();
		this.completed.set(e.resource, done);
		done.delete(key);
		done.add(key);
		if (done.size > 1e4) done.delete(done.values().next().value);
	}
	/**
	* Commits of `repository` that completed a hold on `from`, newest first, at most `max`:
	* those a descendant check asks GitHub about.
	*/
	completedOn(from, repository, max) {
		const done = [...this.completed.get(from) ?? []];
		const found = [];
		const prefix = `${repository} `;
		for (let i = done.length - 1; i >= 0 && found.length < max; i -= 1) if (done[i].startsWith(prefix)) found.push(done[i].slice(prefix.length));
		return found;
	}
	/**
	* Why a grant of `resource` to this deploy breaks the order (naming the missing step), or
	* undefined. `via`: the commit the kernel signed as completing the step and containing
	* this one; then it is that commit the ledger must show completed.
	*/
	missing(resource, deploy, via) {
		const from = this.before.get(resource);
		if (from === void 0) return void 0;
		const c = commitOf(deploy);
		if (!c) return `${resource} is promoted to only from ${from}, and this request names no commit (deploy.repository and deploy.commit) to look for there`;
		const done = this.completed.get(from);
		if (via !== void 0) {
			if (done?.has(`${c.repository} ${via}`)) return void 0;
			return `${c.repository}@${c.commit.slice(0, 12)} was let through as contained in ${via.slice(0, 12)}, which has not completed a hold on ${from} (promotion order ${from} -> ${resource})`;
		}
		if (done?.has(`${c.repository} ${c.commit}`)) return void 0;
		return `${c.repository}@${c.commit.slice(0, 12)} has not completed a hold on ${from}: deploy it there first (promotion order ${from} -> ${resource})`;
	}
};
// src/cli/promote-flag.ts
/**
* `--promote FROM->TO`, repeated (the kernel's order, and verify's check of it): each
* resource's one step before it, with no loop; bad input is refused naming the form.
*/
function promoteFlag(specs) {
	if (!specs.length) return void 0;
	const chain = promotionChain(specs.map((spec) => {
		const step = parsePromotion(spec);
		if (!step) throw new require_cli.UsageError(invalidPromote(spec));
		return step;
	}));
	if (typeof chain === "string") throw new require_cli.UsageError(`Invalid --promote: ${chain}.`);
	return chain;
}
/**
* A FROM that ends in '-' with no '->' is what a shell leaves of an unquoted `dev->staging`:
* it reads `>staging` as a redirect (and makes a file named staging), so say to quote it.
*/
function invalidPromote(spec) {
	const shown = require_cli.untrusted(spec, 100);
	if (spec.length > 1 && spec.endsWith("-") && !spec.includes("->")) return `Invalid --promote '${shown}': a shell reads an unquoted ${shown}>TO as '${shown}' and a redirect to a file TO. Quote it: --promote '${shown}>TO'.`;
	return `Invalid --promote '${shown}'. Expected ${PROMOTE_FORM}.`;
}
// src/plane/canonical-json.ts
/** JSON with sorted keys and no whitespace, so the same entry always hashes the same. */
function canonicalJson(value) {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
	if (value && typeof value === "object") return `{${Object.entries(value).filter(([, v]) => v !== void 0).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
	return JSON.stringify(value);
}
// src/ledger/entry.ts
/** One ledger entry; its canonical JSON is the Merkle leaf. */
const entrySchema = require_cli.strictObject({
	seq: require_cli.number().check(require_cli.int(), require_cli._nonnegative()),
	tsMs: require_cli.number().check(require_cli.int(), require_cli._nonnegative()),
	/**
	* A lapse, or a grant a break-glass let through, stamped one after the entry
	* before it (in a run of +1 stamps, which may run ahead of the clock): the
	* kernel's clock when it decided it, so its time is known (never above
	* `tsMs`). Without it a lapse's time is the first stamp of its run, and a
	* grant's, for its break-glass, its own stamp.
	*/
	clockMs: require_cli.optional(require_cli.number().check(require_cli.int(), require_cli._nonnegative())),
	kind: require_cli._enum(require_entry_kinds.ENTRY_KINDS),
	resource: require_cli.string(),
	actorDid: require_cli.string(),
	leaseId: require_cli.string(),
	fence: require_cli.number().check(require_cli.int()),
	/** The end the holder was told (grants and renewals), so a replay never shortens a lease. */
	expiresAtMs: require_cli.optional(require_cli.number().check(require_cli.int())),
	reason: require_cli.optional(require_cli.string()),
	/**
	* Who revoked (revokes): `operator:NAME` when the operator gave a name,
	* as a freeze's `actorDid` does (a revoke's `actorDid` is the holder it
	* ended); who opened a break-glass (break_glass). Optional, so ledgers
	* written before it verify as they are.
	*/
	by: require_cli.optional(require_cli.string()),
	/** The second operator who approved a break-glass (break_glass entries that needed one). */
	approvedBy: require_cli.optional(require_cli.string()),
	/**
	* The one approval an OIDC approver gave (break_glass): its run and attempt, as a DID
	* prefix without the last colon. One approval approves one pass; verify refuses a second.
	*/
	approval: require_cli.optional(require_cli.string()),
	/**
	* What the holder said it deploys (grants; repository, commit, run...):
	* recorded as the kernel validated it, a small flat object. Optional, so
	* ledgers written before it verify as they are.
	*/
	deploy: require_cli.optional(require_cli.record(require_cli.string().check(require_cli._maxLength(64)), require_cli.union([
		require_cli.string().check(require_cli._maxLength(2048)),
		require_cli.number(),
		require_cli._undefined()
	])).check(require_cli.refine((d) => Object.keys(d).length <= 16, "expected at most 16 fields"))),
	/**
	* A grant let past a promotion step by a descendant: the commit (same repository) that
	* completed the step before and, by GitHub's compare when the kernel asked, contains the
	* one deployed. `verify --promote` checks the ledger shows it completed; the containing it
	* is the kernel's signed word. Optional, so ledgers written before it verify as they are.
	*/
	promotedVia: require_cli.optional(require_cli.string().check(require_cli._regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/))),
	/**
	* The OIDC issuer (its URL) whose token the grant's holder proved itself with, on a kernel
	* of several CIs' issuers; `verify` checks the holder's DID lies in that issuer's namespace
	* (ledger/issuer-check.ts). Optional, so ledgers written before it verify as they are.
	*/
	issuer: require_cli.optional(require_cli.string().check(require_cli._maxLength(500)))
});
/**
* The entry for an event, field by field. Not `{ ...rest, seq, tsMs }` after
* `{ atMs, ...rest }`: V8 gave every object built that way a hidden class of
* its own, in the old generation, and the kernel's entries then outlived the
* young collections (three times the bytes promoted under load).
*/
function entryOf(event, seq, tsMs, clockMs) {
	const { kind, resource, actorDid, leaseId, fence, expiresAtMs, reason, by, deploy } = event;
	const { approvedBy, approval, promotedVia, issuer } = event;
	const entry = {
		kind,
		resource,
		actorDid,
		leaseId,
		fence,
		seq,
		tsMs
	};
	if (clockMs !== void 0) entry.clockMs = clockMs;
	if (expiresAtMs !== void 0) entry.expiresAtMs = expiresAtMs;
	if (reason !== void 0) entry.reason = reason;
	if (by !== void 0) entry.by = by;
	if (approvedBy !== void 0) entry.approvedBy = approvedBy;
	if (approval !== void 0) entry.approval = approval;
	if (deploy !== void 0) entry.deploy = deploy;
	if (promotedVia !== void 0) entry.promotedVia = promotedVia;
	if (issuer !== void 0) entry.issuer = issuer;
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
	if (e.approval !== void 0) text += `,"approval":${s(e.approval)}`;
	if (e.approvedBy !== void 0) text += `,"approvedBy":${s(e.approvedBy)}`;
	if (e.by !== void 0) text += `,"by":${s(e.by)}`;
	if (e.clockMs !== void 0) text += `,"clockMs":${e.clockMs}`;
	if (e.deploy !== void 0) text += `,"deploy":${canonicalJson(e.deploy)}`;
	if (e.expiresAtMs !== void 0) text += `,"expiresAtMs":${e.expiresAtMs}`;
	text += `,"fence":${e.fence}`;
	if (e.issuer !== void 0) text += `,"issuer":${s(e.issuer)}`;
	text += `,"kind":"${e.kind}","leaseId":${s(e.leaseId)}`;
	if (e.promotedVia !== void 0) text += `,"promotedVia":${s(e.promotedVia)}`;
	if (e.reason !== void 0) text += `,"reason":${s(e.reason)}`;
	return `${text},"resource":${s(e.resource)},"seq":${e.seq},"tsMs":${e.tsMs}}`;
}
/**
* One line read back from storage, checked as untrusted: the entry `seq` in
* canonical form, or undefined.
*/
function readEntry(line, seq) {
	let parsed;
	try {
		parsed = JSON.parse(line);
	} catch {
		return;
	}
	const entry = entrySchema.safeParse(parsed);
	if (!entry.success || entry.data.seq !== seq || canonicalJson(entry.data) !== line) return void 0;
	return entry.data;
}
// src/ledger/merkle.ts
const HASH_BYTES = 32;
const sha256 = (...parts) => {
	const h = (0, node_crypto.createHash)("sha256");
	for (const part of parts) h.update(part);
	return new Uint8Array(h.digest());
};
const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);
/**
* One-shot SHA-256 (Node \u2265 20.12): no Hash object per digest. Those objects
* hold native handles that survive the young generation's collections, which
* made the collector the largest cost of an append. Older Nodes use createHash.
*/
const oneShot = node_crypto.hash;
let scratch = Buffer.allocUnsafeSlow(1024);
/** SHA-256 of one prefix byte and the parts; the digest is a fresh buffer. */
function prefixedDigest(prefix, a, b) {
	if (!oneShot) {
		const h = (0, node_crypto.createHash)("sha256").update(prefix).update(a);
		return (b ? h.update(b) : h).digest();
	}
	const size = 1 + a.length + (b?.length ?? 0);
	if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(size * 2);
	scratch[0] = prefix[0];
	scratch.set(a, 1);
	if (b) scratch.set(b, 1 + a.length);
	return oneShot("sha256", scratch.subarray(0, size), "buffer");
}
/**
* SHA-256 of scratch[0, size) as base64 text. The digest is a string on the JavaScript heap,
* not a buffer: a verifier makes millions, and a buffer each (memory outside the heap, freed
* only after a collection) made its resident memory grow with the bundle.
*/
function base64Digest(size) {
	const bytes = scratch.subarray(0, size);
	return oneShot ? oneShot("sha256", bytes, "base64") : (0, node_crypto.createHash)("sha256").update(bytes).digest("base64");
}
/** leafHash of `text`'s UTF-8 bytes, in base64. */
function leafHashBase64(text) {
	const size = 1 + Buffer.byteLength(text, "utf8");
	if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(size * 2);
	scratch[0] = LEAF_PREFIX[0];
	scratch.write(text, 1, "utf8");
	return base64Digest(size);
}
/** nodeHash of two hashes given in base64 (each 32 bytes: the caller has checked). */
function nodeHashBase64(left, right) {
	scratch[0] = NODE_PREFIX[0];
	scratch.write(left, 1, HASH_BYTES, "base64");
	scratch.write(right, 33, HASH_BYTES, "base64");
	return base64Digest(65);
}
/** A digest as a plain Uint8Array view (no copy): what the tree and its proofs hold. */
const view = (digest) => new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
const leafHash = (data) => view(prefixedDigest(LEAF_PREFIX, data));
const nodeHash = (left, right) => view(prefixedDigest(NODE_PREFIX, left, right));
const EMPTY_ROOT = sha256();
/** The largest power of two strictly below n (n \u2265 2). */
function splitPoint(n) {
	let k = 1;
	while (k * 2 < n) k *= 2;
	return k;
}
/** A growable array of 32-byte hashes in one buffer (millions of leaves stay compact). */
var HashList = class {
	buffer = /* @__PURE__ */ new Uint8Array(2048);
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
	/** The first `count` hashes as one buffer (a copy). */
	slice(count) {
		return this.buffer.slice(0, count * HASH_BYTES);
	}
	get bytes() {
		return this.buffer.length;
	}
};
/** Recomputed chunks kept for the next proofs: an export page walks one chunk after another. */
const CHUNK_CACHE = 4;
var MerkleTree = class {
	/**
	* low[k][i] is the hash of leaves [base + i\u00b72^k, base + (i+1)\u00b72^k) for the
	* chunk starting at `base`, k < chunkBits; high[k][i] of leaves
	* [i\u00b72^(k+chunkBits), (i+1)\u00b72^(k+chunkBits)). Without a leaf reader the
	* chunk never closes, so `low` holds the whole tree.
	*/
	low = [new HashList()];
	high = [];
	chunkBits;
	leaves;
	base = 0;
	count = 0;
	recomputed = /* @__PURE__ */ new Map();
	constructor(options = {}) {
		this.leaves = options.leaves;
		this.chunkBits = options.leaves ? options.chunkBits ?? 8 : 52;
	}
	get size() {
		return this.count;
	}
	/** Bytes of hashes this tree keeps (what a bounded tree bounds). */
	get heldBytes() {
		let bytes = 0;
		for (const list of [...this.low, ...this.high]) bytes += list.bytes;
		return bytes;
	}
	/** The size of one chunk, 2^chunkBits leaves. */
	get chunkSize() {
		return 2 ** this.chunkBits;
	}
	/** Appends a leaf's data; returns its index. */
	append(data) {
		return this.appendHash(prefixedDigest(LEAF_PREFIX, data));
	}
	appendHash(hash) {
		const index = this.count;
		let node = hash;
		let level = 0;
		for (let i = index - this.base; level < this.chunkBits; level += 1, i >>= 1) {
			const list = this.low[level] ??= new HashList();
			list.push(node);
			if (i % 2 === 0) {
				this.count += 1;
				return index;
			}
			node = prefixedDigest(NODE_PREFIX, list.at(i - 1), node);
		}
		for (const list of this.low) list.length = 0;
		this.base += this.chunkSize;
		this.count += 1;
		this.pushChunk(node);
		return index;
	}
	/** The roots of the complete chunks, in order (a bounded tree's whole memory but its last chunk). */
	chunkRoots() {
		return this.high[0]?.slice(this.base / this.chunkSize) ?? /* @__PURE__ */ new Uint8Array(0);
	}
	/**
	* Starts an empty bounded tree from the roots of its first complete chunks
	* (as `chunkRoots` gave them); the leaves after them are appended.
	*/
	restoreChunks(roots) {
		if (this.count !== 0 || !this.leaves) throw new RangeError("only an empty bounded tree restores");
		if (roots.length % HASH_BYTES !== 0) throw new RangeError("chunk roots are not whole hashes");
		for (let at = 0; at < roots.length; at += HASH_BYTES) {
			this.base += this.chunkSize;
			this.count += this.chunkSize;
			this.pushChunk(roots.subarray(at, at + HASH_BYTES));
		}
	}
	pushChunk(root) {
		let node = root;
		for (let level = 0, i = this.base / this.chunkSize - 1;; level += 1, i = Math.floor(i / 2)) {
			const list = this.high[level] ??= new HashList();
			list.push(node);
			if (i % 2 === 0) break;
			node = prefixedDigest(NODE_PREFIX, list.at(i - 1), node);
		}
	}
	leafHashAt(index) {
		return this.node(0, index);
	}
	/** The root of the first `size` leaves (the whole tree by default). */
	root(size = this.size) {
		this.checkSize(size);
		return size === 0 ? EMPTY_ROOT : this.range(0, size);
	}
	/** RFC 9162 \u00a72.1.3.1 PATH(m, D[n]). */
	inclusionProof(index, size = this.size) {
		return this.pathOf(index, size, (lo, hi) => this.range(lo, hi));
	}
	/**
	* Inclusion proofs of leaves [from, to) in the tree of `size`. The hashes of
	* incomplete subtrees are shared by neighbouring proofs, so they are
	* computed once for the whole run.
	*/
	inclusionProofs(from, to, size = this.size) {
		const memo = /* @__PURE__ */ new Map();
		const cached = (lo, hi) => {
			const n = hi - lo;
			if ((n & n - 1) === 0 && lo % n === 0) return this.range(lo, hi);
			const key = lo * 2 ** 26 + n;
			let hash = memo.get(key);
			if (!hash) memo.set(key, hash = this.range(lo, hi));
			return hash;
		};
		const proofs = [];
		for (let index = from; index < to; index += 1) proofs.push(this.pathOf(index, size, cached));
		return proofs;
	}
	pathOf(index, size, range) {
		this.checkSize(size);
		if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
		const stack = [];
		let lo = 0;
		let hi = size;
		let m = index;
		while (hi - lo > 1) {
			const k = splitPoint(hi - lo);
			if (m < k) {
				stack.push(range(lo + k, hi));
				hi = lo + k;
			} else {
				stack.push(range(lo, lo + k));
				lo += k;
				m -= k;
			}
		}
		return stack.reverse();
	}
	/** RFC 9162 \u00a72.1.4.1 PROOF(m, D[n]). */
	consistencyProof(first, second = this.size) {
		this.checkSize(second);
		if (!(first >= 0 && first <= second)) throw new RangeError(`cannot prove ${first} \u2192 ${second}`);
		if (first === 0 || first === second) return [];
		const stack = [];
		let lo = 0;
		let hi = second;
		let m = first;
		let whole = true;
		for (;;) {
			const n = hi - lo;
			if (m === n) {
				if (!whole) stack.push(this.range(lo, hi));
				break;
			}
			const k = splitPoint(n);
			if (m <= k) {
				stack.push(this.range(lo + k, hi));
				hi = lo + k;
			} else {
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
		if ((n & n - 1) === 0 && lo % n === 0) return this.node(Math.log2(n), lo / n);
		const k = splitPoint(n);
		return nodeHash(this.range(lo, lo + k), this.range(lo + k, hi));
	}
	/** The complete subtree `i` of 2^level leaves. */
	node(level, i) {
		if (level >= this.chunkBits) return this.high[level - this.chunkBits].at(i);
		const first = i * 2 ** level;
		if (first >= this.base) return this.low[level].at(i - this.base / 2 ** level);
		const chunk = Math.floor(first / this.chunkSize);
		return this.chunk(chunk)[level][i - chunk * 2 ** (this.chunkBits - level)];
	}
	/** Every node of an older chunk, from its leaves read back (a few kept for the next proofs). */
	chunk(c) {
		const kept = this.recomputed.get(c);
		if (kept) return kept;
		const lo = c * this.chunkSize;
		const data = this.leaves(lo, lo + this.chunkSize);
		if (data.length !== this.chunkSize) throw new RangeError(`leaves ${lo}..${lo + this.chunkSize} could not be read back`);
		const levels = [data.map((d) => new Uint8Array(prefixedDigest(LEAF_PREFIX, d)))];
		for (let level = 1; level < this.chunkBits; level += 1) {
			const below = levels[level - 1];
			const nodes = [];
			for (let j = 0; j < below.length; j += 2) nodes.push(new Uint8Array(prefixedDigest(NODE_PREFIX, below[j], below[j + 1])));
			levels.push(nodes);
		}
		const top = levels.at(-1);
		const root = prefixedDigest(NODE_PREFIX, top[0], top[1]);
		if (!equalHashes(root, this.high[0].at(c))) throw new RangeError(`leaves ${lo}..${lo + this.chunkSize} read back do not hash to the tree's`);
		if (this.recomputed.size >= CHUNK_CACHE) this.recomputed.delete(this.recomputed.keys().next().value);
		this.recomputed.set(c, levels);
		return levels;
	}
	checkSize(size) {
		if (!(Number.isInteger(size) && size >= 0 && size <= this.size)) throw new RangeError(`tree size ${size} is not between 0 and ${this.size}`);
	}
};
const equalHashes = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);
// src/ledger/merkle-proof.ts
/**
* Checking RFC 9162 proofs against roots, apart from the tree that makes them (merkle.ts):
* a verifier needs these few functions and the hashes, never a tree.
*/
const half = (n) => Math.floor(n / 2);
/**
* The proof walk that RFC 9162 \u00a72.1.3.2 and \u00a72.1.4.2 share: `left(p)` when the
* proof hash sits to the left of the running hash, `right(p)` otherwise.
* Returns the final `sn` (0 for a proof of the right length), or -1 when the
* proof is too long.
*/
function walk(fn, sn, proof, left, right) {
	for (const p of proof) {
		if (sn === 0) return -1;
		if (fn % 2 === 1 || fn === sn) {
			left(p);
			while (fn % 2 === 0 && fn !== 0) {
				fn = half(fn);
				sn = half(sn);
			}
		} else right(p);
		fn = half(fn);
		sn = half(sn);
	}
	return sn;
}
/** RFC 9162 \u00a72.1.4.2: is the tree of `second` with `secondRoot` an extension of `first`? */
function verifyConsistency(first, second, firstRoot, secondRoot, proof) {
	if (first > second || first < 0) return false;
	if (first === second) return proof.length === 0 && equalHashes(firstRoot, secondRoot);
	if (first === 0) return proof.length === 0;
	if (proof.length === 0) return false;
	const path = (first & first - 1) === 0 ? [firstRoot, ...proof] : proof;
	let fn = first - 1;
	let sn = second - 1;
	while (fn % 2 === 1) {
		fn = half(fn);
		sn = half(sn);
	}
	let fr = path[0];
	let sr = path[0];
	return walk(fn, sn, path.slice(1), (c) => {
		fr = nodeHash(c, fr);
		sr = nodeHash(c, sr);
	}, (c) => sr = nodeHash(sr, c)) === 0 && equalHashes(fr, firstRoot) && equalHashes(sr, secondRoot);
}
/** Where a proof hash is decoded to learn its length: one byte more than a hash. */
const probe = Buffer.alloc(33);
/**
* verifyInclusion for many leaves of one tree, in any order, with the same
* answers: the walk of each proof is kept until the next, and a walk that
* reaches the same node with the same hash as the walk before it (same `fn`,
* `sn` and running hash) and has the same proof hashes left gives that walk's
* answer without hashing them again. Consecutive leaves share all but a few
* steps, so a bundle's proofs cost about two hashes an entry, not one per level.
* Hashes stay the bundle's base64 text (merkle.ts hashes them from a scratch
* buffer), so checking an entry allocates no buffer.
*/
var InclusionVerifier = class {
	size;
	previous;
	root;
	constructor(size, root) {
		this.size = size;
		this.root = Buffer.from(root).toString("base64");
	}
	/**
	* verifyInclusion(index, size, leaf, decoded proof, root) for a leaf hash in
	* base64; 'length' when a proof hash is not 32 bytes (checked for every hash,
	* as the bundle's check does).
	*/
	verify(index, leaf, proof) {
		const previous = this.previous;
		let same = proof.length;
		if (previous && previous.proof.length === proof.length) while (same > 0 && previous.proof[same - 1] === proof[same - 1]) same -= 1;
		for (let k = 0; k < same; k += 1) if (probe.write(proof[k], 0, probe.length, "base64") !== 32) return "length";
		if (!(index >= 0 && index < this.size)) return false;
		const steps = [];
		let fn = index;
		let sn = this.size - 1;
		let r = leaf;
		for (let k = 0; k < proof.length; k += 1) {
			const before = previous?.steps[k - 1];
			if (k >= same && k > 0 && before?.fn === fn && before.sn === sn && before.hash === r) {
				for (let j = k; j < previous.steps.length; j += 1) steps[j] = previous.steps[j];
				this.previous = {
					proof,
					steps
				};
				return true;
			}
			if (sn === 0) return false;
			if (fn % 2 === 1 || fn === sn) {
				r = nodeHashBase64(proof[k], r);
				while (fn % 2 === 0 && fn !== 0) {
					fn = half(fn);
					sn = half(sn);
				}
			} else r = nodeHashBase64(r, proof[k]);
			fn = half(fn);
			sn = half(sn);
			steps.push({
				fn,
				sn,
				hash: r
			});
		}
		const ok = sn === 0 && r === this.root;
		if (ok) this.previous = {
			proof,
			steps
		};
		return ok;
	}
};
// src/ledger/checkpoint.ts
var CheckpointError = class extends require_cli.LeaseGateError {
	name = "CheckpointError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "checkpoint"
		});
	}
};
const ED25519 = 1;
const SIGNATURE_PREFIX = "\u2014 ";
/** The 32 raw bytes of an Ed25519 public key. */
function rawPublicKey(key) {
	const der = (key.type === "public" ? key : (0, node_crypto.createPublicKey)(key)).export({
		format: "der",
		type: "spki"
	});
	return new Uint8Array(der.subarray(der.length - 32));
}
/** The log's origin (and key name), bound to its key so that a verifier can expect it. */
function originFor(key) {
	return `lease-gate.kernel/${(0, node_crypto.createHash)("sha256").update(rawPublicKey(key)).digest("hex").slice(0, 16)}`;
}
function keyId(name, publicKey) {
	const digest = (0, node_crypto.createHash)("sha256").update(name, "utf8").update(Uint8Array.of(10, ED25519)).update(rawPublicKey(publicKey)).digest();
	return new Uint8Array(digest.subarray(0, 4));
}
function checkpointBody({ origin, size, root }) {
	return `${origin}\n${size}\n${Buffer.from(root).toString("base64")}\n`;
}
function signCheckpoint(checkpoint, privateKey) {
	const publicKey = (0, node_crypto.createPublicKey)(privateKey);
	const name = checkpoint.origin;
	const body = checkpointBody(checkpoint);
	const signature = (0, node_crypto.sign)(null, Buffer.from(body, "utf8"), privateKey);
	const blob = Buffer.concat([keyId(name, publicKey), signature]).toString("base64");
	return `${body}\n${SIGNATURE_PREFIX}${name} ${blob}\n`;
}
/** One signature line: an em dash, the key name, and canonical base64 of key id \u2016 signature. */
const SIGNATURE_LINE = /^\u2014 ([^\s]+) ([A-Za-z0-9+/]+={0,2})$/;
/**
* Parses a signed checkpoint and checks its signature by `publicKey`; throws
* with the reason. The note is exactly origin, size and root; every signature
* line must be well formed (lines by other keys are skipped, not malformed ones).
*/
function verifyCheckpoint(text, publicKey) {
	const split = text.indexOf("\n\n");
	if (split < 0) throw new CheckpointError("checkpoint: no blank line between the note and its signatures");
	const body = text.slice(0, split + 1);
	const lines = body.split("\n");
	lines.pop();
	if (lines.length !== 3) throw new CheckpointError(`checkpoint: the note has ${lines.length} lines; expected 3 (origin, tree size, root)`);
	const [origin = "", sizeText = "", rootText = ""] = lines;
	if (!origin) throw new CheckpointError("checkpoint: empty origin line");
	if (!/^(0|[1-9]\d{0,15})$/.test(sizeText)) throw new CheckpointError(`checkpoint: tree size '${sizeText}' is not a decimal number`);
	const root = new Uint8Array(Buffer.from(rootText, "base64"));
	if (root.length !== 32 || Buffer.from(root).toString("base64") !== rootText) throw new CheckpointError("checkpoint: the root is not a base64 SHA-256 hash");
	const expectedOrigin = originFor(publicKey);
	if (origin !== expectedOrigin) throw new CheckpointError(`checkpoint: origin '${origin}' is not this key's log ('${expectedOrigin}')`);
	const rest = text.slice(split + 2);
	if (!rest.endsWith("\n")) throw new CheckpointError("checkpoint: the signatures do not end with a newline");
	const id = Buffer.from(keyId(origin, publicKey));
	let signature;
	rest.slice(0, -1).split("\n").forEach((line, i) => {
		const match = SIGNATURE_LINE.exec(line);
		const bytes = match && Buffer.from(match[2], "base64");
		if (!match || !bytes || bytes.toString("base64") !== match[2] || bytes.length < 5) throw new CheckpointError(`checkpoint: signature line ${i + 1} is malformed (expected '\u2014 <name> <base64 key id and signature>'): ${JSON.stringify(line.slice(0, 120))}`);
		if (!signature && match[1] === origin && bytes.subarray(0, 4).equals(id)) signature = bytes;
	});
	if (!signature) throw new CheckpointError("checkpoint: no signature by this public key");
	if (signature.length !== 68 || !(0, node_crypto.verify)(null, Buffer.from(body, "utf8"), publicKey, signature.subarray(4))) throw new CheckpointError("checkpoint: the signature does not verify with this public key");
	return {
		origin,
		size: Number(sizeText),
		root
	};
}
Object.defineProperty(exports, "CheckpointError", {
	enumerable: true,
	get: function() {
		return CheckpointError;
	}
});
Object.defineProperty(exports, "EMPTY_ROOT", {
	enumerable: true,
	get: function() {
		return EMPTY_ROOT;
	}
});
Object.defineProperty(exports, "InclusionVerifier", {
	enumerable: true,
	get: function() {
		return InclusionVerifier;
	}
});
Object.defineProperty(exports, "MerkleTree", {
	enumerable: true,
	get: function() {
		return MerkleTree;
	}
});
Object.defineProperty(exports, "PromotionRecord", {
	enumerable: true,
	get: function() {
		return PromotionRecord;
	}
});
Object.defineProperty(exports, "canonicalJson", {
	enumerable: true,
	get: function() {
		return canonicalJson;
	}
});
Object.defineProperty(exports, "commitOf", {
	enumerable: true,
	get: function() {
		return commitOf;
	}
});
Object.defineProperty(exports, "entryJson", {
	enumerable: true,
	get: function() {
		return entryJson;
	}
});
Object.defineProperty(exports, "entryOf", {
	enumerable: true,
	get: function() {
		return entryOf;
	}
});
Object.defineProperty(exports, "entrySchema", {
	enumerable: true,
	get: function() {
		return entrySchema;
	}
});
Object.defineProperty(exports, "equalHashes", {
	enumerable: true,
	get: function() {
		return equalHashes;
	}
});
Object.defineProperty(exports, "leafHash", {
	enumerable: true,
	get: function() {
		return leafHash;
	}
});
Object.defineProperty(exports, "leafHashBase64", {
	enumerable: true,
	get: function() {
		return leafHashBase64;
	}
});
Object.defineProperty(exports, "nodeHash", {
	enumerable: true,
	get: function() {
		return nodeHash;
	}
});
Object.defineProperty(exports, "originFor", {
	enumerable: true,
	get: function() {
		return originFor;
	}
});
Object.defineProperty(exports, "promoteFlag", {
	enumerable: true,
	get: function() {
		return promoteFlag;
	}
});
Object.defineProperty(exports, "readEntry", {
	enumerable: true,
	get: function() {
		return readEntry;
	}
});
Object.defineProperty(exports, "resourceOf", {
	enumerable: true,
	get: function() {
		return resourceOf;
	}
});
Object.defineProperty(exports, "signCheckpoint", {
	enumerable: true,
	get: function() {
		return signCheckpoint;
	}
});
Object.defineProperty(exports, "verifyCheckpoint", {
	enumerable: true,
	get: function() {
		return verifyCheckpoint;
	}
});
Object.defineProperty(exports, "verifyConsistency", {
	enumerable: true,
	get: function() {
		return verifyConsistency;
	}
});

//# sourceMappingURL=checkpoint-G5ROIOCl.js.map