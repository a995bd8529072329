export const id = 919;
export const ids = [919];
export const modules = {

/***/ 9919:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  runKeeper: () => (/* binding */ runKeeper)
});

;// CONCATENATED MODULE: ./src/errors.ts
/**
 * Every kind of failure lease-gate throws on purpose, one code each: stable, for code
 * (and people reading logs) that decide on the kind rather than the words. A new kind of
 * error adds its code here, so the list of what can go wrong is read in one place
 * (docs/architecture.md, "Errors").
 */
const ERROR_CODES = (/* unused pure expression or super */ null && ([
    // A person's input: the command line, settings, files named on it.
    'usage',
    'settings',
    'config',
    'windows',
    'health_check',
    'notify',
    'auth_file',
    // Helpers and the outside world.
    'helper',
    'github',
    'http_network',
    'http_timeout',
    'http_too_large',
    'http_cancelled',
    // The plane's answers, as a client meets them.
    'lease_refused',
    'lease_revoked',
    'plane_key_refused',
    'plane_request_rejected',
    'plane_contract',
    'plane_broken_grant',
    'plane_transient',
    'plane_unavailable',
    'cancelled',
    // The kernel: its answers, its store, its start.
    'api_refusal',
    'auth_refusal',
    'client_gone',
    'store',
    'store_schema_too_new',
    'store_unavailable',
    'store_outcome_unknown',
    'store_commit_unknown',
    'start_refused',
    'state_locked',
    // The ledger and its bundles.
    'ledger',
    'ledger_lines_not_loaded',
    'ledger_fetch',
    'checkpoint',
    'bundle',
    'bundle_read',
    'bundle_not_streamable',
    // A broken promise of lease-gate's own code (a bug, not a person's mistake).
    'internal',
]));
/**
 * The one base of every error lease-gate throws on purpose, and the one
 * function that turns any error into the line a person sees.
 *
 * A LeaseGateError's message is written for people (what failed, what to do)
 * and printed as it is, never with a stack; `code` is stable, one per kind
 * (ERROR_CODES), for code that decides on the kind of failure, and `cause`
 * keeps the error it wraps. Made as `new X(message, { ...fields, cause })`:
 * the message first as for Error, everything else named (sigstore's BaseError
 * is the model), so a field cannot be given in another's place.
 */
class LeaseGateError extends Error {
    name = 'LeaseGateError';
    code;
    constructor(message, options) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.code = options.code;
    }
}
/** `{ cause }` when there is one, else nothing: `cause` is absent rather than undefined. */
function causeOf(cause) {
    return cause === undefined ? {} : { cause };
}
/**
 * A promise of lease-gate's own code broken (a count that cannot be off, a state
 * the code never makes): a bug to report, printed as unexpected with its code
 * `internal` rather than as a person's mistake.
 */
class InternalError extends LeaseGateError {
    name = 'InternalError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'internal' });
    }
}
/** What a person can do about the system errors a face meets most. */
const HINTS = {
    EADDRINUSE: ' (the port is in use: pick another with --port, or 0 for a free one)',
    ENOENT: ' (no such file or directory)',
    ECONNREFUSED: ' (nothing listens there: is the kernel running?)',
    EACCES: ' (permission denied)',
};
/**
 * One line for any error: ours as written (a bug of ours, code `internal`, as
 * unexpected); an error of the system or of a driver (it
 * carries a string `code`: a port in use, a missing file, a refused connection, a
 * PostgreSQL error) by its first line, which names the path, address or reason, with a
 * hint for the common ones; anything else named as unexpected. Callers that print to a
 * log or a terminal still escape it (untrusted(), logLine()).
 */
function errorMessage(error) {
    const text = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    // A bug of ours is not a person's mistake: it is named as unexpected, as any other.
    if (error instanceof LeaseGateError) {
        return error.code === 'internal' ? `Unexpected error: ${text}` : error.message;
    }
    const code = error?.code;
    if (typeof code === 'string')
        return `${text}${HINTS[code] ?? ''}`;
    return `Unexpected error: ${text}`;
}
/**
 * The error's own words for the inside of a longer message ("Cannot read FILE: <this>."):
 * its message (or what it is, when not an Error) on one line, without errorMessage's
 * "Unexpected error: " or hints, which do not fit mid-sentence: the sentence around it
 * says what failed. Line breaks become spaces rather than cutting at the first, because
 * some libraries put the reason on a later line (@actions/core's "Failed to get ID Token.
 * \n Error Code : 500 \u2026"). Callers clip and escape as their output needs; wrap with
 * `{ cause: error }` to keep the rest.
 */
function causeText(error) {
    return (error instanceof Error ? error.message : String(error))
        .replace(/\s*[\r\n]+\s*/g, ' ')
        .trim();
}

;// CONCATENATED MODULE: ./src/control-chars.ts
/**
 * Control characters, once, for every layer that keeps them out of a line of text: the
 * plane's clipped texts and deploy fields, the kernel's reasons and notifications, the
 * action's outputs, the session's log lines and a shown URL.
 *
 * Here, beside errors.ts, and not in plane/: src/http/ (url-display.ts) sits below plane/ and
 * may import nothing of ours but top-level modules like this one, and every other user may
 * import it too. No imports and no node: APIs, so the console page may bundle it.
 */
/** C0 controls and DEL, as a character class's ranges (a line break, ESC, NUL, \u2026). */
const CONTROL_RANGES = '\\u0000-\\u001f\\u007f';
/** Whether a text holds a control character (`.test`: not global, so it keeps no lastIndex). */
const CONTROL_CHAR = new RegExp(`[${CONTROL_RANGES}]`);
/** Every control character of a text, for `.replace`. */
const CONTROL_CHARS = new RegExp(`[${CONTROL_RANGES}]`, 'g');
/** A whole text of `min` to `max` characters (no bound: any length), none a control character. */
const controlFree = (min = 0, max) => new RegExp(`^[^${CONTROL_RANGES}]{${min},${max ?? ''}}$`);
/**
 * What a terminal or the runner must not be handed raw, for text escaped rather than
 * replaced (lease/escape.ts): C0 controls but tab and line feed (those are escaped first,
 * by the runner's own rule), DEL and the C1 controls (a terminal reads 0x9b as CSI), and
 * the Unicode line and paragraph separators (a line break to some readers).
 */
const TERMINAL_CONTROL_CHARS = 
// eslint-disable-next-line no-control-regex -- matching control characters is the point
/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

;// CONCATENATED MODULE: ./src/lease/escape.ts
/**
 * Text from outside (plane answers, GitHub, files of other processes) on its
 * way to a log line, a terminal or a job summary. Nothing it holds may start a
 * line, run a workflow command or drive a terminal.
 */

/** One line, bounded: CR and LF as the runner escapes them (%0D, %0A), other controls as \uXXXX. */
function escape_untrusted(text, max = 300) {
    const bounded = text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
    return bounded
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A')
        .replace(/\t/g, ' ')
        .replace(TERMINAL_CONTROL_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
/** A whole log line for the runner: nothing after it can begin a new line. */
function logLine(text) {
    return text
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A')
        .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
/** A cell of the job summary, which is HTML. */
function escapeHtml(text) {
    return escape_untrusted(text, 2_000)
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;');
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
;// CONCATENATED MODULE: ./src/fs/processes.ts

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
function isAlive(pid) {
    try {
        process.kill(pid, 0);
    }
    catch (error) {
        return error.code === 'EPERM';
    }
    try {
        return !/^\d+ \(.*\) Z/.test((0,external_node_fs_.readFileSync)(`/proc/${pid}/stat`, 'utf8'));
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
        names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    }
    catch {
        return undefined;
    }
    const list = [];
    for (const name of names) {
        let stat;
        try {
            stat = readFileSync(`/proc/${name}/stat`, 'utf8');
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
const ENVIRON_READ_LIMIT = (/* unused pure expression or super */ null && (1024 * 1024));
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
        if (statSync(`/proc/${pid}`).uid !== uid)
            return false;
        fd = openSync(`/proc/${pid}/environ`, 'r');
        // One buffer for every read: the looks are synchronous, and most environments are small.
        environBuffer ??= Buffer.alloc(ENVIRON_READ_LIMIT);
        let length = 0;
        while (length < environBuffer.length) {
            const read = readSync(fd, environBuffer, length, environBuffer.length - length, null);
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
            closeSync(fd);
    }
}

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
;// CONCATENATED MODULE: ./src/fs/write-all.ts

/** A file handle's writes, as writeAll takes them. */
const write_all_handleWriter = (handle) => async (bytes, offset, length, position) => (await handle.write(bytes, offset, length, position)).bytesWritten;
/** A descriptor's writes, as writeAllSync takes them. */
const fdWriter = (fd) => (bytes, offset, length, position) => (0,external_node_fs_.writeSync)(fd, bytes, offset, length, position);
/**
 * Writes every byte of `bytes` at `position` (null: where the descriptor
 * stands). A write may take fewer bytes than asked (a full disk, a signal, a
 * pipe): the next goes on from there. One that takes none fails, rather than
 * loop for ever or let a caller count bytes that are not there.
 */
async function write_all_writeAll(write, bytes, position = null) {
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

;// CONCATENATED MODULE: ./src/fs/durable.ts




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
        const handle = await open(temp, 'w', options.mode ?? 0o600);
        try {
            const write = handleWriter(handle);
            let size = 0;
            const append = async (piece) => {
                const bytes = bytesOf(piece);
                await writeAll(write, bytes, size);
                size += bytes.length;
            };
            await (typeof content === 'function' ? content(append) : append(content));
            await handle.sync();
        }
        finally {
            await handle.close();
        }
        await rename(temp, path);
    }
    catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
    }
    await syncDirectory(dirname(path));
}
/**
 * writeFileDurable for callers that cannot wait: a keeper's status written from a
 * synchronous timer callback, the notification worker's cursor saved between two
 * deliveries (an asynchronous save could finish after a later one and put an older
 * cursor back), and the kernel's signing key made during its synchronous start.
 */
function durable_writeFileDurableSync(path, text, options = {}) {
    const temp = tempOf(path, options);
    writeTempSync(temp, text, 'w', options.mode ?? 0o600);
    try {
        (0,external_node_fs_.renameSync)(temp, path);
    }
    catch (error) {
        (0,external_node_fs_.rmSync)(temp, { force: true });
        throw error;
    }
    syncDirectorySync((0,external_node_path_.dirname)(path));
}
/**
 * Writes every byte of `text` to the file `temp` (opened with `flags`) and syncs it; a
 * file it opened and could not fill is removed.
 */
function writeTempSync(temp, text, flags, mode) {
    const fd = (0,external_node_fs_.openSync)(temp, flags, mode);
    try {
        try {
            writeAllSync(fdWriter(fd), bytesOf(text), 0);
            (0,external_node_fs_.fsyncSync)(fd);
        }
        finally {
            (0,external_node_fs_.closeSync)(fd);
        }
    }
    catch (error) {
        (0,external_node_fs_.rmSync)(temp, { force: true });
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
        handle = await open(dir, 'r');
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
        fd = (0,external_node_fs_.openSync)(dir, 'r');
    }
    catch (error) {
        if (unsupported(error))
            return;
        throw error;
    }
    try {
        (0,external_node_fs_.fsyncSync)(fd);
    }
    catch (error) {
        if (!unsupported(error))
            throw error;
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
}

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

;// CONCATENATED MODULE: ./src/plane/deploy.ts


/**
 * What a lease request may say of the deploy it gates: extension fields of
 * the lease body (`deploy: {...}`, `queue: 'newest'`). The hosted plane does
 * not document them and ignores unknown fields; the bundled kernel validates
 * them (a bad field is a 400 naming it), records them in the grant's ledger
 * entry, supersedes waiting runs by them and answers the last grant's deploy
 * of the same repository (`previous`) with a grant. Every field is optional:
 * a CI system that knows no run number still names its commit.
 */
const REPOSITORY_PATTERN = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
/** A full commit id: SHA-1 (40) or SHA-256 (64) hex; the compare API needs it whole. */
const COMMIT_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Printable ASCII without spaces, as git refs are. */
const REF_PATTERN = /^[\x21-\x7e]{1,256}$/;
/** A workflow name is one line of text. */
const ONE_LINE = controlFree(1, 256);
const DEPLOY_FORMS = {
    repository: 'owner/repo',
    workflow: 'one line of 1 to 256 characters',
    ref: '1 to 256 printable characters without spaces, such as refs/heads/main',
    commit: 'a full commit SHA: 40 (or 64) lowercase hex digits',
    runNumber: 'a whole number from 1 to 10^12',
    runAttempt: 'a whole number from 1 to 10^6',
    runUrl: 'an https:// URL of at most 2048 characters',
};
const deploy_text = (pattern, form) => schemas/* string */.YjP().check(api/* _regex */.Fk(pattern, `expected ${form}`));
const whole = (max, form) => schemas/* number */.aig().check(schemas/* refine */.YPB((n) => Number.isInteger(n) && n >= 1 && n <= max, `expected ${form}`));
const isRunUrl = (value) => {
    if (value.length > 2048)
        return false;
    try {
        const url = new URL(value);
        return url.protocol === 'https:' && url.username === '' && url.password === '';
    }
    catch {
        return false;
    }
};
/** Unknown keys are dropped, not refused: a newer gate may say more than this kernel knows. */
const deploy_deploySchema = schemas/* object */.Ikc({
    repository: schemas/* optional */.lqM(deploy_text(REPOSITORY_PATTERN, DEPLOY_FORMS.repository)),
    workflow: schemas/* optional */.lqM(deploy_text(ONE_LINE, DEPLOY_FORMS.workflow)),
    ref: schemas/* optional */.lqM(deploy_text(REF_PATTERN, DEPLOY_FORMS.ref)),
    commit: schemas/* optional */.lqM(deploy_text(COMMIT_PATTERN, DEPLOY_FORMS.commit)),
    runNumber: schemas/* optional */.lqM(whole(1e12, DEPLOY_FORMS.runNumber)),
    runAttempt: schemas/* optional */.lqM(whole(1e6, DEPLOY_FORMS.runAttempt)),
    runUrl: schemas/* optional */.lqM(schemas/* string */.YjP().check(schemas/* refine */.YPB(isRunUrl, `expected ${DEPLOY_FORMS.runUrl}`))),
});
/** The deploy's fields in one fixed order (ledger lines, console rows, the kernel's check). */
const DEPLOY_FIELDS = (/* unused pure expression or super */ null && ([
    'repository',
    'workflow',
    'ref',
    'commit',
    'runNumber',
    'runAttempt',
    'runUrl',
]));
/** How a waiting run treats newer runs of its lane: `fifo` waits its turn; `newest` steps aside. */
const QUEUE_MODES = ['fifo', 'newest'];
const queueSchema = schemas/* enum */.k5n(QUEUE_MODES);
/** The extension fields of a lease request body, as the kernel reads them. */
const leaseExtensionSchema = schemas/* object */.Ikc({
    deploy: schemas/* optional */.lqM(deploy_deploySchema),
    queue: schemas/* optional */.lqM(queueSchema),
});
/** A kernel's answer to a waiter a newer run of its lane took the place of. */
const supersededSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(false),
    reason: schemas/* literal */.euz('superseded'),
    by: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(2048)),
});
/** The commit list in a fixed order, so a ledger line and a console row read the same. */
function deployEntries(deploy) {
    const out = [];
    for (const key of DEPLOY_FIELDS) {
        const value = deploy[key];
        if (value !== undefined)
            out.push([key, value]);
    }
    return out;
}
/** A plain copy with only the known fields (what the kernel keeps and records). */
function cleanDeploy(deploy) {
    const out = {};
    for (const [key, value] of deployEntries(deploy))
        out[key] = value;
    return Object.keys(out).length ? out : undefined;
}

;// CONCATENATED MODULE: ./src/plane/schema.ts



/**
 * The plane's wire contract (CONTRACT.md part 1 and interfaces.md). Only the
 * fields we use are validated, and bounded: every answer is untrusted input.
 * Unknown fields are accepted and ignored. zod/mini keeps this off the
 * start-up bill (every job pays it twice).
 */
const LEASE_PATH = '/api/v1/acp/coordination/lease';
const RELEASE_PATH = '/api/v1/acp/coordination/release';
const REVOKE_PATH = '/api/v1/acp/coordination/revoke';
/** The bundled kernel's watch on one's own lease (answered when it ends); other planes may 404. */
const WATCH_PATH = '/api/v1/acp/coordination/watch';
/** The bundled kernel's operator freeze (admin key), CONTRACT.md part 3. */
const FREEZE_PATH = '/api/v1/acp/coordination/freeze';
const UNFREEZE_PATH = '/api/v1/acp/coordination/unfreeze';
/** The bundled kernel's break-glass (admin key) and its second operator's approval (approver key). */
const BREAK_GLASS_PATH = '/api/v1/acp/coordination/break-glass';
const APPROVE_BREAK_GLASS_PATH = '/api/v1/acp/coordination/break-glass/approve';
const WITHDRAW_BREAK_GLASS_PATH = '/api/v1/acp/coordination/break-glass/withdraw';
/** The local kernel's overview of every resource with a lease, a reservation or waiters. */
const KERNEL_RESOURCES_PATH = '/api/v1/kernel/resources';
/** The local kernel's ledger routes (the hosted plane documents a ledger, not yet its routes). */
const LEDGER_PATHS = {
    checkpoint: '/api/v1/acp/ledger/checkpoint',
    bundle: '/api/v1/acp/ledger/bundle',
    publicKey: '/api/v1/acp/ledger/public-key',
};
/** A resource name: printable ASCII without spaces, as `lock:deploy/production`. */
/**
 * The name an operator gives itself on a freeze or unfreeze (the console's "Your name",
 * the CLI's --by), recorded in the ledger as `operator:NAME`: one short word of a safe
 * charset, so it reads the same in a terminal and a page and cannot pass for a job's DID.
 */
const OPERATOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const OPERATOR_NAME_FORM = 'a name of 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
const schema_RESOURCE_PATTERN = /^[\x21-\x7e]{1,256}$/;
const schema_RESOURCE_FORM = '1 to 256 printable characters without spaces, such as lock:deploy/production';
/** did:<method>:<method-specific id> with the DID syntax's characters. */
const DID_PATTERN = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/;
const MAX_DID_LENGTH = 512;
const schema_DID_FORM = `a DID of the form did:<method>:<id>, at most ${MAX_DID_LENGTH} characters`;
const schema_isDid = (value) => value.length <= MAX_DID_LENGTH && DID_PATTERN.test(value);
/** The range of a JavaScript Date: an expiry outside it cannot be shown, so it is refused. */
const MAX_EPOCH_MS = 8.64e15;
/** No plane back-off is longer than a day; longer is a broken answer. */
const MAX_WAIT_MS = 86_400_000;
const MAX_TEXT = 1_000;
/** A DID and a resource name as a request names them, each refusal naming the accepted form. */
const didSchema = schemas/* string */.YjP().check(schemas/* refine */.YPB(schema_isDid, `expected ${schema_DID_FORM}`));
const resourceSchema = schemas/* string */.YjP()
    .check(api/* _regex */.Fk(schema_RESOURCE_PATTERN, `expected ${schema_RESOURCE_FORM}`));
const shortText = (max) => schemas/* string */.YjP()
    .check(api/* _minLength */.m9(1, 'expected a non-empty string'), api/* _maxLength */.Eb(max, `expected at most ${max} characters`));
const boundedNumber = (min, max, what) => schemas/* number */.aig().check(schemas/* refine */.YPB((n) => Number.isFinite(n) && n >= min && n <= max, `expected ${what}`));
const leaseSchema = schemas/* object */.Ikc({
    id: shortText(256),
    resource: shortText(256),
    holder: didSchema,
    expiresAtMs: boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds within the range of a date'),
    /**
     * The bundled kernel's: how long this grant or renewal runs from when the plane decided
     * it (a lease time, not a point on any clock), so the keeper paces without a wall clock.
     * One we cannot read is dropped (the keeper falls back to the documented 30 s).
     */
    ttlMs: schemas/* optional */.lqM(schemas/* catch */.MfU(schemas/* optional */.lqM(boundedNumber(1, 3_600_000, 'milliseconds from 1 to an hour')), undefined)),
    /** Only the bundled kernel promises a fencing token. */
    fence: schemas/* optional */.lqM(boundedNumber(0, Number.MAX_SAFE_INTEGER, 'a whole number from 0 to 2^53-1').check(schemas/* refine */.YPB(Number.isInteger, 'expected a whole number'))),
    /** The kernel's extension (plane/deploy.ts): what the holder deploys; one we cannot read is dropped. */
    deploy: schemas/* optional */.lqM(schemas/* catch */.MfU(schemas/* optional */.lqM(deploy_deploySchema), undefined)),
});
const grantedSchema = schemas/* object */.Ikc({ ok: schemas/* literal */.euz(true), lease: leaseSchema });
const heldSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(false),
    reason: schemas/* literal */.euz('lease_held'),
    holder: didSchema,
    reserved: schemas/* optional */.lqM(schemas/* boolean */.zMY()),
    stampede: schemas/* object */.Ikc({ waitMs: boundedNumber(0, MAX_WAIT_MS, 'milliseconds from 0 to a day') }),
    position: schemas/* optional */.lqM(boundedNumber(0, 1e9, 'a queue position')),
    /** The plane's estimate of the wait; optional (the kernel names it once a hold has ended). */
    etaMs: schemas/* optional */.lqM(boundedNumber(0, MAX_WAIT_MS * 30, 'milliseconds from 0 to 30 days')),
    /** How far the holder runs past a typical hold, when it does (the kernel's). */
    overdueMs: schemas/* optional */.lqM(boundedNumber(0, MAX_WAIT_MS * 30, 'milliseconds from 0 to 30 days')),
});
/** The kernel's operator freeze (CONTRACT.md part 3): a wait, within the gate's budget. */
const frozenSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(false),
    reason: schemas/* literal */.euz('frozen'),
    message: schemas/* optional */.lqM(schemas/* string */.YjP()),
    until: schemas/* optional */.lqM(schemas/* nullable */.mee(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds'))),
    stampede: schemas/* optional */.lqM(schemas/* object */.Ikc({ waitMs: boundedNumber(0, MAX_WAIT_MS, 'milliseconds from 0 to a day') })),
    position: schemas/* optional */.lqM(boundedNumber(0, 1e9, 'a queue position')),
});
const revokedSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(false),
    reason: schemas/* literal */.euz('revoked'),
    holder: schemas/* optional */.lqM(didSchema),
    message: schemas/* optional */.lqM(schemas/* string */.YjP()),
    /** Who revoked (`operator:NAME`), when the plane names them. */
    by: schemas/* optional */.lqM(shortText(200)),
});
const otherRefusalSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(false),
    reason: shortText(200),
    message: schemas/* optional */.lqM(schemas/* string */.YjP()),
});
const releaseAnswerSchema = schemas/* object */.Ikc({
    releasedIds: schemas/* array */.YOg(shortText(256)).check(api/* _maxLength */.Eb(100, 'expected at most 100 ids')),
});
const statusAnswerSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(true),
    lease: schemas/* nullable */.mee(leaseSchema),
    /** The bundled kernel's freeze in force (an operator's or a recurring window); other planes leave it out. */
    frozen: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* object */.Ikc({
        by: shortText(512),
        reason: schemas/* string */.YjP().check(api/* _maxLength */.Eb(10_000, 'expected at most 10000 characters')),
        until: schemas/* nullable */.mee(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds')),
    }))),
});
const revokeAnswerSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(true),
    revoked: schemas/* boolean */.zMY(),
    /** The bundled kernel names the lease it ended and its holder; other planes may not. */
    leaseId: schemas/* optional */.lqM(schemas/* nullable */.mee(shortText(256))),
    holder: schemas/* optional */.lqM(schemas/* nullable */.mee(didSchema)),
});
/** The kernel's watch answer: still held, or how and when the lease ended (all of it untrusted). */
const watchAnswerSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(true),
    ended: schemas/* boolean */.zMY(),
    reason: schemas/* optional */.lqM(shortText(200)),
    endedAtMs: schemas/* optional */.lqM(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds within the range of a date')),
    message: schemas/* optional */.lqM(schemas/* string */.YjP()),
    holder: schemas/* optional */.lqM(didSchema),
    /** Who revoked (`operator:NAME`), when the plane names them. */
    by: schemas/* optional */.lqM(shortText(200)),
});
const freezeAnswerSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(true),
    frozen: schemas/* boolean */.zMY(),
    until: schemas/* optional */.lqM(schemas/* nullable */.mee(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds'))),
    /** Whether the command changed anything (unfreezing what was not frozen does not). */
    changed: schemas/* boolean */.zMY(),
});
/** The bundled kernel's break-glass, as opened or approved (its texts are untrusted: escape to print). */
const breakGlassAnswerSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(true),
    actorDid: schemas/* string */.YjP().check(api/* _maxLength */.Eb(MAX_DID_LENGTH)),
    reason: schemas/* string */.YjP().check(api/* _maxLength */.Eb(1_000)),
    by: schemas/* string */.YjP().check(api/* _maxLength */.Eb(100)),
    until: boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds'),
    /** Waiting for the second operator's approval. */
    pending: schemas/* boolean */.zMY(),
    approvedBy: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _maxLength */.Eb(300))),
    /** The run and attempt whose OIDC token approved it (one approval approves one pass). */
    approval: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _maxLength */.Eb(MAX_DID_LENGTH))),
    /** The answer of a withdrawal: this pass is gone. */
    withdrawn: schemas/* optional */.lqM(schemas/* literal */.euz(true)),
});
/** Plane text is bounded before anything else sees it. */
function clipText(text, max = MAX_TEXT) {
    if (text === undefined)
        return undefined;
    const line = text
        .replace(/\r/g, '%0D')
        .replace(/\n/g, '%0A')
        // Plane text never carries a control character onward.
        .replace(CONTROL_CHARS, ' ');
    return line.length <= max ? line : `${line.slice(0, max - 1)}\u2026`;
}
/** Turns a zod failure into "field: problem" that a person can act on. */
function describeIssues(error) {
    return error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(body)'}: ${issue.message}`)
        .join('; ');
}

;// CONCATENATED MODULE: ./src/lease/keeper-status.ts




/** The keeper's first argument: the granted lease, checked like a plane answer. */
const keeperLeaseSchema = leaseSchema;
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
    durable_writeFileDurableSync(file, JSON.stringify(record));
    return true;
}

// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(1421);
;// CONCATENATED MODULE: ./src/lease/ci-exec.ts



/** The job's token could not be had: a CI tool missing, failing, or printing no token. */
class CiTokenError extends LeaseGateError {
    name = 'CiTokenError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'helper' });
    }
}
/** A CI tool asks its agent over the network: long enough for a slow agent, short for a wait. */
const TOKEN_COMMAND_TIMEOUT_MS = 30_000;
/** A JWT is a few kilobytes; anything much longer is not one. */
const MAX_OUTPUT_BYTES = 64 * 1024;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Anything in a tool's words that looks like a JWT or a long secret. */
const SECRETISH = /[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{40,}/g;
/** A tool's stderr, as a clause: first line, clipped, nothing token-shaped left in it. */
function toolWords(stderr) {
    const line = stderr.trim().split('\n')[0] ?? '';
    // Control characters escaped: the words end up in log lines printed as they are.
    return escape_untrusted(line.replace(SECRETISH, '[redacted]'), 200);
}
/** `buildkite-agent oidc request-token`, as its error messages name it. */
const shown = (command) => [command.program, ...command.args.filter((arg) => !arg.startsWith('{'))].slice(0, 4).join(' ');
/** Runs the command and answers the token it printed; throws CiTokenError naming the command. */
function tokenFromCommand(command, timeoutMs = TOKEN_COMMAND_TIMEOUT_MS) {
    return new Promise((resolve, reject) => {
        (0,external_node_child_process_.execFile)(command.program, [...command.args], {
            env: command.env,
            timeout: timeoutMs,
            killSignal: 'SIGKILL',
            maxBuffer: MAX_OUTPUT_BYTES,
            windowsHide: true,
            encoding: 'utf8',
        }, (error, stdout, stderr) => {
            const name = `\`${shown(command)}\``;
            if (error) {
                reject(new CiTokenError(failure(name, command.program, error, stderr, timeoutMs)));
                return;
            }
            const token = stdout.trim();
            if (!JWT.test(token)) {
                reject(new CiTokenError(`${name} printed no token (expected one compact JWT).`));
                return;
            }
            resolve(token);
        });
    });
}
/** Why the command failed, in words without its output. */
function failure(name, program, error, stderr, timeoutMs) {
    if (error.code === 'ENOENT')
        return `${program} is not on PATH: ${name} cannot run.`;
    if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
        return `${name} printed more than ${MAX_OUTPUT_BYTES} bytes: not a token.`;
    }
    if (error.killed)
        return `${name} did not answer within ${timeoutMs / 1000} s.`;
    const words = toolWords(stderr);
    const code = typeof error.code === 'number' ? ` with code ${error.code}` : '';
    return `${name} failed${code}${words ? `: ${words}` : ''}.`;
}

;// CONCATENATED MODULE: ./src/lease/errors.ts

/** A bad setting: the message names where the value came from and the accepted form. */
class errors_SettingsError extends LeaseGateError {
    name = 'SettingsError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'settings' });
    }
}
/** A helper process (the keeper, a dry run's kernel) could not be found or did not start. */
class HelperError extends LeaseGateError {
    name = 'HelperError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'helper' });
    }
}

;// CONCATENATED MODULE: ./src/http/loopback.ts
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/**
 * This machine, as a URL's (normalized) hostname names it: `localhost`, all of
 * 127.0.0.0/8 and `[::1]`. Plain http: is allowed only to these, and the HTTP
 * clients never send a request to them through a proxy.
 */
function isLoopbackHost(hostname) {
    return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

// EXTERNAL MODULE: ./node_modules/undici/lib/dispatcher/agent.js
var agent = __webpack_require__(7405);
var agent_default = /*#__PURE__*/__webpack_require__.n(agent);
// EXTERNAL MODULE: ./node_modules/undici/lib/dispatcher/dispatcher.js
var dispatcher = __webpack_require__(883);
var dispatcher_default = /*#__PURE__*/__webpack_require__.n(dispatcher);
// EXTERNAL MODULE: ./node_modules/undici/lib/dispatcher/env-http-proxy-agent.js
var env_http_proxy_agent = __webpack_require__(3137);
var env_http_proxy_agent_default = /*#__PURE__*/__webpack_require__.n(env_http_proxy_agent);
// EXTERNAL MODULE: ./node_modules/undici/lib/api/index.js
var lib_api = __webpack_require__(6615);
;// CONCATENATED MODULE: ./src/http/undici.ts




/**
 * The parts of undici the client uses, from their own files. undici's package index loads
 * all of it (fetch, WebSocket, EventSource, mocks, caches) and with them node:crypto: 11 MiB
 * more resident in the keeper, a process that lives as long as the job (docs/performance.md,
 * keeper). The index gives every dispatcher its API methods (`request()`, and `connect()`,
 * which the proxy agent tunnels with); so does this, from the same file.
 */
for (const [name, method] of Object.entries(lib_api)) {
    if (!(name in (dispatcher_default()).prototype)) {
        Object.defineProperty((dispatcher_default()).prototype, name, {
            value: method,
            writable: true,
            configurable: true,
        });
    }
}
const Agent = (agent_default());
const EnvHttpProxyAgent = (env_http_proxy_agent_default());

;// CONCATENATED MODULE: ./src/http/dispatchers.ts


function proxyEnv(env) {
    const pick = (name) => env[name.toLowerCase()] ?? env[name] ?? '';
    return {
        httpProxy: pick('HTTP_PROXY'),
        httpsProxy: pick('HTTPS_PROXY'),
        noProxy: pick('NO_PROXY'),
    };
}
function createDispatchers(options) {
    const agentOptions = {
        connect: { timeout: options.connectTimeoutMs },
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        keepAliveTimeout: 4_000,
    };
    const proxies = proxyEnv(options.env);
    const direct = new Agent(agentOptions);
    // Loopback is decided here, by the same test that allows plain http: to it, and not
    // left to NO_PROXY matching, which missed [::1] and 127.0.0.2 (the key crossed the proxy).
    const proxied = proxies.httpProxy || proxies.httpsProxy
        ? new EnvHttpProxyAgent({
            ...agentOptions,
            httpProxy: proxies.httpProxy || undefined,
            httpsProxy: proxies.httpsProxy || proxies.httpProxy || undefined,
            noProxy: proxies.noProxy,
        })
        : undefined;
    return {
        for: (url) => proxied && (options.proxyLoopback || !isLoopbackHost(url.hostname)) ? proxied : direct,
        async destroy() {
            await Promise.all([direct.destroy(), proxied?.destroy()]);
        },
    };
}

;// CONCATENATED MODULE: ./src/http/errors.ts

const CODES = {
    network: 'http_network',
    timeout: 'http_timeout',
    'too-large': 'http_too_large',
    cancelled: 'http_cancelled',
};
/** The one error of the HTTP client: the exchange did not complete. */
class HttpError extends LeaseGateError {
    name = 'HttpError';
    /** What went wrong, for callers that decide on it (retry, cancel). */
    failure;
    /** `[METHOD] "url"`, for messages. */
    call;
    /** What failed, without the call (`connection refused (ECONNREFUSED)`), for a sentence of the caller's own. */
    detail;
    constructor(message, options) {
        super(message, { ...causeOf(options.cause), code: CODES[options.failure] });
        this.failure = options.failure;
        this.call = options.call;
        this.detail = message.startsWith(`${options.call}: `)
            ? message.slice(options.call.length + 2)
            : message;
    }
}

;// CONCATENATED MODULE: ./src/http/network-error.ts

/**
 * A failed request read as an HttpError whose message is ours: cancelled by the caller,
 * timed out, or the network's failure named by its code, never by undici's or Node's words.
 */
/** `timeout`: the request's own deadline signal; `signal`: the caller's. */
function requestFailure(error, sent) {
    const { call, timeoutMs } = sent;
    if (error instanceof HttpError)
        return error;
    if (sent.signal?.aborted)
        return new HttpError(`${call}: cancelled`, { failure: 'cancelled', call });
    if (sent.timeout.aborted || isTimeout(error)) {
        return new HttpError(`${call}: no answer within ${timeoutMs} ms`, {
            failure: 'timeout',
            call,
            cause: error,
        });
    }
    return new HttpError(`${call}: ${describeNetworkError(error)}`, {
        failure: 'network',
        call,
        cause: error,
    });
}
function isTimeout(error) {
    const code = error?.code;
    return (code === 'UND_ERR_CONNECT_TIMEOUT' ||
        code === 'UND_ERR_HEADERS_TIMEOUT' ||
        code === 'UND_ERR_BODY_TIMEOUT');
}
/**
 * What failed, in our words, by the error's code: undici's and Node's own messages are not
 * passed on, since some carry the URL (with its credentials and query) or the proxy's.
 */
function describeNetworkError(error) {
    const code = codeOf(error);
    if (code === 'ECONNREFUSED')
        return 'connection refused (ECONNREFUSED)';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
        return `host name not resolved (${code})`;
    if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/.test(code))
        return `TLS handshake failed (${code})`;
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
        return `connection closed by the other side (${code})`;
    return code ? `connection failed (${code})` : 'connection failed';
}
/** The first string `code` of the error or of what it wraps (undici wraps the socket's error). */
function codeOf(error) {
    for (let e = error, depth = 0; e && depth < 4; e = e.cause, depth += 1) {
        const code = e.code;
        if (typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code))
            return code;
    }
    return '';
}

;// CONCATENATED MODULE: ./src/http/url-display.ts

/**
 * The one way a URL lease-gate was given (a flag, a config file) is shown anywhere: in an
 * error, a log line, an answer, a notification or the ledger. Only its scheme, host, port
 * and path: credentials (`user:password@`), the query (`?token=\u2026`) and the fragment may
 * hold a secret, and what is signed into the ledger can never be taken out again.
 *
 * Text that does not parse as a URL is cut the same way, by its characters: a refused
 * flag is echoed so the person sees which one, never with what might be its secret.
 */
function urlForDisplay(raw) {
    let url;
    try {
        url = typeof raw === 'string' ? new URL(raw) : raw;
    }
    catch {
        url = undefined;
    }
    // A bare origin is shown as written (`https://api.github.com`), without the parser's '/'.
    const shown = url
        ? `${url.protocol}${url.host ? `//${url.host}` : ''}${url.pathname === '/' ? '' : url.pathname}`
        : cutByHand(String(raw));
    // A shown URL is one line a terminal prints as it is.
    return shown.replace(CONTROL_CHARS, '?').slice(0, 200);
}
/** `scheme://user:pass@host/path?query#fragment` \u2192 `scheme://host/path`, for text no URL parser takes. */
function cutByHand(text) {
    const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^?#]*)/.exec(text);
    const scheme = match?.[1] ?? '';
    let rest = match?.[2] ?? '';
    // Credentials end at the last '@' before the path (a password may itself hold '@').
    const slash = rest.indexOf('/');
    const authority = slash < 0 ? rest : rest.slice(0, slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0)
        rest = rest.slice(at + 1);
    return `${scheme}${rest}`;
}

;// CONCATENATED MODULE: ./src/http/client.ts




/** Bodies past this are not ours to read: the plane's answers are small. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const DEFAULTS = { connect: 5_000, headers: 10_000, body: 10_000 };
function createHttpClient(options = {}) {
    const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headers;
    const dispatchers = createDispatchers({
        env: options.env ?? process.env,
        connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connect,
        headersTimeoutMs: headersTimeout,
        bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULTS.body,
        proxyLoopback: options.proxyLoopback ?? false,
    });
    let closed = false;
    async function send(req) {
        // The URL as shown: its credentials and query stay out of every message (url-display.ts).
        const call = `[${req.method}] "${urlForDisplay(req.url)}"`;
        if (closed)
            throw new HttpError(`${call}: the HTTP client is closed`, {
                failure: 'cancelled',
                call,
            });
        const timeoutMs = req.timeoutMs ?? headersTimeout;
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
        try {
            const url = new URL(req.url);
            // The dispatcher's own request(): undici's top-level one would load all of undici.
            const answer = await dispatchers.for(url).request({
                origin: url.origin,
                path: `${url.pathname}${url.search}`,
                method: req.method,
                headers: req.headers ?? {},
                ...(req.body === undefined ? {} : { body: req.body }),
                signal,
                headersTimeout: Math.max(headersTimeout, timeoutMs),
            });
            const text = await readBounded(answer.body, call);
            return { status: answer.statusCode, headers: answer.headers, text };
        }
        catch (error) {
            throw requestFailure(error, { call, signal: req.signal, timeout, timeoutMs });
        }
    }
    return {
        send,
        async getText(url, headers = {}, signal) {
            const answer = await send({ method: 'GET', url, headers, signal });
            if (answer.status !== 200) {
                const call = `[GET] "${urlForDisplay(url)}"`;
                throw new HttpError(`${call}: ${answer.status} ${answer.text.slice(0, 200)}`, {
                    failure: 'network',
                    call,
                });
            }
            return answer.text;
        },
        async close() {
            if (closed)
                return;
            closed = true;
            await dispatchers.destroy();
        },
    };
}
async function readBounded(body, call) {
    const chunks = [];
    let size = 0;
    for await (const chunk of body) {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
            body.destroy();
            throw new HttpError(`${call}: answer larger than ${MAX_ANSWER_BYTES} bytes`, {
                failure: 'too-large',
                call,
            });
        }
        chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
}

;// CONCATENATED MODULE: ./src/plane/url.ts


/**
 * The plane origin must be https:, or plain http: to this machine only, so the
 * key never crosses a network in clear. Returns the origin without a trailing slash.
 */
function url_parsePlaneUrl(raw) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        return { ok: false };
    }
    const secure = url.protocol === 'https:';
    const loopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
    if (!(secure || loopback) || url.username || url.password || url.search || url.hash) {
        return { ok: false };
    }
    return { ok: true, url: url.href.replace(/\/+$/, '') };
}

;// CONCATENATED MODULE: ./src/lease/oidc-token.ts





const DEFAULT_AUDIENCE = 'lease-gate';
const oidc_token_TOKEN_ENV = 'LEASE_GATE_OIDC_TOKEN';
/** A token is replaced this long before its `exp`. */
const REFRESH_BEFORE_S = 120;
/** A token whose expiry we cannot read is asked for again after this. */
const UNKNOWN_LIFETIME_MS = 60_000;
const MAX_TOKEN_CHARS = 16_384;
/** Of a JWT's payload only `exp` is read (seconds since the epoch); the rest is the plane's to check. */
const jwtExpirySchema = schemas/* object */.Ikc({ exp: schemas/* number */.aig() });
/** The runner's token service answers `{ value: <the JWT> }`. */
const tokenAnswerSchema = schemas/* object */.Ikc({
    value: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(MAX_TOKEN_CHARS)),
});
/**
 * A compact JWT's payload, read and NOT verified: the plane verifies. The CLI reads its own
 * token only to pace refreshes and to name itself as the DID the token vouches for.
 */
function oidc_token_tokenClaims(token) {
    const payload = token.split('.')[1];
    if (!payload || payload.length > MAX_TOKEN_CHARS)
        return undefined;
    try {
        const json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        return json && typeof json === 'object' && !Array.isArray(json)
            ? json
            : undefined;
    }
    catch {
        return undefined;
    }
}
/** The `exp` of a compact JWT, read (not verified: the plane verifies) only to pace refreshes. */
function tokenExpiryMs(token) {
    const read = jwtExpirySchema.safeParse(oidc_token_tokenClaims(token));
    return read.success ? read.data.exp * 1000 : undefined;
}
/** One token until shortly before it expires, then a fresh one; concurrent callers share a fetch. */
function oidc_token_cachedToken(fetch, now = Date.now) {
    let token;
    let freshUntil = -Infinity;
    let pending;
    return async () => {
        if (token && now() < freshUntil)
            return token;
        pending ??= fetch()
            .then((value) => {
            const exp = tokenExpiryMs(value);
            token = value;
            freshUntil =
                exp === undefined
                    ? now() + UNKNOWN_LIFETIME_MS
                    : Math.max(now() + 5_000, exp - REFRESH_BEFORE_S * 1000);
            return value;
        })
            .finally(() => (pending = undefined));
        return pending;
    };
}
/** Whether this job may ask the runner for a token (`permissions: id-token: write`). */
function runnerCanIssue(env) {
    return Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
}
/**
 * The runner's token request service, asked as `@actions/core`'s getIDToken asks
 * it: GET `$ACTIONS_ID_TOKEN_REQUEST_URL&audience=AUD` with the request token
 * as Bearer, answering `{ value }`. Its variables last the whole job.
 */
function runnerTokenSource(env, audience, http = createHttpClient({ env })) {
    const base = env.ACTIONS_ID_TOKEN_REQUEST_URL ?? '';
    const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN ?? '';
    let origin = { ok: false };
    try {
        origin = url_parsePlaneUrl(new URL(base).origin);
    }
    catch {
        // not a URL: refused below
    }
    if (!origin.ok || !requestToken) {
        throw new errors_SettingsError('No OIDC token service: ACTIONS_ID_TOKEN_REQUEST_URL (https://, or http:// on loopback) and ACTIONS_ID_TOKEN_REQUEST_TOKEN must be set; give the job `permissions: id-token: write`.');
    }
    return async () => {
        const text = await http.getText(`${base}&audience=${encodeURIComponent(audience)}`, {
            authorization: `Bearer ${requestToken}`,
            accept: 'application/json',
        });
        let json;
        try {
            json = JSON.parse(text);
        }
        catch {
            json = undefined;
        }
        const answer = tokenAnswerSchema.safeParse(json);
        if (!answer.success)
            throw new Error("the runner's token service answered without a token");
        return answer.data.value;
    };
}
/** A token from a file (read on each refresh: another tool may renew it) or from LEASE_GATE_OIDC_TOKEN. */
function oidc_token_givenTokenSource(file, env) {
    if (!file) {
        const value = (env[oidc_token_TOKEN_ENV] ?? '').trim();
        return () => Promise.resolve(value);
    }
    const read = () => {
        let text;
        try {
            text = readFileSync(file, 'utf8').trim();
        }
        catch (error) {
            throw new SettingsError(`Cannot read --oidc-token-file ${file}: ${error.code ?? 'unreadable'}.`, { cause: error });
        }
        if (!text || text.length > MAX_TOKEN_CHARS || /\s/.test(text)) {
            throw new SettingsError(`Invalid --oidc-token-file ${file}: expected one compact JWT.`);
        }
        return text;
    };
    read();
    // A file that went bad since is a rejected promise, as from an async function.
    return () => new Promise((resolve) => resolve(read()));
}

;// CONCATENATED MODULE: ./src/lease/ci-tokens.ts




const ID_TOKEN_ENV = 'LEASE_GATE_ID_TOKEN';
const CIRCLECI_TOKEN_ENV = 'CIRCLE_OIDC_TOKEN_V2';
const ci_tokens_CI_NAMES = {
    github: 'GitHub Actions',
    gitlab: 'GitLab CI',
    circleci: 'CircleCI',
    buildkite: 'Buildkite',
};
/** CircleCI's variable is used while it has this long left; after, the command mints another. */
const ENV_TOKEN_MARGIN_MS = 150_000;
const ci_tokens_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
/** The CI this process runs on, by the variable each sets in every job; undefined elsewhere. */
function ci_tokens_ciOfEnv(env) {
    if (env.GITHUB_ACTIONS === 'true')
        return 'github';
    if (env.GITLAB_CI === 'true')
        return 'gitlab';
    if (env.CIRCLECI === 'true')
        return 'circleci';
    if (env.BUILDKITE === 'true')
        return 'buildkite';
    return undefined;
}
/** The way to this job's token on `ci`; throws SettingsError for a bad flag (variable name, audience). */
function ci_tokens_ciTokenWay(ci, env, options = {}) {
    const now = options.now ?? Date.now;
    const run = options.run ?? ((command) => tokenFromCommand(command));
    switch (ci) {
        case 'github':
            return runnerCanIssue(env)
                ? { ci, source: runnerTokenSource(env, options.audience ?? DEFAULT_AUDIENCE) }
                : {
                    ci,
                    missing: 'this job cannot ask the runner for a token (ACTIONS_ID_TOKEN_REQUEST_URL is not set): give the job `permissions: id-token: write`.',
                };
        case 'gitlab':
            return gitlabWay(env, options, now);
        case 'circleci':
            return circleciWay(env, options.audience, now, run);
        case 'buildkite': {
            if (!env.BUILDKITE_AGENT_ACCESS_TOKEN) {
                return {
                    ci,
                    missing: "buildkite-agent asks for the job's token with BUILDKITE_AGENT_ACCESS_TOKEN, which the agent sets in each job's environment, and it is not set here: run the command in the job's own step (not a container without the agent's environment).",
                };
            }
            const audience = options.audience ?? DEFAULT_AUDIENCE;
            const args = ['oidc', 'request-token', '--audience', audience];
            return { ci, source: () => run({ program: 'buildkite-agent', args, env }) };
        }
    }
}
function gitlabWay(env, options, now) {
    const name = options.idTokenVar ?? ID_TOKEN_ENV;
    if (!VARIABLE.test(name)) {
        throw new errors_SettingsError(`Invalid --id-token-var '${escape_untrusted(name, 60)}'. Expected the name of the variable the job's \`id_tokens:\` sets (letters, digits, _).`);
    }
    const token = (env[name] ?? '').trim();
    const aud = options.audience ?? DEFAULT_AUDIENCE;
    if (!token) {
        return {
            ci: 'gitlab',
            missing: `GitLab gives a job an ID token only in the variable its \`id_tokens:\` names, and ${name} is not set: add \`id_tokens: { ${name}: { aud: ${aud} } }\` to the job${name === ID_TOKEN_ENV ? ' (or name another variable with --id-token-var NAME)' : ''}.`,
        };
    }
    if (!ci_tokens_JWT.test(token)) {
        throw new errors_SettingsError(`Invalid ${name}: expected one compact JWT (the job's id_tokens).`);
    }
    const claimed = oidc_token_tokenClaims(token)?.aud;
    const audiences = Array.isArray(claimed) ? claimed : [claimed];
    if (options.audience !== undefined && !audiences.includes(options.audience)) {
        throw new errors_SettingsError(`The ID token in ${name} is not for the audience '${escape_untrusted(options.audience, 100)}': set \`aud: ${escape_untrusted(options.audience, 100)}\` under the job's \`id_tokens: ${name}:\`.`);
    }
    return {
        ci: 'gitlab',
        source: () => {
            const exp = tokenExpiryMs(token);
            if (exp !== undefined && exp <= now()) {
                return Promise.reject(new CiTokenError(`The GitLab ID token in ${name} expired at ${new Date(exp).toISOString()}: GitLab issues it once per job, lasting the job's timeout, and cannot renew it. Give the job a \`timeout:\` longer than the hold.`));
            }
            return Promise.resolve(token);
        },
    };
}
function circleciWay(env, audience, now, run) {
    const command = (aud) => ({
        program: 'circleci',
        args: [
            'run',
            'oidc',
            'get',
            ...(aud === undefined ? [] : ['--claims', JSON.stringify({ aud })]),
        ],
        env,
    });
    if (audience !== undefined)
        return { ci: 'circleci', source: () => run(command(audience)) };
    const given = (env[CIRCLECI_TOKEN_ENV] ?? '').trim();
    if (!given) {
        return {
            ci: 'circleci',
            missing: `CircleCI sets ${CIRCLECI_TOKEN_ENV} in a job that may have OIDC tokens, and it is not set here; or ask for a token of your audience with --oidc-audience AUD (\`circleci run oidc get\`).`,
        };
    }
    return {
        ci: 'circleci',
        source: () => {
            // The variable lasts an hour from the job's start; a longer hold asks for another.
            const exp = tokenExpiryMs(given);
            return exp !== undefined && exp - ENV_TOKEN_MARGIN_MS > now()
                ? Promise.resolve(given)
                : run(command());
        },
    };
}

;// CONCATENATED MODULE: ./src/plane/errors.ts

/** Typed failures of a plane call; every message says which call and what to do. */
class PlaneError extends LeaseGateError {
    name = 'PlaneError';
    call;
    status;
    constructor(message, code, options) {
        super(message, { ...causeOf(options.cause), code });
        this.call = options.call;
        this.status = options.status;
    }
}
/** 401/403: the key was refused. Never retried. */
class KeyRefusedError extends PlaneError {
    name = 'KeyRefusedError';
    /** The plane's own reason, escaped to one line, for a face that words the hint itself. */
    said;
    constructor(message, options) {
        super(message, 'plane_key_refused', options);
        this.said = options.said;
    }
}
/** Other 4xx: our bug or bad input. Never retried. */
class RequestRejectedError extends PlaneError {
    name = 'RequestRejectedError';
    constructor(message, options) {
        super(message, 'plane_request_rejected', options);
    }
}
/** The body does not match the contract; the message names the field. */
class ContractError extends PlaneError {
    name = 'ContractError';
    /** `code`: only for BrokenGrantError. */
    constructor(message, options) {
        super(message, options.code ?? 'plane_contract', options);
    }
}
/** Network failure, request timeout, 408, 429 or 5xx (store_unavailable too): worth asking again. */
class TransientError extends PlaneError {
    name = 'TransientError';
    /** The plane's Retry-After, when it named one. */
    retryAfterMs;
    constructor(message, options) {
        super(message, 'plane_transient', options);
        this.retryAfterMs = options.retryAfterMs;
    }
}
/** Transient failures went on past the retry budget. */
class PlaneUnavailableError extends PlaneError {
    name = 'PlaneUnavailableError';
    constructor(message, options) {
        super(message, 'plane_unavailable', options);
    }
}
/** The caller's signal stopped the call. */
class CancelledError extends LeaseGateError {
    name = 'CancelledError';
    constructor() {
        super('cancelled', { code: 'cancelled' });
    }
}

;// CONCATENATED MODULE: ./src/plane/grant.ts

/**
 * A grant is believed only once it is checked (CONTRACT.md part 4): it names the
 * DID we asked as and the resource we asked for, its expiry lies ahead within a
 * bounded skew and within the longest lease a plane grants, and its id has a
 * form that is safe in an output, a log line, a file name or a URL path.
 */
/** The kernel issues `lease_<fence>_<hex>`, the hosted plane `lease_4c1e`: both fit. */
const LEASE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const LEASE_ID_FORM = '1 to 128 characters of A-Z a-z 0-9 . _ : -';
/**
 * How far the plane's clock may be from ours before an expiry is called broken.
 * Expiry is information, never a correctness input (CONTRACT.md part 2): the
 * bound only refuses the absurd, such as `expiresAtMs: 1`.
 */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** The longest lease any plane grants: the kernel's largest `--ttl-ms` (the hosted plane's is 30 s). */
const MAX_LEASE_MS = 3_600_000;
/**
 * What is wrong with a grant, or undefined when it is ours to believe. `nowMs` is the plane's
 * own clock when its answer tells it (the Date header), else our wall clock: a runner whose
 * clock is 10 minutes off must not call a good grant absurd.
 */
function grantProblem(lease, asked, nowMs) {
    const wallNow = nowMs;
    if (lease.holder !== asked.actorDid) {
        return {
            field: 'lease.holder',
            problem: `names ${quote(lease.holder)}, not ${asked.actorDid} (the DID asked as)`,
        };
    }
    if (lease.resource !== asked.resource) {
        return {
            field: 'lease.resource',
            problem: `names ${quote(lease.resource)}, not ${asked.resource} (the resource asked for)`,
        };
    }
    if (!LEASE_ID_PATTERN.test(lease.id)) {
        return { field: 'lease.id', problem: `${quote(lease.id)} is not ${LEASE_ID_FORM}` };
    }
    if (lease.expiresAtMs < wallNow - MAX_CLOCK_SKEW_MS) {
        return {
            field: 'lease.expiresAtMs',
            problem: `${lease.expiresAtMs} is already past (more than ${MAX_CLOCK_SKEW_MS / 60_000} min before this clock's ${wallNow})`,
        };
    }
    if (lease.expiresAtMs > wallNow + MAX_LEASE_MS + MAX_CLOCK_SKEW_MS) {
        return {
            field: 'lease.expiresAtMs',
            problem: `${lease.expiresAtMs} is further ahead than the longest lease a plane grants (${MAX_LEASE_MS / 60_000} min, with ${MAX_CLOCK_SKEW_MS / 60_000} min of clock skew)`,
        };
    }
    return undefined;
}
/** A plane that answered `ok: true` with a grant that is not ours: it was given back, the call fails. */
class BrokenGrantError extends ContractError {
    name = 'BrokenGrantError';
    /** The grant's field that is wrong. */
    field;
    /** The release by (resource, own DID) that followed was answered. */
    gaveBack;
    constructor(message, options) {
        super(message, { call: options.call, status: options.status, code: 'plane_broken_grant' });
        this.field = options.field;
        this.gaveBack = options.gaveBack;
    }
}
/** Plane text in a message: bounded, on one line, without markup. */
function quote(text) {
    const clean = JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}\u2026` : text);
    return clean.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

;// CONCATENATED MODULE: ./src/gate/lease-time.ts
/**
 * How long a grant or renewal runs, read in the plane's own words (CONTRACT.md part 2):
 * `ttlMs` when it tells one (the bundled kernel does); otherwise `expiresAtMs` against the
 * answer's `Date` header, both on the plane's clock (the hosted plane's contract has only
 * `expiresAtMs`). Never `expiresAtMs` against the runner's wall clock while the plane gave
 * a better word: a runner 10 minutes off would renew 10 minutes late, or never.
 */
/** The hosted plane's documented lease time (CONTRACT.md part 1): no reading goes above it. */
const DOCUMENTED_LEASE_MS = 30_000;
/**
 * A `Date` header names whole seconds, rounded down: when the plane wrote it, its clock
 * may already have been up to this much later, so that much less of the lease was left.
 */
const DATE_RESOLUTION_MS = 1_000;
/** Without ttlMs or a Date header, a reading below this is not believed to the letter. */
const FALLBACK_FLOOR_MS = 1_000;
/**
 * The lease time to pace renewals by, never more than the plane's word allows. With a Date
 * header: `expiresAtMs - Date - 1 s` (the header's uncertainty), counted from when the request
 * was sent, so latency only makes the keeper renew earlier. With neither word: the smaller of
 * the documented 30 s and the expiry against our own wall clock (at least 1 s), and `fallback`
 * says so to the caller, who logs it.
 */
function leaseTimeOf(lease, word) {
    if (lease.ttlMs !== undefined)
        return { ms: lease.ttlMs, source: 'ttl' };
    if (word.planeDateMs !== undefined) {
        const left = lease.expiresAtMs - word.planeDateMs - DATE_RESOLUTION_MS;
        return { ms: bound(left, 0), source: 'date' };
    }
    const left = lease.expiresAtMs - word.wallSentAtMs;
    return { ms: bound(left, FALLBACK_FLOOR_MS), source: 'fallback' };
}
function bound(ms, floor) {
    return Math.min(DOCUMENTED_LEASE_MS, Math.max(floor, Math.floor(ms)));
}
/** The keeper's one log line for a plane that gave no word it could read on the plane's clock. */
function fallbackNote(time) {
    return `The plane's answer tells no ttlMs and no readable Date header: the lease time is read as ${time.ms} ms, the smaller of the documented ${DOCUMENTED_LEASE_MS / 1_000} s and its expiresAtMs against this runner's clock (at least ${FALLBACK_FLOOR_MS / 1_000} s). Renewals are paced by that; a runner clock far ahead of the plane's renews often, one far behind may renew too late for leases shorter than 30 s.`;
}

;// CONCATENATED MODULE: ./src/gate/keep.ts




const MIN_RENEW_EVERY_MS = 100;
/** How often the parent and the lifetime are checked while sleeping. */
const CHECK_EVERY_MS = 2_000;
const RETRY_FAILED_RENEWAL_MS = 1_000;
const GIVE_BACK_MS = 5_000;
/** After a failed watch, or one the plane answered at once, the next one waits this long. */
const WATCH_AGAIN_MS = 1_000;
/**
 * Renews the lease at about a third of its remaining time until stopped. It
 * renews and only renews: an answer naming another lease id means ours ended
 * (lapsed, revoked, released by someone with our DID), so that new lease is
 * given back at once and the loss reported. Correctness never rests on clocks.
 */
async function keepLease(options) {
    const { watch } = options;
    if (!watch)
        return renewLoop(options, {});
    // The watch ends the renewals (and a renewal in flight) the moment it hears the lease ended.
    const inner = new AbortController();
    const stop = () => inner.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    if (options.signal?.aborted)
        stop();
    const seen = {};
    const watching = watchLoop(options, watch, inner.signal, (end) => {
        seen.end = end;
        stop();
    });
    try {
        return await renewLoop({ ...options, signal: inner.signal }, seen);
    }
    finally {
        stop();
        options.signal?.removeEventListener('abort', stop);
        await watching;
    }
}
async function watchLoop(options, watch, signal, onEnd) {
    while (!signal.aborted) {
        const askedAt = options.clock.now();
        let answer;
        try {
            answer = await watch(options.lease.id, signal);
        }
        catch {
            // Renewals go on; watch again shortly.
            await options.sleep(WATCH_AGAIN_MS, signal);
            continue;
        }
        if (answer.kind === 'unsupported')
            return;
        if (answer.kind === 'ended')
            return signal.aborted ? undefined : onEnd(answer);
        // A plane that answers at once rather than holding: do not ask in a tight loop.
        const spent = options.clock.now() - askedAt;
        if (spent < WATCH_AGAIN_MS)
            await options.sleep(WATCH_AGAIN_MS - spent, signal);
    }
}
async function renewLoop(options, seen) {
    const { client, clock, signal } = options;
    const request = { resource: options.resource, actorDid: options.actorDid };
    const started = clock.now();
    const status = firstStatus(options);
    options.onChange?.(status);
    let leaseEnd = firstLeaseEnd(options, started);
    let nextRenewal = started + Math.max(0, leaseEnd - started) / 3;
    const end = (why) => {
        status.ended = { atMs: options.wallNow(), why };
        options.onChange?.(status);
        return status;
    };
    const lose = (loss) => {
        status.lost = { atMs: options.wallNow(), ...loss };
        return end('lost');
    };
    const stopped = () => (seen.end ? lose(lossOf(seen.end)) : end('stopped'));
    for (;;) {
        const now = clock.now();
        if (signal?.aborted)
            return stopped();
        const halt = haltOf(options, now - started);
        if (halt)
            return end(halt);
        if (now < nextRenewal) {
            await options.sleep(Math.max(1, Math.min(nextRenewal - now, CHECK_EVERY_MS)), signal);
            continue;
        }
        let answer;
        const sent = { atMs: clock.now(), wallAtMs: options.wallNow() };
        try {
            answer = await client.lease(request, {
                signal,
                retryUntilMs: Math.max(leaseEnd, now + RETRY_FAILED_RENEWAL_MS),
            });
        }
        catch (error) {
            if (error instanceof CancelledError)
                return stopped();
            // The renewal named another holder, resource or an absurd lease: the client gave it back.
            if (error instanceof BrokenGrantError) {
                return lose({ reason: 'broken_plane', message: error.message, gaveBack: error.gaveBack });
            }
            status.failures += 1;
            status.lastError = errorMessage(error);
            options.onChange?.(status);
            if (error instanceof KeyRefusedError)
                return end('key-refused');
            nextRenewal = clock.now() + RETRY_FAILED_RENEWAL_MS;
            continue;
        }
        const answeredAt = clock.now();
        if (answer.kind !== 'granted')
            return lose(refusalLoss(answer, options.actorDid));
        const { lease } = answer;
        if (lease.id !== status.leaseId) {
            // Not a continuation: exclusivity already had a gap. Give it back, stop.
            const gaveBack = await client
                .release(request, { retryUntilMs: clock.now() + GIVE_BACK_MS })
                .then((r) => r.releasedIds.includes(lease.id))
                .catch(() => false);
            return lose({ reason: 'replaced', newLeaseId: lease.id, gaveBack });
        }
        leaseEnd = sent.atMs + recordRenewal(status, answer, sent.wallAtMs, options.wallNow);
        const remaining = Math.max(0, leaseEnd - answeredAt);
        nextRenewal = answeredAt + Math.max(MIN_RENEW_EVERY_MS, remaining / 3);
        options.onChange?.(status);
    }
}
function firstStatus(options) {
    return {
        resource: options.resource,
        actorDid: options.actorDid,
        leaseId: options.lease.id,
        ...(options.lease.fence === undefined ? {} : { fence: options.lease.fence }),
        expiresAtMs: options.lease.expiresAtMs,
        renewals: 0,
        failures: 0,
    };
}
/**
 * Paced on our monotonic clock from when each granting request was SENT (the plane decided
 * no earlier), by the lease time read in the plane's own words (lease-time.ts): a runner's
 * wall clock off by any amount changes nothing. Renewed at a third of the time left. A grant
 * whose send time or lease time is unknown is renewed at once (its end is `started`), which
 * tells both.
 */
function firstLeaseEnd(options, started) {
    const told = options.lease.ttlMs !== undefined || options.planeDateMs !== undefined;
    return options.sentAtMs === undefined || !told
        ? started
        : options.sentAtMs +
            leaseTimeOf(options.lease, { planeDateMs: options.planeDateMs, wallSentAtMs: 0 }).ms;
}
/** Why the keeper stops on its own, `ranMs` after it started: its lifetime, its parent, its want. */
function haltOf(options, ranMs) {
    if (ranMs >= options.maxLifetimeMs)
        return 'lifetime';
    if (options.parentAlive && !options.parentAlive())
        return 'parent-gone';
    if (options.stillWanted && !options.stillWanted())
        return 'not-wanted';
    return undefined;
}
/** A renewal refused: our lease had ended, and how. */
function refusalLoss(answer, actorDid) {
    switch (answer.kind) {
        case 'held':
            return { reason: 'lease_held', holder: answer.holder };
        case 'revoked':
            return {
                reason: 'revoked',
                message: answer.message,
                ...(answer.by ? { by: answer.by } : {}),
                // A refusal names the revoked agent itself when nobody holds it: that is no new holder.
                ...(answer.holder && answer.holder !== actorDid ? { holder: answer.holder } : {}),
            };
        case 'superseded':
            return { reason: 'superseded', message: answer.by };
        case 'frozen':
            // A holder's renewals go on through a freeze: this one's lease had already ended.
            return { reason: 'frozen', message: answer.message };
        case 'refused':
            return { reason: answer.reason, ...(answer.message ? { message: answer.message } : {}) };
    }
}
/**
 * A renewal of our own lease, recorded in the status; its lease time in milliseconds, to
 * run from when the renewal was sent.
 */
function recordRenewal(status, answer, wallSentAtMs, wallNow) {
    status.renewals += 1;
    status.expiresAtMs = answer.lease.expiresAtMs;
    status.lastRenewedAtMs = wallNow();
    const time = leaseTimeOf(answer.lease, { planeDateMs: answer.planeDateMs, wallSentAtMs });
    // Said once: the plane gave no word on its own clock, so this pace is a guess.
    if (time.source === 'fallback')
        status.note ??= fallbackNote(time);
    return time.ms;
}
/** A loss as the watch told it: when the plane ended the lease, why, and who holds it now. */
function lossOf(end) {
    return {
        reason: end.reason,
        ...(end.endedAtMs === undefined ? {} : { endedAtMs: end.endedAtMs }),
        ...(end.message === undefined ? {} : { message: end.message }),
        ...(end.holder === undefined ? {} : { holder: end.holder }),
        ...(end.by === undefined ? {} : { by: end.by }),
    };
}

;// CONCATENATED MODULE: ./src/plane/json-body.ts

/** A body that is not JSON reads as undefined: the caller decides what that means for its status. */
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
/** One field of a JSON answer, still unchecked: the caller's schema or type test reads it. */
function field(body, name) {
    return typeof body === 'object' && body !== null && name in body
        ? Object.getOwnPropertyDescriptor(body, name)?.value
        : undefined;
}
/** The plane's own words on a failure (its `message`, else its `reason`), clipped to one line. */
function bodyMessage(body) {
    const message = field(body, 'message');
    if (typeof message === 'string')
        return clipText(message, 300);
    const reason = field(body, 'reason');
    if (typeof reason === 'string')
        return clipText(reason, 100);
    return undefined;
}

;// CONCATENATED MODULE: ./src/plane/answers.ts





/**
 * The readers of the plane's answers, one per route: each checks the body against the
 * contract (a ContractError names the field that is wrong) and reads it as the client's
 * answer, its untrusted texts clipped. No I/O: the client sends, these read.
 */
/** A frozen resource that names no back-off is asked again this often. */
const FROZEN_POLL_MS = 5_000;
/** The body as `schema` reads it, or a ContractError naming `call` and what does not match. */
function checkAnswer(schema, raw, call) {
    const parsed = schema.safeParse(raw.body);
    if (parsed.success)
        return parsed.data;
    throw new ContractError(`${call}: the answer does not match the plane's contract: ${describeIssues(parsed.error)}`, { call, status: raw.status });
}
/** The documented pair, plus the deploy's extension fields when the gate knows them. */
function leaseRequestOf(req) {
    const out = { resource: req.resource, actorDid: req.actorDid };
    if (req.deploy)
        out.deploy = req.deploy;
    if (req.queue)
        out.queue = req.queue;
    return out;
}
/** A lease call's body: the request without a release's fields (`outdated`). */
const leaseBody = (req) => ({
    ...leaseRequestOf(req),
});
/**
 * A lease answer, or what is wrong with the grant it makes: a broken grant is the
 * client's to give back (it needs the network) before it fails the call.
 */
function readLease(raw, req, call, wallNow) {
    if (field(raw.body, 'ok') !== true)
        return { answer: interpretLease(raw, call) };
    const parsed = grantedSchema.safeParse(raw.body);
    const broken = parsed.success
        ? grantProblem(parsed.data.lease, req, raw.dateMs ?? wallNow())
        : {
            field: fieldOf(parsed.error),
            problem: `does not match the plane's contract: ${describeIssues(parsed.error)}`,
        };
    if (!parsed.success || broken)
        return { broken: broken };
    // Information only: a plane that omits it, or sends one we cannot read, leaves the check undone.
    const previous = deploy_deploySchema.safeParse(field(raw.body, 'previous'));
    return {
        answer: {
            kind: 'granted',
            lease: parsed.data.lease,
            preferenceApplied: raw.preferenceApplied,
            ...(raw.dateMs === undefined ? {} : { planeDateMs: raw.dateMs }),
            ...(previous.success && previous.data ? { previous: previous.data } : {}),
        },
    };
}
function brokenGrantError(call, raw, broken, gaveBack) {
    return new BrokenGrantError(`${call}: the plane granted a lease that is not ours to believe: ${broken.field} ${broken.problem}. ${gaveBack ? 'It was given back' : 'Giving it back failed (it lapses on its own)'} by (resource, own DID); the plane looks broken.`, { call, status: raw.status, field: broken.field, gaveBack });
}
/** A refusal (`ok` is not true) read as what it means for a waiter. */
function interpretLease(raw, call) {
    const refusal = checkAnswer(otherRefusalSchema, raw, call);
    if (refusal.reason === 'lease_held') {
        const held = checkAnswer(heldSchema, raw, call);
        return {
            kind: 'held',
            holder: held.holder,
            waitMs: held.stampede.waitMs,
            reserved: held.reserved === true,
            ...(held.position === undefined ? {} : { position: Math.floor(held.position) }),
            ...(held.etaMs === undefined ? {} : { etaMs: held.etaMs }),
            ...(held.overdueMs === undefined ? {} : { overdueMs: held.overdueMs }),
            preferenceApplied: raw.preferenceApplied,
        };
    }
    if (refusal.reason === 'frozen') {
        const frozen = checkAnswer(frozenSchema, raw, call);
        return {
            kind: 'frozen',
            message: clipText(frozen.message) || 'frozen by an operator',
            untilMs: frozen.until ?? undefined,
            waitMs: frozen.stampede?.waitMs ?? FROZEN_POLL_MS,
            position: frozen.position,
            preferenceApplied: raw.preferenceApplied,
        };
    }
    if (refusal.reason === 'revoked') {
        const revoked = checkAnswer(revokedSchema, raw, call);
        return {
            kind: 'revoked',
            holder: revoked.holder,
            message: clipText(revoked.message) || 'revoked by an operator',
            ...(revoked.by ? { by: clipText(revoked.by, 200) } : {}),
        };
    }
    if (refusal.reason === 'superseded') {
        return { kind: 'superseded', by: clipText(checkAnswer(supersededSchema, raw, call).by, 2048) };
    }
    return {
        kind: 'refused',
        reason: clipText(refusal.reason, 200),
        message: clipText(refusal.message),
    };
}
function fieldOf(error) {
    const path = error.issues[0]?.path ?? [];
    return path.length ? path.map(String).join('.') : '(body)';
}
/** The lease on a resource and, from the bundled kernel, the freeze in force. */
function readStatus(raw, call) {
    const answer = checkAnswer(statusAnswerSchema, raw, call);
    const frozen = answer.frozen
        ? {
            by: clipText(answer.frozen.by, 200) ?? '',
            reason: clipText(answer.frozen.reason) ?? '',
            untilMs: answer.frozen.until,
        }
        : undefined;
    return { lease: answer.lease, frozen };
}
function readWatch(raw, call) {
    const answer = checkAnswer(watchAnswerSchema, raw, call);
    if (!answer.ended)
        return { kind: 'held' };
    return {
        kind: 'ended',
        reason: clipText(answer.reason, 200) ?? 'unknown',
        endedAtMs: answer.endedAtMs,
        message: clipText(answer.message),
        holder: answer.holder,
        ...(answer.by ? { by: clipText(answer.by, 200) } : {}),
    };
}
function readRevoke(raw, call) {
    const answer = checkAnswer(revokeAnswerSchema, raw, call);
    return {
        revoked: answer.revoked,
        leaseId: answer.leaseId ?? undefined,
        holder: answer.holder ?? undefined,
    };
}

;// CONCATENATED MODULE: ./src/gate/wait.ts



/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
class LeaseRefusedError extends LeaseGateError {
    name = 'LeaseRefusedError';
    /** The plane's reason (`actor_suspended`, \u2026), or what refused (`key refused`). */
    reason;
    /** The plane's own words, when it gave any. */
    detail;
    /** `message`: by default "The plane refused the lease: <reason> (<detail>)". */
    constructor(options) {
        const { reason, detail } = options;
        super(options.message ?? `The plane refused the lease: ${reason}${detail ? ` (${detail})` : ''}`, {
            ...causeOf(options.cause),
            code: options.code ?? 'lease_refused',
        });
        this.reason = reason;
        this.detail = detail;
    }
}
/** An operator revoked this agent's lease on the resource: final, not a wait. */
class LeaseRevokedError extends LeaseRefusedError {
    name = 'LeaseRevokedError';
    resource;
    operatorMessage;
    constructor(options) {
        const { resource, operatorMessage } = options;
        super({
            reason: 'revoked',
            detail: operatorMessage,
            message: `${resource} was revoked for this agent ${revokedBy(options.by)}${operatorReason(operatorMessage)}`,
            code: 'lease_revoked',
        });
        this.resource = resource;
        this.operatorMessage = operatorMessage;
    }
}
/** "by operator:alice" when the plane names who revoked (plane text, clipped to one line), else "by an operator". */
const revokedBy = (by) => `by ${by ?? 'an operator'}`;
/** ": <reason>" for a revoke's message, or nothing when it only repeats "revoked by an operator". */
function operatorReason(message) {
    const said = (message ?? '').trim();
    return said === '' || /^revoked( by an operator)?\.?$/i.test(said) ? '' : `: ${said}`;
}
/** A plane that names no back-off must not be hammered. */
const MIN_SLEEP_MS = 100;
/** The longest single sleep, whatever the plane names. */
const MAX_SLEEP_MS = 60_000;
const MIN_RETRY_WINDOW_MS = 30_000;
const RELEASE_ON_CANCEL_MS = 2_000;
/** A held request shorter than this was not really held: fall back to waitMs. */
const REALLY_HELD_MS = 500;
/**
 * Asks for the lease until it is granted, the budget runs out or the signal
 * fires. The first ask is answered at once (no `Prefer: wait`), so the
 * holder and our place are known within a round trip; later asks ask the
 * plane to hold the request (`Prefer: wait`). After every answer the plane
 * did not hold (the first one included: a plane that ignores `Prefer` must
 * not be asked twice at the start of each job's wait), the loop sleeps the
 * back-off it names, with a little jitter, never past the deadline, with one
 * last ask at the deadline. A wait that ends without the lease leaves the
 * plane's queue, so nothing stays reserved in this agent's name.
 */
async function waitForLease(options) {
    const { client, clock, sleep, signal } = options;
    const request = leaseRequestOf(options);
    const started = clock.now();
    const deadline = started + options.timeoutMs;
    const retryUntilMs = Math.max(deadline, started + (options.minRetryWindowMs ?? MIN_RETRY_WINDOW_MS));
    const last = {};
    for (let asks = 1;; asks += 1) {
        const elapsed = () => Math.round(clock.now() - started);
        if (signal?.aborted) {
            // Leave the plane's queue at once rather than when our place lapses.
            if (asks > 1)
                await releaseQuietly(options, request);
            return { outcome: 'cancelled', waitedMs: elapsed(), asks: asks - 1 };
        }
        // The first ask is never held: the first notice must not wait for a hold to end.
        const waitSeconds = asks === 1 ? undefined : holdSeconds(options, deadline);
        const call = { signal, retryUntilMs, waitSeconds };
        const askedAt = clock.now();
        let answer;
        try {
            answer = await client.lease(request, call);
        }
        catch (error) {
            if (!(error instanceof CancelledError))
                throw error;
            // The plane may have granted what we never heard of: give it back.
            await releaseQuietly(options, request);
            return { outcome: 'cancelled', waitedMs: elapsed(), asks };
        }
        if (answer.kind !== 'held' && answer.kind !== 'frozen') {
            return settle(options, request, answer, { asks, elapsed });
        }
        // Only a lease held now: a reservation would be a new grant, not the app's lease.
        if (answer.kind === 'held' && !answer.reserved && options.takeUp?.(answer.holder)) {
            const taken = await takeUp(options, answer.holder, { signal, retryUntilMs });
            if (taken)
                return { outcome: 'granted', lease: taken, waitedMs: elapsed(), asks, takenUp: true };
        }
        const remaining = deadline - clock.now();
        const frozen = answer.kind === 'frozen' ? { message: answer.message, untilMs: answer.untilMs } : undefined;
        const { holder, reserved } = answer.kind === 'held' ? answer : { holder: '', reserved: false };
        if (remaining <= 0) {
            const waitedMs = elapsed();
            // An ask that ends here must not keep the resource reserved for us.
            await releaseQuietly(options, request);
            return { outcome: 'timeout', holder, reserved, waitedMs, asks, frozen };
        }
        const nextAskInMs = Math.min(pauseMs(options, answer, askedAt), remaining, MAX_SLEEP_MS);
        await options.onHeld?.(heldEvent(answer, { holder, reserved, frozen, asks, elapsedMs: elapsed(), nextAskInMs }, last));
        last.holder = holder;
        last.position = answer.position;
        await sleep(nextAskInMs, signal);
    }
}
/** An answer that ends the wait: granted, superseded, or a refusal waiting cannot fix (thrown). */
async function settle(options, request, answer, ask) {
    const { asks, elapsed } = ask;
    switch (answer.kind) {
        case 'granted': {
            if (options.signal?.aborted) {
                await releaseQuietly(options, request);
                return { outcome: 'cancelled', waitedMs: elapsed(), asks };
            }
            const { lease, previous } = answer;
            return {
                outcome: 'granted',
                lease,
                waitedMs: elapsed(),
                asks,
                ...(previous ? { previous } : {}),
            };
        }
        case 'revoked':
            throw new LeaseRevokedError({
                resource: options.resource,
                operatorMessage: answer.message,
                by: answer.by,
            });
        case 'superseded':
            return { outcome: 'superseded', by: answer.by, waitedMs: elapsed(), asks };
        case 'refused':
            throw new LeaseRefusedError({ reason: answer.reason, detail: answer.message });
    }
}
/**
 * Only an answer the plane held as asked may be followed at once by the next ask;
 * any other (the first, or a plane that ignores Prefer) waits the plane's back-off.
 */
function pauseMs(options, answer, askedAt) {
    const reallyHeld = answer.preferenceApplied === true && options.clock.now() - askedAt >= REALLY_HELD_MS;
    return reallyHeld
        ? options.random() * 50
        : Math.max(MIN_SLEEP_MS, answer.waitMs + options.random() * Math.min(250, answer.waitMs * 0.1));
}
/** What onHeld is told; `last`: the holder and position the previous notice told. */
function heldEvent(answer, ask, last) {
    const { holder, asks } = ask;
    return {
        holder,
        reserved: ask.reserved,
        holderChanged: holder !== last.holder,
        positionChanged: asks === 1 || answer.position !== last.position,
        first: asks === 1,
        elapsedMs: ask.elapsedMs,
        nextAskInMs: ask.nextAskInMs,
        position: answer.position,
        etaMs: answer.kind === 'held' ? answer.etaMs : undefined,
        overdueMs: answer.kind === 'held' ? answer.overdueMs : undefined,
        frozen: ask.frozen,
    };
}
/**
 * Asks as the holder (a renewal: same id and fence) and leaves our own place in the
 * queue. Undefined when that lease is not there to take up any more.
 */
async function takeUp(options, holder, call) {
    const answer = await options.client.lease({ resource: options.resource, actorDid: holder }, call);
    if (answer.kind === 'granted' && answer.lease.holder === holder) {
        await releaseQuietly(options, { resource: options.resource, actorDid: options.actorDid });
        return answer.lease;
    }
    return undefined;
}
/** Whole seconds the plane may hold this ask: within the budget and the request timeout. */
function holdSeconds(options, deadline) {
    const cap = options.maxHoldSeconds ?? 0;
    const left = Math.floor((deadline - options.clock.now()) / 1_000);
    const seconds = Math.min(cap, left);
    return seconds >= 1 ? seconds : undefined;
}
/**
 * Release by (resource, our own DID): it gives back a lease granted in the
 * moment of a cancel, and otherwise only leaves the queue; it can never
 * release another agent's lease.
 */
async function releaseQuietly(options, request) {
    try {
        await options.client.release(request, {
            retryUntilMs: options.clock.now() + RELEASE_ON_CANCEL_MS,
        });
    }
    catch {
        // Best effort: a lease we could not give back lapses on its own.
    }
}

;// CONCATENATED MODULE: ./src/plane/retry.ts
/**
 * The plane client's: the caller's budget alone bounds the attempts (a `run --wait-timeout 30m`
 * retries a dead plane for 30 minutes, as it says), each back-off at most 8 s. A bound of 50
 * attempts gave up after about 4.6 minutes while the CLI said "retrying for 25m 50s more".
 */
const DEFAULT_RETRY = {
    baseMs: 250,
    capMs: 8_000,
    maxAttempts: Number.POSITIVE_INFINITY,
};
/**
 * How long to wait before the next attempt, or undefined to give up: the attempts are spent,
 * the budget is, or the plane's Retry-After asks for longer than is left. A computed back-off
 * that would pass the deadline is cut to it, so the last attempt is made at the deadline and
 * "retrying for N more" holds to the end.
 */
function nextRetryMs(policy, attempt, retryAfterMs, leftMs, random) {
    if (attempt + 1 >= policy.maxAttempts || leftMs <= 0)
        return undefined;
    if (retryAfterMs !== undefined) {
        const asked = Math.min(retryAfterMs, policy.capMs * 4);
        return asked > leftMs ? undefined : asked;
    }
    return Math.min(backoffMs(policy, attempt, random), leftMs);
}
/** Capped exponential back-off with "equal jitter": half fixed, half random. */
function backoffMs(policy, attempt, random) {
    const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(value, nowWallMs) {
    if (value === undefined || value.trim() === '')
        return undefined;
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed))
        return Number(trimmed) * 1000;
    const at = Date.parse(trimmed);
    return Number.isNaN(at) ? undefined : Math.max(0, at - nowWallMs);
}

;// CONCATENATED MODULE: ./src/plane/retry-loop.ts


/** Transient failures are retried this long unless the caller says otherwise. */
const DEFAULT_RETRY_WINDOW_MS = 30_000;
async function withRetries(attempt, call, how) {
    const { clock, sleep, random, policy } = how;
    const first = clock.now();
    const until = call.retryUntilMs ?? first + DEFAULT_RETRY_WINDOW_MS;
    for (let n = 0;; n += 1) {
        try {
            return await attempt();
        }
        catch (error) {
            if (!(error instanceof TransientError))
                throw error;
            const wait = nextRetryMs(policy, n, error.retryAfterMs, until - clock.now(), random);
            if (wait === undefined) {
                throw new PlaneUnavailableError(`${error.message} \u2014 still failing after ${n + 1} attempt(s) over ${Math.round((clock.now() - first) / 1_000)} s; the plane looks unavailable`, { call: error.call, status: error.status, cause: error });
            }
            how.onRetry?.({
                error: error.message,
                attempt: n + 1,
                status: error.status,
                retryForMs: Math.max(0, Math.round(until - clock.now())),
            });
            await sleep(wait, call.signal);
            if (call.signal?.aborted)
                throw new CancelledError();
        }
    }
}

;// CONCATENATED MODULE: ./src/plane/caller.ts

function createCaller(apiUrl, send, key, retrying) {
    return {
        once: (method, path, payload, call) => send(method, path, payload, call, key),
        post: (path, payload, call, bearer = key) => withRetries(() => send('POST', path, payload, call, bearer), call, retrying),
        get: (path, call) => withRetries(() => send('GET', path, undefined, call, key), call, retrying),
        name: (method, path) => `[${method}] "${apiUrl}${path}"`,
    };
}
/** A call the plane never holds (`Prefer: wait` is for lease requests and watches). */
function unheld(call) {
    return { ...call, waitSeconds: undefined };
}

;// CONCATENATED MODULE: ./src/plane/lease-calls.ts




/** A plane without the watch route: "no watch here", not an error. */
const NO_WATCH = new Set([404, 405]);
/** How long giving back a broken grant is retried. */
const lease_calls_GIVE_BACK_MS = 5_000;
/** `wallNow`: only to refuse a grant whose expiry is absurd, when the plane sends no Date. */
function leaseCalls(caller, clock, wallNow) {
    const { post, name } = caller;
    /** Release by (resource, own DID), bounded, never throwing: true when the plane answered it. */
    async function giveBack(req) {
        try {
            const payload = { resource: req.resource, actorDid: req.actorDid };
            const raw = await post(RELEASE_PATH, payload, { retryUntilMs: clock.now() + lease_calls_GIVE_BACK_MS });
            return releaseAnswerSchema.safeParse(raw.body).success;
        }
        catch {
            return false;
        }
    }
    const statusOf = async (resource, call = {}) => {
        const path = `${LEASE_PATH}?resource=${encodeURIComponent(resource)}`;
        const raw = await caller.get(path, unheld(call));
        return readStatus(raw, name('GET', path));
    };
    return {
        async lease(req, call = {}) {
            const raw = await post(LEASE_PATH, leaseBody(req), call);
            const where = name('POST', LEASE_PATH);
            const read = readLease(raw, req, where, wallNow);
            if ('answer' in read)
                return read.answer;
            // A broken plane: whatever it granted is given back by (resource, own DID), never believed.
            throw brokenGrantError(where, raw, read.broken, await giveBack(req));
        },
        async release(req, call = {}) {
            const payload = { resource: req.resource, actorDid: req.actorDid };
            if (req.outdated)
                payload.outdated = true;
            const raw = await post(RELEASE_PATH, payload, unheld(call));
            const answer = checkAnswer(releaseAnswerSchema, raw, name('POST', RELEASE_PATH));
            return { released: answer.releasedIds.length > 0, releasedIds: answer.releasedIds };
        },
        async status(resource, call = {}) {
            return (await statusOf(resource, call)).lease;
        },
        statusOf,
        async watch(req, call = {}) {
            const payload = { resource: req.resource, actorDid: req.actorDid, leaseId: req.leaseId };
            let raw;
            try {
                raw = await caller.once('POST', WATCH_PATH, payload, call);
            }
            catch (error) {
                if (error instanceof RequestRejectedError && NO_WATCH.has(error.status ?? 0))
                    return { kind: 'unsupported' };
                throw error;
            }
            return readWatch(raw, name('POST', WATCH_PATH));
        },
    };
}

;// CONCATENATED MODULE: ./src/plane/operator-calls.ts



function operatorCalls(caller) {
    const { post, name } = caller;
    return {
        async revoke(resource, reason, adminKey, call = {}, by) {
            const payload = by ? { resource, reason, by } : { resource, reason };
            const raw = await post(REVOKE_PATH, payload, unheld(call), adminKey);
            return readRevoke(raw, name('POST', REVOKE_PATH));
        },
        async freeze(request, adminKey, call = {}) {
            const raw = await post(FREEZE_PATH, request, unheld(call), adminKey);
            const answer = checkAnswer(freezeAnswerSchema, raw, name('POST', FREEZE_PATH));
            return { until: answer.until ?? null, changed: answer.changed };
        },
        async unfreeze(resource, adminKey, call = {}, by) {
            const payload = by ? { resource, by } : { resource };
            const raw = await post(UNFREEZE_PATH, payload, unheld(call), adminKey);
            return { changed: checkAnswer(freezeAnswerSchema, raw, name('POST', UNFREEZE_PATH)).changed };
        },
        async breakGlass(request, adminKey, call = {}) {
            const raw = await post(BREAK_GLASS_PATH, request, unheld(call), adminKey);
            return checkAnswer(breakGlassAnswerSchema, raw, name('POST', BREAK_GLASS_PATH));
        },
        async approveBreakGlass(request, approverKey, call = {}) {
            const raw = await post(APPROVE_BREAK_GLASS_PATH, request, unheld(call), approverKey);
            return checkAnswer(breakGlassAnswerSchema, raw, name('POST', APPROVE_BREAK_GLASS_PATH));
        },
        async withdrawBreakGlass(request, adminKey, call = {}) {
            const raw = await post(WITHDRAW_BREAK_GLASS_PATH, request, unheld(call), adminKey);
            return checkAnswer(breakGlassAnswerSchema, raw, name('POST', WITHDRAW_BREAK_GLASS_PATH));
        },
    };
}

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
;// CONCATENATED MODULE: ./src/plane/plane-date.ts

/**
 * An answer's `Date` header (RFC 9110: the origin's clock when it made the answer, whole
 * seconds) as epoch milliseconds; undefined when absent or unreadable. It is the only word
 * on the plane's clock besides `expiresAtMs`, so a plane that tells no `ttlMs` is read by it.
 */
function planeDateOf(value) {
    const text = Array.isArray(value) ? value[0] : value;
    if (text === undefined || text.length > 64)
        return undefined;
    const ms = Date.parse(text);
    return Number.isFinite(ms) && ms > 0 && ms <= MAX_EPOCH_MS ? ms : undefined;
}

;// CONCATENATED MODULE: ./src/plane/send.ts








/** Stands for "the token `bearer` gives now" where a call takes its credential. */
const FRESH_TOKEN = '\0fresh-token';
/** A refusal's status is undocumented: the body decides for these. */
const BODY_DECIDES = new Set([409, 423]);
function createSender(options) {
    return async (method, path, payload, call, bearer) => {
        const url = options.apiUrl + path;
        const name = `[${method}] "${url}"`;
        const headers = { accept: 'application/json' };
        if (payload !== undefined)
            headers['content-type'] = 'application/json';
        const credential = bearer === FRESH_TOKEN ? await freshToken(options, name) : bearer;
        if (credential)
            headers.authorization = `Bearer ${credential}`;
        const wait = call.waitSeconds && call.waitSeconds >= 1 ? Math.floor(call.waitSeconds) : 0;
        if (wait)
            headers.prefer = `wait=${wait}`;
        let response;
        try {
            response = await options.http.send({
                method,
                url,
                headers,
                body: payload === undefined ? undefined : JSON.stringify(payload),
                signal: call.signal,
                timeoutMs: options.timeoutMs,
            });
        }
        catch (error) {
            if (call.signal?.aborted)
                throw new CancelledError();
            const why = error instanceof HttpError ? error.message.slice(name.length + 2) : causeText(error);
            throw new TransientError(`${name}: ${why}`, { call: name, cause: error });
        }
        return readAnswer(options, { name, path, wait }, response);
    };
}
async function freshToken(options, name) {
    try {
        return await options.bearer();
    }
    catch (error) {
        // The token service may be down a moment: retried like the plane itself.
        const why = causeText(error).slice(0, 200);
        throw new TransientError(`${name}: could not get an OIDC token (${why})`, {
            call: name,
            cause: error,
        });
    }
}
/** The answer as a JSON body, or the typed failure its status means. */
function readAnswer(options, sent, response) {
    const { name, wait } = sent;
    const { status, text } = response;
    const statusText = `${status} ${external_node_http_.STATUS_CODES[status] ?? ''}`.trim();
    const body = parseJson(text);
    const failure = statusFailure(options, sent, response, statusText, body);
    if (failure)
        throw failure;
    if (body === undefined) {
        throw new ContractError(`${name}: ${statusText}, but the body is not JSON`, {
            call: name,
            status,
        });
    }
    const applied = headerValue(response.headers['preference-applied']) ?? '';
    return {
        status,
        body,
        preferenceApplied: wait > 0 && /(^|[\s,])wait=\d+/i.test(applied),
        dateMs: planeDateOf(response.headers.date),
    };
}
/** 401/403: the key; 408, 429, 5xx: worth asking again; other non-2xx: rejected. */
function statusFailure(options, sent, response, statusText, body) {
    const { name, path } = sent;
    const { status } = response;
    if (status === 401 || status === 403)
        return keyRefused(options, name, status, statusText, body);
    if (status === 408 || status === 429 || status >= 500) {
        const retryAfter = parseRetryAfter(headerValue(response.headers['retry-after']), Date.now());
        const detail = bodyMessage(body);
        return new TransientError(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
            call: name,
            status,
            retryAfterMs: retryAfter,
        });
    }
    if ((status < 200 || status >= 300) && !(path === LEASE_PATH && BODY_DECIDES.has(status))) {
        const detail = bodyMessage(body);
        return new RequestRejectedError(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
            call: name,
            status,
        });
    }
    return undefined;
}
function keyRefused(options, name, status, statusText, body) {
    // The plane's own words first (escaped, one line): a kernel says what it wanted.
    const said = bodyMessage(body);
    const sent = options.bearer
        ? 'the OIDC token sent'
        : options.key
            ? 'the key'
            : 'the call: no key was sent';
    // A refused job token is no key's fault: say what the kernel checks of a token instead.
    const hint = !options.bearer
        ? undefined
        : status === 403
            ? "the kernel's policy rules for the token's issuer against the job's claims (docs/ci-issuers.md)"
            : "that the kernel trusts the token's issuer and audience (its --oidc-issuer or --oidc-issuers, docs/ci-issuers.md)";
    const keyHint = hint ?? options.keyHint ?? 'LEASE_GATE_KEY (or INTRAMEDIAL_KEY for the hosted plane)';
    return new KeyRefusedError(`${name}: ${statusText}${said ? ` (${said})` : ''}. The plane refused ${sent}; check ${keyHint}.`, { call: name, status, said });
}
function headerValue(value) {
    return Array.isArray(value) ? value[0] : value;
}

// EXTERNAL MODULE: external "node:timers/promises"
var external_node_timers_promises_ = __webpack_require__(8500);
;// CONCATENATED MODULE: ./src/plane/time.ts

const systemClock = { now: () => performance.now() };
const realSleep = async (ms, signal) => {
    if (signal?.aborted)
        return;
    try {
        await (0,external_node_timers_promises_.setTimeout)(Math.max(0, ms), undefined, signal ? { signal } : {});
    }
    catch {
        // Aborted: the caller looks at its signal.
    }
};

;// CONCATENATED MODULE: ./src/plane/client.ts








const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
function createPlaneClient(options) {
    const clock = options.clock ?? systemClock;
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const ownHttp = !options.http;
    const http = options.http ??
        createHttpClient({ headersTimeoutMs: timeoutMs, ...(options.env ? { env: options.env } : {}) });
    const send = createSender({ ...options, http, timeoutMs });
    const key = options.bearer ? FRESH_TOKEN : options.key || undefined;
    const caller = createCaller(options.apiUrl, send, key, {
        clock,
        sleep: options.sleep ?? realSleep,
        random: options.random ?? Math.random,
        policy: options.retry ?? DEFAULT_RETRY,
        onRetry: options.onRetry,
    });
    return {
        apiUrl: options.apiUrl,
        requestTimeoutMs: timeoutMs,
        ...leaseCalls(caller, clock, options.wallNow ?? Date.now),
        ...operatorCalls(caller),
        async close() {
            if (ownHttp)
                await http.close();
        },
    };
}

;// CONCATENATED MODULE: ./src/lease/session.ts





/**
 * One lease session, the same for the action and the CLI:
 * `acquire() \u2192 Held { keep(), release() }`. It knows no runner and no
 * terminal; the faces turn its events into annotations or stderr lines.
 */
/** The one set of limits both faces use (they drifted when each had its own). */
const LIMITS = {
    /** The longest job GitHub runs (5 days, self-hosted) plus an hour. */
    keeperMaxLifetimeMs: 5 * 24 * 3_600_000 + 3_600_000,
    /** How long a release is retried: a lease lasts 30 s anyway. */
    releaseBudgetMs: 10_000,
    /** How long main waits for the keeper's first status record. */
    keeperStartMs: 2_000,
    /** `run`: SIGTERM to the command's group, then SIGKILL after this. */
    terminateGraceMs: 10_000,
};
function openSession(options) {
    const clock = options.clock ?? systemClock;
    const sleep = options.sleep ?? realSleep;
    const random = options.random ?? Math.random;
    const wallNow = options.wallNow ?? Date.now;
    const client = options.client ?? sessionClient(options, { clock, sleep, random, wallNow });
    let request = { resource: options.resource, actorDid: options.actorDid };
    // A held request must be answered before the client's own timeout fires.
    const maxHoldSeconds = options.blocking === false ? 0 : Math.max(0, Math.floor(client.requestTimeoutMs / 1_000) - 2);
    const keeping = { client, clock, sleep, wallNow, maxHoldSeconds };
    async function releaseOwn(how = {}) {
        try {
            const answer = await client.release(how.outdated ? { ...request, outdated: true } : request, {
                retryUntilMs: clock.now() + LIMITS.releaseBudgetMs,
            });
            return { kind: answer.released ? 'released' : 'nothing', ids: answer.releasedIds };
        }
        catch (error) {
            return { kind: 'failed', message: errorMessage(error) };
        }
    }
    function held(lease, waitedMs = 0, grant = {}) {
        return {
            lease,
            waitedMs,
            keep: (controls) => keepLease(keepOptions(keeping, () => request, { lease, grant }, controls)),
            release: releaseOwn,
        };
    }
    return {
        client,
        async acquire({ timeoutMs, signal, onHeld, retryWindowMs, takeUp }) {
            // When the request that was granted was sent (the lease's time runs from no earlier),
            // and the plane's clock in its answer (the keeper reads the lease time by it).
            let grant = {};
            const result = await waitForLease({
                client: timedClient(client, clock, (timing) => {
                    grant = timing;
                }),
                ...request,
                ...(options.deploy ? { deploy: options.deploy } : {}),
                ...(options.queue ? { queue: options.queue } : {}),
                timeoutMs,
                clock,
                sleep,
                random,
                signal,
                maxHoldSeconds,
                ...(retryWindowMs === undefined ? {} : { minRetryWindowMs: retryWindowMs }),
                ...(onHeld ? { onHeld } : {}),
                ...(takeUp ? { takeUp } : {}),
            });
            if (result.outcome !== 'granted')
                return result;
            // A lease taken up is kept and released as its holder from now on.
            if (result.takenUp)
                request = { resource: options.resource, actorDid: result.lease.holder };
            return {
                outcome: 'granted',
                held: held(result.lease, result.waitedMs, grant),
                waitedMs: result.waitedMs,
                ...(result.previous ? { previous: result.previous } : {}),
                ...(result.takenUp ? { takenUp: true } : {}),
            };
        },
        held,
        releaseOwn,
        close: () => client.close(),
    };
}
/** The plane client a session makes when it is given none, on the session's clocks. */
function sessionClient(options, time) {
    return createPlaneClient({
        apiUrl: options.apiUrl,
        key: options.key,
        bearer: options.bearer,
        keyHint: options.keyHint,
        ...time,
        ...(options.env ? { env: options.env } : {}),
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
        ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    });
}
/** The client as the wait sees it, telling `onGrant` when a granted request was sent. */
function timedClient(client, clock, onGrant) {
    return {
        lease: async (...args) => {
            const sent = clock.now();
            const answer = await client.lease(...args);
            if (answer.kind === 'granted')
                onGrant({ sentAtMs: sent, planeDateMs: answer.planeDateMs });
            return answer;
        },
        release: (...args) => client.release(...args),
    };
}
function keepOptions(keeping, 
/** The session's request as it is now (a lease taken up changes it). */
request, granted, controls) {
    const { client, maxHoldSeconds } = keeping;
    return {
        client,
        ...request(),
        lease: controls.lease ?? granted.lease,
        // A lease handed in by the caller came from a request we did not time.
        ...(controls.lease ? {} : granted.grant),
        clock: keeping.clock,
        wallNow: keeping.wallNow,
        sleep: keeping.sleep,
        signal: controls.signal,
        maxLifetimeMs: LIMITS.keeperMaxLifetimeMs,
        ...(controls.parentAlive ? { parentAlive: controls.parentAlive } : {}),
        ...(controls.stillWanted ? { stillWanted: controls.stillWanted } : {}),
        ...(controls.onChange ? { onChange: controls.onChange } : {}),
        // A blocking watch alongside the renewals, so a revoke is known at once.
        ...(maxHoldSeconds > 0 && !controls.noWatch
            ? {
                watch: (leaseId, signal) => client.watch({ ...request(), leaseId }, { signal, waitSeconds: maxHoldSeconds }),
            }
            : {}),
    };
}

;// CONCATENATED MODULE: ./src/gate/duration.ts
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
/** The one form every duration input accepts, for error messages. */
const duration_DURATION_FORM = "a duration such as '500ms', '90s', '15m', '1h' or plain seconds ('0' asks once)";
/** At most a day: GitHub stops any job long before that. */
const MAX_DURATION_MS = (/* unused pure expression or super */ null && (24 * 3_600_000));
/** Parses `500ms`, `90s`, `15m`, `1h` or plain seconds; undefined when not one of those. */
function duration_parseDuration(raw) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
    if (!match)
        return undefined;
    const unit = (match[2] ?? 's');
    const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
    return ms <= MAX_DURATION_MS ? ms : undefined;
}
/** `1m 30s`-style text for logs. */
function formatDuration(ms) {
    if (ms < 1_000)
        return `${Math.round(ms)}ms`;
    const totalSeconds = Math.round(ms / 1_000);
    const hours = Math.floor(totalSeconds / 3_600);
    const minutes = Math.floor((totalSeconds % 3_600) / 60);
    const seconds = totalSeconds % 60;
    const parts = [hours && `${hours}h`, minutes && `${minutes}m`, seconds && `${seconds}s`];
    return parts.filter(Boolean).join(' ') || '0s';
}

;// CONCATENATED MODULE: ./src/lease/settings.ts




/** Where clients read the plane key: ours first, then the hosted plane's documented name. */
const KEY_ENV = 'LEASE_GATE_KEY';
const HOSTED_KEY_ENV = 'INTRAMEDIAL_KEY';
/** The plane key from the environment, and the variable it came from. */
function settings_keyFromEnv(env) {
    const ours = (env[KEY_ENV] ?? '').trim();
    if (ours)
        return { value: ours, from: KEY_ENV };
    return { value: (env[HOSTED_KEY_ENV] ?? '').trim(), from: HOSTED_KEY_ENV };
}
const API_URL_FORM = 'an https:// origin without a path, query or fragment, such as https://api.intramedial.com (plain http:// only for localhost or 127.0.0.1)';
function invalid(given, expected) {
    const shown = given.value.slice(0, 80).replace(/[\r\n]/g, ' ');
    return new SettingsError(`Invalid ${given.from}: '${shown}'. Expected ${expected}.`);
}
function readBoolean(given) {
    const value = given.value.trim();
    if (/^(true|True|TRUE)$/.test(value))
        return true;
    if (/^(false|False|FALSE)$/.test(value))
        return false;
    throw invalid(given, "'true' or 'false'");
}
/**
 * Raw values \u2192 Settings, or a SettingsError before anything is sent anywhere.
 * `keyRequired`: the action needs a key unless it is a dry run; the CLI needs
 * one for anything but a plane on loopback.
 */
function settings_buildSettings(raw, keyRequired) {
    const resource = raw.resource.value.trim();
    if (!RESOURCE_PATTERN.test(resource))
        throw invalid(raw.resource, RESOURCE_FORM);
    const actorDid = raw.actorDid.value.trim();
    if (!isDid(actorDid))
        throw invalid(raw.actorDid, DID_FORM);
    const url = parsePlaneUrl(raw.apiUrl.value.trim());
    // The client adds /api/v1/\u2026: a path here would be sent twice (/api/v1/api/v1/\u2026).
    if (!url.ok || new URL(url.url).pathname !== '/')
        throw invalid(raw.apiUrl, API_URL_FORM);
    const waitTimeoutMs = parseDuration(raw.waitTimeoutMs.value);
    if (waitTimeoutMs === undefined)
        throw invalid(raw.waitTimeoutMs, `${DURATION_FORM}, at most 24h`);
    const onTimeout = raw.onTimeout.value.trim();
    if (onTimeout !== 'fail' && onTimeout !== 'skip')
        throw invalid(raw.onTimeout, "'fail' or 'skip'");
    const keepAlive = readBoolean(raw.keepAlive);
    const dryRun = readBoolean(raw.dryRun);
    const key = raw.key.value.trim();
    const loopback = url.url.startsWith('http:');
    if (!key && keyRequired !== 'never' && !(keyRequired === 'unless-dry-run' ? dryRun : loopback)) {
        throw new SettingsError(keyRequired === 'unless-dry-run'
            ? // The action's `auth: auto` found neither way in: name both, and the way to try without either.
                `No plane key and no OIDC token: either set the 'key' input (or ${KEY_ENV} or ${HOSTED_KEY_ENV}) from a secret, or give the job \`permissions: id-token: write\` so it proves who it is with its GitHub OIDC token (auth: auto or oidc). To try the gate on a local kernel, use 'dry-run: true'.`
            : `No plane key: set ${KEY_ENV} (or ${HOSTED_KEY_ENV} for the hosted plane); only a local kernel on loopback may run without one.`);
    }
    return { resource, actorDid, apiUrl: url.url, key, waitTimeoutMs, onTimeout, keepAlive, dryRun };
}

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(8161);
// EXTERNAL MODULE: external "node:util"
var external_node_util_ = __webpack_require__(7975);
;// CONCATENATED MODULE: ./src/plane/did.ts

/**
 * The DID's shapes, part of the wire contract: the one segment encoder, GitHub's
 * repository names, and the strict readers of a run DID (untrusted input), read alike
 * by the session core (lease/did.ts, which derives the DIDs), the kernel (revokes and
 * OIDC identities) and the console page. No I/O and no node: imports, so the page may
 * bundle it.
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<n>:jobs:<job>:<nonce>
 */
/** A DID segment: UTF-8 bytes outside DID idchars percent-encoded, so a segment never holds a colon. */
function did_didSegment(value) {
    let out = '';
    for (const byte of new TextEncoder().encode(value)) {
        const char = String.fromCharCode(byte);
        out += /[A-Za-z0-9._-]/.test(char)
            ? char
            : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
}
/** GitHub's naming rules: owners are 1\u201339 letters, digits or single hyphens; repos 1\u2013100 of [A-Za-z0-9._-]. */
const OWNER_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
const did_RUN_ID_PATTERN = /^[1-9]\d{0,19}$/;
const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;
/** `owner/repo` by GitHub's rules; undefined for anything else. */
function did_parseRepository(value) {
    const [owner, repo, ...rest] = value.split('/');
    if (rest.length || !owner || !repo || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo)) {
        return undefined;
    }
    return { owner, repo };
}
/**
 * The run behind a DID made by deriveActorDid; undefined for any other DID.
 * Strict: owner and repo by GitHub's rules (never percent-encoded), numeric
 * run and attempt, a plain host name; nothing is decoded into a path.
 */
function did_parseRunDid(did) {
    if (!isDid(did) || !did.startsWith('did:web:'))
        return undefined;
    const parts = did.slice('did:web:'.length).split(':');
    if (parts.length !== 11)
        return undefined;
    const [rawHost = '', owner = '', repo = '', actions, runs, runId = '', attempts, attempt = '', jobs,] = parts;
    const host = rawHost.replace(/%3A/gi, ':');
    const labelsOk = actions === 'actions' && runs === 'runs' && attempts === 'attempts' && jobs === 'jobs';
    if (!labelsOk ||
        !HOST_PATTERN.test(host) ||
        !OWNER_PATTERN.test(owner) ||
        !REPO_PATTERN.test(repo) ||
        !did_RUN_ID_PATTERN.test(runId) ||
        !/^\d{1,6}$/.test(attempt)) {
        return undefined;
    }
    return { host, owner, repo, repository: `${owner}/${repo}`, runId, attempt };
}
/**
 * The run attempt a DID speaks for, by the rule an OIDC token's check uses
 * (kernel/auth/identity.ts): `did:web:<host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>`
 * and whatever follows, ignored, so every DID one token may act as has one key.
 * Host, owner and repo compared without case (GitHub's are case-insensitive),
 * run id and attempt as numbers. Undefined for a DID of no run.
 */
function runAttemptKey(did) {
    if (!did.startsWith('did:web:'))
        return undefined;
    const [host, owner, repo, actions, runs, runId = '', attempts, attempt = ''] = did
        .slice('did:web:'.length)
        .split(':');
    const labelsOk = actions === 'actions' && runs === 'runs' && attempts === 'attempts';
    if (!labelsOk || !host || !owner || !repo || !/^\d+$/.test(runId) || !/^\d+$/.test(attempt)) {
        return undefined;
    }
    const number = (digits) => digits.replace(/^0+(?=\d)/, '');
    return [host, owner, repo].join(':').toLowerCase() + `:${number(runId)}:${number(attempt)}`;
}
/** The run URL behind a DID made by deriveActorDid; undefined for any other DID. */
function did_runUrlFromDid(did) {
    const run = did_parseRunDid(did);
    if (!run)
        return undefined;
    const path = [run.owner, run.repo, 'actions', 'runs', run.runId, 'attempts', run.attempt]
        .map(encodeURIComponent)
        .join('/');
    return `https://${run.host}/${path}`;
}

;// CONCATENATED MODULE: ./src/lease/did.ts


function did_runContextFromEnv(env) {
    const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_JOB } = env;
    if (!GITHUB_REPOSITORY || !parseRepository(GITHUB_REPOSITORY))
        return undefined;
    if (!GITHUB_RUN_ID || !RUN_ID_PATTERN.test(GITHUB_RUN_ID) || !GITHUB_JOB)
        return undefined;
    let serverUrl = 'https://github.com';
    try {
        if (GITHUB_SERVER_URL)
            serverUrl = new URL(GITHUB_SERVER_URL).origin;
    }
    catch {
        return undefined;
    }
    const attempt = GITHUB_RUN_ATTEMPT && /^\d{1,6}$/.test(GITHUB_RUN_ATTEMPT) ? GITHUB_RUN_ATTEMPT : '1';
    return {
        serverUrl,
        repository: GITHUB_REPOSITORY,
        runId: GITHUB_RUN_ID,
        runAttempt: attempt,
        job: GITHUB_JOB.slice(0, 100),
    };
}
function did_deriveActorDid(run, nonce) {
    const host = new URL(run.serverUrl).host;
    const [owner = '', repo = ''] = run.repository.split('/');
    const parts = [didSegment(host), didSegment(owner), didSegment(repo), 'actions', 'runs'];
    parts.push(didSegment(run.runId), 'attempts', didSegment(run.runAttempt));
    parts.push('jobs', didSegment(run.job), didSegment(nonce));
    return `did:web:${parts.join(':')}`;
}
/** The CLI's DID away from a runner: this host and user, through the same encoder. */
function did_hostUserDid(host, user) {
    const did = `did:web:${didSegment(host || 'localhost')}:users:${didSegment(user || 'user')}`;
    return isDid(did)
        ? did
        : `did:web:${didSegment(host.slice(0, 100))}:users:${didSegment(user.slice(0, 100))}`;
}
/** A holder as people should read it: its DID, and its run when we know it. */
function describeHolder(did) {
    const url = runUrlFromDid(did);
    return url ? `${did} (run: ${url})` : did;
}
/** A holder in few characters, for a commit status: its run when we know it. */
function shortHolder(did) {
    const run = parseRunDid(did);
    return run ? `run ${run.runId} of ${run.repository}` : did;
}

;// CONCATENATED MODULE: ./src/cli/suggest.ts
/**
 * "Did you mean": the closest of the known names to a typo, or undefined when
 * none is close enough to be a guess worth printing (at most a third of the
 * longer name's letters apart, and never more than 3 edits).
 */
function closest(typed, known) {
    let best;
    for (const name of known) {
        const distance = editDistance(typed, name);
        const limit = Math.min(3, Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3)));
        if (distance > limit)
            continue;
        if (!best || distance < best.distance)
            best = { name, distance };
    }
    return best?.name;
}
/** Levenshtein distance (insert, delete, substitute), with a swap of two neighbours as one edit. */
function editDistance(a, b) {
    // Flags and command names are short; a bounded input keeps this cheap on any argv.
    if (a.length > 100 || b.length > 100)
        return Math.max(a.length, b.length);
    const rows = [];
    for (let i = 0; i <= a.length; i++) {
        const row = [i];
        for (let j = 1; j <= b.length; j++) {
            if (i === 0) {
                row.push(j);
                continue;
            }
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            let d = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
                d = Math.min(d, rows[i - 2][j - 2] + 1);
            }
            row.push(d);
        }
        rows.push(row);
    }
    return rows[a.length][b.length];
}

;// CONCATENATED MODULE: ./src/cli/plane-url.ts
/**
 * Where the CLI's plane URL comes from: `--api-url`, else LEASE_GATE_API_URL, else
 * INTRAMEDIAL_API_URL (the hosted plane's name, still read), else the hosted plane.
 * A command that asked the hosted plane only because nothing else was named says so
 * when it fails, and how to point it at one's own kernel.
 */
const HOSTED_API_URL = 'https://api.intramedial.com';
/** The variables read for the default `--api-url`, first found wins. */
const API_URL_ENVS = (/* unused pure expression or super */ null && (['LEASE_GATE_API_URL', 'INTRAMEDIAL_API_URL']));
const HOSTED_SOURCE = 'the default, the hosted plane: no --api-url, no LEASE_GATE_API_URL';
/** `flag` is the value of `--api-url` (or its alias), `flagName` how it was spelled. */
function plane_url_givenApiUrl(flag, env, flagName = '--api-url') {
    if (flag !== undefined)
        return { value: flag, from: flagName, source: `from ${flagName}`, hosted: false };
    for (const name of API_URL_ENVS) {
        const value = env[name];
        if (value)
            return {
                value,
                from: `${name} (environment)`,
                source: `from the environment variable ${name}`,
                hosted: false,
            };
    }
    return {
        value: HOSTED_API_URL,
        from: '--api-url (default)',
        source: HOSTED_SOURCE,
        hosted: true,
    };
}
/** What a failure against the hosted plane adds: it was (or would be) asked, and how to ask another. */
const plane_url_hostedHint = (asked = true) => `The hosted plane ${HOSTED_API_URL} ${asked ? 'was' : 'would be'} asked: no --api-url and no LEASE_GATE_API_URL named another. To use your own kernel, pass --api-url URL or set LEASE_GATE_API_URL (e.g. http://127.0.0.1:8787).`;
const HOSTED_HINT = plane_url_hostedHint();
/** The commands that talk to a plane (and take --api-url). */
const PLANE_COMMANDS = new Set([
    'acquire',
    'release',
    'run',
    'status',
    'history',
    'revoke',
    'freeze',
    'unfreeze',
    'break-glass',
    'approve-break-glass',
    'ledger',
]);
/**
 * Whether a plane command's run named no plane (no `--api-url`, `--url` for `ledger export`,
 * nor a variable): then its failure was the hosted plane's. Only its own flags, before `--`.
 */
function askedHostedPlane(name, args, env) {
    if (!PLANE_COMMANDS.has(name))
        return false;
    const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
    const flags = name === 'ledger' ? ['--api-url', '--url'] : ['--api-url'];
    if (own.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`))))
        return false;
    return plane_url_givenApiUrl(undefined, env).hosted;
}

;// CONCATENATED MODULE: ./src/plane/ci-job.ts


/**
 * Which DIDs a CI job's OIDC token lets it act as, by the CI that issued it: part of the
 * wire contract, so the kernel (which verified the token) and the CLI (which reads its own
 * token only to name itself; the kernel checks) spell them alike. No I/O and no node:
 * imports. Each prefix names the narrowest unit the issuer's claims vouch for, and ends
 * with a colon, so a job may add its own segments (a host, a nonce) after it.
 *
 *   github     did:web:<host>:<owner>:<repo>:actions:runs:<run_id>:attempts:<run_attempt>:
 *   gitlab     did:web:<host>:gitlab:projects:<project id>:pipelines:<pipeline_id>:jobs:<job_id>:
 *   circleci   did:web:oidc.circleci.com:circleci:orgs:<org-id>:projects:<project-id>:jobs:<job-id>:
 *   buildkite  did:web:agent.buildkite.com:buildkite:<organization_slug>:<pipeline_slug>:builds:<build_number>:jobs:<job_id>:
 *   custom     the operator's template, `{claim}` replaced by the claim's value as one segment
 *
 * GitHub's tokens name no job, so a run attempt is the unit there; the other CIs name the
 * job. GitLab's project is its id, never its path: in a merge-request pipeline from a fork
 * `project_*` describes the fork, and a path can be renamed, so `job_project_id` (the project
 * the job runs in) is bound where the token has it.
 */
const CI_KINDS = (/* unused pure expression or super */ null && (['github', 'gitlab', 'circleci', 'buildkite', 'custom']));
const CIRCLECI = 'oidc.circleci.com/';
/** Ids as the CIs issue them: decimal numbers, or UUIDs (CircleCI), each one segment. */
const NUMBER = /^[1-9]\d{0,19}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A slug of Buildkite's: lowercase letters, digits and hyphens. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
/** A `{claim}` placeholder of a custom template: claim names as JWTs spell them. */
const PLACEHOLDER = /\{([A-Za-z0-9_./-]{1,100})\}/g;
/** A claim as text: strings as they are, whole numbers in decimal; anything else absent. */
function claimText(claims, name) {
    const value = claims[name];
    if (typeof value === 'string')
        return value;
    if (typeof value === 'number' && Number.isSafeInteger(value))
        return String(value);
    return undefined;
}
const matching = (claims, name, form) => {
    const value = claimText(claims, name);
    return value !== undefined && form.test(value) ? value : undefined;
};
const prefixOf = (segments) => `did:web:${segments.join(':')}:`;
/** The GitLab project the job runs in: `job_project_id` where the token has it. */
function gitlabProjectId(claims) {
    return matching(claims, 'job_project_id', NUMBER) ?? matching(claims, 'project_id', NUMBER);
}
/**
 * The DID prefix a job's token vouches for, or undefined when its claims do not name a
 * job of that CI in the accepted forms (the kernel then refuses the token 401).
 * `host`: the DID host (GitHub's `--oidc-did-host`, GitLab's instance host); ignored by
 * CircleCI and Buildkite, whose issuers are one host each. `template`: custom only.
 */
function ci_job_jobDidPrefix(kind, claims, host, template) {
    const prefix = prefixFor(kind, claims, host, template);
    // The prefix plus one segment must still be a DID the wire accepts.
    return prefix !== undefined && isDid(`${prefix}x`) ? prefix : undefined;
}
function prefixFor(kind, claims, host, template) {
    switch (kind) {
        case 'github': {
            const repo = parseRepository(claimText(claims, 'repository') ?? '');
            const run = matching(claims, 'run_id', NUMBER);
            const attempt = matching(claims, 'run_attempt', /^[1-9]\d{0,5}$/);
            if (!repo || !run || !attempt)
                return undefined;
            const head = [didSegment(host), repo.owner, repo.repo];
            return prefixOf([...head, 'actions', 'runs', run, 'attempts', attempt]);
        }
        case 'gitlab': {
            const project = gitlabProjectId(claims);
            const pipeline = matching(claims, 'pipeline_id', NUMBER);
            const job = matching(claims, 'job_id', NUMBER);
            if (!project || !pipeline || !job)
                return undefined;
            const head = [didSegment(host), 'gitlab', 'projects', project];
            return prefixOf([...head, 'pipelines', pipeline, 'jobs', job]);
        }
        case 'circleci': {
            const org = matching(claims, `${CIRCLECI}org-id`, UUID);
            const project = matching(claims, `${CIRCLECI}project-id`, UUID);
            const job = matching(claims, `${CIRCLECI}job-id`, UUID);
            if (!org || !project || !job)
                return undefined;
            const head = ['oidc.circleci.com', 'circleci', 'orgs', org];
            return prefixOf([...head, 'projects', project, 'jobs', job]);
        }
        case 'buildkite': {
            const org = matching(claims, 'organization_slug', SLUG);
            const pipeline = matching(claims, 'pipeline_slug', SLUG);
            const build = matching(claims, 'build_number', NUMBER);
            const job = matching(claims, 'job_id', UUID);
            if (!org || !pipeline || !build || !job)
                return undefined;
            const head = ['agent.buildkite.com', 'buildkite', org, pipeline];
            return prefixOf([...head, 'builds', build, 'jobs', job]);
        }
        case 'custom':
            return template === undefined ? undefined : fromTemplate(template, claims);
    }
}
/**
 * A custom issuer's prefix: each `{claim}` replaced by the claim's value as one DID segment
 * (so a value can never add a colon); a missing or empty claim gives no prefix at all.
 */
function fromTemplate(template, claims) {
    let missing = false;
    const prefix = template.replace(PLACEHOLDER, (_, name) => {
        const value = claimText(claims, name);
        if (!value)
            missing = true;
        return value ? didSegment(value) : '';
    });
    return missing ? undefined : prefix;
}
/** A custom template an operator wrote: checked at start, so a typo fails there, not per token. */
function templateProblem(template) {
    const names = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
    const sample = template.replace(PLACEHOLDER, 'x');
    if (!template.startsWith('did:web:') || !template.endsWith(':') || !isDid(`${sample}x`)) {
        return 'expected a DID prefix such as did:web:jenkins.example.com:{sub}: (did:web:, ending with a colon)';
    }
    if (names.length === 0)
        return 'expected at least one {claim} placeholder';
    return undefined;
}
/**
 * The CI whose token this is, by its issuer URL alone: what the CLI and `--oidc-issuer URL`
 * assume when nothing says otherwise. GitLab instances and custom issuers cannot be told by
 * their URL (they are named by `gitlab=URL`, or in an issuers file).
 */
function kindOfIssuer(issuer) {
    let url;
    try {
        url = new URL(issuer);
    }
    catch {
        return undefined;
    }
    if (url.hostname === 'token.actions.githubusercontent.com')
        return 'github';
    if (url.hostname === 'oidc.circleci.com')
        return 'circleci';
    if (url.hostname === 'agent.buildkite.com')
        return 'buildkite';
    if (url.hostname === 'gitlab.com')
        return 'gitlab';
    return undefined;
}

;// CONCATENATED MODULE: ./src/cli/ci-auth.ts









/**
 * The CLI's credential, as the action's `auth` input chooses it (`--auth`, LEASE_GATE_AUTH):
 *   key   the key (LEASE_GATE_KEY), or none on a loopback kernel
 *   oidc  a token: --oidc-token-file / LEASE_GATE_OIDC_TOKEN, else the job's own (ci-tokens.ts),
 *         else a usage error naming what to set on this CI
 *   auto  a token given by flag or variable; else the key if one is set; else the job's own
 *         token if this job can get one; else none (a kernel off loopback then refuses)
 * On a job's own token the CLI names itself by the token's claims (read, not verified: the
 * kernel verifies and refuses any other DID) and lets the kernel fill the deploy from them.
 */
const AUTH_MODES = (/* unused pure expression or super */ null && (['auto', 'key', 'oidc']));
const AUTH_ENV = 'LEASE_GATE_AUTH';
const AUDIENCE_ENV = 'LEASE_GATE_OIDC_AUDIENCE';
/** The token to send, or undefined for the key (or none). Throws SettingsError for a bad flag. */
function ci_auth_credentialOf(values, env) {
    const auth = authMode(values, env);
    const audience = audienceOf(values, env);
    const tokenFile = values['oidc-token-file'];
    if (auth === 'key') {
        if (tokenFile) {
            throw new SettingsError('--auth key and --oidc-token-file contradict: the key is sent, or the token; give one.');
        }
        return undefined;
    }
    if (tokenFile || env[TOKEN_ENV])
        return { bearer: cachedToken(givenTokenSource(tokenFile, env)) };
    if (auth === 'auto' && keyFromEnv(env).value)
        return undefined;
    const ci = ciOfEnv(env);
    if (!ci) {
        if (auth === 'auto')
            return undefined;
        throw new SettingsError(`--auth oidc, but this is not a job of a CI whose token lease-gate finds (GitHub Actions, GitLab CI, CircleCI, Buildkite: none of GITHUB_ACTIONS, GITLAB_CI, CIRCLECI, BUILDKITE is 'true'): give the token with --oidc-token-file FILE or ${TOKEN_ENV}.`);
    }
    const way = ciTokenWay(ci, env, { audience, idTokenVar: values['id-token-var'] });
    if ('missing' in way) {
        if (auth === 'auto')
            return undefined;
        throw new SettingsError(`--auth oidc on ${CI_NAMES[ci]}: ${way.missing}`);
    }
    return { bearer: cachedToken(way.source), ci };
}
function authMode(values, env) {
    const given = values.auth ?? (env[AUTH_ENV] || 'auto');
    if (!AUTH_MODES.includes(given)) {
        const from = values.auth === undefined ? `${AUTH_ENV} (environment)` : '--auth';
        throw new SettingsError(`Invalid ${from} '${untrusted(given, 40)}'. Expected 'auto', 'key' or 'oidc'.`);
    }
    return given;
}
function audienceOf(values, env) {
    const given = values['oidc-audience'] ?? (env[AUDIENCE_ENV] || undefined);
    if (given !== undefined && !/^[\x21-\x7e]{1,200}$/.test(given)) {
        const from = values['oidc-audience'] === undefined ? `${AUDIENCE_ENV} (environment)` : '--oidc-audience';
        throw new SettingsError(`Invalid ${from} '${untrusted(given, 60)}'. Expected 1 to 200 printable characters without spaces.`);
    }
    return given;
}
/**
 * The DID a job's own token vouches for, with one segment of this host after it (as the
 * CLI's default DID on a GitHub runner), so `acquire` and a later `release` of the same job
 * speak as one agent. GitLab's host is its issuer's; GitHub's the server's. Undefined when
 * the claims name no job of that CI (the kernel would refuse the token anyway).
 */
function ci_auth_jobDid(ci, token, env) {
    const claims = tokenClaims(token);
    if (!claims)
        return undefined;
    const hostOf = (url) => {
        try {
            return typeof url === 'string' ? new URL(url).host : '';
        }
        catch {
            return '';
        }
    };
    const host = ci === 'gitlab'
        ? hostOf(claims.iss)
        : ci === 'github'
            ? hostOf(env.GITHUB_SERVER_URL || 'https://github.com')
            : '';
    const prefix = jobDidPrefix(ci, claims, host);
    return prefix === undefined ? undefined : `${prefix}${didSegment(hostname() || 'host')}`;
}
/** The variable each CI sets to the commit the job runs on. */
const COMMIT_ENV = {
    github: 'GITHUB_SHA',
    gitlab: 'CI_COMMIT_SHA',
    circleci: 'CIRCLE_SHA1',
    buildkite: 'BUILDKITE_COMMIT',
};
/**
 * The deploy sent on a job's own token: the fields given by flags, plus the commit the CI's
 * environment names. Present even when empty: an empty deploy asks the kernel to fill every
 * field from the token (it maps the repository, which the CLI cannot know), and where the
 * token has a field, a sent value must agree with it (403 not_your_deploy).
 */
function jobDeploy(ci, flags, env) {
    const commit = (env[COMMIT_ENV[ci]] ?? '').trim().toLowerCase();
    // Buildkite's may be `HEAD` before the agent resolves it: only a full SHA is sent.
    const known = commit && deploySchema.safeParse({ commit }).success ? { commit } : {};
    return { ...known, ...flags };
}

;// CONCATENATED MODULE: ./src/cli/options.ts










/** Exit codes, as --help documents them; a signal is 128 + its number. */
const EXIT = { done: 0, refused: 1, usage: 2 };
/** 128 + the signal's number, for every signal. */
function signalExitCode(signal) {
    return 128 + ((signal && constants.signals[signal]) || 0);
}
/** Bad command-line use: printed with the usage hint, exit 2. */
class UsageError extends LeaseGateError {
    name = 'UsageError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'usage' });
    }
}
function parse(args, options, allowPositionals = false) {
    try {
        return (0,external_node_util_.parseArgs)({ args, options, allowPositionals, strict: true });
    }
    catch (error) {
        const unknown = unknownFlag(error);
        if (unknown)
            throw new UsageError(unknownFlagMessage(unknown, options));
        // node:util's parse errors carry a code: errorMessage() gives their first line as it is.
        throw new UsageError(errorMessage(error), { cause: error });
    }
}
/** The flag node:util refused as unknown (`--statsu`, `-x`), else undefined. */
function unknownFlag(error) {
    if (error?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
        return;
    return /^Unknown option '([^']*)'/.exec(errorMessage(error))?.[1];
}
/** "Unknown flag '--statsu'. Did you mean --status?", the guess from this command's own flags. */
function unknownFlagMessage(flag, options) {
    const name = flag.replace(/^-+/, '').split('=')[0] ?? '';
    const guess = closest(name, Object.keys(options));
    const shown = `'${escape_untrusted(flag, 60)}'`;
    return guess
        ? `Unknown flag ${shown}. Did you mean --${guess}?`
        : `Unknown flag ${shown}. (A command's own arguments go after '--'.)`;
}
/**
 * The CLI's default DID: on a GitHub runner the run's DID (the runner host tells
 * jobs apart), elsewhere this host and user, through the one DID encoder.
 * Stable across calls, so `acquire` and a later `release` speak as the same agent.
 */
function defaultCliDid(env) {
    const run = runContextFromEnv(env);
    if (run)
        return deriveActorDid(run, hostname());
    let user = env.USER || env.USERNAME || '';
    try {
        user ||= userInfo().username;
    }
    catch {
        user ||= 'user';
    }
    return hostUserDid(hostname(), user);
}
/** A flag's value, else an environment variable's, else the default: each named as its source. */
function pick(flag, value, env, envName, fallback) {
    if (value !== undefined)
        return { value, from: `--${flag}` };
    const fromEnv = envName ? env[envName] : undefined;
    if (fromEnv)
        return { value: fromEnv, from: `${envName} (environment)` };
    return { value: fallback, from: `--${flag} (default)` };
}
/** Where `--api-url`'s value came from, in the words the unreachable-plane line uses. */
function apiUrlSource(values, env) {
    return givenApiUrl(values['api-url'], env).source;
}
/** Flags and environment \u2192 the session's settings; messages name the flag or variable. */
function settingsFromFlags(values, env) {
    const fixed = (value) => ({ value, from: 'default' });
    const given = givenApiUrl(values['api-url'], env);
    const apiUrl = { value: given.value, from: given.from };
    try {
        // An OIDC token (for a kernel started with --oidc-audience) is sent instead of the key.
        const credential = credentialOf(values, env);
        const bearer = credential?.bearer;
        const settings = buildSettings({
            resource: pick('resource', values.resource, env, undefined, 'lock:deploy/production'),
            actorDid: pick('actor-did', values['actor-did'], env, 'LEASE_GATE_ACTOR_DID', values['actor-did'] ?? defaultCliDid(env)),
            apiUrl: apiUrl,
            key: bearer ? { value: '', from: 'an OIDC token' } : keyFromEnv(env),
            waitTimeoutMs: pick('wait-timeout', values['wait-timeout'], env, undefined, '30m'),
            onTimeout: fixed('fail'),
            keepAlive: fixed('true'),
            dryRun: fixed('false'),
        }, bearer ? 'never' : 'unless-loopback');
        const apiUrlFrom = given.source;
        if (!bearer)
            return { ...settings, apiUrlFrom };
        return credential.ci
            ? { ...settings, bearer, apiUrlFrom, ci: credential.ci }
            : { ...settings, bearer, apiUrlFrom };
    }
    catch (error) {
        // Nothing named a plane: the hosted one is meant, said with how to name another.
        if (error instanceof SettingsError)
            throw new UsageError(given.hosted ? `${error.message} ${hostedHint(false)}` : error.message, {
                cause: error,
            });
        throw error;
    }
}
/**
 * settingsFromFlags for the commands that hold a lease (acquire, release, run): on a job's own
 * token, and no DID given, the DID that token vouches for. The first token is asked for here
 * (kept for the first request), so a CI that cannot give one fails before anything is sent.
 */
async function holderSettings(values, env) {
    const settings = settingsFromFlags(values, env);
    if (!settings.ci || !settings.bearer)
        return settings;
    if (values['actor-did'] !== undefined || env.LEASE_GATE_ACTOR_DID)
        return settings;
    // On a runner the default is already the run's DID, with its job, as the action's.
    if (settings.ci === 'github' && runContextFromEnv(env))
        return settings;
    const did = jobDid(settings.ci, await settings.bearer(), env);
    if (!did) {
        throw new UsageError(`This job's OIDC token names no job of ${settings.ci} in the form lease-gate knows: give --actor-did D (the kernel accepts only a DID its token vouches for).`);
    }
    return { ...settings, actorDid: did };
}
const stdio = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    write: (text) => new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve()))),
};

;// CONCATENATED MODULE: ./src/cli/keep-command.ts










/**
 * `lease-gate keep` (internal): the action's detached keeper. Renews the lease
 * (and only renews it) until post stops it or removes its status file, its
 * runner is gone or its lifetime ends. The key comes from the environment (`keyFromEnv`;
 * main's spawn leaves only the step's key there, `helperEnv`).
 */
async function keep(args, _io, env) {
    const { values } = parse(args, {
        'api-url': { type: 'string', default: '' },
        resource: { type: 'string', default: '' },
        'actor-did': { type: 'string', default: '' },
        lease: { type: 'string', default: '' },
        status: { type: 'string', default: '' },
        'parent-pid': { type: 'string', default: '0' },
        'oidc-audience': { type: 'string' },
    });
    const url = url_parsePlaneUrl(values['api-url']);
    if (!url.ok || !values.resource || !values['actor-did'] || !values.status || !values.lease) {
        throw new UsageError('keep needs --api-url, --resource, --actor-did, --lease and --status.');
    }
    let raw;
    try {
        raw = JSON.parse(values.lease);
    }
    catch {
        throw new UsageError('Invalid --lease: expected the granted lease as JSON.');
    }
    const parsed = keeperLeaseSchema.safeParse(raw);
    if (!parsed.success)
        throw new UsageError(`Invalid --lease: ${describeIssues(parsed.error)}.`);
    const statusFile = values.status;
    const parentPid = Number(values['parent-pid']);
    // With an audience, the job's own OIDC tokens (the runner's token service lasts the whole job).
    const audience = values['oidc-audience'];
    const session = openSession({
        apiUrl: url.url,
        key: audience ? '' : settings_keyFromEnv(env).value,
        bearer: audience ? oidc_token_cachedToken(keeperTokens(env, audience)) : undefined,
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
            parentAlive: () => !(parentPid > 0) || isAlive(parentPid),
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
    return EXIT.done;
}
/** The job's own tokens: the runner's service on GitHub (the action), else its CI's way (ci-tokens.ts). */
function keeperTokens(env, audience) {
    const ci = ci_tokens_ciOfEnv(env);
    if (!ci || ci === 'github')
        return runnerTokenSource(env, audience);
    // GitLab's audience is the job's own `aud:`; the keeper takes the token as the job has it.
    const way = ci_tokens_ciTokenWay(ci, env, ci === 'gitlab' ? {} : { audience });
    if ('missing' in way)
        throw new UsageError(`keep --oidc-audience: ${way.missing}`);
    return way.source;
}

;// CONCATENATED MODULE: ./src/cli/keeper-main.ts




/**
 * The keeper process (src/bin/keeper.ts): `lease-gate keep`'s arguments, its exit codes and
 * its one-line failures, without the rest of the CLI in memory.
 */
async function runKeeper(argv) {
    const fail = (error) => {
        stdio.err(`lease-gate keep: ${escape_untrusted(errorMessage(error), 1_000)}`);
        process.exit(EXIT.refused);
    };
    process.on('uncaughtException', fail).on('unhandledRejection', fail);
    try {
        process.exitCode = await keep(argv, stdio, process.env);
    }
    catch (error) {
        if (!(error instanceof UsageError))
            return fail(error);
        stdio.err(escape_untrusted(error.message, 1_000));
        process.exitCode = EXIT.usage;
    }
}


/***/ })

};

//# sourceMappingURL=919.index.js.map