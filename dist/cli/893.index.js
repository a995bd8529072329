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
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
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








const bundleSchema = schemas/* object */.Ikc({
    checkpoint: schemas/* string */.YjP(),
    entries: schemas/* array */.YOg(schemas/* object */.Ikc({
        index: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _nonnegative */.UI()),
        entry: ledger_entry/* entrySchema */.Oo,
        inclusionProof: schemas/* array */.YOg(schemas/* string */.YjP()),
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


/***/ })

};

//# sourceMappingURL=893.index.js.map