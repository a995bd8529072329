export const id = 632;
export const ids = [632];
export const modules = {

/***/ 4146:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Nf: () => (/* binding */ LeaseRefusedError),
/* harmony export */   tH: () => (/* binding */ waitForLease)
/* harmony export */ });
/* unused harmony exports LeaseRevokedError, MIN_RETRY_WINDOW_MS */
/* harmony import */ var _http_errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8549);
/* harmony import */ var _plane_errors_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3291);


/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
class LeaseRefusedError extends _http_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .e {
    reason;
    detail;
    name = 'LeaseRefusedError';
    constructor(reason, detail, message = `The plane refused the lease: ${reason}${detail ? ` (${detail})` : ''}`) {
        super(message);
        this.reason = reason;
        this.detail = detail;
    }
}
/** An operator revoked this agent's lease on the resource: final, not a wait. */
class LeaseRevokedError extends LeaseRefusedError {
    resource;
    operatorMessage;
    name = 'LeaseRevokedError';
    constructor(resource, operatorMessage) {
        super('revoked', operatorMessage, `${resource} was revoked for this agent by an operator: ${operatorMessage}`);
        this.resource = resource;
        this.operatorMessage = operatorMessage;
    }
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
 * fires. Asks the plane to hold the request (`Prefer: wait`); a plane that
 * does not names a back-off, slept with a little jitter, never past the
 * deadline, with one last ask at the deadline.
 */
async function waitForLease(options) {
    const { client, clock, sleep, signal } = options;
    const request = { resource: options.resource, actorDid: options.actorDid };
    const started = clock.now();
    const deadline = started + options.timeoutMs;
    const retryUntilMs = Math.max(deadline, started + (options.minRetryWindowMs ?? MIN_RETRY_WINDOW_MS));
    let lastHolder;
    for (let asks = 1;; asks += 1) {
        const elapsed = () => Math.round(clock.now() - started);
        if (signal?.aborted) {
            // Leave the plane's queue at once rather than when our place lapses.
            if (asks > 1)
                await releaseQuietly(options, request);
            return { outcome: 'cancelled', waitedMs: elapsed(), asks: asks - 1 };
        }
        const call = { signal, retryUntilMs, waitSeconds: holdSeconds(options, deadline) };
        const askedAt = clock.now();
        let answer;
        try {
            answer = await client.lease(request, call);
        }
        catch (error) {
            if (!(error instanceof _plane_errors_js__WEBPACK_IMPORTED_MODULE_1__/* .CancelledError */ .cc))
                throw error;
            // The plane may have granted what we never heard of: give it back.
            await releaseQuietly(options, request);
            return { outcome: 'cancelled', waitedMs: elapsed(), asks };
        }
        if (answer.kind === 'granted') {
            if (signal?.aborted) {
                await releaseQuietly(options, request);
                return { outcome: 'cancelled', waitedMs: elapsed(), asks };
            }
            return { outcome: 'granted', lease: answer.lease, waitedMs: elapsed(), asks };
        }
        if (answer.kind === 'revoked')
            throw new LeaseRevokedError(options.resource, answer.message);
        if (answer.kind === 'refused')
            throw new LeaseRefusedError(answer.reason, answer.message);
        const remaining = deadline - clock.now();
        if (remaining <= 0) {
            const { holder, reserved } = answer;
            return { outcome: 'timeout', holder, reserved, waitedMs: elapsed(), asks };
        }
        const reallyHeld = answer.preferenceApplied && clock.now() - askedAt >= REALLY_HELD_MS;
        const pause = reallyHeld
            ? options.random() * 50
            : Math.max(MIN_SLEEP_MS, answer.waitMs + options.random() * Math.min(250, answer.waitMs * 0.1));
        const nextAskInMs = Math.min(pause, remaining, MAX_SLEEP_MS);
        await options.onHeld?.({
            holder: answer.holder,
            reserved: answer.reserved,
            holderChanged: answer.holder !== lastHolder,
            elapsedMs: elapsed(),
            nextAskInMs,
        });
        lastHolder = answer.holder;
        await sleep(nextAskInMs, signal);
    }
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

/***/ 3632:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  b: () => (/* binding */ LIMITS),
  f: () => (/* binding */ openSession)
});

// EXTERNAL MODULE: ./src/plane/errors.ts
var errors = __webpack_require__(3291);
;// CONCATENATED MODULE: ./src/gate/keep.ts

/** The documented lease time, for a plane whose expiry cannot be read against our clock. */
const FALLBACK_LEASE_MS = 30_000;
const MIN_RENEW_EVERY_MS = 100;
/** How often the parent and the lifetime are checked while sleeping. */
const CHECK_EVERY_MS = 2_000;
const RETRY_FAILED_RENEWAL_MS = 1_000;
const GIVE_BACK_MS = 5_000;
/**
 * Renews the lease at about a third of its remaining time until stopped. It
 * renews and only renews: an answer naming another lease id means ours ended
 * (lapsed, revoked, released by someone with our DID), so that new lease is
 * given back at once and the loss reported. Correctness never rests on clocks.
 */
async function keepLease(options) {
    const { client, clock, signal } = options;
    const request = { resource: options.resource, actorDid: options.actorDid };
    const started = clock.now();
    const status = {
        resource: options.resource,
        actorDid: options.actorDid,
        leaseId: options.lease.id,
        ...(options.lease.fence === undefined ? {} : { fence: options.lease.fence }),
        expiresAtMs: options.lease.expiresAtMs,
        renewals: 0,
        failures: 0,
    };
    options.onChange?.(status);
    let leaseEnd = started + remainingOf(options.lease, options.wallNow());
    let nextRenewal = started + (leaseEnd - started) / 3;
    const end = (why) => {
        status.ended = { atMs: options.wallNow(), why };
        options.onChange?.(status);
        return status;
    };
    const lose = (loss) => {
        status.lost = { atMs: options.wallNow(), ...loss };
        return end('lost');
    };
    for (;;) {
        const now = clock.now();
        if (signal?.aborted)
            return end('stopped');
        if (now - started >= options.maxLifetimeMs)
            return end('lifetime');
        if (options.parentAlive && !options.parentAlive())
            return end('parent-gone');
        if (options.stillWanted && !options.stillWanted())
            return end('not-wanted');
        if (now < nextRenewal) {
            await options.sleep(Math.max(1, Math.min(nextRenewal - now, CHECK_EVERY_MS)), signal);
            continue;
        }
        let answer;
        try {
            answer = await client.lease(request, {
                signal,
                retryUntilMs: Math.max(leaseEnd, now + RETRY_FAILED_RENEWAL_MS),
            });
        }
        catch (error) {
            if (error instanceof errors/* CancelledError */.cc)
                return end('stopped');
            status.failures += 1;
            status.lastError = error.message;
            options.onChange?.(status);
            if (error instanceof errors/* KeyRefusedError */.gy)
                return end('key-refused');
            nextRenewal = clock.now() + RETRY_FAILED_RENEWAL_MS;
            continue;
        }
        const answeredAt = clock.now();
        if (answer.kind === 'held') {
            return lose({ reason: 'lease_held', holder: answer.holder });
        }
        if (answer.kind === 'revoked') {
            return lose({
                reason: 'revoked',
                message: answer.message,
                ...(answer.holder ? { holder: answer.holder } : {}),
            });
        }
        if (answer.kind === 'refused') {
            return lose({
                reason: answer.reason,
                ...(answer.message ? { message: answer.message } : {}),
            });
        }
        const { lease } = answer;
        if (lease.id !== status.leaseId) {
            // Not a continuation: exclusivity already had a gap. Give it back, stop.
            const gaveBack = await client
                .release(request, { retryUntilMs: clock.now() + GIVE_BACK_MS })
                .then((r) => r.releasedIds.includes(lease.id))
                .catch(() => false);
            return lose({ reason: 'replaced', newLeaseId: lease.id, gaveBack });
        }
        status.renewals += 1;
        status.expiresAtMs = lease.expiresAtMs;
        status.lastRenewedAtMs = options.wallNow();
        const remaining = remainingOf(lease, options.wallNow());
        leaseEnd = answeredAt + remaining;
        nextRenewal = answeredAt + Math.max(MIN_RENEW_EVERY_MS, remaining / 3);
        options.onChange?.(status);
    }
}
/**
 * The lease's time left by its expiry: none left means renew at once; a
 * reading that skew makes absurd (over an hour) falls back to 30 s.
 */
function remainingOf(lease, wallNow) {
    const remaining = lease.expiresAtMs - wallNow;
    if (remaining <= 0)
        return 0;
    return remaining <= 3_600_000 ? remaining : FALLBACK_LEASE_MS;
}

// EXTERNAL MODULE: ./src/gate/wait.ts
var wait = __webpack_require__(4146);
// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
// EXTERNAL MODULE: external "node:v8"
var external_node_v8_ = __webpack_require__(8877);
// EXTERNAL MODULE: ./src/http/undici-lean.cjs
var undici_lean = __webpack_require__(2136);
// EXTERNAL MODULE: ./src/http/errors.ts
var http_errors = __webpack_require__(8549);
;// CONCATENATED MODULE: ./src/http/client.ts



/** Bodies past this are not ours to read: the plane's answers are small. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const DEFAULTS = { connect: 5_000, headers: 10_000, body: 10_000 };
const LOOPBACK_NO_PROXY = 'localhost,127.0.0.1,::1';
function proxyEnv(env) {
    const pick = (name) => env[name.toLowerCase()] ?? env[name] ?? '';
    return {
        httpProxy: pick('HTTP_PROXY'),
        httpsProxy: pick('HTTPS_PROXY'),
        noProxy: pick('NO_PROXY'),
    };
}
/**
 * undici parses HTTP with WebAssembly (llhttp), compiled on the first connection by V8's
 * baseline compiler and then again by its optimizing one in background threads. For the few
 * small answers a step or the keeper reads, the second compile only costs: measured ~80 ms
 * of CPU at each step's start on two busy cores, and ~30 MB of the keeper's peak RSS. Set
 * before undici compiles its parser; V8 reads these flags when it compiles a module.
 */
let baselineWasmOnly = false;
function keepWasmOnBaseline() {
    if (baselineWasmOnly)
        return;
    baselineWasmOnly = true;
    (0,external_node_v8_.setFlagsFromString)('--no-wasm-dynamic-tiering');
    (0,external_node_v8_.setFlagsFromString)('--no-wasm-tier-up');
}
function createHttpClient(options = {}) {
    keepWasmOnBaseline();
    const env = options.env ?? process.env;
    const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headers;
    const agentOptions = {
        connect: { timeout: options.connectTimeoutMs ?? DEFAULTS.connect },
        headersTimeout,
        bodyTimeout: options.bodyTimeoutMs ?? DEFAULTS.body,
        keepAliveTimeout: 4_000,
    };
    const proxies = proxyEnv(env);
    let dispatcher;
    if (proxies.httpProxy || proxies.httpsProxy) {
        const noProxy = options.proxyLoopback
            ? proxies.noProxy
            : [proxies.noProxy, LOOPBACK_NO_PROXY].filter(Boolean).join(',');
        dispatcher = new undici_lean.EnvHttpProxyAgent({
            ...agentOptions,
            httpProxy: proxies.httpProxy || undefined,
            httpsProxy: proxies.httpsProxy || proxies.httpProxy || undefined,
            noProxy,
        });
    }
    else {
        dispatcher = new undici_lean.Agent(agentOptions);
    }
    let closed = false;
    async function send(req) {
        const call = `[${req.method}] "${req.url}"`;
        if (closed)
            throw new http_errors/* HttpError */.j(`${call}: the HTTP client is closed`, 'cancelled', call);
        const timeoutMs = req.timeoutMs ?? headersTimeout;
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
        try {
            const url = new URL(req.url);
            // The dispatcher's own request(): undici's top-level one would load all of undici.
            const answer = await dispatcher.request({
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
            if (error instanceof http_errors/* HttpError */.j)
                throw error;
            if (req.signal?.aborted)
                throw new http_errors/* HttpError */.j(`${call}: cancelled`, 'cancelled', call);
            if (timeout.aborted || isTimeout(error)) {
                throw new http_errors/* HttpError */.j(`${call}: no answer within ${timeoutMs} ms`, 'timeout', call);
            }
            throw new http_errors/* HttpError */.j(`${call}: ${describeNetworkError(error)}`, 'network', call);
        }
    }
    return {
        send,
        async getText(url, headers = {}, signal) {
            const answer = await send({ method: 'GET', url, headers, signal });
            if (answer.status !== 200) {
                const call = `[GET] "${url}"`;
                throw new http_errors/* HttpError */.j(`${call}: ${answer.status} ${answer.text.slice(0, 200)}`, 'network', call);
            }
            return answer.text;
        },
        async close() {
            if (closed)
                return;
            closed = true;
            await dispatcher.destroy();
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
            throw new http_errors/* HttpError */.j(`${call}: answer larger than ${MAX_ANSWER_BYTES} bytes`, 'too-large', call);
        }
        chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
}
function isTimeout(error) {
    const code = error?.code;
    return (code === 'UND_ERR_CONNECT_TIMEOUT' ||
        code === 'UND_ERR_HEADERS_TIMEOUT' ||
        code === 'UND_ERR_BODY_TIMEOUT');
}
/** "connect ECONNREFUSED 127.0.0.1:9" rather than undici's "fetch failed"-style wrappers. */
function describeNetworkError(error) {
    const err = error;
    const cause = err?.cause;
    const message = (typeof cause?.message === 'string' && cause.message) ||
        (typeof err?.message === 'string' && err.message) ||
        String(error);
    return message.replace(/[\r\n]+/g, ' ').slice(0, 300);
}

;// CONCATENATED MODULE: ./src/plane/retry.ts
const DEFAULT_RETRY = { baseMs: 250, capMs: 8_000, maxAttempts: 50 };
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

// EXTERNAL MODULE: ./src/plane/schema.ts
var plane_schema = __webpack_require__(3659);
// EXTERNAL MODULE: ./src/plane/time.ts
var time = __webpack_require__(7513);
;// CONCATENATED MODULE: ./src/plane/client.ts







const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Transient failures are retried this long unless the caller says otherwise. */
const DEFAULT_RETRY_WINDOW_MS = 30_000;
/** A refusal's status is undocumented: the body decides for these. */
const BODY_DECIDES = new Set([409, 423]);
function createPlaneClient(options) {
    const clock = options.clock ?? time/* systemClock */.m;
    const sleep = options.sleep ?? time/* realSleep */.u;
    const random = options.random ?? Math.random;
    const policy = options.retry ?? DEFAULT_RETRY;
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const ownHttp = !options.http;
    const http = options.http ??
        createHttpClient({ headersTimeoutMs: timeoutMs, ...(options.env ? { env: options.env } : {}) });
    async function send(method, path, payload, call, bearer) {
        const url = options.apiUrl + path;
        const name = `[${method}] "${url}"`;
        const headers = { accept: 'application/json' };
        if (payload !== undefined)
            headers['content-type'] = 'application/json';
        if (bearer)
            headers.authorization = `Bearer ${bearer}`;
        const wait = call.waitSeconds && call.waitSeconds >= 1 ? Math.floor(call.waitSeconds) : 0;
        if (wait)
            headers.prefer = `wait=${wait}`;
        let response;
        try {
            response = await http.send({
                method,
                url,
                headers,
                body: payload === undefined ? undefined : JSON.stringify(payload),
                signal: call.signal,
                timeoutMs: timeoutMs,
            });
        }
        catch (error) {
            if (call.signal?.aborted)
                throw new errors/* CancelledError */.cc();
            const why = error instanceof http_errors/* HttpError */.j ? error.message.slice(name.length + 2) : String(error);
            throw new errors/* TransientError */.N_(`${name}: ${why}`, name);
        }
        const { status, text } = response;
        const statusText = `${status} ${external_node_http_.STATUS_CODES[status] ?? ''}`.trim();
        const body = parseJson(text);
        if (status === 401 || status === 403) {
            throw new errors/* KeyRefusedError */.gy(`${name}: ${statusText}. The plane refused the key; check the key input or INTRAMEDIAL_KEY.`, name, status);
        }
        if (status === 408 || status === 429 || status >= 500) {
            const retryAfter = parseRetryAfter(headerValue(response.headers['retry-after']), Date.now());
            const detail = messageOf(body);
            throw new errors/* TransientError */.N_(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, name, status, retryAfter);
        }
        if ((status < 200 || status >= 300) && !(path === plane_schema/* LEASE_PATH */.B0 && BODY_DECIDES.has(status))) {
            const detail = messageOf(body);
            throw new errors/* RequestRejectedError */.ku(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, name, status);
        }
        if (body === undefined) {
            throw new errors/* ContractError */.Vl(`${name}: ${statusText}, but the body is not JSON`, name, status);
        }
        const applied = headerValue(response.headers['preference-applied']) ?? '';
        return { status, body, preferenceApplied: wait > 0 && /(^|[\s,])wait=\d+/i.test(applied) };
    }
    async function withRetries(attempt, call) {
        const until = call.retryUntilMs ?? clock.now() + DEFAULT_RETRY_WINDOW_MS;
        for (let n = 0;; n += 1) {
            try {
                return await attempt();
            }
            catch (error) {
                if (!(error instanceof errors/* TransientError */.N_))
                    throw error;
                const wait = Math.min(error.retryAfterMs ?? backoffMs(policy, n, random), policy.capMs * 4);
                if (n + 1 >= policy.maxAttempts || clock.now() + wait > until) {
                    throw new errors/* PlaneUnavailableError */.Jo(`${error.message} — still failing after ${n + 1} attempt(s); the plane looks unavailable`, error.call, error.status);
                }
                options.onRetry?.({
                    error: error.message,
                    attempt: n + 1,
                    retryForMs: Math.max(0, Math.round(until - clock.now())),
                });
                await sleep(wait, call.signal);
                if (call.signal?.aborted)
                    throw new errors/* CancelledError */.cc();
            }
        }
    }
    const check = (schema, raw, call) => {
        const parsed = schema.safeParse(raw.body);
        if (parsed.success)
            return parsed.data;
        throw new errors/* ContractError */.Vl(`${call}: the answer does not match the plane's contract: ${(0,plane_schema/* describeIssues */.wF)(parsed.error)}`, call, raw.status);
    };
    const key = options.key || undefined;
    const post = (path, payload, call, bearer = key) => withRetries(() => send('POST', path, payload, call, bearer), call);
    const name = (method, path) => `[${method}] "${options.apiUrl}${path}"`;
    return {
        apiUrl: options.apiUrl,
        requestTimeoutMs: timeoutMs,
        async lease(req, call = {}) {
            const raw = await post(plane_schema/* LEASE_PATH */.B0, { resource: req.resource, actorDid: req.actorDid }, call);
            return interpretLease(raw, name('POST', plane_schema/* LEASE_PATH */.B0), check);
        },
        async release(req, call = {}) {
            const payload = { resource: req.resource, actorDid: req.actorDid };
            const raw = await post(plane_schema/* RELEASE_PATH */.Sq, payload, { ...call, waitSeconds: undefined });
            const answer = check(plane_schema/* releaseAnswerSchema */.Lw, raw, name('POST', plane_schema/* RELEASE_PATH */.Sq));
            return { released: answer.releasedIds.length > 0, releasedIds: answer.releasedIds };
        },
        async status(resource, call = {}) {
            const path = `${plane_schema/* LEASE_PATH */.B0}?resource=${encodeURIComponent(resource)}`;
            const plain = { ...call, waitSeconds: undefined };
            const raw = await withRetries(() => send('GET', path, undefined, plain, key), plain);
            return check(plane_schema/* statusAnswerSchema */.mR, raw, name('GET', path)).lease;
        },
        async revoke(resource, reason, adminKey, call = {}) {
            const raw = await post(plane_schema/* REVOKE_PATH */.DQ, { resource, reason }, { ...call, waitSeconds: undefined }, adminKey);
            return { revoked: check(plane_schema/* revokeAnswerSchema */._L, raw, name('POST', plane_schema/* REVOKE_PATH */.DQ)).revoked };
        },
        async close() {
            if (ownHttp)
                await http.close();
        },
    };
}
function interpretLease(raw, call, check) {
    const ok = raw.body?.ok;
    if (ok === true) {
        const lease = check(plane_schema/* grantedSchema */.xX, raw, call).lease;
        return { kind: 'granted', lease, preferenceApplied: raw.preferenceApplied };
    }
    const refusal = check(plane_schema/* otherRefusalSchema */.cn, raw, call);
    if (refusal.reason === 'lease_held') {
        const held = check(plane_schema/* heldSchema */.HF, raw, call);
        return {
            kind: 'held',
            holder: held.holder,
            waitMs: held.stampede.waitMs,
            reserved: held.reserved === true,
            preferenceApplied: raw.preferenceApplied,
        };
    }
    if (refusal.reason === 'revoked') {
        const revoked = check(plane_schema/* revokedSchema */.ad, raw, call);
        return {
            kind: 'revoked',
            holder: revoked.holder,
            message: (0,plane_schema/* clipText */.gL)(revoked.message) || 'revoked by an operator',
        };
    }
    return {
        kind: 'refused',
        reason: (0,plane_schema/* clipText */.gL)(refusal.reason, 200),
        message: (0,plane_schema/* clipText */.gL)(refusal.message),
    };
}
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
function messageOf(body) {
    if (body && typeof body === 'object') {
        const { message, reason } = body;
        if (typeof message === 'string')
            return (0,plane_schema/* clipText */.gL)(message, 300);
        if (typeof reason === 'string')
            return (0,plane_schema/* clipText */.gL)(reason, 100);
    }
    return undefined;
}
function headerValue(value) {
    return Array.isArray(value) ? value[0] : value;
}

// EXTERNAL MODULE: ./src/lease/errors.ts
var lease_errors = __webpack_require__(2679);
;// CONCATENATED MODULE: ./src/lease/session.ts





/**
 * One lease session, the same for the action and the CLI:
 * `acquire() → Held { keep(), release() }`. It knows no runner and no
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
    const client = options.client ??
        createPlaneClient({
            apiUrl: options.apiUrl,
            key: options.key,
            clock,
            sleep,
            random,
            ...(options.env ? { env: options.env } : {}),
            ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
            ...(options.onRetry ? { onRetry: options.onRetry } : {}),
        });
    const request = { resource: options.resource, actorDid: options.actorDid };
    // A held request must be answered before the client's own timeout fires.
    const maxHoldSeconds = options.blocking === false ? 0 : Math.max(0, Math.floor(client.requestTimeoutMs / 1_000) - 2);
    async function releaseOwn() {
        try {
            const answer = await client.release(request, {
                retryUntilMs: clock.now() + LIMITS.releaseBudgetMs,
            });
            return { kind: answer.released ? 'released' : 'nothing', ids: answer.releasedIds };
        }
        catch (error) {
            return { kind: 'failed', message: (0,lease_errors/* messageOf */.bD)(error) };
        }
    }
    function held(lease, waitedMs = 0) {
        return {
            lease,
            waitedMs,
            keep: (controls) => keepLease({
                client,
                ...request,
                lease: controls.lease ?? lease,
                clock,
                wallNow,
                sleep,
                signal: controls.signal,
                maxLifetimeMs: LIMITS.keeperMaxLifetimeMs,
                ...(controls.parentAlive ? { parentAlive: controls.parentAlive } : {}),
                ...(controls.stillWanted ? { stillWanted: controls.stillWanted } : {}),
                ...(controls.onChange ? { onChange: controls.onChange } : {}),
            }),
            release: releaseOwn,
        };
    }
    return {
        client,
        async acquire({ timeoutMs, signal, onHeld, retryWindowMs }) {
            const result = await (0,wait/* waitForLease */.tH)({
                client,
                ...request,
                timeoutMs,
                clock,
                sleep,
                random,
                signal,
                maxHoldSeconds,
                ...(retryWindowMs === undefined ? {} : { minRetryWindowMs: retryWindowMs }),
                ...(onHeld ? { onHeld } : {}),
            });
            if (result.outcome !== 'granted')
                return result;
            return {
                outcome: 'granted',
                held: held(result.lease, result.waitedMs),
                waitedMs: result.waitedMs,
            };
        },
        held,
        releaseOwn,
        close: () => client.close(),
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
/* harmony import */ var _http_errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8549);

/** Typed failures of a plane call; every message says which call and what to do. */
class PlaneError extends _http_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .e {
    call;
    status;
    name = 'PlaneError';
    constructor(message, call, status) {
        super(message);
        this.call = call;
        this.status = status;
    }
}
/** 401/403: the key was refused. Never retried. */
class KeyRefusedError extends PlaneError {
    name = 'KeyRefusedError';
}
/** Other 4xx: our bug or bad input. Never retried. */
class RequestRejectedError extends PlaneError {
    name = 'RequestRejectedError';
}
/** The body does not match the contract; the message names the field. */
class ContractError extends PlaneError {
    name = 'ContractError';
}
/** Network failure, request timeout, 408, 429 or 5xx (store_unavailable too): worth asking again. */
class TransientError extends PlaneError {
    retryAfterMs;
    name = 'TransientError';
    constructor(message, call, status, retryAfterMs) {
        super(message, call, status);
        this.retryAfterMs = retryAfterMs;
    }
}
/** Transient failures went on past the retry budget. */
class PlaneUnavailableError extends PlaneError {
    name = 'PlaneUnavailableError';
}
/** The caller's signal stopped the call. */
class CancelledError extends _http_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .e {
    name = 'CancelledError';
    constructor() {
        super('cancelled');
    }
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


/***/ }),

/***/ 2136:
/***/ ((__unused_webpack_module, exports, __webpack_require__) => {


// What the bundles import as 'undici' (tsconfig.json "paths", which ncc follows for every
// module it bundles, @actions/http-client's included). undici's index evaluates all of
// undici — fetch, WebSocket, caches, mocks — on every step's start; lease-gate needs its
// agents and Dispatcher#request. Those load now; every other export loads the whole index
// on first use (octokit's fetch, a proxy agent for @actions/http-client).
const Dispatcher = __webpack_require__(883);
const api = __webpack_require__(6615);

// The index adds request(), stream(), … to every dispatcher; so do we, as it would.
Object.assign(Dispatcher.prototype, api);

const eager = {
  Agent: () => __webpack_require__(7405),
  Dispatcher: () => Dispatcher,
};
const full = () => __webpack_require__(6752);
// undici's export names, written out so that Node's import of this file from ESM (tsx runs
// src/ in tests) finds them; each becomes a getter below.
exports.Dispatcher =
  exports.Client =
  exports.Pool =
  exports.BalancedPool =
  exports.Agent =
  exports.ProxyAgent =
  exports.EnvHttpProxyAgent =
  exports.RetryAgent =
  exports.RetryHandler =
  exports.DecoratorHandler =
  exports.RedirectHandler =
  exports.createRedirectInterceptor =
  exports.interceptors =
  exports.buildConnector =
  exports.errors =
  exports.util =
  exports.setGlobalDispatcher =
  exports.getGlobalDispatcher =
  exports.fetch =
  exports.Headers =
  exports.Response =
  exports.Request =
  exports.FormData =
  exports.File =
  exports.FileReader =
  exports.setGlobalOrigin =
  exports.getGlobalOrigin =
  exports.caches =
  exports.deleteCookie =
  exports.getCookies =
  exports.getSetCookies =
  exports.setCookie =
  exports.parseMIMEType =
  exports.serializeAMimeType =
  exports.WebSocket =
  exports.CloseEvent =
  exports.ErrorEvent =
  exports.MessageEvent =
  exports.request =
  exports.stream =
  exports.pipeline =
  exports.connect =
  exports.upgrade =
  exports.MockClient =
  exports.MockPool =
  exports.MockAgent =
  exports.mockErrors =
  exports.EventSource =
    undefined;
for (const name of Object.keys(exports)) {
  Object.defineProperty(exports, name, {
    enumerable: true,
    get: () => (eager[name] ?? (() => full()[name]))(),
  });
}


/***/ })

};

//# sourceMappingURL=632.index.js.map