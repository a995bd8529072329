export const id = 91;
export const ids = [91];
export const modules = {

/***/ 8091:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  keep: () => (/* binding */ keep)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: ./src/fs/processes.ts
var processes = __webpack_require__(5810);
// EXTERNAL MODULE: ./src/fs/durable.ts
var durable = __webpack_require__(9224);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
;// CONCATENATED MODULE: ./src/gate/keeper-status.ts

/**
 * What the keeper has seen, as its status file carries it across the process
 * boundary: one schema, and the types are what it parses (post, `run` and the
 * keeper itself read and write it through this).
 */
const keeper_status_text = schemas/* string */.YjP().check(api/* _maxLength */.Eb(2_000));
const at = schemas/* number */.aig().check(schemas/* refine */.YPB(Number.isFinite));
const keepEnds = [
    'stopped',
    'lifetime',
    'parent-gone',
    'lost',
    'key-refused',
    'not-wanted',
];
const lossSchema = schemas/* object */.Ikc({
    /** When we learned of it (wall clock). */
    atMs: at,
    /** When the plane ended it, on the plane's clock (a watch's answer says). */
    endedAtMs: schemas/* optional */.lqM(at),
    /**
     * `lease_held`, `revoked`, `replaced` (the plane granted a new lease: ours had ended),
     * from a watch `lapsed`, `released` or `unknown`, `broken_plane` (a renewal not ours to
     * believe, given back), or the plane's reason.
     */
    reason: keeper_status_text,
    /** Who holds it now (for `revoked`: as the plane says). */
    holder: schemas/* optional */.lqM(keeper_status_text),
    /** The operator's message (revoked) or the plane's. */
    message: schemas/* optional */.lqM(keeper_status_text),
    /** `revoked`: who revoked (`operator:NAME`), when the plane names them. */
    by: schemas/* optional */.lqM(keeper_status_text),
    /** `replaced`: the lease the plane granted instead, which the keeper gave back at once. */
    newLeaseId: schemas/* optional */.lqM(keeper_status_text),
    gaveBack: schemas/* optional */.lqM(schemas/* boolean */.zMY()),
});
/** The keeper's record in its status file: its pid and what it has seen. */
const keeper_status_keeperRecordSchema = schemas/* object */.Ikc({
    pid: schemas/* number */.aig().check(schemas/* refine */.YPB(Number.isInteger)),
    resource: keeper_status_text,
    actorDid: keeper_status_text,
    leaseId: keeper_status_text,
    fence: schemas/* optional */.lqM(schemas/* number */.aig()),
    expiresAtMs: at,
    renewals: schemas/* number */.aig(),
    /** Wall time of the last successful renewal. */
    lastRenewedAtMs: schemas/* optional */.lqM(at),
    failures: schemas/* number */.aig(),
    lastError: schemas/* optional */.lqM(keeper_status_text),
    /** Said once: the plane told no lease time the keeper could read on its clock (lease-time.ts). */
    note: schemas/* optional */.lqM(keeper_status_text),
    /** Our lease ended under us; renewing stopped. */
    lost: schemas/* optional */.lqM(lossSchema),
    ended: schemas/* optional */.lqM(schemas/* object */.Ikc({ atMs: at, why: schemas/* enum */.k5n(keepEnds) })),
});

// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
;// CONCATENATED MODULE: ./src/lease/keeper-status.ts




/** The keeper's first argument: the granted lease, checked like a plane answer. */
const keeperLeaseSchema = schema/* leaseSchema */.Gn;
const STARTING = '{"starting":true}';
function createStatusFile(file) {
    writeFileDurableSync(file, STARTING);
}
/** The keeper's last record, or undefined while it has written none (or the file is gone or bad). */
function readStatusFile(file) {
    let raw;
    try {
        raw = JSON.parse(readFileSync(file, 'utf8'));
    }
    catch {
        return undefined;
    }
    const parsed = keeperRecordSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
}
/** Writes the keeper's record, unless post has removed the file (then nobody wants it). */
function writeStatusFile(file, record) {
    if (!(0,external_node_fs_.existsSync)(file))
        return false;
    (0,durable/* writeFileDurableSync */.Qc)(file, JSON.stringify(record));
    return true;
}

// EXTERNAL MODULE: ./src/lease/ci-tokens.ts + 1 modules
var ci_tokens = __webpack_require__(7759);
// EXTERNAL MODULE: ./src/lease/oidc-token.ts
var oidc_token = __webpack_require__(8309);
// EXTERNAL MODULE: ./src/lease/session.ts + 2 modules
var lease_session = __webpack_require__(6267);
// EXTERNAL MODULE: ./src/lease/settings.ts
var settings = __webpack_require__(4801);
// EXTERNAL MODULE: ./src/plane/url.ts
var plane_url = __webpack_require__(4043);
// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
;// CONCATENATED MODULE: ./src/cli/keep-command.ts










/**
 * `lease-gate keep` (internal): the action's detached keeper. Renews the lease
 * (and only renews it) until post stops it or removes its status file, its
 * runner is gone or its lifetime ends. The key comes from the environment (`keyFromEnv`;
 * main's spawn leaves only the step's key there, `helperEnv`).
 */
async function keep(args, _io, env) {
    const { values } = (0,options/* parse */.qg)(args, {
        'api-url': { type: 'string', default: '' },
        resource: { type: 'string', default: '' },
        'actor-did': { type: 'string', default: '' },
        lease: { type: 'string', default: '' },
        status: { type: 'string', default: '' },
        'parent-pid': { type: 'string', default: '0' },
        'oidc-audience': { type: 'string' },
    });
    const url = (0,plane_url/* parsePlaneUrl */.p)(values['api-url']);
    if (!url.ok || !values.resource || !values['actor-did'] || !values.status || !values.lease) {
        throw new options/* UsageError */.eb('keep needs --api-url, --resource, --actor-did, --lease and --status.');
    }
    let raw;
    try {
        raw = JSON.parse(values.lease);
    }
    catch {
        throw new options/* UsageError */.eb('Invalid --lease: expected the granted lease as JSON.');
    }
    const parsed = keeperLeaseSchema.safeParse(raw);
    if (!parsed.success)
        throw new options/* UsageError */.eb(`Invalid --lease: ${(0,schema/* describeIssues */.wF)(parsed.error)}.`);
    const statusFile = values.status;
    const parentPid = Number(values['parent-pid']);
    // With an audience, the job's own OIDC tokens (the runner's token service lasts the whole job).
    const audience = values['oidc-audience'];
    const session = (0,lease_session/* openSession */.f)({
        apiUrl: url.url,
        key: audience ? '' : (0,settings/* keyFromEnv */.ji)(env).value,
        bearer: audience ? (0,oidc_token/* cachedToken */.KQ)(keeperTokens(env, audience)) : undefined,
        resource: values.resource,
        actorDid: values['actor-did'],
        env,
    });
    const stop = new AbortController();
    process.once('SIGTERM', () => stop.abort()).once('SIGINT', () => stop.abort());
    const held = session.held(parsed.data);
    try {
        const status = await held.keep({
            signal: stop.signal,
            parentAlive: () => !(parentPid > 0) || (0,processes/* isAlive */._n)(parentPid),
            stillWanted: () => (0,external_node_fs_.existsSync)(statusFile),
            onChange: (s) => writeStatusFile(statusFile, {
                pid: process.pid,
                ...s,
                ...(s.lastError ? { lastError: s.lastError.slice(0, 500) } : {}),
            }),
        });
        // The job is gone or over its time: give production back rather than let it lapse.
        if (status.ended?.why === 'parent-gone' || status.ended?.why === 'lifetime') {
            await held.release();
        }
    }
    finally {
        await session.close();
    }
    return options/* EXIT */.dc.done;
}
/** The job's own tokens: the runner's service on GitHub (the action), else its CI's way (ci-tokens.ts). */
function keeperTokens(env, audience) {
    const ci = (0,ci_tokens/* ciOfEnv */.hZ)(env);
    if (!ci || ci === 'github')
        return (0,oidc_token/* runnerTokenSource */.PT)(env, audience);
    // GitLab's audience is the job's own `aud:`; the keeper takes the token as the job has it.
    const way = (0,ci_tokens/* ciTokenWay */.rz)(ci, env, ci === 'gitlab' ? {} : { audience });
    if ('missing' in way)
        throw new options/* UsageError */.eb(`keep --oidc-audience: ${way.missing}`);
    return way.source;
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

/***/ 5810:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   O3: () => (/* binding */ listProcesses),
/* harmony export */   Yu: () => (/* binding */ hasEnvEntry),
/* harmony export */   _n: () => (/* binding */ isAlive),
/* harmony export */   ky: () => (/* binding */ parseStat),
/* harmony export */   xq: () => (/* binding */ groupAlive)
/* harmony export */ });
/* unused harmony export ENVIRON_READ_LIMIT */
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
/**
 * True while any process of the group runs; zombies count as gone (an
 * orphan's zombie waits for an init that may reap it seconds later, and it
 * runs no code). Where /proc cannot be read, any member counts.
 */
function groupAlive(group) {
    try {
        process.kill(-group, 0);
    }
    catch (error) {
        return error.code === 'EPERM';
    }
    const list = listProcesses();
    if (!list)
        return true;
    return list.some((entry) => entry.pgrp === group && entry.state !== 'Z');
}
/** Parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session \u2026 starttime(22) \u2026". */
function parseStat(pid, stat) {
    // comm may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, ppid, pgrp, session] = [fields[0], ...fields.slice(1, 4).map(Number)];
    const startTicks = Number(fields[19]);
    if (!state || ![ppid, pgrp, session, startTicks].every(Number.isSafeInteger))
        return undefined;
    return { pid, state, ppid: ppid, pgrp: pgrp, session: session, startTicks };
}
/** Every process /proc shows now, or undefined where there is no /proc (macOS). */
function listProcesses() {
    let names;
    try {
        names = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readdirSync)('/proc').filter((name) => /^\d+$/.test(name));
    }
    catch {
        return undefined;
    }
    const list = [];
    for (const name of names) {
        let stat;
        try {
            stat = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(`/proc/${name}/stat`, 'utf8');
        }
        catch {
            continue; // gone meanwhile
        }
        const entry = parseStat(Number(name), stat);
        if (entry)
            list.push(entry);
    }
    return list;
}
/** How much of a process's environment {@link hasEnvEntry} reads (Linux caps it near 2 MiB). */
const ENVIRON_READ_LIMIT = 1024 * 1024;
let environBuffer;
/**
 * True when `pid` runs as `uid` and its environment (/proc/<pid>/environ, as
 * it was at its execve, read up to {@link ENVIRON_READ_LIMIT}) holds exactly
 * the entry `name=value`. Any error (gone meanwhile, not ours) answers false.
 */
function hasEnvEntry(pid, uid, name, value) {
    const entry = Buffer.from(`${name}=${value}\0`);
    let fd;
    try {
        if ((0,node_fs__WEBPACK_IMPORTED_MODULE_0__.statSync)(`/proc/${pid}`).uid !== uid)
            return false;
        fd = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync)(`/proc/${pid}/environ`, 'r');
        // One buffer for every read: the looks are synchronous, and most environments are small.
        environBuffer ??= Buffer.alloc(ENVIRON_READ_LIMIT);
        let length = 0;
        while (length < environBuffer.length) {
            const read = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readSync)(fd, environBuffer, length, environBuffer.length - length, null);
            if (read === 0)
                break;
            length += read;
        }
        const environ = environBuffer.subarray(0, length);
        // Entries are NUL-terminated: a match starts the buffer or follows a NUL.
        for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
            if (at === 0 || environ[at - 1] === 0)
                return true;
        }
        return false;
    }
    catch {
        return false;
    }
    finally {
        if (fd !== undefined)
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


/***/ })

};

//# sourceMappingURL=91.index.js.map