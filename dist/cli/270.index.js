export const id = 270;
export const ids = [270,222];
export const modules = {

/***/ 4270:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  approveBreakGlass: () => (/* binding */ approveBreakGlass),
  breakGlass: () => (/* binding */ breakGlass)
});

// EXTERNAL MODULE: ./src/gate/duration.ts
var duration = __webpack_require__(9731);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/lease/oidc-token.ts
var oidc_token = __webpack_require__(8309);
// EXTERNAL MODULE: ./src/lease/errors.ts
var errors = __webpack_require__(2679);
// EXTERNAL MODULE: ./src/cli/freeze-commands.ts + 1 modules
var freeze_commands = __webpack_require__(2222);
// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/cli/flags/operator.ts
var operator = __webpack_require__(4876);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
// EXTERNAL MODULE: ./src/cli/session.ts
var cli_session = __webpack_require__(2594);
// EXTERNAL MODULE: ./src/gate/wait.ts
var wait = __webpack_require__(4146);
// EXTERNAL MODULE: ./src/plane/errors.ts
var plane_errors = __webpack_require__(3291);
// EXTERNAL MODULE: ./src/plane/run-pass.ts
var run_pass = __webpack_require__(4941);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
;// CONCATENATED MODULE: ./src/cli/break-glass-flags.ts






/** What the break-glass commands (open, approve, cancel) share: whom the pass is for (an agent or a run), the key, a refusal. */
function agentOf(raw, command) {
    if (raw === undefined || !(0,schema/* isDid */.Cn)(raw)) {
        throw new options/* UsageError */.eb(raw === undefined
            ? `${command} needs --agent DID: the job to let through (the console's queue lists each waiter's DID).`
            : `Invalid --agent '${(0,lease_escape/* untrusted */.bp)(raw, 80)}'. Expected ${schema/* DID_FORM */.PN}.`);
    }
    return raw;
}
/**
 * The pass's DID: --agent's, or the run's for --run (every DID the action derives for that
 * run, plane/run-pass.ts); exactly one of them. `optional`: neither is allowed (a cancel).
 */
function passDidOf(values, command, optional = false) {
    if (values.agent !== undefined && values.run !== undefined)
        throw new options/* UsageError */.eb(`${command} takes --agent DID or --run ${run_pass/* RUN_FORM */.n7}, not both.`);
    if (values.run === undefined) {
        if (values.agent === undefined && optional)
            return undefined;
        if (values.agent === undefined)
            throw new options/* UsageError */.eb(`${command} needs --agent DID or --run ${run_pass/* RUN_FORM */.n7}: the job to let through (the console's queue lists each waiter's DID; a refused job's log names its run).`);
        return agentOf(values.agent, command);
    }
    const did = (0,run_pass/* runPassDid */.Ss)(values.run);
    if (did === undefined)
        throw new options/* UsageError */.eb(`Invalid --run '${(0,lease_escape/* untrusted */.bp)(values.run, 80)}'. Expected ${run_pass/* RUN_FORM */.n7}.`);
    return did;
}
function keyOf(env, name, command) {
    const key = env[name] ?? '';
    if (!key)
        throw new options/* UsageError */.eb(`${command} needs the key in ${name}.`);
    return key;
}
function keyRefused(error, name) {
    if (!(error instanceof plane_errors/* KeyRefusedError */.gy))
        return error;
    return new wait/* LeaseRefusedError */.Nf({
        reason: 'key refused',
        // The kernel's reason (escaped by the client) tells a wrong key from a sub it will not take.
        message: `The plane refused the key (${error.status}${error.said ? `: ${error.said}` : ''}): check ${name}.`,
    });
}

;// CONCATENATED MODULE: ./src/cli/break-glass-cancel.ts





/**
 * `lease-gate break-glass --cancel`: the operator withdraws the unused pass on the resource
 * (only the one for --agent, when given), so it can no longer be used. A usable pass is
 * withdrawn with a signed ledger entry, so a kernel's restart does not bring it back.
 */
async function cancelBreakGlass(values, io, env) {
    if (values.reason !== undefined || values.for !== undefined)
        throw new options/* UsageError */.eb('break-glass --cancel takes no --reason or --for: it withdraws the pass there is.');
    const actorDid = passDidOf(values, 'break-glass --cancel', true);
    const by = (0,freeze_commands.operatorName)(values.by);
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    const adminKey = keyOf(env, 'LEASE_GATE_ADMIN_KEY', 'break-glass --cancel');
    const session = (0,cli_session/* cliSession */.ri)(settings, io, env);
    try {
        const answer = await session.client.withdrawBreakGlass({
            resource: settings.resource,
            ...(actorDid !== undefined ? { actorDid } : {}),
            ...(by ? { by } : {}),
        }, adminKey);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, ...answer }));
        else
            io.out(`withdrawn: the break-glass on ${settings.resource} for ${(0,lease_escape/* untrusted */.bp)(answer.actorDid, 200)} can no longer be used`);
        return options/* EXIT */.dc.done;
    }
    catch (error) {
        throw keyRefused(error, 'LEASE_GATE_ADMIN_KEY');
    }
    finally {
        await session.close();
    }
}

;// CONCATENATED MODULE: ./src/cli/break-glass-commands.ts












const MAX_FOR_MS = 60 * 60_000;
const FOR_FORM = "a duration such as '10m' or '1h' (at most 1h)";
const said = (a) => `${a.pending ? 'waiting for a second operator to approve' : 'open'}: ${whom(a.actorDid)} may be granted it once, frozen or not, until ${new Date(a.until).toISOString()}`;
/** A run's pass lets one job of that run through, whichever attempt asks. */
const whom = (did) => (0,run_pass/* isRunPass */.lX)(did) ? `one job of the run ${(0,lease_escape/* untrusted */.bp)(did, 200)} (any attempt)` : (0,lease_escape/* untrusted */.bp)(did, 200);
/** `lease-gate break-glass`: one named job may be granted the resource once, frozen or not. */
async function breakGlass(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(operator/* BREAK_GLASS */.Rb.flags));
    if (values.cancel)
        return cancelBreakGlass(values, io, env);
    const actorDid = passDidOf(values, 'break-glass');
    const reason = values.reason?.trim() ?? '';
    if (!reason || reason.length > 1_000) {
        throw new options/* UsageError */.eb('break-glass needs --reason TEXT (1 to 1000 characters): it is recorded in the ledger.');
    }
    const request = { resource: '', actorDid, reason };
    const by = (0,freeze_commands.operatorName)(values.by);
    if (by)
        request.by = by;
    if (values.for !== undefined) {
        const forMs = (0,duration/* parseDuration */.E9)(values.for);
        if (forMs === undefined || forMs <= 0 || forMs > MAX_FOR_MS)
            throw new options/* UsageError */.eb(`Invalid --for '${(0,lease_escape/* untrusted */.bp)(values.for, 40)}'. Expected ${FOR_FORM}.`);
        request.forMs = forMs;
    }
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    request.resource = settings.resource;
    const adminKey = keyOf(env, 'LEASE_GATE_ADMIN_KEY', 'break-glass');
    const session = (0,cli_session/* cliSession */.ri)(settings, io, env);
    try {
        const answer = await session.client.breakGlass(request, adminKey);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, ...answer }));
        else
            io.out(`break-glass on ${settings.resource} ${said(answer)}`);
        return options/* EXIT */.dc.done;
    }
    catch (error) {
        throw keyRefused(error, 'LEASE_GATE_ADMIN_KEY');
    }
    finally {
        await session.close();
    }
}
/** `lease-gate approve-break-glass`: the second operator lets a pending break-glass be used. */
async function approveBreakGlass(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(operator/* APPROVE_BREAK_GLASS */.Vq.flags));
    const actorDid = passDidOf(values, 'approve-break-glass');
    const tokenFile = values['oidc-token-file'];
    // An empty path would fall back to LEASE_GATE_OIDC_TOKEN: a token the caller did not name.
    if (tokenFile === '')
        throw new options/* UsageError */.eb('Invalid --oidc-token-file: expected the path of a file holding a token.');
    // An OIDC approver is named by its token: a --by beside it would be a second, unchecked name.
    if (tokenFile !== undefined && values.by !== undefined)
        throw new options/* UsageError */.eb('approve-break-glass takes --by NAME (with LEASE_GATE_APPROVER_KEY) or --oidc-token-file FILE, not both: the token names its approver.');
    const by = tokenFile === undefined ? (0,freeze_commands.operatorName)(values.by) : undefined;
    if (tokenFile === undefined && !by)
        throw new options/* UsageError */.eb('approve-break-glass needs --by NAME (with LEASE_GATE_APPROVER_KEY), or --oidc-token-file FILE: the ledger names the approver.');
    let credential;
    try {
        credential =
            tokenFile === undefined
                ? keyOf(env, 'LEASE_GATE_APPROVER_KEY', 'approve-break-glass')
                : await (0,oidc_token/* givenTokenSource */._T)(tokenFile, env)();
    }
    catch (error) {
        if (error instanceof errors/* SettingsError */.G)
            throw new options/* UsageError */.eb(error.message, { cause: error });
        throw error;
    }
    // The token approves; the session itself asks with nothing of it.
    const settings = (0,options/* settingsFromFlags */.x$)({ ...values, 'oidc-token-file': undefined }, env);
    const session = (0,cli_session/* cliSession */.ri)(settings, io, env);
    try {
        const answer = await session.client.approveBreakGlass({ resource: settings.resource, actorDid, ...(by ? { by } : {}) }, credential);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, ...answer }));
        else
            io.out(`approved: break-glass on ${settings.resource} ${said(answer)}`);
        return options/* EXIT */.dc.done;
    }
    catch (error) {
        throw keyRefused(error, tokenFile === undefined
            ? 'LEASE_GATE_APPROVER_KEY'
            : `the token in --oidc-token-file ${tokenFile}`);
    }
    finally {
        await session.close();
    }
}


/***/ }),

/***/ 2222:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  freeze: () => (/* binding */ freeze),
  operatorName: () => (/* binding */ operatorName),
  parseFreezeUntil: () => (/* binding */ parseFreezeUntil),
  unfreeze: () => (/* binding */ unfreeze)
});

// EXTERNAL MODULE: ./src/gate/wait.ts
var wait = __webpack_require__(4146);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/plane/errors.ts
var errors = __webpack_require__(3291);
;// CONCATENATED MODULE: ./src/plane/freeze-for.ts
/**
 * How long a freeze or a break-glass lasts, as the CLI's `--for` and the console's field take
 * it: `90s`, `90m`, `4h`, `3d` (a freeze may outlast any job, so days too). Pure, so the
 * browser's console and the CLI read one form the same way.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DAY_MS = UNIT_MS.d;
const MAX_FREEZE_MS = 366 * DAY_MS;
const FREEZE_FOR_FORM = "a duration such as '90m', '4h' or '3d' (at most 366d)";
/** Milliseconds for `90m`, `4h`, `3d`, `500ms`, or plain seconds; undefined when not one of those. */
function parseForDuration(raw) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
    if (!match)
        return undefined;
    const ms = Math.round(Number(match[1]) * UNIT_MS[(match[2] ?? 's')]);
    return Number.isFinite(ms) ? ms : undefined;
}
/** `--for` of a freeze: more than nothing, at most 366 days. */
function parseFreezeFor(raw) {
    const ms = parseForDuration(raw);
    return ms !== undefined && ms > 0 && ms <= MAX_FREEZE_MS ? ms : undefined;
}

// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/cli/flags/operator.ts
var operator = __webpack_require__(4876);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
// EXTERNAL MODULE: ./src/cli/session.ts
var cli_session = __webpack_require__(2594);
;// CONCATENATED MODULE: ./src/cli/freeze-commands.ts









const UNTIL_FORM = "an ISO 8601 time with a zone, such as '2026-12-24T18:00:00Z' or '2026-12-24T19:00+01:00'";
/** `--until`: a time with its zone (a bare local time would depend on the host's). */
function parseFreezeUntil(raw, nowMs) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw))
        return undefined;
    const ms = Date.parse(raw);
    return Number.isFinite(ms) && ms > nowMs && ms <= nowMs + MAX_FREEZE_MS ? ms : undefined;
}
/** `--by NAME`: who the ledger names for the freeze, unfreeze or revoke (else operator:admin-key). */
function operatorName(raw) {
    if (raw === undefined)
        return undefined;
    if (!schema/* OPERATOR_NAME_PATTERN */.g9.test(raw)) {
        throw new options/* UsageError */.eb(`Invalid --by '${(0,lease_escape/* untrusted */.bp)(raw, 70)}'. Expected ${schema/* OPERATOR_NAME_FORM */.qS}.`);
    }
    return raw;
}
function adminKeyOf(env, what) {
    const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
    if (!adminKey)
        throw new options/* UsageError */.eb(`${what} needs the admin key in LEASE_GATE_ADMIN_KEY.`);
    return adminKey;
}
function keyRefused(error) {
    if (!(error instanceof errors/* KeyRefusedError */.gy))
        return error;
    return new wait/* LeaseRefusedError */.Nf({
        reason: 'key refused',
        message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; freezing needs the kernel's admin key.`,
    });
}
/** `lease-gate freeze`: no new holder until the end named (or an unfreeze); the holder is kept. */
async function freeze(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(operator/* FREEZE */.kY.flags));
    const reason = values.reason?.trim() ?? '';
    if (!reason || reason.length > 1_000) {
        throw new options/* UsageError */.eb('freeze needs --reason TEXT (1 to 1000 characters), said to every waiter.');
    }
    if (values.until !== undefined && values.for !== undefined) {
        throw new options/* UsageError */.eb('Give --until or --for, not both.');
    }
    const request = { resource: '', reason };
    const by = operatorName(values.by);
    if (by)
        request.by = by;
    if (values.for !== undefined) {
        const forMs = parseFreezeFor(values.for);
        if (forMs === undefined)
            throw new options/* UsageError */.eb(`Invalid --for '${(0,lease_escape/* untrusted */.bp)(values.for, 40)}'. Expected ${FREEZE_FOR_FORM}.`);
        request.forMs = forMs;
    }
    if (values.until !== undefined) {
        const untilMs = parseFreezeUntil(values.until, Date.now());
        if (untilMs === undefined) {
            throw new options/* UsageError */.eb(`Invalid --until '${(0,lease_escape/* untrusted */.bp)(values.until, 60)}'. Expected ${UNTIL_FORM}, in the future and within a year.`);
        }
        request.untilMs = untilMs;
    }
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    request.resource = settings.resource;
    const adminKey = adminKeyOf(env, 'freeze');
    const session = (0,cli_session/* cliSession */.ri)(settings, io, env);
    try {
        const answer = await session.client.freeze(request, adminKey);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, frozen: true, ...answer }));
        else
            io.out(`froze ${settings.resource} ${answer.until === null ? 'until unfrozen' : `until ${new Date(answer.until).toISOString()}`}; its holder (if any) keeps it, nobody else is granted it`);
        return options/* EXIT */.dc.done;
    }
    catch (error) {
        throw keyRefused(error);
    }
    finally {
        await session.close();
    }
}
/** `lease-gate unfreeze`: grants resume, waiters first in the order they came. */
async function unfreeze(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(operator/* UNFREEZE */.fD.flags));
    const by = operatorName(values.by);
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    const adminKey = adminKeyOf(env, 'unfreeze');
    const session = (0,cli_session/* cliSession */.ri)(settings, io, env);
    try {
        const answer = await session.client.unfreeze(settings.resource, adminKey, {}, by);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, frozen: false, ...answer }));
        else
            io.out(answer.changed ? `unfroze ${settings.resource}` : `${settings.resource} was not frozen`);
        return answer.changed ? options/* EXIT */.dc.done : options/* EXIT */.dc.refused;
    }
    catch (error) {
        throw keyRefused(error);
    }
    finally {
        await session.close();
    }
}


/***/ }),

/***/ 2594:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   fQ: () => (/* binding */ withSession),
/* harmony export */   ri: () => (/* binding */ cliSession),
/* harmony export */   tH: () => (/* binding */ waitForLease)
/* harmony export */ });
/* unused harmony exports STILL_FAILING_EVERY_MS, retryLines, ASK_ONCE_RETRY_MS, retryWindowMs */
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1223);
/* harmony import */ var _lease_session_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6267);
/* harmony import */ var _lease_texts_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1782);
/* harmony import */ var _plane_url_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8252);





/** After the first line, a plane still failing is said at most this often. */
const STILL_FAILING_EVERY_MS = 60_000;
/**
 * The CLI's lease session. An unreachable plane is said at once, once: which URL,
 * where it came from and whether a kernel runs there; then retried quietly, with
 * at most a line a minute, never silent for long.
 */
function cliSession(settings, io, env) {
    return (0,_lease_session_js__WEBPACK_IMPORTED_MODULE_2__/* .openSession */ .f)({
        ...settings,
        env,
        onRetry: retryLines(settings.apiUrl, settings.apiUrlFrom, io.err, Date.now),
    });
}
/** A command's one session, closed when `use` settles, whatever it does. */
async function withSession(settings, io, env, use) {
    const session = cliSession(settings, io, env);
    try {
        return await use(session);
    }
    finally {
        await session.close();
    }
}
/**
 * Waits for the lease as the action does (the plane's back-off, a line on stderr as the
 * holder changes, unless `quiet`), until granted, timed out, superseded or one of
 * `signals` stops it: acquire's wait and run's are this one.
 */
async function waitForLease(session, settings, io, options) {
    const cancel = new AbortController();
    let stoppedBy;
    const stop = (signal) => {
        stoppedBy ??= signal;
        cancel.abort();
    };
    for (const signal of options.signals)
        process.once(signal, stop);
    const notices = (0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .waitNotices */ .lY)(settings.resource);
    try {
        const result = await session.acquire({
            timeoutMs: settings.waitTimeoutMs,
            signal: cancel.signal,
            retryWindowMs: retryWindowMs(settings.waitTimeoutMs),
            onHeld: (event) => {
                const line = notices(event);
                if (line && !options.quiet)
                    io.err(`lease-gate: ${line}`);
            },
        });
        return { result, stoppedBy };
    }
    finally {
        for (const signal of options.signals)
            process.off(signal, stop);
    }
}
/** The lines of a retried plane: the first failure in full, then one a minute. */
function retryLines(apiUrl, from, say, now, everyMs = STILL_FAILING_EVERY_MS) {
    let lastLineAt;
    return (event) => {
        const at = now();
        const left = (0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(event.retryForMs);
        if (lastLineAt === undefined) {
            lastLineAt = at;
            say(`lease-gate: ${describeFirstFailure(apiUrl, from, event)} Retrying quietly for up to ${left}.`);
            return;
        }
        if (at - lastLineAt < everyMs)
            return;
        lastLineAt = at;
        const what = event.status === undefined ? 'cannot reach' : 'still no answer from';
        say(`lease-gate: ${what} the plane at ${apiUrl} after ${event.attempt} attempts; retrying for ${left} more.`);
    };
}
function describeFirstFailure(apiUrl, from, event) {
    // The call's own name ([GET] "url": \u2026) is dropped: the URL is said once, with its source.
    const cause = (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_1__/* .untrusted */ .bp)(event.error.replace(/^\[[A-Z]+\] "[^"]*": /, ''), 200);
    const source = from ? ` (${from})` : '';
    // The hosted plane asked only because nothing named another: say how to name one.
    const hosted = from === _plane_url_js__WEBPACK_IMPORTED_MODULE_4__/* .HOSTED_SOURCE */ .G7 ? ` ${_plane_url_js__WEBPACK_IMPORTED_MODULE_4__/* .HOSTED_HINT */ .AY}` : '';
    return event.status === undefined
        ? `cannot reach the plane at ${apiUrl}${source}: ${cause}.${hosted || " Is the kernel running there ('lease-gate kernel'), and is that the right URL?"}`
        : `the plane at ${apiUrl}${source} answered ${cause}.${hosted}`;
}
/** With --wait-timeout 0 the CLI asks once and retries an unreachable plane this long at most. */
const ASK_ONCE_RETRY_MS = 10_000;
/** How long a waiting command retries an unreachable plane: within --wait-timeout. */
function retryWindowMs(waitTimeoutMs) {
    return waitTimeoutMs === 0 ? ASK_ONCE_RETRY_MS : waitTimeoutMs;
}


/***/ }),

/***/ 1782:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $4: () => (/* binding */ describeLoss),
/* harmony export */   $x: () => (/* binding */ describeLapse),
/* harmony export */   ay: () => (/* binding */ formatUtc),
/* harmony export */   dX: () => (/* binding */ HEALTH_HOLD_WORDS),
/* harmony export */   lY: () => (/* binding */ waitNotices),
/* harmony export */   rX: () => (/* binding */ ASKED_ONCE),
/* harmony export */   un: () => (/* binding */ describeLease),
/* harmony export */   wS: () => (/* binding */ describeWaitState)
/* harmony export */ });
/* unused harmony exports formatEpoch, describeHeldBy, describePlace, healthHold, WAIT_PROGRESS_EVERY_MS */
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4146);
/* harmony import */ var _did_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(623);
/* harmony import */ var _escape_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1223);




/** The texts both faces print: leases, holders, losses. Plane text is escaped here. */
function formatEpoch(ms) {
    return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
        ? `${new Date(ms).toISOString()} (${ms})`
        : 'unknown';
}
/** "2026-12-07 04:00:00 UTC": the one time format of an output that names more than one time. */
function formatUtc(ms) {
    return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
        ? `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
        : 'unknown';
}
/** `at`: how the expiry is written, so an output keeps one time format (status: formatUtc). */
function describeLease(lease, at = formatEpoch) {
    const fence = lease.fence === undefined ? '' : `, fence ${lease.fence}`;
    return `lease ${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(lease.id, 256)}${fence}, expires ${at(lease.expiresAtMs)}`;
}
/** When a lease lapses unless renewed, from the plane's own answer (its expiry), never a fixed TTL. */
function describeLapse(lease, nowMs) {
    const at = formatEpoch(lease.expiresAtMs).split(' ')[0];
    const left = lease.expiresAtMs - nowMs;
    return left > 0 ? `lapses at ${at} (in about ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(left)})` : `lapses at ${at}`;
}
/** "held by X" \u2014 or, for a reservation, "reserved for X (next in line)", never "held by". */
function describeHeldBy(holder, reserved) {
    return reserved
        ? `reserved for ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(holder)} (next in line)`
        : `held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(holder)}`;
}
/**
 * "next in line", "3rd in line; about 6m at recent hold times", from a refusal's place and
 * estimate; a holder past the typical hold is "overdue by 2m" (never "about 0ms").
 */
function describePlace(position, etaMs, overdueMs) {
    const place = position === undefined
        ? ''
        : position === 0
            ? 'next in line'
            : `${ordinal(position + 1)} in line`;
    const overdue = overdueMs !== undefined && overdueMs > 0
        ? `the holder is overdue by ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(overdueMs)} at recent hold times`
        : '';
    const eta = etaMs === undefined || (overdue && etaMs === 0)
        ? ''
        : etaMs === 0
            ? 'any moment now at recent hold times'
            : `about ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(etaMs)} at recent hold times`;
    return [place, overdue, eta].filter(Boolean).join('; ');
}
function ordinal(n) {
    const tens = n % 100;
    const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
    return `${n}${suffix}`;
}
/**
 * What a waiter is waiting for: "held by X (2nd in line; about 6 min at recent hold times)",
 * "frozen until \u2026 by an operator: <reason>" or "held while its health check fails: <url>
 * answered 503". Plane text is escaped here.
 */
function describeWaitState(e) {
    if (e.frozen) {
        const message = (0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(e.frozen.message);
        // The kernel's message starts "frozen until \u2026", or "held while its health check fails: \u2026"
        // (the health gate's hold, no operator's); another plane's may not.
        return message.startsWith('frozen') || healthHold(message)
            ? message
            : `frozen by an operator: ${message}`;
    }
    const place = describePlace(e.position, e.etaMs, e.overdueMs);
    return `${describeHeldBy(e.holder, e.reserved)}${place ? ` (${place})` : ''}`;
}
/** A wait of --wait-timeout 0 did not time out: it asked once, as told. */
const ASKED_ONCE = 'asked once (--wait-timeout 0)';
/** The kernel's words for the health gate's hold (kernel/rules/freeze.ts, frozenReply). */
const HEALTH_HOLD_WORDS = 'held while its health check fails';
const healthHold = (message) => message.startsWith(HEALTH_HOLD_WORDS);
function describeLoss(resource, loss) {
    // The plane's own time of the end when it said (a watch), else when we learned of it.
    const at = loss.endedAtMs === undefined
        ? formatEpoch(loss.atMs).split(' ')[0]
        : `${formatEpoch(loss.endedAtMs).split(' ')[0]} (plane's clock)`;
    const message = loss.message ? `: ${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.message)}` : '';
    const now = loss.holder ? ` It is now held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(loss.holder)}.` : '';
    switch (loss.reason) {
        case 'revoked':
            return `Lost ${resource} at ${at}: ${loss.by ? `the lease was revoked ${(0,_gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .revokedBy */ .m4)((0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.by, 200))}` : 'an operator revoked the lease'}${(0,_gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .operatorReason */ .FU)(loss.message && (0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.message))}.${now}`;
        case 'lapsed':
            return `Lost ${resource} at ${at}: the lease lapsed (not renewed in time).${now}`;
        case 'released':
            return `Lost ${resource} at ${at}: the lease was released by someone acting as this agent.${now}`;
        case 'unknown':
            return `Lost ${resource} at ${at}: the plane says the lease ended, not how.${now}`;
        case 'lease_held':
            return `Lost ${resource} at ${at}: it is now held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(loss.holder ?? 'another agent')}.`;
        case 'replaced':
            return `Lost ${resource} at ${at}: the lease had ended (lapsed, revoked or released) and the plane granted a new one (${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.newLeaseId ?? '?')}), which was ${loss.gaveBack ? 'given back at once' : 'not confirmed given back; it lapses on its own'}.`;
        case 'broken_plane':
            return `Lost ${resource} at ${at}: a renewal was not ours to believe${message}.`;
        default:
            return `Lost ${resource} at ${at}: the plane refused the renewal (${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.reason, 100)})${message}.${now}`;
    }
}
/** How often a wait whose holder and place stay the same says it is still waiting. */
const WAIT_PROGRESS_EVERY_MS = 60_000;
/**
 * The wait's lines, for both faces: one at once on the first answer, one
 * whenever the holder or our place changes, and otherwise at most one a
 * minute saying how long it has waited. Undefined: say nothing now.
 */
function waitNotices(resource, everyMs = WAIT_PROGRESS_EVERY_MS) {
    let lastLineAt = -Infinity;
    return (event) => {
        const changed = event.first || event.holderChanged || event.positionChanged;
        if (!changed && event.elapsedMs - lastLineAt < everyMs)
            return undefined;
        lastLineAt = event.elapsedMs;
        const place = event.frozen ? '' : describePlace(event.position, event.etaMs, event.overdueMs);
        const waited = event.first ? '' : `; waited ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(event.elapsedMs)}`;
        const still = changed ? '' : 'still ';
        return `${resource} is ${still}${describeWaitState({ ...event, position: undefined, etaMs: undefined })}${place ? `; ${place}` : ''}${waited}`;
    };
}


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


/***/ })

};

//# sourceMappingURL=270.index.js.map