export const id = 863;
export const ids = [863];
export const modules = {

/***/ 5863:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   runCommand: () => (/* binding */ runCommand)
/* harmony export */ });
/* harmony import */ var node_child_process__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1421);
/* harmony import */ var node_child_process__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_child_process__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_util__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(7975);
/* harmony import */ var node_util__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_util__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_10__ = __webpack_require__(1223);
/* harmony import */ var _fs_processes_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(5810);
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(9731);
/* harmony import */ var _lease_session_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(5146);
/* harmony import */ var _lease_texts_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(1782);
/* harmony import */ var _plane_time_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(7513);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_7__ = __webpack_require__(1156);
/* harmony import */ var _session_js__WEBPACK_IMPORTED_MODULE_8__ = __webpack_require__(2594);
/* harmony import */ var _deploy_flags_js__WEBPACK_IMPORTED_MODULE_9__ = __webpack_require__(1749);











const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
/**
 * `lease-gate run -- <command>`: hold the lease for exactly as long as the
 * command runs, renewing it in-process, and exit with the command's code. The
 * command runs in its own process group, which owns everything it starts:
 * signals go to the group, a loss stops the group (SIGTERM, then SIGKILL after
 * the grace); on a kernel a revoke is heard at once through a watch, and the
 * next holder is granted only after the group is gone and the lease given back.
 */
async function runCommand(args, io, env) {
    const split = args.indexOf('--');
    const command = split < 0 ? [] : args.slice(split + 1);
    const { values } = (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .parse */ .qg)(split < 0 ? withoutCommand(args) : args.slice(0, split), RUN_OPTIONS);
    if (command.length === 0)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb(missingCommand(args));
    const onLost = values['on-lost'];
    if (onLost !== 'terminate' && onLost !== 'warn') {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_7__/* .UsageError */ .eb(`Invalid --on-lost '${onLost}'. Expected 'terminate' or 'warn'.`);
    }
    const settings = (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .settingsFromFlags */ .x$)(values, env);
    const session = (0,_session_js__WEBPACK_IMPORTED_MODULE_8__/* .cliSession */ .ri)({ ...settings, ...(0,_deploy_flags_js__WEBPACK_IMPORTED_MODULE_9__/* .deployFromFlags */ .J6)(values) }, io, env);
    try {
        const cancelWait = new AbortController();
        let stoppedBy;
        const onWaitSignal = (signal) => {
            stoppedBy ??= signal;
            cancelWait.abort();
        };
        const notices = (0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_5__/* .waitNotices */ .lY)(settings.resource);
        for (const signal of FORWARDED)
            process.once(signal, onWaitSignal);
        const waited = await session
            .acquire({
            timeoutMs: settings.waitTimeoutMs,
            retryWindowMs: (0,_session_js__WEBPACK_IMPORTED_MODULE_8__/* .retryWindowMs */ .ZU)(settings.waitTimeoutMs),
            signal: cancelWait.signal,
            onHeld: (event) => {
                const line = notices(event);
                if (line)
                    io.err(`lease-gate: ${line}`);
            },
        })
            .finally(() => FORWARDED.forEach((signal) => process.off(signal, onWaitSignal)));
        if (waited.outcome === 'superseded') {
            // As the action: a newer run of the lane deploys instead; nothing ran, nothing failed.
            io.err(`lease-gate: superseded by ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_10__/* .untrusted */ .bp)(waited.by, 2048)}; the command did not run.`);
            return _options_js__WEBPACK_IMPORTED_MODULE_7__/* .EXIT */ .dc.done;
        }
        if (waited.outcome !== 'granted') {
            io.err(waited.outcome === 'timeout'
                ? `lease-gate: timed out after ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_3__/* .formatDuration */ .a3)(waited.waitedMs)}; ${settings.resource} is ${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_5__/* .describeWaitState */ .wS)(waited)}. The command did not run.`
                : `lease-gate: stopped${stoppedBy ? ` by ${stoppedBy}` : ''} while waiting; the command did not run.`);
            // 128+N for signal N, as --help promises.
            return stoppedBy ? (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .signalExitCode */ .cf)(stoppedBy) : _options_js__WEBPACK_IMPORTED_MODULE_7__/* .EXIT */ .dc.refused;
        }
        const { held } = waited;
        io.err(`lease-gate: holding ${settings.resource} (${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_5__/* .describeLease */ .un)(held.lease)}); running ${command.join(' ')}`);
        return await runHolding(command, held, { io, env, onLost, resource: settings.resource });
    }
    finally {
        await session.close();
    }
}
const RUN_OPTIONS = {
    ..._options_js__WEBPACK_IMPORTED_MODULE_7__/* .PLANE_OPTIONS */ .UR,
    ..._deploy_flags_js__WEBPACK_IMPORTED_MODULE_9__/* .DEPLOY_OPTIONS */ .NL,
    'on-lost': { type: 'string', default: 'terminate' },
};
/** The flags before a command given without `--`, so the usage error can point at `--`. */
function withoutCommand(args) {
    const { tokens } = (0,node_util__WEBPACK_IMPORTED_MODULE_1__.parseArgs)({ args, options: RUN_OPTIONS, strict: false, tokens: true });
    const first = tokens.find((t) => t.kind === 'positional');
    return first ? args.slice(0, first.index) : args;
}
/** `run echo hi` means `run -- echo hi`: say so, with the user's own words. */
function missingCommand(args) {
    const flags = withoutCommand(args);
    const rest = args.slice(flags.length);
    if (rest.length === 0 || args.includes('--'))
        return 'run needs a command after --, as in: lease-gate run -- ./deploy.sh';
    const shown = (words) => (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_10__/* .untrusted */ .bp)(words.join(' '), 200);
    return `run takes its command after --: lease-gate run ${flags.length ? `${shown(flags)} ` : ''}-- ${shown(rest)}`;
}
async function runHolding(command, held, o) {
    const { lease } = held;
    const child = (0,node_child_process__WEBPACK_IMPORTED_MODULE_0__.spawn)(command[0], command.slice(1), {
        stdio: 'inherit',
        detached: true,
        env: {
            ...o.env,
            ...(lease.fence === undefined ? {} : { LEASE_GATE_FENCE: String(lease.fence) }),
            LEASE_GATE_LEASE_ID: lease.id,
        },
    });
    const group = child.pid;
    const signalGroup = (signal) => {
        if (group === undefined)
            return;
        try {
            process.kill(-group, signal);
        }
        catch {
            // the group is gone
        }
    };
    const exited = new Promise((resolve) => {
        child.on('error', (error) => {
            o.io.err(`lease-gate: could not start ${command[0]}: ${error.message}`);
            resolve(127);
        });
        child.on('exit', (code, signal) => resolve(code ?? (0,_options_js__WEBPACK_IMPORTED_MODULE_7__/* .signalExitCode */ .cf)(signal)));
    });
    const forward = (signal) => signalGroup(signal);
    for (const signal of FORWARDED)
        process.on(signal, forward);
    const stopKeeping = new AbortController();
    let lost;
    const keeping = held.keep({
        signal: stopKeeping.signal,
        onChange: (status) => {
            if (!status.lost || lost)
                return;
            lost = status.lost;
            o.io.err(`lease-gate: ${(0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_5__/* .describeLoss */ .$4)(o.resource, lost)}${o.onLost === 'terminate' ? ' Stopping the command.' : ''}`);
            if (o.onLost === 'terminate')
                void terminateGroup();
        },
    });
    const terminateGroup = async () => {
        signalGroup('SIGTERM');
        for (let waited = 0; waited < _lease_session_js__WEBPACK_IMPORTED_MODULE_4__/* .LIMITS */ .b.terminateGraceMs && groupAlive(group); waited += 50)
            await (0,_plane_time_js__WEBPACK_IMPORTED_MODULE_6__/* .realSleep */ .u)(50);
        signalGroup('SIGKILL');
    };
    const code = await exited;
    for (const signal of FORWARDED)
        process.off(signal, forward);
    // Whatever the command left running in its group goes before the lease does.
    if (groupAlive(group))
        await terminateGroup();
    stopKeeping.abort();
    await keeping;
    const outcome = await held.release();
    if (outcome.kind === 'released')
        o.io.err(`lease-gate: released ${o.resource}.`);
    else if (outcome.kind === 'failed')
        o.io.err(`lease-gate: could not release ${o.resource} (${outcome.message}); it lapses on its own.`);
    if (lost)
        return code === 0 ? _options_js__WEBPACK_IMPORTED_MODULE_7__/* .EXIT */ .dc.refused : code;
    return code;
}
function groupAlive(group) {
    return group !== undefined && (0,_fs_processes_js__WEBPACK_IMPORTED_MODULE_2__/* .groupAlive */ .x)(group);
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

/***/ 5810:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   _: () => (/* binding */ isAlive),
/* harmony export */   x: () => (/* binding */ groupAlive)
/* harmony export */ });
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
    let pids;
    try {
        pids = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readdirSync)('/proc').filter((name) => /^\d+$/.test(name));
    }
    catch {
        return true;
    }
    for (const pid of pids) {
        let stat;
        try {
            stat = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(`/proc/${pid}/stat`, 'utf8');
        }
        catch {
            continue; // gone meanwhile
        }
        // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(pgrp) === group && state !== 'Z')
            return true;
    }
    return false;
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
/** "next in line", "3rd in line; about 6m at recent hold times", from a refusal's place and estimate. */
function describePlace(position, etaMs) {
    const place = position === undefined
        ? ''
        : position === 0
            ? 'next in line'
            : `${ordinal(position + 1)} in line`;
    const eta = etaMs === undefined ? '' : `about ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(etaMs)} at recent hold times`;
    return [place, eta].filter(Boolean).join('; ');
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
    const place = describePlace(e.position, e.etaMs);
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
        const place = event.frozen ? '' : describePlace(event.position, event.etaMs);
        const waited = event.first ? '' : `; waited ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(event.elapsedMs)}`;
        const still = changed ? '' : 'still ';
        return `${resource} is ${still}${describeWaitState({ ...event, position: undefined, etaMs: undefined })}${place ? `; ${place}` : ''}${waited}`;
    };
}


/***/ })

};

//# sourceMappingURL=863.index.js.map