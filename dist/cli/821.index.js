export const id = 821;
export const ids = [821];
export const modules = {

/***/ 6821:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  describeRow: () => (/* binding */ describeRow),
  history: () => (/* binding */ history_command_history),
  historyOf: () => (/* binding */ historyOf),
  parseSince: () => (/* binding */ parseSince)
});

// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./src/gate/duration.ts
var duration = __webpack_require__(9731);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/ledger/remote.ts
var remote = __webpack_require__(2555);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/plane/entry-kinds.ts
var entry_kinds = __webpack_require__(4152);
;// CONCATENATED MODULE: ./src/console/page/api.ts


/**
 * The console's reads and its one write, all to the page's own origin (the
 * paths are absolute, never a full URL). Keys live in this module only: in
 * memory, gone with the tab; never in storage, a cookie or a URL.
 */
const PATHS = {
    resources: '/api/v1/kernel/resources',
    checkpoint: '/api/v1/acp/ledger/checkpoint',
    bundle: '/api/v1/acp/ledger/bundle',
    publicKey: '/api/v1/acp/ledger/public-key',
    revoke: '/api/v1/acp/coordination/revoke',
    freeze: '/api/v1/acp/coordination/freeze',
    unfreeze: '/api/v1/acp/coordination/unfreeze',
    breakGlass: '/api/v1/acp/coordination/break-glass',
    approveBreakGlass: '/api/v1/acp/coordination/break-glass/approve',
    withdrawBreakGlass: '/api/v1/acp/coordination/break-glass/withdraw',
};
const MAX_LIST = 10_000;
/** Resources asked per page of the overview (the kernel's most), and how many pages at most. */
const RESOURCES_PAGE = 5_000;
const MAX_RESOURCE_PAGES = 200;
const api_text = schemas/* string */.YjP().check(api/* _maxLength */.Eb(1_000));
const time = schemas/* number */.aig().check(api/* _gte */.qm(0), api/* _lte */.Zm(8.64e15));
const freezeSchema = schemas/* object */.Ikc({ reason: api_text, untilMs: schemas/* nullable */.mee(time), by: api_text, atMs: time });
/** What a holder or waiter deploys, as the kernel recorded it; links are checked again when drawn. */
const deploySchema = schemas/* optional */.lqM(schemas/* object */.Ikc({
    repository: schemas/* optional */.lqM(api_text),
    workflow: schemas/* optional */.lqM(api_text),
    ref: schemas/* optional */.lqM(api_text),
    commit: schemas/* optional */.lqM(api_text),
    runNumber: schemas/* optional */.lqM(schemas/* number */.aig()),
    runAttempt: schemas/* optional */.lqM(schemas/* number */.aig()),
    runUrl: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _maxLength */.Eb(2_048))),
}));
const resourcesSchema = schemas/* object */.Ikc({
    ok: schemas/* literal */.euz(true),
    nowMs: time,
    resources: schemas/* array */.YOg(schemas/* object */.Ikc({
        resource: api_text,
        lease: schemas/* nullable */.mee(schemas/* object */.Ikc({
            id: api_text,
            holder: api_text,
            expiresAtMs: time,
            fence: schemas/* optional */.lqM(schemas/* number */.aig()),
            grantedAtMs: schemas/* optional */.lqM(time),
            deploy: deploySchema,
        })),
        reserved: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* object */.Ikc({ holder: api_text, untilMs: time }))),
        frozen: schemas/* optional */.lqM(freezeSchema),
        /** An operator's break-glass not used yet: open, or waiting for a second operator. */
        breakGlass: schemas/* optional */.lqM(schemas/* object */.Ikc({
            actorDid: api_text,
            reason: api_text,
            by: api_text,
            untilMs: time,
            pending: schemas/* boolean */.zMY(),
            approvedBy: schemas/* optional */.lqM(api_text),
        })),
        queue: schemas/* array */.YOg(schemas/* object */.Ikc({
            actorDid: api_text,
            position: schemas/* number */.aig(),
            deploy: deploySchema,
            /** When it first asked, by the kernel's clock (`detail=1`; absent from older kernels). */
            sinceMs: schemas/* optional */.lqM(time),
            /** About how long until it is granted, at recent hold times (`detail=1`, when known). */
            etaMs: schemas/* optional */.lqM(time),
        }))
            .check(api/* _maxLength */.Eb(MAX_LIST)),
    }))
        .check(api/* _maxLength */.Eb(RESOURCES_PAGE)),
    /** The `after` of the next page; absent from a kernel that does not page. */
    next: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* string */.YjP().check(api/* _maxLength */.Eb(1_000)))),
    /** The promotion order (`--promote`): each step, from and to. */
    promotions: schemas/* optional */.lqM(schemas/* array */.YOg(schemas/* object */.Ikc({ from: api_text, to: api_text })).check(api/* _maxLength */.Eb(100))),
    windows: schemas/* optional */.lqM(schemas/* array */.YOg(schemas/* object */.Ikc({
        name: api_text,
        schedule: api_text,
        timeZone: api_text,
        durationMs: schemas/* number */.aig(),
        resources: schemas/* array */.YOg(api_text).check(api/* _maxLength */.Eb(100)),
        reason: api_text,
        activeFromMs: schemas/* nullable */.mee(time),
        activeUntilMs: schemas/* nullable */.mee(time),
        nextStartMs: schemas/* nullable */.mee(time),
    }))
        .check(api/* _maxLength */.Eb(100))),
    /** The health gate's checks (docs/health-gate.md); absent when the kernel runs none. */
    healthChecks: schemas/* optional */.lqM(schemas/* array */.YOg(schemas/* object */.Ikc({
        resource: api_text,
        url: api_text,
        healthy: schemas/* nullable */.mee(schemas/* boolean */.zMY()),
        reason: schemas/* nullable */.mee(api_text),
        checkedAtMs: schemas/* nullable */.mee(time),
        nextAtMs: schemas/* nullable */.mee(time),
    }))
        .check(api/* _maxLength */.Eb(100))),
    notifications: schemas/* optional */.lqM(schemas/* object */.Ikc({
        ok: schemas/* boolean */.zMY(),
        delivered: schemas/* number */.aig(),
        pending: schemas/* number */.aig(),
        failed: schemas/* number */.aig(),
        dropped: schemas/* number */.aig(),
        /** Why notifications have stopped altogether (the kernel's notification thread is gone). */
        stopped: schemas/* optional */.lqM(api_text),
        recentFailures: schemas/* array */.YOg(schemas/* object */.Ikc({ id: api_text, url: api_text, kind: api_text, resource: api_text, error: api_text, atMs: time }))
            .check(api/* _maxLength */.Eb(100)),
    })),
});
const entrySchema = schemas/* object */.Ikc({
    tsMs: time,
    kind: schemas/* enum */.k5n(entry_kinds/* ENTRY_KINDS */.p),
    resource: api_text,
    actorDid: api_text,
    leaseId: api_text,
    fence: schemas/* number */.aig(),
    expiresAtMs: schemas/* optional */.lqM(time),
    reason: schemas/* optional */.lqM(api_text),
    by: schemas/* optional */.lqM(api_text),
    approvedBy: schemas/* optional */.lqM(api_text),
    deploy: deploySchema,
    promotedVia: schemas/* optional */.lqM(api_text),
});
const bundleSchema = schemas/* object */.Ikc({
    checkpoint: schemas/* string */.YjP().check(api/* _maxLength */.Eb(10_000)),
    entries: schemas/* array */.YOg(schemas/* object */.Ikc({
        index: schemas/* number */.aig(),
        entry: schemas/* unknown */.L5J(),
        inclusionProof: schemas/* array */.YOg(schemas/* string */.YjP()).check(api/* _maxLength */.Eb(64)),
    }))
        .check(api/* _maxLength */.Eb(MAX_LIST)),
    next: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* string */.YjP().check(api/* _maxLength */.Eb(1_000)))),
});
class ApiError extends Error {
    status;
    reason;
    constructor(status, message, 
    /** The kernel's `reason` word ("forbidden", "admin_disabled"...), when it gave one. */
    reason) {
        super(message);
        this.status = status;
        this.reason = reason;
    }
}
let readKey;
let adminKey;
const hasReadKey = () => readKey !== undefined;
const keys = {
    setRead: (key) => void (readKey = key || undefined),
    setAdmin: (key) => void (adminKey = key || undefined),
    forgetAdmin: () => void (adminKey = undefined),
    hasAdmin: () => adminKey !== undefined,
};
async function call(path, init = {}, key = readKey) {
    const headers = new Headers(init.headers);
    if (key)
        headers.set('authorization', `Bearer ${key}`);
    const response = await fetch(path, {
        ...init,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
    });
    if (!response.ok) {
        let message = `${response.status} ${response.statusText}`;
        let reason;
        try {
            const body = (await response.json());
            if (typeof body.message === 'string')
                message = body.message.slice(0, 300);
            if (typeof body.reason === 'string')
                reason = body.reason.slice(0, 64);
        }
        catch {
            // not JSON: keep the status line
        }
        throw new ApiError(response.status, message, reason);
    }
    return response;
}
async function json(schema, response, what) {
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success)
        throw new ApiError(0, `the kernel's ${what} answer is not in the expected form`);
    return parsed.data;
}
/**
 * Every resource, page by page (bounded), as one list; `nowMs` is the first page's.
 * `detail=1` adds each waiter's `sinceMs`, so its wait survives a reload.
 */
async function fetchResources() {
    const ask = (after) => `${PATHS.resources}?detail=1&limit=${RESOURCES_PAGE}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
    let page = await json(resourcesSchema, await call(ask()), 'resources');
    const all = { ...page, resources: [...page.resources], next: null };
    for (let n = 1; page.next && n < MAX_RESOURCE_PAGES; n += 1) {
        page = await json(resourcesSchema, await call(ask(page.next)), 'resources');
        for (const row of page.resources)
            all.resources.push(row);
    }
    return all;
}
const fetchCheckpoint = async () => (await call(PATHS.checkpoint)).text();
const fetchPublicKey = async () => (await call(PATHS.publicKey)).text();
/** Entries from `from` to the end of one export, following its cursor (bounded). */
async function fetchEntries(from, maxPages = 20) {
    let page = await json(bundleSchema, await call(`${PATHS.bundle}?from=${from}&limit=1000`), 'ledger bundle');
    const all = { ...page, entries: [...page.entries] };
    for (let n = 1; page.next && n < maxPages; n += 1) {
        page = await json(bundleSchema, await call(`${PATHS.bundle}?cursor=${encodeURIComponent(page.next)}&limit=1000`), 'ledger bundle');
        all.entries.push(...page.entries);
    }
    return all;
}
/** A lever's call: `body` posted as JSON with `key`, and the kernel's answer (its JSON). */
async function postLever(path, body, key) {
    const init = {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
    };
    return (await call(path, init, key)).json();
}
/** A lever that takes the admin key: refused here, before any call, when none was typed. */
async function postAdmin(path, body) {
    if (!adminKey)
        throw new ApiError(0, 'type the admin key first');
    return postLever(path, body, adminKey);
}
/** `by`: the operator's name ("Your name"), recorded on the revoke's entry as `operator:NAME`. */
async function revoke(resource, reason, by) {
    const body = by ? { resource, reason, by } : { resource, reason };
    return (await postAdmin(PATHS.revoke, body));
}

;// CONCATENATED MODULE: ./src/console/page/holds.ts
/** Ledger entries \u2192 holds per resource: pure, shared by the console and the playground. */

/**
 * Pairs each grant with the release, lapse or revocation of the same lease.
 * A lease whose end is not in the entries is still open; an end whose grant
 * came before the first entry shown starts at the earliest time known.
 */
function holdsFrom(entries) {
    const byResource = new Map();
    const open = new Map();
    const first = entries[0]?.tsMs ?? 0;
    for (const e of entries) {
        // A freeze or a break-glass names no lease: it is listed beside the holds, not as one.
        if ((0,entry_kinds/* namesNoLease */.Y)(e.kind))
            continue;
        const holds = byResource.get(e.resource) ?? [];
        byResource.set(e.resource, holds);
        if (e.kind === 'grant' || e.kind === 'renew') {
            // A renewal only matters when its grant came before the entries shown.
            if (open.has(e.leaseId))
                continue;
            const hold = {
                resource: e.resource,
                holder: e.actorDid,
                leaseId: e.leaseId,
                fence: e.fence,
                startMs: e.kind === 'grant' ? e.tsMs : first,
                endMs: null,
                end: 'open',
                ...(e.deploy ? { deploy: e.deploy } : {}),
                ...(e.kind === 'grant' && e.promotedVia ? { promotedVia: e.promotedVia } : {}),
            };
            holds.push(hold);
            open.set(e.leaseId, hold);
            continue;
        }
        const hold = open.get(e.leaseId);
        open.delete(e.leaseId);
        if (hold) {
            Object.assign(hold, { endMs: e.tsMs, end: e.kind, reason: e.reason, by: e.by });
        }
        else {
            holds.unshift({
                resource: e.resource,
                holder: e.actorDid,
                leaseId: e.leaseId,
                fence: e.fence,
                startMs: first,
                endMs: e.tsMs,
                end: e.kind,
                reason: e.reason,
                by: e.by,
            });
        }
    }
    return byResource;
}

// EXTERNAL MODULE: ./src/console/page/words.ts
var words = __webpack_require__(9144);
// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/cli/flags/plane.ts
var plane = __webpack_require__(4100);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
;// CONCATENATED MODULE: ./src/cli/history-command.ts










/**
 * `lease-gate history`: what the kernel's ledger says happened, in the console's words
 * (its history table's), filtered by resource and time: each hold with how it ended,
 * each freeze, unfreeze and break-glass. Oldest first, like a log.
 */
const DAY_MS = 86_400_000;
const SINCE_FORM = "a duration back from now such as '90m', '4h' or '7d', or an ISO 8601 time with a zone such as '2026-12-24T18:00:00Z'";
/** A bundle item: the console's one schema of an entry (every kind, withdrawals too). */
const itemSchema = schemas/* object */.Ikc({ entry: entrySchema });
/** `--since`: a duration back from now (days too), or a time with its zone. */
function parseSince(raw, nowMs) {
    const days = /^(\d+)d$/.exec(raw.trim());
    if (days)
        return nowMs - Number(days[1]) * DAY_MS;
    const ms = (0,duration/* parseDuration */.E9)(raw);
    if (ms !== undefined)
        return nowMs - ms;
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw))
        return undefined;
    const at = Date.parse(raw);
    return Number.isFinite(at) ? at : undefined;
}
/** The rows of `entries` (any order of pages, in ledger order) for `resource` since `sinceMs`. */
function historyOf(entries, nowMs, sinceMs) {
    const rows = [];
    for (const [resource, holds] of holdsFrom(entries)) {
        for (const hold of holds) {
            const end = hold.endMs ?? nowMs;
            // A hold that ended before the window is past; one still running or ending in it shows.
            if (end < sinceMs)
                continue;
            rows.push({
                atMs: hold.startMs,
                resource,
                kind: 'hold',
                agent: hold.holder,
                fence: hold.fence,
                durationMs: Math.max(0, end - hold.startMs),
                what: (0,words/* holdEnded */.Mb)(hold),
            });
        }
    }
    for (const e of entries) {
        if (e.tsMs < sinceMs)
            continue;
        if (e.kind === 'freeze' || e.kind === 'unfreeze')
            rows.push({ atMs: e.tsMs, resource: e.resource, kind: e.kind, what: (0,words/* freezeWords */.n4)(e) });
        else if (e.kind === 'break_glass' || e.kind === 'break_glass_withdrawn')
            rows.push({
                atMs: e.tsMs,
                resource: e.resource,
                kind: 'break_glass',
                agent: e.actorDid,
                what: (0,words/* breakGlassWords */.b5)(e),
            });
    }
    return rows.sort((a, b) => a.atMs - b.atMs);
}
/** One line of the text output; every plane text escaped for the terminal. */
function describeRow(row) {
    const parts = [(0,words/* utcStamp */.sl)(row.atMs), row.resource];
    if (row.kind === 'hold') {
        parts.push(row.agent ?? '', `fence ${row.fence}`, `for ${(0,words/* duration */.p0)(row.durationMs ?? 0)}`, row.what);
    }
    else if (row.kind === 'break_glass')
        parts.push(`${row.what} (let through ${row.agent})`);
    else
        parts.push(row.what);
    return (0,lease_escape/* untrusted */.bp)(parts.join('  '), 4_000);
}
async function history_command_history(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(plane/* HISTORY */.Vv.flags));
    const nowMs = Date.now();
    const sinceMs = values.since === undefined ? 0 : parseSince(values.since, nowMs);
    if (sinceMs === undefined)
        throw new options/* UsageError */.eb(`Invalid --since '${(0,lease_escape/* untrusted */.bp)(values.since ?? '', 60)}'. Expected ${SINCE_FORM}.`);
    // --resource filters; without it, every resource (the console's history).
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    const only = values.resource === undefined ? undefined : settings.resource;
    const key = settings.bearer ? await settings.bearer() : settings.key || undefined;
    const entries = [];
    await (0,remote/* eachLedgerPage */.QE)(settings.apiUrl, key, (page) => {
        for (const raw of page) {
            const parsed = itemSchema.safeParse(raw);
            if (!parsed.success)
                continue;
            const e = parsed.data.entry;
            // A renewal only matters to a hold whose grant is not in the ledger: every grant is.
            if (e.kind === 'renew' || (only !== undefined && e.resource !== only))
                continue;
            entries.push(e);
        }
    });
    const rows = historyOf(entries, nowMs, sinceMs);
    if (values.json)
        io.out(JSON.stringify({ nowMs, sinceMs, rows }));
    else if (rows.length === 0)
        io.out('Nothing in the ledger matches.');
    else
        for (const row of rows)
            io.out(describeRow(row));
    return options/* EXIT */.dc.done;
}


/***/ }),

/***/ 9144:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $b: () => (/* binding */ placeInLine),
/* harmony export */   Fz: () => (/* binding */ waitingFor),
/* harmony export */   Mb: () => (/* binding */ holdEnded),
/* harmony export */   b5: () => (/* binding */ breakGlassWords),
/* harmony export */   n4: () => (/* binding */ freezeWords),
/* harmony export */   p0: () => (/* binding */ duration),
/* harmony export */   sl: () => (/* binding */ utcStamp),
/* harmony export */   uU: () => (/* binding */ etaWords)
/* harmony export */ });
/* unused harmony exports ordinal, heldFor, ENDED */
/**
 * The console's words for a queue and a history, pure (no DOM): the page draws them and
 * `lease-gate status` / `lease-gate history` print them, so a terminal and the console
 * say the same thing of the same ledger entry or waiter.
 */
/** "1 h 4 min", "12.3 s": a duration for people. */
function duration(ms) {
    if (!Number.isFinite(ms) || ms < 0)
        return '0 s';
    if (ms < 60_000)
        return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
    const minutes = Math.floor(ms / 60_000);
    // A whole number of minutes or hours reads as such: a window "for 45 min", not "45 min 0 s".
    const rest = (n, unit) => (n ? ` ${n} ${unit}` : '');
    if (minutes < 60)
        return `${minutes} min${rest(Math.floor((ms % 60_000) / 1000), 's')}`;
    return `${Math.floor(minutes / 60)} h${rest(minutes % 60, 'min')}`;
}
/** "2026-12-03 14:05:09 UTC": the exact time. */
const utcStamp = (ms) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
/** 1 \u2192 "1st", 2 \u2192 "2nd", 3 \u2192 "3rd", 11 \u2192 "11th". */
function ordinal(n) {
    const tens = n % 100;
    const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
    return `${n}${suffix}`;
}
/** A waiter's place, 0 being next: "1st in line". */
const placeInLine = (position) => `${ordinal(position + 1)} in line`;
/** "waiting 3 min 2 s": how long a waiter has waited. */
const waitingFor = (ms) => `waiting ${duration(ms)}`;
/** "held for 3 min": how long the holder has held. */
const heldFor = (ms) => `held for ${duration(ms)}`;
/** The kernel's estimate of a waiter's wait: "about 6 min at recent hold times". */
function etaWords(etaMs) {
    return etaMs <= 0
        ? 'any moment now at recent hold times'
        : `about ${duration(etaMs)} at recent hold times`;
}
const ENDED = {
    release: 'released',
    lapse: 'lapsed (stopped renewing)',
    // Only the kernel's admin key may revoke; an entry without `by` (no name given) names no operator.
    revoke: 'revoked by an operator',
    open: 'still held',
};
/** How a hold ended: "released", "revoked by operator:ana: incident 42". */
function holdEnded(hold) {
    const how = hold.end === 'revoke' && hold.by ? `revoked by ${hold.by}` : ENDED[hold.end];
    return `${how}${hold.reason ? `: ${hold.reason}` : ''}`;
}
/** A freeze or an unfreeze: "frozen by operator:ana: release week", "unfrozen (window ended)". */
function freezeWords(e) {
    // An unfreeze an operator made names them; one that came at the freeze's end says so.
    const what = e.kind === 'freeze'
        ? `frozen by ${e.actorDid}`
        : e.reason === 'unfrozen by an operator'
            ? `unfrozen by ${e.actorDid}`
            : `unfrozen (${e.reason ?? ''})`;
    const reason = e.kind === 'freeze' && e.reason ? `: ${e.reason}` : '';
    return `${what}${reason}`;
}
/** A break-glass: who let a job through once, who approved it, why. */
function breakGlassWords(e) {
    if (e.kind === 'break_glass_withdrawn')
        return `break-glass withdrawn by ${e.by ?? 'an operator'}: ${e.reason ?? ''}`;
    const approved = e.approvedBy ? `, approved by ${e.approvedBy}` : '';
    // Words, not an emoji: a terminal or a page without an emoji font shows them too.
    return `BREAK-GLASS by ${e.by ?? 'an operator'}${approved}: ${e.reason ?? ''}`;
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


/***/ })

};

//# sourceMappingURL=821.index.js.map