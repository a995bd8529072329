export const id = 893;
export const ids = [893];
export const modules = {

/***/ 8274:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  keygen: () => (/* binding */ keygen),
  ledger: () => (/* binding */ ledger),
  verify: () => (/* binding */ verify)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js
var schemas = __webpack_require__(4343);
// EXTERNAL MODULE: ./src/http/client.ts
var client = __webpack_require__(3329);
// EXTERNAL MODULE: ./src/http/errors.ts
var errors = __webpack_require__(8549);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
;// CONCATENATED MODULE: ./src/ledger/remote.ts




/**
 * Reads a kernel's ledger over HTTP through the one HTTP client (src/http/):
 * its proxies, timeouts and answer cap, and its errors, which every face
 * already prints as one line.
 */
/** A page may take this long: a large ledger's pages carry long proofs. */
const TIMEOUT_MS = 30_000;
/**
 * Entries asked per page: a page of a large ledger costs about 1 KB an entry
 * (the proofs grow with the log), so 500 stay well under the 4 MiB the
 * client accepts in one answer.
 */
const PAGE = 500;
/** An export stops after this many pages (10 million entries). */
const MAX_PAGES = 20_000;
/** A ledger answer that is not what the kernel serves: a broken or foreign server. */
class LedgerFetchError extends errors/* LeaseGateError */.e {
    name = 'LedgerFetchError';
}
const pageSchema = schemas/* object */.Ikc({
    checkpoint: schemas/* string */.YjP(),
    entries: schemas/* array */.YOg(schemas/* unknown */.L5J()),
    next: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* string */.YjP())),
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
 * The kernel's whole ledger as one bundle, following the pages of one export
 * (every page carries the same checkpoint), and the public key that checks it.
 */
async function fetchLedger(apiUrl, key, progress) {
    const http = (0,client/* createHttpClient */.u)({ bodyTimeoutMs: TIMEOUT_MS });
    try {
        const publicKey = await get(http, apiUrl + schema/* LEDGER_PATHS */.Tc.publicKey, key);
        let path = `${schema/* LEDGER_PATHS */.Tc.bundle}?limit=${PAGE}`;
        const entries = [];
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
            for (const entry of page.entries)
                entries.push(entry);
            progress?.(entries.length, Number(checkpoint.split('\n')[1]));
            if (page.next === null || page.next === undefined)
                break;
            path = `${schema/* LEDGER_PATHS */.Tc.bundle}?cursor=${encodeURIComponent(page.next)}&limit=${PAGE}`;
        }
        const bundle = { checkpoint, entries };
        return { bundle: bundle, bundleText: JSON.stringify(bundle), publicKey };
    }
    finally {
        await http.close();
    }
}

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 6 modules
var classic_schemas = __webpack_require__(0);
// EXTERNAL MODULE: ./src/ledger/checkpoint.ts
var ledger_checkpoint = __webpack_require__(4491);
// EXTERNAL MODULE: ./src/ledger/entry.ts
var ledger_entry = __webpack_require__(5641);
// EXTERNAL MODULE: ./src/ledger/merkle.ts
var merkle = __webpack_require__(9527);
// EXTERNAL MODULE: ./src/errors.ts
var src_errors = __webpack_require__(3916);
;// CONCATENATED MODULE: ./src/ledger/verify-error.ts

/** A bundle that does not verify; the message names the first problem. */
class BundleError extends src_errors/* LeaseGateError */.e {
    name = 'BundleError';
}

;// CONCATENATED MODULE: ./src/ledger/meaning.ts

/**
 * Replicas read their clocks before they take the ledger's order, so an
 * entry's stamp may trail the one before it by a few milliseconds' race; a
 * renewal or grant is judged late only past this margin. (A lapse needs none:
 * it is never stamped before the clock that saw it due.)
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
 * `earliest`) and no later than its own stamp.
 */
function checkMeaning(entries, partial) {
    const open = new Map();
    const granted = new Map();
    const frozen = new Map();
    let lastGrant;
    let earliest = 0;
    let previousTs;
    for (const e of entries) {
        // A range's first run may have begun before the range: its clock is unknown there.
        if (previousTs === undefined)
            earliest = partial ? -Infinity : e.tsMs;
        else if (e.tsMs !== previousTs + 1)
            earliest = e.tsMs;
        previousTs = e.tsMs;
        if (e.kind === 'freeze' || e.kind === 'unfreeze') {
            if (e.leaseId !== '' || e.fence !== 0) {
                throw new BundleError(`entry ${e.seq}: a ${e.kind} names no lease, but this one names ${e.leaseId} (fence ${e.fence})`);
            }
            if (e.kind === 'freeze')
                frozen.set(e.resource, e);
            else
                frozen.delete(e.resource);
            continue;
        }
        const freeze = frozen.get(e.resource);
        if (e.kind === 'grant' &&
            freeze &&
            (freeze.expiresAtMs === undefined || e.tsMs < freeze.expiresAtMs)) {
            throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource} while it is frozen (entry ${freeze.seq})`);
        }
        const known = open.has(e.resource) || !partial;
        const current = open.get(e.resource) ?? null;
        if (e.kind === 'grant') {
            if (current) {
                throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource} while ${current.leaseId} (entry ${current.seq}) is still open: two holders at once`);
            }
            if (lastGrant && e.fence <= lastGrant.fence) {
                throw new BundleError(e.fence === lastGrant.fence
                    ? `entry ${e.seq}: fence ${e.fence} was already issued at entry ${lastGrant.seq}`
                    : `entry ${e.seq}: fence ${e.fence} is below fence ${lastGrant.fence} of entry ${lastGrant.seq}`);
            }
            const twin = granted.get(e.leaseId);
            if (twin) {
                throw new BundleError(`${named(e)}: lease id ${e.leaseId} was already granted at entry ${twin.seq} (grant on ${twin.resource})`);
            }
            if (e.expiresAtMs !== undefined && e.expiresAtMs <= earliest - CLOCK_RACE_MS) {
                throw new BundleError(`${named(e)}: expires at ${e.expiresAtMs}, already past when it was granted (no earlier than ${earliest})`);
            }
            granted.set(e.leaseId, e);
            lastGrant = { fence: e.fence, seq: e.seq };
            open.set(e.resource, {
                leaseId: e.leaseId,
                actorDid: e.actorDid,
                fence: e.fence,
                seq: e.seq,
                expiresAtMs: e.expiresAtMs,
                toldAt: e.seq,
                toldKind: e.kind,
            });
            continue;
        }
        if (current) {
            if (current.leaseId !== e.leaseId ||
                current.actorDid !== e.actorDid ||
                current.fence !== e.fence) {
                throw new BundleError(`entry ${e.seq}: ${e.kind} names ${e.leaseId} (fence ${e.fence}) but the open lease on ${e.resource} is ${current.leaseId} (fence ${current.fence}, entry ${current.seq})`);
            }
            checkTime(e, current, earliest);
        }
        else if (known) {
            throw new BundleError(`entry ${e.seq}: ${e.kind} of ${e.leaseId} on ${e.resource}, which has no open lease`);
        }
        open.set(e.resource, e.kind === 'renew'
            ? {
                leaseId: e.leaseId,
                actorDid: e.actorDid,
                fence: e.fence,
                seq: current?.seq ?? e.seq,
                expiresAtMs: e.expiresAtMs ?? current?.expiresAtMs,
                toldAt: e.expiresAtMs === undefined && current ? current.toldAt : e.seq,
                toldKind: e.expiresAtMs === undefined && current ? current.toldKind : e.kind,
            }
            : null);
    }
}
/** A renewal before the told expiry, a lapse not before it (a release or revoke may come any time). */
function checkTime(e, current, earliest) {
    const told = current.expiresAtMs;
    if (told === undefined)
        return;
    const by = `entry ${current.toldAt} (${current.toldKind})`;
    if (e.kind === 'lapse' && e.tsMs < told) {
        throw new BundleError(`${named(e)}: lapses at ${e.tsMs}, ${told - e.tsMs} ms before the expiry ${told} told at ${by}`);
    }
    if (e.kind === 'renew' && earliest - CLOCK_RACE_MS >= told) {
        throw new BundleError(`${named(e)}: renews at ${earliest} or later, after the lease expired at ${told} (told at ${by})`);
    }
}

;// CONCATENATED MODULE: ./src/ledger/verify.ts







const bundleSchema = classic_schemas/* object */.Ikc({
    checkpoint: classic_schemas/* string */.YjP(),
    entries: classic_schemas/* array */.YOg(classic_schemas/* object */.Ikc({
        index: classic_schemas/* number */.aig().int().nonnegative(),
        entry: ledger_entry/* entrySchema */.Oo,
        inclusionProof: classic_schemas/* array */.YOg(classic_schemas/* string */.YjP()),
    })),
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
    const { checkpoint: text, entries } = parsed.data;
    const checkpoint = guard(() => (0,ledger_checkpoint/* verifyCheckpoint */.om)(text, publicKey));
    const first = entries[0]?.index ?? 0;
    entries.forEach(({ index, entry, inclusionProof }, i) => {
        if (index !== first + i)
            throw new BundleError(`entry ${i}: index ${index} breaks the order (expected ${first + i})`);
        if (entry.seq !== index)
            throw new BundleError(`entry ${index}: seq ${entry.seq} does not match its index`);
        const previous = entries[i - 1]?.entry;
        if (previous && entry.tsMs <= previous.tsMs) {
            throw new BundleError(`entry ${index}: tsMs ${entry.tsMs} is not after ${previous.tsMs}`);
        }
        const proof = inclusionProof.map((h) => new Uint8Array(Buffer.from(h, 'base64')));
        if (proof.some((h) => h.length !== 32))
            throw new BundleError(`entry ${index}: a proof hash is not 32 bytes`);
        if (!(0,merkle/* verifyInclusion */.yR)(index, checkpoint.size, (0,merkle/* leafHash */.Jq)((0,ledger_entry/* leafBytes */.eS)(entry)), proof, checkpoint.root)) {
            throw new BundleError(`entry ${index}: the inclusion proof does not lead to the checkpoint's root`);
        }
    });
    const complete = first === 0 && entries.length === checkpoint.size;
    if (!complete && !options.allowPartial) {
        throw new BundleError(`bundle holds entries ${first}..${first + entries.length - 1} of ${checkpoint.size}: some are missing (use --allow-partial for a range)`);
    }
    checkMeaning(entries.map((e) => e.entry), first !== 0);
    if (options.previous !== undefined) {
        if (!complete)
            throw new BundleError('--previous needs a complete bundle');
        const older = guard(() => (0,ledger_checkpoint/* verifyCheckpoint */.om)(options.previous, publicKey));
        if (older.size > checkpoint.size) {
            throw new BundleError(`the previous checkpoint (size ${older.size}) is larger than this one (${checkpoint.size})`);
        }
        const tree = new merkle/* MerkleTree */.vU();
        for (const { entry } of entries)
            tree.append((0,ledger_entry/* leafBytes */.eS)(entry));
        if (!(0,merkle/* equalHashes */.l$)(tree.root(older.size), older.root)) {
            throw new BundleError(`not consistent with the previous checkpoint: the first ${older.size} entries were rewritten`);
        }
    }
    return { ...checkpoint, first, count: entries.length };
}
function guard(check) {
    try {
        return check();
    }
    catch (error) {
        if (error instanceof ledger_checkpoint/* CheckpointError */.jg)
            throw new BundleError(error.message);
        throw error;
    }
}

// EXTERNAL MODULE: ./src/plane/url.ts
var plane_url = __webpack_require__(6424);
// EXTERNAL MODULE: ./src/cli/options.ts + 2 modules
var options = __webpack_require__(9092);
;// CONCATENATED MODULE: ./src/cli/ledger-commands.ts







/** `lease-gate keygen --out DIR`: an Ed25519 key pair for signing the ledger. */
async function keygen(args, io) {
    const { values } = (0,options/* parse */.qg)(args, { out: { type: 'string' } });
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
/** `lease-gate ledger export [--url U] [--out FILE]`: the kernel's ledger as a bundle. */
async function ledger(args, io, env) {
    const [sub, ...rest] = args;
    if (sub !== 'export')
        throw new options/* UsageError */.eb(`Unknown ledger command '${sub ?? ''}'. Expected 'export'.`);
    const { values } = (0,options/* parse */.qg)(rest, { url: { type: 'string' }, out: { type: 'string' } });
    const raw = values.url ?? env.INTRAMEDIAL_API_URL ?? 'http://127.0.0.1:8787';
    const url = (0,plane_url/* parsePlaneUrl */.p)(raw);
    if (!url.ok)
        throw new options/* UsageError */.eb(`Invalid --url '${raw}'. Expected an https:// origin (plain http:// only for loopback).`);
    const { bundleText, publicKey } = await fetchLedger(url.url, env.LEASE_GATE_KEY || env.INTRAMEDIAL_KEY || env.LEASE_GATE_KERNEL_KEY, (count, size) => io.err(`ledger export: ${count} of ${size} entries`));
    if (values.out) {
        (0,external_node_fs_.writeFileSync)(values.out, bundleText);
        (0,external_node_fs_.writeFileSync)(`${values.out}.pub`, publicKey);
        io.out(`wrote ${values.out} and its public key ${values.out}.pub`);
    }
    else {
        io.out(bundleText);
    }
    return options/* EXIT */.dc.done;
}
/** `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT]`: offline. */
async function verify(args, io) {
    const { values, positionals } = (0,options/* parse */.qg)(args, {
        'public-key': { type: 'string' },
        previous: { type: 'string' },
        'allow-partial': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
    }, true);
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
        throw new options/* UsageError */.eb(`Cannot read the public key ${values['public-key']}: ${error.message}`);
    }
    let bundle;
    try {
        bundle = JSON.parse((0,external_node_fs_.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        io.err(`FAIL: ${file} is not a readable JSON bundle (${error.message})`);
        return options/* EXIT */.dc.refused;
    }
    try {
        const previous = values.previous ? (0,external_node_fs_.readFileSync)(values.previous, 'utf8') : undefined;
        const result = verifyBundle(bundle, key, { previous, allowPartial: values['allow-partial'] });
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
        if (!(error instanceof BundleError))
            throw error;
        io.err(`FAIL: ${error.message}`);
        return options/* EXIT */.dc.refused;
    }
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
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3916);


class CheckpointError extends _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .LeaseGateError */ .e {
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
/** One signature line: an em dash, the key name, and canonical base64 of key id ‖ signature. */
const SIGNATURE_LINE = /^— ([^\s]+) ([A-Za-z0-9+/]+={0,2})$/;
/**
 * Parses a signed checkpoint and checks its signature by `publicKey`; throws
 * with the reason. The note is exactly origin, size and root; every signature
 * line must be well formed (lines by other keys are skipped, not malformed ones).
 */
function verifyCheckpoint(text, publicKey) {
    const split = text.indexOf('\n\n');
    if (split < 0)
        throw new CheckpointError('checkpoint: no blank line between the note and its signatures');
    const body = text.slice(0, split + 1);
    const lines = body.split('\n');
    lines.pop();
    if (lines.length !== 3) {
        throw new CheckpointError(`checkpoint: the note has ${lines.length} lines; expected 3 (origin, tree size, root)`);
    }
    const [origin = '', sizeText = '', rootText = ''] = lines;
    if (!origin)
        throw new CheckpointError('checkpoint: empty origin line');
    if (!/^(0|[1-9]\d{0,15})$/.test(sizeText))
        throw new CheckpointError(`checkpoint: tree size '${sizeText}' is not a decimal number`);
    const root = new Uint8Array(Buffer.from(rootText, 'base64'));
    if (root.length !== 32 || Buffer.from(root).toString('base64') !== rootText) {
        throw new CheckpointError('checkpoint: the root is not a base64 SHA-256 hash');
    }
    const expectedOrigin = originFor(publicKey);
    if (origin !== expectedOrigin) {
        throw new CheckpointError(`checkpoint: origin '${origin}' is not this key's log ('${expectedOrigin}')`);
    }
    const rest = text.slice(split + 2);
    if (!rest.endsWith('\n'))
        throw new CheckpointError('checkpoint: the signatures do not end with a newline');
    const id = Buffer.from(keyId(origin, publicKey));
    let signature;
    rest
        .slice(0, -1)
        .split('\n')
        .forEach((line, i) => {
        const match = SIGNATURE_LINE.exec(line);
        const bytes = match && Buffer.from(match[2], 'base64');
        if (!match || !bytes || bytes.toString('base64') !== match[2] || bytes.length < 5) {
            throw new CheckpointError(`checkpoint: signature line ${i + 1} is malformed (expected '— <name> <base64 key id and signature>'): ${JSON.stringify(line.slice(0, 120))}`);
        }
        if (!signature && match[1] === origin && bytes.subarray(0, 4).equals(id))
            signature = bytes;
    });
    if (!signature)
        throw new CheckpointError('checkpoint: no signature by this public key');
    if (signature.length !== 4 + 64 ||
        !(0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.verify)(null, Buffer.from(body, 'utf8'), publicKey, signature.subarray(4))) {
        throw new CheckpointError('checkpoint: the signature does not verify with this public key');
    }
    return { origin, size: Number(sizeText), root };
}


/***/ }),

/***/ 5641:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Bm: () => (/* binding */ entryJson),
/* harmony export */   Ms: () => (/* binding */ entryOf),
/* harmony export */   Oo: () => (/* binding */ entrySchema),
/* harmony export */   dj: () => (/* binding */ canonicalJson),
/* harmony export */   eS: () => (/* binding */ leafBytes),
/* harmony export */   hB: () => (/* binding */ readEntry)
/* harmony export */ });
/* unused harmony export ENTRY_KINDS */
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(0);

const ENTRY_KINDS = [
    'grant',
    'renew',
    'release',
    'lapse',
    'revoke',
    // An operator's freeze of a resource and its end: `actorDid` names the operator, `leaseId` is
    // empty and `fence` 0; a freeze's `expiresAtMs` is the end it named (none: until unfrozen).
    'freeze',
    'unfreeze',
];
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
    /**
     * What the holder said it deploys (grants; repository, commit, run...):
     * recorded as the kernel validated it, a small flat object. Optional, so
     * ledgers written before it verify as they are.
     */
    deploy: zod__WEBPACK_IMPORTED_MODULE_0__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP().max(64), 
    // undefined never comes from JSON; it lets a kernel event's optional fields through.
    zod__WEBPACK_IMPORTED_MODULE_0__/* .union */ .KCZ([zod__WEBPACK_IMPORTED_MODULE_0__/* .string */ .YjP().max(2048), zod__WEBPACK_IMPORTED_MODULE_0__/* .number */ .aig(), zod__WEBPACK_IMPORTED_MODULE_0__/* .undefined */ .Vxk()]))
        .refine((d) => Object.keys(d).length <= 16, 'expected at most 16 fields')
        .optional(),
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
    const { kind, resource, actorDid, leaseId, fence, expiresAtMs, reason, deploy } = event;
    const entry = { kind, resource, actorDid, leaseId, fence, seq, tsMs };
    if (expiresAtMs !== undefined)
        entry.expiresAtMs = expiresAtMs;
    if (reason !== undefined)
        entry.reason = reason;
    if (deploy !== undefined)
        entry.deploy = deploy;
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
    // Rare (grants that name a deploy) and nested: the general form sorts its keys.
    if (e.deploy !== undefined)
        text += `,"deploy":${canonicalJson(e.deploy)}`;
    if (e.expiresAtMs !== undefined)
        text += `,"expiresAtMs":${e.expiresAtMs}`;
    text += `,"fence":${e.fence},"kind":"${e.kind}","leaseId":${s(e.leaseId)}`;
    if (e.reason !== undefined)
        text += `,"reason":${s(e.reason)}`;
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
    }
    catch {
        return undefined;
    }
    const entry = entrySchema.safeParse(parsed);
    if (!entry.success || entry.data.seq !== seq || canonicalJson(entry.data) !== line)
        return undefined;
    return entry.data;
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

//# sourceMappingURL=893.index.js.map