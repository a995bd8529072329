export const id = 451;
export const ids = [451,222];
export const modules = {

/***/ 1749:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   nB: () => (/* binding */ deployFor),
/* harmony export */   ze: () => (/* binding */ describeDeploy)
/* harmony export */ });
/* unused harmony export deployFromFlags */
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1223);
/* harmony import */ var _plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6115);
/* harmony import */ var _ci_auth_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(8943);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(776);




const FLAG_OF = {
    repository: 'repository',
    workflow: 'workflow',
    ref: 'ref',
    commit: 'commit',
    runNumber: 'run-number',
    runAttempt: 'run-attempt',
    runUrl: 'run-url',
};
const shown = (value) => (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(value, 80);
/**
 * The deploy a holding command sends: its flags', and on a job's own OIDC token (`ci`) the
 * kernel's to complete from the token's claims (ci-auth.ts jobDeploy).
 */
function deployFor(values, settings, env) {
    const { deploy, queue } = deployFromFlags(values, settings.ci !== undefined);
    if (!settings.ci)
        return { ...(deploy ? { deploy } : {}), ...(queue ? { queue } : {}) };
    return { deploy: (0,_ci_auth_js__WEBPACK_IMPORTED_MODULE_2__/* .jobDeploy */ .pn)(settings.ci, deploy, env), ...(queue ? { queue } : {}) };
}
/**
 * The flags \u2192 the lease request's extension fields; throws a UsageError naming the flag.
 * `fromToken`: the kernel fills the lane (repository, workflow, ref, run) from the job's token.
 */
function deployFromFlags(values, fromToken = false) {
    const candidate = {};
    for (const [key, flag] of Object.entries(FLAG_OF)) {
        const raw = values[flag];
        if (raw === undefined)
            continue;
        const value = parseField(key, flag, raw);
        if (!_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .deploySchema */ .zR.safeParse({ [key]: value }).success) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`Invalid --${flag} '${shown(raw)}'. Expected ${_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .DEPLOY_FORMS */ .sq[key]}.`);
        }
        candidate[key] = value;
    }
    const deploy = (0,_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanDeploy */ .ZE)(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .deploySchema */ .zR.parse(candidate));
    const queue = values.queue;
    if (queue === undefined)
        return deploy ? { deploy } : {};
    if (!_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .QUEUE_MODES */ .xZ.includes(queue)) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`Invalid --queue '${shown(queue)}'. Expected 'fifo' or 'newest'.`);
    }
    if (queue === 'newest' && !fromToken) {
        const missing = ['repository', 'workflow', 'ref', 'runNumber']
            .filter((key) => deploy?.[key] === undefined)
            .map((key) => `--${FLAG_OF[key]}`);
        if (missing.length) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`--queue newest needs ${missing.join(', ')}: a run is superseded only by a newer run (a higher --run-number) of the same repository, workflow and ref.`);
        }
    }
    return { ...(deploy ? { deploy } : {}), queue: queue };
}
function parseField(key, flag, raw) {
    if (key === 'runNumber' || key === 'runAttempt') {
        if (!/^\d{1,13}$/.test(raw)) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`Invalid --${flag} '${shown(raw)}'. Expected ${_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .DEPLOY_FORMS */ .sq[key]}.`);
        }
        return Number(raw);
    }
    // Git prints commits in lowercase; one pasted from elsewhere may not be.
    return key === 'commit' ? raw.toLowerCase() : raw;
}
/** "commit abc\u2026 of acme/shop on refs/heads/main, run 12 attempt 1: https://\u2026", escaped for a terminal. */
function describeDeploy(deploy) {
    const fields = new Map((0,_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .deployEntries */ ._j)(deploy));
    const parts = [];
    const commit = fields.get('commit');
    if (commit !== undefined)
        parts.push(`commit ${commit}`);
    const repository = fields.get('repository');
    if (repository !== undefined)
        parts.push(`${parts.length ? 'of ' : ''}${repository}`);
    const workflow = fields.get('workflow');
    if (workflow !== undefined)
        parts.push(`workflow ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(String(workflow), 256)}`);
    const ref = fields.get('ref');
    if (ref !== undefined)
        parts.push(`on ${ref}`);
    const run = fields.get('runNumber');
    const attempt = fields.get('runAttempt');
    if (run !== undefined)
        parts.push(`run ${run}${attempt !== undefined ? ` attempt ${attempt}` : ''}`);
    else if (attempt !== undefined)
        parts.push(`attempt ${attempt}`);
    const url = fields.get('runUrl');
    return `${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(parts.join(' '), 600)}${url !== undefined ? `: ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(String(url), 2048)}` : ''}`;
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

/***/ 9451:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  acquire: () => (/* binding */ acquire),
  describeFreeze: () => (/* binding */ describeFreeze),
  release: () => (/* binding */ release),
  revoke: () => (/* binding */ revoke),
  status: () => (/* binding */ lease_commands_status)
});

// EXTERNAL MODULE: ./src/gate/duration.ts
var duration = __webpack_require__(9731);
// EXTERNAL MODULE: ./src/gate/wait.ts
var wait = __webpack_require__(4146);
// EXTERNAL MODULE: ./src/lease/did.ts
var did = __webpack_require__(623);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/kernel/rules/freeze.ts
var freeze = __webpack_require__(2646);
// EXTERNAL MODULE: ./src/lease/texts.ts
var texts = __webpack_require__(1782);
// EXTERNAL MODULE: ./src/plane/errors.ts
var errors = __webpack_require__(3291);
// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/cli/freeze-commands.ts + 1 modules
var freeze_commands = __webpack_require__(2222);
// EXTERNAL MODULE: ./src/cli/session.ts
var cli_session = __webpack_require__(2594);
// EXTERNAL MODULE: ./src/cli/deploy-flags.ts
var deploy_flags = __webpack_require__(1749);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
// EXTERNAL MODULE: ./src/cli/flags/plane.ts
var plane = __webpack_require__(4100);
// EXTERNAL MODULE: ./src/cli/flags/operator.ts
var operator = __webpack_require__(4876);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/http/client.ts + 3 modules
var client = __webpack_require__(3276);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
// EXTERNAL MODULE: ./src/console/page/words.ts
var words = __webpack_require__(9144);
;// CONCATENATED MODULE: ./src/cli/queue-view.ts







const queue_view_text = schemas/* string */.YjP().check(api/* _maxLength */.Eb(2_048));
const time = schemas/* number */.aig().check(api/* _gte */.qm(0), api/* _lte */.Zm(8.64e15));
const overviewSchema = schemas/* object */.Ikc({
    nowMs: time,
    resources: schemas/* array */.YOg(schemas/* object */.Ikc({
        resource: queue_view_text,
        queue: schemas/* array */.YOg(schemas/* object */.Ikc({
            actorDid: queue_view_text,
            position: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _gte */.qm(0)),
            sinceMs: schemas/* optional */.lqM(time),
            etaMs: schemas/* optional */.lqM(time),
        }))
            .check(api/* _maxLength */.Eb(10_000)),
    }))
        .check(api/* _maxLength */.Eb(5_000)),
    next: schemas/* optional */.lqM(schemas/* nullable */.mee(queue_view_text)),
});
const PAGE = 5_000;
const MAX_PAGES = 200;
/**
 * The waiters of `resource` in line order, or undefined when the plane has no overview
 * (answers 404: the hosted plane, an older kernel). Pages through the overview by name.
 */
async function queueOf(settings, env) {
    const http = (0,client/* createHttpClient */.u)({ env });
    try {
        const credential = settings.bearer ? await settings.bearer() : settings.key;
        const headers = credential
            ? { authorization: `Bearer ${credential}` }
            : {};
        let after;
        for (let page = 0; page < MAX_PAGES; page += 1) {
            const query = `?detail=1&limit=${PAGE}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
            const url = `${settings.apiUrl}${schema/* KERNEL_RESOURCES_PATH */.KY}${query}`;
            const call = `[GET] "${settings.apiUrl}${schema/* KERNEL_RESOURCES_PATH */.KY}"`;
            const answer = await http.send({ method: 'GET', url, headers });
            if (answer.status === 404)
                return undefined;
            if (answer.status !== 200)
                throw new errors/* ContractError */.Vl(`${call}: answered ${answer.status} ${(0,lease_escape/* untrusted */.bp)(answer.text.replace(/\s+/g, ' '), 200)}`, { call, status: answer.status });
            const parsed = overviewSchema.safeParse(parseJson(answer.text));
            if (!parsed.success)
                throw new errors/* ContractError */.Vl(`${call}: the answer is not the kernel's overview`, { call });
            const { nowMs, resources, next } = parsed.data;
            const row = resources.find((r) => r.resource === settings.resource);
            if (row)
                return row.queue.map((w) => waiter(w, nowMs));
            // Sorted by name: past the resource, or the last page, it has no queue.
            if (!next || resources.some((r) => r.resource > settings.resource))
                return [];
            after = next;
        }
        return [];
    }
    finally {
        await http.close();
    }
}
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
function waiter(w, nowMs) {
    return {
        actorDid: w.actorDid,
        position: w.position,
        ...(w.sinceMs === undefined ? {} : { waitedMs: Math.max(0, nowMs - w.sinceMs) }),
        ...(w.etaMs === undefined ? {} : { etaMs: w.etaMs }),
    };
}
/** "  1st in line did:\u2026 \u00b7 waiting 3 min \u00b7 about 6 min at recent hold times": the console's words. */
function describeWaiter(w) {
    const parts = [`${(0,words/* placeInLine */.$b)(w.position)} ${(0,lease_escape/* untrusted */.bp)((0,did/* describeHolder */.sG)(w.actorDid), 2_048)}`];
    if (w.waitedMs !== undefined)
        parts.push((0,words/* waitingFor */.Fz)(w.waitedMs));
    if (w.etaMs !== undefined)
        parts.push((0,words/* etaWords */.uU)(w.etaMs));
    return `  ${parts.join(' \u00b7 ')}`;
}

// EXTERNAL MODULE: ./src/errors.ts
var src_errors = __webpack_require__(3916);
;// CONCATENATED MODULE: ./src/cli/lease-commands.ts
















/** `lease-gate acquire`: wait for the lease like the action does, print it. */
async function acquire(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(plane/* ACQUIRE */.Rf.flags));
    const settings = await (0,options/* holderSettings */.qP)(values, env);
    const session = (0,cli_session/* cliSession */.ri)({ ...settings, ...(0,deploy_flags/* deployFor */.nB)(values, settings, env) }, io, env);
    try {
        const { result, stoppedBy } = await (0,cli_session/* waitForLease */.tH)(session, settings, io, {
            signals: ['SIGINT', 'SIGTERM'],
            quiet: values.json,
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
                io.out(`acquired ${lease.resource} as ${lease.holder}: ${(0,texts/* describeLease */.un)(lease)}`);
                io.err(`lease-gate: this lease ${(0,texts/* describeLapse */.$x)(lease, Date.now())} unless renewed; to hold it while a command runs, use \`lease-gate run\`.`);
            }
            return options/* EXIT */.dc.done;
        }
        if (values.json)
            io.out(JSON.stringify({ ...result, actorDid: settings.actorDid }));
        else
            io.err(result.outcome === 'timeout'
                ? settings.waitTimeoutMs === 0
                    ? `${settings.resource} is ${(0,texts/* describeWaitState */.wS)(result)}; ${texts/* ASKED_ONCE */.rX}`
                    : `timed out after ${(0,duration/* formatDuration */.a3)(result.waitedMs)}: ${settings.resource} is ${(0,texts/* describeWaitState */.wS)(result)}`
                : result.outcome === 'superseded'
                    ? `superseded by ${(0,lease_escape/* untrusted */.bp)(result.by, 2048)} while waiting; nothing is held`
                    : `stopped${stoppedBy ? ` by ${stoppedBy}` : ''} while waiting; nothing is held`);
        return result.outcome === 'cancelled' && stoppedBy ? (0,options/* signalExitCode */.cf)(stoppedBy) : options/* EXIT */.dc.refused;
    }
    finally {
        await session.close();
    }
}
/** `lease-gate release`: give back what this actor holds. */
async function release(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(plane/* RELEASE */.g2.flags));
    const settings = await (0,options/* holderSettings */.qP)(values, env);
    return (0,cli_session/* withSession */.fQ)(settings, io, env, async (session) => {
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
        return answer.released ? options/* EXIT */.dc.done : options/* EXIT */.dc.refused;
    });
}
/** `lease-gate status`: who holds the resource, without taking it. */
async function lease_commands_status(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(plane/* STATUS */.XQ.flags));
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    return (0,cli_session/* withSession */.fQ)(settings, io, env, async (session) => {
        const { lease, frozen } = await session.client.statusOf(settings.resource);
        // The queue is the console's view beside the plane's answer: one that cannot be read
        // is said, and the holder still shown.
        const queue = await queueOf(settings, env).catch((error) => {
            io.err(`lease-gate: the queue of ${settings.resource} was not read: ${(0,lease_escape/* untrusted */.bp)((0,src_errors/* errorMessage */.gJ)(error), 1_000)}`);
            return undefined;
        });
        if (values.json)
            io.out(JSON.stringify({
                resource: settings.resource,
                lease,
                ...(frozen ? { freeze: frozen } : {}),
                queue: queue ?? null,
            }));
        else {
            if (frozen)
                io.out(describeFreeze(settings.resource, frozen));
            if (lease)
                io.out(`${settings.resource} is held by ${(0,did/* describeHolder */.sG)(lease.holder)}: ${(0,texts/* describeLease */.un)(lease, texts/* formatUtc */.ay)}${lease.deploy ? `; deploying ${(0,deploy_flags/* describeDeploy */.ze)(lease.deploy)}` : ''}`);
            else if (!frozen)
                io.out(`${settings.resource} is free`);
            // The waiters in line order, in the console's words; nothing when nobody waits.
            if (queue?.length) {
                io.out(`${queue.length} waiting:`);
                for (const w of queue)
                    io.out(describeWaiter(w));
            }
        }
        return options/* EXIT */.dc.done;
    });
}
/** "R is frozen by X until T: reason", every plane text escaped; the health gate's in its own words. */
function describeFreeze(resource, frozen) {
    const reason = (0,lease_escape/* untrusted */.bp)(frozen.reason, 1_000);
    // The health check's hold is no operator's freeze.
    if (frozen.by === freeze/* HEALTH_HOLD_BY */.B7)
        return `${resource} is ${texts/* HEALTH_HOLD_WORDS */.dX}: ${reason}; nobody new is granted it`;
    const until = frozen.untilMs === null ? 'until unfrozen' : `until ${(0,texts/* formatUtc */.ay)(frozen.untilMs)}`;
    return `${resource} is frozen by ${(0,lease_escape/* untrusted */.bp)(frozen.by, 200)} ${until}: ${reason}; nobody new is granted it`;
}
/** "revoked R: ended lease L of <holder>", when the plane names them (escaped: plane text). */
function describeRevoked(resource, answer) {
    if (!answer.holder)
        return `revoked ${resource}`;
    const lease = answer.leaseId ? `lease ${(0,lease_escape/* untrusted */.bp)(answer.leaseId, 256)}` : 'the lease';
    return `revoked ${resource}: ended ${lease} of ${(0,did/* describeHolder */.sG)(answer.holder)}`;
}
/** `lease-gate revoke`: the operator's lever, with LEASE_GATE_ADMIN_KEY. */
async function revoke(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(operator/* REVOKE */.fU.flags));
    const settings = (0,options/* settingsFromFlags */.x$)(values, env);
    const by = (0,freeze_commands.operatorName)(values.by);
    const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
    if (!adminKey)
        throw new options/* UsageError */.eb('revoke needs the admin key in LEASE_GATE_ADMIN_KEY.');
    const reason = values.reason ?? 'revoked by an operator';
    const session = (0,cli_session/* cliSession */.ri)(settings, io, env);
    try {
        const answer = await session.client.revoke(settings.resource, reason, adminKey, {}, by);
        if (values.json)
            io.out(JSON.stringify(answer));
        else
            io.out(answer.revoked
                ? describeRevoked(settings.resource, answer)
                : `${settings.resource} was not held`);
        return answer.revoked ? options/* EXIT */.dc.done : options/* EXIT */.dc.refused;
    }
    catch (error) {
        if (error instanceof errors/* KeyRefusedError */.gy) {
            throw new wait/* LeaseRefusedError */.Nf({
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

/***/ 8219:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   cm: () => (/* binding */ failoverHold),
/* harmony export */   dm: () => (/* binding */ MAX_TIMELINE),
/* harmony export */   qu: () => (/* binding */ fenceFloor),
/* harmony export */   zH: () => (/* binding */ FAILOVER_BY)
/* harmony export */ });
/* unused harmony export TIMELINE_FENCE_BITS */
/** Fences of one timeline: below 2^40 each (a trillion grants), under the timeline's epoch. */
const TIMELINE_FENCE_BITS = 40;
const EPOCH = 2 ** TIMELINE_FENCE_BITS;
/** The last timeline whose fences stay within Number.MAX_SAFE_INTEGER (2^53 - 1). */
const MAX_TIMELINE = Math.floor(Number.MAX_SAFE_INTEGER / EPOCH);
/**
 * The least fence timeline `timeline` may draw above: (timeline - 1) \u00b7 2^40, so a
 * database that never failed over (timeline 1) keeps fences 1, 2, 3\u2026. Undefined
 * past MAX_TIMELINE, where a fence would no longer be an exact number.
 */
function fenceFloor(timeline) {
    if (!Number.isSafeInteger(timeline) || timeline < 1 || timeline > MAX_TIMELINE)
        return undefined;
    return (timeline - 1) * EPOCH;
}
/** Who the failover hold is "by" in a frozen answer, and in `windowUntilMs`' reply. */
const FAILOVER_BY = 'failover';
/**
 * The hold after a timeline change seen at `changedAtMs` (the database's clock): no
 * grant or renewal before `changedAtMs + ttlMs`. Answered as a freeze (`reason: "frozen"`, with
 * its end), which every client already waits out; undefined once it is over.
 */
function failoverHold(changedAtMs, ttlMs, now, timeline) {
    const untilMs = changedAtMs + ttlMs;
    if (!(changedAtMs > 0) || untilMs <= now)
        return undefined;
    return {
        reason: `the database failed over to timeline ${timeline}: no lease is granted or renewed for one lease time, in case the old primary acknowledged changes that were lost`,
        untilMs,
        by: FAILOVER_BY,
        atMs: changedAtMs,
    };
}


/***/ }),

/***/ 2646:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $E: () => (/* binding */ freezeCommand),
/* harmony export */   B7: () => (/* binding */ HEALTH_HOLD_BY),
/* harmony export */   Xx: () => (/* binding */ HEALTH_FREEZE_BY),
/* harmony export */   ZQ: () => (/* binding */ frozenReply),
/* harmony export */   jx: () => (/* binding */ settleFreeze)
/* harmony export */ });
/* unused harmony export FREEZE_ENDED */
/* harmony import */ var _failover_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8219);

/**
 * Who a health check's freezes are by (service/health-checks.ts): its hold while the
 * check fails, which it lifts itself when the check passes, and its freeze after a
 * check failed while the resource was held, which only an operator lifts.
 */
const HEALTH_HOLD_BY = 'health-check';
const HEALTH_FREEZE_BY = 'health-check:held';
/** The reason text an unfreeze at a freeze's own end records. */
const FREEZE_ENDED = 'the freeze ended';
function freezeCommand(s, command, now, events) {
    if (command.kind === 'freeze') {
        // Checked here, inside the one decide of the resource, so no other command comes between.
        if (command.replaces && s.frozen && !command.replaces.includes(s.frozen.by))
            return { frozen: s.frozen, changed: false };
        const frozen = {
            reason: command.reason,
            untilMs: command.untilMs,
            by: command.by,
            atMs: now,
        };
        s.frozen = frozen;
        events.push(freezeEvent('freeze', s.resource, command.by, now, command.reason, command.untilMs));
        return { frozen, changed: true };
    }
    if (!s.frozen)
        return { frozen: null, changed: false };
    if (command.ifBy !== undefined && s.frozen.by !== command.ifBy)
        return { frozen: s.frozen, changed: false };
    delete s.frozen;
    const reason = command.reason ?? 'unfrozen by an operator';
    events.push(freezeEvent('unfreeze', s.resource, command.by, now, reason));
    return { frozen: null, changed: true };
}
/**
 * A freeze whose end has come is recorded as over (an unfreeze entry) before anything
 * else; returns when it ended (however late that is noticed), or undefined.
 */
function settleFreeze(s, now, events) {
    const untilMs = s.frozen?.untilMs;
    if (untilMs === null || untilMs === undefined || untilMs > now)
        return undefined;
    const by = s.frozen.by;
    delete s.frozen;
    events.push(freezeEvent('unfreeze', s.resource, by, now, FREEZE_ENDED));
    return untilMs;
}
function frozenReply(freeze, waitMs, position) {
    // An operator who gave its name (console, --by) is named; the admin key and a window are not.
    const named = /^operator:(?!admin-key$)(.+)$/.exec(freeze.by)?.[1];
    // The failover hold (failover.ts) is the kernel's own, not an operator's.
    const kernel = freeze.by === _failover_js__WEBPACK_IMPORTED_MODULE_0__/* .FAILOVER_BY */ .zH;
    const who = kernel ? 'the kernel' : named ? `operator ${named}` : 'an operator';
    const message = freeze.by === HEALTH_HOLD_BY
        ? `held while its health check fails: ${freeze.reason}`
        : freeze.by === HEALTH_FREEZE_BY
            ? `frozen after a failed health check until an operator unfreezes it: ${freeze.reason}`
            : freeze.untilMs !== null
                ? `frozen until ${iso(freeze.untilMs)} by ${who}: ${freeze.reason}`
                : named
                    ? `frozen by ${who} until unfrozen: ${freeze.reason}`
                    : `frozen until an operator unfreezes it: ${freeze.reason}`;
    return {
        ok: false,
        reason: 'frozen',
        message,
        until: freeze.untilMs,
        stampede: { waitMs },
        position,
    };
}
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
function freezeEvent(kind, resource, by, atMs, reason, untilMs) {
    const event = { kind, atMs, resource, actorDid: by, leaseId: '', fence: 0, reason };
    if (untilMs !== null && untilMs !== undefined)
        event.expiresAtMs = untilMs;
    return event;
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


/***/ })

};

//# sourceMappingURL=451.index.js.map