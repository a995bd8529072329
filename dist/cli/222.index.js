export const id = 222;
export const ids = [222];
export const modules = {

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
    const { values } = (0,options/* parse */.qg)(args, {
        ...options/* PLANE_OPTIONS */.UR,
        reason: { type: 'string' },
        until: { type: 'string' },
        for: { type: 'string' },
        by: { type: 'string' },
    });
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
    const { values } = (0,options/* parse */.qg)(args, { ...options/* PLANE_OPTIONS */.UR, by: { type: 'string' } });
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
/* harmony export */   ZU: () => (/* binding */ retryWindowMs),
/* harmony export */   ri: () => (/* binding */ cliSession)
/* harmony export */ });
/* unused harmony exports STILL_FAILING_EVERY_MS, retryLines, ASK_ONCE_RETRY_MS */
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1223);
/* harmony import */ var _lease_session_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6267);
/* harmony import */ var _plane_url_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(8252);




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
    const cause = (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(event.error.replace(/^\[[A-Z]+\] "[^"]*": /, ''), 200);
    const source = from ? ` (${from})` : '';
    // The hosted plane asked only because nothing named another: say how to name one.
    const hosted = from === _plane_url_js__WEBPACK_IMPORTED_MODULE_2__/* .HOSTED_SOURCE */ .G7 ? ` ${_plane_url_js__WEBPACK_IMPORTED_MODULE_2__/* .HOSTED_HINT */ .AY}` : '';
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


/***/ })

};

//# sourceMappingURL=222.index.js.map