export const id = 267;
export const ids = [267];
export const modules = {

/***/ 4146:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   FU: () => (/* binding */ operatorReason),
/* harmony export */   JU: () => (/* binding */ LeaseRevokedError),
/* harmony export */   Nf: () => (/* binding */ LeaseRefusedError),
/* harmony export */   m4: () => (/* binding */ revokedBy),
/* harmony export */   tH: () => (/* binding */ waitForLease)
/* harmony export */ });
/* unused harmony export MIN_RETRY_WINDOW_MS */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _plane_answers_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3601);
/* harmony import */ var _plane_errors_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3291);



/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
class LeaseRefusedError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'LeaseRefusedError';
    /** The plane's reason (`actor_suspended`, \u2026), or what refused (`key refused`). */
    reason;
    /** The plane's own words, when it gave any. */
    detail;
    /** `message`: by default "The plane refused the lease: <reason> (<detail>)". */
    constructor(options) {
        const { reason, detail } = options;
        super(options.message ?? `The plane refused the lease: ${reason}${detail ? ` (${detail})` : ''}`, {
            ...(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .causeOf */ .rl)(options.cause),
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
    const request = (0,_plane_answers_js__WEBPACK_IMPORTED_MODULE_1__/* .leaseRequestOf */ .V1)(options);
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
            if (!(error instanceof _plane_errors_js__WEBPACK_IMPORTED_MODULE_2__/* .CancelledError */ .cc))
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


/***/ }),

/***/ 6267:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  b: () => (/* binding */ LIMITS),
  f: () => (/* binding */ openSession)
});

// EXTERNAL MODULE: ./src/plane/errors.ts
var errors = __webpack_require__(3291);
// EXTERNAL MODULE: ./src/plane/grant.ts
var grant = __webpack_require__(3376);
// EXTERNAL MODULE: ./src/errors.ts
var src_errors = __webpack_require__(3916);
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
            if (error instanceof errors/* CancelledError */.cc)
                return stopped();
            // The renewal named another holder, resource or an absurd lease: the client gave it back.
            if (error instanceof grant/* BrokenGrantError */.SE) {
                return lose({ reason: 'broken_plane', message: error.message, gaveBack: error.gaveBack });
            }
            status.failures += 1;
            status.lastError = (0,src_errors/* errorMessage */.gJ)(error);
            options.onChange?.(status);
            if (error instanceof errors/* KeyRefusedError */.gy)
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

// EXTERNAL MODULE: ./src/gate/wait.ts
var wait = __webpack_require__(4146);
// EXTERNAL MODULE: ./src/plane/client.ts + 6 modules
var client = __webpack_require__(4984);
// EXTERNAL MODULE: ./src/plane/time.ts
var time = __webpack_require__(7513);
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
    const clock = options.clock ?? time/* systemClock */.m;
    const sleep = options.sleep ?? time/* realSleep */.u;
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
            return { kind: 'failed', message: (0,src_errors/* errorMessage */.gJ)(error) };
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
            const result = await (0,wait/* waitForLease */.tH)({
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
    return (0,client/* createPlaneClient */.ku)({
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


/***/ }),

/***/ 3601:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Bn: () => (/* binding */ readRevoke),
/* harmony export */   Fk: () => (/* binding */ leaseBody),
/* harmony export */   Qn: () => (/* binding */ readWatch),
/* harmony export */   V1: () => (/* binding */ leaseRequestOf),
/* harmony export */   dG: () => (/* binding */ checkAnswer),
/* harmony export */   mE: () => (/* binding */ brokenGrantError),
/* harmony export */   rk: () => (/* binding */ readStatus),
/* harmony export */   zR: () => (/* binding */ readLease)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3291);
/* harmony import */ var _grant_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3376);
/* harmony import */ var _deploy_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6115);
/* harmony import */ var _json_body_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3891);
/* harmony import */ var _schema_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(3659);





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
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ContractError */ .Vl(`${call}: the answer does not match the plane's contract: ${(0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .describeIssues */ .wF)(parsed.error)}`, { call, status: raw.status });
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
    if ((0,_json_body_js__WEBPACK_IMPORTED_MODULE_3__/* .field */ .ZZ)(raw.body, 'ok') !== true)
        return { answer: interpretLease(raw, call) };
    const parsed = _schema_js__WEBPACK_IMPORTED_MODULE_4__/* .grantedSchema */ .xX.safeParse(raw.body);
    const broken = parsed.success
        ? (0,_grant_js__WEBPACK_IMPORTED_MODULE_1__/* .grantProblem */ .cN)(parsed.data.lease, req, raw.dateMs ?? wallNow())
        : {
            field: fieldOf(parsed.error),
            problem: `does not match the plane's contract: ${(0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .describeIssues */ .wF)(parsed.error)}`,
        };
    if (!parsed.success || broken)
        return { broken: broken };
    // Information only: a plane that omits it, or sends one we cannot read, leaves the check undone.
    const previous = _deploy_js__WEBPACK_IMPORTED_MODULE_2__/* .deploySchema */ .zR.safeParse((0,_json_body_js__WEBPACK_IMPORTED_MODULE_3__/* .field */ .ZZ)(raw.body, 'previous'));
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
    return new _grant_js__WEBPACK_IMPORTED_MODULE_1__/* .BrokenGrantError */ .SE(`${call}: the plane granted a lease that is not ours to believe: ${broken.field} ${broken.problem}. ${gaveBack ? 'It was given back' : 'Giving it back failed (it lapses on its own)'} by (resource, own DID); the plane looks broken.`, { call, status: raw.status, field: broken.field, gaveBack });
}
/** A refusal (`ok` is not true) read as what it means for a waiter. */
function interpretLease(raw, call) {
    const refusal = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .otherRefusalSchema */ .cn, raw, call);
    if (refusal.reason === 'lease_held') {
        const held = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .heldSchema */ .HF, raw, call);
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
        const frozen = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .frozenSchema */ .Km, raw, call);
        return {
            kind: 'frozen',
            message: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(frozen.message) || 'frozen by an operator',
            untilMs: frozen.until ?? undefined,
            waitMs: frozen.stampede?.waitMs ?? FROZEN_POLL_MS,
            position: frozen.position,
            preferenceApplied: raw.preferenceApplied,
        };
    }
    if (refusal.reason === 'revoked') {
        const revoked = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .revokedSchema */ .ad, raw, call);
        return {
            kind: 'revoked',
            holder: revoked.holder,
            message: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(revoked.message) || 'revoked by an operator',
            ...(revoked.by ? { by: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(revoked.by, 200) } : {}),
        };
    }
    if (refusal.reason === 'superseded') {
        return { kind: 'superseded', by: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(checkAnswer(_deploy_js__WEBPACK_IMPORTED_MODULE_2__/* .supersededSchema */ .I0, raw, call).by, 2048) };
    }
    return {
        kind: 'refused',
        reason: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(refusal.reason, 200),
        message: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(refusal.message),
    };
}
function fieldOf(error) {
    const path = error.issues[0]?.path ?? [];
    return path.length ? path.map(String).join('.') : '(body)';
}
/** The lease on a resource and, from the bundled kernel, the freeze in force. */
function readStatus(raw, call) {
    const answer = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .statusAnswerSchema */ .mR, raw, call);
    const frozen = answer.frozen
        ? {
            by: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(answer.frozen.by, 200) ?? '',
            reason: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(answer.frozen.reason) ?? '',
            untilMs: answer.frozen.until,
        }
        : undefined;
    return { lease: answer.lease, frozen };
}
function readWatch(raw, call) {
    const answer = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .watchAnswerSchema */ .$R, raw, call);
    if (!answer.ended)
        return { kind: 'held' };
    return {
        kind: 'ended',
        reason: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(answer.reason, 200) ?? 'unknown',
        endedAtMs: answer.endedAtMs,
        message: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(answer.message),
        holder: answer.holder,
        ...(answer.by ? { by: (0,_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .clipText */ .gL)(answer.by, 200) } : {}),
    };
}
function readRevoke(raw, call) {
    const answer = checkAnswer(_schema_js__WEBPACK_IMPORTED_MODULE_4__/* .revokeAnswerSchema */ ._L, raw, call);
    return {
        revoked: answer.revoked,
        leaseId: answer.leaseId ?? undefined,
        holder: answer.holder ?? undefined,
    };
}


/***/ }),

/***/ 4984:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  ku: () => (/* binding */ createPlaneClient)
});

// UNUSED EXPORTS: DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_RETRY_WINDOW_MS

// EXTERNAL MODULE: ./src/http/client.ts + 3 modules
var client = __webpack_require__(3276);
// EXTERNAL MODULE: ./src/plane/errors.ts
var errors = __webpack_require__(3291);
// EXTERNAL MODULE: ./src/plane/retry.ts
var retry = __webpack_require__(3860);
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
            if (!(error instanceof errors/* TransientError */.N_))
                throw error;
            const wait = (0,retry/* nextRetryMs */.Y2)(policy, n, error.retryAfterMs, until - clock.now(), random);
            if (wait === undefined) {
                throw new errors/* PlaneUnavailableError */.Jo(`${error.message} \u2014 still failing after ${n + 1} attempt(s) over ${Math.round((clock.now() - first) / 1_000)} s; the plane looks unavailable`, { call: error.call, status: error.status, cause: error });
            }
            how.onRetry?.({
                error: error.message,
                attempt: n + 1,
                status: error.status,
                retryForMs: Math.max(0, Math.round(until - clock.now())),
            });
            await sleep(wait, call.signal);
            if (call.signal?.aborted)
                throw new errors/* CancelledError */.cc();
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

// EXTERNAL MODULE: ./src/plane/answers.ts
var answers = __webpack_require__(3601);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
;// CONCATENATED MODULE: ./src/plane/lease-calls.ts




/** A plane without the watch route: "no watch here", not an error. */
const NO_WATCH = new Set([404, 405]);
/** How long giving back a broken grant is retried. */
const GIVE_BACK_MS = 5_000;
/** `wallNow`: only to refuse a grant whose expiry is absurd, when the plane sends no Date. */
function leaseCalls(caller, clock, wallNow) {
    const { post, name } = caller;
    /** Release by (resource, own DID), bounded, never throwing: true when the plane answered it. */
    async function giveBack(req) {
        try {
            const payload = { resource: req.resource, actorDid: req.actorDid };
            const raw = await post(schema/* RELEASE_PATH */.Sq, payload, { retryUntilMs: clock.now() + GIVE_BACK_MS });
            return schema/* releaseAnswerSchema */.Lw.safeParse(raw.body).success;
        }
        catch {
            return false;
        }
    }
    const statusOf = async (resource, call = {}) => {
        const path = `${schema/* LEASE_PATH */.B0}?resource=${encodeURIComponent(resource)}`;
        const raw = await caller.get(path, unheld(call));
        return (0,answers/* readStatus */.rk)(raw, name('GET', path));
    };
    return {
        async lease(req, call = {}) {
            const raw = await post(schema/* LEASE_PATH */.B0, (0,answers/* leaseBody */.Fk)(req), call);
            const where = name('POST', schema/* LEASE_PATH */.B0);
            const read = (0,answers/* readLease */.zR)(raw, req, where, wallNow);
            if ('answer' in read)
                return read.answer;
            // A broken plane: whatever it granted is given back by (resource, own DID), never believed.
            throw (0,answers/* brokenGrantError */.mE)(where, raw, read.broken, await giveBack(req));
        },
        async release(req, call = {}) {
            const payload = { resource: req.resource, actorDid: req.actorDid };
            if (req.outdated)
                payload.outdated = true;
            const raw = await post(schema/* RELEASE_PATH */.Sq, payload, unheld(call));
            const answer = (0,answers/* checkAnswer */.dG)(schema/* releaseAnswerSchema */.Lw, raw, name('POST', schema/* RELEASE_PATH */.Sq));
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
                raw = await caller.once('POST', schema/* WATCH_PATH */.Oh, payload, call);
            }
            catch (error) {
                if (error instanceof errors/* RequestRejectedError */.ku && NO_WATCH.has(error.status ?? 0))
                    return { kind: 'unsupported' };
                throw error;
            }
            return (0,answers/* readWatch */.Qn)(raw, name('POST', schema/* WATCH_PATH */.Oh));
        },
    };
}

;// CONCATENATED MODULE: ./src/plane/operator-calls.ts



function operatorCalls(caller) {
    const { post, name } = caller;
    return {
        async revoke(resource, reason, adminKey, call = {}, by) {
            const payload = by ? { resource, reason, by } : { resource, reason };
            const raw = await post(schema/* REVOKE_PATH */.DQ, payload, unheld(call), adminKey);
            return (0,answers/* readRevoke */.Bn)(raw, name('POST', schema/* REVOKE_PATH */.DQ));
        },
        async freeze(request, adminKey, call = {}) {
            const raw = await post(schema/* FREEZE_PATH */.s1, request, unheld(call), adminKey);
            const answer = (0,answers/* checkAnswer */.dG)(schema/* freezeAnswerSchema */.Nj, raw, name('POST', schema/* FREEZE_PATH */.s1));
            return { until: answer.until ?? null, changed: answer.changed };
        },
        async unfreeze(resource, adminKey, call = {}, by) {
            const payload = by ? { resource, by } : { resource };
            const raw = await post(schema/* UNFREEZE_PATH */.NU, payload, unheld(call), adminKey);
            return { changed: (0,answers/* checkAnswer */.dG)(schema/* freezeAnswerSchema */.Nj, raw, name('POST', schema/* UNFREEZE_PATH */.NU)).changed };
        },
        async breakGlass(request, adminKey, call = {}) {
            const raw = await post(schema/* BREAK_GLASS_PATH */.nw, request, unheld(call), adminKey);
            return (0,answers/* checkAnswer */.dG)(schema/* breakGlassAnswerSchema */.Ji, raw, name('POST', schema/* BREAK_GLASS_PATH */.nw));
        },
        async approveBreakGlass(request, approverKey, call = {}) {
            const raw = await post(schema/* APPROVE_BREAK_GLASS_PATH */.ds, request, unheld(call), approverKey);
            return (0,answers/* checkAnswer */.dG)(schema/* breakGlassAnswerSchema */.Ji, raw, name('POST', schema/* APPROVE_BREAK_GLASS_PATH */.ds));
        },
        async withdrawBreakGlass(request, adminKey, call = {}) {
            const raw = await post(schema/* WITHDRAW_BREAK_GLASS_PATH */.Wv, request, unheld(call), adminKey);
            return (0,answers/* checkAnswer */.dG)(schema/* breakGlassAnswerSchema */.Ji, raw, name('POST', schema/* WITHDRAW_BREAK_GLASS_PATH */.Wv));
        },
    };
}

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
// EXTERNAL MODULE: ./src/errors.ts
var src_errors = __webpack_require__(3916);
// EXTERNAL MODULE: ./src/http/errors.ts
var http_errors = __webpack_require__(8549);
// EXTERNAL MODULE: ./src/plane/json-body.ts
var json_body = __webpack_require__(3891);
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
    return Number.isFinite(ms) && ms > 0 && ms <= schema/* MAX_EPOCH_MS */.U3 ? ms : undefined;
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
                throw new errors/* CancelledError */.cc();
            const why = error instanceof http_errors/* HttpError */.j ? error.message.slice(name.length + 2) : (0,src_errors/* causeText */.xv)(error);
            throw new errors/* TransientError */.N_(`${name}: ${why}`, { call: name, cause: error });
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
        const why = (0,src_errors/* causeText */.xv)(error).slice(0, 200);
        throw new errors/* TransientError */.N_(`${name}: could not get an OIDC token (${why})`, {
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
    const body = (0,json_body/* parseJson */.qF)(text);
    const failure = statusFailure(options, sent, response, statusText, body);
    if (failure)
        throw failure;
    if (body === undefined) {
        throw new errors/* ContractError */.Vl(`${name}: ${statusText}, but the body is not JSON`, {
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
        const retryAfter = (0,retry/* parseRetryAfter */.mu)(headerValue(response.headers['retry-after']), Date.now());
        const detail = (0,json_body/* bodyMessage */.Al)(body);
        return new errors/* TransientError */.N_(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
            call: name,
            status,
            retryAfterMs: retryAfter,
        });
    }
    if ((status < 200 || status >= 300) && !(path === schema/* LEASE_PATH */.B0 && BODY_DECIDES.has(status))) {
        const detail = (0,json_body/* bodyMessage */.Al)(body);
        return new errors/* RequestRejectedError */.ku(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
            call: name,
            status,
        });
    }
    return undefined;
}
function keyRefused(options, name, status, statusText, body) {
    // The plane's own words first (escaped, one line): a kernel says what it wanted.
    const said = (0,json_body/* bodyMessage */.Al)(body);
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
    return new errors/* KeyRefusedError */.gy(`${name}: ${statusText}${said ? ` (${said})` : ''}. The plane refused ${sent}; check ${keyHint}.`, { call: name, status, said });
}
function headerValue(value) {
    return Array.isArray(value) ? value[0] : value;
}

// EXTERNAL MODULE: ./src/plane/time.ts
var time = __webpack_require__(7513);
;// CONCATENATED MODULE: ./src/plane/client.ts








const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
function createPlaneClient(options) {
    const clock = options.clock ?? time/* systemClock */.m;
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const ownHttp = !options.http;
    const http = options.http ??
        (0,client/* createHttpClient */.u)({ headersTimeoutMs: timeoutMs, ...(options.env ? { env: options.env } : {}) });
    const send = createSender({ ...options, http, timeoutMs });
    const key = options.bearer ? FRESH_TOKEN : options.key || undefined;
    const caller = createCaller(options.apiUrl, send, key, {
        clock,
        sleep: options.sleep ?? time/* realSleep */.u,
        random: options.random ?? Math.random,
        policy: options.retry ?? retry/* DEFAULT_RETRY */.vI,
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


/***/ }),

/***/ 3291:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Jo: () => (/* binding */ PlaneUnavailableError),
/* harmony export */   N_: () => (/* binding */ TransientError),
/* harmony export */   Vl: () => (/* binding */ ContractError),
/* harmony export */   cc: () => (/* binding */ CancelledError),
/* harmony export */   gy: () => (/* binding */ KeyRefusedError),
/* harmony export */   ku: () => (/* binding */ RequestRejectedError)
/* harmony export */ });
/* unused harmony export PlaneError */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);

/** Typed failures of a plane call; every message says which call and what to do. */
class PlaneError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'PlaneError';
    call;
    status;
    constructor(message, code, options) {
        super(message, { ...(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .causeOf */ .rl)(options.cause), code });
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
class CancelledError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'CancelledError';
    constructor() {
        super('cancelled', { code: 'cancelled' });
    }
}


/***/ }),

/***/ 3376:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   SE: () => (/* binding */ BrokenGrantError),
/* harmony export */   cN: () => (/* binding */ grantProblem)
/* harmony export */ });
/* unused harmony exports LEASE_ID_PATTERN, LEASE_ID_FORM, MAX_CLOCK_SKEW_MS, MAX_LEASE_MS */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3291);

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
class BrokenGrantError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ContractError */ .Vl {
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


/***/ }),

/***/ 3891:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Al: () => (/* binding */ bodyMessage),
/* harmony export */   ZZ: () => (/* binding */ field),
/* harmony export */   qF: () => (/* binding */ parseJson)
/* harmony export */ });
/* harmony import */ var _schema_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3659);

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
        return (0,_schema_js__WEBPACK_IMPORTED_MODULE_0__/* .clipText */ .gL)(message, 300);
    const reason = field(body, 'reason');
    if (typeof reason === 'string')
        return (0,_schema_js__WEBPACK_IMPORTED_MODULE_0__/* .clipText */ .gL)(reason, 100);
    return undefined;
}


/***/ }),

/***/ 3860:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Y2: () => (/* binding */ nextRetryMs),
/* harmony export */   jo: () => (/* binding */ backoffMs),
/* harmony export */   mu: () => (/* binding */ parseRetryAfter),
/* harmony export */   vI: () => (/* binding */ DEFAULT_RETRY)
/* harmony export */ });
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


/***/ }),

/***/ 7513:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   m: () => (/* binding */ systemClock),
/* harmony export */   u: () => (/* binding */ realSleep)
/* harmony export */ });
/* harmony import */ var node_timers_promises__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8500);
/* harmony import */ var node_timers_promises__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_timers_promises__WEBPACK_IMPORTED_MODULE_0__);

const systemClock = { now: () => performance.now() };
const realSleep = async (ms, signal) => {
    if (signal?.aborted)
        return;
    try {
        await (0,node_timers_promises__WEBPACK_IMPORTED_MODULE_0__.setTimeout)(Math.max(0, ms), undefined, signal ? { signal } : {});
    }
    catch {
        // Aborted: the caller looks at its signal.
    }
};


/***/ })

};

//# sourceMappingURL=267.index.js.map