export const id = 861;
export const ids = [861];
export const modules = {

/***/ 1961:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   V: () => (/* binding */ promoteFlag)
/* harmony export */ });
/* harmony import */ var _ledger_promotion_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1356);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1223);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(776);



/**
 * `--promote FROM->TO`, repeated (the kernel's order, and verify's check of it): each
 * resource's one step before it, with no loop; bad input is refused naming the form.
 */
function promoteFlag(specs) {
    if (!specs.length)
        return undefined;
    const steps = specs.map((spec) => {
        const step = (0,_ledger_promotion_js__WEBPACK_IMPORTED_MODULE_2__/* .parsePromotion */ .Hr)(spec);
        if (!step)
            throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb(invalidPromote(spec));
        return step;
    });
    const chain = (0,_ledger_promotion_js__WEBPACK_IMPORTED_MODULE_2__/* .promotionChain */ .RV)(steps);
    if (typeof chain === 'string')
        throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb(`Invalid --promote: ${chain}.`);
    return chain;
}
/**
 * A FROM that ends in '-' with no '->' is what a shell leaves of an unquoted `dev->staging`:
 * it reads `>staging` as a redirect (and makes a file named staging), so say to quote it.
 */
function invalidPromote(spec) {
    const shown = (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(spec, 100);
    if (spec.length > 1 && spec.endsWith('-') && !spec.includes('->')) {
        return `Invalid --promote '${shown}': a shell reads an unquoted ${shown}>TO as '${shown}' and a redirect to a file TO. Quote it: --promote '${shown}>TO'.`;
    }
    return `Invalid --promote '${shown}'. Expected ${_ledger_promotion_js__WEBPACK_IMPORTED_MODULE_2__/* .PROMOTE_FORM */ .gC}.`;
}


/***/ }),

/***/ 9224:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Ld: () => (/* binding */ writeFileDurable),
/* harmony export */   Qc: () => (/* binding */ writeFileDurableSync),
/* harmony export */   Re: () => (/* binding */ writeTempSync),
/* harmony export */   sq: () => (/* binding */ syncDirectorySync),
/* harmony export */   zR: () => (/* binding */ syncDirectory)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_2__);
/* harmony import */ var _write_all_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3830);




const bytesOf = (piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
const tempOf = (path, options) => options.temp ?? `${path}.${process.pid}.tmp`;
/**
 * Replaces `path` with `content` so that a reader, or a crash, finds the old file or
 * the new one whole, never half of it; once this resolves the new one survives a
 * crash. The content goes to a temporary file, every byte (writeAll), which is synced,
 * renamed over `path`, and then the directory is synced so the rename itself is on
 * disk. On a failure before the rename the temporary file is removed (a full disk
 * must not keep the space the next write needs) and `path` is untouched.
 */
async function writeFileDurable(path, content, options = {}) {
    const temp = tempOf(path, options);
    try {
        const handle = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.open)(temp, 'w', options.mode ?? 0o600);
        try {
            const write = (0,_write_all_js__WEBPACK_IMPORTED_MODULE_3__/* .handleWriter */ .yI)(handle);
            let size = 0;
            const append = async (piece) => {
                const bytes = bytesOf(piece);
                await (0,_write_all_js__WEBPACK_IMPORTED_MODULE_3__/* .writeAll */ .f4)(write, bytes, size);
                size += bytes.length;
            };
            await (typeof content === 'function' ? content(append) : append(content));
            await handle.sync();
        }
        finally {
            await handle.close();
        }
        await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.rename)(temp, path);
    }
    catch (error) {
        await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.unlink)(temp).catch(() => undefined);
        throw error;
    }
    await syncDirectory((0,node_path__WEBPACK_IMPORTED_MODULE_2__.dirname)(path));
}
/**
 * writeFileDurable for callers that cannot wait: a keeper's status written from a
 * synchronous timer callback, the notification worker's cursor saved between two
 * deliveries (an asynchronous save could finish after a later one and put an older
 * cursor back), and the kernel's signing key made during its synchronous start.
 */
function writeFileDurableSync(path, text, options = {}) {
    const temp = tempOf(path, options);
    writeTempSync(temp, text, 'w', options.mode ?? 0o600);
    try {
        (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.renameSync)(temp, path);
    }
    catch (error) {
        (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.rmSync)(temp, { force: true });
        throw error;
    }
    syncDirectorySync((0,node_path__WEBPACK_IMPORTED_MODULE_2__.dirname)(path));
}
/**
 * Writes every byte of `text` to the file `temp` (opened with `flags`) and syncs it; a
 * file it opened and could not fill is removed.
 */
function writeTempSync(temp, text, flags, mode) {
    const fd = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync)(temp, flags, mode);
    try {
        try {
            (0,_write_all_js__WEBPACK_IMPORTED_MODULE_3__/* .writeAllSync */ .Ud)((0,_write_all_js__WEBPACK_IMPORTED_MODULE_3__/* .fdWriter */ .OG)(fd), bytesOf(text), 0);
            (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.fsyncSync)(fd);
        }
        finally {
            (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.closeSync)(fd);
        }
    }
    catch (error) {
        (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.rmSync)(temp, { force: true });
        throw error;
    }
}
/**
 * The one directory-sync policy. A rename or a new name is durable only once its
 * directory is synced, so a write whose directory sync fails was NOT made durable and
 * fails too \u2014 except where the platform cannot sync a directory at all: Windows cannot
 * open one (EISDIR, EPERM), and some file systems (network, FUSE) refuse fsync on one
 * (EINVAL). There a rename is as durable as that file system makes it, and refusing
 * every write would leave the kernel unable to run there.
 */
const NO_DIRECTORY_SYNC = new Set(['EISDIR', 'EINVAL', 'EPERM']);
const unsupported = (error) => NO_DIRECTORY_SYNC.has(error?.code ?? '');
/** Makes the directory's entries (a rename, a new name) durable; see NO_DIRECTORY_SYNC. */
async function syncDirectory(dir) {
    let handle;
    try {
        handle = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.open)(dir, 'r');
    }
    catch (error) {
        if (unsupported(error))
            return;
        throw error;
    }
    try {
        await handle.sync();
    }
    catch (error) {
        if (!unsupported(error))
            throw error;
    }
    finally {
        await handle.close();
    }
}
/** syncDirectory's synchronous twin, for writeFileDurableSync and createFileOnce. */
function syncDirectorySync(dir) {
    let fd;
    try {
        fd = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync)(dir, 'r');
    }
    catch (error) {
        if (unsupported(error))
            return;
        throw error;
    }
    try {
        (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.fsyncSync)(fd);
    }
    catch (error) {
        if (!unsupported(error))
            throw error;
    }
    finally {
        (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.closeSync)(fd);
    }
}


/***/ }),

/***/ 3830:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   OG: () => (/* binding */ fdWriter),
/* harmony export */   Ud: () => (/* binding */ writeAllSync),
/* harmony export */   f4: () => (/* binding */ writeAll),
/* harmony export */   yI: () => (/* binding */ handleWriter)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);

/** A file handle's writes, as writeAll takes them. */
const handleWriter = (handle) => async (bytes, offset, length, position) => (await handle.write(bytes, offset, length, position)).bytesWritten;
/** A descriptor's writes, as writeAllSync takes them. */
const fdWriter = (fd) => (bytes, offset, length, position) => (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.writeSync)(fd, bytes, offset, length, position);
/**
 * Writes every byte of `bytes` at `position` (null: where the descriptor
 * stands). A write may take fewer bytes than asked (a full disk, a signal, a
 * pipe): the next goes on from there. One that takes none fails, rather than
 * loop for ever or let a caller count bytes that are not there.
 */
async function writeAll(write, bytes, position = null) {
    for (let written = 0; written < bytes.length;) {
        const at = position === null ? null : position + written;
        written += took(await write(bytes, written, bytes.length - written, at), written, bytes);
    }
}
/** writeAll's synchronous twin (see writeFileDurableSync for who needs it). */
function writeAllSync(write, bytes, position = null) {
    for (let written = 0; written < bytes.length;) {
        const at = position === null ? null : position + written;
        written += took(write(bytes, written, bytes.length - written, at), written, bytes);
    }
}
/** What one write took, or the error that says how far the whole got. */
function took(n, written, bytes) {
    if (!(n > 0))
        throw new Error(`a write took ${written} of ${bytes.length} bytes`);
    return n;
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


class CheckpointError extends _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .LeaseGateError */ .eg {
    name = 'CheckpointError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'checkpoint' });
    }
}
const ED25519 = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';
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
/** One signature line: an em dash, the key name, and canonical base64 of key id \u2016 signature. */
const SIGNATURE_LINE = /^\u2014 ([^\s]+) ([A-Za-z0-9+/]+={0,2})$/;
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
            throw new CheckpointError(`checkpoint: signature line ${i + 1} is malformed (expected '\u2014 <name> <base64 key id and signature>'): ${JSON.stringify(line.slice(0, 120))}`);
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
/* harmony export */   hB: () => (/* binding */ readEntry)
/* harmony export */ });
/* unused harmony export leafBytes */
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(8395);
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3305);
/* harmony import */ var _zod_en_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3184);
/* harmony import */ var _plane_canonical_json_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(9095);
/* harmony import */ var _plane_entry_kinds_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(4152);




/** One ledger entry; its canonical JSON is the Merkle leaf. */
const entrySchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .strictObject */ .rej({
    seq: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .int */ .Whr(), zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._nonnegative */ .UI()),
    tsMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .int */ .Whr(), zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._nonnegative */ .UI()),
    /**
     * A lapse, or a grant a break-glass let through, stamped one after the entry
     * before it (in a run of +1 stamps, which may run ahead of the clock): the
     * kernel's clock when it decided it, so its time is known (never above
     * `tsMs`). Without it a lapse's time is the first stamp of its run, and a
     * grant's, for its break-glass, its own stamp.
     */
    clockMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .int */ .Whr(), zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._nonnegative */ .UI())),
    kind: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* ["enum"] */ .k5n(_plane_entry_kinds_js__WEBPACK_IMPORTED_MODULE_3__/* .ENTRY_KINDS */ .p),
    resource: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    leaseId: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    fence: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .int */ .Whr()),
    /** The end the holder was told (grants and renewals), so a replay never shortens a lease. */
    expiresAtMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .int */ .Whr())),
    reason: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /**
     * Who revoked (revokes): `operator:NAME` when the operator gave a name,
     * as a freeze's `actorDid` does (a revoke's `actorDid` is the holder it
     * ended); who opened a break-glass (break_glass). Optional, so ledgers
     * written before it verify as they are.
     */
    by: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /** The second operator who approved a break-glass (break_glass entries that needed one). */
    approvedBy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /**
     * The one approval an OIDC approver gave (break_glass): its run and attempt, as a DID
     * prefix without the last colon. One approval approves one pass; verify refuses a second.
     */
    approval: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /**
     * What the holder said it deploys (grants; repository, commit, run...):
     * recorded as the kernel validated it, a small flat object. Optional, so
     * ledgers written before it verify as they are.
     */
    deploy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .record */ .g1P(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().check(zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._maxLength */ .Eb(64)), 
    // undefined never comes from JSON; it lets a kernel event's optional fields through.
    zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .union */ .KCZ([zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().check(zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._maxLength */ .Eb(2048)), zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(), zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .undefined */ .Vxk()]))
        .check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .refine */ .YPB((d) => Object.keys(d).length <= 16, 'expected at most 16 fields'))),
    /**
     * A grant let past a promotion step by a descendant: the commit (same repository) that
     * completed the step before and, by GitHub's compare when the kernel asked, contains the
     * one deployed. `verify --promote` checks the ledger shows it completed; the containing it
     * is the kernel's signed word. Optional, so ledgers written before it verify as they are.
     */
    promotedVia: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().check(zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._regex */ .Fk(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/))),
    /**
     * The OIDC issuer (its URL) whose token the grant's holder proved itself with, on a kernel
     * of several CIs' issuers; `verify` checks the holder's DID lies in that issuer's namespace
     * (ledger/issuer-check.ts). Optional, so ledgers written before it verify as they are.
     */
    issuer: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().check(zod_mini__WEBPACK_IMPORTED_MODULE_2__/* ._maxLength */ .Eb(500))),
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
    const entry = { kind, resource, actorDid, leaseId, fence, seq, tsMs };
    if (clockMs !== undefined)
        entry.clockMs = clockMs;
    if (expiresAtMs !== undefined)
        entry.expiresAtMs = expiresAtMs;
    if (reason !== undefined)
        entry.reason = reason;
    if (by !== undefined)
        entry.by = by;
    if (approvedBy !== undefined)
        entry.approvedBy = approvedBy;
    if (approval !== undefined)
        entry.approval = approval;
    if (deploy !== undefined)
        entry.deploy = deploy;
    if (promotedVia !== undefined)
        entry.promotedVia = promotedVia;
    if (issuer !== undefined)
        entry.issuer = issuer;
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
    if (e.approval !== undefined)
        text += `,"approval":${s(e.approval)}`;
    if (e.approvedBy !== undefined)
        text += `,"approvedBy":${s(e.approvedBy)}`;
    if (e.by !== undefined)
        text += `,"by":${s(e.by)}`;
    if (e.clockMs !== undefined)
        text += `,"clockMs":${e.clockMs}`;
    // Rare (grants that name a deploy) and nested: the general form sorts its keys.
    if (e.deploy !== undefined)
        text += `,"deploy":${(0,_plane_canonical_json_js__WEBPACK_IMPORTED_MODULE_4__/* .canonicalJson */ .d)(e.deploy)}`;
    if (e.expiresAtMs !== undefined)
        text += `,"expiresAtMs":${e.expiresAtMs}`;
    text += `,"fence":${e.fence}`;
    if (e.issuer !== undefined)
        text += `,"issuer":${s(e.issuer)}`;
    text += `,"kind":"${e.kind}","leaseId":${s(e.leaseId)}`;
    if (e.promotedVia !== undefined)
        text += `,"promotedVia":${s(e.promotedVia)}`;
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
    if (!entry.success || entry.data.seq !== seq || (0,_plane_canonical_json_js__WEBPACK_IMPORTED_MODULE_4__/* .canonicalJson */ .d)(entry.data) !== line)
        return undefined;
    return entry.data;
}
const leafBytes = (entry) => new Uint8Array(Buffer.from(entryJson(entry), 'utf8'));


/***/ }),

/***/ 5588:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Ko: () => (/* binding */ verifyConsistency),
/* harmony export */   bu: () => (/* binding */ InclusionVerifier)
/* harmony export */ });
/* unused harmony export verifyInclusion */
/* harmony import */ var _merkle_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9527);
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
/** RFC 9162 \u00a72.1.3.2: does `proof` put `leaf` at `index` in the tree of `size` with `root`? */
function verifyInclusion(index, size, leaf, proof, root) {
    if (!(index >= 0 && index < size))
        return false;
    let r = leaf;
    const sn = walk(index, size - 1, proof, (p) => (r = nodeHash(p, r)), (p) => (r = nodeHash(r, p)));
    return sn === 0 && equalHashes(r, root);
}
/** RFC 9162 \u00a72.1.4.2: is the tree of `second` with `secondRoot` an extension of `first`? */
function verifyConsistency(first, second, firstRoot, secondRoot, proof) {
    if (first > second || first < 0)
        return false;
    if (first === second)
        return proof.length === 0 && (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .equalHashes */ .l$)(firstRoot, secondRoot);
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
        fr = (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .nodeHash */ .zB)(c, fr);
        sr = (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .nodeHash */ .zB)(c, sr);
    }, (c) => (sr = (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .nodeHash */ .zB)(sr, c)));
    return end === 0 && (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .equalHashes */ .l$)(fr, firstRoot) && (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .equalHashes */ .l$)(sr, secondRoot);
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
class InclusionVerifier {
    size;
    previous;
    root;
    constructor(size, root) {
        this.size = size;
        this.root = Buffer.from(root).toString('base64');
    }
    /**
     * verifyInclusion(index, size, leaf, decoded proof, root) for a leaf hash in
     * base64; 'length' when a proof hash is not 32 bytes (checked for every hash,
     * as the bundle's check does).
     */
    verify(index, leaf, proof) {
        const previous = this.previous;
        // From `same` on, this proof's hashes are the previous one's, which were all 32 bytes.
        let same = proof.length;
        if (previous && previous.proof.length === proof.length)
            while (same > 0 && previous.proof[same - 1] === proof[same - 1])
                same -= 1;
        for (let k = 0; k < same; k += 1)
            if (probe.write(proof[k], 0, probe.length, 'base64') !== 32)
                return 'length';
        if (!(index >= 0 && index < this.size))
            return false;
        const steps = [];
        let fn = index;
        let sn = this.size - 1;
        let r = leaf;
        for (let k = 0; k < proof.length; k += 1) {
            const before = previous?.steps[k - 1];
            if (k >= same && k > 0 && before?.fn === fn && before.sn === sn && before.hash === r) {
                // The rest of this walk is the previous one's, which led to the root.
                for (let j = k; j < previous.steps.length; j += 1)
                    steps[j] = previous.steps[j];
                this.previous = { proof, steps };
                return true;
            }
            if (sn === 0)
                return false;
            if (fn % 2 === 1 || fn === sn) {
                r = (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .nodeHashBase64 */ .QK)(proof[k], r);
                while (fn % 2 === 0 && fn !== 0) {
                    fn = half(fn);
                    sn = half(sn);
                }
            }
            else
                r = (0,_merkle_js__WEBPACK_IMPORTED_MODULE_0__/* .nodeHashBase64 */ .QK)(r, proof[k]);
            fn = half(fn);
            sn = half(sn);
            steps.push({ fn, sn, hash: r });
        }
        const ok = sn === 0 && r === this.root;
        if (ok)
            this.previous = { proof, steps };
        return ok;
    }
}


/***/ }),

/***/ 9527:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Jq: () => (/* binding */ leafHash),
/* harmony export */   QK: () => (/* binding */ nodeHashBase64),
/* harmony export */   l$: () => (/* binding */ equalHashes),
/* harmony export */   vU: () => (/* binding */ MerkleTree),
/* harmony export */   yJ: () => (/* binding */ leafHashBase64),
/* harmony export */   zB: () => (/* binding */ nodeHash),
/* harmony export */   zg: () => (/* binding */ EMPTY_ROOT)
/* harmony export */ });
/* unused harmony export sha256 */
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
 * One-shot SHA-256 (Node \u2265 20.12): no Hash object per digest. Those objects
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
/**
 * SHA-256 of scratch[0, size) as base64 text. The digest is a string on the JavaScript heap,
 * not a buffer: a verifier makes millions, and a buffer each (memory outside the heap, freed
 * only after a collection) made its resident memory grow with the bundle.
 */
function base64Digest(size) {
    const bytes = scratch.subarray(0, size);
    return oneShot
        ? oneShot('sha256', bytes, 'base64')
        : (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256').update(bytes).digest('base64');
}
/** leafHash of `text`'s UTF-8 bytes, in base64. */
function leafHashBase64(text) {
    const size = 1 + Buffer.byteLength(text, 'utf8');
    if (size > scratch.length)
        scratch = Buffer.allocUnsafeSlow(size * 2);
    scratch[0] = LEAF_PREFIX[0];
    scratch.write(text, 1, 'utf8');
    return base64Digest(size);
}
/** nodeHash of two hashes given in base64 (each 32 bytes: the caller has checked). */
function nodeHashBase64(left, right) {
    scratch[0] = NODE_PREFIX[0];
    scratch.write(left, 1, HASH_BYTES, 'base64');
    scratch.write(right, 1 + HASH_BYTES, HASH_BYTES, 'base64');
    return base64Digest(1 + 2 * HASH_BYTES);
}
/** A digest as a plain Uint8Array view (no copy): what the tree and its proofs hold. */
const view = (digest) => new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
// One-shot too: a verifier hashes every leaf and its path, and a Hash object per digest (or a
// copy of each) made its memory grow with the bundle (docs/performance.md, export and verify).
const leafHash = (data) => view(prefixedDigest(LEAF_PREFIX, data));
const nodeHash = (left, right) => view(prefixedDigest(NODE_PREFIX, left, right));
const EMPTY_ROOT = sha256();
/** The largest power of two strictly below n (n \u2265 2). */
function splitPoint(n) {
    let k = 1;
    while (k * 2 < n)
        k *= 2;
    return k;
}
/** A growable array of 32-byte hashes in one buffer (millions of leaves stay compact). */
class HashList {
    buffer = new Uint8Array(HASH_BYTES * 64);
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
}
/** Recomputed chunks kept for the next proofs: an export page walks one chunk after another. */
const CHUNK_CACHE = 4;
class MerkleTree {
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
    recomputed = new Map();
    constructor(options = {}) {
        this.leaves = options.leaves;
        // 2^52 leaves is more than any ledger: a tree without a reader keeps all it has.
        this.chunkBits = options.leaves ? (options.chunkBits ?? 8) : 52;
    }
    get size() {
        return this.count;
    }
    /** Bytes of hashes this tree keeps (what a bounded tree bounds). */
    get heldBytes() {
        let bytes = 0;
        for (const list of [...this.low, ...this.high])
            bytes += list.bytes;
        return bytes;
    }
    /** The size of one chunk, 2^chunkBits leaves. */
    get chunkSize() {
        return 2 ** this.chunkBits;
    }
    /** Appends a leaf's data; returns its index. */
    append(data) {
        // The list copies what it keeps, so the digests need no copy of their own.
        return this.appendHash(prefixedDigest(LEAF_PREFIX, data));
    }
    appendHash(hash) {
        const index = this.count;
        let node = hash;
        let level = 0;
        for (let i = index - this.base; level < this.chunkBits; level += 1, i >>= 1) {
            const list = (this.low[level] ??= new HashList());
            list.push(node);
            if (i % 2 === 0) {
                this.count += 1;
                return index;
            }
            node = prefixedDigest(NODE_PREFIX, list.at(i - 1), node);
        }
        // A chunk is complete: its lower nodes go (they can be recomputed), its root stays.
        for (const list of this.low)
            list.length = 0;
        this.base += this.chunkSize;
        this.count += 1;
        this.pushChunk(node);
        return index;
    }
    /** The roots of the complete chunks, in order (a bounded tree's whole memory but its last chunk). */
    chunkRoots() {
        return this.high[0]?.slice(this.base / this.chunkSize) ?? new Uint8Array(0);
    }
    /**
     * Starts an empty bounded tree from the roots of its first complete chunks
     * (as `chunkRoots` gave them); the leaves after them are appended.
     */
    restoreChunks(roots) {
        if (this.count !== 0 || !this.leaves)
            throw new RangeError('only an empty bounded tree restores');
        if (roots.length % HASH_BYTES !== 0)
            throw new RangeError('chunk roots are not whole hashes');
        for (let at = 0; at < roots.length; at += HASH_BYTES) {
            this.base += this.chunkSize;
            this.count += this.chunkSize;
            this.pushChunk(roots.subarray(at, at + HASH_BYTES));
        }
    }
    pushChunk(root) {
        let node = root;
        for (let level = 0, i = this.base / this.chunkSize - 1;; level += 1, i = Math.floor(i / 2)) {
            const list = (this.high[level] ??= new HashList());
            list.push(node);
            if (i % 2 === 0)
                break;
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
    /** RFC 9162 \u00a72.1.4.1 PROOF(m, D[n]). */
    consistencyProof(first, second = this.size) {
        this.checkSize(second);
        if (!(first >= 0 && first <= second))
            throw new RangeError(`cannot prove ${first} \u2192 ${second}`);
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
            return this.node(Math.log2(n), lo / n);
        const k = splitPoint(n);
        return nodeHash(this.range(lo, lo + k), this.range(lo + k, hi));
    }
    /** The complete subtree `i` of 2^level leaves. */
    node(level, i) {
        if (level >= this.chunkBits)
            return this.high[level - this.chunkBits].at(i);
        const first = i * 2 ** level;
        if (first >= this.base)
            return this.low[level].at(i - this.base / 2 ** level);
        const chunk = Math.floor(first / this.chunkSize);
        return this.chunk(chunk)[level][i - chunk * 2 ** (this.chunkBits - level)];
    }
    /** Every node of an older chunk, from its leaves read back (a few kept for the next proofs). */
    chunk(c) {
        const kept = this.recomputed.get(c);
        if (kept)
            return kept;
        const lo = c * this.chunkSize;
        const data = this.leaves(lo, lo + this.chunkSize);
        if (data.length !== this.chunkSize)
            throw new RangeError(`leaves ${lo}..${lo + this.chunkSize} could not be read back`);
        const levels = [data.map((d) => new Uint8Array(prefixedDigest(LEAF_PREFIX, d)))];
        for (let level = 1; level < this.chunkBits; level += 1) {
            const below = levels[level - 1];
            const nodes = [];
            for (let j = 0; j < below.length; j += 2)
                nodes.push(new Uint8Array(prefixedDigest(NODE_PREFIX, below[j], below[j + 1])));
            levels.push(nodes);
        }
        const top = levels.at(-1);
        const root = prefixedDigest(NODE_PREFIX, top[0], top[1]);
        if (!equalHashes(root, this.high[0].at(c))) {
            throw new RangeError(`leaves ${lo}..${lo + this.chunkSize} read back do not hash to the tree's`);
        }
        if (this.recomputed.size >= CHUNK_CACHE)
            this.recomputed.delete(this.recomputed.keys().next().value);
        this.recomputed.set(c, levels);
        return levels;
    }
    checkSize(size) {
        if (!(Number.isInteger(size) && size >= 0 && size <= this.size)) {
            throw new RangeError(`tree size ${size} is not between 0 and ${this.size}`);
        }
    }
}
const equalHashes = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);


/***/ }),

/***/ 1356:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   D3: () => (/* binding */ commitOf),
/* harmony export */   Hr: () => (/* binding */ parsePromotion),
/* harmony export */   KU: () => (/* binding */ resourceOf),
/* harmony export */   RV: () => (/* binding */ promotionChain),
/* harmony export */   VL: () => (/* binding */ PromotionRecord),
/* harmony export */   gC: () => (/* binding */ PROMOTE_FORM)
/* harmony export */ });
/* unused harmony export MAX_PROMOTED */
const PROMOTE_FORM = "FROM->TO, such as 'staging->production' (a name without ':' is lock:deploy/NAME) or 'lock:deploy/staging->lock:deploy/production'";
/** The release reason of a holder that did not deploy (kernel/rules/deploy-order.ts). */
const OUTDATED = 'outdated';
/** Commits kept per `from` resource; the oldest go first (a commit that old fails closed). */
const MAX_PROMOTED = 10_000;
const RESOURCE = /^[\x21-\x7e]{1,256}$/;
/** An environment name without ':' is its deploy lock (`production` is lock:deploy/production). */
const resourceOf = (name) => (name.includes(':') ? name : `lock:deploy/${name}`);
/** `staging->production`, or undefined when it is not of PROMOTE_FORM. */
function parsePromotion(spec) {
    const parts = spec.split('->');
    if (parts.length !== 2)
        return undefined;
    const [from, to] = parts.map((p) => (p.trim() ? resourceOf(p.trim()) : ''));
    if (!from || !to || from === to || !RESOURCE.test(from) || !RESOURCE.test(to))
        return undefined;
    return { from, to };
}
/** Each resource's one predecessor; undefined when two steps name the same `to` or it loops. */
function promotionChain(steps) {
    const before = new Map();
    for (const { from, to } of steps) {
        if (before.has(to))
            return `${to} is promoted to from two resources: give it one step before it`;
        before.set(to, from);
    }
    for (const start of before.keys()) {
        const seen = new Set([start]);
        for (let at = before.get(start); at !== undefined; at = before.get(at)) {
            if (seen.has(at))
                return `the promotion order loops through ${at}`;
            seen.add(at);
        }
    }
    return before;
}
const commitOf = (deploy) => {
    const repository = deploy?.repository;
    const commit = deploy?.commit;
    return typeof repository === 'string' && typeof commit === 'string' && commit !== ''
        ? { repository, commit }
        : undefined;
};
class PromotionRecord {
    before;
    froms;
    /** Open holds on a `from` resource that named a commit, by lease id. */
    open = new Map();
    /** Per `from` resource, `repository commit` of each completed hold, oldest first. */
    completed = new Map();
    constructor(chain) {
        this.before = chain;
        this.froms = new Set(chain.values());
    }
    get steps() {
        return [...this.before].map(([to, from]) => ({ from, to }));
    }
    /** The step before `resource`, if the order names one. */
    stepBefore(resource) {
        return this.before.get(resource);
    }
    /** One entry, in the ledger's order. */
    add(e) {
        if (!this.froms.has(e.resource))
            return;
        if (e.kind === 'grant') {
            const c = commitOf(e.deploy);
            if (c)
                this.open.set(e.leaseId, `${c.repository} ${c.commit}`);
            return;
        }
        if (e.kind !== 'release' && e.kind !== 'lapse' && e.kind !== 'revoke')
            return;
        const key = this.open.get(e.leaseId);
        if (key === undefined)
            return;
        this.open.delete(e.leaseId);
        if (e.kind !== 'release' || e.reason === OUTDATED)
            return;
        const done = this.completed.get(e.resource) ?? new Set();
        this.completed.set(e.resource, done);
        done.delete(key);
        done.add(key);
        if (done.size > MAX_PROMOTED)
            done.delete(done.values().next().value);
    }
    /**
     * Commits of `repository` that completed a hold on `from`, newest first, at most `max`:
     * those a descendant check asks GitHub about.
     */
    completedOn(from, repository, max) {
        const done = [...(this.completed.get(from) ?? [])];
        const found = [];
        const prefix = `${repository} `;
        for (let i = done.length - 1; i >= 0 && found.length < max; i -= 1) {
            if (done[i].startsWith(prefix))
                found.push(done[i].slice(prefix.length));
        }
        return found;
    }
    /**
     * Why a grant of `resource` to this deploy breaks the order (naming the missing step), or
     * undefined. `via`: the commit the kernel signed as completing the step and containing
     * this one; then it is that commit the ledger must show completed.
     */
    missing(resource, deploy, via) {
        const from = this.before.get(resource);
        if (from === undefined)
            return undefined;
        const c = commitOf(deploy);
        if (!c) {
            return `${resource} is promoted to only from ${from}, and this request names no commit (deploy.repository and deploy.commit) to look for there`;
        }
        const done = this.completed.get(from);
        if (via !== undefined) {
            if (done?.has(`${c.repository} ${via}`))
                return undefined;
            return `${c.repository}@${c.commit.slice(0, 12)} was let through as contained in ${via.slice(0, 12)}, which has not completed a hold on ${from} (promotion order ${from} -> ${resource})`;
        }
        if (done?.has(`${c.repository} ${c.commit}`))
            return undefined;
        return `${c.repository}@${c.commit.slice(0, 12)} has not completed a hold on ${from}: deploy it there first (promotion order ${from} -> ${resource})`;
    }
}


/***/ }),

/***/ 9095:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   d: () => (/* binding */ canonicalJson)
/* harmony export */ });
// The one canonical JSON of the ledger's leaves: the ledger hashes entries with it and the
// console page checks proofs in the browser with it, so it lives in plane/ (no node: imports).
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


/***/ }),

/***/ 4152:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Y: () => (/* binding */ namesNoLease),
/* harmony export */   p: () => (/* binding */ ENTRY_KINDS)
/* harmony export */ });
/**
 * The ledger's entry kinds, once: the ledger's schema (ledger/entry.ts), the kernel's events
 * (kernel/rules/event.ts), its notifications and the console page all read this list. Plain
 * data with no imports, so the page bundles it.
 */
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
    // An operator's break-glass: `actorDid` is the agent it lets through a freeze once, `by` who
    // opened it, `approvedBy` who approved it (when a second operator had to), `expiresAtMs` its
    // end; no lease (empty id, fence 0). See kernel/rules/break-glass.ts.
    'break_glass',
    // A usable break-glass withdrawn before it was used (an operator's cancel, or replaced by a
    // new one): `actorDid` the agent it named, `by` who withdrew it; no lease. From here on the
    // pass is gone, for the kernel's replay and for verify alike.
    'break_glass_withdrawn',
];
/** The kinds that name no lease (empty id, fence 0): an operator's freezes and break-glasses. */
const NO_LEASE = ['freeze', 'unfreeze', 'break_glass', 'break_glass_withdrawn'];
/** Whether an entry of this kind names no lease (and is no holder's grant, renewal or end). */
const namesNoLease = (kind) => NO_LEASE.includes(kind);


/***/ }),

/***/ 4941:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Jw: () => (/* binding */ unpromotedMessage),
/* harmony export */   Ss: () => (/* binding */ runPassDid),
/* harmony export */   _I: () => (/* binding */ passCovers),
/* harmony export */   lX: () => (/* binding */ isRunPass),
/* harmony export */   n7: () => (/* binding */ RUN_FORM)
/* harmony export */ });
/* unused harmony export runOfDid */
/* harmony import */ var _did_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4027);
/**
 * A break-glass pass for a GitHub run (the hotfix path): the action's DID ends in a nonce
 * drawn as the job starts, and a rerun asks under another attempt, so a pass opened before
 * the job cannot name its DID. A pass may name the run instead, as the DID the action's
 * DIDs for that run all begin with:
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>
 * It covers every DID the action derives for that run (any attempt, job and nonce), and is
 * still used up by one grant. Under OIDC the token vouches for the asking DID's run; with a
 * shared key the DID is believed, as every DID is.
 */
// The grammar of the action's DIDs (did.ts): GitHub's names, numeric ids, a plain host name.

const RUN_FORM = 'OWNER/REPO/RUN_ID (or HOST/OWNER/REPO/RUN_ID), e.g. acme/shop/12345';
/** The run of a DID the action derives (`\u2026:runs:<id>:attempts:<n>:jobs:<job>:<nonce>`), read strictly. */
function runOf(did) {
    if (!did.startsWith('did:web:'))
        return undefined;
    const parts = did.slice('did:web:'.length).split(':');
    const [rawHost = '', owner = '', repo = '', actions, runs, runId = '', attempts, attempt = ''] = parts;
    const host = rawHost.replace(/%3A/gi, ':');
    const labelsOk = actions === 'actions' && runs === 'runs' && attempts === 'attempts' && parts[8] === 'jobs';
    if (parts.length !== 11 || !labelsOk || !/^\d{1,6}$/.test(attempt))
        return undefined;
    if (!_did_js__WEBPACK_IMPORTED_MODULE_0__/* .HOST_PATTERN */ .Wn.test(host) || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .OWNER_PATTERN */ .N4.test(owner) || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .REPO_PATTERN */ .WA.test(repo) || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .RUN_ID_PATTERN */ .z6.test(runId))
        return undefined;
    return { host, owner, repo, runId };
}
/** The host as a DID segment: a port's colon percent-encoded, as did.ts's didSegment encodes it. */
const hostSegment = (host) => host.replace(':', '%3A');
/** The run's DID for `acme/shop/12345` or `ghe.example/acme/shop/12345`; undefined for any other text. */
function runPassDid(run) {
    const parts = run.split('/');
    const [host, owner, repo, runId] = parts.length === 3 ? ['github.com', ...parts] : parts;
    if (parts.length !== 3 && parts.length !== 4)
        return undefined;
    if (!host || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .HOST_PATTERN */ .Wn.test(host) || !owner || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .OWNER_PATTERN */ .N4.test(owner))
        return undefined;
    if (!repo || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .REPO_PATTERN */ .WA.test(repo) || !runId || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .RUN_ID_PATTERN */ .z6.test(runId))
        return undefined;
    return `did:web:${[hostSegment(host), owner, repo, 'actions', 'runs', runId].join(':')}`;
}
/** `host:owner:repo:runId` (names without case) of a run pass's DID; undefined for any other DID. */
function runKeyOfPass(did) {
    if (!did.startsWith('did:web:'))
        return undefined;
    const parts = did.slice('did:web:'.length).split(':');
    const [host, owner, repo, actions, runs, runId = ''] = parts;
    if (parts.length !== 6 || actions !== 'actions' || runs !== 'runs' || !_did_js__WEBPACK_IMPORTED_MODULE_0__/* .RUN_ID_PATTERN */ .z6.test(runId))
        return undefined;
    return `${[host, owner, repo].join(':').toLowerCase()}:${runId}`;
}
/** Whether this pass DID names a run rather than one agent. */
const isRunPass = (did) => runKeyOfPass(did) !== undefined;
/**
 * Whether a pass for `passDid` lets `actorDid` through: the same DID, or a DID the action
 * derives for the run the pass names (read strictly, as did.ts's parseRunDid reads it).
 */
function passCovers(passDid, actorDid) {
    if (passDid === actorDid)
        return true;
    const key = runKeyOfPass(passDid);
    if (key === undefined)
        return false;
    const run = runOf(actorDid);
    if (!run)
        return false;
    const host = hostSegment(run.host);
    return key === `${[host, run.owner, run.repo].join(':').toLowerCase()}:${run.runId}`;
}
/** The run an action's DID belongs to, as `--run` takes it; undefined for any other DID. */
function runOfDid(actorDid) {
    const run = runOf(actorDid);
    if (!run)
        return undefined;
    const prefix = run.host.toLowerCase() === 'github.com' ? '' : `${run.host}/`;
    return `${prefix}${run.owner}/${run.repo}/${run.runId}`;
}
/** A not_promoted refusal says what an operator may do for this run (the hotfix path). */
function unpromotedMessage(message, resource, actorDid) {
    const run = runOfDid(actorDid);
    if (run === undefined)
        return message;
    return `${message}. For a hotfix, an operator may let this run through once: lease-gate break-glass --run ${run} --resource ${resource} --reason TEXT, then re-run the job`;
}


/***/ }),

/***/ 3184:
/***/ ((__unused_webpack_module, __unused_webpack___webpack_exports__, __webpack_require__) => {

/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8532);
/* harmony import */ var zod_v4_locales_en_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(252);


/**
 * zod/mini ships no messages (every issue reads "Invalid input"); classic zod installed
 * English on first use. The texts a person sees (the app config, the policy and keys
 * files, the kernel's 400 answers) keep zod's English wording, so each module whose
 * schema messages reach a person imports this once. `config` is global and idempotent.
 */
zod_mini__WEBPACK_IMPORTED_MODULE_0__/* .config */ .$W((0,zod_v4_locales_en_js__WEBPACK_IMPORTED_MODULE_1__/* ["default"] */ .A)());


/***/ })

};

//# sourceMappingURL=861.index.js.map