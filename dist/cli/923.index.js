export const id = 923;
export const ids = [923,14];
export const modules = {

/***/ 8923:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   approveBreakGlass: () => (/* binding */ approveBreakGlass),
/* harmony export */   breakGlass: () => (/* binding */ breakGlass)
/* harmony export */ });
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4146);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_9__ = __webpack_require__(1223);
/* harmony import */ var _lease_oidc_token_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(8309);
/* harmony import */ var _lease_errors_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(2679);
/* harmony import */ var _plane_errors_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(3291);
/* harmony import */ var _plane_schema_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(3659);
/* harmony import */ var _freeze_commands_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(8014);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_7__ = __webpack_require__(776);
/* harmony import */ var _session_js__WEBPACK_IMPORTED_MODULE_8__ = __webpack_require__(2594);










const MAX_FOR_MS = 60 * 60_000;
const FOR_FORM = "a duration such as '10m' or '1h' (at most 1h)";
function agentOf(raw, command) {
    if (raw === undefined || !(0,_plane_schema_js__WEBPACK_IMPORTED_MODULE_5__/* .isDid */ .Cn)(raw)) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb(raw === undefined
            ? `${command} needs --agent DID: the job to let through (the console's queue lists each waiter's DID).`
            : `Invalid --agent '${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(raw, 80)}'. Expected ${_plane_schema_js__WEBPACK_IMPORTED_MODULE_5__/* .DID_FORM */ .PN}.`);
    }
    return raw;
}
function keyOf(env, name, command) {
    const key = env[name] ?? '';
    if (!key)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb(`${command} needs the key in ${name}.`);
    return key;
}
function keyRefused(error, name) {
    if (!(error instanceof _plane_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .KeyRefusedError */ .gy))
        return error;
    return new _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .LeaseRefusedError */ .Nf({
        reason: 'key refused',
        // The kernel's reason (escaped by the client) tells a wrong key from a sub it will not take.
        message: `The plane refused the key (${error.status}${error.said ? `: ${error.said}` : ''}): check ${name}.`,
    });
}
const said = (a) => `${a.pending ? 'waiting for a second operator to approve' : 'open'}: ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(a.actorDid, 200)} may be granted it once, frozen or not, until ${new Date(a.until).toISOString()}`;
/** `lease-gate break-glass`: one named job may be granted the resource once, frozen or not. */
async function breakGlass(args, io, env) {
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .parse */ .qg)(args, {
        ..._options_js__WEBPACK_IMPORTED_MODULE_7__/* .PLANE_OPTIONS */ .UR,
        agent: { type: 'string' },
        reason: { type: 'string' },
        for: { type: 'string' },
        by: { type: 'string' },
    });
    const actorDid = agentOf(values.agent, 'break-glass');
    const reason = values.reason?.trim() ?? '';
    if (!reason || reason.length > 1_000) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb('break-glass needs --reason TEXT (1 to 1000 characters): it is recorded in the ledger.');
    }
    const request = { resource: '', actorDid, reason };
    const by = (0,_freeze_commands_js__WEBPACK_IMPORTED_MODULE_6__.operatorName)(values.by);
    if (by)
        request.by = by;
    if (values.for !== undefined) {
        const forMs = (0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .parseDuration */ .E9)(values.for);
        if (forMs === undefined || forMs <= 0 || forMs > MAX_FOR_MS)
            throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb(`Invalid --for '${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(values.for, 40)}'. Expected ${FOR_FORM}.`);
        request.forMs = forMs;
    }
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .settingsFromFlags */ .x$)(values, env);
    request.resource = settings.resource;
    const adminKey = keyOf(env, 'LEASE_GATE_ADMIN_KEY', 'break-glass');
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_8__/* .cliSession */ .ri)(settings, io, env);
    try {
        const answer = await session.client.breakGlass(request, adminKey);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, ...answer }));
        else
            io.out(`break-glass on ${settings.resource} ${said(answer)}`);
        return _options_js__WEBPACK_IMPORTED_MODULE_7__/* .EXIT */ .dc.done;
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
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .parse */ .qg)(args, {
        ..._options_js__WEBPACK_IMPORTED_MODULE_7__/* .PLANE_OPTIONS */ .UR,
        agent: { type: 'string' },
        by: { type: 'string' },
    });
    const actorDid = agentOf(values.agent, 'approve-break-glass');
    const tokenFile = values['oidc-token-file'];
    // An empty path would fall back to LEASE_GATE_OIDC_TOKEN: a token the caller did not name.
    if (tokenFile === '')
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb('Invalid --oidc-token-file: expected the path of a file holding a token.');
    // An OIDC approver is named by its token: a --by beside it would be a second, unchecked name.
    if (tokenFile !== undefined && values.by !== undefined)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb('approve-break-glass takes --by NAME (with LEASE_GATE_APPROVER_KEY) or --oidc-token-file FILE, not both: the token names its approver.');
    const by = tokenFile === undefined ? (0,_freeze_commands_js__WEBPACK_IMPORTED_MODULE_6__.operatorName)(values.by) : undefined;
    if (tokenFile === undefined && !by)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb('approve-break-glass needs --by NAME (with LEASE_GATE_APPROVER_KEY), or --oidc-token-file FILE: the ledger names the approver.');
    let credential;
    try {
        credential =
            tokenFile === undefined
                ? keyOf(env, 'LEASE_GATE_APPROVER_KEY', 'approve-break-glass')
                : await (0,_lease_oidc_token_js__WEBPACK_IMPORTED_MODULE_2__/* .givenTokenSource */ ._T)(tokenFile, env)();
    }
    catch (error) {
        if (error instanceof _lease_errors_js__WEBPACK_IMPORTED_MODULE_3__/* .SettingsError */ .GN)
            throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb(error.message);
        throw error;
    }
    // The token approves; the session itself asks with nothing of it.
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .settingsFromFlags */ .x$)({ ...values, 'oidc-token-file': undefined }, env);
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_8__/* .cliSession */ .ri)(settings, io, env);
    try {
        const answer = await session.client.approveBreakGlass({ resource: settings.resource, actorDid, ...(by ? { by } : {}) }, credential);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, ...answer }));
        else
            io.out(`approved: break-glass on ${settings.resource} ${said(answer)}`);
        return _options_js__WEBPACK_IMPORTED_MODULE_7__/* .EXIT */ .dc.done;
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

/***/ 8014:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   freeze: () => (/* binding */ freeze),
/* harmony export */   operatorName: () => (/* binding */ operatorName),
/* harmony export */   parseFreezeFor: () => (/* binding */ parseFreezeFor),
/* harmony export */   parseFreezeUntil: () => (/* binding */ parseFreezeUntil),
/* harmony export */   unfreeze: () => (/* binding */ unfreeze)
/* harmony export */ });
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4146);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(1223);
/* harmony import */ var _plane_errors_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3291);
/* harmony import */ var _plane_schema_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3659);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(776);
/* harmony import */ var _session_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(2594);







const DAY_MS = 86_400_000;
const MAX_FREEZE_MS = 366 * DAY_MS;
const FOR_FORM = "a duration such as '90m', '4h' or '3d' (at most 366d)";
const UNTIL_FORM = "an ISO 8601 time with a zone, such as '2026-12-24T18:00:00Z' or '2026-12-24T19:00+01:00'";
/** `--for`: the gate's durations, and days (a freeze may outlast any job). */
function parseFreezeFor(raw) {
    const days = /^(\d+)d$/.exec(raw.trim());
    const ms = days ? Number(days[1]) * DAY_MS : (0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .parseDuration */ .E9)(raw);
    return ms !== undefined && ms > 0 && ms <= MAX_FREEZE_MS ? ms : undefined;
}
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
    if (!_plane_schema_js__WEBPACK_IMPORTED_MODULE_3__/* .OPERATOR_NAME_PATTERN */ .g9.test(raw)) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_4__/* .UsageError */ .eb(`Invalid --by '${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_6__/* .untrusted */ .bp)(raw, 70)}'. Expected ${_plane_schema_js__WEBPACK_IMPORTED_MODULE_3__/* .OPERATOR_NAME_FORM */ .qS}.`);
    }
    return raw;
}
function adminKeyOf(env, what) {
    const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
    if (!adminKey)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_4__/* .UsageError */ .eb(`${what} needs the admin key in LEASE_GATE_ADMIN_KEY.`);
    return adminKey;
}
function keyRefused(error) {
    if (!(error instanceof _plane_errors_js__WEBPACK_IMPORTED_MODULE_2__/* .KeyRefusedError */ .gy))
        return error;
    return new _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .LeaseRefusedError */ .Nf({
        reason: 'key refused',
        message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; freezing needs the kernel's admin key.`,
    });
}
/** `lease-gate freeze`: no new holder until the end named (or an unfreeze); the holder is kept. */
async function freeze(args, io, env) {
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_4__/* .parse */ .qg)(args, {
        ..._options_js__WEBPACK_IMPORTED_MODULE_4__/* .PLANE_OPTIONS */ .UR,
        reason: { type: 'string' },
        until: { type: 'string' },
        for: { type: 'string' },
        by: { type: 'string' },
    });
    const reason = values.reason?.trim() ?? '';
    if (!reason || reason.length > 1_000) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_4__/* .UsageError */ .eb('freeze needs --reason TEXT (1 to 1000 characters), said to every waiter.');
    }
    if (values.until !== undefined && values.for !== undefined) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_4__/* .UsageError */ .eb('Give --until or --for, not both.');
    }
    const request = { resource: '', reason };
    const by = operatorName(values.by);
    if (by)
        request.by = by;
    if (values.for !== undefined) {
        const forMs = parseFreezeFor(values.for);
        if (forMs === undefined)
            throw new _options_js__WEBPACK_IMPORTED_MODULE_4__/* .UsageError */ .eb(`Invalid --for '${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_6__/* .untrusted */ .bp)(values.for, 40)}'. Expected ${FOR_FORM}.`);
        request.forMs = forMs;
    }
    if (values.until !== undefined) {
        const untilMs = parseFreezeUntil(values.until, Date.now());
        if (untilMs === undefined) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_4__/* .UsageError */ .eb(`Invalid --until '${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_6__/* .untrusted */ .bp)(values.until, 60)}'. Expected ${UNTIL_FORM}, in the future and within a year.`);
        }
        request.untilMs = untilMs;
    }
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_4__/* .settingsFromFlags */ .x$)(values, env);
    request.resource = settings.resource;
    const adminKey = adminKeyOf(env, 'freeze');
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_5__/* .cliSession */ .ri)(settings, io, env);
    try {
        const answer = await session.client.freeze(request, adminKey);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, frozen: true, ...answer }));
        else
            io.out(`froze ${settings.resource} ${answer.until === null ? 'until unfrozen' : `until ${new Date(answer.until).toISOString()}`}; its holder (if any) keeps it, nobody else is granted it`);
        return _options_js__WEBPACK_IMPORTED_MODULE_4__/* .EXIT */ .dc.done;
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
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_4__/* .parse */ .qg)(args, { ..._options_js__WEBPACK_IMPORTED_MODULE_4__/* .PLANE_OPTIONS */ .UR, by: { type: 'string' } });
    const by = operatorName(values.by);
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_4__/* .settingsFromFlags */ .x$)(values, env);
    const adminKey = adminKeyOf(env, 'unfreeze');
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_5__/* .cliSession */ .ri)(settings, io, env);
    try {
        const answer = await session.client.unfreeze(settings.resource, adminKey, {}, by);
        if (values.json)
            io.out(JSON.stringify({ resource: settings.resource, frozen: false, ...answer }));
        else
            io.out(answer.changed ? `unfroze ${settings.resource}` : `${settings.resource} was not frozen`);
        return answer.changed ? _options_js__WEBPACK_IMPORTED_MODULE_4__/* .EXIT */ .dc.done : _options_js__WEBPACK_IMPORTED_MODULE_4__/* .EXIT */ .dc.refused;
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
/* harmony export */   ZU: () => (/* binding */ retryWindowMs),
/* harmony export */   ri: () => (/* binding */ cliSession)
/* harmony export */ });
/* unused harmony exports STILL_FAILING_EVERY_MS, retryLines, ASK_ONCE_RETRY_MS */
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1223);
/* harmony import */ var _lease_session_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(5146);



/** After the first line, a plane still failing is said at most this often. */
const STILL_FAILING_EVERY_MS = 60_000;
/**
 * The CLI's lease session. An unreachable plane is said at once, once: which URL,
 * where it came from and whether a kernel runs there; then retried quietly, with
 * at most a line a minute, never silent for long.
 */
function cliSession(settings, io, env) {
    return (0,_lease_session_js__WEBPACK_IMPORTED_MODULE_1__/* .openSession */ .f)({
        ...settings,
        env,
        onRetry: retryLines(settings.apiUrl, settings.apiUrlFrom, io.err, Date.now),
    });
}
/** The lines of a retried plane: the first failure in full, then one a minute. */
function retryLines(apiUrl, from, say, now, everyMs = STILL_FAILING_EVERY_MS) {
    let lastLineAt;
    return (event) => {
        const at = now();
        const left = `${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(event.retryForMs)}`;
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
    // The call's own name ([GET] "url": …) is dropped: the URL is said once, with its source.
    const cause = (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_2__/* .untrusted */ .bp)(event.error.replace(/^\[[A-Z]+\] "[^"]*": /, ''), 200);
    const source = from ? ` (${from})` : '';
    return event.status === undefined
        ? `cannot reach the plane at ${apiUrl}${source}: ${cause}. Is the kernel running there ('lease-gate kernel'), and is that the right URL?`
        : `the plane at ${apiUrl}${source} answered ${cause}.`;
}
/** With --wait-timeout 0 the CLI asks once and retries an unreachable plane this long at most. */
const ASK_ONCE_RETRY_MS = 10_000;
/** How long a waiting command retries an unreachable plane: within --wait-timeout. */
function retryWindowMs(waitTimeoutMs) {
    return waitTimeoutMs === 0 ? ASK_ONCE_RETRY_MS : waitTimeoutMs;
}


/***/ })

};

//# sourceMappingURL=923.index.js.map