export const id = 727;
export const ids = [727,14];
export const modules = {

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

/***/ 6727:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   acquire: () => (/* binding */ acquire),
/* harmony export */   describeFreeze: () => (/* binding */ describeFreeze),
/* harmony export */   release: () => (/* binding */ release),
/* harmony export */   revoke: () => (/* binding */ revoke),
/* harmony export */   status: () => (/* binding */ status)
/* harmony export */ });
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4146);
/* harmony import */ var _lease_did_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(623);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_9__ = __webpack_require__(1223);
/* harmony import */ var _lease_texts_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1782);
/* harmony import */ var _plane_errors_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(3291);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(776);
/* harmony import */ var _freeze_commands_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(8014);
/* harmony import */ var _session_js__WEBPACK_IMPORTED_MODULE_7__ = __webpack_require__(2594);
/* harmony import */ var _deploy_flags_js__WEBPACK_IMPORTED_MODULE_8__ = __webpack_require__(1749);










/** `lease-gate acquire`: wait for the lease like the action does, print it. */
async function acquire(args, io, env) {
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .parse */ .qg)(args, { ..._options_js__WEBPACK_IMPORTED_MODULE_5__/* .PLANE_OPTIONS */ .UR, ..._deploy_flags_js__WEBPACK_IMPORTED_MODULE_8__/* .DEPLOY_OPTIONS */ .NL });
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .settingsFromFlags */ .x$)(values, env);
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_7__/* .cliSession */ .ri)({ ...settings, ...(0,_deploy_flags_js__WEBPACK_IMPORTED_MODULE_8__/* .deployFromFlags */ .J6)(values) }, io, env);
    const cancel = new AbortController();
    let stoppedBy;
    const stop = (signal) => {
        stoppedBy ??= signal;
        cancel.abort();
    };
    process.once('SIGINT', stop).once('SIGTERM', stop);
    const notices = (0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .waitNotices */ .lY)(settings.resource);
    try {
        const result = await session.acquire({
            timeoutMs: settings.waitTimeoutMs,
            signal: cancel.signal,
            retryWindowMs: (0,_session_js__WEBPACK_IMPORTED_MODULE_7__/* .retryWindowMs */ .ZU)(settings.waitTimeoutMs),
            onHeld: (event) => {
                const line = notices(event);
                if (line && !values.json)
                    io.err(`lease-gate: ${line}`);
            },
        });
        if (result.outcome === 'granted') {
            const { lease } = result.held;
            if (values.json)
                io.out(JSON.stringify({
                    outcome: 'granted',
                    lease,
                    waitedMs: result.waitedMs,
                    actorDid: settings.actorDid,
                }));
            else {
                io.out(`acquired ${lease.resource} as ${lease.holder}: ${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .describeLease */ .un)(lease)}`);
                io.err(`lease-gate: this lease ${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .describeLapse */ .$x)(lease, Date.now())} unless renewed; to hold it while a command runs, use \`lease-gate run\`.`);
            }
            return _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.done;
        }
        if (values.json)
            io.out(JSON.stringify({ ...result, actorDid: settings.actorDid }));
        else
            io.err(result.outcome === 'timeout'
                ? `timed out after ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(result.waitedMs)}: ${settings.resource} is ${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .describeWaitState */ .wS)(result)}`
                : result.outcome === 'superseded'
                    ? `superseded by ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(result.by, 2048)} while waiting; nothing is held`
                    : `stopped${stoppedBy ? ` by ${stoppedBy}` : ''} while waiting; nothing is held`);
        return result.outcome === 'cancelled' && stoppedBy ? (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .signalExitCode */ .cf)(stoppedBy) : _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.refused;
    }
    finally {
        process.off('SIGINT', stop).off('SIGTERM', stop);
        await session.close();
    }
}
/** `lease-gate release`: give back what this actor holds. */
async function release(args, io, env) {
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .parse */ .qg)(args, _options_js__WEBPACK_IMPORTED_MODULE_5__/* .PLANE_OPTIONS */ .UR);
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .settingsFromFlags */ .x$)(values, env);
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_7__/* .cliSession */ .ri)(settings, io, env);
    try {
        const answer = await session.client.release({
            resource: settings.resource,
            actorDid: settings.actorDid,
        });
        if (values.json)
            io.out(JSON.stringify(answer));
        else
            io.out(answer.released
                ? `released ${answer.releasedIds.join(', ')}`
                : `${settings.actorDid} held nothing on ${settings.resource}`);
        return answer.released ? _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.done : _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.refused;
    }
    finally {
        await session.close();
    }
}
/** `lease-gate status`: who holds the resource, without taking it. */
async function status(args, io, env) {
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .parse */ .qg)(args, _options_js__WEBPACK_IMPORTED_MODULE_5__/* .PLANE_OPTIONS */ .UR);
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .settingsFromFlags */ .x$)(values, env);
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_7__/* .cliSession */ .ri)(settings, io, env);
    try {
        const { lease, frozen } = await session.client.statusOf(settings.resource);
        if (values.json)
            io.out(JSON.stringify({
                resource: settings.resource,
                lease,
                ...(frozen ? { freeze: frozen } : {}),
            }));
        else {
            if (frozen)
                io.out(describeFreeze(settings.resource, frozen));
            if (lease)
                io.out(`${settings.resource} is held by ${(0,_lease_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(lease.holder)}: ${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .describeLease */ .un)(lease)}${lease.deploy ? `; deploying ${(0,_deploy_flags_js__WEBPACK_IMPORTED_MODULE_8__/* .describeDeploy */ .ze)(lease.deploy)}` : ''}`);
            else if (!frozen)
                io.out(`${settings.resource} is free`);
        }
        return _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.done;
    }
    finally {
        await session.close();
    }
}
/** "R is frozen by X until T: reason", every plane text escaped. */
function describeFreeze(resource, frozen) {
    const until = frozen.untilMs === null ? 'until unfrozen' : `until ${new Date(frozen.untilMs).toISOString()}`;
    return `${resource} is frozen by ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(frozen.by, 200)} ${until}: ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(frozen.reason, 1_000)}; nobody new is granted it`;
}
/** "revoked R: ended lease L of <holder>", when the plane names them (escaped: plane text). */
function describeRevoked(resource, answer) {
    if (!answer.holder)
        return `revoked ${resource}`;
    const lease = answer.leaseId ? `lease ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_9__/* .untrusted */ .bp)(answer.leaseId, 256)}` : 'the lease';
    return `revoked ${resource}: ended ${lease} of ${(0,_lease_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(answer.holder)}`;
}
/** `lease-gate revoke`: the operator's lever, with LEASE_GATE_ADMIN_KEY. */
async function revoke(args, io, env) {
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .parse */ .qg)(args, {
        ..._options_js__WEBPACK_IMPORTED_MODULE_5__/* .PLANE_OPTIONS */ .UR,
        reason: { type: 'string' },
        by: { type: 'string' },
    });
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_5__/* .settingsFromFlags */ .x$)(values, env);
    const by = (0,_freeze_commands_js__WEBPACK_IMPORTED_MODULE_6__.operatorName)(values.by);
    const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
    if (!adminKey)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_5__/* .UsageError */ .eb('revoke needs the admin key in LEASE_GATE_ADMIN_KEY.');
    const reason = values.reason ?? 'revoked by an operator';
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_7__/* .cliSession */ .ri)(settings, io, env);
    try {
        const answer = await session.client.revoke(settings.resource, reason, adminKey, {}, by);
        if (values.json)
            io.out(JSON.stringify(answer));
        else
            io.out(answer.revoked
                ? describeRevoked(settings.resource, answer)
                : `${settings.resource} was not held`);
        return answer.revoked ? _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.done : _options_js__WEBPACK_IMPORTED_MODULE_5__/* .EXIT */ .dc.refused;
    }
    catch (error) {
        if (error instanceof _plane_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .KeyRefusedError */ .gy) {
            throw new _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .LeaseRefusedError */ .Nf({
                reason: 'key refused',
                message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; revoking needs the kernel's admin key.`,
            });
        }
        throw error;
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


/***/ }),

/***/ 1782:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $4: () => (/* binding */ describeLoss),
/* harmony export */   $x: () => (/* binding */ describeLapse),
/* harmony export */   lY: () => (/* binding */ waitNotices),
/* harmony export */   un: () => (/* binding */ describeLease),
/* harmony export */   wS: () => (/* binding */ describeWaitState)
/* harmony export */ });
/* unused harmony exports formatEpoch, describeHeldBy, describePlace, WAIT_PROGRESS_EVERY_MS */
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
function describeLease(lease) {
    const fence = lease.fence === undefined ? '' : `, fence ${lease.fence}`;
    return `lease ${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(lease.id, 256)}${fence}, expires ${formatEpoch(lease.expiresAtMs)}`;
}
/** When a lease lapses unless renewed, from the plane's own answer (its expiry), never a fixed TTL. */
function describeLapse(lease, nowMs) {
    const at = formatEpoch(lease.expiresAtMs).split(' ')[0];
    const left = lease.expiresAtMs - nowMs;
    return left > 0 ? `lapses at ${at} (in about ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(left)})` : `lapses at ${at}`;
}
/** "held by X" — or, for a reservation, "reserved for X (next in line)", never "held by". */
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
 * or "frozen until … by an operator: <reason>". Plane text is escaped here.
 */
function describeWaitState(e) {
    if (e.frozen) {
        const message = (0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(e.frozen.message);
        // The kernel's message starts "frozen until …"; another plane's may not.
        return message.startsWith('frozen') ? message : `frozen by an operator: ${message}`;
    }
    const place = describePlace(e.position, e.etaMs, e.overdueMs);
    return `${describeHeldBy(e.holder, e.reserved)}${place ? ` (${place})` : ''}`;
}
function describeLoss(resource, loss) {
    // The plane's own time of the end when it said (a watch), else when we learned of it.
    const at = loss.endedAtMs === undefined
        ? formatEpoch(loss.atMs).split(' ')[0]
        : `${formatEpoch(loss.endedAtMs).split(' ')[0]} (plane's clock)`;
    const message = loss.message ? `: ${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.message)}` : '';
    const now = loss.holder ? ` It is now held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(loss.holder)}.` : '';
    switch (loss.reason) {
        case 'revoked':
            return `Lost ${resource} at ${at}: an operator revoked the lease${(0,_gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .operatorReason */ .FU)(loss.message && (0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.message))}.${now}`;
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


/***/ })

};

//# sourceMappingURL=727.index.js.map