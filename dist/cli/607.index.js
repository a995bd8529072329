export const id = 607;
export const ids = [607];
export const modules = {

/***/ 3607:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  kernel: () => (/* binding */ kernel_command_kernel)
});

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(8161);
// EXTERNAL MODULE: ./src/kernel/store/store-error.ts
var store_error = __webpack_require__(7561);
// EXTERNAL MODULE: ./src/cli/flags/kernel.ts
var kernel = __webpack_require__(1857);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
// EXTERNAL MODULE: ./src/kernel/rules/core.ts
var core = __webpack_require__(9098);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
// EXTERNAL MODULE: ./src/plane/url.ts
var plane_url = __webpack_require__(4043);
;// CONCATENATED MODULE: ./src/kernel/http/names.ts


/**
 * The names this kernel answers to, and the origins it calls its own. A
 * request's `Host` must be a loopback name (127.0.0.0/8, [::1], localhost),
 * the address it listens on, or a host of a `--public-url`: a web page that
 * rebinds its own name to 127.0.0.1 sends its own name as `Host`, and is
 * answered 421. Any port is accepted, so a TCP proxy or port mapping in front
 * works; a port does not make a name ours or not. A change must come from one
 * of our own origins: `http://` + a loopback or listen `Host` (the page this
 * kernel served there), or a `--public-url` origin exactly (`https://` behind
 * a TLS proxy).
 */
class KernelNames {
    hostnames = new Set();
    origins = new Set();
    listenHostname;
    constructor(publicUrls = []) {
        for (const raw of publicUrls) {
            const url = parsePublicUrl(raw);
            if (!url)
                throw new errors/* InternalError */.Gd(`not a public URL: ${raw}`);
            this.hostnames.add(url.hostname);
            this.origins.add(url.origin);
        }
    }
    /** Told once the server listens (its URL, as `http://127.0.0.1:8787`). */
    listening(url) {
        this.listenHostname = new URL(url).hostname;
    }
    /** Whether `Host` names this kernel. No `Host` at all (HTTP/1.0) is no browser's. */
    hostAllowed(host) {
        if (host === undefined)
            return true;
        const hostname = hostnameOf(host);
        return hostname !== undefined && (this.isDirect(hostname) || this.hostnames.has(hostname));
    }
    /** Whether `origin` is one of this kernel's own, for a request that came with `host`. */
    originAllowed(origin, host) {
        if (this.origins.has(origin))
            return true;
        if (host === undefined)
            return false;
        const hostname = hostnameOf(host);
        return hostname !== undefined && this.isDirect(hostname) && origin === `http://${host}`;
    }
    /** The origins a change may come from, for a message. */
    describe(host) {
        const own = host !== undefined && this.hostAllowed(host) ? [`http://${host}`] : [];
        return [...new Set([...own, ...this.origins])].join(', ') || 'this kernel\u2019s own';
    }
    isDirect(hostname) {
        return (0,plane_url/* isLoopbackHost */.c)(hostname) || hostname === this.listenHostname;
    }
}
/** `--public-url`: an http(s) origin, nothing after it but an optional `/`. */
function parsePublicUrl(raw) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        return undefined;
    }
    const plain = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return (url.protocol === 'https:' || url.protocol === 'http:') && plain ? url : undefined;
}
const PUBLIC_URL_FORM = 'an http:// or https:// origin such as https://gate.example (no path, query or credentials)';
/** The hostname of a `Host` header (lower case, IPv6 in brackets), or undefined when malformed. */
function hostnameOf(host) {
    if (!/^[A-Za-z0-9.\-[\]:]{1,300}$/.test(host))
        return undefined;
    try {
        return new URL(`http://${host}`).hostname || undefined;
    }
    catch {
        return undefined;
    }
}

// EXTERNAL MODULE: ./src/http/errors.ts
var http_errors = __webpack_require__(8549);
// EXTERNAL MODULE: ./src/http/loopback.ts
var loopback = __webpack_require__(507);
// EXTERNAL MODULE: ./src/http/url-display.ts
var url_display = __webpack_require__(3390);
// EXTERNAL MODULE: ./src/ledger/promotion.ts
var promotion = __webpack_require__(1356);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
// EXTERNAL MODULE: ./src/kernel/rules/freeze.ts
var freeze = __webpack_require__(2646);
;// CONCATENATED MODULE: ./src/kernel/service/health-checks.ts







const HEALTH_TIMEOUT_MS = 5_000;
const FIRST_RETRY_MS = 1_000;
class HealthCheckError extends errors/* LeaseGateError */.eg {
    name = 'HealthCheckError';
}
/**
 * `RESOURCE=URL`, as `--health-check` takes it: the URL https:, or http: on
 * loopback only (a check's answer decides whether production may be deployed).
 */
function parseHealthCheck(spec) {
    const form = `RESOURCE=URL: the resource ${schema/* RESOURCE_FORM */.We} (a name without ':' is lock:deploy/NAME, as --promote takes it), the URL https:// (or http:// on loopback)`;
    const at = spec.indexOf('=');
    // As --promote: `production=URL` checks lock:deploy/production.
    const resource = at > 0 ? (0,promotion/* resourceOf */.KU)(spec.slice(0, at)) : '';
    let url;
    try {
        url = new URL(spec.slice(at + 1));
    }
    catch {
        url = undefined;
    }
    const plainOk = url?.protocol === 'http:' && (0,loopback/* isLoopbackHost */.c)(url.hostname.replace(/^\[|\]$/g, ''));
    if (!schema/* RESOURCE_PATTERN */.iY.test(resource) || !url || !(url.protocol === 'https:' || plainOk))
        throw new HealthCheckError(`Invalid --health-check '${shown(spec)}'. Expected ${form}.`, {
            code: 'health_check',
        });
    return { resource, url: url.toString() };
}
// A refused spec is echoed without what could be a credential after the '='.
const shown = (spec) => {
    const at = spec.indexOf('=');
    return at < 0
        ? (0,url_display/* urlForDisplay */.B)(spec)
        : `${spec.slice(0, Math.min(at, 200))}=${(0,url_display/* urlForDisplay */.B)(spec.slice(at + 1))}`;
};
/**
 * The check's URL credentials (`https://user:pass@host/\u2026`), sent as HTTP Basic: the URL
 * as given is what the operator asked for, and it goes only to the check's own origin,
 * over https: or to loopback (parseHealthCheck). The client sends no userinfo itself.
 */
function basicAuth(raw) {
    const url = new URL(raw);
    if (!url.username && !url.password)
        return {};
    const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    return { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
}
class HealthChecks {
    options;
    statuses;
    stop = new AbortController();
    loops = [];
    constructor(options) {
        this.options = options;
        this.statuses = options.checks.map((c) => ({
            resource: c.resource,
            url: (0,url_display/* urlForDisplay */.B)(c.url),
            healthy: null,
            reason: null,
            checkedAtMs: null,
            nextAtMs: null,
        }));
    }
    /** Starts polling every check against `service`; the returned health joins the overview. */
    attach(service) {
        this.loops = this.options.checks.map((check, i) => this.poll(service, check, this.statuses[i]));
        return { health: () => ({ healthChecks: this.statuses.map((s) => ({ ...s })) }) };
    }
    async close() {
        this.stop.abort();
        await Promise.all(this.loops);
    }
    async poll(service, check, status) {
        const { intervalMs, now, sleep } = this.options;
        let failures = 0;
        while (!this.stop.signal.aborted) {
            const result = await this.probe(check.url);
            if (this.stop.signal.aborted)
                return;
            const changed = result.healthy !== status.healthy;
            Object.assign(status, { ...result, checkedAtMs: now() });
            if (changed)
                await this.act(service, check.resource, result).catch((error) => {
                    // Not acted on: the next change tries again; meanwhile the result stands as seen.
                    status.healthy = null;
                    this.options.log(`health check of ${check.resource}: could not apply "${result.reason}": ${(0,errors/* causeText */.xv)(error)}`);
                });
            failures = result.healthy ? 0 : failures + 1;
            const wait = result.healthy
                ? intervalMs
                : Math.min(intervalMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
            status.nextAtMs = now() + wait;
            await sleep(wait, this.stop.signal).catch(() => undefined);
        }
    }
    /** One GET: 2xx is healthy; anything else, or no answer in time, is not. */
    async probe(url) {
        const timeoutMs = this.options.timeoutMs ?? HEALTH_TIMEOUT_MS;
        const where = (0,url_display/* urlForDisplay */.B)(url);
        try {
            const answer = await this.options.http.send({
                method: 'GET',
                url,
                headers: basicAuth(url),
                timeoutMs,
                signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(timeoutMs * 2)]),
            });
            if (answer.status >= 200 && answer.status < 300)
                return { healthy: true, reason: `${where} answered ${answer.status}` };
            return { healthy: false, reason: `${where} answered ${answer.status}` };
        }
        catch (error) {
            // Our words only (HttpError.detail): this reason is signed into the ledger for good.
            const why = error instanceof http_errors/* HttpError */.j ? error.detail : 'the request failed';
            return { healthy: false, reason: `${where} did not answer: ${why.slice(0, 200)}` };
        }
    }
    async act(service, resource, result) {
        if (result.healthy) {
            const reply = await service.unfreeze(resource, freeze/* HEALTH_HOLD_BY */.B7, {
                ifBy: freeze/* HEALTH_HOLD_BY */.B7,
                reason: `the health check passed: ${result.reason}`,
            });
            if (reply.changed)
                this.options.log(`health check of ${resource} passed: grants resume`);
            return;
        }
        const held = this.options.freezeHeld && (await service.status(resource)) !== null;
        const reply = held
            ? await service.freeze(resource, `${result.reason} while it was held`, null, freeze/* HEALTH_FREEZE_BY */.Xx, {
                replaces: [freeze/* HEALTH_HOLD_BY */.B7],
            })
            : await service.freeze(resource, result.reason, null, freeze/* HEALTH_HOLD_BY */.B7, { replaces: [] });
        if (reply.changed)
            this.options.log(`health check of ${resource} failed (${result.reason}): ${held ? 'frozen until an operator unfreezes it' : 'grants held'}`);
    }
}

// EXTERNAL MODULE: ./src/http/client.ts + 3 modules
var client = __webpack_require__(3276);
// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: ./src/plane/deploy.ts
var plane_deploy = __webpack_require__(6115);
// EXTERNAL MODULE: ./src/kernel/auth/mappings.ts + 1 modules
var mappings = __webpack_require__(4640);
// EXTERNAL MODULE: ./src/kernel/auth/refusal.ts
var refusal = __webpack_require__(2528);
;// CONCATENATED MODULE: ./src/kernel/auth/deploy-claims.ts



/** The values the claims allow for each field, the first being the one recorded when none is sent. */
function vouched(claims, run, issuer) {
    const out = {};
    const values = issuer.kind === 'github'
        ? github(claims, run, issuer.didHost)
        : (0,mappings/* deployValues */.IN)(issuer, claims, run);
    for (const [field, list] of Object.entries(values)) {
        // Only what the deploy schema accepts, so what is recorded is what a request could have said.
        out[field] = list.filter((v) => v !== undefined && plane_deploy/* deploySchema */.zR.safeParse({ [field]: v }).success);
    }
    return out;
}
/** GitHub's mapping (the comment above). */
function github(claims, run, didHost) {
    const text = (name) => (typeof claims[name] === 'string' ? claims[name] : undefined);
    const whole = (name) => {
        const value = text(name);
        return value && /^[1-9]\d{0,12}$/.test(value) ? Number(value) : undefined;
    };
    const prefix = `${run.repository}/`;
    const workflowRef = text('workflow_ref') ?? '';
    const at = workflowRef.lastIndexOf('@');
    const workflowFile = workflowRef.startsWith(prefix) && at > prefix.length
        ? workflowRef.slice(prefix.length, at)
        : undefined;
    const path = [run.repository, 'actions', 'runs', run.runId, 'attempts', run.attempt].join('/');
    const values = {
        repository: [run.repository],
        workflow: [workflowFile],
        ref: [text('ref')],
        commit: [text('sha')],
        runNumber: [whole('run_number')],
        runAttempt: [Number(run.attempt)],
        // The attempt's URL, as the action builds it; the run's own (no attempt) names the same run.
        runUrl: [
            `https://${didHost}/${path}`,
            `https://${didHost}/${path.replace(/\/attempts\/\d+$/, '')}`,
        ],
    };
    return values;
}
const pullRequest = (claims) => typeof claims.event_name === 'string' && claims.event_name.startsWith('pull_request');
/** The fields a token's claims cannot vouch for on this event, taken as sent (see above). */
const takenAsSent = (claims, vouched) => pullRequest(claims) && !vouched ? new Set(['commit']) : new Set();
/**
 * The deploy to record for a lease asked with an OIDC token: `sent` checked field by
 * field against the claims and completed from them. Undefined when none was sent (the
 * run asked for no deploy order). Throws `403 not_your_deploy` naming the first field
 * that disagrees. `mustVouch`: a resource of the promotion order (no field taken as sent).
 */
function deployOfRun(sent, claims, run, issuer, mustVouch = false) {
    if (!sent)
        return undefined;
    const allowed = vouched(claims, run, issuer);
    if (mustVouch && sent.commit !== undefined && allowed.commit.length === 0) {
        throw new refusal/* AuthRefusal */.N(`This token is ${run.described}: its claims name no commit (${issuer.kind} tokens carry none), so deploy.commit ${deploy_claims_shown(sent.commit)} would be believed, not vouched for; on a resource of the promotion order a hold marks its commit as having completed a step, so the commit must come from the token.`, { status: 403, reason: 'not_your_deploy' });
    }
    // A repository names the lane and the promotion order a hold counts in: believed, any job
    // could join another repository's (a commit of its own marking a step done there).
    if (issuer.kind !== 'github' && sent.repository !== undefined && !allowed.repository.length) {
        throw new refusal/* AuthRefusal */.N(`This token is ${run.described}: its claims name no repository (owner/repo), so deploy.repository ${deploy_claims_shown(sent.repository)} would be believed, and would let it into that repository's deploy order and promotion order. Map its project to the repository in issuer ${issuer.name}'s "repositories" (docs/ci-issuers.md), or send no deploy.repository.`, { status: 403, reason: 'not_your_deploy' });
    }
    // Other CIs' tokens lack some fields (CircleCI's commit): those are believed, as sent.
    const asSent = issuer.kind === 'github'
        ? takenAsSent(claims, mustVouch)
        : new Set(plane_deploy/* DEPLOY_FIELDS */.aD.filter((field) => allowed[field].length === 0));
    const out = {};
    for (const field of plane_deploy/* DEPLOY_FIELDS */.aD) {
        const value = sent[field];
        if (asSent.has(field)) {
            if (value !== undefined)
                out[field] = value;
            continue;
        }
        const values = allowed[field];
        if (value !== undefined && values.length > 0 && !values.includes(value)) {
            throw new refusal/* AuthRefusal */.N(`This token is ${run.described}: its deploy.${field} is ${values.map(deploy_claims_shown).join(' or ')}, not ${deploy_claims_shown(value)}. On this kernel a run's deploy fields come from its OIDC token${field === 'commit' && pullRequest(claims) ? ", a pull request run's commit too on a resource of the promotion order (a hold there marks its commit as having completed a step)" : ''}.`, { status: 403, reason: 'not_your_deploy' });
        }
        const recorded = value !== undefined && values.length > 0 ? value : values[0];
        if (recorded !== undefined)
            out[field] = recorded;
    }
    return out;
}
/** A value for a message: validated by the deploy schema already (one line, bounded); quoted. */
const deploy_claims_shown = (value) => typeof value === 'number' ? String(value) : JSON.stringify(value.slice(0, 300));

// EXTERNAL MODULE: ./src/kernel/auth/issuers.ts
var issuers = __webpack_require__(3500);
;// CONCATENATED MODULE: ./src/kernel/auth/authorize.ts




const OPEN = { kind: 'open' };
const SHARED = { kind: 'shared-key' };
const digest = (value) => (0,external_node_crypto_.createHash)('sha256').update(value).digest();
/** Three base64url parts: what a JWS in compact form looks like. */
const JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;
/** One GitHub-kind issuer named github, for the `{ verifier, didHost }` form. */
function setOf(oidc) {
    if ('issuers' in oidc)
        return oidc.issuers;
    const { verifier, didHost } = oidc;
    const github = {
        ...{ name: 'github', kind: 'github', url: verifier.issuer, audience: '', didHost },
        ...{ repositories: new Map(), verifier },
    };
    return (0,issuers.issuerSet)([github]);
}
function createAuthorizer(options) {
    const { key, keys, oidc } = options;
    const issuers = oidc ? setOf(oidc) : undefined;
    const byName = new Map(issuers?.issuers.map((i) => [i.name, i]));
    const required = Boolean(key || keys || oidc);
    const keyDigest = key ? digest(key) : undefined;
    async function authorize(headers) {
        if (!required)
            return OPEN;
        const header = headers.authorization ?? '';
        const bearer = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
        if (bearer) {
            // Compared in constant time, over digests so that lengths do not leak either.
            if (keyDigest && (0,external_node_crypto_.timingSafeEqual)(digest(bearer), keyDigest))
                return SHARED;
            const scoped = keys?.find(bearer);
            if (scoped)
                return { kind: 'scoped-key', key: scoped };
            if (issuers && bearer.length <= 16_384 && JWT_SHAPE.test(bearer)) {
                const { claims, run } = await issuers.verify(bearer);
                return { kind: 'oidc', claims, run, issuer: run.issuer };
            }
        }
        throw new refusal/* AuthRefusal */.N(expected(options, issuers), { status: 401, reason: 'unauthorized' });
    }
    function mayActAs(principal, act) {
        if (principal.kind === 'oidc') {
            const { run } = principal;
            if (!act.actorDid.startsWith(run.didPrefix)) {
                throw new refusal/* AuthRefusal */.N(`This token is ${run.described}: it may act only as DIDs under ${run.didPrefix}, not as ${act.actorDid}.`, { status: 403, reason: 'not_your_did' });
            }
            if (act.action === 'lease')
                oidc?.policy.check(principal.claims, act.resource, principal.issuer);
            return;
        }
        if (principal.kind === 'scoped-key') {
            const scoped = principal.key;
            if (!scoped.actors(act.actorDid)) {
                throw new refusal/* AuthRefusal */.N(`Key "${scoped.name}" may act only as ${scoped.actorPatterns.join(' or ')}, not as ${act.actorDid}.`, { status: 403, reason: 'not_your_did' });
            }
            if (act.action === 'lease' && !scoped.resources(act.resource)) {
                throw new refusal/* AuthRefusal */.N(`Key "${scoped.name}" may lease only ${scoped.resourcePatterns.join(' or ')}, not ${act.resource}.`, { status: 403, reason: 'not_allowed' });
            }
        }
        // 'open' and 'shared-key': everyone is trusted to be anyone.
    }
    function deployOf(principal, deploy, vouched = false) {
        const issuer = principal.kind === 'oidc' ? byName.get(principal.issuer.name) : undefined;
        if (principal.kind !== 'oidc' || !issuer)
            return deploy;
        return deployOfRun(deploy, principal.claims, principal.run, issuer, vouched);
    }
    return { required, authorize, mayActAs, deployOf };
}
function expected(options, issuers) {
    const ways = [
        options.key ? 'its key (LEASE_GATE_KERNEL_KEY)' : '',
        options.keys ? 'a key from its keys file' : '',
        issuers ? `an OIDC ID token from ${issuers.issuers.map((i) => i.url).join(' or ')}` : '',
    ].filter(Boolean);
    return `This kernel needs ${ways.join(' or ')} as a Bearer token.`;
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
;// CONCATENATED MODULE: ./src/kernel/auth/file.ts


/** Policy and keys files are small; anything bigger is a mistake. */
const MAX_FILE_BYTES = 1024 * 1024;
/** A policy or keys file that cannot be used: the message names the file, the line or the entry. */
class AuthFileError extends errors/* LeaseGateError */.eg {
    name = 'AuthFileError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'auth_file' });
    }
}
/** Reads a JSON file and checks it against `schema`; errors name the line (syntax) or the entry (shape). */
function readJsonFile(file, schema, describe) {
    let text;
    try {
        text = (0,external_node_fs_.readFileSync)(file, 'utf8');
    }
    catch (error) {
        throw new AuthFileError(`Cannot read ${file}: ${(0,errors/* causeText */.xv)(error)}`, { cause: error });
    }
    if (text.length > MAX_FILE_BYTES)
        throw new AuthFileError(`${file} is over ${MAX_FILE_BYTES} bytes.`);
    let raw;
    try {
        raw = JSON.parse(text);
    }
    catch (error) {
        throw new AuthFileError(`${file}: ${syntaxError(text, (0,errors/* causeText */.xv)(error))}`, { cause: error });
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success)
        return parsed.data;
    const issue = parsed.error.issues[0];
    const path = issue?.path ?? [];
    throw new AuthFileError(`${file}: ${describe(path, raw)}: ${issue?.message ?? 'invalid'}.`);
}
/** "line 3, column 7: \u2026" from JSON.parse's "at position N" (Node 20 and 24 both say it). */
function syntaxError(text, message) {
    const at = /position (\d+)/.exec(message);
    const first = message.split('\n')[0] ?? message;
    if (!at)
        return `not valid JSON (${first})`;
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return `line ${line}, column ${column}: not valid JSON (${first.replace(/ in JSON at position \d+.*$/, '')})`;
}
/** `rules[1] ("production") \u2192 claims.ref` for a zod path into a list of named entries. */
function entryPath(list, entries, path) {
    const [top, index, ...rest] = path;
    if (top !== list || typeof index !== 'number')
        return path.length ? path.join('.') : 'the file';
    const entry = Array.isArray(entries)
        ? entries[index]
        : undefined;
    const name = typeof entry?.name === 'string' ? ` ("${entry.name.slice(0, 60)}")` : '';
    return `${list}[${index}]${name}${rest.length ? ` ${rest.join('.')}` : ''}`;
}

// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/zod-en.ts
var zod_en = __webpack_require__(3184);
// EXTERNAL MODULE: ./src/plane/ci-job.ts
var ci_job = __webpack_require__(1242);
// EXTERNAL MODULE: ./src/plane/did.ts
var did = __webpack_require__(4027);
// EXTERNAL MODULE: ./src/kernel/auth/oidc-keys.ts
var oidc_keys = __webpack_require__(9396);
;// CONCATENATED MODULE: ./src/kernel/auth/issuer-config.ts








/**
 * The OIDC issuers a kernel accepts tokens of: `--oidc-issuer [KIND=]URL` (repeatable, all
 * for `--oidc-audience`), or `--oidc-issuers FILE` (JSON, one entry per issuer, each with its
 * own audience and mapping). Read and checked before the kernel listens; every error names
 * the flag or the file and entry, and the accepted form. No I/O beyond reading the file.
 *
 *   { "issuers": [
 *       { "name": "github", "kind": "github", "url": "https://token.actions.githubusercontent.com",
 *         "audience": "lease-gate" },
 *       { "name": "gitlab", "kind": "gitlab", "url": "https://gitlab.com", "audience": "lease-gate",
 *         "repositories": { "4201": "acme/shop" } },
 *       { "name": "buildkite", "kind": "buildkite", "url": "https://agent.buildkite.com",
 *         "audience": "lease-gate", "organization": "acme" } ] }
 */
const ISSUERS_FILE_FLAG = '--oidc-issuers';
const CLAIM = /^[A-Za-z0-9_./-]{1,100}$/;
const issuer_config_text = (max) => schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(max));
const claimName = schemas/* string */.YjP().check(api/* _regex */.Fk(CLAIM, 'expected a claim name such as build_number'));
const entrySchema = schemas/* strictObject */.rej({
    name: schemas/* string */.YjP().check(api/* _regex */.Fk(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'expected a name such as gitlab')),
    kind: schemas/* enum */.k5n(ci_job/* CI_KINDS */.Dx),
    url: issuer_config_text(500),
    audience: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _regex */.Fk(/^[\x21-\x7e]{1,200}$/, 'expected 1 to 200 printable characters'))),
    didHost: schemas/* optional */.lqM(schemas/* string */.YjP()
        .check(api/* _regex */.Fk(/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/, 'expected a host name such as gitlab.example.com'))),
    organization: schemas/* optional */.lqM(issuer_config_text(100)),
    repositories: schemas/* optional */.lqM(schemas/* record */.g1P(issuer_config_text(200), issuer_config_text(201))),
    did: schemas/* optional */.lqM(issuer_config_text(500)),
    deploy: schemas/* optional */.lqM(schemas/* partialRecord */.jgl(schemas/* enum */.k5n(plane_deploy/* DEPLOY_FIELDS */.aD), claimName)),
    claims: schemas/* optional */.lqM(schemas/* array */.YOg(claimName).check(api/* _maxLength */.Eb(100))),
});
const fileSchema = schemas/* strictObject */.rej({
    issuers: schemas/* array */.YOg(entrySchema).check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(50)),
});
/** Every issuer named in an issuers file, checked as a whole (names and URLs unique, pins set). */
function readIssuersFile(file, audience) {
    const data = readJsonFile(file, fileSchema, (path, raw) => entryPath('issuers', raw?.issuers, path));
    const specs = data.issuers.map((entry, index) => {
        const where = `${file}: issuers[${index}] ("${entry.name}")`;
        const problem = entryProblem(entry, audience);
        if (problem)
            throw new AuthFileError(`${where}: ${problem}.`);
        return specOf(entry, audience);
    });
    const seen = new Map();
    for (const spec of specs) {
        for (const key of [`name ${spec.name}`, `url ${spec.url}`]) {
            if (seen.has(key))
                throw new AuthFileError(`${file}: two issuers have the ${key}; each must be named once.`);
            seen.set(key, spec.name);
        }
    }
    return specs;
}
/** `--oidc-issuer [KIND=]URL` values: the kinds a URL alone can configure. */
function issuersFromFlags(values, audience, didHost) {
    const specs = values.map((value) => {
        const at = /^([a-z]+)=(.*)$/.exec(value);
        const url = at ? at[2] : value;
        try {
            (0,oidc_keys/* checkIssuerUrl */.nt)(url.replace(/\/+$/, ''));
        }
        catch (error) {
            throw new AuthFileError(`Invalid --oidc-issuer: ${(0,errors/* causeText */.xv)(error)}.`);
        }
        // No KIND=: a URL of none of the known CIs is a GitHub Enterprise Server's, as before.
        const kind = (at ? at[1] : ((0,ci_job/* kindOfIssuer */.pS)(url) ?? 'github'));
        if (!ci_job/* CI_KINDS */.Dx.includes(kind)) {
            throw new AuthFileError(`Invalid --oidc-issuer '${value.slice(0, 120)}': expected [KIND=]URL, KIND one of ${ci_job/* CI_KINDS */.Dx.join(', ')}, e.g. gitlab=https://gitlab.example.com.`);
        }
        if (kind === 'buildkite' || kind === 'custom') {
            throw new AuthFileError(`--oidc-issuer ${value.slice(0, 120)}: a ${kind} issuer needs ${kind === 'buildkite' ? 'its organization pinned (https://agent.buildkite.com issues tokens for every Buildkite organization)' : 'a DID template and a claim mapping'}; configure it in an issuers file (${ISSUERS_FILE_FLAG} FILE, see docs/ci-issuers.md).`);
        }
        // --oidc-did-host is GitHub's (a GHES's DIDs); a GitLab's DIDs carry its own host.
        const host = didHost && kind === 'github' ? { didHost } : {};
        const entry = { name: kind, kind, url, audience, ...host };
        const problem = entryProblem(entry, audience);
        if (problem)
            throw new AuthFileError(`Invalid --oidc-issuer '${value.slice(0, 120)}': ${problem}.`);
        return specOf(entry, audience);
    });
    // Two issuers of one kind from flags: name them apart by their host.
    for (const spec of specs) {
        if (specs.filter((s) => s.name === spec.name).length > 1)
            spec.name = `${spec.kind}-${new URL(spec.url).host}`;
    }
    const urls = new Set(specs.map((s) => s.url));
    if (urls.size < specs.length)
        throw new AuthFileError('--oidc-issuer names one issuer twice.');
    return specs;
}
function entryProblem(entry, audience) {
    try {
        (0,oidc_keys/* checkIssuerUrl */.nt)(entry.url.replace(/\/+$/, ''));
    }
    catch (error) {
        return (0,errors/* causeText */.xv)(error);
    }
    if (!entry.audience && !audience)
        return 'needs an "audience" (or --oidc-audience AUD for all)';
    const byUrl = (0,ci_job/* kindOfIssuer */.pS)(entry.url);
    if (byUrl !== undefined && byUrl !== entry.kind)
        return `its url is ${byUrl}'s, not a ${entry.kind} issuer's`;
    if (entry.kind === 'buildkite' && !entry.organization)
        return 'a buildkite issuer needs "organization" (its organization slug): https://agent.buildkite.com issues tokens for every Buildkite organization, so an unpinned one would let any of them lease';
    if (entry.kind === 'circleci') {
        const org = /\/org\/([0-9a-f-]{36})$/i.exec(entry.url.replace(/\/+$/, ''))?.[1];
        if (!org)
            return 'a circleci issuer url ends with /org/<org-id>, e.g. https://oidc.circleci.com/org/6a1b\u2026';
        if (entry.organization && entry.organization !== org)
            return `"organization" ${entry.organization} is not the org id in its url (${org})`;
    }
    if (entry.kind === 'custom') {
        if (!entry.did)
            return 'a custom issuer needs "did", a DID template such as did:web:jenkins.example.com:{sub}:';
        const bad = (0,ci_job/* templateProblem */.MS)(entry.did);
        if (bad)
            return `"did": ${bad}`;
    }
    else if (entry.did || entry.deploy || entry.claims) {
        return `"did", "deploy" and "claims" are for custom issuers; ${entry.kind}'s mapping is built in`;
    }
    for (const [project, repository] of Object.entries(entry.repositories ?? {})) {
        if (!(0,did/* parseRepository */.SU)(repository))
            return `"repositories" maps ${project} to ${JSON.stringify(repository.slice(0, 80))}: expected owner/repo`;
    }
    return undefined;
}
/** `entry` as checked by entryProblem: it or `audience` names the audience. */
function specOf(entry, audience) {
    const url = entry.url.replace(/\/+$/, '');
    const host = new URL(url);
    const didHost = entry.didHost ??
        (host.hostname === 'token.actions.githubusercontent.com' ? 'github.com' : host.host);
    const organization = entry.kind === 'circleci' ? /\/org\/([0-9a-f-]{36})$/i.exec(url)?.[1] : entry.organization;
    return {
        name: entry.name,
        kind: entry.kind,
        url,
        audience: entry.audience ?? audience ?? '',
        didHost,
        organization,
        repositories: new Map(Object.entries(entry.repositories ?? {})),
        did: entry.did,
        deploy: entry.deploy,
        claims: entry.claims,
    };
}

;// CONCATENATED MODULE: ./src/kernel/auth/github-issuer.ts
/** GitHub Actions' issuer: its own module, so what names it need not load jose (oidc.ts). */
const GITHUB_ISSUER_URL = 'https://token.actions.githubusercontent.com';

;// CONCATENATED MODULE: ./src/kernel/auth/glob.ts
/**
 * The patterns of policy and keys files: `*` any run of characters (slashes and
 * colons included), `?` exactly one; everything else is itself. Anchored.
 */
function globToRegExp(pattern) {
    let source = '';
    for (const char of pattern) {
        if (char === '*')
            source += '.*';
        else if (char === '?')
            source += '.';
        else
            source += char.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
    }
    return new RegExp(`^${source}$`, 's');
}
/** True when any of the patterns matches. */
function anyOf(patterns) {
    const compiled = patterns.map(globToRegExp);
    return (value) => compiled.some((re) => re.test(value));
}

;// CONCATENATED MODULE: ./src/kernel/auth/keys.ts





/**
 * The scoped keys file (`--keys FILE`, JSON), for callers that are not GitHub
 * jobs (other CI systems, people): each key, stored as the SHA-256 of its text
 * (never the key), may act only as DIDs matching `actors` and lease only
 * resources matching `resources` (globs: `*`, `?`).
 *
 *   { "keys": [ { "name": "jenkins", "sha256": "<64 hex digits>",
 *                 "actors": ["did:web:ci.example.com:jenkins:*"],
 *                 "resources": ["lock:deploy/staging"] } ] }
 */
const pattern = schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(500));
const patterns = schemas/* array */.YOg(pattern).check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(100));
const keySchema = schemas/* strictObject */.rej({
    name: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(200)),
    sha256: schemas/* string */.YjP()
        .check(api/* _regex */.Fk(/^[0-9a-fA-F]{64}$/, 'expected the SHA-256 of the key as 64 hex digits')),
    actors: patterns,
    resources: patterns,
});
const keysSchema = schemas/* strictObject */.rej({
    keys: schemas/* array */.YOg(keySchema).check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(10_000)),
});
/** The hash a keys file stores: `printf %s "$KEY" | sha256sum`. */
const keyHash = (key) => (0,external_node_crypto_.createHash)('sha256').update(key, 'utf8').digest('hex');
function readScopedKeys(file) {
    const data = readJsonFile(file, keysSchema, (path, raw) => entryPath('keys', raw?.keys, path));
    const byHash = new Map();
    data.keys.forEach((entry, index) => {
        const hash = entry.sha256.toLowerCase();
        const earlier = byHash.get(hash);
        if (earlier) {
            throw new AuthFileError(`${file}: keys[${index}] ("${entry.name}") has the same key as "${earlier.name}".`);
        }
        byHash.set(hash, {
            name: entry.name,
            actors: anyOf(entry.actors),
            resources: anyOf(entry.resources),
            actorPatterns: entry.actors,
            resourcePatterns: entry.resources,
        });
    });
    return {
        size: byHash.size,
        // A lookup by the key's hash: what the timing of a Map lookup could reveal is about the hash, not the key.
        find: (key) => (key ? byHash.get(keyHash(key)) : undefined),
    };
}

;// CONCATENATED MODULE: ./src/kernel/auth/policy.ts








/**
 * The policy file (`--policy FILE`, JSON): which OIDC token claims may lease
 * which resources. A resource may be leased when some rule whose `resources`
 * match it, of the token's issuer, has every one of its `claims` matched by the
 * token and none of its refusals; a resource no rule names is refused. Patterns
 * are globs (`*`, `?`); a list claim (CircleCI's context-ids) matches when one
 * of its items does.
 *
 *   { "rules": [ { "name": "production from main", "issuer": "github",
 *                  "resources": ["lock:deploy/production"],
 *                  "claims": { "repository": "acme/shop", "ref": "refs/heads/main",
 *                              "environment": "production" },
 *                  "refuse": { "event_name": "pull_request*" } } ] }
 *
 * `issuer` names an issuer (its name or URL); with one issuer configured it may be left
 * out, with several it may not. `claims` and `refuse` may test only the claims of that
 * issuer's kind (mappings.ts), so a typo is refused at start. `protectedRef`: the token
 * must say its ref is protected (GitHub, GitLab). `allowForks`: lifts GitLab's built-in
 * refusal of a fork's merge-request pipelines.
 */
const policy_text = schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(500));
const policy_patterns = schemas/* union */.KCZ([policy_text, schemas/* array */.YOg(policy_text).check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(100))]);
const claimsSchema = schemas/* record */.g1P(policy_text, policy_patterns);
const ruleSchema = schemas/* strictObject */.rej({
    name: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(200)),
    issuer: schemas/* optional */.lqM(policy_text),
    resources: schemas/* array */.YOg(policy_text).check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(100)),
    claims: claimsSchema.check(schemas/* refine */.YPB((c) => Object.keys(c).length > 0, 'a rule needs at least one claim')),
    refuse: schemas/* optional */.lqM(claimsSchema),
    protectedRef: schemas/* optional */.lqM(schemas/* boolean */.zMY()),
    allowForks: schemas/* optional */.lqM(schemas/* boolean */.zMY()),
});
const policySchema = schemas/* strictObject */.rej({
    rules: schemas/* array */.YOg(ruleSchema).check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(1_000)),
});
const list = (value) => (typeof value === 'string' ? [value] : value);
/** The one issuer of a kernel started with only `--oidc-audience` (GitHub's). */
const GITHUB_ONLY = [
    { name: 'github', kind: 'github', url: GITHUB_ISSUER_URL },
];
function readPolicy(file, issuers = GITHUB_ONLY) {
    const data = readJsonFile(file, policySchema, (path, raw) => entryPath('rules', raw?.rules, path));
    return compilePolicy(data, issuers, file);
}
function compilePolicy(data, issuers = GITHUB_ONLY, where = 'the policy') {
    const rules = data.rules.map((rule, index) => {
        const at = `${where}: rules[${index}] ("${rule.name.slice(0, 60)}")`;
        const issuer = issuerOfRule(rule.issuer, issuers, at);
        const tests = (claims, key) => Object.entries(claims).map(([claim, value]) => {
            const known = (0,mappings/* policyClaimsOf */.DS)(issuer);
            if (!known.includes(claim)) {
                throw new AuthFileError(`${at} ${key}.${claim}: not a claim a rule may test on ${issuer.kind} tokens; expected one of ${known.join(', ')}.`);
            }
            return { claim, shown: list(value).join(' or '), match: anyOf(list(value)) };
        });
        if (rule.protectedRef && !mappings/* PROTECTED_REF_KINDS */.TU.includes(issuer.kind)) {
            throw new AuthFileError(`${at} protectedRef: ${issuer.kind} tokens do not say whether a ref is protected (only ${mappings/* PROTECTED_REF_KINDS */.TU.join(' and ')} tokens do).`);
        }
        return {
            name: rule.name,
            index,
            issuer: issuer.name,
            kind: issuer.kind,
            resources: anyOf(rule.resources),
            claims: tests(rule.claims, 'claims'),
            refuse: tests(rule.refuse ?? {}, 'refuse'),
            protectedRef: rule.protectedRef ?? false,
            allowForks: rule.allowForks ?? false,
        };
    });
    return {
        rules: rules.length,
        check(claims, resource, issuer) {
            const name = issuer?.name ?? issuers[0]?.name;
            let refusedBy;
            for (const rule of rules) {
                if (rule.issuer !== name || !rule.resources(resource))
                    continue;
                const why = policy_refusal(rule, claims, resource);
                if (why === undefined)
                    return;
                refusedBy ??= why;
            }
            throw new refusal/* AuthRefusal */.N(refusedBy ??
                `No rule of the kernel's policy lets anyone${issuers.length > 1 ? ` with a token of issuer ${name}` : ''} lease ${resource}.`, { status: 403, reason: 'not_allowed' });
        },
    };
}
/** The issuer a rule names (by name or URL), or the only one; refused at start otherwise. */
function issuerOfRule(named, issuers, at) {
    const names = issuers.map((i) => i.name).join(', ');
    if (named === undefined) {
        if (issuers.length === 1)
            return issuers[0];
        throw new AuthFileError(`${at}: with several issuers configured (${names}) every rule names its "issuer".`);
    }
    const issuer = issuers.find((i) => i.name === named || i.url === named.replace(/\/+$/, ''));
    if (!issuer) {
        throw new AuthFileError(`${at} issuer: ${JSON.stringify(named.slice(0, 100))} is not a configured issuer; expected one of ${names}.`);
    }
    return issuer;
}
/** Why `rule` does not let these claims lease `resource`, or undefined when it does. */
function policy_refusal(rule, claims, resource) {
    const head = `Policy rule ${rule.index + 1} ("${rule.name}")`;
    const failed = rule.claims.find((c) => !claimTexts(claims[c.claim]).some((v) => c.match(v)));
    if (failed) {
        const has = claimTexts(claims[failed.claim]).join(', ');
        return `${head} lets ${resource} be leased only with ${failed.claim} ${failed.shown}; this token has ${failed.claim} ${has ? JSON.stringify(has.slice(0, 200)) : '(none)'}.`;
    }
    const hit = rule.refuse.find((c) => claimTexts(claims[c.claim]).some((v) => c.match(v)));
    if (hit) {
        const has = claimTexts(claims[hit.claim]).join(', ');
        return `${head} refuses ${resource} to tokens with ${hit.claim} ${hit.shown}; this token has ${hit.claim} ${JSON.stringify(has.slice(0, 200))}.`;
    }
    if (rule.protectedRef && String(claims.ref_protected) !== 'true') {
        return `${head} lets ${resource} be leased only from a protected ref; this token has ref_protected ${JSON.stringify(String(claims.ref_protected ?? '(none)'))}.`;
    }
    const builtIn = (0,mappings/* builtInRefusal */.SW)(rule.kind, claims, rule.allowForks);
    if (builtIn)
        return `${head} refuses ${resource} to this token (${builtIn.claim}): ${builtIn.why}.`;
    return undefined;
}
/** A claim as texts for matching: a scalar as one, a list's scalars each; else one '' (matches only `*`). */
function claimTexts(value) {
    const one = (v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
    if (Array.isArray(value)) {
        const items = value.map(one).filter(Boolean);
        return items.length ? items : [''];
    }
    return [one(value)];
}

// EXTERNAL MODULE: ./src/cli/options.ts
var cli_options = __webpack_require__(776);
;// CONCATENATED MODULE: ./src/cli/kernel-auth.ts










/**
 * The credential flags' own rules, checked without reading a file: what needs --oidc-audience,
 * the kernel key refused beside scoped credentials, the audience's form.
 */
function authFlagsChecked(values, key) {
    const audience = values['oidc-audience'];
    const file = values['oidc-issuers'];
    const oidcOn = audience !== undefined || file !== undefined;
    if (!oidcOn && (values['oidc-issuer']?.length || values['oidc-did-host'] || values.policy)) {
        throw new cli_options/* UsageError */.eb('--oidc-issuer, --oidc-did-host and --policy need --oidc-audience AUD (the audience the jobs ask their tokens for, e.g. lease-gate).');
    }
    if (file !== undefined && (values['oidc-issuer']?.length || values['oidc-did-host'])) {
        throw new cli_options/* UsageError */.eb(`--oidc-issuers ${file} names every issuer, with its didHost: leave out --oidc-issuer and --oidc-did-host.`);
    }
    if (key && (oidcOn || values.keys)) {
        throw new cli_options/* UsageError */.eb('LEASE_GATE_KERNEL_KEY makes everyone who has it trusted to be anyone, which --oidc-audience and --keys exist to prevent: unset it, and give such callers a scoped key in the keys file instead.');
    }
    if (oidcOn && !values.policy) {
        throw new cli_options/* UsageError */.eb(`${audience !== undefined ? '--oidc-audience' : '--oidc-issuers'} needs --policy FILE: any GitHub repository can ask for a token with that audience, so the policy says which may lease what.`);
    }
    if (audience !== undefined && !/^[\x21-\x7e]{1,200}$/.test(audience)) {
        throw new cli_options/* UsageError */.eb(`Invalid --oidc-audience '${audience.slice(0, 80)}'. Expected 1 to 200 printable characters.`);
    }
}
/**
 * The issuers the flags name: an issuers file, or `--oidc-issuer [KIND=]URL` (GitHub's when
 * none) for `--oidc-audience`; undefined when OIDC is off.
 */
function issuerSpecs(values) {
    const audience = values['oidc-audience'];
    if (values['oidc-issuers'] !== undefined)
        return readIssuersFile(values['oidc-issuers'], audience);
    if (audience === undefined)
        return undefined;
    const didHost = values['oidc-did-host'];
    if (didHost !== undefined && !/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/.test(didHost)) {
        throw new cli_options/* UsageError */.eb(`Invalid --oidc-did-host '${didHost.slice(0, 80)}'. Expected a host name such as github.com.`);
    }
    const flags = values['oidc-issuer']?.length ? values['oidc-issuer'] : [GITHUB_ISSUER_URL];
    try {
        return issuersFromFlags(flags, audience, didHost);
    }
    catch (error) {
        throw new cli_options/* UsageError */.eb((0,errors/* causeText */.xv)(error), { cause: error });
    }
}
/** Flags \u2192 the kernel's authorizer, every file read and checked before it listens. */
async function kernelAuth(values, key, operatorKeys = {}) {
    authFlagsChecked(values, key);
    try {
        const keys = values.keys ? readScopedKeys(values.keys) : undefined;
        // An operator's key that is also an agent's would let that agent revoke and freeze.
        for (const [name, value] of Object.entries(operatorKeys)) {
            const agent = value && keys?.find(value);
            if (agent)
                throw new cli_options/* UsageError */.eb(`${name} is the scoped key "${agent.name}" in ${values.keys}: an operator's key must be one no agent holds.`);
        }
        let http;
        let oidc;
        const parts = [];
        if (keys)
            parts.push(`${keys.size} scoped key(s) from ${values.keys}`);
        const specs = issuerSpecs(values);
        if (specs && values.policy) {
            const policy = readPolicy(values.policy, specs);
            // jose only when OIDC is on: it costs ~90 ms of CPU to load, which a dry run's kernel need not pay.
            const { issuerSet, startIssuers } = await Promise.resolve(/* import() */).then(__webpack_require__.bind(__webpack_require__, 3500));
            http = (0,client/* createHttpClient */.u)();
            oidc = { issuers: issuerSet(await startIssuers(specs, http)), policy };
            const each = specs.map((i) => `${i.name} (${i.kind}) ${i.url} for audience ${i.audience}${i.kind === 'github' || i.kind === 'gitlab' ? ` (DIDs under did:web:${(0,did/* didSegment */.f4)(i.didHost)}:\u2026)` : ''}`);
            parts.push(`OIDC tokens from ${each.join(', ')}, policy of ${policy.rules} rule(s) from ${values.policy}`);
        }
        return {
            auth: createAuthorizer({ key, keys, oidc }),
            summary: parts.length ? `credentials: ${parts.join('; ')}` : '',
            close: async () => {
                await http?.close();
            },
        };
    }
    catch (error) {
        if (error instanceof AuthFileError)
            throw new cli_options/* UsageError */.eb(error.message, { cause: error });
        throw error;
    }
}

// EXTERNAL MODULE: ./src/cli/kernel-keys.ts
var kernel_keys = __webpack_require__(2146);
// EXTERNAL MODULE: ./src/kernel/postgres/settings.ts
var postgres_settings = __webpack_require__(3808);
;// CONCATENATED MODULE: ./src/cli/kernel-postgres.ts




const STORE_FORM = "'memory', 'postgres' (the URL from DATABASE_URL) or a postgres://user@host:5432/db URL";
/**
 * The PostgreSQL settings from `--store`, `--schema` and `--pool-size`, or
 * undefined for the in-process stores. DATABASE_URL is read only when asked
 * for (`--store postgres`), so a job that happens to set it keeps a local kernel.
 */
function postgresFrom(values, env) {
    const store = values.store ?? 'memory';
    if (store === 'memory') {
        if (values.schema !== undefined || values['pool-size'] !== undefined)
            throw new cli_options/* UsageError */.eb('--schema and --pool-size go with --store postgres.');
        return undefined;
    }
    let url = store;
    if (store === 'postgres') {
        url = env.DATABASE_URL ?? '';
        if (!url)
            throw new cli_options/* UsageError */.eb('--store postgres reads its URL from DATABASE_URL, which is not set.');
    }
    if (!/^postgres(ql)?:\/\//.test(url))
        throw new cli_options/* UsageError */.eb(`Invalid --store. Expected ${STORE_FORM}.`);
    const schema = values.schema ?? env.LEASE_GATE_PG_SCHEMA ?? 'public';
    if (!postgres_settings/* SCHEMA_PATTERN */.f_.test(schema))
        throw new cli_options/* UsageError */.eb(`Invalid --schema '${schema}'. Expected ${postgres_settings/* SCHEMA_FORM */.B4}.`);
    const size = values['pool-size'] ?? '10';
    if (!/^\d{1,3}$/.test(size) || Number(size) < 2 || Number(size) > 100)
        throw new cli_options/* UsageError */.eb(`Invalid --pool-size '${size}'. Expected a whole number from 2 to 100.`);
    return { url, schema, poolSize: Number(size) };
}
/** Opens the PostgreSQL service (loaded only when asked for: `pg` stays off every other path). */
async function openPostgres(options, rest) {
    const { PostgresService } = await Promise.all(/* import() */[__webpack_require__.e(849), __webpack_require__.e(884)]).then(__webpack_require__.bind(__webpack_require__, 5884));
    return PostgresService.open({ ...options, ...rest });
}
/** `lease-gate kernel migrate --store \u2026`: brings the schema to this version, and nothing else. */
async function migrateCommand(args, io, env) {
    const { values } = (0,cli_options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(kernel/* STORE_FLAGS */.Wv));
    const options = postgresFrom(values, env);
    if (!options)
        throw new cli_options/* UsageError */.eb(`kernel migrate needs --store. Expected ${STORE_FORM}.`);
    const { migrateDatabase } = await Promise.all(/* import() */[__webpack_require__.e(849), __webpack_require__.e(996)]).then(__webpack_require__.bind(__webpack_require__, 5996));
    const applied = await migrateDatabase(options);
    io.out(applied.length
        ? `migrated schema ${options.schema} to version ${applied.at(-1)} (applied ${applied.join(', ')})`
        : `schema ${options.schema} is current`);
    return cli_options/* EXIT */.dc.done;
}

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: ./src/plane/retry.ts
var retry = __webpack_require__(3860);
// EXTERNAL MODULE: ./src/github/rest.ts
var rest = __webpack_require__(6417);
;// CONCATENATED MODULE: ./src/github/compare-budget.ts

/**
 * The bounds (docs/promotion-order.md). At most 200 + 1,200 calls in the first hour and
 * 1,200 an hour after: a quarter of a 5,000/h token. A caller: 40 calls (two whole checks
 * of 20 commits), then one every 30 s.
 */
const COMPARE_LIMITS = {
    kernel: { burst: 200, perHour: 1_200 },
    caller: { burst: 40, perHour: 120 },
    inFlight: 4,
    callers: 10_000,
};
const HOUR_MS = 3_600_000;
/** A token bucket: `burst` tokens, refilled at `perHour`. */
class Bucket {
    limit;
    tokens;
    at;
    constructor(limit, now) {
        this.limit = limit;
        this.tokens = limit.burst;
        this.at = now;
    }
    /** 0 when a token is there now, else the milliseconds until one is. */
    waitMs(now) {
        this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) * this.limit.perHour) / HOUR_MS);
        this.at = now;
        return this.tokens >= 1 ? 0 : ((1 - this.tokens) * HOUR_MS) / this.limit.perHour;
    }
    take() {
        this.tokens -= 1;
    }
}
/** The budget was spent: not GitHub's answer, so nothing about the commit is kept. */
class CompareBudgetSpent extends rest/* GitHubError */.y_ {
    name = 'CompareBudgetSpent';
}
class CompareBudget {
    clock;
    limits;
    kernel;
    callers = new Map();
    out = 0;
    waiting = [];
    constructor(clock, limits = COMPARE_LIMITS) {
        this.clock = clock;
        this.limits = limits;
        this.kernel = new Bucket(limits.kernel, clock.now());
    }
    /**
     * Takes one call from `caller`'s budget and the kernel's, or throws naming the bound that
     * is spent and when the next call is there. Neither is taken unless both have one.
     */
    take(caller) {
        const now = this.clock.now();
        const own = caller === undefined ? undefined : this.callerBucket(caller, now);
        const ownWait = own?.waitMs(now) ?? 0;
        if (ownWait > 0)
            throw this.spent(`for ${caller}`, this.limits.caller, ownWait);
        const kernelWait = this.kernel.waitMs(now);
        if (kernelWait > 0)
            throw this.spent('for all callers', this.limits.kernel, kernelWait);
        own?.take();
        this.kernel.take();
    }
    /** Runs `call` once fewer than `inFlight` calls are out, in the order they came. */
    async slot(call) {
        if (this.out >= this.limits.inFlight)
            await new Promise((resolve) => this.waiting.push(resolve));
        else
            this.out += 1;
        try {
            return await call();
        }
        finally {
            // The slot passes straight to the next waiter, so none is overtaken.
            const next = this.waiting.shift();
            if (next)
                next();
            else
                this.out -= 1;
        }
    }
    callerBucket(caller, now) {
        let bucket = this.callers.get(caller);
        if (bucket)
            this.callers.delete(caller);
        else
            bucket = new Bucket(this.limits.caller, now);
        this.callers.set(caller, bucket);
        if (this.callers.size > this.limits.callers)
            this.callers.delete(this.callers.keys().next().value);
        return bucket;
    }
    spent(whose, limit, waitMs) {
        const every = Math.round(HOUR_MS / limit.perHour / 1000);
        return new CompareBudgetSpent(`the kernel's GitHub compare budget ${whose} is spent (${limit.burst} calls, then one every ${every} s); try again in ${Math.ceil(waitMs / 1000)} s`, { status: 0 });
    }
}

;// CONCATENATED MODULE: ./src/github/compare.ts







const RETRY = { baseMs: 250, capMs: 2_000, maxAttempts: 5 };
const USER_AGENT = 'lease-gate-kernel';
/** Answers kept; the oldest go first (asking again is only slower). */
const MAX_KEPT = 10_000;
/**
 * How long a commit GitHub could not answer about (unknown to it, GitHub down, the token
 * refused) is refused without asking again: one failure, not one per request and candidate.
 */
const FAILED_FOR_MS = 60_000;
const statusSchema = schemas/* object */.Ikc({ status: schemas/* enum */.k5n(['ahead', 'behind', 'identical', 'diverged']) });
function createGitHubCompare(options) {
    const compare = {
        options,
        budgetMs: options.budgetMs ?? 10_000,
        policy: options.retry ?? RETRY,
        budget: options.budget ?? new CompareBudget(options.clock),
        kept: new Map(),
        failed: new Map(),
    };
    return {
        contains: (repository, base, head, caller) => contains(compare, repository, base, head, caller),
    };
}
async function contains(compare, repository, base, head, caller) {
    if (!plane_deploy/* REPOSITORY_PATTERN */.G_.test(repository) ||
        !plane_deploy/* COMMIT_PATTERN */.TJ.test(base) ||
        !plane_deploy/* COMMIT_PATTERN */.TJ.test(head))
        throw new rest/* GitHubError */.y_('compare: expected owner/repo and two full commit ids', {
            status: 0,
        });
    if (base === head)
        return true;
    const { kept } = compare;
    const key = `${repository} ${base} ${head}`;
    const known = kept.get(key);
    if (known !== undefined)
        return known;
    const commit = `${repository} ${base}`;
    failedBefore(compare, commit);
    let answer;
    try {
        answer = await ask(compare, repository, base, head, caller);
    }
    catch (error) {
        keepFailure(compare, commit, error);
        throw error;
    }
    kept.set(key, answer);
    if (kept.size > MAX_KEPT)
        kept.delete(kept.keys().next().value);
    return answer;
}
async function ask({ options, budgetMs, policy, budget }, repository, base, head, caller) {
    const { http, clock, sleep } = options;
    const [owner, repo] = repository.split('/');
    const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/compare/${base}...${head}?per_page=1`;
    const what = `GitHub's compare of ${repository} ${base.slice(0, 12)}...${head.slice(0, 12)}`;
    const until = clock.now() + budgetMs;
    let refreshed = false;
    for (let attempt = 1;; attempt += 1) {
        let answer;
        let why;
        let waitMs;
        budget.take(caller);
        try {
            const headers = (0,rest/* restHeaders */.xf)(await options.token(), USER_AGENT);
            answer = await budget.slot(() => http.send({ method: 'GET', url: `${options.apiUrl}${path}`, headers }));
        }
        catch (error) {
            if (!(error instanceof http_errors/* HttpError */.j) || error.failure === 'cancelled')
                throw error;
            why = (0,rest/* printable */.g$)((0,errors/* causeText */.xv)(error));
            waitMs = (0,retry/* backoffMs */.jo)(policy, attempt, options.random);
        }
        if (answer) {
            if (answer.status === 200) {
                const body = statusSchema.safeParse((0,rest/* parseJson */.qF)(answer.text));
                if (!body.success)
                    throw new rest/* GitHubError */.y_(`${what} answered no status GitHub documents`, { status: 200 });
                return body.data.status === 'ahead' || body.data.status === 'identical';
            }
            if (answer.status === 401 && !refreshed) {
                // A token GitHub no longer takes: read it again once (a rotated file).
                refreshed = true;
                continue;
            }
            why = `GitHub answered ${answer.status}: ${(0,rest/* printable */.g$)((0,rest/* answerMessage */.Mw)(answer.text))}`;
            waitMs = (0,rest/* retryWait */.fN)(answer, options.wallNow(), policy, attempt, options.random);
            if (waitMs === undefined)
                throw new rest/* GitHubError */.y_(`${what}: ${why}`, { status: answer.status });
        }
        if (attempt >= policy.maxAttempts || waitMs > until - clock.now()) {
            throw new rest/* GitHubError */.y_(`${what}: ${why}; gave up after ${attempt} attempts`, {
                status: answer?.status ?? 0,
            });
        }
        await sleep(waitMs);
    }
}
/** The failure kept for this commit, thrown again while it stands. */
function failedBefore({ failed, options }, key) {
    const before = failed.get(key);
    if (!before)
        return;
    const leftMs = before.untilMs - options.clock.now();
    if (leftMs <= 0)
        return void failed.delete(key);
    throw new rest/* GitHubError */.y_(`${before.message}; this commit is not asked about again for ${Math.ceil(leftMs / 1000)} s`, { status: before.status });
}
function keepFailure({ failed, options }, key, error) {
    if (!(error instanceof rest/* GitHubError */.y_) || error instanceof CompareBudgetSpent)
        return;
    failed.delete(key);
    failed.set(key, {
        untilMs: options.clock.now() + FAILED_FOR_MS,
        message: error.message,
        status: error.status,
    });
    if (failed.size > MAX_KEPT)
        failed.delete(failed.keys().next().value);
}

// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/plane/time.ts
var time = __webpack_require__(7513);
;// CONCATENATED MODULE: ./src/cli/compare-flag.ts








const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
/**
 * `--github-token-file FILE [--github-api-url URL]`: the kernel may ask GitHub's compare
 * whether a commit that completed the step before contains the one asking (a descendant
 * passes the promotion order). The token is read from the file at each question, so a
 * rotated one is used without a restart, and is never printed or kept; the URL must be
 * https: (plain http: to loopback only), since the token goes with every question.
 */
function githubFlags(values, promote) {
    const file = values['github-token-file'];
    const rawUrl = values['github-api-url'];
    if (file === undefined) {
        if (rawUrl !== undefined)
            throw new cli_options/* UsageError */.eb('--github-api-url needs --github-token-file FILE.');
        return undefined;
    }
    if (!promote)
        throw new cli_options/* UsageError */.eb('--github-token-file is for the promotion order: give it with --promote FROM->TO.');
    const url = (0,plane_url/* parsePlaneUrl */.p)(rawUrl ?? DEFAULT_GITHUB_API_URL);
    if (!url.ok)
        throw new cli_options/* UsageError */.eb(`Invalid --github-api-url '${(0,url_display/* urlForDisplay */.B)(rawUrl ?? '')}'. Expected an https:// URL such as ${DEFAULT_GITHUB_API_URL} or https://HOST/api/v3, without credentials, query or fragment (plain http:// only on loopback).`);
    return { tokenFile: file, apiUrl: url.url };
}
/** GitHub's compare for the promotion order, its token file read once now (it must hold one). */
async function openCompare({ tokenFile: file, apiUrl }, env) {
    const token = async () => {
        let text;
        try {
            text = (await (0,promises_.readFile)(file, 'utf8')).trim();
        }
        catch (error) {
            throw new cli_options/* UsageError */.eb(`Cannot read --github-token-file '${(0,lease_escape/* untrusted */.bp)(file, 200)}': ${error.code ?? 'unreadable'}.`, { cause: error });
        }
        if (!/^[\x21-\x7e]{1,4096}$/.test(text))
            throw new cli_options/* UsageError */.eb(`--github-token-file '${(0,lease_escape/* untrusted */.bp)(file, 200)}' holds no token: expected one line of printable ASCII.`);
        return text;
    };
    // Checked before listening: a kernel that cannot ask would refuse every descendant.
    await token();
    const http = (0,client/* createHttpClient */.u)({ env });
    const compare = createGitHubCompare({
        apiUrl,
        http,
        token,
        clock: time/* systemClock */.m,
        sleep: time/* realSleep */.u,
        wallNow: Date.now,
        random: Math.random,
    });
    return { compare, apiUrl, close: () => http.close() };
}

// EXTERNAL MODULE: ./src/cli/promote-flag.ts
var promote_flag = __webpack_require__(1961);
// EXTERNAL MODULE: ./src/cli/log-format-flag.ts
var log_format_flag = __webpack_require__(7661);
;// CONCATENATED MODULE: ./src/cli/kernel-settings.ts











/**
 * Flags and environment \u2192 the kernel's settings, or a UsageError naming the flag and the
 * form it takes. Pure: no file is read here (startKernel reads keys, policies, windows).
 */
function kernelSettings(values, env) {
    const port = wholeNumber(values.port, '--port', 0, 65_535, 'a port number from 0 to 65535 (0 picks a free one)');
    const ttlMs = milliseconds(values['ttl-ms'], '--ttl-ms');
    const lockDelayMs = parseLockDelay(values['lock-delay-ms'], ttlMs);
    const healthChecks = parseHealthChecks(values['health-check']);
    const healthIntervalMs = milliseconds(values['health-interval-ms'], '--health-interval-ms');
    if (values['health-freeze-held'] && !healthChecks.length)
        throw new cli_options/* UsageError */.eb('--health-freeze-held needs a --health-check RESOURCE=URL.');
    const publicUrls = values['public-url'];
    const parsedUrls = publicUrls.map((url) => {
        const parsed = parsePublicUrl(url);
        if (!parsed)
            throw new cli_options/* UsageError */.eb(`Invalid --public-url '${url}'. Expected ${PUBLIC_URL_FORM}.`);
        return parsed;
    });
    const host = values.host.replace(/^\[(.*)\]$/, '$1');
    const keys = (0,kernel_keys/* kernelKeysOf */.v)(env, host, parsedUrls);
    const oidcOn = values['oidc-audience'] ?? (values['oidc-issuers'] ? 'issuers file' : undefined);
    const approverOidc = approverOidcOf(values['approver-oidc'], oidcOn, env);
    const promote = (0,promote_flag/* promoteFlag */.V)(values.promote);
    const github = githubFlags(values, promote);
    if (!(0,plane_url/* isLoopbackHost */.c)(host) && !keys.key && !values.keys && !oidcOn) {
        throw new cli_options/* UsageError */.eb(`Refusing to listen on ${values.host} without a credential: set LEASE_GATE_KERNEL_KEY, --keys FILE or --oidc-audience, or keep --host on loopback.`);
    }
    authFlagsChecked(values, keys.key);
    const warnings = [];
    const dataPrefix = dataPrefixFrom(values, warnings);
    const postgres = postgresFrom(values, env);
    if (postgres && (dataPrefix || values.ledger))
        throw new cli_options/* UsageError */.eb('--store postgres keeps the log in the database: drop --data-prefix and --ledger.');
    if (postgres && !values['signing-key'])
        throw new cli_options/* UsageError */.eb('--store postgres needs --signing-key FILE: every replica signs the shared ledger with the same key.');
    return {
        ...{ host, port, ttlMs, lockDelayMs, publicUrls, keys, approverOidc, promote, github },
        ...{ healthChecks, healthIntervalMs, healthFreezeHeld: values['health-freeze-held'] },
        auth: authOf(values),
        // The log is the kernel's one durable record; --data-prefix names where it lives.
        logFile: values.ledger ?? (dataPrefix ? `${dataPrefix}.ledger.jsonl` : undefined),
        postgres,
        signingKeyFile: values['signing-key'],
        windowsFile: values.windows,
        notify: {
            urls: values.notify ?? [],
            secretFile: values['notify-secret-file'],
            file: values['notify-file'],
        },
        exitWithPid: Number(values['exit-with-pid']),
        quiet: values.quiet,
        logFormat: (0,log_format_flag/* logFormatOf */.r)(values['log-format'], env),
        warnings,
    };
}
/** Only the credential flags, for kernelAuth() at start. */
const authOf = (values) => ({
    'oidc-issuer': values['oidc-issuer'],
    'oidc-audience': values['oidc-audience'],
    'oidc-issuers': values['oidc-issuers'],
    'oidc-did-host': values['oidc-did-host'],
    policy: values.policy,
    keys: values.keys,
});
/** Digits only, from `min` to `max`, else refused naming the flag and `form`. */
function wholeNumber(raw, flag, min, max, form) {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max)
        throw new cli_options/* UsageError */.eb(`Invalid ${flag} '${raw}'. Expected ${form}.`);
    return n;
}
/** A period in milliseconds, from 100 ms to an hour (--ttl-ms, --health-interval-ms). */
const milliseconds = (raw, flag) => wholeNumber(raw, flag, 100, 3_600_000, 'milliseconds from 100 to 3600000');
/**
 * `--approver-oidc PATTERN` (repeatable): OIDC identities that may approve a break-glass, a
 * glob over the verified token's `sub` (`repo:acme/ops:environment:break-glass`), so a
 * reviewer-protected workflow can be the second approver. Tokens are verified as every
 * token is, which needs --oidc-audience; the admin key opens what they approve.
 */
function approverOidcOf(patterns, audience, env) {
    if (!patterns.length)
        return undefined;
    if (audience === undefined)
        throw new cli_options/* UsageError */.eb("--approver-oidc needs --oidc-audience AUD (and --policy FILE): the kernel verifies the approvers' tokens as it verifies the jobs'.");
    if (!env.LEASE_GATE_ADMIN_KEY)
        throw new cli_options/* UsageError */.eb('--approver-oidc approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.');
    for (const pattern of patterns) {
        // A pattern names its owner outright (no glob there), so '*', 'repo:*' or '?*' cannot
        // make every repository that can mint a token for the audience an approver.
        if (!/^[\x21-\x7e]{1,256}$/.test(pattern) || !/^repo:[A-Za-z0-9][A-Za-z0-9-]*\//.test(pattern))
            throw new cli_options/* UsageError */.eb(`Invalid --approver-oidc '${pattern.slice(0, 80)}'. Expected a glob over a token's sub that starts with repo:OWNER/, such as repo:acme/ops:environment:break-glass (printable, no spaces).`);
    }
    return [...patterns];
}
/** `--health-check RESOURCE=URL`, repeated; one check per resource. */
function parseHealthChecks(specs) {
    const checks = [];
    for (const spec of specs) {
        let check;
        try {
            check = parseHealthCheck(spec);
        }
        catch (error) {
            if (error instanceof HealthCheckError)
                throw new cli_options/* UsageError */.eb(error.message, { cause: error });
            throw error;
        }
        if (checks.some((c) => c.resource === check.resource))
            throw new cli_options/* UsageError */.eb(`--health-check names ${check.resource} twice: one check per resource.`);
        checks.push(check);
    }
    return checks;
}
/** `--lock-delay-ms`: 0 (none) up to a lease lifetime; one renewal interval plus grace by default. */
function parseLockDelay(raw, ttlMs) {
    if (raw === undefined)
        return (0,core/* defaultLockDelayMs */.m_)(ttlMs);
    const ms = Number(raw);
    if (!/^\d{1,10}$/.test(raw) || ms > ttlMs) {
        throw new cli_options/* UsageError */.eb(`Invalid --lock-delay-ms '${raw}'. Expected milliseconds from 0 to the lease lifetime (--ttl-ms, ${ttlMs}).`);
    }
    return ms;
}
/**
 * --data-prefix PATH: the kernel's log is PATH.ledger.jsonl. It was called --state, a
 * name for a file that holds no state; that name still works and says so once.
 */
function dataPrefixFrom(values, warnings) {
    if (values.state === undefined)
        return values['data-prefix'];
    if (values['data-prefix'] !== undefined)
        throw new cli_options/* UsageError */.eb('Give --data-prefix only: --state is its old name.');
    warnings.push(`lease-gate kernel: --state is now --data-prefix (the log is ${values.state}.ledger.jsonl); the old name will go in a later major release.`);
    return values.state;
}

// EXTERNAL MODULE: ./src/ledger/ledger.ts + 1 modules
var ledger_ledger = __webpack_require__(7781);
// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
;// CONCATENATED MODULE: ./src/kernel/http/api.ts


/** A user's mistake or a refusal: answered with `{ ok: false, reason, message }`. */
class ApiRefusal extends errors/* LeaseGateError */.eg {
    name = 'ApiRefusal';
    status;
    /** The answer's `reason` (`bad_request`, `not_found`, \u2026): the wire's word for the kind. */
    reason;
    constructor(message, options) {
        super(message, { ...(0,errors/* causeOf */.rl)(options.cause), code: 'api_refusal' });
        this.status = options.status;
        this.reason = options.reason;
    }
}
function parse(schema, body) {
    const result = schema.safeParse(body);
    if (result.success)
        return result.data;
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    throw new ApiRefusal(`${field}: ${issue?.message ?? 'invalid'}`, {
        status: 400,
        reason: 'bad_request',
    });
}

;// CONCATENATED MODULE: ./src/kernel/http/admin.ts
/**
 * The operator's credentials, checked in one place: the Bearer comparison, the admin key
 * every lever (revoke, freeze, unfreeze, break-glass) needs, the second approver's key or
 * OIDC identity, and who may read why the kernel is not ready. Every route takes its check
 * from here, so a lever cannot drift to a check of its own.
 */




/** Routes that take the admin key instead of the kernel's key. */
const ADMIN_PATHS = new Set([
    schema/* REVOKE_PATH */.DQ,
    schema/* FREEZE_PATH */.s1,
    schema/* UNFREEZE_PATH */.NU,
    schema/* BREAK_GLASS_PATH */.nw,
    schema/* APPROVE_BREAK_GLASS_PATH */.ds,
    schema/* WITHDRAW_BREAK_GLASS_PATH */.Wv,
]);
const ANY_LEVER = { doing: 'This', disabled: 'admin_disabled' };
function operatorChecks(keys, auth) {
    const { adminKey } = keys;
    return {
        requireAdmin: (req, lever = ANY_LEVER) => requireAdmin(req, adminKey, lever),
        requireApprover: approverCheck(keys.approverKey, keys.approverOidc, auth),
        /**
         * `/readyz` answers anyone (a load balancer, a probe by address), but why it
         * is not ready (the store's error) and the notifier's failures (URLs' origins,
         * resource names) only the operator: the admin key or the kernel's shared key
         * (or anyone, on a keyless kernel). Not a scoped key or an OIDC token: any
         * repository's run gets a token that verifies, whether or not the policy lets
         * it lease anything.
         */
        mayReadHealth: async (req) => {
            if (adminKey && bearerMatches(req.headers.authorization, adminKey))
                return true;
            // Any failure to name the caller (a refused token, an issuer not reached) tells no more.
            return auth.authorize(req.headers).then((principal) => principal.kind === 'shared-key' || principal.kind === 'open', () => false);
        },
    };
}
/** The operator's levers need the admin key; they are off without one. */
function requireAdmin(req, adminKey, lever) {
    if (!adminKey) {
        throw new ApiRefusal(`${lever.doing} needs the kernel to be started with LEASE_GATE_ADMIN_KEY.`, {
            status: 403,
            reason: lever.disabled,
        });
    }
    if (!bearerMatches(req.headers.authorization, adminKey)) {
        throw new ApiRefusal(`${lever.doing} needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.`, { status: 403, reason: 'forbidden' });
    }
}
/**
 * The second operator's approval needs its own credential, so the admin key alone cannot do
 * both halves: the approver key, or an OIDC token (verified as every token is) whose `sub`
 * matches `--approver-oidc`; then the token, not the body, names the approver.
 */
function approverCheck(approverKey, patterns, auth) {
    if (approverKey === undefined && !patterns?.length)
        return undefined;
    const matches = patterns?.length ? anyOf(patterns) : undefined;
    const needs = [
        ...(approverKey !== undefined ? ['the approver key (LEASE_GATE_APPROVER_KEY)'] : []),
        ...(patterns?.length ? [`an OIDC token whose sub matches ${patterns.join(' or ')}`] : []),
    ].join(' or ');
    return async (req) => {
        const header = req.headers.authorization;
        if (approverKey !== undefined && bearerMatches(header, approverKey))
            return { kind: 'key' };
        const bearer = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
        if (matches && admin_JWT_SHAPE.test(bearer)) {
            // A bad, expired or foreign token is refused 401 here, as on every other route.
            const principal = await auth.authorize(req.headers);
            if (principal.kind === 'oidc') {
                // Approvers are GitHub runs only: the pass they approve is keyed by a repository's
                // runs (repoPrefixOf), which other CIs' DIDs do not have (docs/ci-issuers.md).
                if (principal.issuer.kind !== 'github') {
                    throw new ApiRefusal(`A ${principal.issuer.kind} job's token (issuer ${principal.issuer.name}) may not approve a break-glass: OIDC approvers are GitHub Actions runs; approving needs ${needs} as the Bearer token.`, { status: 403, reason: 'forbidden' });
                }
                const sub = principal.claims.sub;
                const printable = typeof sub === 'string' && SUB_PATTERN.test(sub);
                if (printable && matches(sub))
                    return {
                        kind: 'oidc',
                        by: `oidc:${sub}`,
                        repoPrefix: repoPrefixOf(principal.run.didPrefix),
                        // The run's attempt, which approves one pass: its DID prefix without the last colon.
                        approval: principal.run.didPrefix.slice(0, -1),
                    };
                // Only a printable sub is quoted back: the message reaches terminals and logs.
                const whose = printable ? `This token's sub (${sub})` : 'A token without a printable sub';
                throw new ApiRefusal(`${whose} may not approve a break-glass: approving needs ${needs} as the Bearer token.`, { status: 403, reason: 'forbidden' });
            }
        }
        throw new ApiRefusal(`Approving a break-glass needs ${needs} as the Bearer token.`, {
            status: 403,
            reason: 'forbidden',
        });
    };
}
/**
 * `did:web:<host>:<owner>:<repo>:` from a run's DID prefix: every run and attempt of the
 * repository shares it, so a re-run cannot approve the pass its first attempt was given.
 */
function repoPrefixOf(didPrefix) {
    return didPrefix.slice(0, didPrefix.indexOf(':actions:runs:') + 1);
}
/** Three base64url parts: what a JWS in compact form looks like. */
const admin_JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;
/** A `sub` the ledger may name: printable, bounded (GitHub's are `repo:OWNER/REPO:\u2026`). */
const SUB_PATTERN = /^[\x21-\x7e]{1,256}$/;
const admin_digest = (value) => (0,external_node_crypto_.createHash)('sha256').update(value).digest();
/** Compares in constant time (over digests, so lengths do not leak either). */
function bearerMatches(header, key) {
    const value = header ?? '';
    const token = value.startsWith('Bearer ') ? value.slice(7) : '';
    return (0,external_node_crypto_.timingSafeEqual)(admin_digest(token), admin_digest(key)) && token.length > 0;
}

// EXTERNAL MODULE: ./src/plane/run-pass.ts
var run_pass = __webpack_require__(4941);
// EXTERNAL MODULE: ./src/control-chars.ts
var control_chars = __webpack_require__(2170);
;// CONCATENATED MODULE: ./src/kernel/http/freeze-routes.ts





/** The longest freeze one command may name: a year (longer is a typo; unfreeze ends any). */
const MAX_FREEZE_MS = 366 * 86_400_000;
/** Who the ledger names for a freeze made with the admin key. */
const ADMIN_OPERATOR = 'operator:admin-key';
/** The operator's name (freeze, unfreeze and revoke bodies): one schema for the shape. */
const operatorBy = schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _regex */.Fk(schema/* OPERATOR_NAME_PATTERN */.g9, `expected ${schema/* OPERATOR_NAME_FORM */.qS}`)));
/**
 * An operator's reason (freeze, break-glass, revoke): text of one line. The ledger signs
 * it for good and terminals, the console and notifications show it, so a control
 * character (NUL, ESC, a line break) is refused, as in the plane's other texts.
 */
const reasonText = (max = 1_000) => schemas/* string */.YjP()
    .check(api/* _maxLength */.Eb(max), api/* _regex */.Fk((0,control_chars/* controlFree */.UH)(), 'expected text without control characters'));
/** A reason that must be given. */
const reasonGiven = reasonText().check(api/* _minLength */.m9(1, 'expected a reason'));
/** Who the ledger names: the operator's own name when it gave one. */
const operatorOf = (name) => name ? `operator:${name}` : ADMIN_OPERATOR;
const freezeBody = schemas/* object */.Ikc({
    resource: schema/* resourceSchema */.C5,
    reason: reasonGiven,
    /** The end, as epoch milliseconds. */
    untilMs: schemas/* optional */.lqM(schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC())),
    /** Or the length, from now. */
    forMs: schemas/* optional */.lqM(schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC(), api/* _lte */.Zm(MAX_FREEZE_MS))),
    by: operatorBy,
})
    .check(schemas/* refine */.YPB((b) => b.untilMs === undefined || b.forMs === undefined, {
    error: 'give untilMs or forMs, not both',
    path: ['untilMs'],
}));
const unfreezeBody = schemas/* object */.Ikc({ resource: schema/* resourceSchema */.C5, by: operatorBy });
/** POST freeze and unfreeze, with the admin key (`requireAdmin` throws without it). */
function freezeRoutes(service, requireAdmin) {
    return {
        [`POST ${schema/* FREEZE_PATH */.s1}`]: async (req) => {
            requireAdmin(req);
            const body = parse(freezeBody, await req.json());
            const now = service.now();
            const untilMs = body.forMs !== undefined ? now + body.forMs : (body.untilMs ?? null);
            if (untilMs !== null && (untilMs <= now || untilMs > now + MAX_FREEZE_MS)) {
                throw new ApiRefusal(`untilMs: expected a time after now (${new Date(now).toISOString()}) and within a year`, { status: 400, reason: 'bad_request' });
            }
            const reply = await service.freeze(body.resource, body.reason, untilMs, operatorOf(body.by));
            return {
                status: 200,
                body: { ok: true, frozen: true, until: untilMs, changed: reply.changed },
            };
        },
        [`POST ${schema/* UNFREEZE_PATH */.NU}`]: async (req) => {
            requireAdmin(req);
            const { resource: r, by: name } = parse(unfreezeBody, await req.json());
            const reply = await service.unfreeze(r, operatorOf(name));
            return { status: 200, body: { ok: true, frozen: false, changed: reply.changed } };
        },
    };
}

// EXTERNAL MODULE: ./src/kernel/rules/break-glass.ts
var break_glass = __webpack_require__(9047);
;// CONCATENATED MODULE: ./src/kernel/http/break-glass-routes.ts







/** The pass's agent, or a GitHub run (`run`: OWNER/REPO/RUN_ID, plane/run-pass.ts) for any job of it. */
const run = schemas/* string */.YjP().check(schemas/* refine */.YPB((v) => (0,run_pass/* runPassDid */.Ss)(v) !== undefined, `expected ${run_pass/* RUN_FORM */.n7}`));
const breakGlassBody = schemas/* object */.Ikc({
    resource: schema/* resourceSchema */.C5,
    actorDid: schemas/* optional */.lqM(schema/* didSchema */.te),
    run: schemas/* optional */.lqM(run),
    reason: reasonGiven,
    /** How long the pass stays open, from now. */
    forMs: schemas/* optional */.lqM(schemas/* number */.aig()
        .check(schemas/* int */.Whr(), api/* _positive */.NC(), api/* _lte */.Zm(break_glass/* MAX_BREAK_GLASS_MS */.f_, `expected at most ${break_glass/* MAX_BREAK_GLASS_MS */.f_} (one hour)`))),
    by: operatorBy,
});
const approveBody = schemas/* object */.Ikc({
    resource: schema/* resourceSchema */.C5,
    actorDid: schemas/* optional */.lqM(schema/* didSchema */.te),
    run: schemas/* optional */.lqM(run),
    by: operatorBy,
});
/** A cancel: the pass on `resource`, only if it is for `actorDid` (or `run`) when that is given. */
const withdrawBody = schemas/* object */.Ikc({
    resource: schema/* resourceSchema */.C5,
    actorDid: schemas/* optional */.lqM(schema/* didSchema */.te),
    run: schemas/* optional */.lqM(run),
    by: operatorBy,
});
function passDid(body, optional = false) {
    if (body.actorDid !== undefined && body.run !== undefined) {
        throw new ApiRefusal('actorDid or run: expected one of them, not both', {
            status: 400,
            reason: 'bad_request',
        });
    }
    if (body.run !== undefined)
        return (0,run_pass/* runPassDid */.Ss)(body.run);
    if (body.actorDid === undefined && !optional) {
        throw new ApiRefusal(`actorDid: expected ${schema/* DID_FORM */.PN} (or run: ${run_pass/* RUN_FORM */.n7})`, {
            status: 400,
            reason: 'bad_request',
        });
    }
    return body.actorDid;
}
/**
 * POST break-glass (the admin key) and its approval (the approver key or an approver OIDC
 * identity, when the kernel has one: then a break-glass waits for it). Approving with the
 * admin key would let one key do both halves, so it is refused; so is a job approving its
 * own repository's pass with a run's token.
 */
function breakGlassRoutes(service, requireAdmin, requireApprover) {
    return {
        [`POST ${schema/* BREAK_GLASS_PATH */.nw}`]: async (req) => {
            requireAdmin(req);
            const body = parse(breakGlassBody, await req.json());
            const actorDid = passDid(body);
            const untilMs = service.now() + (body.forMs ?? break_glass/* DEFAULT_BREAK_GLASS_MS */.k6);
            const reply = await service.breakGlass(body.resource, {
                actorDid,
                reason: body.reason,
                untilMs,
                by: operatorOf(body.by),
                needsApproval: requireApprover !== undefined,
            });
            return answer(reply);
        },
        [`POST ${schema/* APPROVE_BREAK_GLASS_PATH */.ds}`]: async (req) => {
            if (!requireApprover) {
                throw new ApiRefusal('This kernel has no second approver (LEASE_GATE_APPROVER_KEY or --approver-oidc): a break-glass is open as soon as it is made.', { status: 409, reason: 'no_approver' });
            }
            const approver = await requireApprover(req);
            const parsed = parse(approveBody, await req.json());
            const body = { ...parsed, actorDid: passDid(parsed) };
            if (approver.kind === 'oidc') {
                if (body.by) {
                    throw new ApiRefusal(`by: an OIDC approver is named by its token (${approver.by}): leave by out`, { status: 400, reason: 'bad_request' });
                }
                // Any run of the pass's own repository is refused, not only the same run: a re-run or
                // a second workflow there is the same team letting itself through. GitHub names are
                // case-insensitive, so the comparison is too.
                if (body.actorDid.toLowerCase().startsWith(approver.repoPrefix.toLowerCase())) {
                    throw new ApiRefusal(`${approver.by} is a run of the repository the break-glass lets through (${body.actorDid}): an identity from elsewhere must approve it`, { status: 409, reason: 'same_operator' });
                }
                return answer(await service.approveBreakGlass(body.resource, body.actorDid, approver.by, approver.approval));
            }
            if (!body.by) {
                throw new ApiRefusal(`by: expected the approver's name, so the ledger names who approved`, {
                    status: 400,
                    reason: 'bad_request',
                });
            }
            return answer(await service.approveBreakGlass(body.resource, body.actorDid, operatorOf(body.by)));
        },
        [`POST ${schema/* WITHDRAW_BREAK_GLASS_PATH */.Wv}`]: async (req) => {
            requireAdmin(req);
            const body = parse(withdrawBody, await req.json());
            const reply = await service.withdrawBreakGlass(body.resource, operatorOf(body.by), passDid(body, true));
            if (!reply.ok)
                return { status: 409, body: reply };
            return withdrawn(reply.withdrawn);
        },
    };
}
/** A withdrawal's answer: the pass that is gone. */
function withdrawn(pass) {
    const { body } = answer({ ok: true, breakGlass: pass });
    return { status: 200, body: { ...body, withdrawn: true } };
}
function answer(reply) {
    if (!reply.ok)
        return { status: 409, body: reply };
    const { actorDid: a, reason, by, untilMs, pending, approvedBy, approval } = reply.breakGlass;
    return {
        status: 200,
        body: {
            ok: true,
            actorDid: a,
            reason,
            by,
            until: untilMs,
            pending,
            ...(approvedBy !== undefined ? { approvedBy } : {}),
            ...(approval !== undefined ? { approval } : {}),
        },
    };
}

;// CONCATENATED MODULE: ./src/kernel/auth/caller.ts
/**
 * Whose GitHub compare budget a lease's descendant check spends (github/compare-budget.ts):
 * what the credential says of its bearer. An OIDC token: its repository (any workflow or
 * pull request of it can start runs, so they share one budget). A scoped key: its name. The
 * shared key, or none: the DID asked for, since everyone with the key may be anyone; the
 * kernel's own budget bounds them all together.
 */
function compareCaller(principal, actorDid) {
    if (principal.kind === 'oidc') {
        const { run } = principal;
        // A job mapped to no repository: its own issuer's job, keyed by its DID prefix.
        return run.repository ? `the repository ${run.repository}` : run.described;
    }
    if (principal.kind === 'scoped-key')
        return `key "${principal.key.name}"`;
    return actorDid;
}

;// CONCATENATED MODULE: ./src/kernel/service/holding.ts
/**
 * What held lease requests (held.ts) and watches (watch.ts) share: both keep a request open
 * until something changes or its wait runs out, within the same caps, on the same timers, and
 * both answer every held request at once when the kernel stops. One base, so the caps and the
 * stopping rule cannot drift apart between the two.
 */
/**
 * The longest a request is held, whatever it prefers: below the 30 s that
 * many clients and proxies give one request, so a held answer is not cut off.
 */
const MAX_HELD_WAIT_S = 25;
/** Past this many requests held at once, a request that prefers to wait is answered at once. */
const MAX_HELD_REQUESTS = 1_000;
const realTimers = {
    set: (run, ms) => setTimeout(run, ms),
    clear: (handle) => clearTimeout(handle),
};
class HeldCalls {
    service;
    maxWaitS;
    maxHeld;
    timers;
    count = 0;
    closing = false;
    /** The subclass's subscription to the service's changes, ended by `close`. */
    unsubscribe = () => undefined;
    constructor(service, options = {}) {
        this.service = service;
        this.maxWaitS = options.maxWaitS ?? MAX_HELD_WAIT_S;
        this.maxHeld = options.maxHeld ?? MAX_HELD_REQUESTS;
        this.timers = options.timers ?? realTimers;
    }
    /** True once `close` was called: answers should close their connections. */
    get stopping() {
        return this.closing;
    }
    /** How many requests are held (or admitted to be) right now. */
    get size() {
        return this.count;
    }
    /** Answers every held request at once (the kernel is stopping). */
    close() {
        this.closing = true;
        this.unsubscribe();
        this.answerAll();
    }
    /**
     * Whether a request preferring to wait `preferredS` seconds may be held: it asked for
     * a second or more, there is room under the cap, and the kernel is not stopping.
     */
    mayHold(preferredS) {
        return Boolean(preferredS && preferredS >= 1 && this.count < this.maxHeld && !this.closing);
    }
    /** The wait applied to a held request: what it prefers, within the cap. */
    appliedWait(preferredS) {
        return Math.min(preferredS, this.maxWaitS);
    }
}

;// CONCATENATED MODULE: ./src/kernel/service/held.ts

// The caps and timers are holding.ts's (shared with watches); held requests' callers name them here.

/**
 * `wait=N` from RFC 7240 `Prefer` header(s) (node joins repeated ones with
 * ", "); the first `wait` counts. Undefined when absent or not delta-seconds:
 * a preference the server does not understand is ignored, never an error.
 */
function preferredWait(header) {
    if (!header)
        return undefined;
    for (const preference of header.split(',')) {
        const [token = '', ...rest] = (preference.split(';')[0] ?? '').split('=');
        if (token.trim().toLowerCase() !== 'wait')
            continue;
        const value = rest
            .join('=')
            .trim()
            .replace(/^"(.*)"$/, '$1');
        return /^\d{1,10}$/.test(value) ? Number(value) : undefined;
    }
    return undefined;
}
/**
 * Lease requests held open until they can be granted (blocking acquire).
 * A held request is an ordinary waiter in the rules' queue: it asked once and
 * was refused, so it has its place, and the rules keep a freed resource for
 * the head of the queue. A frozen resource's waiters are held too: they keep
 * their place through the freeze, and its end wakes them. It asks again, in-process,
 * when the service says the resource changed (release, lapse, revoke, unfreeze, from
 * any store) and whenever its
 * told wait runs out, which keeps its place from lapsing while it is held.
 * Its answer is the service's, so a grant is answered only once it is durable.
 */
class HeldRequests extends HeldCalls {
    byResource = new Map();
    /**
     * Wake-ups per resource while first asks on it are out: one that comes after
     * the ask decided and before its hold is registered makes the hold ask again
     * at once, rather than at its told wait.
     */
    asking = new Map();
    constructor(service, options = {}) {
        super(service, options);
        this.unsubscribe = service.onResourceChanged((resource) => this.wake(resource));
    }
    /**
     * Asks for the lease; with a preferred wait of N \u2265 1 seconds (and room),
     * holds the request until it is granted, refused for good, or min(N, cap)
     * seconds pass, then answers with the last reply.
     */
    async lease(resource, actorDid, preferredS, signal, extensions = {}) {
        if (!this.mayHold(preferredS)) {
            return { reply: await this.firstAsk(resource, actorDid, extensions) };
        }
        const appliedWaitS = this.appliedWait(preferredS);
        this.count += 1;
        try {
            const deadline = this.service.now() + appliedWaitS * 1_000;
            // Before the first ask: another replica's release after it wakes this request.
            await this.service.listen(resource);
            const asking = this.asking.get(resource) ?? { asks: 0, wakes: 0 };
            this.asking.set(resource, asking);
            asking.asks += 1;
            const wakes = asking.wakes;
            let holding;
            try {
                const reply = await this.firstAsk(resource, actorDid, extensions);
                if (!mayWait(reply))
                    return { reply, appliedWaitS };
                if (signal.aborted) {
                    await this.service.leave(resource, actorDid);
                    return { reply, appliedWaitS };
                }
                // Registered before this returns, so from here on a wake reaches the hold itself.
                const woken = asking.wakes !== wakes;
                holding = this.hold(resource, actorDid, reply, deadline, signal, extensions, woken);
            }
            finally {
                asking.asks -= 1;
                if (asking.asks === 0)
                    this.asking.delete(resource);
            }
            return { reply: await holding, appliedWaitS };
        }
        finally {
            this.count -= 1;
        }
    }
    /** Every held request asks afresh and answers with that (the kernel is stopping). */
    answerAll() {
        for (const holds of this.byResource.values())
            for (const hold of holds)
                hold.wake();
    }
    hold(resource, actorDid, first, deadline, signal, extensions, 
    /** A wake came while the first ask was out: ask again at once. */
    woken) {
        return new Promise((resolve, reject) => {
            let last = first;
            let timer;
            let asking = false;
            let again = false;
            let done = false;
            const finish = (settle) => {
                if (done)
                    return;
                done = true;
                this.timers.clear(timer);
                signal.removeEventListener('abort', gone);
                const holds = this.byResource.get(resource);
                holds?.delete(hold);
                if (holds?.size === 0)
                    this.byResource.delete(resource);
                settle();
            };
            const arm = (reply) => {
                const left = deadline - this.service.now();
                timer = this.timers.set(ask, Math.max(0, Math.min(reply.stampede.waitMs, left)));
            };
            const ask = () => {
                if (done)
                    return;
                if (asking) {
                    again = true;
                    return;
                }
                asking = true;
                this.timers.clear(timer);
                this.service.lease(resource, actorDid, extensions).then((reply) => {
                    asking = false;
                    last = reply;
                    if (done)
                        return;
                    const over = this.closing || this.service.now() >= deadline;
                    if (!mayWait(reply) || over)
                        return finish(() => resolve(reply));
                    if (again) {
                        again = false;
                        return ask();
                    }
                    arm(reply);
                }, (error) => {
                    asking = false;
                    finish(() => reject(error instanceof Error ? error : new Error(String(error))));
                });
            };
            const gone = () => finish(() => {
                resolve(last);
                // Its place goes to the next in line at once; a failed leave lapses with the place.
                this.service.leave(resource, actorDid).catch(() => undefined);
            });
            const hold = { wake: ask };
            let holds = this.byResource.get(resource);
            if (!holds)
                this.byResource.set(resource, (holds = new Set()));
            holds.add(hold);
            signal.addEventListener('abort', gone, { once: true });
            if (woken)
                ask();
            else
                arm(first);
        });
    }
    /**
     * A run that names its lane may have superseded waiters held here or on
     * another replica (deploy-order.ts), which no durable event announces: they
     * ask again now. Only a first ask wakes them, so their asks wake nobody.
     */
    async firstAsk(resource, actorDid, extensions) {
        const reply = await this.service.lease(resource, actorDid, extensions);
        if (extensions.deploy?.runNumber !== undefined) {
            // Its own wake: with replicas it comes back through the change feed, and this
            // request's hold then asks once more at once (a wake is never told by whom).
            if (this.service.wakeEverywhere)
                await this.service.wakeEverywhere(resource);
            else
                this.wakeHolds(resource);
        }
        return reply;
    }
    /** The resource may be free: its held requests ask again, and so do those whose first ask is out, once held. */
    wake(resource) {
        const asking = this.asking.get(resource);
        if (asking)
            asking.wakes += 1;
        this.wakeHolds(resource);
    }
    /** Every request held on this resource asks again, in arrival order. */
    wakeHolds(resource) {
        const holds = this.byResource.get(resource);
        if (holds)
            for (const hold of [...holds])
                hold.wake();
    }
}
const mayWait = (reply) => !reply.ok && (reply.reason === 'lease_held' || reply.reason === 'frozen');

;// CONCATENATED MODULE: ./src/kernel/service/lease-extensions.ts


/**
 * The extension fields of a lease body (plane/deploy.ts), validated and
 * bounded: `{ error }` names the first bad field (answered 400); a body
 * without them costs one property lookup each.
 */
function leaseExtensions(body) {
    const { deploy, queue } = (body ?? {});
    if (deploy === undefined && queue === undefined)
        return {};
    const parsed = plane_deploy/* leaseExtensionSchema */.D5.safeParse({ deploy, queue });
    if (!parsed.success)
        return { error: (0,schema/* describeIssues */.wF)(parsed.error) };
    const out = {};
    const clean = parsed.data.deploy && (0,plane_deploy/* cleanDeploy */.ZE)(parsed.data.deploy);
    if (clean)
        out.deploy = clean;
    if (parsed.data.queue)
        out.queue = parsed.data.queue;
    return out;
}
/** The release body's one extension: `outdated: true` (the holder did not deploy). */
function releaseOutdated(body) {
    const { outdated } = (body ?? {});
    if (outdated === undefined || outdated === false)
        return false;
    if (outdated === true)
        return true;
    return { error: 'outdated: expected true or false' };
}

;// CONCATENATED MODULE: ./src/kernel/http/lease-routes.ts
/**
 * The lease's own routes: take one (held with `Prefer: wait=N`), watch it, give it back, read
 * it, and the operator's revoke. Bodies are checked here; the service and the rules decide.
 */








const leaseBody = schemas/* object */.Ikc({ resource: schema/* resourceSchema */.C5, actorDid: schema/* didSchema */.te });
const watchBody = schemas/* object */.Ikc({
    resource: schema/* resourceSchema */.C5,
    actorDid: schema/* didSchema */.te,
    leaseId: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(256)),
});
const revokeBody = schemas/* object */.Ikc({
    resource: schema/* resourceSchema */.C5,
    reason: schemas/* _default */.Rvf(reasonText(), 'revoked by an operator'),
    by: operatorBy,
});
const NEVER_ABORTED = new AbortController().signal;
const REVOKING = { doing: 'Revoking', disabled: 'revoke_disabled' };
const ok = (body, status = 200) => ({ status, body });
/**
 * The lease and release body: a well-formed one is taken as it is (the hot
 * path); anything else goes through the schema, which names what is wrong.
 */
function leaseOf(body) {
    if (typeof body === 'object' && body !== null) {
        const { resource: r, actorDid: a } = body;
        if (typeof r === 'string' && typeof a === 'string' && schema/* RESOURCE_PATTERN */.iY.test(r) && (0,schema/* isDid */.Cn)(a))
            return { resource: r, actorDid: a };
    }
    return parse(leaseBody, body);
}
/** POST lease, watch, release and revoke; GET lease. */
function leaseRoutes(deps) {
    const { service, auth, held, watches, requireAdmin } = deps;
    return {
        [`POST ${schema/* LEASE_PATH */.B0}`]: leaseRoute(deps),
        [`POST ${schema/* WATCH_PATH */.Oh}`]: async (req, principal) => {
            const { resource: r, actorDid: a, leaseId } = parse(watchBody, await req.json());
            auth.mayActAs(principal, { action: 'watch', resource: r, actorDid: a });
            const wait = preferredWait(req.headers.prefer);
            const signal = wait ? req.signal : NEVER_ABORTED;
            const answer = watchReply(await watches.watch(r, a, leaseId, wait, signal));
            if (held.stopping)
                answer.headers = { ...answer.headers, connection: 'close' };
            return answer;
        },
        [`POST ${schema/* RELEASE_PATH */.Sq}`]: async (req, principal) => {
            const body = await req.json();
            const { resource: r, actorDid: a } = leaseOf(body);
            auth.mayActAs(principal, { action: 'release', resource: r, actorDid: a });
            const outdated = releaseOutdated(body);
            if (typeof outdated !== 'boolean')
                throw new ApiRefusal(outdated.error, { status: 400, reason: 'bad_request' });
            return ok(await service.release(r, a, outdated));
        },
        [`POST ${schema/* REVOKE_PATH */.DQ}`]: async (req) => {
            requireAdmin(req, REVOKING);
            const { resource: r, reason, by } = parse(revokeBody, await req.json());
            // Only a named operator is recorded: an unnamed revoke's entry stays as it always was.
            const { lease } = await service.revoke(r, reason, by ? operatorOf(by) : undefined);
            return ok({
                ok: true,
                revoked: lease !== null,
                leaseId: lease?.id ?? null,
                holder: lease?.holder ?? null,
            });
        },
        [`GET ${schema/* LEASE_PATH */.B0}`]: async (req) => {
            const r = req.query.get('resource') ?? '';
            parse(schemas/* object */.Ikc({ resource: schema/* resourceSchema */.C5 }), { resource: r });
            const { lease, frozen } = await service.statusOf(r);
            return ok({
                ok: true,
                lease: lease && publicLease(lease, undefined),
                // A frozen resource is not free: say who froze it, why and until when.
                ...(frozen
                    ? { frozen: { by: frozen.by, reason: frozen.reason, until: frozen.untilMs } }
                    : {}),
            });
        },
    };
}
/** POST lease: checked against the caller's identity and the promotion order, then asked (held). */
function leaseRoute({ service, auth, held, promotions }) {
    return async (req, principal) => {
        const body = await req.json();
        const { resource: r, actorDid: a } = leaseOf(body);
        auth.mayActAs(principal, { action: 'lease', resource: r, actorDid: a });
        const extensions = leaseExtensions(body);
        if ('error' in extensions)
            throw new ApiRefusal(extensions.error, { status: 400, reason: 'bad_request' });
        // A token's run says what it deploys: a field it does not vouch for is refused here.
        const deploy = auth.deployOf(principal, extensions.deploy, promotions?.ordered(r));
        if (deploy)
            extensions.deploy = deploy;
        else
            delete extensions.deploy;
        const promotion = await promotions?.check(r, deploy, compareCaller(principal, a));
        if (promotion?.unpromoted !== undefined)
            extensions.unpromoted = promotion.unpromoted;
        if (promotion?.promotedVia !== undefined)
            extensions.promotedVia = promotion.promotedVia;
        if (principal.kind === 'oidc')
            extensions.issuer = principal.issuer.url;
        const wait = preferredWait(req.headers.prefer);
        // Only a held request listens for its client going away.
        const signal = wait ? req.signal : NEVER_ABORTED;
        const { reply, appliedWaitS } = await held.lease(r, a, wait, signal, extensions);
        const answer = reply.ok
            ? ok({
                ok: true,
                lease: publicLease(reply.lease, service.ttlMs),
                renewed: reply.renewed,
                ...(reply.previous ? { previous: reply.previous } : {}),
            })
            : ok(reply, 409);
        if (appliedWaitS !== undefined) {
            answer.headers = { 'preference-applied': `wait=${appliedWaitS}` };
            // Answered because the kernel is stopping: do not keep the connection for another.
            if (held.stopping)
                answer.headers.connection = 'close';
        }
        return answer;
    };
}
/** A watch's answer on the wire: still held, or how and when it ended. */
function watchReply(answer) {
    if (answer.kind === 'not-yours') {
        throw new ApiRefusal('Only the holder may watch a lease: actorDid must be the DID the lease was granted to.', { status: 403, reason: 'not_your_lease' });
    }
    const headers = answer.appliedWaitS === undefined
        ? undefined
        : { 'preference-applied': `wait=${answer.appliedWaitS}` };
    const body = answer.kind === 'held'
        ? { ok: true, ended: false, lease: publicLease(answer.lease, undefined) }
        : {
            ok: true,
            ended: true,
            reason: answer.end?.reason ?? 'unknown',
            ...(answer.end ? { leaseId: answer.end.leaseId, endedAtMs: answer.end.endedAtMs } : {}),
            ...(answer.end?.message === undefined ? {} : { message: answer.end.message }),
            ...(answer.end?.by === undefined ? {} : { by: answer.end.by }),
            ...(answer.holder === undefined ? {} : { holder: answer.holder }),
        };
    return { status: 200, body, ...(headers ? { headers } : {}) };
}
/**
 * The lease as answered. `ttlMs` (the kernel's extension): how long this grant or renewal
 * runs from when the kernel decided it, so a keeper paces its renewals from the time it sent
 * the request, never from its own wall clock against `expiresAtMs`.
 */
function publicLease(lease, ttlMs) {
    const { id, resource: r, holder, expiresAtMs, fence, deploy } = lease;
    return {
        id,
        resource: r,
        holder,
        expiresAtMs,
        fence,
        ...(ttlMs === undefined ? {} : { ttlMs }),
        ...(deploy ? { deploy } : {}),
    };
}

// EXTERNAL MODULE: external "node:timers/promises"
var external_node_timers_promises_ = __webpack_require__(8500);
;// CONCATENATED MODULE: ./src/kernel/http/ledger-routes.ts



const DEFAULT_PAGE = 1_000;
const MAX_PAGE = 10_000;
/** Entries built between two yields to the event loop, so renewals keep flowing. */
const SLICE = 250;
/**
 * The ledger's routes. An export is pinned to the ledger's size S when it
 * starts; every page carries the checkpoint of S and proofs against it, and a
 * cursor to the next page.
 */
function ledgerRoutes(ledger) {
    const signed = () => {
        if (!ledger.signs || !ledger.publicKey) {
            throw new ApiRefusal('This kernel runs without a signing key: it keeps its log but signs no checkpoint.', { status: 404, reason: 'no_signing_key' });
        }
        return ledger.publicKey;
    };
    return {
        [`GET ${schema/* LEDGER_PATHS */.Tc.checkpoint}`]: async () => {
            signed();
            const size = ledger.size;
            return {
                status: 200,
                body: await ledger.signedCheckpoint(size),
            };
        },
        [`GET ${schema/* LEDGER_PATHS */.Tc.publicKey}`]: () => Promise.resolve({
            status: 200,
            body: String(signed().export({ type: 'spki', format: 'pem' })),
        }),
        [`GET ${schema/* LEDGER_PATHS */.Tc.bundle}`]: (req) => {
            signed();
            const { size, from, end, limit } = pageRequest(req.query, ledger.size);
            const to = Math.min(end, from + limit);
            const next = to < end ? encodeCursor(size, to, end) : null;
            return Promise.resolve({ status: 200, body: bundlePage(ledger, size, from, to, next) });
        },
    };
}
function pageRequest(query, currentSize) {
    const limit = whole(query.get('limit'), DEFAULT_PAGE, 'limit');
    if (limit < 1 || limit > MAX_PAGE) {
        throw new ApiRefusal(`limit: expected a whole number from 1 to ${MAX_PAGE}`, {
            status: 400,
            reason: 'bad_request',
        });
    }
    const cursor = query.get('cursor');
    if (cursor !== null) {
        const decoded = decodeCursor(cursor);
        if (!decoded ||
            decoded.size > currentSize ||
            decoded.from > decoded.end ||
            decoded.end > decoded.size) {
            throw new ApiRefusal('cursor: expected the `next` value of an earlier page', {
                status: 400,
                reason: 'bad_request',
            });
        }
        return { ...decoded, limit };
    }
    const from = whole(query.get('from'), 0, 'from');
    const end = whole(query.get('to'), currentSize, 'to');
    if (from > end || end > currentSize) {
        throw new ApiRefusal(`from/to: expected 0 \u2264 from \u2264 to \u2264 ${currentSize}`, {
            status: 400,
            reason: 'bad_request',
        });
    }
    return { size: currentSize, from, end, limit };
}
function whole(value, fallback, name) {
    if (value === null)
        return fallback;
    if (!/^\d{1,15}$/.test(value))
        throw new ApiRefusal(`${name}: expected a whole number`, {
            status: 400,
            reason: 'bad_request',
        });
    return Number(value);
}
const encodeCursor = (size, from, end) => Buffer.from(`v1.${size}.${from}.${end}`, 'utf8').toString('base64url');
function decodeCursor(cursor) {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor))
        return undefined;
    const match = /^v1\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!match)
        return undefined;
    return { size: Number(match[1]), from: Number(match[2]), end: Number(match[3]) };
}
/** The page as JSON pieces, yielding to the event loop between slices. */
async function* bundlePage(ledger, size, from, to, next) {
    const checkpoint = await ledger.signedCheckpoint(size);
    yield `{"checkpoint":${JSON.stringify(checkpoint)},"entries":[`;
    for (let start = from; start < to; start += SLICE) {
        if (start > from)
            await (0,external_node_timers_promises_.setImmediate)();
        const end = Math.min(to, start + SLICE);
        const slice = await ledger.read(start, end, size, () => ledger.pageJson(start, end, size));
        yield `${start > from ? ',' : ''}${slice.join(',')}`;
    }
    yield `],"next":${JSON.stringify(next)}}`;
}

// EXTERNAL MODULE: ./node_modules/prom-client/index.js
var prom_client = __webpack_require__(5222);
;// CONCATENATED MODULE: ./src/metrics/bounded.ts
/**
 * Per-resource series with bounded cardinality: the first `cap` resources seen keep their
 * own label, every later one shares `resource="other"`. A kernel may serve thousands of
 * resource names (one per pull-request environment, say); Prometheus keeps each label value
 * as a series for weeks, so the cap protects the operator's Prometheus, not the kernel.
 */
/** How many resources keep their own series by default. */
const DEFAULT_RESOURCE_CAP = 50;
/** The label every resource past the cap shares. */
const OTHER_RESOURCE = 'other';
/**
 * Caches one value per resource label (a record of prom-client children, built once), so
 * the hot path looks a resource up in a Map and touches no label strings.
 */
class BoundedLabels {
    cap;
    build;
    byResource = new Map();
    other;
    constructor(cap, build) {
        this.cap = cap;
        this.build = build;
        if (!Number.isInteger(cap) || cap < 0)
            throw new RangeError(`the resource cap must be a whole number \u2265 0, not ${cap}`);
    }
    /** The value for `resource`: its own while under the cap, else the shared "other" one. */
    of(resource) {
        const known = this.byResource.get(resource);
        if (known !== undefined)
            return known;
        // A resource literally named "other" shares the bucket: one series, one meaning.
        if (this.byResource.size >= this.cap || resource === OTHER_RESOURCE)
            return (this.other ??= this.build(OTHER_RESOURCE));
        const made = this.build(resource);
        this.byResource.set(resource, made);
        return made;
    }
    /** The label `resource` is counted under. */
    labelOf(resource) {
        return this.byResource.has(resource) || this.byResource.size < this.cap
            ? resource === OTHER_RESOURCE
                ? OTHER_RESOURCE
                : resource
            : OTHER_RESOURCE;
    }
}

// EXTERNAL MODULE: ./src/metrics/render.ts
var render = __webpack_require__(8497);
// EXTERNAL MODULE: ./src/kernel/store/round-trips.ts
var round_trips = __webpack_require__(230);
;// CONCATENATED MODULE: ./src/kernel/http/metrics-scrape.ts
/**
 * What the kernel's metrics read at each scrape rather than count as it goes: levels
 * (waiters, leases held, freezes, held requests, the ledger, readiness) and the counts other
 * parts keep themselves (notifications, OIDC key fetches, PostgreSQL round trips). Nothing
 * here runs on the hot path; one look at the service serves every gauge of a scrape.
 */



/**
 * Registers the gauges read at a scrape. Returns what forgets the last look: called as each
 * scrape begins, so the gauges of one scrape share one look and no scrape reads an old one.
 */
function scrapeGauges(metrics, sources) {
    const { service } = sources;
    const registers = [metrics.registry];
    let taken;
    const look = () => (taken ??= lookAt(service));
    let ledgerSize = -1;
    const perResource = (name, help, value) => new prom_client.Gauge({
        name,
        help,
        labelNames: ['resource'],
        registers,
        async collect() {
            this.reset();
            for (const r of (await look()).overview?.resources ?? [])
                this.inc({ resource: metrics.resources.labelOf(r.resource) }, value(r));
        },
    });
    perResource('lease_gate_waiters', 'Waiters in the queue, per resource.', (r) => r.queue.length);
    perResource('lease_gate_leases_held', 'Live leases (1 while a resource is held).', (r) => r.lease ? 1 : 0);
    perResource('lease_gate_frozen', 'Resources under an operator\u2019s freeze.', (r) => r.frozen ? 1 : 0);
    leaseAgeSeries(registers, metrics, look);
    new prom_client.Gauge({
        name: 'lease_gate_held_requests',
        help: 'Blocking acquires (Prefer: wait=N) held open now.',
        registers,
        collect() {
            this.set(sources.held?.size ?? 0);
        },
    });
    new prom_client.Gauge({
        name: 'lease_gate_ledger_entries',
        help: 'Entries in the ledger (the size its checkpoint covers).',
        registers,
        async collect() {
            const { ledgerSize: size } = await look();
            if (size !== ledgerSize)
                metrics.lastChangeMs = Date.now();
            ledgerSize = size;
            this.set(size);
        },
    });
    new prom_client.Gauge({
        name: 'lease_gate_checkpoint_age_seconds',
        help: 'Seconds since the ledger (and so its checkpoint) last grew, as this process saw.',
        registers,
        async collect() {
            await look();
            this.set(Math.max(0, Date.now() - metrics.lastChangeMs) / 1000);
        },
    });
    new prom_client.Gauge({
        name: 'lease_gate_ready',
        help: '1 when the kernel\u2019s store takes writes (/readyz answers 200), else 0.',
        registers,
        async collect() {
            this.set((await look()).ready ? 1 : 0);
        },
    });
    notificationSeries(registers, sources.health);
    healthCheckSeries(registers, sources.health);
    processCounts(registers);
    return () => (taken = undefined);
}
async function lookAt(service) {
    const ready = await service.ready().then(() => true, () => false);
    // A store that is down has no overview to give; the gauges then show none.
    const overview = ready ? await service.overview().catch(() => undefined) : undefined;
    if (ready)
        await service.syncLedger().catch(() => undefined);
    return { overview, ready, ledgerSize: service.ledger.size };
}
/** A count kept elsewhere, shown as a counter (it only grows). */
function countFrom(registers, name, help, read) {
    return new prom_client.Counter({
        name,
        help,
        registers,
        collect() {
            this.reset();
            this.inc(read());
        },
    });
}
/** The notifier's counts, as `/readyz` tells them to the operator. */
function notificationSeries(registers, health) {
    const field = (name) => () => {
        const told = health?.().notifications;
        const value = told?.[name];
        return typeof value === 'number' ? value : 0;
    };
    countFrom(registers, 'lease_gate_notifications_delivered_total', 'Notifications a URL received.', field('delivered'));
    countFrom(registers, 'lease_gate_notifications_failed_total', 'Notifications given up after their retries.', field('failed'));
    countFrom(registers, 'lease_gate_notifications_dropped_total', 'Notifications never queued (their URL too far behind).', field('dropped'));
    new prom_client.Gauge({
        name: 'lease_gate_notifications_pending',
        help: 'Notifications queued and not yet delivered (the notifier\u2019s lag, in notifications).',
        registers,
        collect() {
            this.set(field('pending')());
        },
    });
}
/** How long each live lease has been held, at the scrape (the longest, for resource="other"). */
function leaseAgeSeries(registers, metrics, look) {
    new prom_client.Gauge({
        name: 'lease_gate_lease_age_seconds',
        help: 'How long the live lease has been held (the longest, for resource="other").',
        labelNames: ['resource'],
        registers,
        async collect() {
            this.reset();
            const { overview } = await look();
            const nowMs = overview?.nowMs ?? 0;
            const ages = new Map();
            for (const { resource, lease } of overview?.resources ?? []) {
                if (!lease)
                    continue;
                const label = metrics.resources.labelOf(resource);
                const age = Math.max(0, nowMs - lease.grantedAtMs) / 1000;
                ages.set(label, Math.max(age, ages.get(label) ?? 0));
            }
            for (const [resource, age] of ages)
                this.set({ resource }, age);
        },
    });
}
/** Each `--health-check` as `/readyz` tells it: 1 healthy, 0 failing, none before its first poll. */
function healthCheckSeries(registers, health) {
    new prom_client.Gauge({
        name: 'lease_gate_health_check_healthy',
        help: 'A resource\u2019s --health-check: 1 while its URL answers healthy, 0 while it fails.',
        labelNames: ['resource'],
        registers,
        collect() {
            this.reset();
            const checks = health?.().healthChecks;
            if (!Array.isArray(checks))
                return;
            for (const check of checks) {
                if (typeof check.resource === 'string' && typeof check.healthy === 'boolean')
                    this.set({ resource: check.resource }, check.healthy ? 1 : 0);
            }
        },
    });
}
/** Counts the auth and PostgreSQL modules keep for the whole process. */
function processCounts(registers) {
    countFrom(registers, 'lease_gate_oidc_key_fetches_total', 'Fetches of an OIDC issuer\u2019s keys.', () => oidc_keys/* oidcKeyFetches */.HL.attempts);
    countFrom(registers, 'lease_gate_oidc_key_fetch_failures_total', 'Fetches of an OIDC issuer\u2019s keys that failed.', () => oidc_keys/* oidcKeyFetches */.HL.failures);
    countFrom(registers, 'lease_gate_postgres_round_trips_total', 'Queries sent to PostgreSQL (each one round trip).', () => round_trips/* storeRoundTrips */.e.count);
}

;// CONCATENATED MODULE: ./src/kernel/http/metrics.ts
/**
 * The kernel's Prometheus metrics: a prom-client registry fed by the service's observer
 * (service/observer.ts) on the hot path, and by a look at the service at each scrape for
 * what is a level rather than a count (waiters, leases held, the ledger, readiness).
 * Per-resource series are capped (metrics/bounded.ts); docs/metrics.md lists every metric.
 */




/** Deploys wait and hold for seconds to an hour or so. */
const DEPLOY_BUCKETS = [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];
/** A handover (freed \u2192 next grant) is milliseconds to a few seconds. */
const HANDOVER_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Waiters remembered per resource (for their wait time) beyond which new ones are not. */
const WAITERS_REMEMBERED = 1_000;
class KernelMetrics {
    registry = new prom_client.Registry();
    resources;
    renderer = new render/* MetricsRenderer */.n(this.registry);
    stores;
    refusals;
    /** Since when each waiter asked (by resource, then DID): its wait, once granted. */
    waitingSince = new Map();
    /** When each live lease was granted (here), and when a resource with waiters was freed. */
    grantedAt = new Map();
    freedAt = new Map();
    /** Wall time the ledger was last seen to grow (metrics-scrape.ts): the checkpoint's age. */
    lastChangeMs = Date.now();
    forgetLook = () => undefined;
    constructor(options = {}) {
        const registers = [this.registry];
        const counter = (name, help) => new prom_client.Counter({ name, help, labelNames: ['resource'], registers });
        const histogram = (name, help, buckets) => new prom_client.Histogram({ name, help, labelNames: ['resource'], buckets, registers });
        const grants = counter('lease_gate_grants_total', 'Leases granted.');
        const renewals = counter('lease_gate_renewals_total', 'Leases renewed by their holder.');
        const releases = counter('lease_gate_releases_total', 'Leases given back by their holder.');
        const lapses = counter('lease_gate_lapses_total', 'Leases that lapsed (not renewed).');
        const revokes = counter('lease_gate_revokes_total', 'Leases revoked by an operator.');
        this.refusals = new prom_client.Counter({
            name: 'lease_gate_refusals_total',
            help: 'Requests the rules refused, by reason (lease_held counts each ask of a waiter).',
            labelNames: ['resource', 'reason'],
            registers,
        });
        const wait = histogram('lease_gate_wait_seconds', 'From a waiter\u2019s first ask to its grant (0 for a grant without a wait).', DEPLOY_BUCKETS);
        const hold = histogram('lease_gate_hold_seconds', 'From a grant to its release, lapse or revoke.', DEPLOY_BUCKETS);
        const handover = histogram('lease_gate_handover_seconds', 'From a lease\u2019s end, with waiters, to the next grant on its resource.', HANDOVER_BUCKETS);
        this.resources = new BoundedLabels(options.resourceCap ?? DEFAULT_RESOURCE_CAP, (label) => ({
            label,
            grants: grants.labels(label),
            renewals: renewals.labels(label),
            releases: releases.labels(label),
            lapses: lapses.labels(label),
            revokes: revokes.labels(label),
            refusals: new Map(),
            wait: wait.labels(label),
            hold: hold.labels(label),
            handover: handover.labels(label),
        }));
        this.stores = storeSeries(registers);
    }
    /** Adds the gauges read at each scrape (waiters, ledger, readiness, notifications). */
    scrapeFrom(sources) {
        this.forgetLook = scrapeGauges(this, sources);
    }
    /** The text for one scrape, OpenMetrics when `accept` asks for it. */
    render(accept) {
        return this.renderer.render(accept, () => this.forgetLook());
    }
    committed(batch) {
        const store = this.stores[batch.shared ? 'shared' : 'local'];
        store.batchSize.observe(batch.size);
        store.commit.observe(batch.seconds);
        if (batch.failed) {
            store.failures.inc();
            return;
        }
        batch.decisions.forEach((decision, i) => {
            if (decision)
                this.decided(decision, batch.commands[i]);
        });
    }
    decided(decision, command) {
        const { state, reply, events } = decision;
        const series = this.resources.of(state.resource);
        // A lapse or a waiter leaving is decided with no reply (null): nothing refused.
        const refused = (reply ?? {});
        if (refused.ok === false && refused.reason !== undefined) {
            this.refused(series, refused.reason);
            if (refused.reason === 'lease_held' && command?.kind === 'lease')
                this.waiting(decision, command.actorDid);
        }
        for (const event of events)
            this.event(series, event, state.queue.length > 0);
        if (state.queue.length === 0)
            this.waitingSince.delete(state.resource);
    }
    refused(series, reason) {
        let child = series.refusals.get(reason);
        if (!child) {
            child = this.refusals.labels(series.label, reason);
            series.refusals.set(reason, child);
        }
        child.inc();
    }
    /** Remembers when a refused waiter first asked (its place in the queue says). */
    waiting({ state }, actorDid) {
        let waiters = this.waitingSince.get(state.resource);
        if (waiters?.has(actorDid))
            return;
        const since = state.queue.find((w) => w.actorDid === actorDid)?.sinceMs;
        if (since === undefined)
            return;
        if (!waiters)
            this.waitingSince.set(state.resource, (waiters = new Map()));
        if (waiters.size < WAITERS_REMEMBERED)
            waiters.set(actorDid, since);
    }
    event(series, event, waiters) {
        const { resource, atMs } = event;
        switch (event.kind) {
            case 'grant': {
                series.grants.inc();
                const since = this.waitingSince.get(resource)?.get(event.actorDid);
                this.waitingSince.get(resource)?.delete(event.actorDid);
                series.wait.observe(since === undefined ? 0 : Math.max(0, atMs - since) / 1000);
                const freed = this.freedAt.get(resource);
                if (freed !== undefined)
                    series.handover.observe(Math.max(0, atMs - freed) / 1000);
                this.freedAt.delete(resource);
                this.grantedAt.set(resource, atMs);
                return;
            }
            case 'renew':
                series.renewals.inc();
                return;
            case 'release':
                series.releases.inc();
                return this.ended(series, event, waiters);
            case 'lapse':
                series.lapses.inc();
                return this.ended(series, event, waiters);
            case 'revoke':
                series.revokes.inc();
                return this.ended(series, event, waiters);
            // Freezes and break-glass passes are the ledger's and the console's, not counted here.
            case 'freeze':
            case 'unfreeze':
            case 'break_glass':
            case 'break_glass_withdrawn':
                return;
        }
    }
    ended(series, { resource, atMs }, waiters) {
        const granted = this.grantedAt.get(resource);
        if (granted !== undefined)
            series.hold.observe(Math.max(0, atMs - granted) / 1000);
        this.grantedAt.delete(resource);
        if (waiters)
            this.freedAt.set(resource, atMs);
        else
            this.freedAt.delete(resource);
    }
}
/** The store's series: batch size, commit latency and failed batches, shared or local. */
function storeSeries(registers) {
    const labelNames = ['store'];
    const batchSize = new prom_client.Histogram({
        name: 'lease_gate_store_batch_size',
        help: 'Commands per batch committed to the store (PostgreSQL when store="postgres").',
        labelNames,
        buckets: BATCH_BUCKETS,
        registers,
    });
    const commit = new prom_client.Histogram({
        name: 'lease_gate_store_commit_seconds',
        help: 'How long a batch took to decide and make durable.',
        labelNames,
        buckets: COMMIT_BUCKETS,
        registers,
    });
    const failures = new prom_client.Counter({
        name: 'lease_gate_store_commit_failures_total',
        help: 'Batches the store refused as a whole.',
        labelNames,
        registers,
    });
    const of = (store) => ({
        batchSize: batchSize.labels(store),
        commit: commit.labels(store),
        failures: failures.labels(store),
    });
    return { shared: of('postgres'), local: of('local') };
}

;// CONCATENATED MODULE: ./src/kernel/http/metrics-route.ts
/**
 * `GET /metrics`: the kernel's metrics for Prometheus, to the holder of the admin key or of
 * the metrics key (LEASE_GATE_METRICS_KEY, which reads metrics and nothing else), as the
 * Bearer token. Off (403) when the kernel has neither. Reached by address as the probes are
 * (a scraper names a pod by its IP), since the key, not the Host, is what guards it.
 */


const METRICS_ROUTE = 'GET /metrics';
/** Throws 401 without a Bearer token, 403 with a wrong one or when metrics are off. */
function requireMetricsReader(req, keys) {
    const accepted = [keys.metricsKey, keys.adminKey].filter((k) => Boolean(k));
    if (!accepted.length) {
        throw new ApiRefusal('Metrics need the kernel to be started with LEASE_GATE_METRICS_KEY or LEASE_GATE_ADMIN_KEY.', { status: 403, reason: 'metrics_disabled' });
    }
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) {
        throw new ApiRefusal('Metrics need the metrics key (LEASE_GATE_METRICS_KEY) or the admin key as the Bearer token.', { status: 401, reason: 'unauthorized' });
    }
    // Every key is compared, so the time taken does not tell which one came close.
    const matched = accepted.map((key) => bearerMatches(header, key)).some(Boolean);
    if (!matched) {
        throw new ApiRefusal('This Bearer token is neither the metrics key nor the admin key.', {
            status: 403,
            reason: 'forbidden',
        });
    }
}
/** `metrics` undefined: the kernel keeps none (`metrics: false`, or nobody may read them). */
function metricsRoutes(metrics, keys) {
    return {
        [METRICS_ROUTE]: async (req) => {
            requireMetricsReader(req, keys);
            if (!metrics)
                throw new ApiRefusal('This kernel was started with its metrics off.', {
                    status: 403,
                    reason: 'metrics_disabled',
                });
            const { contentType, text } = await metrics.render(req.headers.accept);
            return { status: 200, body: text, headers: { 'content-type': contentType } };
        },
    };
}

// EXTERNAL MODULE: ./src/kernel/rules/overview.ts
var rules_overview = __webpack_require__(9454);
;// CONCATENATED MODULE: ./src/kernel/http/status-routes.ts
/**
 * What the kernel tells of itself: the overview of every resource (the console's, paged),
 * `/healthz` for anyone, and `/readyz`, whose reasons only the operator reads.
 */






/** Routes anyone may call, by address, without a key: a probe's. */
const OPEN_ROUTES = new Set(['GET /healthz', 'GET /readyz']);
/** What `/readyz` tells a caller without the kernel's key when it is not ready: no more. */
const NOT_READY = {
    ok: false,
    reason: 'not_ready',
    message: "The kernel is not ready; its key's holders can ask /readyz why.",
};
/** The overview is paged by resource name: `?after=R&limit=N`; `detail=1` adds each waiter's `sinceMs`. */
const overviewQuery = schemas/* object */.Ikc({
    detail: schemas/* optional */.lqM(schemas/* literal */.euz('1')),
    after: schemas/* optional */.lqM(schema/* resourceSchema */.C5),
    limit: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _regex */.Fk(/^\d{1,5}$/, `expected a whole number from 1 to ${rules_overview/* OVERVIEW_PAGE */._C.max}`), schemas/* refine */.YPB((n) => Number(n) >= 1 && Number(n) <= rules_overview/* OVERVIEW_PAGE */._C.max, `expected a whole number from 1 to ${rules_overview/* OVERVIEW_PAGE */._C.max}`))),
});
const status_routes_ok = (body, status = 200) => ({ status, body });
/** GET the overview, `/healthz` and `/readyz`. */
function statusRoutes(deps) {
    const { service, windows: recurring, promotions, health, mayReadHealth } = deps;
    return {
        [`GET ${schema/* KERNEL_RESOURCES_PATH */.KY}`]: async (req) => {
            const { after, limit, detail } = parse(overviewQuery, {
                after: req.query.get('after') ?? undefined,
                limit: req.query.get('limit') ?? undefined,
                detail: req.query.get('detail') ?? undefined,
            });
            const size = limit === undefined ? rules_overview/* OVERVIEW_PAGE */._C.default : Number(limit);
            const overview = await service.overview();
            const windows = recurring?.describe(overview.nowMs);
            const page = (0,rules_overview/* overviewPage */.h6)(overview, after, size);
            return status_routes_ok({
                ok: true,
                ...page,
                ...(detail ? {} : { resources: (0,rules_overview/* withoutDetail */.sE)(page.resources) }),
                ...(windows ? { windows } : {}),
                ...(promotions ? { promotions: promotions.steps } : {}),
                ...health?.(),
            });
        },
        'GET /healthz': () => Promise.resolve(status_routes_ok({ ok: true })),
        'GET /readyz': async (req) => {
            const told = await mayReadHealth(req);
            try {
                await service.ready();
                return status_routes_ok(told ? { ok: true, ...health?.() } : { ok: true });
            }
            catch (error) {
                return status_routes_ok(told
                    ? {
                        ok: false,
                        reason: 'store_unavailable',
                        message: `the kernel's store is not writable: ${(0,errors/* causeText */.xv)(error)}`,
                    }
                    : NOT_READY, 503);
            }
        },
    };
}

// EXTERNAL MODULE: ./src/plane/entry-kinds.ts
var entry_kinds = __webpack_require__(4152);
;// CONCATENATED MODULE: ./src/kernel/service/watch.ts


const REASONS = { revoke: 'revoked', lapse: 'lapsed', release: 'released' };
/** Ends remembered for watches that arrive just after the end (a keeper asking again). */
const REMEMBERED_ENDS = 10_000;
/** How far back the ledger is searched for an end this process did not hear. */
const LEDGER_LOOKBACK = 100_000;
/** Entries looked at per step back (a few of FetchedLines' chunks). */
const LOOKBACK_WINDOW = 1_024;
/** Entries of one lease a ledger search returns at most (its end and the renewals before it). */
const SEARCH_LIMIT = 16;
/**
 * Watches on one's own lease: a request held open until the lease ends
 * (revoked, lapsed, released) or the wait runs out. It hears ends through the
 * service's change feed; with replicas it asks the service to listen for the
 * lease's resource first (the PostgreSQL store then tells it that resource's
 * commits by LISTEN/NOTIFY), so a revoke on one replica answers a watch held
 * on another. It listens before it looks, and looks again at the wait's end,
 * so an end is never missed for a notice lost on the way.
 */
class LeaseWatches extends HeldCalls {
    waiting = new Map();
    ends = new Map();
    constructor(service, options = {}) {
        super(service, options);
        this.unsubscribe = service.onChange((_resource, event) => this.heard(event));
    }
    async watch(resource, actorDid, leaseId, preferredS, signal) {
        const known = this.ends.get(leaseId);
        if (known)
            return this.endedAnswer(known, actorDid, undefined);
        const listening = this.listen(leaseId);
        try {
            const room = this.mayHold(preferredS);
            // Before the look: an end on another replica after it is told here.
            if (room)
                await this.service.listen(resource);
            const lease = await this.service.status(resource);
            if (lease?.id !== leaseId)
                return await this.afterEnd(resource, leaseId, actorDid, undefined);
            if (lease.holder !== actorDid)
                return { kind: 'not-yours' };
            if (!room)
                return { kind: 'held', lease };
            const appliedWaitS = this.appliedWait(preferredS);
            this.count += 1;
            let end;
            try {
                end = await listening.until(appliedWaitS * 1_000, signal, () => this.closing);
            }
            finally {
                this.count -= 1;
            }
            if (end)
                return this.endedAnswer(end, actorDid, appliedWaitS);
            // The wait ran out (or a notice was lost): look again before saying "still held".
            const again = await this.service.status(resource);
            if (again?.id === leaseId)
                return { kind: 'held', lease: again, appliedWaitS };
            return await this.afterEnd(resource, leaseId, actorDid, appliedWaitS);
        }
        finally {
            listening.cancel();
        }
    }
    /** Every held watch answers at once ("still held"; the kernel is stopping). */
    answerAll() {
        for (const set of this.waiting.values())
            for (const wake of set)
                wake(undefined);
    }
    heard(event) {
        // Grants and renewals end nothing; freezes and break-glass name no lease.
        if (event.kind === 'grant' || event.kind === 'renew')
            return;
        if ((0,entry_kinds/* namesNoLease */.Y)(event.kind))
            return;
        const end = {
            leaseId: event.leaseId,
            resource: event.resource,
            actorDid: event.actorDid,
            reason: REASONS[event.kind],
            endedAtMs: Math.round(event.atMs),
            ...(event.kind === 'revoke' && event.reason !== undefined ? { message: event.reason } : {}),
            ...(event.kind === 'revoke' && event.by !== undefined ? { by: event.by } : {}),
        };
        this.ends.set(end.leaseId, end);
        if (this.ends.size > REMEMBERED_ENDS)
            this.ends.delete(this.ends.keys().next().value);
        for (const wake of this.waiting.get(end.leaseId) ?? [])
            wake(end);
    }
    listen(leaseId) {
        let heard;
        let wake;
        const onEnd = (end) => {
            heard ??= end;
            wake?.(end);
        };
        let set = this.waiting.get(leaseId);
        if (!set)
            this.waiting.set(leaseId, (set = new Set()));
        set.add(onEnd);
        return {
            until: (ms, signal, stopping) => new Promise((resolve) => {
                if (heard || signal.aborted || stopping())
                    return resolve(heard);
                const timer = this.timers.set(() => finish(undefined), ms);
                const gone = () => finish(undefined);
                const finish = (end) => {
                    wake = undefined;
                    this.timers.clear(timer);
                    signal.removeEventListener('abort', gone);
                    resolve(end);
                };
                wake = finish;
                signal.addEventListener('abort', gone, { once: true });
            }),
            cancel: () => {
                set.delete(onEnd);
                if (set.size === 0)
                    this.waiting.delete(leaseId);
            },
        };
    }
    /** The lease is not live: how it ended, from what this process heard or from the ledger. */
    async afterEnd(resource, leaseId, actorDid, appliedWaitS) {
        const end = this.ends.get(leaseId) ?? (await this.fromLedger(leaseId));
        return this.endedAnswer(end, actorDid, appliedWaitS, resource);
    }
    async endedAnswer(end, actorDid, appliedWaitS, resource = end?.resource) {
        if (end && end.actorDid !== actorDid)
            return { kind: 'not-yours' };
        const now = resource === undefined ? null : await this.service.status(resource);
        const holder = now && now.id !== end?.leaseId ? now.holder : undefined;
        return {
            kind: 'ended',
            end,
            holder,
            ...(appliedWaitS === undefined ? {} : { appliedWaitS }),
        };
    }
    async fromLedger(leaseId) {
        await this.service.syncLedger();
        const { ledger } = this.service;
        const size = ledger.size;
        const stop = Math.max(0, size - LEDGER_LOOKBACK);
        const decides = (e) => e?.leaseId === leaseId && !(0,entry_kinds/* namesNoLease */.Y)(e.kind);
        let found;
        if (this.service.searchLedger) {
            // Lines in canonical JSON: a string's quotes are escaped, so only the field itself matches.
            const needle = `"leaseId":${JSON.stringify(leaseId)}`;
            for (const seq of await this.service.searchLedger(needle, stop, SEARCH_LIMIT)) {
                if (seq >= size)
                    continue;
                // Read back through the tree, which checks the line before it is believed.
                const e = await ledger.read(seq, seq + 1, size, () => ledger.entry(seq));
                if (decides(e)) {
                    found = e;
                    break;
                }
            }
        }
        else {
            // Newest first, a window at a time.
            for (let hi = size; hi > stop && !found; hi -= LOOKBACK_WINDOW) {
                const lo = Math.max(stop, hi - LOOKBACK_WINDOW);
                found = await ledger.read(lo, hi, size, () => {
                    for (let i = hi - 1; i >= lo; i -= 1) {
                        const e = ledger.entry(i);
                        if (decides(e))
                            return e;
                    }
                    return undefined;
                });
            }
        }
        if (!found || (found.kind !== 'release' && found.kind !== 'lapse' && found.kind !== 'revoke'))
            return undefined;
        return {
            leaseId,
            resource: found.resource,
            actorDid: found.actorDid,
            reason: REASONS[found.kind],
            endedAtMs: found.tsMs,
            ...(found.kind === 'revoke' && found.reason !== undefined ? { message: found.reason } : {}),
            ...(found.kind === 'revoke' && found.by !== undefined ? { by: found.by } : {}),
        };
    }
}

;// CONCATENATED MODULE: ./src/kernel/service/promotions.ts


/** Completed commits asked about per request, newest first: each is one compare at most. */
const MAX_ASKED = 20;
/**
 * The promotion order a kernel was started with (`--promote staging->production`), kept
 * from its ledger: before a lease of a resource that has a step before it, the entries
 * recorded since the last look are read (a replica syncs its ledger first), so the answer
 * is what the ledger shows, the one record `verify` checks offline. Reading a little stale
 * only refuses (a commit whose step before finished a moment ago asks again); it never
 * lets one through early, since a hold completes before its release is recorded.
 */
class Promotions {
    service;
    compare;
    record;
    inOrder;
    cursor = 0;
    /** One read of the ledger at a time, in order. */
    reading = Promise.resolve();
    constructor(service, chain, 
    /** With it, a descendant of a commit that completed the step passes too. */
    compare) {
        this.service = service;
        this.compare = compare;
        this.record = new promotion/* PromotionRecord */.VL(chain);
        this.inOrder = new Set([...chain.keys(), ...chain.values()]);
    }
    get steps() {
        return this.record.steps;
    }
    /** Whether `resource` is in the order, before or after a step (its commits must be vouched for). */
    ordered(resource) {
        return this.inOrder.has(resource);
    }
    /**
     * Whether this deploy may take `resource` now. The same commit completed the step before:
     * yes. Otherwise, with GitHub's compare, the newest commits of its repository that
     * completed it are asked whether they contain this one; the first that does is the
     * answer. GitHub not answering refuses (fail closed), saying so, and so does the
     * caller's GitHub budget being spent (`caller`: whose, auth/caller.ts).
     */
    async check(resource, deploy, caller) {
        const from = this.record.stepBefore(resource);
        if (from === undefined)
            return {};
        const caughtUp = this.reading.then(() => this.catchUp());
        this.reading = caughtUp.catch(() => undefined);
        await caughtUp;
        const unpromoted = this.record.missing(resource, deploy);
        const c = (0,promotion/* commitOf */.D3)(deploy);
        if (unpromoted === undefined || !this.compare || !c)
            return unpromoted ? { unpromoted } : {};
        const candidates = this.record.completedOn(from, c.repository, MAX_ASKED);
        try {
            for (const done of candidates) {
                if (await this.compare.contains(c.repository, c.commit, done, caller))
                    return { promotedVia: done };
            }
        }
        catch (error) {
            return {
                unpromoted: `${unpromoted}; GitHub could not say whether a commit that completed it contains this one (${(0,errors/* causeText */.xv)(error)})`,
            };
        }
        return {
            unpromoted: candidates.length
                ? `${unpromoted}; GitHub's compare finds it in none of the ${candidates.length} newest commits that did`
                : unpromoted,
        };
    }
    async catchUp() {
        await this.service.syncLedger();
        const { ledger } = this.service;
        const size = ledger.size;
        if (this.cursor >= size)
            return;
        const from = this.cursor;
        // `read` may run its callback again after a fresh load: collect, then add once.
        const entries = await ledger.read(from, size, size, () => {
            const read = [];
            for (let i = from; i < size; i += 1)
                read.push(ledger.entry(i));
            return read;
        });
        for (const entry of entries)
            if (entry)
                this.record.add(entry);
        this.cursor = size;
    }
}

;// CONCATENATED MODULE: ./src/kernel/http/app.ts
















/** The app's metrics from the server's options: new ones unless off or nobody may read them. */
function metricsOf(options) {
    const { metrics, metricsKey, adminKey } = options;
    if (metrics === false)
        return { metricsKey };
    return {
        metrics: metrics || (metricsKey || adminKey ? new KernelMetrics() : undefined),
        metricsKey,
    };
}
/** Who calls an open route or a lever: the lever checks the admin key itself. */
const app_OPEN = { kind: 'open' };
/**
 * Routing, keys, origin checks and validation; the service does the rest. The routes come
 * by concept (lease-, freeze-, break-glass-, status-, ledger-routes), each lever checked
 * with the one admin check (admin.ts).
 */
function createKernelApp(options) {
    const { service } = options;
    const names = options.names ?? new KernelNames();
    const held = options.held ?? new HeldRequests(service);
    const watches = new LeaseWatches(service);
    const promotions = options.promote?.size
        ? new Promotions(service, options.promote, options.compare)
        : undefined;
    const auth = options.auth ?? createAuthorizer({ key: options.key });
    const checks = operatorChecks(options, auth);
    const routes = {
        ...leaseRoutes({ service, auth, held, watches, promotions, requireAdmin: checks.requireAdmin }),
        ...freezeRoutes(service, checks.requireAdmin),
        ...breakGlassRoutes(service, checks.requireAdmin, checks.requireApprover),
        ...statusRoutes({
            service,
            windows: options.windows,
            promotions,
            health: options.health,
            mayReadHealth: checks.mayReadHealth,
        }),
        ...syncedFirst(ledgerRoutes(service.ledger), service),
        ...metricsRoutes(options.metrics, options),
    };
    const unobserve = options.metrics && observed(options.metrics, service, held, options.health);
    const paths = new Set(Object.keys(routes).map((r) => r.slice(r.indexOf(' ') + 1)));
    return Object.assign(dispatch(routes, paths, names, auth), {
        serves: (path) => paths.has(path),
        names,
        close: () => {
            held.close();
            watches.close();
            unobserve?.();
        },
    });
}
/** Feeds `metrics` from the service's batches and its state at each scrape; returns the undo. */
function observed(metrics, service, held, health) {
    metrics.scrapeFrom({ service, held, health });
    return service.observe?.(metrics) ?? (() => undefined);
}
/** Finds the request's route, checks its Host, origin and caller, and answers refusals. */
function dispatch(routes, paths, names, auth) {
    return async (req) => {
        try {
            const name = `${req.method} ${req.path}`;
            // Health checks come by address (a container's, a pod's): they carry no lease data.
            // A scraper comes by address too; the metrics key guards what it reads.
            const byAddress = OPEN_ROUTES.has(name) || name === METRICS_ROUTE;
            if (!byAddress && !names.hostAllowed(req.headers.host))
                refuseHost(req.headers.host);
            const route = routes[name];
            if (!route) {
                throw paths.has(req.path)
                    ? new ApiRefusal(`${req.method} is not served on ${req.path}.`, {
                        status: 405,
                        reason: 'method_not_allowed',
                    })
                    : new ApiRefusal(`No route ${req.method} ${req.path}.`, {
                        status: 404,
                        reason: 'not_found',
                    });
            }
            if (req.method === 'POST')
                refuseCrossOrigin(req, names);
            // The operator's levers check the admin key themselves; every other call names its caller here.
            const principal = ADMIN_PATHS.has(req.path) || byAddress ? app_OPEN : await auth.authorize(req.headers);
            return await route(req, principal);
        }
        catch (error) {
            return refusalAnswer(error);
        }
    };
}
/** A refusal as the wire has it; anything else is not ours to word and goes on up. */
function refusalAnswer(error) {
    if (error instanceof ApiRefusal || error instanceof refusal/* AuthRefusal */.N) {
        return {
            status: error.status,
            body: { ok: false, reason: error.reason, message: error.message },
        };
    }
    if (error instanceof store_error/* StoreUnavailableError */.o2) {
        return {
            status: 503,
            body: { ok: false, reason: 'store_unavailable', message: error.message },
        };
    }
    throw error;
}
/** A replica's ledger catches up with the shared store before it answers. */
function syncedFirst(routes, service) {
    const synced = {};
    for (const [name, route] of Object.entries(routes)) {
        synced[name] = async (req, principal) => {
            await service.syncLedger();
            return route(req, principal);
        };
    }
    return synced;
}
/** A name that is not ours: a DNS-rebinding page, or a proxy not named with --public-url. */
function refuseHost(host) {
    const shown = JSON.stringify((host ?? '').slice(0, 100));
    throw new ApiRefusal(`This kernel does not answer to Host ${shown}: it answers to loopback names, its listen address and each --public-url.`, { status: 421, reason: 'misdirected' });
}
/**
 * A browser page from another origin may not change anything here. The
 * origin is checked against the kernel's own names, never built from `Host`
 * alone (a rebinding page controls the name it is reached by).
 */
function refuseCrossOrigin(req, names) {
    const { origin, host } = req.headers;
    if ((origin !== undefined && !names.originAllowed(origin, host)) ||
        req.headers['sec-fetch-site'] === 'cross-site') {
        throw new ApiRefusal(`Requests that change leases must come from this kernel's own origin (${names.describe(host)}), not from a page on another site.`, { status: 403, reason: 'cross_origin' });
    }
}

;// CONCATENATED MODULE: ./src/kernel/http/wire.ts


/**
 * The adapter's words at the wire: the request's id and the notices that carry it, a refused
 * credential's line, a path made safe for a log line, and malformed HTTP's answer.
 */
/**
 * A notice about this request, with its id: the client's X-Request-Id when it is a plain
 * token, else a new one, said back so a client's report and the kernel's log line match.
 */
function noticeFor(req, res, log) {
    const requestId = requestIdOf(req);
    res.setHeader('x-request-id', requestId);
    return (line) => log(line, { requestId });
}
function requestIdOf(req) {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : (0,external_node_crypto_.randomUUID)();
}
/**
 * A credential refused (401, 403) as `401 unauthorized`: an operator's business (a leaked or
 * rotated key, a wrong audience). The reason word only, never the message: that may quote
 * the request, and never what was presented.
 */
function refusalOf(answer) {
    if (answer.status !== 401 && answer.status !== 403)
        return undefined;
    const reason = answer.body?.reason;
    const word = typeof reason === 'string' && /^[a-z_-]{1,40}$/.test(reason) ? reason : 'refused';
    return `${answer.status} ${word}`;
}
/** A path from the wire, made safe for one log line. */
const wire_escape = (text) => JSON.stringify(text.slice(0, 200)).slice(1, -1);
/** Malformed HTTP gets a JSON answer too, then the connection closes. */
function answerClientError(error, socket) {
    if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
    }
    const [status, reason, message] = error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request headers are too large.']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'request_timeout', 'The request took too long to arrive.']
            : [400, 'bad_request', 'The request is not well-formed HTTP/1.1.'];
    const body = JSON.stringify({ ok: false, reason, message });
    socket.end(`HTTP/1.1 ${status} ${external_node_http_.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

// EXTERNAL MODULE: ./src/kernel/service/service.ts + 10 modules
var service_service = __webpack_require__(5014);
// EXTERNAL MODULE: ./src/kernel/store/store.ts + 4 modules
var store_store = __webpack_require__(7967);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: external "node:url"
var external_node_url_ = __webpack_require__(3136);
;// CONCATENATED MODULE: ./src/console/serve.ts



/** No inline script or style, nothing from another origin, no framing. */
const CONTENT_SECURITY_POLICY = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
].join('; ');
/** Request path \u2192 built file. Nothing else is served, so no path reaches the file system. */
const PAGES = {
    '/': 'index.html',
    '/console/': 'index.html',
    '/playground': 'playground.html',
    '/playground/': 'playground.html',
    '/console/console.js': 'console.js',
    '/console/playground.js': 'playground.js',
    '/console/console.css': 'console.css',
};
/** A lock, drawn inline: served at /favicon.svg and /favicon.ico (browsers ask for the latter). */
const FAVICON = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="3" y="7" width="10" height="8" rx="1" fill="#3b6fd8"/><path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="#3b6fd8" stroke-width="1.6"/></svg>');
const TYPES = {
    html: 'text/html; charset=utf-8',
    js: 'text/javascript; charset=utf-8',
    css: 'text/css; charset=utf-8',
};
function defaultAssetsDir() {
    const here = (0,external_node_path_.dirname)((0,external_node_url_.fileURLToPath)(import.meta.url));
    // dist/cli/index.js \u2192 dist/console; src/console/serve.ts \u2192 dist/console.
    const candidates = [(0,external_node_path_.join)(here, '..', 'console'), (0,external_node_path_.join)(here, '..', '..', 'dist', 'console')];
    return candidates.find((dir) => (0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, 'index.html')));
}
function serve_createConsole(options = {}) {
    // Read on first use: a kernel nobody opens the console of pays nothing.
    const cache = new Map();
    const read = (file) => {
        if (!cache.has(file)) {
            const dir = options.assetsDir ?? defaultAssetsDir();
            cache.set(file, dir && (0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, file)) ? (0,external_node_fs_.readFileSync)((0,external_node_path_.join)(dir, file)) : null);
        }
        return cache.get(file) ?? null;
    };
    return (req, res) => {
        if (req.method !== 'GET' && req.method !== 'HEAD')
            return false;
        const path = (req.url ?? '').split('?')[0] ?? '';
        if (path === '/favicon.svg' || path === '/favicon.ico') {
            res.writeHead(200, {
                'content-type': 'image/svg+xml',
                'content-length': FAVICON.length,
                'x-content-type-options': 'nosniff',
                'cache-control': 'max-age=86400',
            });
            res.end(req.method === 'HEAD' ? undefined : FAVICON);
            return true;
        }
        const file = PAGES[path];
        if (!file)
            return false;
        const body = read(file);
        const headers = {
            'content-security-policy': CONTENT_SECURITY_POLICY,
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
            'cross-origin-opener-policy': 'same-origin',
            'cache-control': 'no-cache',
        };
        if (!body) {
            const text = 'The console is not built: run npm run build.\n';
            res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
            res.end(req.method === 'HEAD' ? undefined : text);
            return true;
        }
        const type = TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
        res.writeHead(200, { ...headers, 'content-type': type, 'content-length': body.length });
        res.end(req.method === 'HEAD' ? undefined : body);
        return true;
    };
}

;// CONCATENATED MODULE: ./src/kernel/http/server.ts











const BODY_LIMIT_BYTES = 64 * 1024;
/** How long a closing kernel lets requests in flight finish before it cuts their connections. */
const CLOSE_GRACE_MS = 5_000;
/** What of a refused body is read and dropped before the answer goes (and the connection closes). */
const DRAIN_LIMIT_BYTES = 1024 * 1024;
/** Epoch milliseconds that never go backwards, whatever the wall clock does. */
function epochMonotonic() {
    const wallStart = Date.now();
    const perfStart = performance.now();
    return () => Math.round(wallStart + performance.now() - perfStart);
}
/** Opens the service (replaying its store) and builds the app on it. */
async function openKernel(options) {
    const names = new KernelNames(options.publicUrls);
    if (options.service) {
        const { service } = options;
        return { service, app: appOf(service, options, names) };
    }
    const table = options.table ?? new core/* ResourceTable */.BR();
    const log = options.log ?? ((line) => console.error(line));
    const { service, warning } = await service_service/* KernelService */.h.open({
        table,
        store: options.store ?? (0,store_store/* memoryStore */.LK)(),
        ledger: options.ledger ?? new ledger_ledger/* Ledger */.O(),
        now: options.now ?? epochMonotonic(),
        onEvents: options.onEvents,
        log,
    });
    return { service, app: appOf(service, options, names), warning };
}
function appOf(service, options, names) {
    const extra = options.onService?.(service);
    return createKernelApp({
        service,
        key: options.key,
        adminKey: options.adminKey,
        approverKey: options.approverKey,
        approverOidc: options.approverOidc,
        auth: options.auth,
        names,
        windows: options.windows,
        promote: options.promote,
        compare: options.compare,
        health: extra && (() => extra.health()),
        ...metricsOf(options),
    });
}
/** A node:http handler for the kernel; the service opens in the background. */
function createKernelHandler(options) {
    const opened = openKernel(options);
    const log = options.log ?? ((line) => console.error(line));
    let handle;
    const handler = async (req, res) => {
        if (!handle)
            handle = nodeAdapter((await opened).app, log, options.console ?? createConsole());
        return handle(req, res);
    };
    return Object.assign(handler, { opened });
}
/** The thin adapter: node's request to the app's, the app's answer to node's response. */
function nodeAdapter(app, log, consoleHook) {
    return async (req, res) => {
        const note = noticeFor(req, res, log);
        const url = req.url ?? '/';
        const mark = url.indexOf('?');
        const path = mark < 0 ? url : url.slice(0, mark);
        // A foreign Host reaches the app, which answers 421, before any console page.
        if (!app.serves(path) && app.names.hostAllowed(req.headers.host) && consoleHook?.(req, res))
            return;
        const request = new NodeRequest(req, res, path, mark < 0 ? '' : url.slice(mark + 1));
        try {
            const answer = await app(request);
            const refusal = refusalOf(answer);
            if (refusal)
                note(`kernel: refused ${req.method} ${wire_escape(path)}: ${refusal}`);
            await send(res, answer, () => request.signal);
        }
        catch (error) {
            if (error instanceof ClientGone) {
                note(`kernel: the client went away before its ${req.method} ${wire_escape(path)} body ended`);
                return;
            }
            // One of ours (a store that cannot read, say) by its message; a bug with its stack.
            const known = error instanceof errors/* LeaseGateError */.eg && error.code !== 'internal';
            const stack = error instanceof Error ? error.stack : undefined;
            const why = known ? error.message : (stack ?? (0,errors/* causeText */.xv)(error));
            note(`kernel: ${req.method} ${wire_escape(path)} failed: ${why}`);
            if (!res.headersSent) {
                await send(res, {
                    status: 500,
                    body: { ok: false, reason: 'internal', message: 'The kernel failed; see its log.' },
                });
            }
            else {
                res.destroy();
            }
        }
    };
}
async function startKernelServer(options) {
    const { service, app, warning } = await openKernel(options);
    const log = options.log ?? ((line) => console.error(line));
    const handle = nodeAdapter(app, log, options.console ?? serve_createConsole());
    const server = (0,external_node_http_.createServer)((req, res) => void handle(req, res));
    server.keepAliveTimeout = 5_000;
    server.on('clientError', answerClientError);
    try {
        await new Promise((resolve, reject) => {
            server.once('error', reject);
            server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
        });
    }
    catch (error) {
        // Not listening (a port taken): the service goes too, or its pool, timers and listener
        // would keep a kernel that serves nothing running, and its supervisor would see it up.
        app.close();
        await service.close();
        throw error;
    }
    const address = server.address();
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    app.names.listening(`http://${host}:${address.port}`);
    return {
        url: `http://${host}:${address.port}`,
        server,
        service,
        warning,
        close: async () => {
            app.close();
            await new Promise((resolve) => {
                // server.close() waits for every connection with a request in flight, and a client
                // that stalls mid-request would hold a closing kernel (and its supervisor) for
                // minutes: after the grace what is left is cut, not awaited.
                const cut = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? CLOSE_GRACE_MS);
                server.close(() => {
                    clearTimeout(cut);
                    resolve();
                });
                server.closeIdleConnections();
            });
            await service.close();
        },
    };
}
/**
 * The app's view of one node request. A class, so `signal` is a getter on the
 * prototype: a getter in a per-request object literal makes V8 allocate an
 * accessor pair in the old generation, which then held the request's whole
 * graph (req, res, their buffers) through every young collection until the
 * next full one, and most of the kernel's collector time went to that.
 */
class NodeRequest {
    req;
    res;
    path;
    method;
    query;
    headers;
    gone;
    constructor(req, res, path, search) {
        this.req = req;
        this.res = res;
        this.path = path;
        this.method = req.method ?? 'GET';
        this.query = new URLSearchParams(search);
        this.headers = req.headers;
    }
    json() {
        return readJson(this.req, this.res);
    }
    /** Built on first use: most answers are immediate and never look at it. */
    get signal() {
        return (this.gone ??= goneSignal(this.res));
    }
}
/** The client went away before its body ended: nothing to answer, logged as such. */
class ClientGone extends errors/* LeaseGateError */.eg {
    name = 'ClientGone';
    constructor() {
        super('the client went away before its body ended', { code: 'client_gone' });
    }
}
/** Aborted when the client goes away before its answer is finished (also if it already has). */
function goneSignal(res) {
    const controller = new AbortController();
    const abort = () => res.writableFinished || controller.abort();
    if (res.closed || res.destroyed)
        abort();
    else
        res.once('close', abort);
    return controller.signal;
}
async function readJson(req, res) {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(type)) {
        await readLimited(req, res, 0).catch((error) => {
            if (error instanceof ClientGone)
                throw error;
        });
        throw new ApiRefusal('Send the body as Content-Type: application/json.', {
            status: 415,
            reason: 'unsupported_media_type',
        });
    }
    const text = await readLimited(req, res, BODY_LIMIT_BYTES);
    try {
        return JSON.parse(text);
    }
    catch {
        throw new ApiRefusal('The body is not valid JSON.', { status: 400, reason: 'bad_json' });
    }
}
/**
 * Reads the body up to `limit` bytes. A body refused (past the limit, or not read at all)
 * is still read and dropped up to DRAIN_LIMIT_BYTES, so that a client that sends all of its
 * body before it reads gets the answer; past that the answer goes at once. Either way the
 * connection closes after the answer: what is left of the body never reaches a next request.
 */
function readLimited(req, res, limit) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        const refuse = () => {
            res.setHeader('connection', 'close');
            req.removeAllListeners('data').pause();
            reject(new ApiRefusal(`The body is over ${limit} bytes.`, {
                status: 413,
                reason: 'payload_too_large',
            }));
        };
        req.on('data', (chunk) => {
            size += chunk.length;
            if (size <= limit)
                chunks.push(chunk);
            else if (size > limit + DRAIN_LIMIT_BYTES)
                refuse();
        });
        req.on('error', () => reject(new ClientGone()));
        req.on('close', () => req.complete || reject(new ClientGone()));
        req.on('end', () => {
            if (size > limit)
                refuse();
            else
                resolve(Buffer.concat(chunks).toString('utf8'));
        });
    });
}
const isStream = (body) => typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
/** JSON, plain text for a string (the checkpoint, the public key), or JSON in pieces. */
async function send(res, answer, signal) {
    const { status, body, headers } = answer;
    if (isStream(body)) {
        res.writeHead(status, {
            'content-type': 'application/json',
            'cache-control': 'no-store',
            ...headers,
        });
        const gone = signal?.();
        for await (const piece of body) {
            if (gone?.aborted)
                return;
            if (!res.write(piece))
                await drainedOrClosed(res);
        }
        res.end();
        return;
    }
    const plain = typeof body === 'string';
    const text = plain ? body : JSON.stringify(body);
    res.writeHead(status, {
        'content-type': plain ? 'text/plain; charset=utf-8' : 'application/json',
        // Every API answer: keyed ones carry holders, queues and the ledger, never for a cache.
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(text),
        ...headers,
    });
    res.end(text);
}
/** Resolves on the first of drain or close, leaving no listener behind for the next wait. */
function drainedOrClosed(res) {
    return new Promise((resolve) => {
        const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
        };
        res.on('drain', done).on('close', done);
    });
}

// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __webpack_require__(7030);
;// CONCATENATED MODULE: ./src/kernel/store/state-lock.ts







/** Another kernel holds the log; the message names it, in one line. */
class StateLockedError extends store_error/* StartRefusedError */.Zy {
    constructor(message, options = {}) {
        super(message, { ...options, code: 'state_locked' });
    }
}
/** How long a start waits by default: a restart whose old process is still on its way out. */
const LOCK_WAIT_MS = 5_000;
const RETRY_MS = 100;
const ASK_TIMEOUT_MS = 1_000;
const ANSWER_BYTES = 512;
/**
 * The lock's socket name for a log: the same for every path that names that
 * file. The log is created first when missing (the store would create it, with
 * the same mode), so a file exists to have an identity; a log that cannot be
 * created refuses the start (StateLockedError, naming it).
 */
function lockAddress(logFile, platform = process.platform) {
    let identity;
    try {
        // 'a' creates without truncating, through a symlink to its target; nothing is written.
        (0,external_node_fs_.closeSync)((0,external_node_fs_.openSync)(logFile, 'a', 0o600));
        const { dev, ino } = (0,external_node_fs_.statSync)(logFile, { bigint: true });
        identity = `${dev}:${ino}`;
    }
    catch (error) {
        throw new StateLockedError(`Cannot open the kernel's log ${logFile} (${error.code ?? (0,errors/* causeText */.xv)(error)}): its folder must exist and be writable.`, { cause: error });
    }
    const hash = (0,external_node_crypto_.createHash)('sha256').update(identity).digest('hex').slice(0, 40);
    if (platform === 'linux')
        return `\0lease-gate:${hash}`;
    if (platform === 'win32')
        return `\\\\?\\pipe\\lease-gate-${hash}`;
    return (0,external_node_path_.join)((0,external_node_os_.tmpdir)(), `lease-gate-${hash}.sock`);
}
/**
 * Takes the lock of `logFile`, waiting up to `waitMs` while another process
 * holds it, then refusing with a StateLockedError naming that process.
 */
async function lockState(logFile, options) {
    const platform = options.platform ?? process.platform;
    const address = lockAddress(logFile, platform);
    const holder = options.holder ?? { pid: process.pid, startedAt: new Date().toISOString() };
    const answer = `${JSON.stringify(holder)}\n`;
    const deadline = options.now() + options.waitMs;
    let removedStale = false;
    for (;;) {
        const server = (0,external_node_net_.createServer)((socket) => {
            socket.on('error', () => undefined);
            socket.end(answer);
        });
        const error = await listen(server, address);
        if (!error) {
            // The lock is held by the process, not by the event loop: it must not keep a stopping kernel up.
            server.unref();
            return { close: () => new Promise((done) => server.close(() => done())) };
        }
        if (error.code !== 'EADDRINUSE') {
            throw new StateLockedError(`Cannot lock the kernel's log ${logFile} (${error.code ?? error.message}): a second kernel on it could not be kept out.`);
        }
        const other = await state_lock_ask(address);
        if (other === 'gone' && platform !== 'linux' && platform !== 'win32' && !removedStale) {
            // A socket file its process left behind (it was killed): nothing listens, so it is taken over.
            removedStale = true;
            try {
                (0,external_node_fs_.unlinkSync)(address);
            }
            catch {
                // Someone else removed it first: try again.
            }
            continue;
        }
        if (options.now() >= deadline)
            throw new StateLockedError(lockedMessage(logFile, other, options.waitMs));
        await options.sleep(RETRY_MS);
    }
}
function listen(server, address) {
    return new Promise((done) => {
        server.once('error', (error) => done(error));
        server.listen(address, () => done(undefined));
    });
}
/** The holder, as it says (checked: it is another process's word), or why not. */
function state_lock_ask(address) {
    return new Promise((done) => {
        let text = '';
        const socket = (0,external_node_net_.createConnection)(address);
        const finish = (result) => {
            socket.destroy();
            clearTimeout(timer);
            done(result);
        };
        const timer = setTimeout(() => finish('silent'), ASK_TIMEOUT_MS);
        socket.on('data', (chunk) => {
            text += chunk.toString('utf8');
            if (text.length > ANSWER_BYTES)
                finish('silent');
        });
        socket.on('end', () => finish(parseHolder(text)));
        socket.on('error', (error) => finish(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'gone' : 'silent'));
    });
}
function parseHolder(text) {
    try {
        const value = JSON.parse(text);
        if (Number.isInteger(value.pid) &&
            value.pid > 0 &&
            value.pid < 2 ** 32 &&
            typeof value.startedAt === 'string' &&
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(value.startedAt))
            return { pid: value.pid, startedAt: value.startedAt };
    }
    catch {
        // Not an answer of ours.
    }
    return 'silent';
}
function lockedMessage(logFile, other, waitMs) {
    const who = typeof other === 'object'
        ? `another kernel (pid ${other.pid}, started ${other.startedAt})`
        : 'another process';
    return `Refusing to start: ${who} holds the kernel's log ${logFile}. One kernel at a time keeps a log: stop that one first (this one waited ${waitMs / 1000} s for it to go), or give this one another --data-prefix.`;
}

// EXTERNAL MODULE: ./src/fs/processes.ts
var processes = __webpack_require__(5810);
;// CONCATENATED MODULE: ./src/kernel/notify/notify-config.ts




/**
 * The notifier's settings as the kernel's command takes them (`--notify URL`,
 * `--notify-secret-file FILE`, `--notify-file FILE`), checked whole at start: a URL that
 * would send the secret in clear, a short secret or a malformed file stops the kernel
 * before it serves, not at the first change.
 */
class notify_config_NotifyError extends errors/* LeaseGateError */.eg {
    name = 'NotifyError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'notify' });
    }
}
/** `--notify` URLs: https:, or plain http: to this machine only (never a secret in clear). */
function notify_config_checkNotifyUrl(raw) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        throw new notify_config_NotifyError(`Invalid --notify '${(0,url_display/* urlForDisplay */.B)(raw)}': expected an https: URL.`);
    }
    const secure = url.protocol === 'https:';
    const loopback = url.protocol === 'http:' && (0,plane_url/* isLoopbackHost */.c)(url.hostname);
    if (!(secure || loopback) || url.username || url.password) {
        throw new notify_config_NotifyError(`Invalid --notify '${url.origin}': expected an https: URL without credentials (plain http: only to loopback).`);
    }
    return url.href;
}
function readNotifySecret(file) {
    let secret;
    try {
        secret = (0,external_node_fs_.readFileSync)(file, 'utf8').trim();
    }
    catch (error) {
        throw new notify_config_NotifyError(`Cannot read --notify-secret-file ${file}: ${(0,errors/* causeText */.xv)(error)}`, {
            cause: error,
        });
    }
    if (secret.length < 16) {
        throw new notify_config_NotifyError(`--notify-secret-file ${file}: expected a secret of at least 16 characters.`);
    }
    return secret;
}
/**
 * `--notify-file FILE`: the same settings as a config entry,
 * `{"notify": {"urls": ["https://\u2026"], "secretFile": "/path"}}`; the flags add to its URLs
 * and `--notify-secret-file` wins over its secret file. Checked whole at start.
 */
function readNotifyFile(file) {
    let raw;
    try {
        raw = JSON.parse((0,external_node_fs_.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        throw new notify_config_NotifyError(`Cannot read --notify-file ${file}: ${(0,errors/* causeText */.xv)(error)}`, {
            cause: error,
        });
    }
    const form = `expected {"notify": {"urls": ["https://\u2026"], "secretFile": "FILE"}}`;
    const notify = raw?.notify;
    if (typeof notify !== 'object' || notify === null || Array.isArray(notify))
        throw new notify_config_NotifyError(`--notify-file ${file}: ${form}.`);
    const { urls, secretFile } = notify;
    if (!Array.isArray(urls) ||
        urls.length === 0 ||
        urls.length > 20 ||
        !urls.every((u) => typeof u === 'string'))
        throw new notify_config_NotifyError(`--notify-file ${file}: notify.urls: expected 1 to 20 URLs as strings.`);
    if (secretFile !== undefined && (typeof secretFile !== 'string' || secretFile === ''))
        throw new notify_config_NotifyError(`--notify-file ${file}: notify.secretFile: expected a file path.`);
    for (const url of urls)
        notify_config_checkNotifyUrl(url);
    return { urls, ...(secretFile ? { secretFile } : {}) };
}

// EXTERNAL MODULE: external "node:worker_threads"
var external_node_worker_threads_ = __webpack_require__(5919);
// EXTERNAL MODULE: ./src/ledger/entry.ts
var ledger_entry = __webpack_require__(5641);
;// CONCATENATED MODULE: ./src/kernel/notify/notification.ts





/** The red a chat shows a break-glass in (GitHub's danger red), and its severity. */
const BREAK_GLASS_COLOR = '#cf222e';
/** At most this many lines in a batch's `text`: a chat message, not a log (Slack cuts at 40,000 characters). */
const TEXT_LINES = 20;
const KINDS = new Set(entry_kinds/* ENTRY_KINDS */.p.filter((k) => k !== 'renew'));
/** Whether a change is notified (renewals are not). */
const notification_isNotified = (entry) => KINDS.has(entry.kind);
/**
 * A notification's id: the first 128 bits of the SHA-256 of its ledger entry's canonical
 * line, as a UUID (version 8, RFC 9562). The same change has the same id whenever it is
 * sent, before or after a restart; anyone with the ledger can tell which entry it names.
 */
function notificationId(entry) {
    return uuidOf((0,external_node_crypto_.createHash)('sha256').update((0,ledger_entry/* entryJson */.Bm)(entry)).digest());
}
function uuidOf(digest) {
    const b = Buffer.from(digest.subarray(0, 16));
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    const hex = b.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
/** The words a chat webhook shows. Plane-supplied text stays on one line. */
function notificationText(n) {
    // Control characters never reach a chat message.
    const line = (s) => CONTROL_CHAR.test(s) || s.length > 300 ? s.replace(CONTROL_CHARS, ' ').slice(0, 300) : s;
    const who = line(n.agent);
    const why = n.reason ? `: ${line(n.reason)}` : '';
    switch (n.kind) {
        case 'grant':
            return `${n.resource} granted to ${who} (fence ${n.fence ?? '?'})`;
        case 'release':
            return `${n.resource} released by ${who}`;
        case 'lapse':
            return `${n.resource} lapsed: ${who} stopped renewing it`;
        case 'revoke':
            return `${n.resource} revoked from ${who} by ${n.by ? line(n.by) : 'an operator'}${why}`;
        case 'freeze':
            if (n.agent === HEALTH_HOLD_BY)
                return `${n.resource} held while its health check fails${why}`;
            return `${n.resource} frozen ${n.until ? `until ${new Date(n.until).toISOString()}` : 'until unfrozen'} by ${who}${why}`;
        case 'unfreeze':
            return `${n.resource} unfrozen${why}`;
        case 'break_glass':
            return `\ud83d\udd34 BREAK-GLASS on ${n.resource}: ${who} may be granted it once past any freeze${n.until ? ` until ${new Date(n.until).toISOString()}` : ''}, opened by ${n.by ? line(n.by) : 'an operator'}${n.approvedBy ? `, approved by ${line(n.approvedBy)}` : ''}${why}`;
        case 'break_glass_withdrawn':
            return `${n.resource}: the break-glass for ${who} withdrawn by ${n.by ? line(n.by) : 'an operator'}${why}`;
    }
}
/** The notification of a ledger entry; `atMs` is the entry's stamp. */
function notification_notificationOf(entry) {
    if (!KINDS.has(entry.kind))
        return undefined;
    // One literal, fields added in place: this runs for every change a busy kernel makes.
    const n = {
        id: notificationId(entry),
        seq: entry.seq,
        kind: entry.kind,
        resource: entry.resource,
        agent: entry.actorDid,
        atMs: entry.tsMs,
        text: '',
    };
    if (entry.leaseId) {
        n.leaseId = entry.leaseId;
        n.fence = entry.fence;
    }
    if (entry.reason !== undefined)
        n.reason = entry.reason;
    if (entry.kind === 'freeze' && entry.expiresAtMs !== undefined)
        n.until = entry.expiresAtMs;
    if ((entry.kind === 'revoke' || entry.kind === 'break_glass_withdrawn') && entry.by !== undefined)
        n.by = entry.by;
    if (entry.kind === 'break_glass') {
        if (entry.expiresAtMs !== undefined)
            n.until = entry.expiresAtMs;
        if (entry.by !== undefined)
            n.by = entry.by;
        if (entry.approvedBy !== undefined)
            n.approvedBy = entry.approvedBy;
        n.severity = 'critical';
        n.color = BREAK_GLASS_COLOR;
    }
    n.text = notificationText(n);
    return n;
}
/**
 * One notification is sent as it is; several as `{id, kind: "batch", count, notifications,
 * text}` in the order they happened, `text` their lines one under the other (a chat webhook
 * shows them as they are), the first 19 and "\u2026 and N more changes" past 20. A batch's id is
 * derived from its first and last notifications' (the same run of changes, the same id).
 */
function notification_deliveryOf(notifications) {
    const items = notifications;
    if (items.length === 1) {
        const n = items[0];
        return { items, id: n.id, kind: n.kind, body: Buffer.from(JSON.stringify(n)) };
    }
    const id = uuidOf(createHash('sha256')
        .update(`batch ${items[0].id} ${items.at(-1).id} ${items.length}`)
        .digest());
    // A chat shows the first lines; the rest are in `notifications` (and the console).
    const shown = items.length > TEXT_LINES ? items.slice(0, TEXT_LINES - 1) : items;
    const more = items.length - shown.length;
    const text = shown.map((n) => n.text).join('\n') + (more ? `\n\u2026 and ${more} more changes` : '');
    const body = JSON.stringify({ id, kind: 'batch', count: items.length, notifications, text });
    return { items, id, kind: 'batch', body: Buffer.from(body) };
}

;// CONCATENATED MODULE: ./src/kernel/notify/notify.ts






/**
 * Signed notifications (`lease-gate kernel --notify URL --notify-secret-file FILE`):
 * every grant, release, lapse, revoke, freeze and unfreeze, once durable, is
 * POSTed as JSON to each URL, signed as GitHub signs its webhooks
 * (`X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body, hex>`) with a delivery
 * id (`X-Lease-Gate-Delivery`). The service tells the notifier after its commit,
 * and the notifier only queues there: a lease answer never waits for a delivery.
 * Per URL, deliveries go one at a time in the order the changes happened (so in
 * order per resource); what queued while one was out goes together in the next
 * (a batch), so a busy kernel sends one POST per round trip, not one per change.
 * A failed delivery is retried, same body and id, with back-off (doubling from
 * 250 ms to 30 s) for up to `retryForMs`, then given up, counted and shown in
 * `/readyz` and the console. A URL more than MAX_QUEUED behind drops new changes,
 * counted too, so a dead receiver costs bounded memory.
 *
 * Notifications follow the ledger: each is made from a ledger entry, and its id is derived
 * from that entry (`notificationId`), so a notification sent again after a restart has the
 * id it had (a receiver dedupes by it). `onDelivered` is told when a URL's delivery has
 * ended, which is where a file kernel's cursor moves (notify-cursor.ts); `resumeAt` skips
 * what a URL already had.
 */
/** A queue this long per URL drops new news (counted) rather than grow without end. */
const MAX_QUEUED = 10_000;
/** At most this many changes in one POST (a few hundred KB of JSON). */
const MAX_BATCH = 1_000;
/** The shortest time between two POSTs to one URL (the first after a quiet spell goes at once). */
const PACE_MS = 50;
const notify_FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const DEFAULT_RETRY_FOR_MS = (/* unused pure expression or super */ null && (10 * 60_000));
const KEPT_FAILURES = 20;
/** GitHub's webhook signature of a body. */
const signBody = (secret, body) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
/**
 * One URL's news: a single FIFO (so in order per resource too) drained by one loop with
 * one request in flight. Whatever queued while a request was out goes in the next one as a
 * batch, so under load the kernel sends one POST per round trip, not one per change.
 */
class Target {
    url;
    items = [];
    head = 0;
    dropped = 0;
    draining = false;
    /** When the last POST to this URL began (performance.now()). */
    sentAt = -Infinity;
    /** The first ledger index this URL is sent: it had what came before (resumeAt). */
    from = 0;
    constructor(url) {
        this.url = url;
    }
    get queued() {
        return this.items.length - this.head;
    }
    add(item) {
        this.items.push(item);
    }
    /** Up to `max` of the oldest, left in place until `done`. */
    peek(max) {
        return this.items.slice(this.head, this.head + max);
    }
    done(count) {
        this.head += count;
        // Compacts now and then: O(1) a change, memory bounded by what is queued.
        if (this.head > 1_024 && this.head * 2 > this.items.length) {
            this.items = this.items.slice(this.head);
            this.head = 0;
        }
    }
}
class notify_Notifier {
    options;
    targets;
    http;
    ownHttp;
    retryForMs;
    now;
    failures = [];
    running = new Set();
    stop = new AbortController();
    delivered = 0;
    deliveries = 0;
    failedCount = 0;
    constructor(options) {
        this.options = options;
        this.targets = options.urls.map((url) => new Target(checkNotifyUrl(url)));
        this.ownHttp = options.http === undefined;
        this.http = options.http ?? createHttpClient({ headersTimeoutMs: 10_000 });
        this.retryForMs = options.retryForMs ?? DEFAULT_RETRY_FOR_MS;
        this.now = options.now ?? (() => performance.now());
    }
    /**
     * Subscribes to the service's changes as the ledger records them (once, in order, across
     * replicas too); returns what `/readyz` shows.
     */
    attach(service) {
        service.onRecorded((entries) => {
            for (const entry of entries)
                this.push(entry);
        });
        return { health: () => ({ notifications: this.health() }) };
    }
    /** Entries before `seq` are not sent to `url` (it had them before a restart); by URL as given. */
    resumeAt(from) {
        for (const target of this.targets)
            target.from = from[target.url] ?? target.from;
    }
    /**
     * Queues a change (called after its commit, on the answer's path): no I/O, no
     * serialising, nothing awaited; the body is made when it is sent.
     */
    push(entry) {
        if (!isNotified(entry) || this.stop.signal.aborted)
            return;
        for (const target of this.targets) {
            if (entry.seq < target.from)
                continue;
            if (target.queued >= MAX_QUEUED) {
                // The newest is dropped, so what a receiver gets stays a gapless prefix; counted.
                target.dropped += 1;
                if (target.dropped === 1) {
                    this.options.log?.(`kernel: notifications to ${new URL(target.url).origin} are ${MAX_QUEUED} behind; dropping new ones (counted in /readyz)`);
                    this.options.onChange?.();
                }
                continue;
            }
            target.add({ entry });
            if (target.draining)
                continue;
            target.draining = true;
            // Started on the next turn, after the answer that caused it has been written.
            const run = new Promise((resolve) => setImmediate(resolve))
                .then(() => this.drain(target))
                .finally(() => {
                target.draining = false;
                this.running.delete(run);
            });
            this.running.add(run);
        }
    }
    health() {
        const pending = this.targets.reduce((n, t) => n + t.queued, 0);
        const dropped = this.targets.reduce((n, t) => n + t.dropped, 0);
        return {
            ok: this.failedCount === 0 && dropped === 0,
            delivered: this.delivered,
            requests: this.deliveries,
            pending,
            failed: this.failedCount,
            dropped,
            recentFailures: [...this.failures],
        };
    }
    /** Stops retrying, lets deliveries in flight end (or waits `graceMs`), closes the client. */
    async close(graceMs = 2_000) {
        const idle = Promise.all([...this.running]);
        await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
        this.stop.abort();
        await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
        if (this.ownHttp)
            await this.http.close();
    }
    /** Until the URL's queue is empty: sends the oldest (as a batch when several wait), then the next. */
    async drain(target) {
        while (target.queued > 0 && !this.stop.signal.aborted) {
            // At most one POST per PACE_MS per URL, counted from the last one even when the queue
            // ran dry in between: a busy kernel's news go in a few large batches instead of many
            // small ones that each cost a request on both sides.
            const rest = target.sentAt + PACE_MS - performance.now();
            if (rest > 0)
                await sleep(rest, this.stop.signal);
            target.sentAt = performance.now();
            const items = target.peek(MAX_BATCH);
            const delivery = deliveryOf(items.map((i) => notificationOf(i.entry)));
            const ended = await this.deliver(target, delivery);
            target.done(items.length);
            if (ended)
                this.options.onDelivered?.(target.url, delivery.items.at(-1));
            this.options.onChange?.();
        }
    }
    /** Sends until answered 2xx or given up (true), or cut short by `close()` (false: still owed). */
    async deliver(target, delivery) {
        const { body } = delivery;
        const headers = {
            'content-type': 'application/json',
            'user-agent': 'lease-gate-kernel',
            'x-hub-signature-256': signBody(this.options.secret, body),
            'x-lease-gate-delivery': delivery.id,
            'x-lease-gate-event': delivery.kind,
        };
        const giveUpAt = this.now() + this.retryForMs;
        let wait = notify_FIRST_RETRY_MS;
        let lastError = '';
        for (let attempt = 1; attempt <= 1_000; attempt += 1) {
            if (this.stop.signal.aborted)
                break;
            try {
                const answer = await this.http.send({
                    method: 'POST',
                    url: target.url,
                    headers,
                    body,
                    signal: this.stop.signal,
                });
                if (answer.status >= 200 && answer.status < 300) {
                    this.deliveries += 1;
                    this.delivered += delivery.items.length;
                    return true;
                }
                lastError = `HTTP ${answer.status}`;
                // A 4xx other than 408 and 429 will not change by asking again.
                if (answer.status < 500 && answer.status !== 408 && answer.status !== 429)
                    break;
            }
            catch (error) {
                if (this.stop.signal.aborted)
                    break;
                lastError = withoutUrl(causeText(error), target.url);
            }
            if (this.now() + wait > giveUpAt)
                break;
            await (this.options.sleep ?? sleep)(wait, this.stop.signal);
            wait = Math.min(MAX_RETRY_MS, wait * 2);
        }
        // Stopping is not giving up: what was not answered is sent at the next start (a file kernel).
        if (this.stop.signal.aborted)
            return false;
        this.failedCount += delivery.items.length;
        const first = delivery.items[0];
        const failure = {
            id: delivery.id,
            url: new URL(target.url).origin,
            kind: first.kind,
            resource: first.resource,
            error: lastError.slice(0, 300),
            atMs: Date.now(),
        };
        this.failures.push(failure);
        if (this.failures.length > KEPT_FAILURES)
            this.failures.shift();
        const what = delivery.items.length === 1
            ? `a ${first.kind} notification on ${first.resource}`
            : `a batch of ${delivery.items.length} notifications (from a ${first.kind} on ${first.resource})`;
        this.options.log?.(`kernel: gave up ${what} to ${failure.url}: ${failure.error}`);
        return true;
    }
}
/**
 * An error's words without the URL's path and query: a chat webhook's URL is its credential
 * (Slack's and Teams' carry the secret in the path), and failures reach `/readyz`, the
 * console and the log. The origin stays, to say which receiver failed.
 */
function withoutUrl(message, url) {
    const origin = new URL(url).origin;
    // The HTTP client's messages name the URL as shown (urlForDisplay), which still has the path.
    return message.split(url).join(`${origin}/\u2026`).split(urlForDisplay(url)).join(`${origin}/\u2026`);
}
function sleep(ms, signal) {
    return new Promise((resolve) => {
        if (signal.aborted)
            return resolve();
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resolve();
        }
        signal.addEventListener('abort', done, { once: true });
    });
}

// EXTERNAL MODULE: ./src/fs/durable.ts
var durable = __webpack_require__(9224);
;// CONCATENATED MODULE: ./src/kernel/notify/notify-cursor.ts





const RESUME_BOUNDS = { maxEntries: 10_000, maxAgeMs: 24 * 3_600_000 };
/** Entries read from the ledger between two yields to the kernel's other work. */
const SCAN_SLICE = 2_000;
/** The cursor file of a log file. */
const cursorFileOf = (logFile) => `${logFile}.notify.json`;
/** A URL as the file names it: a hash, never the URL (a webhook's path is its secret). */
const urlKey = (url) => (0,external_node_crypto_.createHash)('sha256').update(url).digest('hex').slice(0, 32);
/** The file's text for these URLs' points (URLs no longer notified are left out). */
function cursorText(cursors) {
    const targets = {};
    for (const [url, point] of Object.entries(cursors))
        targets[urlKey(url)] = point;
    return `${JSON.stringify({ version: 1, targets })}\n`;
}
function notify_cursor_writeCursors(file, cursors) {
    (0,durable/* writeFileDurableSync */.Qc)(file, cursorText(cursors));
}
/** The file as found: its points by URL key, or none (first start), or why it is unusable. */
function readCursorFile(file) {
    let text;
    try {
        text = (0,external_node_fs_.readFileSync)(file, 'utf8');
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return { missing: true };
        return { invalid: `it cannot be read (${error.code ?? 'error'})` };
    }
    let raw;
    try {
        raw = JSON.parse(text);
    }
    catch {
        return { invalid: 'it is not JSON' };
    }
    const form = raw;
    if (typeof form !== 'object' ||
        form === null ||
        form.version !== 1 ||
        typeof form.targets !== 'object' ||
        form.targets === null)
        return { invalid: 'it is not {"version": 1, "targets": {...}}' };
    const points = {};
    for (const [key, value] of Object.entries(form.targets)) {
        const point = value;
        if (typeof point !== 'object' ||
            point === null ||
            !Number.isSafeInteger(point.next) ||
            point.next < 0 ||
            (point.id !== undefined && (typeof point.id !== 'string' || point.id.length > 64)))
            return { invalid: `its entry ${key.slice(0, 40)} is not {"next": N, "id": "\u2026"}` };
        points[key] = { next: point.next, id: point.id };
    }
    return { points };
}
/**
 * From the cursor file and the ledger: for each URL where it starts, and the entries it is
 * still owed. A URL with no cursor (first start with it) or one that does not match this
 * ledger (another log under the same name) starts at the ledger's end, saying so for the
 * second. What is owed is read back from the ledger's end, newest first, at most
 * `bounds.maxEntries` notifications and none stamped more than `bounds.maxAgeMs` before
 * `nowMs`: what lies beyond is skipped and named (the ledger export still has it).
 */
async function planResume(ledger, urls, file, nowMs, bounds = RESUME_BOUNDS) {
    const size = ledger.size;
    const notes = [];
    const stored = readCursorFile(file);
    if ('invalid' in stored)
        notes.push(`the notification cursor ${file} was not used: ${stored.invalid}; notifications start at ledger entry ${size}`);
    const atEnd = () => ({ next: size, id: idAt(ledger, size - 1) });
    const cursors = {};
    for (const url of urls) {
        const point = 'points' in stored ? stored.points[urlKey(url)] : undefined;
        if (!point) {
            cursors[url] = atEnd();
        }
        else if (point.next > size || (point.next > 0 && idAt(ledger, point.next - 1) !== point.id)) {
            notes.push(`the notification cursor of ${origin(url)} (ledger entry ${point.next}) does not match this ledger; its notifications start at entry ${size}`);
            cursors[url] = atEnd();
        }
        else {
            cursors[url] = point;
        }
    }
    const low = Math.min(size, ...Object.values(cursors).map((c) => c.next));
    // Newest first, down to the lowest cursor, within the bounds.
    const owed = [];
    const oldest = nowMs - bounds.maxAgeMs;
    let floor = size;
    for (let i = size - 1; i >= low; i -= 1) {
        if ((size - 1 - i) % SCAN_SLICE === SCAN_SLICE - 1)
            await (0,external_node_timers_promises_.setImmediate)();
        const entry = ledger.entry(i);
        if (!entry || entry.tsMs < oldest)
            break;
        if (notification_isNotified(entry)) {
            if (owed.length === bounds.maxEntries)
                break;
            owed.push(entry);
        }
        floor = i;
    }
    owed.reverse();
    for (const url of urls) {
        const point = cursors[url];
        if (point.next < floor) {
            notes.push(`notifications to ${origin(url)} of ledger entries ${point.next} to ${floor - 1} are not sent: more than ${bounds.maxEntries} notifications or ${Math.round(bounds.maxAgeMs / 3_600_000)} h behind (\`lease-gate ledger export\` has them)`);
            cursors[url] = { next: floor, id: idAt(ledger, floor - 1) };
        }
        const count = owed.filter((e) => e.seq >= cursors[url].next).length;
        if (count > 0)
            notes.push(`sending ${origin(url)} the ${count} notifications committed before the restart and not yet delivered (from ledger entry ${cursors[url].next})`);
    }
    return { cursors, entries: owed, notes };
}
function idAt(ledger, index) {
    const entry = index >= 0 ? ledger.entry(index) : undefined;
    return entry && notificationId(entry);
}
const origin = (url) => new URL(url).origin;

;// CONCATENATED MODULE: ./src/kernel/notify/notify-thread.ts










/**
 * Notifications off the kernel's thread. The kernel answers every request on one thread,
 * and notifications made there (ids, text, JSON, HMAC, the POSTs) cost it about a sixth of
 * its time (`npm run bench -- notify`: 63 \u2192 76 \u00b5s of CPU per request). Here that thread
 * only hands the changes over, as they are, in one message per HANDOFF_MS at most (47 \u2192 47
 * \u00b5s); a worker thread runs the `Notifier` (queues, batches, retries, signatures) at a
 * lower priority and reports its health back when it changes, which `/readyz` shows.
 *
 * The worker is its own bundle, dist/notify/ (built from src/bin/notify.ts), found beside
 * the CLI's; run from source (the tests), it is src/bin/notify.ts through tsx, as helper
 * processes are (src/lease/helpers.ts).
 *
 * With a cursor file (a file kernel, notify-cursor.ts) the worker follows the ledger across
 * restarts: at start this thread reads the cursor and the entries after it from the ledger
 * and hands them over first (the worker never reads the ledger), live changes after them;
 * the worker moves the cursor when a delivery has ended, never when it was handed over.
 */
/** The shortest time between two hand-overs to the worker. */
const HANDOFF_MS = 10;
/** How long close() waits for a worker still starting (from source tsx compiles it first). */
const START_WAIT_MS = 30_000;
/**
 * The worker: dist/cli/*.js \u2192 dist/notify/index.js; from source (src/kernel/*.ts),
 * src/bin/notify.ts loaded through tsx's API (a worker takes no `--import` of its own).
 */
function notifyWorker(moduleUrl = import.meta.url) {
    const path = (0,external_node_url_.fileURLToPath)(moduleUrl);
    const here = (0,external_node_path_.dirname)(path);
    if (path.endsWith('.ts')) {
        const root = (0,external_node_path_.join)(here, '..', '..', '..');
        const entry = (0,external_node_path_.join)(root, 'src', 'bin', 'notify.ts');
        const tsx = (0,external_node_path_.join)(root, 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs');
        for (const file of [entry, tsx]) {
            if (!(0,external_node_fs_.existsSync)(file))
                throw new notify_config_NotifyError(`lease-gate cannot find its notification worker ${file}.`);
        }
        const code = `import(${JSON.stringify((0,external_node_url_.pathToFileURL)(tsx).href)}).then(({ tsImport }) => tsImport(${JSON.stringify((0,external_node_url_.pathToFileURL)(entry).href)}, ${JSON.stringify(moduleUrl)}));`;
        return { file: code, eval: true };
    }
    const file = (0,external_node_path_.join)(here, '..', 'notify', 'index.js');
    if (!(0,external_node_fs_.existsSync)(file)) {
        throw new notify_config_NotifyError(`lease-gate cannot find its notification worker ${file}; is dist/ complete?`);
    }
    return { file, eval: false };
}
class NotifierThread {
    options;
    worker;
    log;
    urls;
    batch = [];
    flushing = false;
    lastFlush = -Infinity;
    /** Changes handed to the worker, and the worker's last report of what it has and how it does. */
    posted = 0;
    report = {
        received: 0,
        health: {
            ok: true,
            delivered: 0,
            requests: 0,
            pending: 0,
            failed: 0,
            dropped: 0,
            recentFailures: [],
        },
    };
    /** Set when the worker has stopped on its own: what it was given since is lost, and counted. */
    stopped;
    lost = 0;
    closed;
    exited;
    started;
    settings;
    /** Set while the backlog is read from the ledger: live changes wait behind it. */
    resuming;
    constructor(options) {
        this.options = options;
        // Checked here, before the kernel starts, so a wrong URL is a usage error, not a worker's.
        const urls = options.urls.map((url) => notify_config_checkNotifyUrl(url));
        this.urls = urls.length;
        this.log = options.log ?? (() => undefined);
        this.settings = { urls, secret: options.secret, cursorFile: options.cursorFile };
        const worker = options.workerFile ? { file: options.workerFile, eval: false } : notifyWorker();
        this.worker = new external_node_worker_threads_.Worker(worker.file, { workerData: this.settings, eval: worker.eval });
        // Never what keeps the kernel's process alive: close() ends it, and so does the process.
        this.worker.unref();
        this.started = new Promise((resolve) => this.worker.on('message', (m) => m.type === 'ready' && resolve()));
        this.worker.on('message', (message) => this.heard(message));
        this.worker.on('error', (error) => this.fail(error.message));
        this.exited = new Promise((resolve) => this.worker.once('exit', (code) => {
            if (!this.closed)
                this.fail(`it exited (code ${code})`);
            resolve();
        }));
    }
    /**
     * Subscribes to the service's entries; with a cursor file, first hands over what the
     * ledger holds after it (read now, before any later change is told, so none is missed
     * or told twice).
     */
    attach(service) {
        service.onRecorded((entries) => this.push(entries));
        if (this.settings.cursorFile)
            this.resuming = this.resume(service.ledger);
        return { health: () => ({ notifications: this.health() }) };
    }
    /**
     * Called after a commit, on the answer's path: keeps the changes that are notified and
     * hands them over on the next turn, one message for all that one turn committed.
     */
    push(entries) {
        for (const entry of entries)
            if (notification_isNotified(entry))
                this.batch.push(entry);
        if (this.flushing || this.resuming || this.batch.length === 0)
            return;
        this.flushing = true;
        // A message costs both threads far more than a change in it: after a quiet spell the
        // changes go on the next turn, under load at most one message every HANDOFF_MS.
        const wait = this.lastFlush + HANDOFF_MS - performance.now();
        if (wait <= 0)
            setImmediate(() => this.flush());
        else
            setTimeout(() => this.flush(), wait);
    }
    health() {
        const { received, health } = this.report;
        const inTransit = this.stopped ? 0 : this.posted - received + this.batch.length;
        const dropped = health.dropped + this.lost;
        return {
            ...health,
            ok: health.ok && dropped === 0 && !this.stopped,
            pending: health.pending + inTransit * this.urls,
            dropped,
            ...(this.stopped ? { stopped: this.stopped } : {}),
        };
    }
    /** Hands over what is left, lets the worker end its deliveries (or `graceMs`), then ends it. */
    close(graceMs = 2_000) {
        this.closed ??= (async () => {
            await this.resuming;
            this.flush();
            if (!this.stopped) {
                // A worker still starting has not taken anything yet: its grace begins once it has.
                let wait;
                await Promise.race([
                    this.started,
                    this.exited,
                    new Promise((resolve) => (wait = setTimeout(resolve, START_WAIT_MS))),
                ]);
                clearTimeout(wait);
                const done = new Promise((resolve) => this.worker.on('message', (m) => m.type === 'closed' && resolve()));
                this.worker.postMessage({ type: 'close', graceMs });
                let timer;
                await Promise.race([
                    done,
                    this.exited,
                    new Promise((resolve) => (timer = setTimeout(resolve, graceMs + 1_000))),
                ]);
                clearTimeout(timer);
            }
            await this.worker.terminate();
        })();
        return this.closed;
    }
    /**
     * Reads where each URL stands and what it is owed (bounded), saves the starting points,
     * tells the worker, then hands over the backlog ahead of what was committed meanwhile.
     * If the ledger or the cursor cannot be read, notifications go on from the next change.
     */
    async resume(ledger) {
        const file = this.settings.cursorFile;
        try {
            const plan = await planResume(ledger, this.settings.urls, file, (this.options.now ?? Date.now)(), this.options.resumeBounds ?? RESUME_BOUNDS);
            for (const note of plan.notes)
                this.log(`kernel: ${note}`);
            notify_cursor_writeCursors(file, plan.cursors);
            this.worker.postMessage({ type: 'resume', cursors: plan.cursors });
            // What was committed since attach() is in the batch already: all after these.
            this.batch = [...plan.entries, ...this.batch];
        }
        catch (error) {
            this.log(`kernel: notifications could not resume from ${file}: ${(0,errors/* errorMessage */.gJ)(error)}; they go on from the next change`);
        }
        finally {
            this.resuming = undefined;
            this.push([]);
        }
    }
    flush() {
        this.flushing = false;
        this.lastFlush = performance.now();
        if (this.batch.length === 0)
            return;
        const events = this.batch;
        this.batch = [];
        if (this.stopped) {
            this.lost += events.length * this.urls;
            return;
        }
        this.posted += events.length;
        this.worker.postMessage({ type: 'events', events });
    }
    heard(message) {
        if (message.type === 'ready')
            return;
        if (message.type === 'health')
            this.report = message;
        else if (message.type === 'log')
            this.log(message.line);
    }
    fail(why) {
        if (this.stopped || this.closed)
            return;
        this.stopped = `the notification thread stopped: ${why}`;
        // What it held is gone with it: counted as dropped, as a URL too far behind drops.
        const { received, health } = this.report;
        this.lost += health.pending + (this.posted - received) * this.urls;
        this.report = { received: this.posted, health: { ...health, pending: 0 } };
        this.log(`kernel: ${this.stopped}; changes are no longer notified (see /readyz)`);
    }
}
/**
 * The worker's side (dist/notify/): a `Notifier` fed by the kernel's messages. Its health
 * goes back at most once a turn, and only when it changed (a delivery ended, drops began).
 */
function serveNotifications() {
    const port = parentPort;
    const settings = workerData;
    if (!port || !settings || !Array.isArray(settings.urls) || typeof settings.secret !== 'string') {
        throw new NotifyError("The notification worker runs only as the kernel's worker thread.");
    }
    lowerPriority();
    const log = (line) => port.postMessage({ type: 'log', line });
    let received = 0;
    /** Set by the kernel's 'resume': where each URL stands, saved as each delivery ends. */
    let cursors;
    let saveFailing = false;
    const save = () => {
        if (!cursors || !settings.cursorFile)
            return;
        try {
            writeCursors(settings.cursorFile, cursors);
            saveFailing = false;
        }
        catch (error) {
            // Nothing is lost: the next start sends again from the cursor last saved.
            if (!saveFailing)
                log(`kernel: cannot save the notification cursor ${settings.cursorFile}: ${errorMessage(error)}; a restart would send some notifications again`);
            saveFailing = true;
        }
    };
    let reporting = false;
    const sendHealth = () => port.postMessage({ type: 'health', received, health: notifier.health() });
    const report = () => {
        if (reporting)
            return;
        reporting = true;
        setImmediate(() => {
            reporting = false;
            sendHealth();
        });
    };
    const notifier = new Notifier({
        urls: settings.urls,
        secret: settings.secret,
        log,
        onChange: report,
        onDelivered: (url, last) => {
            if (!cursors)
                return;
            cursors[url] = { next: last.seq + 1, id: last.id };
            save();
        },
    });
    port.on('message', (message) => {
        if (message.type === 'events') {
            for (const entry of message.events)
                notifier.push(entry);
            received += message.events.length;
            return;
        }
        if (message.type === 'resume') {
            cursors = { ...message.cursors };
            notifier.resumeAt(Object.fromEntries(Object.entries(cursors).map(([u, c]) => [u, c.next])));
            return;
        }
        void notifier.close(message.graceMs).then(() => {
            sendHealth();
            port.postMessage({ type: 'closed' });
            port.close();
        });
    });
    port.postMessage({ type: 'ready' });
}
/**
 * On Linux a nice value belongs to a thread, and `setPriority(0, \u2026)` sets the calling
 * thread's: the worker yields to the thread that answers when the cores are busy (its news
 * then wait a little and go in larger batches). Elsewhere it would lower the whole process,
 * so it is left alone. Lowering one's own priority needs no privilege; a refusal changes nothing.
 */
function lowerPriority() {
    if (process.platform !== 'linux')
        return;
    try {
        setPriority(0, 10);
    }
    catch {
        // Best effort: the worker runs at the kernel's priority.
    }
}

;// CONCATENATED MODULE: ./src/kernel/service/windows.ts


class WindowsError extends errors/* LeaseGateError */.eg {
    name = 'WindowsError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'windows' });
    }
}
const MINUTE = 60_000;
const DAY = 86_400_000;
const MAX_DURATION_MS = 31 * DAY;
const FIELDS = [
    { name: 'minute', min: 0, max: 59 },
    { name: 'hour', min: 0, max: 23 },
    { name: 'day of month', min: 1, max: 31 },
    { name: 'month', min: 1, max: 12 },
    { name: 'day of week', min: 0, max: 7 },
];
class FreezeWindows {
    windows;
    constructor(windows) {
        this.windows = windows;
    }
    static fromFile(file) {
        let text;
        try {
            text = (0,external_node_fs_.readFileSync)(file, 'utf8');
        }
        catch (error) {
            throw new WindowsError(`Cannot read the windows file ${file}: ${(0,errors/* causeText */.xv)(error)}`, {
                cause: error,
            });
        }
        return FreezeWindows.parse(text, file);
    }
    /** Checks every entry; the error names the file, the entry and the field. */
    static parse(text, source = 'windows') {
        let raw;
        try {
            raw = JSON.parse(text);
        }
        catch (error) {
            throw new WindowsError(`${source}: not JSON (${(0,errors/* causeText */.xv)(error)})`, { cause: error });
        }
        const list = raw?.windows;
        if (!Array.isArray(list) || list.length > 100) {
            throw new WindowsError(`${source}: expected {"windows": [ ... ]} with at most 100 entries`);
        }
        return new FreezeWindows(list.map((entry, i) => checkEntry(entry, `${source}: entry ${i + 1}`)));
    }
    get size() {
        return this.windows.length;
    }
    /** The window in force on this resource at `now`, as a freeze (the one that ends last). */
    activeFor(resource, now) {
        let found;
        for (const w of this.windows) {
            if (!covers(w, resource))
                continue;
            const start = startInForce(w, now);
            if (start === null)
                continue;
            const untilMs = start + w.durationMs;
            if (!found || untilMs > (found.untilMs ?? 0)) {
                found = {
                    reason: `${w.reason} (window ${w.name})`,
                    untilMs,
                    by: `window:${w.name}`,
                    atMs: start,
                };
            }
        }
        return found;
    }
    /** Every window, with whether it is in force and when it next starts, for the console. */
    describe(now) {
        return this.windows.map((w) => {
            const start = startInForce(w, now);
            return {
                name: w.name,
                schedule: w.schedule,
                timeZone: w.timeZone,
                durationMs: w.durationMs,
                resources: w.resources,
                reason: w.reason,
                activeFromMs: start,
                activeUntilMs: start === null ? null : start + w.durationMs,
                nextStartMs: nextStart(w, now),
            };
        });
    }
}
function checkEntry(entry, where) {
    if (!entry || typeof entry !== 'object')
        throw new WindowsError(`${where}: expected an object`);
    const e = entry;
    const text = (field, max) => {
        const value = e[field];
        if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
            throw new WindowsError(`${where}: ${field}: expected a string of 1 to ${max} characters`);
        }
        return value;
    };
    const name = text('name', 100);
    const at = `${where} ("${name.replace(/[^\x20-\x7e]/g, '?')}")`;
    const schedule = text('schedule', 200);
    const parsed = parseSchedule(schedule, `${at}: schedule`);
    const duration = text('duration', 20);
    const durationMs = parseWindowDuration(duration);
    if (durationMs === undefined) {
        throw new WindowsError(`${at}: duration: expected a duration such as '90m', '4h' or '2d' (at most 31d), not '${duration.slice(0, 20)}'`);
    }
    const timeZone = text('timeZone', 100);
    let format;
    try {
        format = new Intl.DateTimeFormat('en-US', {
            timeZone,
            hourCycle: 'h23',
            weekday: 'short',
            month: 'numeric',
            day: 'numeric',
            hour: 'numeric',
            minute: 'numeric',
        });
    }
    catch {
        throw new WindowsError(`${at}: timeZone: expected an IANA time zone such as 'Europe/Berlin' or 'UTC', not '${timeZone.slice(0, 60)}'`);
    }
    const resources = e.resources;
    if (!Array.isArray(resources) ||
        resources.length === 0 ||
        resources.length > 100 ||
        !resources.every((r) => typeof r === 'string' && /^[\x21-\x7e]{1,256}$/.test(r))) {
        throw new WindowsError(`${at}: resources: expected 1 to 100 resource names (printable, no spaces; a trailing * matches a prefix)`);
    }
    const reason = text('reason', 1_000);
    return {
        name,
        schedule,
        duration,
        durationMs,
        timeZone,
        resources: resources,
        reason,
        parsed,
        fields: zonedFields(format),
    };
}
function parseWindowDuration(raw) {
    const match = /^(\d+)(m|h|d)$/.exec(raw.trim());
    if (!match)
        return undefined;
    const ms = Number(match[1]) * { m: MINUTE, h: 60 * MINUTE, d: DAY }[match[2]];
    return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}
function parseSchedule(schedule, where) {
    const parts = schedule.trim().split(/\s+/);
    if (parts.length !== 5) {
        throw new WindowsError(`${where}: expected five fields (minute hour day-of-month month day-of-week), as '0 18 * * 5'`);
    }
    const sets = parts.map((part, i) => parseField(part, FIELDS[i], where));
    const weekdays = new Set([...sets[4]].map((d) => d % 7));
    return {
        minutes: sets[0],
        hours: sets[1],
        days: sets[2],
        months: sets[3],
        weekdays,
        dayOr: parts[2] !== '*' && parts[4] !== '*',
    };
}
function parseField(part, field, where) {
    const values = new Set();
    for (const item of part.split(',')) {
        const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
        const bad = () => new WindowsError(`${where}: ${field.name} '${item.slice(0, 20)}': expected *, a number from ${field.min} to ${field.max}, a range a-b, a list a,b or a step */n`);
        if (!match)
            throw bad();
        const from = match[1] === '*' ? field.min : Number(match[2]);
        const to = match[1] === '*' ? field.max : match[3] !== undefined ? Number(match[3]) : from;
        const step = match[4] !== undefined ? Number(match[4]) : 1;
        if (from < field.min || to > field.max || from > to || step < 1)
            throw bad();
        for (let v = from; v <= to; v += step)
            values.add(v);
    }
    return values;
}
function zonedFields(format) {
    const WEEKDAYS = {
        Sun: 0,
        Mon: 1,
        Tue: 2,
        Wed: 3,
        Thu: 4,
        Fri: 5,
        Sat: 6,
    };
    return (ms) => {
        const f = {};
        for (const p of format.formatToParts(ms))
            f[p.type] = p.value;
        return {
            minute: Number(f.minute),
            hour: Number(f.hour) % 24,
            day: Number(f.day),
            month: Number(f.month),
            weekday: WEEKDAYS[f.weekday ?? ''] ?? 0,
        };
    };
}
function dayMatches(s, f) {
    if (!s.months.has(f.month))
        return false;
    if (s.dayOr)
        return s.days.has(f.day) || s.weekdays.has(f.weekday);
    return s.days.has(f.day) && s.weekdays.has(f.weekday);
}
const covers = (w, resource) => w.resources.some((r) => (r.endsWith('*') ? resource.startsWith(r.slice(0, -1)) : r === resource));
/**
 * The latest scheduled start in (now - duration, now], or null. Walks back from
 * now a day, an hour or a minute at a time (whichever field fails), so a window
 * costs at most a few thousand steps, once a minute (cached).
 */
function startInForce(w, now) {
    const minute = Math.floor(now / MINUTE);
    if (w.cache?.minute === minute)
        return w.cache.start;
    let t = minute * MINUTE;
    let start = null;
    for (let steps = 0; t > now - w.durationMs && steps < 20_000; steps += 1) {
        const f = w.fields(t);
        if (!dayMatches(w.parsed, f))
            t -= (f.hour * 60 + f.minute + 1) * MINUTE;
        else if (!w.parsed.hours.has(f.hour))
            t -= (f.minute + 1) * MINUTE;
        else if (!w.parsed.minutes.has(f.minute))
            t -= MINUTE;
        else {
            start = t;
            break;
        }
    }
    w.cache = { minute, start };
    return start;
}
/** The next start after now, walking forward the same way, within a year. */
function nextStart(w, now) {
    let t = (Math.floor(now / MINUTE) + 1) * MINUTE;
    const end = now + 366 * DAY;
    for (let steps = 0; t <= end && steps < 50_000; steps += 1) {
        const f = w.fields(t);
        if (!dayMatches(w.parsed, f))
            t += (24 * 60 - f.hour * 60 - f.minute) * MINUTE;
        else if (!w.parsed.hours.has(f.hour))
            t += (60 - f.minute) * MINUTE;
        else if (!w.parsed.minutes.has(f.minute))
            t += MINUTE;
        else
            return t;
    }
    return null;
}

;// CONCATENATED MODULE: ./src/fs/create-once.ts



/**
 * Creates `path` with `text` unless it exists: true if this call made it, false if it was
 * there already. The text is written and synced under a name of its own, then linked into
 * place: link(2) fails where the name exists, as O_EXCL does, so of two processes that race
 * exactly one creates it, and neither reader ever sees it half written. The directory is
 * synced after (durable.ts's policy), so a crash cannot take back a file that was reported made.
 */
function createFileOnce(path, text, mode = 0o600) {
    const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
    // 'wx': a name of its own, never written through; a temporary file it could not fill is removed.
    (0,durable/* writeTempSync */.Re)(temp, text, 'wx', mode);
    try {
        (0,external_node_fs_.linkSync)(temp, path);
    }
    catch (error) {
        if (error.code === 'EEXIST')
            return false;
        throw error;
    }
    finally {
        (0,external_node_fs_.unlinkSync)(temp);
    }
    (0,durable/* syncDirectorySync */.sq)((0,external_node_path_.dirname)(path));
    return true;
}

// EXTERNAL MODULE: ./src/ledger/checkpoint.ts
var checkpoint = __webpack_require__(4491);
;// CONCATENATED MODULE: ./src/cli/kernel-identity.ts







/** Where a file kernel without --signing-key keeps the key it made: beside its log. */
const signingKeyFileOf = (logFile) => `${logFile}.key`;
/**
 * The ledger's signing key: --signing-key FILE; else, for a kernel with a log, the key
 * beside it (made once, at its first start, and kept); else one made for this run. A
 * durable ledger signed by a new key at each restart would break every `verify --previous`.
 */
function kernelIdentity(flagFile, logFile) {
    if (flagFile) {
        const key = readKey(flagFile, (why, cause) => new cli_options/* UsageError */.eb(why, { cause }));
        return { key, line: `ledger ${kernel_identity_origin(key)} signs with --signing-key ${flagFile}` };
    }
    if (logFile)
        return keptKey(signingKeyFileOf(logFile));
    const key = (0,external_node_crypto_.generateKeyPairSync)('ed25519').privateKey;
    const pem = String(publicOf(key).export({ type: 'spki', format: 'pem' })).trim();
    return {
        key,
        line: `ledger ${kernel_identity_origin(key)} signs with a key made for this run; its public key:\n${pem}`,
    };
}
/** The key in `file`, made there now if there is none (of two starts at once, one makes it). */
function keptKey(file) {
    const made = (0,external_node_crypto_.generateKeyPairSync)('ed25519').privateKey;
    let created;
    try {
        created = createFileOnce(file, String(made.export({ type: 'pkcs8', format: 'pem' })));
    }
    catch (error) {
        throw new store_error/* StartRefusedError */.Zy(`Cannot make the ledger's signing key ${file}: ${(0,errors/* causeText */.xv)(error)}. Give one with --signing-key FILE (lease-gate keygen --out DIR).`, { cause: error });
    }
    const key = created ? made : readKey(file, (why, cause) => new store_error/* StartRefusedError */.Zy(why, { cause }));
    const how = created ? 'made now, at its first start' : 'kept from its first start';
    return {
        key,
        line: `ledger ${kernel_identity_origin(key)} signs with the key in ${file} (${how}; --signing-key FILE names another)`,
    };
}
function readKey(file, refuse) {
    let key;
    try {
        key = (0,external_node_crypto_.createPrivateKey)((0,external_node_fs_.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        throw refuse(`Cannot read the signing key ${file}: ${(0,errors/* causeText */.xv)(error)}`, error);
    }
    if (key.asymmetricKeyType !== 'ed25519')
        throw refuse(`The signing key ${file} is not an Ed25519 key.`);
    return key;
}
const publicOf = (key) => (0,external_node_crypto_.createPublicKey)(key);
const kernel_identity_origin = (key) => (0,checkpoint/* originFor */.Ag)(publicOf(key));

;// CONCATENATED MODULE: ./src/cli/kernel-start.ts


















/**
 * Checked settings \u2192 the kernel, serving until SIGINT or SIGTERM (or the --exit-with-pid
 * process goes). Every file the settings name is read here, before it listens.
 */
async function startKernel(settings, io, env) {
    for (const warning of settings.warnings)
        io.err(warning);
    // Checked before listening: a kernel that cannot ask GitHub would refuse every descendant.
    const github = settings.github && (await openCompare(settings.github, env));
    const { key, adminKey, approverKey } = settings.keys;
    const credentials = await kernelAuth(settings.auth, key, {
        LEASE_GATE_ADMIN_KEY: adminKey,
        LEASE_GATE_APPROVER_KEY: approverKey,
    }).catch(async (error) => {
        await github?.close();
        throw error;
    });
    // One kernel at a time on a log (held until this process ends); PostgreSQL replicas share theirs.
    const lock = settings.logFile
        ? await lockState(settings.logFile, {
            waitMs: LOCK_WAIT_MS,
            now: Date.now,
            sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
        }).catch(async (error) => {
            await credentials.close();
            await github?.close();
            throw error;
        })
        : undefined;
    try {
        return await serve(settings, { credentials, github }, io, env);
    }
    finally {
        await lock?.close();
    }
}
async function serve(settings, given, io, env) {
    // First, before anything that must be stopped: the key a durable ledger keeps across restarts.
    const identity = kernelIdentity(settings.signingKeyFile, settings.logFile);
    const windows = settings.windowsFile ? loadWindows(settings.windowsFile) : undefined;
    const notifier = notifierFrom(settings.notify, io, 
    // A file kernel's notifications resume from where they stood (a memory kernel's ledger
    // is gone at a restart, and PostgreSQL replicas keep no cursor).
    settings.logFile && cursorFileOf(settings.logFile));
    const opened = {
        ...given,
        identity,
        windows,
        notifier,
        checks: checksOf(settings, io, env),
    };
    let running;
    try {
        running = await kernel_start_listen(settings, opened, io);
    }
    catch (error) {
        // A start refused (its log is not the history signed) or failed: nothing may keep the process up.
        await opened.credentials.close();
        await opened.notifier?.close();
        await opened.checks?.close();
        await opened.github?.close();
        throw error;
    }
    const stopped = new Promise((resolve) => {
        process.once('SIGINT', resolve).once('SIGTERM', resolve);
        // A dry run's kernel goes when the job that started it goes.
        const parent = settings.exitWithPid;
        if (parent > 0)
            setInterval(() => (0,processes/* isAlive */._n)(parent) || resolve(), 2_000).unref();
    });
    io.outWith(`lease-gate kernel listening on ${running.url}`, { url: running.url });
    if (running.warning)
        io.err(`warning: ${running.warning}`);
    if (!settings.quiet)
        for (const line of startLines(settings, opened))
            io.out(line);
    await stopped;
    // The checks stop first: none may freeze or unfreeze once the service is closing.
    await opened.checks?.close();
    await running.close();
    await opened.credentials.close();
    await opened.notifier?.close();
    await opened.github?.close();
    return cli_options/* EXIT */.dc.done;
}
/** The service (PostgreSQL's, or the in-process one) behind the HTTP server, listening. */
async function kernel_start_listen(settings, opened, io) {
    const { ttlMs, lockDelayMs, postgres, logFile } = settings;
    const { windows, notifier, checks } = opened;
    const ledger = new ledger_ledger/* Ledger */.O(opened.identity.key);
    // A memory kernel remembers no fence: its fences start from the clock, so they rise across restarts.
    const store = logFile ? (0,store_store/* fileStore */.oX)(logFile) : (0,store_store/* memoryStore */.LK)({ fenceFloor: (0,store_store/* memoryFenceFloor */.bi)() });
    const log = eventLog(settings.quiet, io);
    const window = windows && ((r, now) => windows.activeFor(r, now));
    // Inside the caller's try: a replica refused (another plane's key, no database) stops the rest too.
    const service = postgres
        ? await openPostgres(postgres, {
            ...{ ledger, ttlMs, lockDelayMs, window, onEvents: log },
            log: (line) => io.err(line),
        })
        : undefined;
    return startKernelServer({
        ...{ service, ledger, windows, store, onEvents: log, log: serverLog(io) },
        table: new core/* ResourceTable */.BR({ ttlMs, lockDelayMs, window }),
        onService: (notifier || checks) &&
            ((service) => {
                const told = [notifier?.attach(service), checks?.attach(service)];
                return {
                    health: () => Object.assign({}, ...told.map((t) => t?.health())),
                };
            }),
        ...settings.keys,
        auth: opened.credentials.auth,
        approverOidc: settings.approverOidc,
        promote: settings.promote,
        compare: opened.github?.compare,
        ...{ host: settings.host, port: settings.port, publicUrls: settings.publicUrls },
    });
}
/** The HTTP server's lines carry the request's id (and a JSON line has it as a field). */
const serverLog = (io) => (line, fields) => io.errWith(line, fields ?? {});
/** One stdout line per event but renewals, unless --quiet. */
function eventLog(quiet, io) {
    return (events) => {
        if (quiet)
            return;
        for (const e of events) {
            if (e.kind === 'renew')
                continue;
            io.outWith(`${new Date(e.atMs).toISOString()} ${e.kind} ${e.resource} ${e.actorDid} ${e.leaseId} fence=${e.fence}${e.reason ? ` reason=${JSON.stringify(e.reason)}` : ''}`, {
                event: e.kind,
                resource: e.resource,
                did: e.actorDid,
                leaseId: e.leaseId,
                fence: e.fence,
                reason: e.reason,
            });
        }
    };
}
/** What the start-up says after the listening line (not with --quiet). */
function startLines(settings, opened) {
    const { postgres, approverOidc, promote, healthChecks, healthIntervalMs } = settings;
    const { credentials, identity, windows, github, checks } = opened;
    const lines = [];
    if (credentials.summary)
        lines.push(credentials.summary);
    if (postgres)
        lines.push(`store: PostgreSQL ${(0,postgres_settings/* redactUrl */.BO)(postgres.url)}, schema ${postgres.schema}`);
    lines.push(identity.line);
    if (windows)
        lines.push(`freeze windows: ${windows.size} from ${settings.windowsFile}`);
    if (approverOidc)
        lines.push(`break-glass approvers: OIDC tokens whose sub matches ${approverOidc.join(' or ')}`);
    if (promote)
        lines.push(`promotion order: ${[...promote].map(([to, from]) => `${from} -> ${to}`).join(', ')}${github ? ` (descendants too, by GitHub's compare at ${github.apiUrl})` : ''}`);
    if (checks)
        lines.push(`health checks: ${healthChecks.length}, every ${healthIntervalMs} ms${settings.healthFreezeHeld ? ', a failure while held freezes' : ''}`);
    return lines;
}
function checksOf(settings, io, env) {
    if (!settings.healthChecks.length)
        return undefined;
    return new HealthChecks({
        checks: settings.healthChecks,
        intervalMs: settings.healthIntervalMs,
        freezeHeld: settings.healthFreezeHeld,
        http: (0,client/* createHttpClient */.u)({ env }),
        now: Date.now,
        sleep: (ms, signal) => new Promise((done) => {
            const timer = setTimeout(done, ms);
            signal.addEventListener('abort', () => (clearTimeout(timer), done(undefined)), {
                once: true,
            });
        }),
        log: (line) => io.err(line),
    });
}
function loadWindows(file) {
    try {
        return FreezeWindows.fromFile(file);
    }
    catch (error) {
        if (error instanceof WindowsError)
            throw new cli_options/* UsageError */.eb(error.message, { cause: error });
        throw error;
    }
}
/** --notify and --notify-file's URLs, signed with the secret of --notify-secret-file or the file's. */
function notifierFrom(flags, io, cursorFile) {
    let fromFile = { urls: [] };
    try {
        if (flags.file)
            fromFile = readNotifyFile(flags.file);
    }
    catch (error) {
        if (error instanceof notify_config_NotifyError)
            throw new cli_options/* UsageError */.eb(error.message, { cause: error });
        throw error;
    }
    const urls = [...fromFile.urls, ...flags.urls];
    const secretFile = flags.secretFile ?? fromFile.secretFile;
    if (urls.length === 0) {
        if (secretFile)
            throw new cli_options/* UsageError */.eb('--notify-secret-file needs at least one --notify URL.');
        return undefined;
    }
    if (!secretFile) {
        throw new cli_options/* UsageError */.eb('--notify needs --notify-secret-file FILE: every delivery is signed.');
    }
    try {
        return new NotifierThread({
            urls,
            secret: readNotifySecret(secretFile),
            cursorFile,
            log: (line) => io.err(line),
        });
    }
    catch (error) {
        if (error instanceof notify_config_NotifyError)
            throw new cli_options/* UsageError */.eb(error.message, { cause: error });
        throw error;
    }
}

// EXTERNAL MODULE: ./src/cli/log-output.ts
var log_output = __webpack_require__(7500);
;// CONCATENATED MODULE: ./src/cli/kernel-command.ts










/** `lease-gate kernel`: the local plane on loopback, until SIGINT or SIGTERM. */
async function kernel_command_kernel(args, io, env) {
    if (args[0] === 'migrate')
        return migrateCommand(args.slice(1), io, env);
    return serveKernel(args, io, env);
}
/**
 * Parse \u2192 check (kernelSettings, no I/O) \u2192 start (every file read, then listen), every
 * line through one logger; with --log-format json a refusal to start is a JSON line too.
 */
async function serveKernel(args, io, env) {
    const { values } = (0,cli_options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(kernel/* KERNEL_FLAGS */.aU));
    const log = logSettings(values, env);
    const logged = (0,log_output/* loggedOutput */.kO)(io, log);
    try {
        return await startKernel(kernelSettings(values, env), logged, env);
    }
    catch (error) {
        // Another kernel on this state, or a log that is not the history signed: one line, exit 2.
        if (error instanceof store_error/* StartRefusedError */.Zy) {
            logged.err(`lease-gate kernel: ${error.message}`);
            return cli_options/* EXIT */.dc.usage;
        }
        return (0,log_output/* refusedToStart */.ej)(error, log, logged, 'kernel');
    }
}
/**
 * The form, and what no line may hold: the keys and the database's password, as given
 * (before they are checked: a refusal is logged too). PostgreSQL replicas name themselves.
 */
function logSettings(values, env) {
    const store = values.store?.startsWith('postgres') ? values.store : undefined;
    const database = store === 'postgres' ? env.DATABASE_URL : store;
    return {
        format: (0,log_format_flag/* logFormatOf */.r)(values['log-format'], env),
        secrets: [
            env.LEASE_GATE_KERNEL_KEY,
            env.LEASE_GATE_ADMIN_KEY,
            env.LEASE_GATE_APPROVER_KEY,
            env.LEASE_GATE_METRICS_KEY,
            (0,log_output/* urlPassword */.Ds)(database),
        ],
        ...(store && { base: { replica: `${(0,external_node_os_.hostname)()}:${process.pid}` } }),
    };
}


/***/ }),

/***/ 2146:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   u: () => (/* binding */ MIN_KEY_LENGTH),
/* harmony export */   v: () => (/* binding */ kernelKeysOf)
/* harmony export */ });
/* harmony import */ var _plane_url_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4043);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(776);


/** The shortest key a kernel reachable beyond loopback takes (a guessable key is no key). */
const MIN_KEY_LENGTH = 16;
/**
 * The kernel's keys from the environment, each refused (one line, never the key) when
 * it would not be the boundary it stands for: an admin or approver key that is the key
 * every job holds, or beyond loopback (the listen address or a --public-url) a key
 * short enough to guess. On loopback a short key still serves tests and the demo.
 */
function kernelKeysOf(env, host, publicUrls) {
    const key = env.LEASE_GATE_KERNEL_KEY || undefined;
    const adminKey = env.LEASE_GATE_ADMIN_KEY || undefined;
    if (adminKey !== undefined && adminKey === key)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb('LEASE_GATE_ADMIN_KEY is the kernel key every job holds, so every job could revoke, freeze and break glass: give the admin key a value of its own.');
    const approverKey = approverKeyOf(env);
    const metricsKey = env.LEASE_GATE_METRICS_KEY || undefined;
    // A scraper's key sits in a Prometheus config: as the kernel key, it would lease too.
    if (metricsKey !== undefined && metricsKey === key)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb('LEASE_GATE_METRICS_KEY is the kernel key every job holds: give the metrics key a value of its own.');
    const beyond = [host, ...publicUrls.map((url) => url.hostname)].find((h) => !(0,_plane_url_js__WEBPACK_IMPORTED_MODULE_0__/* .isLoopbackHost */ .c)(h));
    if (beyond !== undefined) {
        const given = {
            LEASE_GATE_KERNEL_KEY: key,
            LEASE_GATE_ADMIN_KEY: adminKey,
            LEASE_GATE_APPROVER_KEY: approverKey,
            LEASE_GATE_METRICS_KEY: metricsKey,
        };
        for (const [name, value] of Object.entries(given)) {
            if (value !== undefined && value.length < MIN_KEY_LENGTH)
                throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb(`${name} is shorter than ${MIN_KEY_LENGTH} characters, too easy to guess for a kernel reachable at ${beyond}: use a long random key (openssl rand -hex 32), or keep --host on loopback.`);
        }
    }
    return { key, adminKey, approverKey, metricsKey };
}
/**
 * LEASE_GATE_APPROVER_KEY: a second operator's key. With it, a break-glass opened with the
 * admin key is used only once approved with this one, so one key cannot do both halves.
 */
function approverKeyOf(env) {
    const approverKey = env.LEASE_GATE_APPROVER_KEY || undefined;
    if (approverKey === undefined)
        return undefined;
    if (!env.LEASE_GATE_ADMIN_KEY)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb('LEASE_GATE_APPROVER_KEY approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.');
    if (approverKey === env.LEASE_GATE_ADMIN_KEY)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb('LEASE_GATE_APPROVER_KEY is the admin key: a second approver needs a key of its own.');
    // Every job holds the kernel key; as the approver key it would let any job approve.
    if (approverKey === env.LEASE_GATE_KERNEL_KEY)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_1__/* .UsageError */ .eb('LEASE_GATE_APPROVER_KEY is the kernel key every job holds: a second approver needs a key of its own.');
    return approverKey;
}


/***/ }),

/***/ 7661:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   r: () => (/* binding */ logFormatOf)
/* harmony export */ });
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1223);
/* harmony import */ var _log_logger_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(8988);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(776);



/** The flag over the environment; either one naming neither form is refused, naming itself. */
function logFormatOf(flag, env) {
    const [raw, from] = flag !== undefined
        ? [flag, '--log-format']
        : [env.LEASE_GATE_LOG_FORMAT, 'LEASE_GATE_LOG_FORMAT'];
    const format = (0,_log_logger_js__WEBPACK_IMPORTED_MODULE_1__/* .parseLogFormat */ .r5)(raw);
    if (!format)
        throw new _options_js__WEBPACK_IMPORTED_MODULE_2__/* .UsageError */ .eb(`Invalid ${from} '${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(raw ?? '', 40)}'. Expected ${_log_logger_js__WEBPACK_IMPORTED_MODULE_1__/* .LOG_FORMAT_FORM */ .mW}.`);
    return format;
}


/***/ }),

/***/ 7500:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Ds: () => (/* binding */ urlPassword),
/* harmony export */   ej: () => (/* binding */ refusedToStart),
/* harmony export */   kO: () => (/* binding */ loggedOutput)
/* harmony export */ });
/* harmony import */ var _log_logger_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8988);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3916);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1223);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(776);




function loggedOutput(io, settings, now = Date.now) {
    const common = {
        format: settings.format,
        now,
        secrets: settings.secrets,
        base: settings.base ?? {},
    };
    const out = (0,_log_logger_js__WEBPACK_IMPORTED_MODULE_0__/* .createLogger */ .h)({ ...common, write: (line) => io.out(line) });
    const err = (0,_log_logger_js__WEBPACK_IMPORTED_MODULE_0__/* .createLogger */ .h)({ ...common, write: (line) => io.err(line) });
    return {
        out: (line) => out.info(line),
        err: (line) => err.log((0,_log_logger_js__WEBPACK_IMPORTED_MODULE_0__/* .stderrLevel */ .nx)(line), line),
        outWith: (line, fields) => out.info(line, fields),
        errWith: (line, fields, level) => err.log(level ?? (0,_log_logger_js__WEBPACK_IMPORTED_MODULE_0__/* .stderrLevel */ .nx)(line), line, fields),
        // A long answer (an export) is data, not a log line: as it is.
        ...(io.write && { write: io.write }),
    };
}
/** A connection string's password, to be masked wherever a line might quote it. */
function urlPassword(url) {
    if (!url)
        return undefined;
    try {
        return decodeURIComponent(new URL(url).password) || undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * A command that could not start, said as main() says it (text: rethrown for main()), or
 * with --log-format json as a JSON line a log store reads: exit 2 for a setting, 1 else.
 */
function refusedToStart(error, log, logged, command) {
    if (log.format === 'text')
        throw error;
    if (error instanceof _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb) {
        logged.errWith((0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_2__/* .untrusted */ .bp)(error.message, 1_000), { refused: 'usage' }, 'error');
        return _options_js__WEBPACK_IMPORTED_MODULE_3__/* .EXIT */ .dc.usage;
    }
    logged.err(`lease-gate ${command}: could not start: ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_2__/* .untrusted */ .bp)((0,_errors_js__WEBPACK_IMPORTED_MODULE_1__/* .errorMessage */ .gJ)(error), 1_000)}`);
    return _options_js__WEBPACK_IMPORTED_MODULE_3__/* .EXIT */ .dc.refused;
}


/***/ }),

/***/ 5810:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   O3: () => (/* binding */ listProcesses),
/* harmony export */   Yu: () => (/* binding */ hasEnvEntry),
/* harmony export */   _n: () => (/* binding */ isAlive),
/* harmony export */   ky: () => (/* binding */ parseStat),
/* harmony export */   xq: () => (/* binding */ groupAlive)
/* harmony export */ });
/* unused harmony export ENVIRON_READ_LIMIT */
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
        names = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readdirSync)('/proc').filter((name) => /^\d+$/.test(name));
    }
    catch {
        return undefined;
    }
    const list = [];
    for (const name of names) {
        let stat;
        try {
            stat = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(`/proc/${name}/stat`, 'utf8');
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
const ENVIRON_READ_LIMIT = 1024 * 1024;
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
        if ((0,node_fs__WEBPACK_IMPORTED_MODULE_0__.statSync)(`/proc/${pid}`).uid !== uid)
            return false;
        fd = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync)(`/proc/${pid}/environ`, 'r');
        // One buffer for every read: the looks are synchronous, and most environments are small.
        environBuffer ??= Buffer.alloc(ENVIRON_READ_LIMIT);
        let length = 0;
        while (length < environBuffer.length) {
            const read = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readSync)(fd, environBuffer, length, environBuffer.length - length, null);
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
            (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.closeSync)(fd);
    }
}


/***/ }),

/***/ 6417:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Mw: () => (/* binding */ answerMessage),
/* harmony export */   fN: () => (/* binding */ retryWait),
/* harmony export */   g$: () => (/* binding */ printable),
/* harmony export */   qF: () => (/* binding */ parseJson),
/* harmony export */   rR: () => (/* binding */ headerOf),
/* harmony export */   xf: () => (/* binding */ restHeaders),
/* harmony export */   y_: () => (/* binding */ GitHubError)
/* harmony export */ });
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(8395);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _plane_retry_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3860);



/**
 * What every caller of GitHub's REST API shares (the protection-rule app, the kernel's
 * promotion check): the error it throws, how long a refusal says to wait, and GitHub's
 * own error text, read as untrusted.
 */
class GitHubError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'GitHubError';
    /** GitHub's status, or 0 when no answer came. */
    status;
    constructor(message, options) {
        super(message, { ...(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .causeOf */ .rl)(options.cause), code: 'github' });
        this.status = options.status;
    }
}
/** The headers every REST call sends (the bearer is the caller's). */
function restHeaders(bearer, userAgent) {
    return {
        authorization: `Bearer ${bearer}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': userAgent,
    };
}
/** GitHub's advice for a secondary rate limit that names no time. */
const RATE_LIMIT_FALLBACK_MS = 60_000;
function headerOf(answer, name) {
    const value = answer.headers[name];
    return Array.isArray(value) ? value[0] : value;
}
/**
 * How long to wait before asking again, or undefined when asking again cannot help:
 * a rate limit waits what GitHub names; 5xx backs off; anything else is final.
 */
function retryWait(answer, wallNow, policy, attempt, random) {
    const retryAfter = (0,_plane_retry_js__WEBPACK_IMPORTED_MODULE_1__/* .parseRetryAfter */ .mu)(headerOf(answer, 'retry-after'), wallNow);
    const remaining = headerOf(answer, 'x-ratelimit-remaining');
    const reset = Number(headerOf(answer, 'x-ratelimit-reset') ?? NaN);
    const limited = answer.status === 429 ||
        (answer.status === 403 && (retryAfter !== undefined || remaining === '0'));
    if (limited) {
        if (retryAfter !== undefined)
            return retryAfter;
        if (remaining === '0' && Number.isFinite(reset))
            return Math.max(0, reset * 1000 - wallNow) + 1_000;
        return RATE_LIMIT_FALLBACK_MS;
    }
    if (answer.status >= 500 || answer.status === 408)
        return (0,_plane_retry_js__WEBPACK_IMPORTED_MODULE_1__/* .backoffMs */ .jo)(policy, attempt, random);
    return undefined;
}
/** GitHub's error answers: `{ message, documentation_url }`. */
const githubErrorSchema = zod_mini__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({ message: zod_mini__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP() });
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
/** The `message` of GitHub's error answer, or the start of what it sent (not yet escaped). */
function answerMessage(text) {
    const body = githubErrorSchema.safeParse(parseJson(text));
    return body.success ? body.data.message : text.slice(0, 200);
}
/** GitHub's text bound for a message that travels on (a refusal a job prints): printable ASCII. */
function printable(text, max = 200) {
    const line = text.replace(/[^\x20-\x7e]/g, '?');
    return line.length <= max ? line : `${line.slice(0, max - 1)}~`;
}


/***/ }),

/***/ 3500:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   issuerSet: () => (/* binding */ issuerSet),
/* harmony export */   startIssuers: () => (/* binding */ startIssuers)
/* harmony export */ });
/* harmony import */ var _mappings_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4640);
/* harmony import */ var _refusal_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(2528);


/** Verifiers for `specs`; jose is loaded here, only when OIDC is on. */
async function startIssuers(specs, http) {
    const { createOidcVerifier } = await __webpack_require__.e(/* import() */ 233).then(__webpack_require__.bind(__webpack_require__, 3233));
    return specs.map((spec) => ({
        ...spec,
        verifier: createOidcVerifier({ issuer: spec.url, audience: spec.audience, http }),
    }));
}
function issuerSet(issuers) {
    const byUrl = new Map(issuers.map((issuer) => [issuer.url, issuer]));
    const names = issuers.map((i) => `${i.name} (${i.url})`).join(', ');
    return {
        issuers,
        async verify(token) {
            const iss = unverifiedIssuer(token);
            const issuer = iss === undefined ? undefined : byUrl.get(iss.replace(/\/+$/, ''));
            if (!issuer) {
                const named = iss === undefined ? 'names no issuer' : `is of ${JSON.stringify(iss.slice(0, 200))}`;
                throw new _refusal_js__WEBPACK_IMPORTED_MODULE_1__/* .AuthRefusal */ .N(`The OIDC token ${named}; this kernel accepts tokens of ${names}.`, {
                    status: 401,
                    reason: 'unauthorized',
                });
            }
            const claims = await issuer.verifier.verify(token);
            return { issuer, claims, run: (0,_mappings_js__WEBPACK_IMPORTED_MODULE_0__/* .jobIdentity */ .Kv)(issuer, claims) };
        },
    };
}
/** The `iss` a compact JWS's payload says, unverified: only to pick the verifier. */
function unverifiedIssuer(token) {
    const payload = token.split('.')[1] ?? '';
    try {
        const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        const iss = parsed?.iss;
        return typeof iss === 'string' ? iss : undefined;
    }
    catch {
        return undefined;
    }
}


/***/ }),

/***/ 4640:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  TU: () => (/* binding */ PROTECTED_REF_KINDS),
  SW: () => (/* binding */ builtInRefusal),
  IN: () => (/* binding */ deployValues),
  Kv: () => (/* binding */ jobIdentity),
  DS: () => (/* binding */ policyClaimsOf)
});

// UNUSED EXPORTS: CLAIMS_BY_KIND

// EXTERNAL MODULE: ./src/plane/did.ts
var did = __webpack_require__(4027);
// EXTERNAL MODULE: ./src/plane/ci-job.ts
var ci_job = __webpack_require__(1242);
;// CONCATENATED MODULE: ./src/kernel/auth/policy-claims.ts
/** Its own module so mappings.ts and policy.ts both read it without importing each other. */
/** The claims of GitHub's tokens a rule may test; anything else is a typo, refused at start. */
const POLICY_CLAIMS = [
    'sub',
    'repository',
    'repository_owner',
    'repository_id',
    'repository_owner_id',
    'repository_visibility',
    'ref',
    'ref_type',
    'ref_protected',
    'environment',
    'job_workflow_ref',
    'workflow_ref',
    'workflow',
    'event_name',
    'actor',
    'actor_id',
    'runner_environment',
    'base_ref',
    'head_ref',
];

// EXTERNAL MODULE: ./src/kernel/auth/refusal.ts
var refusal = __webpack_require__(2528);
;// CONCATENATED MODULE: ./src/kernel/auth/mappings.ts




const CIRCLE = 'oidc.circleci.com/';
const circle = (names) => names.map((n) => `${CIRCLE}${n}`);
/** The claims a policy rule of an issuer of each kind may test; custom: its configured list. */
const CLAIMS_BY_KIND = {
    github: POLICY_CLAIMS,
    gitlab: [
        ...['sub', 'namespace_id', 'namespace_path', 'project_id', 'project_path', 'user_id'],
        ...['user_login', 'user_email', 'user_access_level', 'pipeline_id', 'pipeline_source'],
        ...['job_id', 'ref', 'ref_type', 'ref_path', 'ref_protected', 'environment'],
        ...['environment_protected', 'deployment_tier', 'deployment_action', 'runner_id'],
        ...['runner_environment', 'sha', 'ci_config_ref_uri', 'ci_config_sha', 'project_visibility'],
        ...['job_project_id', 'job_project_path', 'job_namespace_id', 'job_namespace_path'],
    ],
    circleci: [
        'sub',
        ...circle(['org-id', 'project-id', 'pipeline-id', 'pipeline-definition-id', 'workflow-id']),
        ...circle(['job-id', 'vcs-origin', 'vcs-ref', 'context-ids', 'ssh-rerun']),
    ],
    buildkite: [
        ...['sub', 'organization_slug', 'organization_id', 'pipeline_slug', 'pipeline_id'],
        ...['build_number', 'build_branch', 'build_tag', 'build_commit', 'build_source', 'step_key'],
        ...['job_id', 'agent_id', 'cluster_id', 'cluster_name', 'queue_id', 'queue_key'],
        'runner_environment',
    ],
};
function policyClaimsOf(spec) {
    return spec.kind === 'custom' ? ['sub', ...(spec.claims ?? [])] : CLAIMS_BY_KIND[spec.kind];
}
/** The kinds whose tokens say whether the ref is protected (`protectedRef` rules). */
const PROTECTED_REF_KINDS = ['github', 'gitlab'];
const refused = (message) => new refusal/* AuthRefusal */.N(message, { status: 401, reason: 'unauthorized' });
/** The repository a job's project maps to, or its own owner/repo-shaped name. */
function repositoryOf(spec, claims) {
    const text = (name) => (0,ci_job/* claimText */.Q1)(claims, name);
    const mapped = (...keys) => keys.map((k) => (k === undefined ? undefined : spec.repositories.get(k))).find(Boolean);
    const fits = (value) => (value && (0,did/* parseRepository */.SU)(value) ? value : undefined);
    switch (spec.kind) {
        case 'github':
            return text('repository') ?? '';
        case 'gitlab':
            return (mapped((0,ci_job/* gitlabProjectId */.gI)(claims), text('project_path')) ?? fits(text('project_path')) ?? '');
        case 'circleci': {
            const origin = /^[^/]+\/([^/]+\/[^/]+?)(?:\.git)?$/.exec(text(`${CIRCLE}vcs-origin`) ?? '');
            return mapped(text(`${CIRCLE}project-id`)) ?? fits(origin?.[1]) ?? '';
        }
        case 'buildkite': {
            const slugs = `${text('organization_slug') ?? ''}/${text('pipeline_slug') ?? ''}`;
            return mapped(slugs) ?? fits(slugs) ?? '';
        }
        case 'custom': {
            const claim = spec.deploy?.repository;
            const value = claim ? text(claim) : undefined;
            return (value && mapped(value)) ?? fits(value) ?? '';
        }
    }
}
/** The job a verified token of `spec` names; 401 when its claims name none in the accepted forms. */
function jobIdentity(spec, claims) {
    const issuer = { name: spec.name, kind: spec.kind, url: spec.url };
    const text = (name) => (0,ci_job/* claimText */.Q1)(claims, name) ?? '';
    if (spec.kind === 'buildkite') {
        const org = spec.organization ?? '';
        if (text('organization_slug') !== org && text('organization_id') !== org) {
            throw refused(`The OIDC token verified but is of the Buildkite organization ${JSON.stringify(text('organization_slug').slice(0, 100))}; issuer ${spec.name} accepts only ${org}'s.`);
        }
    }
    const didPrefix = (0,ci_job/* jobDidPrefix */.VA)(spec.kind, claims, spec.didHost, spec.did);
    if (didPrefix === undefined) {
        throw refused(spec.kind === 'github'
            ? 'The OIDC token verified but names no GitHub Actions run (its repository, run_id and run_attempt claims), so the kernel cannot tell which DIDs it may act as.'
            : `The OIDC token of issuer ${spec.name} verified but names no ${spec.kind} job (${jobClaims(spec)}), so the kernel cannot tell which DIDs it may act as.`);
    }
    const repository = repositoryOf(spec, claims);
    const of = repository || spec.name;
    const ids = {
        github: [
            text('run_id'),
            text('run_attempt'),
            `run ${text('run_id')} (attempt ${text('run_attempt')}) of ${repository}`,
        ],
        gitlab: [
            text('pipeline_id'),
            '',
            `GitLab job ${text('job_id')} of pipeline ${text('pipeline_id')} of ${text('project_path')}`,
        ],
        circleci: [
            text(`${CIRCLE}workflow-id`),
            '',
            `CircleCI job ${text(`${CIRCLE}job-id`)} of ${of}`,
        ],
        buildkite: [
            text('build_number'),
            '',
            `Buildkite job ${text('job_id')} of build ${text('build_number')} of ${text('organization_slug')}/${text('pipeline_slug')}`,
        ],
        custom: ['', '', `a job of issuer ${spec.name} (${didPrefix})`],
    };
    const [runId, attempt, described] = ids[spec.kind];
    return { issuer, repository, runId, attempt, didPrefix, described };
}
const jobClaims = (spec) => ({
    github: 'repository, run_id, run_attempt',
    gitlab: 'project_id or job_project_id, pipeline_id, job_id',
    circleci: 'oidc.circleci.com/org-id, project-id, job-id',
    buildkite: 'organization_slug, pipeline_slug, build_number, job_id',
    custom: `the claims of its DID template ${spec.did ?? ''}`,
})[spec.kind];
/**
 * The deploy values a token vouches for, per field (the first recorded when none is sent);
 * a field left empty is taken as sent, i.e. believed (docs/ci-issuers.md says which).
 */
function deployValues(spec, claims, job) {
    const text = (name) => (0,ci_job/* claimText */.Q1)(claims, name);
    const whole = (name) => {
        const value = text(name);
        return value && /^[1-9]\d{0,12}$/.test(value) ? Number(value) : undefined;
    };
    const repository = [job.repository || undefined];
    const none = {
        repository: [],
        workflow: [],
        ref: [],
        commit: [],
        runNumber: [],
        runAttempt: [],
        runUrl: [],
    };
    switch (spec.kind) {
        case 'github':
            return none; // deploy-claims.ts keeps GitHub's own mapping, unchanged.
        case 'gitlab': {
            const config = /\/\/(.+)@[^@]*$/.exec(text('ci_config_ref_uri') ?? '')?.[1];
            const project = text('project_path');
            const pipeline = text('pipeline_id');
            const refPath = text('ref_path') ??
                (text('ref')
                    ? `refs/${text('ref_type') === 'tag' ? 'tags' : 'heads'}/${text('ref')}`
                    : undefined);
            return {
                ...none,
                repository,
                workflow: [config],
                ref: [refPath],
                commit: [text('sha')],
                runNumber: [whole('pipeline_id')],
                runUrl: project && pipeline ? [`${spec.url}/${project}/-/pipelines/${pipeline}`] : [],
            };
        }
        case 'circleci':
            return {
                ...none,
                repository,
                workflow: [text(`${CIRCLE}pipeline-definition-id`)],
                ref: [text(`${CIRCLE}vcs-ref`)],
            };
        case 'buildkite': {
            const tag = text('build_tag');
            const branch = text('build_branch');
            const slugs = `${text('organization_slug') ?? ''}/${text('pipeline_slug') ?? ''}`;
            const build = whole('build_number');
            return {
                ...none,
                repository,
                workflow: [text('pipeline_slug')],
                ref: [tag ? `refs/tags/${tag}` : branch ? `refs/heads/${branch}` : undefined],
                commit: [text('build_commit')],
                runNumber: [build],
                runUrl: build ? [`https://buildkite.com/${slugs}/builds/${build}`] : [],
            };
        }
        case 'custom': {
            const out = { ...none, repository };
            for (const [field, claim] of Object.entries(spec.deploy ?? {})) {
                if (field === 'repository')
                    continue;
                const value = field === 'runNumber' || field === 'runAttempt' ? whole(claim) : text(claim);
                out[field] = [value];
            }
            return out;
        }
    }
}
/**
 * Refusals built into a kind, whatever the rules say (a rule may lift the fork one):
 * CircleCI tokens of an SSH rerun (a person at a shell holds the job's token, as PyPI
 * refuses them); GitLab merge-request pipelines of a fork's code (`job_project_id` not
 * `project_id`, or an MR pipeline whose token cannot tell). The claim named, or undefined.
 */
function builtInRefusal(kind, claims, allowForks) {
    // CircleCI sends a boolean; "true" as text is refused alike, not taken for a normal run.
    if (kind === 'circleci' && /^true$/i.test(String(claims[`${CIRCLE}ssh-rerun`]))) {
        return {
            claim: `${CIRCLE}ssh-rerun`,
            why: "an SSH rerun: someone at a shell holds this job's token, so it is refused",
        };
    }
    if (kind === 'gitlab' && !allowForks) {
        const job = (0,ci_job/* claimText */.Q1)(claims, 'job_project_id');
        const project = (0,ci_job/* claimText */.Q1)(claims, 'project_id');
        if (job !== undefined && project !== undefined && job !== project) {
            return {
                claim: 'job_project_id',
                why: `a pipeline of project ${project}'s code (a fork) running in project ${job}: refused unless the rule says "allowForks": true`,
            };
        }
        if (job === undefined && (0,ci_job/* claimText */.Q1)(claims, 'pipeline_source') === 'merge_request_event') {
            return {
                claim: 'pipeline_source',
                why: 'a merge-request pipeline whose token has no job_project_id, so it may be a fork\'s: refused unless the rule says "allowForks": true',
            };
        }
    }
    return undefined;
}


/***/ }),

/***/ 9396:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   HL: () => (/* binding */ oidcKeyFetches),
/* harmony export */   hU: () => (/* binding */ unavailable),
/* harmony export */   nt: () => (/* binding */ checkIssuerUrl),
/* harmony export */   uF: () => (/* binding */ IssuerKeys)
/* harmony export */ });
/* harmony import */ var jose__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(6687);
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8395);
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(3305);
/* harmony import */ var _http_url_display_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3390);
/* harmony import */ var _plane_url_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4043);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3916);
/* harmony import */ var _refusal_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(2528);






/**
 * An OIDC issuer's published keys, as the verifier (oidc.ts) uses them: the discovery
 * document, then the JWKS, fetched through our one HTTP client; fetched again when older
 * than `cacheMs`, never twice within `minRefreshMs` (failed attempts included), and kept
 * through an outage only until `maxStaleMs` after the last good fetch. Its own module so
 * the verifier holds only the token checks.
 */
/** Discovery and JWKS bodies past this are refused (GitHub's JWKS is ~2 KB). */
const MAX_DOCUMENT_CHARS = 64 * 1024;
const MAX_KEYS = 50;
const discoverySchema = zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .object */ .Ikc({ issuer: zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(), jwks_uri: zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP() });
const jwksSchema = zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .object */ .Ikc({
    keys: zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .record */ .g1P(zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(), zod_mini__WEBPACK_IMPORTED_MODULE_4__/* .unknown */ .L5J())).check(zod_mini__WEBPACK_IMPORTED_MODULE_5__/* ._maxLength */ .Eb(MAX_KEYS)),
});
/** An issuer URL we may fetch from: https, or plain http on loopback; no credentials, query or fragment. */
function checkIssuerUrl(value, what = 'issuer') {
    let url;
    try {
        url = new URL(value);
    }
    catch {
        throw new Error(`the OIDC ${what} '${(0,_http_url_display_js__WEBPACK_IMPORTED_MODULE_0__/* .urlForDisplay */ .B)(value)}' is not a URL`);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && (0,_plane_url_js__WEBPACK_IMPORTED_MODULE_1__/* .isLoopbackHost */ .c)(host));
    if (!secure || url.username || url.password || url.search || url.hash) {
        throw new Error(`the OIDC ${what} '${(0,_http_url_display_js__WEBPACK_IMPORTED_MODULE_0__/* .urlForDisplay */ .B)(value)}' must be an https:// URL without credentials or query (plain http:// only on loopback)`);
    }
    return url;
}
/** Fetches of every issuer's keys in this process, and those that failed: the metrics read it. */
const oidcKeyFetches = { attempts: 0, failures: 0 };
class IssuerKeys {
    issuer;
    settings;
    keys;
    /** When the keys in use were fetched. */
    keysAt = -Infinity;
    /** When the last fetch began, whether or not it succeeded; and why the last one failed. */
    attemptedAt = -Infinity;
    failure;
    inFlight;
    constructor(issuer, settings) {
        this.issuer = issuer;
        this.settings = settings;
    }
    /** Why the last fetch failed; undefined once one succeeded. */
    get lastError() {
        return this.failure;
    }
    /** Whether a fetch may begin now: none within `minRefreshMs` of the last attempt. */
    get mayRefresh() {
        return this.settings.now() - this.attemptedAt >= this.settings.minRefreshMs;
    }
    /** One fetch at a time, later callers share it; none within `minRefreshMs` of the last attempt. */
    async refresh() {
        if (!this.inFlight && !this.mayRefresh)
            return;
        this.inFlight ??= this.fetchKeys()
            .then(() => (this.failure = undefined))
            .catch((error) => {
            oidcKeyFetches.failures += 1;
            this.failure = error;
        })
            .finally(() => (this.inFlight = undefined));
        await this.inFlight;
    }
    /** The keys to verify with now: fetched again when old; 503 when there are none fit to use. */
    async keySet() {
        const { now, cacheMs, maxStaleMs } = this.settings;
        if (!this.keys || now() - this.keysAt > cacheMs)
            await this.refresh();
        // A failed refresh keeps the keys we had, for a bounded time; without any, nothing verifies.
        if (this.keys && now() - this.keysAt <= maxStaleMs)
            return this.keys;
        throw unavailable(this.failure ?? new Error('no keys fetched yet'));
    }
    async fetchKeys() {
        oidcKeyFetches.attempts += 1;
        this.attemptedAt = this.settings.now();
        const { issuer } = this;
        const discovery = discoverySchema.safeParse(await this.getJson(`${issuer}/.well-known/openid-configuration`, 'discovery document'));
        if (!discovery.success || discovery.data.issuer.replace(/\/+$/, '') !== issuer) {
            throw new Error(`the issuer's discovery document does not name ${issuer} with a jwks_uri`);
        }
        const jwksUrl = checkIssuerUrl(discovery.data.jwks_uri, 'jwks_uri');
        const jwks = jwksSchema.safeParse(await this.getJson(jwksUrl.href, 'JWKS'));
        if (!jwks.success)
            throw new Error(`the issuer's JWKS is not a set of at most ${MAX_KEYS} keys`);
        this.keys = (0,jose__WEBPACK_IMPORTED_MODULE_6__/* .createLocalJWKSet */ .w)(jwks.data);
        this.keysAt = this.attemptedAt;
    }
    async getJson(url, what) {
        const text = await this.settings.http.getText(url, { accept: 'application/json' });
        if (text.length > MAX_DOCUMENT_CHARS)
            throw new Error(`the issuer's ${what} is too large`);
        try {
            return JSON.parse(text);
        }
        catch {
            throw new Error(`the issuer's ${what} is not JSON`);
        }
    }
}
/** The issuer's keys cannot be had: 503, so a caller tries again rather than give up. */
function unavailable(error) {
    const text = (0,_errors_js__WEBPACK_IMPORTED_MODULE_2__/* .causeText */ .xv)(error);
    return new _refusal_js__WEBPACK_IMPORTED_MODULE_3__/* .AuthRefusal */ .N(`The kernel cannot fetch the OIDC issuer's keys (${text.slice(0, 300)}); try again.`, { status: 503, reason: 'issuer_unavailable', cause: error });
}


/***/ }),

/***/ 2528:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   N: () => (/* binding */ AuthRefusal)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);

/**
 * A credential refused (401), a caller acting beyond its credential (403
 * `not_your_did`, `not_allowed`), or an issuer that cannot be reached (503):
 * answered `{ ok: false, reason, message }`.
 */
class AuthRefusal extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'AuthRefusal';
    status;
    /** The answer's `reason` (`unauthorized`, `not_your_did`, \u2026): the wire's word for the kind. */
    reason;
    constructor(message, options) {
        super(message, { ...(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .causeOf */ .rl)(options.cause), code: 'auth_refusal' });
        this.status = options.status;
        this.reason = options.reason;
    }
}


/***/ }),

/***/ 3808:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   B4: () => (/* binding */ SCHEMA_FORM),
/* harmony export */   BO: () => (/* binding */ redactUrl),
/* harmony export */   Lf: () => (/* binding */ DEFAULT_STATEMENT_TIMEOUT_MS),
/* harmony export */   f_: () => (/* binding */ SCHEMA_PATTERN),
/* harmony export */   od: () => (/* binding */ DEFAULT_CONNECT_TIMEOUT_MS),
/* harmony export */   pP: () => (/* binding */ schemaOf),
/* harmony export */   xl: () => (/* binding */ DEFAULT_POOL_SIZE)
/* harmony export */ });
/* harmony import */ var _store_store_error_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7561);

/** A schema name we put in search_path and in a NOTIFY channel: plain, short, unquoted. */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;
const SCHEMA_FORM = 'a lower-case SQL name of at most 40 letters, digits and _';
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
function schemaOf(options) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_PATTERN.test(schema))
        throw new _store_store_error_js__WEBPACK_IMPORTED_MODULE_0__/* .StoreError */ .AD(`schema: expected ${SCHEMA_FORM}`);
    return schema;
}
/** Hides the password of a connection string that is shown to a person. */
function redactUrl(url) {
    try {
        const parsed = new URL(url);
        if (parsed.password)
            parsed.password = '***';
        return parsed.toString();
    }
    catch {
        return 'the PostgreSQL URL';
    }
}


/***/ }),

/***/ 9047:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Fn: () => (/* binding */ settleBreakGlass),
/* harmony export */   ME: () => (/* binding */ withdrawBreakGlass),
/* harmony export */   V0: () => (/* binding */ breakGlassCommand),
/* harmony export */   f_: () => (/* binding */ MAX_BREAK_GLASS_MS),
/* harmony export */   k6: () => (/* binding */ DEFAULT_BREAK_GLASS_MS),
/* harmony export */   pb: () => (/* binding */ replayBreakGlass),
/* harmony export */   tZ: () => (/* binding */ passFor)
/* harmony export */ });
/* unused harmony exports WITHDRAWN_REPLACED, WITHDRAWN_CANCELLED */
/* harmony import */ var _plane_run_pass_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4941);

/**
 * Break-glass, within the pure rules (no I/O): an operator lets one named agent
 * through what would hold it back \u2014 a freeze (an operator's, a window's, a
 * health check's) or the promotion order \u2014 once, with a reason, for a bounded
 * time. Never through a holder (exclusivity), a revoke, a lock-delay or the
 * failover hold: break-glass overrides policy, not safety.
 *
 * With a second approver configured (the kernel's approver key), a pass opened
 * with the admin key is pending until another operator approves it with the
 * approver key; only then may it be used. The pass becomes a ledger entry of its
 * own (`break_glass`: `actorDid` the agent let through, `by` who opened it,
 * `approvedBy` who approved it, `reason`, `expiresAtMs` its end, no lease) when it
 * can be used, so `verify` accepts a grant inside a freeze only right after one
 * such entry for that agent, unused and unexpired. A pending pass is state only:
 * a restart forgets it and the operator asks again (fail closed).
 *
 * A usable pass withdrawn before it is used, by an operator's cancel or by a new pass that
 * replaces it (pending or not), is a signed entry of its own (`break_glass_withdrawn`): the
 * replay, the live rules and `verify` all read the old pass as gone from there on, so a
 * restart never brings back a pass an operator took away. An OIDC approval names its run
 * and attempt (`approval`), which approves one pass only (the service enforces it across
 * resources, `verify` checks it).
 */
/** How long a pass lasts unless told otherwise, and at most: break-glass is for now, not for later. */
const DEFAULT_BREAK_GLASS_MS = 15 * 60_000;
const MAX_BREAK_GLASS_MS = 60 * 60_000;
/** The reason a withdrawal entry gives, by why it was withdrawn. */
const WITHDRAWN_REPLACED = 'replaced by a new break-glass';
const WITHDRAWN_CANCELLED = 'cancelled by an operator';
/** A pass in force for this agent now (open, approved if it had to be, not expired): its own, or its run's. */
function passFor(s, actorDid, now) {
    const pass = s.breakGlass;
    return pass && !pass.pending && (0,_plane_run_pass_js__WEBPACK_IMPORTED_MODULE_0__/* .passCovers */ ._I)(pass.actorDid, actorDid) && pass.untilMs > now
        ? pass
        : undefined;
}
/** An expired pass is dropped (nothing recorded: the entry named its end). */
function settleBreakGlass(s, now) {
    if (s.breakGlass && s.breakGlass.untilMs <= now)
        delete s.breakGlass;
}
function breakGlassCommand(s, command, now, events) {
    if (command.kind === 'break_glass') {
        // One pass per resource: a new one replaces the last. A usable one is withdrawn on the
        // ledger first, even when the new one waits for approval and writes nothing yet.
        withdrawUsable(s, command.by, WITHDRAWN_REPLACED, now, events);
        const pass = {
            actorDid: command.actorDid,
            reason: command.reason,
            by: command.by,
            untilMs: command.untilMs,
            atMs: now,
            pending: command.needsApproval,
        };
        s.breakGlass = pass;
        if (!pass.pending)
            events.push(breakGlassEvent(s.resource, pass, now));
        return { ok: true, breakGlass: pass };
    }
    const pass = s.breakGlass;
    if (!pass?.pending || pass.actorDid !== command.actorDid) {
        return {
            ok: false,
            reason: 'no_break_glass',
            message: `${s.resource} has no break-glass for ${command.actorDid} waiting for approval`,
        };
    }
    if (pass.by === command.by) {
        return {
            ok: false,
            reason: 'same_operator',
            message: `${command.by} opened this break-glass; another operator must approve it`,
        };
    }
    const approved = { ...pass, pending: false, approvedBy: command.by };
    if (command.approval !== undefined)
        approved.approval = command.approval;
    s.breakGlass = approved;
    events.push(breakGlassEvent(s.resource, approved, now));
    return { ok: true, breakGlass: approved };
}
function breakGlassEvent(resource, pass, atMs) {
    const event = {
        kind: 'break_glass',
        atMs,
        resource,
        actorDid: pass.actorDid,
        leaseId: '',
        fence: 0,
        reason: pass.reason,
        by: pass.by,
        expiresAtMs: pass.untilMs,
    };
    if (pass.approvedBy !== undefined)
        event.approvedBy = pass.approvedBy;
    if (pass.approval !== undefined)
        event.approval = pass.approval;
    return event;
}
/** An operator's cancel: a usable pass is withdrawn on the ledger; a pending one only forgotten. */
function withdrawBreakGlass(s, command, now, events) {
    const pass = s.breakGlass;
    if (!pass || (command.actorDid !== undefined && pass.actorDid !== command.actorDid)) {
        const whose = command.actorDid === undefined ? '' : ` for ${command.actorDid}`;
        return {
            ok: false,
            reason: 'no_break_glass',
            message: `${s.resource} has no unused break-glass${whose} to withdraw`,
        };
    }
    if (!withdrawUsable(s, command.by, WITHDRAWN_CANCELLED, now, events))
        delete s.breakGlass;
    return { ok: true, withdrawn: pass };
}
/** Withdraws the resource's usable (on the ledger) pass, if any, with its entry. */
function withdrawUsable(s, by, reason, now, events) {
    const pass = s.breakGlass;
    if (!pass || pass.pending)
        return false;
    delete s.breakGlass;
    events.push({
        kind: 'break_glass_withdrawn',
        atMs: now,
        resource: s.resource,
        actorDid: pass.actorDid,
        leaseId: '',
        fence: 0,
        reason,
        by,
    });
    return true;
}
/**
 * A restart's replay of a break-glass entry (rules.ts `replay`): a pass, usable, replacing
 * the last; a withdrawal ends the pass it names (as verify reads it).
 */
function replayBreakGlass(s, e) {
    if (e.kind === 'break_glass_withdrawn') {
        if (s.breakGlass?.actorDid === e.actorDid)
            delete s.breakGlass;
        return;
    }
    s.breakGlass = {
        actorDid: e.actorDid,
        reason: e.reason ?? '',
        by: e.by ?? '',
        untilMs: e.expiresAtMs ?? e.atMs,
        atMs: e.atMs,
        pending: false,
        ...(e.approvedBy !== undefined ? { approvedBy: e.approvedBy } : {}),
        ...(e.approval !== undefined ? { approval: e.approval } : {}),
    };
}


/***/ }),

/***/ 9098:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   BR: () => (/* binding */ ResourceTable),
/* harmony export */   m_: () => (/* reexport safe */ _rules_js__WEBPACK_IMPORTED_MODULE_0__.m_)
/* harmony export */ });
/* unused harmony export LeaseKernel */
/* harmony import */ var _rules_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1811);
/* harmony import */ var _work_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1512);



/**
 * Every resource's state and the fence counter, in memory, with no I/O:
 * `decide` computes a change without keeping it, `put` keeps it. The service
 * puts a decision only once it is durable.
 */
class ResourceTable {
    ttlMs;
    nextInLineWaitMs;
    lockDelayMs;
    random;
    window;
    /** The last fence taken (durable or not: fences never go back, gaps are fine). */
    fence = 0;
    states = new Map();
    constructor(options = {}) {
        this.ttlMs = options.ttlMs ?? _rules_js__WEBPACK_IMPORTED_MODULE_0__/* .DEFAULT_TTL_MS */ .KT;
        this.nextInLineWaitMs = options.nextInLineWaitMs ?? _rules_js__WEBPACK_IMPORTED_MODULE_0__/* .NEXT_IN_LINE_WAIT_MS */ .i2;
        this.lockDelayMs = options.lockDelayMs ?? (0,_rules_js__WEBPACK_IMPORTED_MODULE_0__/* .defaultLockDelayMs */ .m_)(this.ttlMs);
        this.random = options.random ?? Math.random;
        this.window = options.window;
    }
    get(resource) {
        return this.states.get(resource) ?? (0,_rules_js__WEBPACK_IMPORTED_MODULE_0__/* .emptyState */ .p$)(resource);
    }
    decide(resource, command, now) {
        return (0,_rules_js__WEBPACK_IMPORTED_MODULE_0__/* .decide */ .LD)(this.get(resource), command, this.context(resource, now));
    }
    /** The rules' context for one resource at `now`, taking fences from this table. */
    context(resource, now) {
        return (0,_work_js__WEBPACK_IMPORTED_MODULE_1__/* .ruleContext */ .wm)(this, resource, now, () => (this.fence += 1));
    }
    put(state) {
        if ((0,_rules_js__WEBPACK_IMPORTED_MODULE_0__/* .isIdle */ .xB)(state))
            this.states.delete(state.resource);
        else
            this.states.set(state.resource, state);
    }
    values() {
        return this.states.values();
    }
    get size() {
        return this.states.size;
    }
}
/**
 * The rules over a table, applied at once, for in-process use (tests, the
 * bench's core row). The HTTP kernel goes through the service instead.
 */
class LeaseKernel {
    table;
    events = [];
    constructor(options = {}) {
        this.table = new ResourceTable(options);
    }
    get ttlMs() {
        return this.table.ttlMs;
    }
    lease(resource, actorDid, now) {
        return this.apply(resource, { kind: 'lease', actorDid }, now);
    }
    release(resource, actorDid, now) {
        return this.apply(resource, { kind: 'release', actorDid }, now);
    }
    /** The operator's lever: ends the lease at once, whoever holds it. */
    revoke(resource, reason, now) {
        const reply = this.apply(resource, { kind: 'revoke', reason }, now);
        return reply.lease ?? undefined;
    }
    /** No new holder until `untilMs` (null: until unfrozen); the holder keeps renewing. */
    freeze(resource, reason, untilMs, now) {
        const cmd = { kind: 'freeze', reason, untilMs, by: 'operator' };
        return this.apply(resource, cmd, now).changed;
    }
    unfreeze(resource, now) {
        const cmd = { kind: 'unfreeze', by: 'operator' };
        return this.apply(resource, cmd, now).changed;
    }
    status(resource, now) {
        return this.apply(resource, { kind: 'status' }, now).lease;
    }
    /** Applies every lapse due by `now` (a scan: for tests; the service uses a heap). */
    reclaim(now) {
        for (const state of [...this.table.values()])
            this.apply(state.resource, { kind: 'expire' }, now);
    }
    nextExpiry() {
        let next;
        for (const { lease } of this.table.values()) {
            if (lease && (next === undefined || lease.expiresAtMs < next))
                next = lease.expiresAtMs;
        }
        return next;
    }
    /** Hands over the changes of holder since the last call (renewals left out). */
    drainEvents() {
        const events = this.events;
        this.events = [];
        return events;
    }
    apply(resource, command, now) {
        const { state, reply, events } = this.table.decide(resource, command, now);
        this.table.put(state);
        for (const event of events)
            if (event.kind !== 'renew')
                this.events.push(event);
        return reply;
    }
}


/***/ }),

/***/ 4445:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   J: () => (/* binding */ kernelEventSchema),
/* harmony export */   w: () => (/* binding */ frees)
/* harmony export */ });
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(8395);
/* harmony import */ var _plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(6115);
/* harmony import */ var _plane_entry_kinds_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(4152);



/**
 * A durable change (every grant, renewal, release, lapse, revocation, freeze
 * and unfreeze), as the rules make it and as a change notice carries it to
 * other replicas: one shape, checked wherever it arrives from outside.
 */
const kernelEventSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    // The ledger's entry kinds: one list, in plane/ so the console page needs no node code.
    kind: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* ["enum"] */ .k5n(_plane_entry_kinds_js__WEBPACK_IMPORTED_MODULE_2__/* .ENTRY_KINDS */ .p),
    atMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    resource: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    leaseId: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    fence: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    /** The lease's end as the holder was told it (grants and renewals). */
    expiresAtMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig()),
    reason: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /** Who revoked, `operator:NAME` (revokes whose operator gave a name), or opened a break-glass. */
    by: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /** The second operator who approved a break-glass, when one had to. */
    approvedBy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /** The run and attempt whose OIDC token approved a break-glass (one approval, one pass). */
    approval: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /**
     * A grant a break-glass let through: stamped in a run of +1 stamps, its entry carries the
     * clock that decided it (clockMs), so verify sees it came before the pass ended.
     */
    clocked: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .boolean */ .zMY()),
    /** What the holder deploys (grants only). */
    deploy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__/* .deploySchema */ .zR),
    /**
     * A grant past a promotion step by a descendant (kernel --github-token-file): the commit
     * that completed the step before and contains this one, by GitHub's compare.
     */
    promotedVia: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /** The OIDC issuer (URL) whose token the grant's holder proved itself with (grants only). */
    issuer: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
});
// An unfreeze may free a resource too, and a break-glass lets its agent in: a held waiter asks again.
const FREEING = new Set([
    'release',
    'lapse',
    'revoke',
    'unfreeze',
    'break_glass',
]);
/** Whether these changes may have freed their resource (held requests wake on it). */
const frees = (events) => events.some((e) => FREEING.has(e.kind));


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

/***/ 9454:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   _C: () => (/* binding */ OVERVIEW_PAGE),
/* harmony export */   bq: () => (/* binding */ overviewOf),
/* harmony export */   h6: () => (/* binding */ overviewPage),
/* harmony export */   sE: () => (/* binding */ withoutDetail)
/* harmony export */ });
/* harmony import */ var _rules_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1811);

/** Every resource with a live lease, a reservation or waiters, as seen at `now`. */
function overviewOf(states, now) {
    const resources = [];
    for (const s of states) {
        const lease = s.lease && s.lease.expiresAtMs > now ? s.lease : null;
        const queue = s.queue
            .filter((w) => w.keepUntil >= now)
            .map((w, position) => {
            const eta = (0,_rules_js__WEBPACK_IMPORTED_MODULE_0__/* .etaMs */ .Z7)(s, position, now);
            return {
                actorDid: w.actorDid,
                position,
                ...(w.deploy ? { deploy: w.deploy } : {}),
                ...(w.sinceMs === undefined ? {} : { sinceMs: w.sinceMs }),
                ...(eta === undefined ? {} : { etaMs: eta }),
            };
        });
        const head = queue[0];
        const reserved = !lease && head && s.reservedUntilMs > now
            ? { holder: head.actorDid, untilMs: s.reservedUntilMs }
            : null;
        const frozen = s.frozen && (s.frozen.untilMs === null || s.frozen.untilMs > now) ? s.frozen : undefined;
        const breakGlass = s.breakGlass && s.breakGlass.untilMs > now ? s.breakGlass : undefined;
        if (!lease && !reserved && queue.length === 0 && !frozen && !breakGlass)
            continue;
        resources.push({
            resource: s.resource,
            lease: lease && {
                id: lease.id,
                holder: lease.holder,
                expiresAtMs: lease.expiresAtMs,
                fence: lease.fence,
                grantedAtMs: lease.grantedAtMs,
                ...(lease.deploy ? { deploy: lease.deploy } : {}),
            },
            reserved,
            queue,
            ...(frozen ? { frozen } : {}),
            ...(breakGlass ? { breakGlass } : {}),
        });
    }
    resources.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    return { nowMs: now, resources };
}
/** Resources per page of the overview when the caller names no limit, and at most. */
const OVERVIEW_PAGE = { default: 1_000, max: 5_000 };
/**
 * One page of the overview, in resource order: the resources after `after`
 * (exclusive), at most `limit`. A page ends on a name, so a resource taken or
 * freed between pages moves nothing else in or out of the next one.
 */
function overviewPage(overview, after, limit) {
    const all = overview.resources;
    let start = 0;
    if (after !== undefined) {
        // Sorted by resource: the first name past `after`, by binary search.
        let high = all.length;
        while (start < high) {
            const mid = (start + high) >> 1;
            if (all[mid].resource <= after)
                start = mid + 1;
            else
                high = mid;
        }
    }
    const resources = all.slice(start, start + limit);
    const more = start + limit < all.length;
    return { nowMs: overview.nowMs, resources, next: more ? resources.at(-1).resource : null };
}
/**
 * The page as a plain `GET` shows it: without the waiters' `sinceMs` and `etaMs`, which only
 * `?detail=1` (the console, `lease-gate status`) asks for, so the answer's shape stays what it was.
 */
function withoutDetail(resources) {
    return resources.map((r) => r.queue.some((w) => w.sinceMs !== undefined || w.etaMs !== undefined)
        ? { ...r, queue: r.queue.map(({ sinceMs: _since, etaMs: _eta, ...w }) => w) }
        : r);
}


/***/ }),

/***/ 1811:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  KT: () => (/* reexport */ DEFAULT_TTL_MS),
  i2: () => (/* reexport */ NEXT_IN_LINE_WAIT_MS),
  M$: () => (/* reexport */ afterRestart),
  LD: () => (/* binding */ decide),
  m_: () => (/* reexport */ defaultLockDelayMs),
  p$: () => (/* binding */ emptyState),
  Z7: () => (/* reexport */ etaMs),
  xB: () => (/* binding */ isIdle),
  Gg: () => (/* binding */ nextDeadline),
  eZ: () => (/* reexport */ replay)
});

// UNUSED EXPORTS: FROZEN_WAIT_MS, LOCK_DELAY_GRACE_MS, MAX_RESERVATION_MS, WAITER_GRACE_MS, overdueMs, revokeRefuses

;// CONCATENATED MODULE: ./src/kernel/rules/deploy-order.ts
/**
 * The rules of deploy order, pure (no I/O), called from `decide`:
 *
 * - **Superseding.** A waiter that asked with `queue: 'newest'` leaves the
 *   queue when a newer run of its lane (same repository, workflow and ref)
 *   starts waiting for the same resource; one that arrives while a newer run
 *   of its lane already waits is turned away at once. "Newer" is a strictly
 *   higher run number: GitHub numbers a workflow's runs in the order they
 *   were triggered, whereas the time a run reaches the gate depends on
 *   runners, earlier jobs and retries, so a clock would let a slow newer run
 *   be pushed out by an older one. A rerun keeps its number (a higher
 *   attempt), so it never supersedes nor is superseded by its own run. The
 *   newer run joins at the back: lanes stay FIFO among themselves, and a
 *   stream of pushes to one lane can only shorten another lane's wait.
 *   A holder is never superseded.
 * - **The last grant per repository.** Each grant answers the deploy of the
 *   grant before it on this resource from the same repository (`previous`),
 *   so the gate can refuse to roll back. A holder that gives the lease back
 *   as outdated (it did not deploy) restores the one before, so a skipped
 *   old run never becomes the commit later runs are compared with.
 */
/** At most this many repositories' last grants are kept per resource (the oldest go). */
const MAX_REPOSITORIES = 32;
/** The release reason of a holder that found itself outdated and did not deploy. */
const OUTDATED_REASON = 'outdated';
const laneOf = (d) => d?.repository !== undefined &&
    d.workflow !== undefined &&
    d.ref !== undefined &&
    d.runNumber !== undefined
    ? { lane: JSON.stringify([d.repository, d.workflow, d.ref]), run: d.runNumber }
    : undefined;
/** How a superseded run is told who took its place: the newer run's URL, else its number. */
const describeRun = (d) => d.runUrl ?? `run ${d.runNumber} of ${d.workflow} on ${d.ref} in ${d.repository}`;
/**
 * A run joins the queue: the waiters of its lane that asked to step aside and
 * are older leave it (marked), and the joiner itself is turned away when it
 * asked to step aside and a newer run of its lane already waits.
 */
function supersede(queue, joiner, untilMs) {
    const mine = laneOf(joiner.deploy);
    if (!mine)
        return { queue: [...queue], marks: [] };
    const marks = [];
    let joinerBy;
    const kept = queue.filter((w) => {
        const theirs = laneOf(w.deploy);
        if (!theirs || theirs.lane !== mine.lane || w.actorDid === joiner.actorDid)
            return true;
        if (theirs.run < mine.run && w.queue === 'newest') {
            marks.push({ actorDid: w.actorDid, by: describeRun(joiner.deploy), untilMs });
            return false;
        }
        if (theirs.run > mine.run && joiner.queue === 'newest')
            joinerBy ??= describeRun(w.deploy);
        return true;
    });
    if (joinerBy !== undefined)
        marks.push({ actorDid: joiner.actorDid, by: joinerBy, untilMs });
    return { queue: kept, marks, ...(joinerBy !== undefined ? { joinerBy } : {}) };
}
/** The grant before this one from the same repository, and the list with this grant as live. */
function recordGrant(deploys, deploy) {
    const repository = deploy?.repository;
    if (!deploy || repository === undefined)
        return { deploys: deploys && [...deploys] };
    const list = deploys ?? [];
    const found = list.find((d) => d.repository === repository);
    const rest = list.filter((d) => d !== found);
    const next = { repository, live: deploy };
    if (found)
        next.before = found.live;
    // Most recent first, bounded: a resource shared by many repositories keeps the latest ones.
    return {
        ...(found ? { previous: found.live } : {}),
        deploys: [next, ...rest].slice(0, MAX_REPOSITORIES),
    };
}
/**
 * A holder gave the lease back as outdated: the grant it made live did not
 * deploy, so the repository's live grant is the one before it again.
 */
function undoGrant(deploys, deploy) {
    if (!deploys || deploy?.repository === undefined)
        return deploys && [...deploys];
    const out = [];
    for (const d of deploys) {
        if (d.repository !== deploy.repository || !sameDeploy(d.live, deploy))
            out.push(d);
        else if (d.before)
            out.push({ repository: d.repository, live: d.before });
    }
    return out.length ? out : undefined;
}
/** Field by field: a state read back from jsonb or a ledger line has its keys in another order. */
const sameDeploy = (a, b) => Object.keys(a).every((k) => a[k] === b[k]) &&
    Object.keys(a).length === Object.keys(b).length;

// EXTERNAL MODULE: ./src/plane/did.ts
var did = __webpack_require__(4027);
;// CONCATENATED MODULE: ./src/kernel/rules/timing.ts
/**
 * The rules' clock constants and the typical hold, in a module of their own so `decide`
 * (rules.ts), `lease()` (lease.ts), the ending of a hold (ending.ts) and `replay`
 * (replay.ts) read one set of numbers without importing each other.
 */
const DEFAULT_TTL_MS = 30_000;
/** The agent next in line polls this often, so a handover costs one short sleep. */
const NEXT_IN_LINE_WAIT_MS = 500;
/** A waiter is dropped when it has not asked again this long after its told wait. */
const WAITER_GRACE_MS = 2_000;
/** A freed resource is kept for the next in line at most this long, whatever others were told. */
const MAX_RESERVATION_MS = 2_500;
/** What a lock-delay adds to one renewal interval: the renewal's round trip and a prompt stop. */
const LOCK_DELAY_GRACE_MS = 2_000;
/**
 * After a revoke, the resource goes to another agent only once the revoked
 * holder gave it back or this long has passed (Chubby's lock-delay). The
 * keeper and `run` renew at a third of the lease's time left, so a holder that
 * learns of the revoke only from its next renewal learns within `ttlMs / 3`;
 * the grace covers that renewal's answer and its command stopping on SIGTERM.
 */
const defaultLockDelayMs = (ttlMs) => Math.min(ttlMs, Math.round(ttlMs / 3) + LOCK_DELAY_GRACE_MS);
/** A frozen resource's waiters ask again this often (or at the freeze's end, if sooner). */
const FROZEN_WAIT_MS = 5_000;
/** The moving average of hold times (weights 0.7 old, 0.3 new), the live rules' and replay's. */
const typical = (before, held) => before === null ? held : 0.7 * before + 0.3 * held;

;// CONCATENATED MODULE: ./src/kernel/rules/ending.ts
/**
 * How a hold ends and what it leaves behind: the end itself (a release, lapse or
 * revoke), its event, the revoke's refusal and lock-delay, the reservation for the
 * next in line. Shared by `decide` (rules.ts) and `lease()` (lease.ts).
 */


/**
 * Whether a revoke of `revoked` refuses `actorDid`: the same DID, or another DID of the
 * same attempt of the same run by `runAttemptKey`, the prefix rule an OIDC token's DID
 * check uses: whatever follows the attempt (job, nonce, or any other shape) is ignored,
 * so a token cannot step round its revoke by asking under another tail. A rerun (a new
 * attempt) is not refused.
 */
function revokeRefuses(revoked, actorDid) {
    if (revoked === actorDid)
        return true;
    const key = (0,did/* runAttemptKey */.KP)(revoked);
    return key !== undefined && key === (0,did/* runAttemptKey */.KP)(actorDid);
}
/** Ends the lease; a freed resource is kept for the next in line for a short grace only. */
function end(s, kind, now, events, reason, by) {
    const lease = s.lease;
    s.lease = null;
    // A lapse happened when the lease ran out, however late it is noticed.
    const at = kind === 'lapse' ? Math.min(now, lease.expiresAtMs) : now;
    s.typicalHoldMs = typical(s.typicalHoldMs, at - lease.grantedAtMs);
    s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
    record(events, kind, lease, now, reason, by);
}
/**
 * A freeze (an operator's or a window) ended at `at`. Its waiters kept their places but
 * were told to ask again up to FROZEN_WAIT_MS apart, not the next in line's short wait, so
 * a free resource is kept for the head of the queue until its place lapses (its told wait
 * and the grace; at least the usual reservation): the first in line is granted, whoever
 * asks first. A held request is woken by the unfreeze and asks at once. A resource still
 * held, or in a lock-delay, is kept for the head when that ends, as always.
 */
function thawed(s, at) {
    const head = s.queue[0];
    if (!head || s.lease || s.lockDelay)
        return;
    s.reservedUntilMs = Math.max(s.reservedUntilMs, at + MAX_RESERVATION_MS, head.keepUntil);
}
/** A revoke keeps the resource from others until its holder gives it back, at most the lock-delay. */
function holdForGiveBack(s, ended, ctx) {
    const delayMs = ctx.lockDelayMs ?? defaultLockDelayMs(ctx.ttlMs);
    if (delayMs > 0) {
        s.lockDelay = { actorDid: ended.holder, leaseId: ended.id, untilMs: ctx.now + delayMs };
    }
}
/** The revoked holder gave it back (or the lock-delay ended): kept for the next in line briefly. */
function gaveBack(s, at) {
    delete s.lockDelay;
    s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
}
function record(events, kind, lease, atMs, reason, by) {
    const event = {
        kind,
        atMs,
        resource: lease.resource,
        actorDid: lease.holder,
        leaseId: lease.id,
        fence: lease.fence,
    };
    if (kind === 'grant' || kind === 'renew')
        event.expiresAtMs = lease.expiresAtMs;
    if (reason !== undefined)
        event.reason = reason;
    if (by !== undefined)
        event.by = by;
    if (kind === 'grant' && lease.deploy)
        event.deploy = lease.deploy;
    events.push(event);
}

// EXTERNAL MODULE: ./src/kernel/rules/freeze.ts
var rules_freeze = __webpack_require__(2646);
// EXTERNAL MODULE: ./src/kernel/rules/break-glass.ts
var break_glass = __webpack_require__(9047);
// EXTERNAL MODULE: ./src/plane/run-pass.ts
var run_pass = __webpack_require__(4941);
;// CONCATENATED MODULE: ./src/kernel/rules/lease.ts
/**
 * The `lease` command (grant, renewal, or a place in the queue), pure like the rest of
 * the rules: `decide` (rules.ts) calls `lease()` on the settled state. Each step that
 * may answer on its own (a revoke's refusal, a superseded run, the failover hold, a
 * renewal, a refused promotion, a freeze, a grant) is a named function here, taken in
 * the order the rules put them: safety first, then policy, then the queue.
 */






function lease(s, command, ctx, events) {
    const { now } = ctx;
    const { actorDid } = command;
    const refused = revokedReply(s, actorDid, ctx);
    if (refused)
        return refused;
    const turnedAway = supersededReply(s, command, now + ctx.ttlMs);
    if (turnedAway)
        return turnedAway;
    if (ctx.failover)
        return failoverReply(ctx.failover, now);
    const current = s.lease;
    if (current?.holder === actorDid) {
        s.lease = { ...current, expiresAtMs: now + ctx.ttlMs };
        record(events, 'renew', s.lease, now);
        return { ok: true, lease: s.lease, renewed: true };
    }
    const lane = { deploy: command.deploy, queue: command.queue };
    // An operator's break-glass lets its agent past a freeze, the promotion order and the
    // queue, never past a holder.
    const pass = (0,break_glass/* passFor */.tZ)(s, actorDid, now);
    // Not queued: waiting cannot make a commit complete the step before; the gate says which.
    if (command.unpromoted !== undefined && !pass)
        return {
            ok: false,
            reason: 'not_promoted',
            message: (0,run_pass/* unpromotedMessage */.Jw)(command.unpromoted, s.resource, actorDid),
        };
    // The holder's renewals go on; nobody else is granted it while frozen, but waiters keep their place.
    const freeze = pass ? undefined : (s.frozen ?? ctx.window);
    if (freeze)
        return frozenWait(s, actorDid, lane, freeze, ctx);
    const reservedFor = s.reservedUntilMs > now && !pass ? s.queue[0]?.actorDid : undefined;
    if (!current && !s.lockDelay && (reservedFor === undefined || reservedFor === actorDid)) {
        return grant(s, command, ctx, events, pass);
    }
    return heldReply(s, actorDid, lane, ctx, reservedFor);
}
/** A revoked agent (or another DID of its run's attempt) is refused, and asking again keeps it so. */
function revokedReply(s, actorDid, ctx) {
    const mark = s.revoked.find((m) => m.actorDid === actorDid) ??
        s.revoked.find((m) => revokeRefuses(m.actorDid, actorDid));
    if (!mark)
        return undefined;
    // Asking again keeps the refusal alive: a lease lifetime after the last ask.
    const untilMs = Math.max(mark.untilMs, ctx.now + ctx.ttlMs);
    s.revoked = s.revoked.map((m) => (m === mark ? { ...mark, untilMs } : m));
    return {
        ok: false,
        reason: 'revoked',
        holder: s.lease?.holder ?? actorDid,
        message: mark.message,
        ...(mark.by ? { by: mark.by } : {}),
    };
}
/** Frozen: the asker keeps (or takes) its place and asks again at most FROZEN_WAIT_MS later. */
function frozenWait(s, actorDid, lane, freeze, ctx) {
    const { now } = ctx;
    if (ctx.window?.untilMs != null)
        s.windowUntilMs = ctx.window.untilMs;
    const position = keepPlace(s, actorDid, lane, 0, now);
    const untilMs = freeze.untilMs ?? Infinity;
    const waitMs = Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now)));
    keepPlace(s, actorDid, lane, waitMs, now);
    return (0,rules_freeze/* frozenReply */.ZQ)(freeze, waitMs, position);
}
/** The resource is free for this asker (nobody holds it, no lock-delay, no one else's reservation). */
function grant(s, command, ctx, events, pass) {
    const { now } = ctx;
    const { actorDid } = command;
    s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
    // A pass cut the line: the head's reservation (if any) is not kept past this grant.
    s.reservedUntilMs = 0;
    // Once: the pass is used by the grant it let through.
    if (s.breakGlass && !s.breakGlass.pending && (0,run_pass/* passCovers */._I)(s.breakGlass.actorDid, actorDid))
        delete s.breakGlass;
    const fence = ctx.nextFence();
    s.lease = {
        id: `lease_${fence.toString(36)}_${randomHex(ctx.random, 8)}`,
        resource: s.resource,
        holder: actorDid,
        expiresAtMs: now + ctx.ttlMs,
        fence,
        grantedAtMs: now,
    };
    if (command.deploy)
        s.lease.deploy = command.deploy;
    const { previous, deploys } = recordGrant(s.deploys, command.deploy);
    s.deploys = deploys;
    record(events, 'grant', s.lease, now);
    // Let through by a pass: stamped in a run, the entry carries the clock that saw it open.
    if (pass)
        events[events.length - 1].clocked = true;
    if (command.promotedVia !== undefined)
        events[events.length - 1].promotedVia = command.promotedVia;
    if (command.issuer !== undefined)
        events[events.length - 1].issuer = command.issuer;
    return { ok: true, lease: s.lease, renewed: false, ...(previous ? { previous } : {}) };
}
/**
 * Held (by the holder; during a lock-delay still the revoked holder's until it gives
 * back; or kept for the next in line): the asker keeps its place and is told when to ask again.
 */
function heldReply(s, actorDid, lane, ctx, reservedFor) {
    const { now } = ctx;
    const current = s.lease;
    const delay = s.lockDelay;
    const position = keepPlace(s, actorDid, lane, 0, now);
    const bound = current
        ? current.expiresAtMs - now
        : delay
            ? delay.untilMs - now
            : s.reservedUntilMs - now;
    const waitMs = waitFor(s, position, bound, ctx);
    keepPlace(s, actorDid, lane, waitMs, now);
    const eta = etaMs(s, position, now);
    const reply = {
        ok: false,
        reason: 'lease_held',
        holder: current ? current.holder : delay ? delay.actorDid : reservedFor,
        ...(current || delay ? {} : { reserved: true }),
        stampede: { waitMs },
        position,
    };
    if (eta === undefined)
        return reply;
    const overdue = overdueMs(s, now);
    return overdue === undefined
        ? { ...reply, etaMs: eta }
        : { ...reply, etaMs: eta, overdueMs: overdue };
}
/**
 * How long the holder has held past a typical hold, when it has (then `etaMs` only
 * counts the waiters ahead): a waiter is told "overdue by 3m", not "about 0ms".
 */
function overdueMs(s, now) {
    const typicalMs = s.typicalHoldMs;
    if (typicalMs === null || !s.lease)
        return undefined;
    const over = Math.round(now - s.lease.grantedAtMs - typicalMs);
    return over > 0 ? over : undefined;
}
/**
 * Refused during the failover hold, renewals too: after an asynchronous failover the row
 * may show a lease its holder released (the release was lost) while a lost grant gave the
 * resource to another, so "renewing" it would hand it back beside that holder. Nothing is
 * changed (no queue place: every lease of the old timeline has lapsed when the hold ends,
 * and the waiters ask again then).
 */
function failoverReply(hold, now) {
    const untilMs = hold.untilMs ?? now + FROZEN_WAIT_MS;
    return (0,rules_freeze/* frozenReply */.ZQ)(hold, Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now))), 0);
}
/**
 * Puts the agent in the queue (at the back, if new, with its lane) and keeps its
 * place `waitMs` + a grace. The refresh keeps the waiter's other fields (its lane).
 */
function keepPlace(s, actorDid, lane, waitMs, now) {
    let position = s.queue.findIndex((w) => w.actorDid === actorDid);
    if (position < 0) {
        s.queue = [...s.queue, { actorDid, keepUntil: 0, sinceMs: now, ...lane }];
        position = s.queue.length - 1;
    }
    if (waitMs > 0) {
        s.queue = s.queue.map((w, i) => i === position ? { ...w, keepUntil: now + waitMs + WAITER_GRACE_MS } : w);
    }
    return position;
}
/**
 * About how long until this waiter is granted, at recent hold times: what the
 * current holder has left of a typical hold (none, if it has held longer), plus
 * one typical hold for each waiter ahead. `typicalHoldMs` is a moving average
 * (weights 0.7 old, 0.3 new) of how long each past lease on this resource was held,
 * from its grant to its release, lapse or revoke. Unknown (undefined) until one has ended.
 */
function etaMs(s, position, now) {
    const typicalMs = s.typicalHoldMs;
    if (typicalMs === null)
        return undefined;
    const held = s.lease ? now - s.lease.grantedAtMs : typicalMs;
    // A holder past the typical hold has nothing left (overdueMs says by how much): the
    // waiters ahead still count in full, so the 2nd in line is not told "about 0ms".
    return Math.round(Math.max(0, typicalMs - held) + position * typicalMs);
}
/**
 * The next in line polls briefly, so a handover costs at most one short
 * sleep. Those further back cannot be served before the holds ahead of them
 * end: they wait about half the typical time of those holds (never less than
 * the next in line, jittered so they do not stampede), never past the lease's
 * end (or the reservation's).
 */
function waitFor(s, position, boundMs, ctx) {
    const next = ctx.nextInLineWaitMs;
    let wait = next;
    if (position > 0) {
        const ahead = position * (s.typicalHoldMs ?? 0);
        wait = Math.max(next, ahead / 2) * (1 + 0.2 * ctx.random());
    }
    return Math.max(1, Math.round(Math.min(wait, boundMs)));
}
/**
 * A superseded waiter is told so while it keeps asking; a run joining the
 * queue supersedes the older waiters of its lane that asked to step aside
 * (or is itself turned away). See deploy-order.ts.
 */
function supersededReply(s, { actorDid, deploy, queue }, untilMs) {
    const mark = s.superseded?.find((m) => m.actorDid === actorDid);
    if (mark) {
        s.superseded = s.superseded.map((m) => (m === mark ? { ...mark, untilMs } : m));
        return { ok: false, reason: 'superseded', by: mark.by };
    }
    if (!deploy || s.lease?.holder === actorDid || s.queue.some((w) => w.actorDid === actorDid)) {
        return undefined;
    }
    const joined = supersede(s.queue, { actorDid, deploy, queue }, untilMs);
    if (joined.marks.length === 0)
        return undefined;
    s.queue = joined.queue;
    s.superseded = [...(s.superseded ?? []), ...joined.marks];
    if (s.queue.length === 0)
        s.reservedUntilMs = 0;
    return joined.joinerBy === undefined
        ? undefined
        : { ok: false, reason: 'superseded', by: joined.joinerBy };
}
function randomHex(random, length) {
    let hex = '';
    while (hex.length < length)
        hex += Math.floor(random() * 16).toString(16);
    return hex;
}

;// CONCATENATED MODULE: ./src/kernel/rules/replay.ts
/**
 * A restart's side of the rules: rebuilding a resource's durable part from the log
 * (`replay`) and the rule applied once the log is read (`afterRestart`). Pure, like rules.ts.
 */





/**
 * Rebuilds a resource's durable part from one recorded event (a restart's
 * replay). Queues are not durable: waiters ask again.
 */
function replay(state, e, ttlMs, lockDelayMs = defaultLockDelayMs(ttlMs)) {
    const s = { ...state, queue: [], reservedUntilMs: 0 };
    if (e.kind === 'freeze') {
        s.frozen = {
            reason: e.reason ?? '',
            untilMs: e.expiresAtMs ?? null,
            by: e.actorDid,
            atMs: e.atMs,
        };
    }
    else if (e.kind === 'unfreeze') {
        delete s.frozen;
    }
    else if (e.kind === 'break_glass' || e.kind === 'break_glass_withdrawn') {
        (0,break_glass/* replayBreakGlass */.pb)(s, e);
    }
    else if (e.kind === 'grant') {
        if (s.breakGlass && (0,run_pass/* passCovers */._I)(s.breakGlass.actorDid, e.actorDid))
            delete s.breakGlass;
        // A give-back is not logged: a lock-delay replayed stands until its time (safe: it only delays).
        delete s.lockDelay;
        // A grant to a revoked agent (or to its run's attempt) can only follow its refusal's end.
        if (s.revoked.length > 0) {
            s.revoked = s.revoked.filter((m) => !revokeRefuses(m.actorDid, e.actorDid));
        }
        s.lease = {
            id: e.leaseId,
            resource: e.resource,
            holder: e.actorDid,
            expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs,
            fence: e.fence,
            grantedAtMs: e.atMs,
        };
        if (e.deploy)
            s.lease.deploy = e.deploy;
        s.deploys = recordGrant(s.deploys, e.deploy).deploys;
    }
    else if (e.kind === 'renew') {
        if (s.lease)
            s.lease = { ...s.lease, expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs };
    }
    else {
        const held = s.lease ? e.atMs - s.lease.grantedAtMs : null;
        if (held !== null)
            s.typicalHoldMs = typical(s.typicalHoldMs, held);
        if (e.kind === 'release' && e.reason === OUTDATED_REASON) {
            s.deploys = undoGrant(s.deploys, s.lease?.deploy);
        }
        s.lease = null;
        if (e.kind === 'revoke') {
            s.revoked = [
                ...s.revoked.filter((m) => m.actorDid !== e.actorDid),
                { actorDid: e.actorDid, message: e.reason ?? '', untilMs: e.atMs + ttlMs },
            ];
            if (lockDelayMs > 0) {
                s.lockDelay = { actorDid: e.actorDid, leaseId: e.leaseId, untilMs: e.atMs + lockDelayMs };
            }
        }
    }
    return s;
}
/**
 * After a restart, a revoke the log has not seen end refuses its agent one lease lifetime
 * from now: the asks that kept the refusal alive before the crash are not logged, and a
 * refusal a little too long is safer than a revoke undone. A lock-delay still running in
 * the log runs its whole length again from now, so a clock that stepped forward while the
 * kernel was down cannot hand the resource on before the revoked holder stopped.
 */
function afterRestart(state, now, ttlMs, lockDelayMs = 0) {
    let next = state;
    if (state.revoked.length > 0) {
        const untilMs = now + ttlMs;
        next = {
            ...next,
            revoked: state.revoked.map((m) => ({ ...m, untilMs: Math.max(m.untilMs, untilMs) })),
        };
    }
    if (state.lockDelay && state.lockDelay.untilMs > now - lockDelayMs) {
        next = {
            ...next,
            lockDelay: {
                ...state.lockDelay,
                untilMs: Math.max(state.lockDelay.untilMs, now + lockDelayMs),
            },
        };
    }
    return next;
}

;// CONCATENATED MODULE: ./src/kernel/rules/rules.ts
/**
 * The plane's rules for one resource, with no I/O: `decide` takes the
 * resource's state, a command and a context (the time, the TTL, the next fence,
 * randomness) and returns the next state, the reply and the events to record.
 * Every store (memory, file, PostgreSQL) keeps states its own way and calls
 * this one function, so the rules live in one place.
 */









const emptyState = (resource) => ({
    resource,
    lease: null,
    queue: [],
    reservedUntilMs: 0,
    typicalHoldMs: null,
    revoked: [],
});
/** Nothing worth keeping: the store may forget this resource. */
const isIdle = (s) => s.lease === null &&
    s.queue.length === 0 &&
    s.revoked.length === 0 &&
    s.typicalHoldMs === null &&
    s.lockDelay === undefined &&
    !s.superseded?.length &&
    !s.deploys?.length &&
    !s.frozen &&
    !s.breakGlass &&
    s.windowUntilMs === undefined;
function decide(state, command, ctx) {
    // The switch below answers each kind with ReplyOf[kind]; TypeScript cannot follow a generic through it.
    return decideAny(state, command, ctx);
}
function decideAny(state, command, ctx) {
    const events = [];
    const s = settle(state, ctx.now, events);
    switch (command.kind) {
        case 'lease':
            return { state: s, reply: lease(s, command, ctx, events), events };
        case 'release':
            return { state: s, reply: release(s, command, ctx.now, events), events };
        case 'revoke': {
            const ended = s.lease;
            if (ended) {
                end(s, 'revoke', ctx.now, events, command.reason, command.by);
                // The revoked agent is refused at least a lease lifetime; others may take it at once.
                s.reservedUntilMs = 0;
                s.revoked.push({
                    actorDid: ended.holder,
                    message: command.reason,
                    untilMs: ctx.now + ctx.ttlMs,
                    ...(command.by ? { by: command.by } : {}),
                });
                s.queue = s.queue.filter((w) => !revokeRefuses(ended.holder, w.actorDid));
                holdForGiveBack(s, ended, ctx);
            }
            return { state: s, reply: { revoked: ended !== null, lease: ended }, events };
        }
        case 'freeze':
        case 'unfreeze': {
            const reply = (0,rules_freeze/* freezeCommand */.$E)(s, command, ctx.now, events);
            if (command.kind === 'unfreeze' && reply.changed)
                thawed(s, ctx.now);
            return { state: s, reply, events };
        }
        case 'break_glass':
        case 'approve_break_glass':
            return { state: s, reply: (0,break_glass/* breakGlassCommand */.V0)(s, command, ctx.now, events), events };
        case 'withdraw_break_glass':
            return { state: s, reply: (0,break_glass/* withdrawBreakGlass */.ME)(s, command, ctx.now, events), events };
        case 'status':
            return {
                state: s,
                reply: { lease: s.lease, frozen: s.frozen ?? ctx.window ?? null },
                events,
            };
        case 'expire':
            return { state: s, reply: null, events };
        case 'leave':
            // Its place, and a reservation kept for it, pass to the next in line (settle drops an empty one).
            s.queue = s.queue.filter((w) => w.actorDid !== command.actorDid);
            if (s.queue.length === 0)
                s.reservedUntilMs = 0;
            return { state: s, reply: null, events };
    }
}
/** The earliest time at which `expire` would change this state, for the alarm. */
function nextDeadline(s) {
    let next = s.lease?.expiresAtMs;
    const consider = (at) => {
        if (next === undefined || at < next)
            next = at;
    };
    for (const w of s.queue)
        consider(w.keepUntil + 1);
    for (const m of s.revoked)
        consider(m.untilMs + 1);
    for (const m of s.superseded ?? [])
        consider(m.untilMs + 1);
    if (s.reservedUntilMs > 0)
        consider(s.reservedUntilMs);
    if (s.lockDelay)
        consider(s.lockDelay.untilMs);
    if (s.frozen?.untilMs != null)
        consider(s.frozen.untilMs);
    if (s.windowUntilMs !== undefined)
        consider(s.windowUntilMs);
    if (s.breakGlass)
        consider(s.breakGlass.untilMs);
    return next;
}
/** A copy with lapses, departed waiters, and old marks and reservations applied. */
function settle(state, now, events) {
    const s = {
        ...state,
        queue: state.queue.filter((w) => w.keepUntil >= now),
        revoked: state.revoked.filter((m) => m.untilMs > now),
    };
    if (state.superseded)
        s.superseded = state.superseded.filter((m) => m.untilMs > now);
    if (s.lease && s.lease.expiresAtMs <= now)
        end(s, 'lapse', now, events);
    if (s.lockDelay && s.lockDelay.untilMs <= now)
        gaveBack(s, s.lockDelay.untilMs);
    if (s.frozen) {
        const endedAt = (0,rules_freeze/* settleFreeze */.jx)(s, now, events);
        if (endedAt !== undefined)
            thawed(s, endedAt);
    }
    if (s.windowUntilMs !== undefined && s.windowUntilMs <= now) {
        const endedAt = s.windowUntilMs;
        delete s.windowUntilMs;
        thawed(s, endedAt);
    }
    if (s.reservedUntilMs > 0 && (s.reservedUntilMs <= now || s.queue.length === 0)) {
        s.reservedUntilMs = 0;
    }
    (0,break_glass/* settleBreakGlass */.Fn)(s, now);
    return s;
}
function release(s, { actorDid, outdated }, now, events) {
    s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
    if (s.lockDelay?.actorDid === actorDid)
        gaveBack(s, now);
    const current = s.lease;
    if (current?.holder !== actorDid)
        return { ok: true, released: false, releasedIds: [] };
    if (outdated)
        s.deploys = undoGrant(s.deploys, current.deploy);
    end(s, 'release', now, events, outdated ? OUTDATED_REASON : undefined);
    return { ok: true, released: true, releasedIds: [current.id] };
}


/***/ }),

/***/ 1648:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   hk: () => (/* binding */ resourceStateSchema),
/* harmony export */   yF: () => (/* binding */ readResourceState)
/* harmony export */ });
/* unused harmony exports leaseRecordSchema, waiterSchema, revokedMarkSchema, lockDelaySchema, supersededMarkSchema, repositoryDeploysSchema, freezeSchema, breakGlassSchema */
/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(8395);
/* harmony import */ var _plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(6115);
/**
 * The one statement of what the rules keep for a resource (rules.ts): the
 * schema every reader of a stored state checks against (a PostgreSQL row, a
 * snapshot file), and the types the rules use, inferred from it. Adding a
 * field is done here, once. Pure: no I/O.
 */


const leaseRecordSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    id: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    resource: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    holder: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    expiresAtMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    fence: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().check(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .int */ .Whr()),
    grantedAtMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    /** What the holder said it deploys (extension fields of its request). */
    deploy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__/* .deploySchema */ .zR),
});
const waiterSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    /** When this waiter must have asked again to keep its place. */
    keepUntil: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    /** When it first asked (epoch ms, the kernel's clock): the console's "waited". Absent in older rows. */
    sinceMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig()),
    /** What it deploys and whether it steps aside for newer runs of its lane (deploy-order.ts). */
    deploy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__/* .deploySchema */ .zR),
    queue: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__/* .queueSchema */ .Xm),
});
/**
 * An operator's revoke: the revoked agent is refused here until `untilMs`, and so is
 * every other DID of the same run attempt (`revokeRefuses`): a job asking again under
 * a new nonce is the same run, not a new agent.
 */
const revokedMarkSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    message: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    untilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    /** Who revoked (`operator:NAME`), when named: the revoked holder is told. */
    by: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
});
/** A revoked holder that has not given the resource back yet: nobody else gets it until `untilMs`. */
const lockDelaySchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    leaseId: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    untilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
});
/** A waiter a newer run of its lane superseded (deploy-order.ts). */
const supersededMarkSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    by: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    untilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
});
/** The live grant of one repository on a resource, and the one before it. */
const repositoryDeploysSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    repository: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    live: _plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__/* .deploySchema */ .zR,
    before: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_0__/* .deploySchema */ .zR),
});
/** Why and until when (null: until unfrozen) a resource takes no new holder. */
const freezeSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    reason: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    untilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .nullable */ .mee(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig()),
    /** Who froze it, as the ledger names them. */
    by: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    atMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
});
/** An operator's break-glass (break-glass.ts): one agent let through a freeze once. */
const breakGlassSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    actorDid: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    reason: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    by: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    untilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    atMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    /** Waiting for a second operator's approval: not usable yet, and not on the ledger. */
    pending: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .boolean */ .zMY(),
    approvedBy: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
    /** The OIDC approval's run and attempt (one approval approves one pass). */
    approval: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP()),
});
/**
 * Everything the rules know about one resource; small and plain JSON. The
 * optional fields came later: rows and snapshots written before them still read.
 */
const resourceStateSchema = zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    resource: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(),
    lease: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .nullable */ .mee(leaseRecordSchema),
    queue: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .array */ .YOg(waiterSchema),
    /** Until when a freed resource is kept for the head of the queue (0: not kept). */
    reservedUntilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig(),
    /** A moving average of how long holders kept it. */
    typicalHoldMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .nullable */ .mee(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig()),
    revoked: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .array */ .YOg(revokedMarkSchema),
    /** Set by a revoke; cleared when the revoked holder gives the resource back or at `untilMs`. */
    lockDelay: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(lockDelaySchema),
    /** Waiters a newer run of their lane superseded (deploy-order.ts). */
    superseded: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .array */ .YOg(supersededMarkSchema)),
    /** Each repository's last grant here, for `previous` (deploy-order.ts). */
    deploys: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .array */ .YOg(repositoryDeploysSchema)),
    /** An operator's freeze (see freeze.ts): no new grant until it ends. */
    frozen: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(freezeSchema),
    /**
     * The end of the recurring window (windows.ts) that last refused a waiter here: the
     * window is configuration, not state, so this is how the rules see it end (thawed).
     */
    windowUntilMs: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig()),
    /** An operator's break-glass not used yet (break-glass.ts). */
    breakGlass: zod_mini__WEBPACK_IMPORTED_MODULE_1__/* .optional */ .lqM(breakGlassSchema),
});
/** A stored state checked like any outside input, or undefined when it is not one. */
function readResourceState(raw, resource) {
    const parsed = resourceStateSchema.safeParse(raw);
    if (!parsed.success || (resource !== undefined && parsed.data.resource !== resource))
        return undefined;
    return parsed.data;
}


/***/ }),

/***/ 1512:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   fS: () => (/* binding */ workFor),
/* harmony export */   js: () => (/* binding */ decideBatch),
/* harmony export */   wm: () => (/* binding */ ruleContext)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _rules_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1811);


function workFor(resource, command) {
    let last;
    return {
        resource,
        command,
        decide(state, ctx) {
            last = (0,_rules_js__WEBPACK_IMPORTED_MODULE_1__/* .decide */ .LD)(state, command, ctx);
            return last;
        },
        reply() {
            if (!last)
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .InternalError */ .Gd(`the ${command.kind} on ${resource} was never decided`);
            return last.reply;
        },
    };
}
/**
 * The one decide loop every backend runs: each command in order on the state
 * the one before it on its resource left (`load` gives the stored one first).
 * Pure: the caller loads states, gives each resource's rule context, and keeps
 * the result its own way.
 */
function decideBatch(work, load, context) {
    const states = new Map();
    const loaded = new Map();
    const durable = new Set();
    const decisions = work.map((item) => {
        const { resource } = item;
        let before = states.get(resource);
        if (!before) {
            before = load(resource);
            loaded.set(resource, before);
        }
        const decision = item.decide(before, context(resource));
        states.set(resource, decision.state);
        if (decision.events.length > 0)
            durable.add(resource);
        return decision;
    });
    const changed = new Set(durable);
    for (const [resource, state] of states)
        if (JSON.stringify(state) !== JSON.stringify(loaded.get(resource)))
            changed.add(resource);
    return { decisions, states, durable, changed };
}
/** The one rule context of every backend: the settings at `now`, fences from `nextFence`. */
function ruleContext(settings, resource, now, nextFence, failover) {
    return {
        now,
        ttlMs: settings.ttlMs,
        nextInLineWaitMs: settings.nextInLineWaitMs,
        lockDelayMs: settings.lockDelayMs,
        nextFence,
        random: settings.random,
        window: settings.window?.(resource, now),
        ...(failover ? { failover } : {}),
    };
}


/***/ }),

/***/ 5014:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  h: () => (/* binding */ KernelService)
});

// UNUSED EXPORTS: toEvent

// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
;// CONCATENATED MODULE: ./src/kernel/service/alarms.ts
/** A binary min-heap of (time, resource): the next lapse without a scan of every lease. */
class AlarmHeap {
    items = [];
    get size() {
        return this.items.length;
    }
    peek() {
        return this.items[0]?.at;
    }
    push(at, resource) {
        const items = this.items;
        items.push({ at, resource });
        let i = items.length - 1;
        while (i > 0) {
            const parent = (i - 1) >> 1;
            if (items[parent].at <= at)
                break;
            [items[parent], items[i]] = [items[i], items[parent]];
            i = parent;
        }
    }
    /** Removes and returns the earliest alarm due by `now`. */
    popDue(now) {
        const items = this.items;
        const top = items[0];
        if (!top || top.at > now)
            return undefined;
        const last = items.pop();
        if (items.length) {
            items[0] = last;
            let i = 0;
            for (;;) {
                const l = 2 * i + 1;
                const r = l + 1;
                let m = i;
                if (l < items.length && items[l].at < items[m].at)
                    m = l;
                if (r < items.length && items[r].at < items[m].at)
                    m = r;
                if (m === i)
                    break;
                [items[m], items[i]] = [items[i], items[m]];
                i = m;
            }
        }
        return top;
    }
}

;// CONCATENATED MODULE: ./src/kernel/service/pass-approvals.ts
/** How many ledger entries one read of the local ledger looks at. */
const WINDOW = 4_096;
/**
 * One OIDC approval (a run's attempt) approves one break-glass, across resources and
 * restarts: a token of a team that may approve would otherwise let any number of jobs past
 * any number of freezes. The rules see one resource at a time, so the service asks here
 * first, one approval at a time in this process: an approval already recorded on the
 * ledger (`approval` of a `break_glass` entry), or approved here since, is refused.
 *
 * The ledger is the memory: a restart forgets nothing. With PostgreSQL replicas, two
 * replicas approving with one token in the same moment could both pass the search (the
 * entry of the first is not sequenced yet); `verify` refuses such a ledger.
 */
class PassApprovals {
    reader;
    used = new Map();
    /** Local ledgers: entries below this index have been read into `used`. */
    scanned = 0;
    turn = Promise.resolve();
    constructor(reader) {
        this.reader = reader;
    }
    /** Runs `approve` unless `approval` approved a pass before; one at a time. */
    once(approval, resource, approve) {
        const next = this.turn.then(async () => {
            const where = this.used.get(approval) ?? (await this.recorded(approval));
            if (where !== undefined) {
                return {
                    ok: false,
                    reason: 'approval_used',
                    message: `${approval} already approved a break-glass (${where}): one approval approves one pass; approve this one from another run`,
                };
            }
            const reply = await approve();
            if (reply.ok)
                this.used.set(approval, `on ${resource}`);
            return reply;
        });
        this.turn = next.catch(() => undefined);
        return next;
    }
    /** Where the ledger records `approval` on a pass, if it does. */
    async recorded(approval) {
        const { ledger, searchLedger } = this.reader;
        if (searchLedger) {
            // Lines in canonical JSON: a string's quotes are escaped, so only the field itself matches.
            const needle = `"approval":${JSON.stringify(approval)}`;
            const [seq] = await searchLedger.call(this.reader, needle, 0, 1);
            return seq === undefined ? undefined : `ledger entry ${seq}`;
        }
        const size = ledger.size;
        for (let lo = this.scanned; lo < size; lo += WINDOW) {
            const hi = Math.min(size, lo + WINDOW);
            await ledger.read(lo, hi, size, () => {
                for (let i = lo; i < hi; i += 1)
                    this.note(ledger.entry(i));
            });
            this.scanned = hi;
        }
        return this.used.get(approval);
    }
    note(e) {
        if (e?.kind === 'break_glass' && e.approval !== undefined && !this.used.has(e.approval))
            this.used.set(e.approval, `ledger entry ${e.seq}`);
    }
}

// EXTERNAL MODULE: ./src/kernel/rules/event.ts
var rules_event = __webpack_require__(4445);
;// CONCATENATED MODULE: ./src/kernel/store/group-commit.ts
/**
 * Group commit, for every store: calls that arrive while every slot
 * is committing wait and go together in the next batch, so one WAL flush and
 * one pair of round trips serve many calls. Few slots: on two cores, 4 or 8
 * PostgreSQL batches in flight were slower than 2, and 2 than one at a time
 * with a spare (`spareAfterMs`): smaller batches, more work per call. A call
 * that waits longer than `waitMs` (every slot stuck
 * on a locked row) is refused at once, as a busy pool refuses a connection.
 */
class GroupCommit {
    commit;
    options;
    waiting = [];
    inFlight = 0;
    gathering = false;
    running = new Set();
    /** Batches in flight that have not yet taken spareAfterMs. */
    onTime = 0;
    constructor(
    /** Settles each item; throwing fails the whole batch. */
    commit, options) {
        this.commit = commit;
        this.options = options;
    }
    submit(item) {
        return new Promise((resolve, reject) => {
            const entry = {
                item,
                resolve,
                reject,
                timer: Number.isFinite(this.options.waitMs)
                    ? setTimeout(() => {
                        const at = this.waiting.indexOf(entry);
                        if (at < 0)
                            return;
                        this.waiting.splice(at, 1);
                        reject(this.options.busy());
                    }, this.options.waitMs)
                    : undefined,
            };
            this.waiting.push(entry);
            if (this.options.gatherTurn && this.inFlight === 0) {
                if (this.gathering)
                    return;
                this.gathering = true;
                setImmediate(() => {
                    this.gathering = false;
                    this.next();
                });
                return;
            }
            this.next();
        });
    }
    /** Resolves once no batch is in flight (a service that is closing waits for its writes). */
    async idle() {
        while (this.running.size > 0 || this.gathering) {
            await Promise.all([...this.running, new Promise((r) => setImmediate(r))]);
        }
    }
    next() {
        if (this.inFlight >= this.options.slots || this.waiting.length === 0)
            return;
        const { spareAfterMs, maxBatch } = this.options;
        if (spareAfterMs !== undefined && this.onTime > 0 && this.waiting.length < maxBatch)
            return;
        const batch = this.waiting.splice(0, maxBatch);
        for (const b of batch)
            clearTimeout(b.timer);
        this.inFlight += 1;
        let late;
        if (spareAfterMs !== undefined) {
            this.onTime += 1;
            late = setTimeout(() => {
                late = undefined;
                this.onTime -= 1;
                this.next();
            }, spareAfterMs);
            late.unref();
        }
        const run = this.run(batch).finally(() => {
            if (late) {
                clearTimeout(late);
                this.onTime -= 1;
            }
            this.inFlight -= 1;
            this.running.delete(run);
            this.next();
        });
        this.running.add(run);
    }
    async run(batch) {
        try {
            const results = await this.commit(batch.map((b) => b.item));
            batch.forEach((b, i) => {
                const result = results[i];
                if (result?.status === 'fulfilled')
                    b.resolve(result.value);
                else
                    b.reject(asError(result?.reason ?? 'no result for this call'));
            });
        }
        catch (error) {
            for (const b of batch)
                b.reject(asError(error));
        }
    }
}
const asError = (error) => (error instanceof Error ? error : new Error(String(error)));

// EXTERNAL MODULE: ./src/kernel/rules/overview.ts
var overview = __webpack_require__(9454);
// EXTERNAL MODULE: ./src/plane/deploy.ts
var plane_deploy = __webpack_require__(6115);
;// CONCATENATED MODULE: ./src/kernel/store/entry-event.ts

/** A ledger entry as the event the rules replay (a restart, a file kernel's view of its log). */
function toEvent(entry) {
    const { kind, tsMs, resource, actorDid, leaseId, fence, expiresAtMs, reason } = entry;
    const event = { kind, atMs: tsMs, resource, actorDid, leaseId, fence };
    if (expiresAtMs !== undefined)
        event.expiresAtMs = expiresAtMs;
    if (reason !== undefined)
        event.reason = reason;
    if (entry.by !== undefined)
        event.by = entry.by;
    if (entry.approvedBy !== undefined)
        event.approvedBy = entry.approvedBy;
    if (entry.approval !== undefined)
        event.approval = entry.approval;
    if (entry.promotedVia !== undefined)
        event.promotedVia = entry.promotedVia;
    if (entry.issuer !== undefined)
        event.issuer = entry.issuer;
    const deploy = entry.deploy && plane_deploy/* deploySchema */.zR.safeParse(entry.deploy);
    if (deploy?.success)
        event.deploy = deploy.data;
    return event;
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:timers/promises"
var promises_ = __webpack_require__(8500);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
;// CONCATENATED MODULE: ./src/ledger/file-lines.ts

/** Lines per indexed run: the byte offset of every 256th line is all that is kept. */
const RUN_LINES = 256;
/**
 * A ledger's lines read back from the log file they were written to: memory
 * holds one byte offset per run of RUN_LINES lines (8 bytes per 256 entries)
 * and the last run read, never the lines themselves. Line i+1 starts one byte
 * (its newline) after line i ends, which is how the file store writes them.
 */
class FileLines {
    path;
    readsBack = true;
    length = 0;
    /** Where the next line starts (just past the last line's newline). */
    end = 0;
    starts = new Float64Array(64);
    fd;
    run;
    constructor(path) {
        this.path = path;
    }
    /** Takes the index a snapshot kept: `length` lines, run starts, and the end of the last line. */
    restore(length, starts, end) {
        if (this.length !== 0)
            throw new RangeError('only an empty source restores');
        if (starts.length !== Math.ceil(length / RUN_LINES))
            throw new RangeError(`${starts.length} run starts do not index ${length} lines`);
        this.grow(starts.length);
        this.starts.set(starts);
        this.length = length;
        this.end = end;
    }
    /** The byte offsets of each run's first line (for a snapshot). */
    runStarts() {
        return Array.from(this.starts.subarray(0, Math.ceil(this.length / RUN_LINES)));
    }
    push(line) {
        if (this.length % RUN_LINES === 0) {
            const run = this.length / RUN_LINES;
            this.grow(run + 1);
            this.starts[run] = this.end;
        }
        const bytes = Buffer.from(line, 'utf8');
        this.end += bytes.length + 1;
        this.length += 1;
        return bytes;
    }
    at(i) {
        const { bytes, offsets } = this.read(Math.floor(i / RUN_LINES));
        const j = i % RUN_LINES;
        return bytes.toString('utf8', offsets[j], offsets[j + 1] - 1);
    }
    bytes(lo, hi) {
        const out = [];
        for (let i = lo; i < hi;) {
            const { bytes, offsets, count } = this.read(Math.floor(i / RUN_LINES));
            const first = i % RUN_LINES;
            const last = Math.min(count, first + (hi - i));
            for (let j = first; j < last; j += 1)
                out.push(bytes.subarray(offsets[j], offsets[j + 1] - 1));
            i += last - first;
        }
        return out;
    }
    get heldBytes() {
        return this.starts.byteLength + (this.run?.bytes.length ?? 0);
    }
    close() {
        if (this.fd !== undefined)
            (0,external_node_fs_.closeSync)(this.fd);
        this.fd = undefined;
        this.run = undefined;
    }
    grow(runs) {
        if (runs <= this.starts.length)
            return;
        const bigger = new Float64Array(Math.max(runs, this.starts.length * 2));
        bigger.set(this.starts);
        this.starts = bigger;
    }
    /** One run's bytes and where each of its lines starts (offsets[count] is one past the last newline). */
    read(index) {
        const count = Math.min(RUN_LINES, this.length - index * RUN_LINES);
        if (!(count > 0))
            throw new RangeError(`line ${index * RUN_LINES} is not in the ledger`);
        if (this.run?.index === index && this.run.count === count)
            return this.run;
        const from = this.starts[index];
        const to = (index + 1) * RUN_LINES < this.length ? this.starts[index + 1] : this.end;
        const bytes = Buffer.allocUnsafe(to - from);
        this.fd ??= (0,external_node_fs_.openSync)(this.path, 'r');
        let got = 0;
        while (got < bytes.length) {
            const n = (0,external_node_fs_.readSync)(this.fd, bytes, got, bytes.length - got, from + got);
            if (n <= 0)
                break;
            got += n;
        }
        // The last line may still lack its newline (the store writes it before the next line).
        if (got === bytes.length - 1)
            bytes[got++] = 0x0a;
        const offsets = [0];
        for (let at = 0; offsets.length <= count;) {
            const nl = bytes.indexOf(0x0a, at);
            if (nl < 0 || nl >= got) {
                throw new RangeError(`${this.path}: lines ${index * RUN_LINES}..${index * RUN_LINES + count} could not be read back at byte ${from}`);
            }
            at = nl + 1;
            offsets.push(at);
        }
        this.run = { index, count, bytes, offsets };
        return this.run;
    }
}

// EXTERNAL MODULE: ./src/kernel/rules/core.ts
var core = __webpack_require__(9098);
// EXTERNAL MODULE: ./src/kernel/rules/rules.ts + 5 modules
var rules = __webpack_require__(1811);
;// CONCATENATED MODULE: ./src/kernel/store/restart.ts
/** Follows the log's stamps entry by entry. */
function logTimeAfter(time, tsMs) {
    if (time && tsMs === time.lastMs + 1)
        return { lastMs: tsMs, earliestMs: time.earliestMs };
    return { lastMs: tsMs, earliestMs: tsMs };
}
/**
 * The restart rule, with no I/O. A lease the log leaves open whose told expiry
 * had passed by the kernel's clock before the log's last entry was written is
 * left to lapse; every other one is renewed so that it has, from `now` (the
 * moment the kernel serves again), at least what it had left when the log
 * ended (its told expiry less the earliest the clock read then, at most one
 * TTL), never earlier than its told expiry. Not a full TTL: leases held at a
 * crash would otherwise keep their resources a whole lifetime longer. The
 * renewal is stamped as of the log's end (`atMs = lastMs`), when the lease was
 * still live, so the ledger shows it renewed before it expired.
 */
function resumeLeases(states, time, now, ttlMs) {
    const resumed = [];
    const events = [];
    for (const state of states) {
        const { lease } = state;
        if (!lease || lease.expiresAtMs <= time.earliestMs)
            continue;
        const leftMs = Math.min(ttlMs, lease.expiresAtMs - time.earliestMs);
        const expiresAtMs = Math.max(lease.expiresAtMs, now + leftMs);
        if (expiresAtMs === lease.expiresAtMs)
            continue;
        resumed.push({ ...state, lease: { ...lease, expiresAtMs } });
        events.push({
            kind: 'renew',
            atMs: time.lastMs,
            resource: lease.resource,
            actorDid: lease.holder,
            leaseId: lease.id,
            fence: lease.fence,
            expiresAtMs,
            reason: 'kernel restart',
        });
    }
    return { states: resumed, events };
}

// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/kernel/rules/state.ts
var state = __webpack_require__(1648);
;// CONCATENATED MODULE: ./src/kernel/store/snapshot.ts


const whole = schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _nonnegative */.UI());
/**
 * The file carries its own checksum and its last line is checked against the
 * log; its states are still read through the one state schema (state.ts).
 */
const snapshotStateSchema = schemas/* object */.Ikc({
    version: schemas/* literal */.euz(1),
    ledger: schemas/* object */.Ikc({
        size: whole,
        lastTs: schemas/* number */.aig().check(schemas/* int */.Whr()),
        root: schemas/* string */.YjP(),
        chunkRoots: schemas/* string */.YjP(),
    }),
    runStarts: schemas/* array */.YOg(whole),
    end: whole,
    fence: schemas/* number */.aig().check(schemas/* int */.Whr()),
    time: schemas/* object */.Ikc({ lastMs: schemas/* number */.aig(), earliestMs: schemas/* number */.aig() }),
    ttlMs: schemas/* number */.aig(),
    lockDelayMs: schemas/* number */.aig(),
    states: schemas/* array */.YOg(state/* resourceStateSchema */.hk),
});
/** The state a snapshot file holds, or undefined when it is not one this kernel writes. */
function readSnapshotState(value) {
    const parsed = snapshotStateSchema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
}

// EXTERNAL MODULE: ./src/kernel/store/store-error.ts
var store_error = __webpack_require__(7561);
;// CONCATENATED MODULE: ./src/kernel/store/log-view.ts










/** Resource states serialised between two yields while a snapshot is taken. */
const STATES_PER_TURN = 1_000;
/**
 * A file kernel's start: the ledger reads its lines back from the log; a
 * snapshot the log confirms stands for the part of the log it covers, and
 * only the lines after it are replayed. A snapshot whose last entry the log
 * no longer holds where it says refuses the start (the log was cut short or
 * rewritten; a crash between an append and a snapshot leaves the snapshot
 * behind the log, never ahead of it): it is returned as `snapshotTaken`, and
 * refused once the log is read whole. Any other snapshot is ignored with a
 * note and the whole log replayed: the log is the one truth.
 */
async function openLogView(store, live, ledger) {
    const fresh = () => ({
        store,
        lines: new FileLines(store.path),
        table: new core/* ResourceTable */.BR({ ttlMs: live.ttlMs, lockDelayMs: live.lockDelayMs }),
        time: undefined,
        since: 0,
        writing: undefined,
    });
    let replayed = fresh();
    let start;
    let note;
    let snapshotTaken;
    const found = store.readSnapshot();
    if ('disagrees' in found) {
        // Refused once the log is read whole: a signed record, if any, says what changed first.
        snapshotTaken = { size: found.disagrees.size };
    }
    else if ('snapshot' in found) {
        const used = restoreSnapshot(found.snapshot, replayed, live, ledger);
        if ('start' in used) {
            start = used.start;
        }
        else {
            replayed.lines.close();
            replayed = fresh();
            ({ note, snapshotTaken } = used);
        }
    }
    else {
        note = found.ignored;
    }
    if (!start)
        ledger.readFrom(replayed.lines);
    const { table } = replayed;
    let index = start?.index ?? 0;
    const recovered = await store.openFrom((line) => {
        index += 1;
        const entry = ledger.load(line, `${store.describe} line ${index}`);
        table.put((0,rules/* replay */.eZ)(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
        table.fence = Math.max(table.fence, entry.fence);
        replayed.time = logTimeAfter(replayed.time, entry.tsMs);
        replayed.since += 1;
    }, start);
    const ignored = note && `${store.path}.snapshot.json was ignored: ${note}; the whole log was read`;
    const warning = [recovered.warning, ignored].filter(Boolean).join('; ');
    return {
        replayed,
        fenceFloor: recovered.fenceFloor,
        snapshotTaken,
        ...(warning ? { warning } : {}),
    };
}
/**
 * Restores the ledger and the view from a snapshot the log confirms, and says where the
 * log's replay starts; or why it is not used (the log's root at its size is still checked
 * once the log is read, so its size and root are returned).
 */
function restoreSnapshot(snapshot, replayed, live, ledger) {
    const state = readSnapshotState(snapshot.state);
    try {
        if (!state || state.ledger.size !== snapshot.size)
            throw new Error('it is not a snapshot of this kernel');
        if (state.ttlMs !== live.ttlMs || state.lockDelayMs !== live.lockDelayMs)
            throw new Error('it was taken with another lease lifetime or lock-delay');
        if (state.end !== snapshot.lastOffset + snapshot.lastBytes + 1)
            throw new Error('its index does not end at its last entry');
        replayed.lines.restore(state.ledger.size, state.runStarts, state.end);
        ledger.restoreFrom(replayed.lines, state.ledger);
        for (const resource of state.states)
            replayed.table.put(resource);
        replayed.table.fence = state.fence;
        replayed.time = state.time;
        return { start: { index: snapshot.size, offset: state.end, lastBytes: snapshot.lastBytes } };
    }
    catch (error) {
        const taken = state && { size: state.ledger.size, root: state.ledger.root };
        return { note: (0,errors/* causeText */.xv)(error), snapshotTaken: taken };
    }
}
/**
 * The snapshot of what is durable now, as the pieces of its JSON, or undefined when there is
 * nothing to snapshot. Taken at once (between two batches: the ledger, its index and the
 * view all stand at the same entry); the states are then serialised a slice a turn.
 */
async function snapshotPieces(replayed, ledger) {
    const size = ledger.size;
    if (size === 0 || !replayed.time)
        return undefined;
    const { lines, table } = replayed;
    const last = Buffer.from(lines.at(size - 1), 'utf8');
    replayed.since = 0;
    const snapshot = {
        size,
        lastOffset: lines.end - last.length - 1,
        lastBytes: last.length,
        lastSha256: (0,external_node_crypto_.createHash)('sha256').update(last).digest('hex'),
        state: {
            version: 1,
            ledger: ledger.snapshot(),
            runStarts: lines.runStarts(),
            end: lines.end,
            fence: table.fence,
            time: replayed.time,
            ttlMs: table.ttlMs,
            lockDelayMs: table.lockDelayMs,
            states: [],
        },
    };
    // The states are taken now (each is replaced, never changed, as entries are replayed) and
    // serialised a slice a turn: many resources make megabytes of JSON. The pieces are the
    // snapshot's JSON exactly: `states` is the last member of `state`, `state` of the snapshot.
    const states = [...table.values()];
    const whole = JSON.stringify(snapshot);
    const tail = '[]}}';
    if (!whole.endsWith(`"states":${tail}`))
        throw new errors/* InternalError */.Gd('the snapshot is not laid out as it is read');
    const body = [whole.slice(0, -tail.length), '['];
    for (let i = 0; i < states.length; i += STATES_PER_TURN) {
        if (i > 0) {
            await (0,promises_.setImmediate)();
            body.push(',');
        }
        body.push(states
            .slice(i, i + STATES_PER_TURN)
            .map((state) => JSON.stringify(state))
            .join(','));
    }
    body.push(']}}');
    return body;
}
/** The log is not the one its snapshot was taken of: the start is refused, saying how to recover. */
function snapshotDisagrees(logPath, size) {
    return new store_error/* StartRefusedError */.Zy(`Refusing to start: ${logPath}.snapshot.json was taken of ${size} ${size === 1 ? 'entry' : 'entries'} of ${logPath}, and the log no longer holds them: it was cut short or rewritten since. Put back the log it was taken of (from a backup); to keep this log on purpose (an older backup restored), move ${logPath}.snapshot.json aside (checkpoints signed over the entries lost no longer verify).`);
}

// EXTERNAL MODULE: ./src/fs/durable.ts
var durable = __webpack_require__(9224);
;// CONCATENATED MODULE: ./src/kernel/store/signed-record.ts





/**
 * The last checkpoint a file kernel signed over its log, kept beside it
 * (`LOG.signed.json`): its size and root. A checkpoint is a promise that the
 * log's first `size` entries are these and never others; a log rewritten
 * between two runs would otherwise be signed again under a new root, and only
 * someone holding the old checkpoint would ever know. Written (synced, renamed
 * into place) before a checkpoint of a larger size is handed out; checked at
 * start, before the kernel serves or signs anything.
 */
const signedRecordPath = (logPath) => `${logPath}.signed.json`;
const recordSchema = schemas/* object */.Ikc({
    size: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC()),
    root: schemas/* string */.YjP().check(api/* _regex */.Fk(/^[A-Za-z0-9+/]{43}=$/)),
});
/** The record beside `logPath`, or undefined when there is none (no checkpoint signed yet). */
function readSignedRecord(logPath) {
    const path = signedRecordPath(logPath);
    let text;
    try {
        text = (0,external_node_fs_.readFileSync)(path, 'utf8');
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return undefined;
        throw new store_error/* StartRefusedError */.Zy(`Cannot read ${path}, the last checkpoint signed over ${logPath}: ${(0,errors/* causeText */.xv)(error)}`);
    }
    let parsed;
    try {
        parsed = recordSchema.safeParse(JSON.parse(text));
    }
    catch {
        parsed = undefined;
    }
    if (!parsed?.success) {
        throw new store_error/* StartRefusedError */.Zy(`${path} is damaged: it should hold the last checkpoint signed over ${logPath} as {"size":N,"root":"\u2026"}. ${RECOVERY}`);
    }
    return parsed.data;
}
const RECOVERY = 'Put back the log that was signed (from a backup), or, to start a new history on purpose, move the log and its .signed.json and .snapshot.json aside (checkpoints handed out before then no longer verify against the new log).';
/**
 * Refuses (StartRefusedError) a log whose tree at the recorded size does not
 * have the recorded root, or that is shorter: it is not the history signed.
 */
function checkSignedHistory(ledger, record, logPath) {
    if (ledger.size < record.size) {
        throw new store_error/* StartRefusedError */.Zy(`Refusing to start: ${logPath} holds ${entries(ledger.size)}, but a checkpoint of ${entries(record.size)} was signed over it (${signedRecordPath(logPath)}): entries were removed. ${RECOVERY}`);
    }
    const root = ledger.rootAt(record.size);
    if (root !== record.root) {
        throw new store_error/* StartRefusedError */.Zy(`Refusing to start: the first ${entries(record.size)} of ${logPath} are not what was signed (their root is ${root}, the checkpoint signed over them had ${record.root}, ${signedRecordPath(logPath)}): the log was rewritten. ${RECOVERY}`);
    }
}
const entries = (n) => `${n} ${n === 1 ? 'entry' : 'entries'}`;
/** Makes `record` the one kept beside `logPath`: a new file, synced, renamed over the old one. */
async function writeSignedRecord(logPath, record) {
    const path = signedRecordPath(logPath);
    try {
        const text = `${JSON.stringify({ size: record.size, root: record.root })}\n`;
        await (0,durable/* writeFileDurable */.Ld)(path, text, { temp: `${path}.tmp` });
    }
    catch (error) {
        // No checkpoint goes out that a restart could not hold the log to.
        throw new store_error/* StoreUnavailableError */.o2(`cannot record the signed checkpoint in ${path}: ${(0,errors/* causeText */.xv)(error)}`);
    }
}

// EXTERNAL MODULE: ./src/kernel/store/store.ts + 4 modules
var store = __webpack_require__(7967);
// EXTERNAL MODULE: ./src/kernel/rules/work.ts
var rules_work = __webpack_require__(1512);
;// CONCATENATED MODULE: ./src/kernel/store/local-backend.ts











/** Entries between two snapshots of a file kernel: a restart replays at most about this many. */
const SNAPSHOT_EVERY = 16_384;
/**
 * The backend of one process: the states in memory (the table), the record in
 * a store's append-only log (memory: none; a file: fdatasync'ed per batch). A
 * batch is decided on the table, its entries numbered by the ledger, written
 * with one append, and only then kept. The clock never reads earlier than the
 * log's end. Not shared: this process is the only one that changes it.
 */
class LocalBackend {
    options;
    ledger;
    shared = false;
    batching = {
        maxBatch: Infinity,
        // One write at a time, each gathering every call of its event-loop turn.
        slots: 1,
        waitMs: Infinity,
        gatherTurn: true,
        busy: () => new store_error/* StoreUnavailableError */.o2("the kernel's store is busy"),
    };
    name;
    ttlMs;
    /** The lines are in this process: the service reads them itself. */
    searchLedger = undefined;
    table;
    store;
    /** The last durable entry's time at start: the clock reads no earlier. */
    clockFloor = -Infinity;
    /** Restart renewals a full disk did not take yet: written first, before any other change. */
    owed = [];
    closed = false;
    replayed;
    /** A snapshot read at start but not used: its size and root, checked against the log read whole. */
    snapshotTaken;
    sequenced;
    heard;
    constructor(options) {
        this.options = options;
        this.table = options.table;
        this.store = options.store;
        this.ledger = options.ledger;
        this.name = options.store.describe;
        this.ttlMs = options.table.ttlMs;
    }
    now() {
        return Math.max(this.options.now(), this.clockFloor);
    }
    /**
     * Replays the store's log into the ledger and the table, applies the restart
     * rule (`resumeLeases`) and writes its renewals.
     */
    async open() {
        const { table, ledger } = this;
        let time;
        let recovered;
        if ((0,store/* isLogFileStore */.oZ)(this.store)) {
            const opened = await openLogView(this.store, table, ledger);
            const { replayed } = opened;
            this.replayed = replayed;
            this.snapshotTaken = opened.snapshotTaken;
            recovered = opened;
            try {
                await this.holdToSigned(this.store);
            }
            catch (error) {
                // Refused before anything was served: nothing of this start stays open.
                await this.store.close();
                replayed.lines.close();
                throw error;
            }
            time = replayed.time;
            // Copies: the rules may change a state's arrays in place, and the view must not follow.
            for (const state of replayed.table.values())
                table.put(structuredClone(state));
            table.fence = Math.max(table.fence, replayed.table.fence);
        }
        else {
            const log = await this.store.open();
            recovered = log;
            log.lines.forEach((line, i) => {
                const entry = ledger.load(line, `${this.store.describe} line ${i + 1}`);
                table.put((0,rules/* replay */.eZ)(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
                // Every fence in what is durable, not only grants', stays below the next one.
                table.fence = Math.max(table.fence, entry.fence);
                time = logTimeAfter(time, entry.tsMs);
            });
        }
        table.fence = Math.max(table.fence, recovered.fenceFloor);
        // The kernel's clock never reads earlier than the log's end, whatever the wall clock did.
        if (time)
            this.clockFloor = time.lastMs;
        const now = this.now();
        for (const state of [...table.values()])
            table.put((0,rules/* afterRestart */.M$)(state, now, table.ttlMs, table.lockDelayMs));
        const owed = time ? await this.resume(time, now) : undefined;
        const warning = [recovered.warning, owed].filter(Boolean).join('; ');
        return warning ? { warning } : {};
    }
    /**
     * A file kernel signs only the history it signed before: its log, replayed,
     * must have at the last signed checkpoint's size that checkpoint's root
     * (else StartRefusedError, before anything is served or written), and every
     * larger checkpoint is recorded beside the log before it goes out. Checked
     * with or without a signing key this run: a later run may have one. A log
     * with entries and no record gets one at start, of the log as it is (a first
     * start since the record came in, or one deleted), after its snapshot is checked.
     */
    async holdToSigned(store) {
        let last = readSignedRecord(store.path);
        if (last)
            checkSignedHistory(this.ledger, last, store.path);
        this.holdToSnapshot(store);
        if (!last && this.ledger.size > 0) {
            // A log with no record (a first start since the record came in, or one removed): the
            // log as it is becomes the history held to, before anything is served.
            const record = { size: this.ledger.size, root: this.ledger.rootAt() };
            try {
                await writeSignedRecord(store.path, record);
                last = record;
                this.options.log?.(`notice: ${signedRecordPath(store.path)} was missing: it now holds the log's ${record.size} entries as the history a restart is held to`);
            }
            catch (error) {
                // A full disk must not stop a kernel from starting over its whole log: the record
                // is written with the next checkpoint signed, which goes out only once it is.
                this.options.log?.(`warning: ${signedRecordPath(store.path)} is missing and could not be written now (${(0,errors/* causeText */.xv)(error)}); it is written before the next checkpoint goes out`);
            }
        }
        if (this.ledger.signs)
            this.ledger.keepSignedIn({ keep: (signed) => writeSignedRecord(store.path, signed) }, last);
    }
    /**
     * A snapshot the start did not use must still agree with the log read whole:
     * its last entry where it says (else it was cut short or rewritten since),
     * and the log's root at its size (else it was rewritten: a snapshot taken
     * with another lease lifetime, say). Else StartRefusedError.
     */
    holdToSnapshot(store) {
        const taken = this.snapshotTaken;
        this.snapshotTaken = undefined;
        if (!taken)
            return;
        if (!taken.root ||
            this.ledger.size < taken.size ||
            this.ledger.rootAt(taken.size) !== taken.root)
            throw snapshotDisagrees(store.path, taken.size);
    }
    /** Writes the snapshot of what is durable now (log-view.ts), when there is something to write. */
    async snapshot() {
        const replayed = this.replayed;
        const body = replayed && (await snapshotPieces(replayed, this.ledger));
        if (body)
            await replayed.store.writeSnapshot(body);
    }
    /** See Backend.onSequenced: told as each write is durable, in the ledger's order. */
    onSequenced(listener) {
        this.sequenced = listener;
    }
    /**
     * Tells what became durable, follows it in the file kernel's view of its log,
     * and now and then (off the answer path) snapshots it.
     */
    recorded(entries) {
        this.sequenced?.(entries);
        const replayed = this.replayed;
        if (!replayed)
            return;
        const { table } = replayed;
        for (const entry of entries) {
            table.put((0,rules/* replay */.eZ)(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
            table.fence = Math.max(table.fence, entry.fence);
            replayed.time = logTimeAfter(replayed.time, entry.tsMs);
        }
        replayed.since += entries.length;
        if (replayed.since >= SNAPSHOT_EVERY && !replayed.writing) {
            replayed.writing = new Promise((done) => setImmediate(done))
                .then(() => this.snapshot())
                // The snapshot only saves time: one that cannot be written costs a longer restart.
                .catch(() => undefined)
                .finally(() => (replayed.writing = undefined));
        }
    }
    /**
     * Renews the leases the log leaves open (the restart rule). Written before
     * serving when the store takes it; on a full disk the renewals are owed and
     * go first in the next write, so they are still stamped as of the log's end.
     */
    async resume(time, now) {
        const { states, events } = resumeLeases(this.table.values(), time, now, this.table.ttlMs);
        for (const state of states)
            this.table.put(state);
        if (events.length === 0)
            return undefined;
        const prepared = this.ledger.prepare(events);
        try {
            await this.store.append(prepared.text, prepared.entries);
            this.ledger.accept(prepared.entries, prepared.lines);
            this.recorded(prepared.entries);
        }
        catch (error) {
            this.owed = events;
            return `could not yet record the renewals of the ${events.length} leases held across the restart (${(0,errors/* causeText */.xv)(error)}); they go first in the next write`;
        }
        return undefined;
    }
    /**
     * A failed write keeps memory as it was for every resource the batch changed
     * durably; the others (a refusal, a status, a queue that moved) are answered.
     */
    async commit(work) {
        const now = this.now();
        const { decisions, states, durable } = (0,rules_work/* decideBatch */.js)(work, (resource) => this.table.get(resource), (resource) => this.table.context(resource, now));
        let failure;
        if (durable.size > 0 && this.closed) {
            failure = new store_error/* StoreUnavailableError */.o2('the kernel is stopping');
        }
        else if (durable.size > 0) {
            const events = decisions.flatMap((d) => d.events);
            const owed = this.owed;
            const prepared = this.ledger.prepare(owed.length ? [...owed, ...events] : events);
            try {
                await this.store.append(prepared.text, prepared.entries);
                if (owed.length)
                    this.owed = [];
                this.ledger.accept(prepared.entries, prepared.lines);
                this.recorded(prepared.entries);
            }
            catch (error) {
                const message = error instanceof store_error/* StoreError */.AD ? error.message : String(error);
                failure = new store_error/* StoreUnavailableError */.o2(`the kernel's store cannot write: ${message}`);
            }
        }
        for (const [resource, state] of states) {
            if (!failure || !durable.has(resource))
                this.table.put(state);
        }
        return decisions.map((value) => failure && durable.has(value.state.resource)
            ? { status: 'rejected', reason: failure }
            : { status: 'fulfilled', value });
    }
    due(limit) {
        const now = this.now();
        return Promise.resolve([...this.deadlines()]
            .filter((d) => d.at <= now)
            .sort((a, b) => a.at - b.at)
            .slice(0, limit)
            .map((d) => d.resource));
    }
    *deadlines() {
        for (const state of this.table.values()) {
            const at = (0,rules/* nextDeadline */.Gg)(state);
            if (at !== undefined)
                yield { resource: state.resource, at };
        }
    }
    overview() {
        return Promise.resolve((0,overview/* overviewOf */.bq)(this.table.values(), this.now()));
    }
    /** Only `announceFreed`'s notices: the service tells the commits of one process itself. */
    watch(listener) {
        this.heard = listener;
    }
    /** One process: every change is made here, so there is no one else to hear. */
    async listen() { }
    /** One process: its own held requests are the only ones to wake. */
    announceFreed(resource) {
        this.heard?.({ resource, events: [], freed: true });
        return Promise.resolve();
    }
    /** One process: the ledger is written here, so it is never behind. */
    async syncLedger() { }
    /** Throws a StoreError when the store cannot take a write now. */
    ready() {
        return this.store.probe();
    }
    async close() {
        this.closed = true;
        const replayed = this.replayed;
        if (replayed) {
            // A clean stop leaves a snapshot of everything, so the next start replays nothing.
            await replayed.writing;
            if (replayed.since > 0)
                await this.snapshot().catch(() => undefined);
        }
        await this.store.close();
        replayed?.lines.close();
    }
}

;// CONCATENATED MODULE: ./src/kernel/service/service.ts









const ALARM_RETRY_MS = 1_000;
const SWEEP_BATCH = 100;
/**
 * The kernel, once, over any backend (backend.ts): every call is decided by
 * the rules inside the backend's commit and resolves only once its change is
 * durable. Calls are grouped (GroupCommit, bounded as the backend asks); lapses
 * are found by alarms at each decided deadline (a backend of one process) or by
 * sweeping what the backend says is due (a shared one, whose other replicas may
 * be gone); held requests are woken here, for changes made here or heard from
 * other replicas.
 */
class KernelService {
    backend;
    hooks;
    ledger;
    /** Set when the backend searches its ledger where it keeps it. */
    searchLedger;
    batches;
    approvals = new PassApprovals(this);
    listeners = new Set();
    changedListeners = new Set();
    recordedListeners = new Set();
    observers = [];
    alarms = new AlarmHeap();
    scheduled = new Map();
    log;
    timer;
    timerAt = Infinity;
    sweepTimer;
    sweepFailing = false;
    closed = false;
    get ttlMs() {
        return this.backend.ttlMs;
    }
    constructor(backend, hooks) {
        this.backend = backend;
        this.hooks = hooks;
        this.ledger = backend.ledger;
        this.log = hooks.log ?? ((line) => console.error(line));
        const { searchLedger } = backend;
        if (searchLedger)
            this.searchLedger = (needle, from, limit) => searchLedger.call(backend, needle, from, limit);
        this.batches = new GroupCommit((work) => this.commit(work), backend.batching);
    }
    /** The in-process kernel over a memory or file store: replays it, then serves. */
    static open(options) {
        return KernelService.over(new LocalBackend(options), options);
    }
    /** Opens the backend and starts finding lapses. */
    static async over(backend, hooks = {}) {
        const service = new KernelService(backend, hooks);
        backend.watch((notice) => service.heard(notice));
        backend.onSequenced((entries) => service.recorded(entries));
        const { warning } = await backend.open();
        if (backend.shared) {
            service.scheduleSweep();
        }
        else {
            for (const { resource, at } of backend.deadlines())
                service.schedule(resource, at);
            service.arm();
        }
        return { service, ...(warning ? { warning } : {}) };
    }
    lease(resource, actorDid, extensions) {
        return this.run(resource, { kind: 'lease', actorDid, ...extensions });
    }
    async release(resource, actorDid, outdated) {
        const command = { kind: 'release', actorDid, ...(outdated ? { outdated } : {}) };
        const reply = await this.run(resource, command);
        // A revoked holder giving back changes nothing durable, but ends its lock-delay: wake the waiters.
        if (!reply.released)
            await this.backend.announceFreed(resource);
        return reply;
    }
    revoke(resource, reason, by) {
        return this.run(resource, { kind: 'revoke', reason, ...(by ? { by } : {}) });
    }
    freeze(...[resource, reason, untilMs, by, only]) {
        return this.run(resource, { kind: 'freeze', reason, untilMs, by, ...only });
    }
    unfreeze(resource, by, only) {
        return this.run(resource, { kind: 'unfreeze', by, ...only });
    }
    /** See PlaneService.breakGlass. */
    breakGlass(resource, pass) {
        return this.run(resource, { kind: 'break_glass', ...pass });
    }
    /** See PlaneService.approveBreakGlass. */
    approveBreakGlass(resource, actorDid, by, approval) {
        const approve = () => this.run(resource, { kind: 'approve_break_glass', actorDid, by, approval });
        return approval === undefined ? approve() : this.approvals.once(approval, resource, approve);
    }
    /** See PlaneService.withdrawBreakGlass. */
    withdrawBreakGlass(resource, by, actorDid) {
        return this.run(resource, { kind: 'withdraw_break_glass', by, actorDid });
    }
    async status(resource) {
        return (await this.statusOf(resource)).lease;
    }
    /** The lease and the freeze in force (an operator's or a recurring window), if any. */
    statusOf(resource) {
        return this.run(resource, { kind: 'status' });
    }
    /** Every resource with a live lease, a reservation, waiters or a freeze. */
    overview() {
        return this.backend.overview();
    }
    /** Brings `ledger` up to date with what other replicas committed (one process: it is). */
    syncLedger() {
        return this.backend.syncLedger();
    }
    /** See PlaneService.onChange. */
    onChange(listener) {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }
    /** See PlaneService.observe. */
    observe(observer) {
        this.observers = [...this.observers, observer];
        return () => {
            this.observers = this.observers.filter((o) => o !== observer);
        };
    }
    /** See PlaneService.listen. */
    async listen(resource) {
        await this.backend.listen(resource);
    }
    /** See PlaneService.onRecorded. */
    onRecorded(listener) {
        this.recordedListeners.add(listener);
        return () => this.recordedListeners.delete(listener);
    }
    /**
     * Wakes the held requests of `resource` on every replica: a queue change no
     * durable event announces (superseding, deploy-order.ts). One process wakes its own.
     */
    wakeEverywhere(resource) {
        return this.backend.announceFreed(resource);
    }
    /** Takes a waiter out of the queue at once (nothing durable changes). */
    async leave(resource, actorDid) {
        await this.run(resource, { kind: 'leave', actorDid });
        this.resourceChanged(resource);
    }
    /**
     * Told when a resource may have become free: a release, lapse or revoke made
     * durable here or on another replica (where this one listens), or a waiter that left.
     * Held requests wake on it.
     */
    onResourceChanged(listener) {
        this.changedListeners.add(listener);
        return () => this.changedListeners.delete(listener);
    }
    /** The backend's clock (a shared backend's decisions read the database's; this paces held requests). */
    now() {
        return this.backend.now();
    }
    /** Throws a StoreError when the backend cannot take a write now. */
    ready() {
        return this.backend.ready();
    }
    async close() {
        if (this.closed)
            return;
        this.closed = true;
        if (this.timer)
            clearTimeout(this.timer);
        if (this.sweepTimer)
            clearTimeout(this.sweepTimer);
        await this.batches.idle();
        await this.backend.close();
    }
    resourceChanged(resource) {
        for (const listener of this.changedListeners)
            listener(resource);
    }
    async run(resource, command) {
        // Once closed, the backend refuses what must be written; a refusal or a read is still answered.
        const work = (0,rules_work/* workFor */.fS)(resource, command);
        await this.batches.submit(work);
        return work.reply();
    }
    /** One batch through the backend; what it made durable is told and armed, in order. */
    async commit(work) {
        const results = this.observers.length
            ? await this.observed(work)
            : await this.backend.commit(work);
        const decided = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const events = decided.flatMap((d) => d.events);
        if (events.length)
            this.hooks.onEvents?.(events);
        for (const { state, events } of decided) {
            if (!this.backend.shared)
                this.schedule(state.resource, (0,rules/* nextDeadline */.Gg)(state));
            // A shared backend delivers this replica's changes, and others' it listens for, through `watch`.
            if (!this.backend.shared)
                this.tell({ resource: state.resource, events });
        }
        if (!this.backend.shared)
            this.arm();
        return results;
    }
    /** The backend's commit, timed and told to the observers (only when there are any). */
    async observed(work) {
        const started = performance.now();
        const { name: backend, shared } = this.backend;
        const tell = (decisions, failed) => {
            const batch = {
                backend,
                shared,
                size: work.length,
                seconds: (performance.now() - started) / 1000,
                commands: work.map((w) => w.command),
                decisions,
                failed,
            };
            // An observer only counts: its failure is logged, never the batch's, which may be durable.
            for (const observer of this.observers) {
                try {
                    observer.committed(batch);
                }
                catch (error) {
                    this.log(`a metrics observer failed: ${(0,errors/* causeText */.xv)(error)}`);
                }
            }
        };
        let results;
        try {
            results = await this.backend.commit(work);
        }
        catch (error) {
            tell([], true);
            throw error;
        }
        // Told outside the try: what is durable stays answered as such.
        tell(results.map((r) => (r.status === 'fulfilled' ? r.value : undefined)), false);
        return results;
    }
    /** The backend's numbered entries, once durable (onSequenced): what notifications follow. */
    recorded(entries) {
        for (const listener of this.recordedListeners)
            listener(entries);
    }
    heard(notice) {
        this.tell(notice);
    }
    tell({ resource, events, freed }) {
        for (const event of events) {
            for (const listener of this.listeners)
                listener(resource, event);
        }
        if (freed || (0,rules_event/* frees */.w)(events))
            this.resourceChanged(resource);
    }
    /** Keeps one alarm per resource at its earliest deadline (a renewal needs none). */
    schedule(resource, at) {
        if (at === undefined)
            return;
        const current = this.scheduled.get(resource);
        if (current !== undefined && current <= at)
            return;
        this.scheduled.set(resource, at);
        this.alarms.push(at, resource);
    }
    arm() {
        const next = this.alarms.peek();
        if (next === undefined || next >= this.timerAt || this.closed)
            return;
        if (this.timer)
            clearTimeout(this.timer);
        this.timerAt = next;
        this.timer = setTimeout(() => this.ring(), Math.max(0, next - this.now()) + 1);
        this.timer.unref();
    }
    ring() {
        this.timer = undefined;
        this.timerAt = Infinity;
        const now = this.now();
        for (let due = this.alarms.popDue(now); due; due = this.alarms.popDue(now)) {
            const { at, resource } = due;
            if (this.scheduled.get(resource) !== at)
                continue;
            this.scheduled.delete(resource);
            this.run(resource, { kind: 'expire' }).catch((error) => {
                this.log(`kernel: could not record a lapse on ${resource}: ${(0,errors/* causeText */.xv)(error)}`);
                this.scheduled.set(resource, now + ALARM_RETRY_MS);
                this.alarms.push(now + ALARM_RETRY_MS, resource);
                this.arm();
            });
        }
        this.arm();
    }
    /** A shared backend: a lapse is recorded within about a quarter of a lease (a second at most). */
    scheduleSweep() {
        if (this.closed)
            return;
        const every = Math.min(1_000, Math.max(25, this.backend.ttlMs / 4));
        this.sweepTimer = setTimeout(() => void this.sweep(), every * (0.75 + 0.5 * Math.random()));
        this.sweepTimer.unref();
    }
    async sweep() {
        try {
            for (const resource of await this.backend.due(SWEEP_BATCH)) {
                if (this.closed)
                    return;
                await this.run(resource, { kind: 'expire' });
            }
            if (this.sweepFailing)
                this.log(`kernel: ${this.backend.name} answers again`);
            this.sweepFailing = false;
        }
        catch (error) {
            if (!this.sweepFailing)
                this.log(`kernel: ${(0,errors/* errorMessage */.gJ)(error)}`);
            this.sweepFailing = true;
        }
        finally {
            this.scheduleSweep();
        }
    }
}


/***/ }),

/***/ 230:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   e: () => (/* binding */ storeRoundTrips),
/* harmony export */   s: () => (/* binding */ countRoundTrips)
/* harmony export */ });
/**
 * Round trips to a shared store (PostgreSQL), counted for the metrics (lease_gate_postgres_
 * round_trips_total): one per query sent, whatever it carries. A process-wide count, as the
 * pools it counts are; the metrics read it at each scrape.
 */
const storeRoundTrips = { count: 0 };
/** Counts each query `client` sends from now on (a pool's `connect` hands each new one here). */
function countRoundTrips(client) {
    const query = client.query;
    client.query = function (...args) {
        storeRoundTrips.count += 1;
        return query.apply(this, args);
    };
    return client;
}


/***/ }),

/***/ 7561:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   AD: () => (/* binding */ StoreError),
/* harmony export */   Zy: () => (/* binding */ StartRefusedError),
/* harmony export */   o2: () => (/* binding */ StoreUnavailableError)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);

/** A store that cannot read or persist: the kernel answers 503 and leaves memory unchanged. */
class StoreError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'StoreError';
    /** `code`: only for its subclasses (store_schema_too_new). */
    constructor(message, options = {}) {
        super(message, { ...options, code: options.code ?? 'store' });
    }
}
/** A change could not be made durable; nothing changed. Answered 503 store_unavailable. */
class StoreUnavailableError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'StoreUnavailableError';
    /** `code`: only for its subclasses (store_outcome_unknown). */
    constructor(message, options = {}) {
        super(message, { ...options, code: options.code ?? 'store_unavailable' });
    }
}
/**
 * The kernel must not serve on this state: another kernel holds it, or its log
 * is not the history it signed. One line for the operator (the CLI exits 2).
 */
class StartRefusedError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'StartRefusedError';
    /** `code`: only for its subclasses (state_locked). */
    constructor(message, options = {}) {
        super(message, { ...options, code: options.code ?? 'start_refused' });
    }
}


/***/ }),

/***/ 7967:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  oX: () => (/* reexport */ fileStore),
  oZ: () => (/* reexport */ isLogFileStore),
  bi: () => (/* binding */ memoryFenceFloor),
  LK: () => (/* binding */ memoryStore)
});

// EXTERNAL MODULE: ./src/ledger/entry.ts
var entry = __webpack_require__(5641);
// EXTERNAL MODULE: ./src/fs/write-all.ts
var write_all = __webpack_require__(3830);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: ./src/fs/durable.ts
var durable = __webpack_require__(9224);
;// CONCATENATED MODULE: ./src/kernel/store/log-file.ts





const nodeLogFs = {
    openRead(path) {
        let fd;
        try {
            fd = (0,external_node_fs_.openSync)(path, 'r');
        }
        catch (error) {
            if (error.code === 'ENOENT')
                return undefined;
            throw error;
        }
        return {
            size: (0,external_node_fs_.fstatSync)(fd).size,
            read: (into, position) => (0,external_node_fs_.readSync)(fd, into, 0, into.length, position),
            close: () => (0,external_node_fs_.closeSync)(fd),
        };
    },
    async openLog(path) {
        const handle = await (0,promises_.open)(path, promises_.constants.O_RDWR | promises_.constants.O_CREAT, 0o600);
        return nodeLogFile(handle);
    },
    async saveCopy(path, bytes) {
        const handle = await (0,promises_.open)(path, 'wx', 0o600);
        try {
            await (0,write_all/* writeAll */.f4)((0,write_all/* handleWriter */.yI)(handle), bytes, 0);
            await handle.datasync();
        }
        finally {
            await handle.close();
        }
        // The log is cut only after this: the copy's name must outlive a crash too.
        await (0,durable/* syncDirectory */.zR)((0,external_node_path_.dirname)(path));
    },
};
function nodeLogFile(handle) {
    return {
        write: (0,write_all/* handleWriter */.yI)(handle),
        datasync: () => handle.datasync(),
        truncate: (length) => handle.truncate(length),
        size: async () => (await handle.stat()).size,
        close: () => handle.close(),
    };
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:timers/promises"
var external_node_timers_promises_ = __webpack_require__(8500);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
// EXTERNAL MODULE: ./src/kernel/store/store-error.ts
var store_error = __webpack_require__(7561);
;// CONCATENATED MODULE: ./src/kernel/store/snapshot-file.ts







/**
 * The snapshot beside a file kernel's log (`LOG.snapshot.json`): a header line with the
 * SHA-256 of the body, then the body, a SnapshotFile whose `state` is the backend's.
 */
/** Pieces of a snapshot hashed or written between two yields to the event loop. */
const SNAPSHOT_PIECES_PER_TURN = 64;
const snapshotLogSchema = schemas/* object */.Ikc({
    size: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC()),
    lastOffset: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _nonnegative */.UI()),
    lastBytes: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC()),
    lastSha256: schemas/* string */.YjP().check(api/* _regex */.Fk(/^[0-9a-f]{64}$/)),
    state: schemas/* unknown */.L5J(),
});
const sha256Hex = (data) => (0,external_node_crypto_.createHash)('sha256').update(data).digest('hex');
/** See LogFileStore.readSnapshot: the snapshot at `snapshotPath`, checked against the log at `logPath`. */
function readSnapshotFile(logPath, snapshotPath) {
    let text;
    try {
        text = readSmall(snapshotPath);
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return {};
        return { ignored: `cannot read it (${(0,errors/* causeText */.xv)(error)})` };
    }
    const newline = text.indexOf('\n');
    const body = text.slice(newline + 1).trimEnd();
    const header = /^\{"sha256":"([0-9a-f]{64})"\}$/.exec(text.slice(0, newline));
    if (newline < 0 || !header || sha256Hex(body) !== header[1])
        return { ignored: 'it is damaged' };
    let parsed;
    try {
        parsed = snapshotLogSchema.safeParse(JSON.parse(body));
    }
    catch {
        return { ignored: 'it is damaged' };
    }
    if (!parsed.success)
        return { ignored: 'it is not a snapshot of this kernel' };
    const snapshot = parsed.data;
    // The log only grows past what a snapshot covers: one that lost or changed that entry is another history.
    return endsAtItsLastLine(logPath, snapshot) ? { snapshot } : { disagrees: snapshot };
}
/** The log holds, at the offset the snapshot names, the very line it names as its last. */
function endsAtItsLastLine(logPath, snapshot) {
    const last = readAt(logPath, snapshot.lastOffset, snapshot.lastBytes + 1);
    const line = last?.subarray(0, snapshot.lastBytes);
    const before = snapshot.lastOffset === 0 ? 0x0a : readAt(logPath, snapshot.lastOffset - 1, 1)?.[0];
    if (!last || !line || line.length !== snapshot.lastBytes)
        return false;
    // Its newline after it (or the log's end), a newline before it, and the same bytes.
    if (last.length > snapshot.lastBytes && last[snapshot.lastBytes] !== 0x0a)
        return false;
    return before === 0x0a && sha256Hex(line) === snapshot.lastSha256;
}
/** See LogFileStore.writeSnapshot: replaced whole and durably (writeFileDurable), or a StoreError. */
async function writeSnapshotFile(snapshotPath, body) {
    // Hashed and written a piece at a time, yielding between pieces: a snapshot of many
    // resources is megabytes, and the answers go on meanwhile.
    const hash = (0,external_node_crypto_.createHash)('sha256');
    for (let i = 0; i < body.length; i += 1) {
        if (i > 0 && i % SNAPSHOT_PIECES_PER_TURN === 0)
            await (0,external_node_timers_promises_.setImmediate)();
        hash.update(body[i], 'utf8');
    }
    const header = `{"sha256":"${hash.digest('hex')}"}\n`;
    try {
        // A half-written copy (a full disk) is removed: it must not hold the space the log's appends need.
        await (0,durable/* writeFileDurable */.Ld)(snapshotPath, async (write) => {
            await write(header);
            for (let i = 0; i < body.length; i += SNAPSHOT_PIECES_PER_TURN) {
                await write(body.slice(i, i + SNAPSHOT_PIECES_PER_TURN).join(''));
            }
            await write('\n');
        }, { temp: `${snapshotPath}.tmp` });
    }
    catch (error) {
        throw new store_error/* StoreError */.AD(`cannot write the snapshot ${snapshotPath}: ${(0,errors/* causeText */.xv)(error)}`, {
            cause: error,
        });
    }
}
/** A whole small file (the snapshot), as UTF-8. */
function readSmall(file) {
    const fd = (0,external_node_fs_.openSync)(file, 'r');
    try {
        const chunks = [];
        for (let position = 0;;) {
            const chunk = Buffer.allocUnsafe(1024 * 1024);
            const n = (0,external_node_fs_.readSync)(fd, chunk, 0, chunk.length, position);
            if (n <= 0)
                break;
            chunks.push(chunk.subarray(0, n));
            position += n;
        }
        return Buffer.concat(chunks).toString('utf8');
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
}
/** Up to `length` bytes of `file` at `position` (fewer at its end), or undefined when it is missing. */
function readAt(file, position, length) {
    let fd;
    try {
        fd = (0,external_node_fs_.openSync)(file, 'r');
    }
    catch {
        return undefined;
    }
    try {
        const bytes = Buffer.alloc(length);
        let got = 0;
        while (got < length) {
            const n = (0,external_node_fs_.readSync)(fd, bytes, got, length - got, position + got);
            if (n <= 0)
                break;
            got += n;
        }
        return bytes.subarray(0, got);
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
}

;// CONCATENATED MODULE: ./src/kernel/store/file-store.ts






/** Bytes read at a time at start. */
const READ_BYTES = 4 * 1024 * 1024;
/**
 * A file of canonical JSON lines, written at the end of what is durable and
 * fdatasync'ed per batch. Only bytes a write reports as written count, and a
 * batch counts only once all of them are written and synced; a short or failed
 * write is cut back to the last durable byte (never past the file's end) before
 * the error is reported, and retried on the next batch, so the file never holds
 * half a batch that memory does not. Beside it, `PATH.snapshot.json` may hold
 * a snapshot that saves a restart the replay of what it covers (local-backend.ts).
 */
function fileStore(path, given, 
/** Where the options went while the second place named a state file (before 1.0.0): still read. */
formerPlace) {
    return new FileStore(path, given ?? formerPlace ?? {});
}
class FileStore {
    path;
    describe;
    fs;
    now;
    snapshotPath;
    file;
    /** Bytes of whole records on disk and synced: the only length the file is ever cut to. */
    durableBytes = 0;
    /** The last record kept at start was whole but had no newline: the next write starts with one. */
    newlineOwed = false;
    dirty = false;
    constructor(path, options) {
        this.path = path;
        this.describe = path;
        this.fs = options.fs ?? nodeLogFs;
        this.now = options.now ?? Date.now;
        this.snapshotPath = `${path}.snapshot.json`;
    }
    async open() {
        const lines = [];
        const recovered = await this.openFrom((line) => lines.push(line));
        return { lines, ...recovered };
    }
    /** See LogFileStore.openFrom. */
    async openFrom(onLine, start) {
        const { path } = this;
        const reader = this.openReader();
        let read = { index: start?.index ?? 0, at: start?.offset ?? 0, tail: Buffer.alloc(0) };
        let warning;
        if (start && reader && reader.size === start.offset - 1) {
            // The snapshot's last line is the log's last, now without its newline: kept, as below.
            reader.close();
            read.at -= 1;
            this.newlineOwed = true;
            warning = `${path}: the last record (${start.lastBytes} bytes) had no newline; it is whole and was kept`;
        }
        else if (reader) {
            read = this.readLines(reader, onLine, read);
        }
        this.durableBytes = read.at;
        let fenceFloor = 0;
        if (read.tail.length > 0)
            ({ fenceFloor, warning } = await this.keepTail(read, onLine));
        try {
            this.file = await this.fs.openLog(path);
        }
        catch (error) {
            throw new store_error/* StoreError */.AD(`Cannot open the kernel's log ${path}: ${(0,errors/* causeText */.xv)(error)}`, {
                cause: error,
            });
        }
        await this.repair();
        return { fenceFloor, ...(warning ? { warning } : {}) };
    }
    openReader() {
        try {
            return this.fs.openRead(this.path);
        }
        catch (error) {
            throw new store_error/* StoreError */.AD(`Cannot read the kernel's log ${this.path}: ${(0,errors/* causeText */.xv)(error)}`, {
                cause: error,
            });
        }
    }
    /** Hands out each whole line from `from` on; only the part after the last newline is carried. */
    readLines(reader, onLine, from) {
        let { index, at, tail } = from;
        try {
            const block = Buffer.allocUnsafe(READ_BYTES);
            for (let position = at; position < reader.size;) {
                let n;
                try {
                    n = reader.read(block, position);
                }
                catch (error) {
                    throw new store_error/* StoreError */.AD(`Cannot read the kernel's log ${this.path}: ${(0,errors/* causeText */.xv)(error)}`, {
                        cause: error,
                    });
                }
                if (n <= 0)
                    break;
                position += n;
                const data = tail.length > 0 ? Buffer.concat([tail, block.subarray(0, n)]) : block.subarray(0, n);
                let start = 0;
                for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
                    onLine(data.toString('utf8', start, nl));
                    index += 1;
                    at += nl - start + 1;
                    start = nl + 1;
                }
                tail = Buffer.from(data.subarray(start));
            }
        }
        finally {
            reader.close();
        }
        return { index, at, tail };
    }
    /**
     * The bytes after the last newline: a record whole and valid but for its newline may have
     * been acknowledged, so it stays; a torn one is saved to a copy, then cut off.
     */
    async keepTail({ index, tail }, onLine) {
        const { path } = this;
        const text = tail.toString('utf8');
        if ((0,entry/* readEntry */.hB)(text, index)) {
            onLine(text);
            this.durableBytes += tail.length;
            this.newlineOwed = true;
            const warning = `${path}: the last record (${tail.length} bytes) had no newline; it is whole and was kept`;
            return { fenceFloor: 0, warning };
        }
        const copy = `${path}.cut-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
        try {
            await this.fs.saveCopy(copy, tail);
        }
        catch (error) {
            throw new store_error/* StoreError */.AD(`${path}: the last record is torn (${tail.length} bytes) and cannot be saved to ${copy} before it is cut: ${(0,errors/* causeText */.xv)(error)}. Free space and start again.`, { cause: error });
        }
        this.dirty = true;
        return {
            fenceFloor: highestFence(text),
            warning: `${path}: the last record was torn (${tail.length} bytes without an end); it was saved to ${copy}, cut off, and the ${index} records before it kept`,
        };
    }
    /** Cuts the file back to what is durable (a torn record, a failed write), and syncs it. */
    async repair() {
        const { file, durableBytes } = this;
        if (!this.dirty || !file)
            return;
        try {
            const size = await file.size();
            if (size < durableBytes) {
                throw new Error(`it holds ${size} bytes, fewer than the ${durableBytes} already durable; refusing to extend it`);
            }
            if (size > durableBytes)
                await file.truncate(durableBytes);
            await file.datasync();
            this.dirty = false;
        }
        catch (error) {
            throw new store_error/* StoreError */.AD(`cannot repair ${this.path}: ${(0,errors/* causeText */.xv)(error)}`, { cause: error });
        }
    }
    readSnapshot() {
        return readSnapshotFile(this.path, this.snapshotPath);
    }
    writeSnapshot(body) {
        return writeSnapshotFile(this.snapshotPath, body);
    }
    async append(text) {
        const { file, path } = this;
        if (!file)
            throw new store_error/* StoreError */.AD(`${path} is not open`);
        await this.repair();
        const bytes = Buffer.from(this.newlineOwed ? `\n${text}` : text, 'utf8');
        const start = this.durableBytes;
        try {
            this.dirty = true;
            // Only bytes a write reports count: a short one (a full disk) goes on from there, or fails.
            await (0,write_all/* writeAll */.f4)((b, o, l) => file.write(b, o, l, start + o), bytes, start);
            await file.datasync();
        }
        catch (error) {
            await this.repair().catch(() => undefined);
            throw new store_error/* StoreError */.AD(`cannot write ${path}: ${(0,errors/* causeText */.xv)(error)}`, { cause: error });
        }
        this.durableBytes += bytes.length;
        this.newlineOwed = false;
        this.dirty = false;
    }
    async probe() {
        if (!this.file)
            throw new store_error/* StoreError */.AD(`${this.path} is not open`);
        await this.repair();
        try {
            await this.file.datasync();
        }
        catch (error) {
            throw new store_error/* StoreError */.AD(`cannot sync ${this.path}: ${(0,errors/* causeText */.xv)(error)}`, { cause: error });
        }
    }
    async close() {
        await this.file?.close();
        this.file = undefined;
    }
}
/** The highest fence named in bytes that are cut: a fence seen anywhere is never issued again. */
function highestFence(text) {
    let highest = 0;
    for (const match of text.matchAll(/"fence":(\d{1,15})/g))
        highest = Math.max(highest, Number(match[1]));
    return highest;
}

;// CONCATENATED MODULE: ./src/kernel/store/kernel-store.ts
const isLogFileStore = (store) => 'openFrom' in store && 'readSnapshot' in store;

;// CONCATENATED MODULE: ./src/kernel/store/store.ts


/**
 * Nothing outlives the process; appends always succeed. `fenceFloor`: the
 * first grant's fence is above it (the CLI's memory kernel gives the clock's,
 * memoryFenceFloor, so fences rise across its restarts too).
 */
function memoryStore(options = {}) {
    const fenceFloor = options.fenceFloor ?? 0;
    return {
        describe: 'memory',
        open: () => Promise.resolve({ lines: [], fenceFloor }),
        append: () => Promise.resolve(),
        probe: () => Promise.resolve(),
        close: () => Promise.resolve(),
    };
}
/**
 * Fences a memory kernel can issue per millisecond of wall clock between its
 * start and the next one's. At today's clock the floor is about 1.8 \u00d7 10^15,
 * within a safe integer (9 \u00d7 10^15) until the year 2255.
 */
const FENCES_PER_MS = 1_000;
/**
 * Where a memory kernel's fences start: the wall clock in microseconds. A
 * memory kernel remembers nothing, so its fences would start at 1 again after
 * each restart; these rise across restarts unless the clock is set back
 * between them, or one run issued more than 1,000 fences per millisecond it ran.
 */
function memoryFenceFloor(nowMs = Date.now()) {
    return Math.floor(nowMs) * FENCES_PER_MS;
}


/***/ }),

/***/ 3778:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Fs: () => (/* binding */ FETCH_CHUNK),
/* harmony export */   N2: () => (/* binding */ FetchedLines),
/* harmony export */   ez: () => (/* binding */ LinesNotLoadedError)
/* harmony export */ });
/* harmony import */ var _ledger_error_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8300);

/** Lines per chunk: the Merkle tree's chunk (merkle.ts), so a recomputed chunk is one load. */
const FETCH_CHUNK = 256;
/** Chunks kept at most between loads (about 16,000 lines). */
const KEEP_CHUNKS = 64;
/** A read of a line that no load made readable; Ledger.read loads again and retries. */
class LinesNotLoadedError extends _ledger_error_js__WEBPACK_IMPORTED_MODULE_0__/* .LedgerError */ .o {
    name = 'LinesNotLoadedError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'ledger_lines_not_loaded' });
    }
}
/**
 * A ledger's lines kept elsewhere and read back asynchronously (the
 * PostgreSQL store's table): memory holds the count and the chunks the last
 * loads asked for, at most KEEP_CHUNKS of them, never the history. `fetch`
 * returns lines [lo, hi) in order; it is the only I/O, and it is the caller's.
 */
class FetchedLines {
    fetch;
    readsBack = true;
    length = 0;
    /** Chunk start \u2192 its lines' bytes, least recently loaded first. */
    chunks = new Map();
    constructor(fetch) {
        this.fetch = fetch;
    }
    /** Starts an empty source at `length` lines already kept (a tree restored from its frontier). */
    restore(length) {
        if (this.length !== 0)
            throw new RangeError('only an empty source restores');
        this.length = length;
    }
    /** Counts the line and returns its bytes for hashing; it is read back when asked for. */
    push(line) {
        this.length += 1;
        return Buffer.from(line, 'utf8');
    }
    at(i) {
        return this.line(i).toString('utf8');
    }
    bytes(lo, hi) {
        const out = [];
        for (let i = lo; i < hi; i += 1)
            out.push(this.line(i));
        return out;
    }
    /** Reads the chunks of lines [lo, hi) that are not kept whole, in one fetch a run of them. */
    async load(lo, hi) {
        const end = Math.min(hi, this.length);
        const missing = [];
        for (let start = lo - (lo % FETCH_CHUNK); start < end; start += FETCH_CHUNK) {
            const kept = this.chunks.get(start);
            if (kept && kept.length === Math.min(FETCH_CHUNK, this.length - start)) {
                // Loaded again: kept longest.
                this.chunks.delete(start);
                this.chunks.set(start, kept);
            }
            else
                missing.push(start);
        }
        for (let i = 0; i < missing.length;) {
            let j = i + 1;
            while (j < missing.length && missing[j] === missing[j - 1] + FETCH_CHUNK)
                j += 1;
            const from = missing[i];
            const to = Math.min(missing[j - 1] + FETCH_CHUNK, this.length);
            const lines = await this.fetch(from, to);
            if (lines.length !== to - from)
                throw new _ledger_error_js__WEBPACK_IMPORTED_MODULE_0__/* .LedgerError */ .o(`ledger lines ${from}..${to} could not be read back`);
            for (let start = from; start < to; start += FETCH_CHUNK) {
                const chunk = lines
                    .slice(start - from, start - from + FETCH_CHUNK)
                    .map((line) => Buffer.from(line, 'utf8'));
                this.chunks.delete(start);
                this.chunks.set(start, chunk);
            }
            i = j;
        }
        for (const start of this.chunks.keys()) {
            if (this.chunks.size <= KEEP_CHUNKS)
                break;
            this.chunks.delete(start);
        }
    }
    get heldBytes() {
        let bytes = 0;
        for (const chunk of this.chunks.values())
            for (const line of chunk)
                bytes += line.length;
        return bytes;
    }
    line(i) {
        const start = i - (i % FETCH_CHUNK);
        const line = this.chunks.get(start)?.[i - start];
        if (!line)
            throw new LinesNotLoadedError(`ledger line ${i} is not loaded`);
        return line;
    }
}


/***/ }),

/***/ 8300:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   o: () => (/* binding */ LedgerError)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);

/** A ledger that cannot be appended to, sealed or read back as asked. */
class LedgerError extends _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .LeaseGateError */ .eg {
    name = 'LedgerError';
    /** `code`: only for its subclasses (ledger_lines_not_loaded). */
    constructor(message, options = {}) {
        super(message, { ...options, code: options.code ?? 'ledger' });
    }
}


/***/ }),

/***/ 7781:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  O: () => (/* binding */ Ledger),
  y: () => (/* binding */ numberEntries)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: ./src/plane/canonical-json.ts
var canonical_json = __webpack_require__(9095);
// EXTERNAL MODULE: ./src/ledger/entry.ts
var ledger_entry = __webpack_require__(5641);
// EXTERNAL MODULE: ./src/ledger/merkle.ts
var merkle = __webpack_require__(9527);
// EXTERNAL MODULE: ./src/ledger/merkle-proof.ts
var merkle_proof = __webpack_require__(5588);
// EXTERNAL MODULE: ./src/ledger/checkpoint.ts
var checkpoint = __webpack_require__(4491);
// EXTERNAL MODULE: ./src/ledger/ledger-error.ts
var ledger_error = __webpack_require__(8300);
// EXTERNAL MODULE: ./src/ledger/fetched-lines.ts
var fetched_lines = __webpack_require__(3778);
;// CONCATENATED MODULE: ./src/ledger/lines.ts
/**
 * The ledger's lines as UTF-8 bytes in large chunks, with a small index: a
 * ledger of millions of entries stays off the JavaScript heap, so the garbage
 * collector never copies or scans it while the kernel serves requests.
 */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Per line: its chunk, its offset in the chunk, its length in bytes. */
const SLOTS = 3;
class LineStore {
    readsBack = false;
    chunks = [];
    used = CHUNK_BYTES;
    index = new Uint32Array(SLOTS * 1024);
    length = 0;
    /** Keeps one line; returns its bytes (a view that stays valid, for hashing). */
    push(line) {
        const most = line.length * 3;
        if (this.chunks.length === 0 || this.used + most > this.chunks.at(-1).length) {
            this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, most)));
            this.used = 0;
        }
        const chunk = this.chunks.length - 1;
        const bytes = this.chunks[chunk].write(line, this.used, 'utf8');
        if ((this.length + 1) * SLOTS > this.index.length) {
            const bigger = new Uint32Array(this.index.length * 2);
            bigger.set(this.index);
            this.index = bigger;
        }
        const at = this.length * SLOTS;
        this.index[at] = chunk;
        this.index[at + 1] = this.used;
        this.index[at + 2] = bytes;
        this.length += 1;
        const view = this.chunks[chunk].subarray(this.used, this.used + bytes);
        this.used += bytes;
        return view;
    }
    /** The line at `i` (0 \u2264 i < length). */
    at(i) {
        const at = i * SLOTS;
        const start = this.index[at + 1];
        return this.chunks[this.index[at]].toString('utf8', start, start + this.index[at + 2]);
    }
    bytes(lo, hi) {
        const out = [];
        for (let i = lo; i < hi; i += 1) {
            const at = i * SLOTS;
            const start = this.index[at + 1];
            out.push(this.chunks[this.index[at]].subarray(start, start + this.index[at + 2]));
        }
        return out;
    }
    get heldBytes() {
        return this.chunks.length * CHUNK_BYTES + this.index.byteLength;
    }
}

;// CONCATENATED MODULE: ./src/ledger/ledger.ts









/** Loads and tries of one Ledger.read whose lines other reads keep pushing out. */
const READ_ATTEMPTS = 3;
/**
 * The ledger's numbering, the one place it is written: entries follow the
 * `size` already recorded, and each is stamped with the plane's clock made
 * strictly increasing after `lastTs` (the last recorded stamp; -1 for none).
 * A lapse stamped one after the stamp before it carries the clock that found
 * it due (`clockMs`): a run of +1 stamps may run ahead of the clock, so its
 * stamp alone does not show it came no earlier than the lease's expiry. So
 * does a grant a break-glass let through (`clocked`): its stamp alone does not
 * show it came before the pass ended.
 * The in-memory ledger and the PostgreSQL sequencer both use it; the sequencer numbers after
 * lease_gate_sequenced's size and last stamp, one replica at a time under its advisory lock
 * (kernel/postgres/sequencer.ts): no row lock is shared by every commit.
 */
function numberEntries(events, size, lastTs) {
    let ts = lastTs;
    return events.map((event, i) => {
        const clock = Math.round(event.atMs);
        const before = ts;
        ts = Math.max(clock, before + 1);
        const inRun = (event.kind === 'lapse' || event.clocked === true) && ts === before + 1;
        return (0,ledger_entry/* entryOf */.Ms)(event, size + i, ts, inRun ? clock : undefined);
    });
}
/**
 * The append-only, Merkle-sealed record of every grant, renewal, release,
 * lapse and revocation, in memory. Whoever keeps it durable (the kernel's
 * store) prepares entries, writes their lines, and only then accepts them.
 * Without a signing key it is still a log and a tree, but signs no checkpoint.
 */
class Ledger {
    signingKey;
    origin;
    publicKey;
    tree = new merkle/* MerkleTree */.vU();
    /** The accepted entries as their canonical lines (the Merkle leaves): off the heap, or in the log file. */
    lines = new LineStore();
    lastTs = -1;
    signed;
    record;
    /** The largest size the record holds. */
    keptSize = 0;
    keeping = Promise.resolve();
    constructor(signingKey) {
        this.signingKey = signingKey;
        this.publicKey = signingKey && (0,external_node_crypto_.createPublicKey)(signingKey);
        this.origin = this.publicKey && (0,checkpoint/* originFor */.Ag)(this.publicKey);
    }
    get size() {
        return this.tree.size;
    }
    /**
     * Keeps the lines in `source` from now on (a file kernel's log, read back on
     * demand): then the tree keeps only its chunks' hashes and recomputes the
     * rest from the lines. Only before the first entry.
     */
    readFrom(source) {
        if (this.size !== 0 || this.lines.length !== 0)
            throw new ledger_error/* LedgerError */.o('a ledger changes where it keeps its lines only while empty');
        this.lines = source;
        this.tree = new merkle/* MerkleTree */.vU(source.readsBack ? { leaves: (lo, hi) => source.bytes(lo, hi) } : {});
    }
    /** What a snapshot keeps of the ledger: its size, last stamp, root and the tree's chunk roots. */
    snapshot() {
        return {
            size: this.size,
            lastTs: this.lastTs,
            root: Buffer.from(this.tree.root()).toString('base64'),
            chunkRoots: Buffer.from(this.tree.chunkRoots()).toString('base64'),
        };
    }
    /**
     * Takes a snapshot's ledger in over `source`, whose lines are already
     * restored to the snapshot's size: the tree from its chunk roots and the
     * leaves after them read back, kept only when it has the root the snapshot
     * names (else this throws and the ledger is still empty). The caller checks
     * the snapshot against the log.
     */
    restoreFrom(source, snapshot) {
        if (this.size !== 0 || this.lines.length !== 0 || source.length !== snapshot.size)
            throw new ledger_error/* LedgerError */.o('a snapshot restores only an empty ledger over its own lines');
        const tree = new merkle/* MerkleTree */.vU({ leaves: (lo, hi) => source.bytes(lo, hi) });
        tree.restoreChunks(new Uint8Array(Buffer.from(snapshot.chunkRoots, 'base64')));
        if (tree.size > snapshot.size)
            throw new ledger_error/* LedgerError */.o('the snapshot has more chunks than entries');
        for (const bytes of source.bytes(tree.size, snapshot.size))
            tree.append(bytes);
        if (Buffer.from(tree.root()).toString('base64') !== snapshot.root)
            throw new ledger_error/* LedgerError */.o("the snapshot's tree does not have the root it names");
        this.lines = source;
        this.tree = tree;
        this.lastTs = snapshot.lastTs;
    }
    /** The tree's root at `size` (all by default), base64, as a snapshot names it. */
    rootAt(size = this.size) {
        return Buffer.from(this.tree.root(size)).toString('base64');
    }
    /** Bytes this ledger keeps in memory for its lines and its tree. */
    get heldBytes() {
        return this.lines.heldBytes + this.tree.heldBytes;
    }
    get signs() {
        return this.signingKey !== undefined;
    }
    /** Numbers and times new entries after the accepted ones; changes nothing. */
    prepare(events) {
        const entries = numberEntries(events, this.lines.length, this.lastTs);
        const lines = entries.map(ledger_entry/* entryJson */.Bm);
        let text = '';
        for (const line of lines)
            text += `${line}\n`;
        return { entries, text, lines };
    }
    /** Takes prepared entries in once they are durable; `lines` are their canonical JSON when known. */
    accept(entries, lines) {
        entries.forEach((entry, i) => {
            if (entry.seq !== this.lines.length)
                throw new ledger_error/* LedgerError */.o(`entry ${entry.seq} accepted out of order`);
            this.tree.append(this.lines.push(lines?.[i] ?? (0,ledger_entry/* entryJson */.Bm)(entry)));
            this.lastTs = entry.tsMs;
        });
    }
    /** Prepares and accepts one entry at once (an in-memory ledger). */
    append(event) {
        const { entries, lines } = this.prepare([event]);
        this.accept(entries, lines);
        return entries[0];
    }
    /** Takes in one line read back from durable storage, checked as untrusted. */
    load(line, where) {
        let parsed;
        try {
            parsed = JSON.parse(line);
        }
        catch {
            throw new ledger_error/* LedgerError */.o(`${where} is not JSON; the ledger is damaged before its last record`);
        }
        const entry = ledger_entry/* entrySchema */.Oo.safeParse(parsed);
        if (!entry.success ||
            entry.data.seq !== this.lines.length ||
            (0,canonical_json/* canonicalJson */.d)(entry.data) !== line) {
            throw new ledger_error/* LedgerError */.o(`${where} is not the ledger entry ${this.lines.length} in canonical form`);
        }
        this.accept([entry.data], [line]);
        return entry.data;
    }
    /**
     * Runs `use` (entry, page, pageJson, checkpoint: synchronous) once what it
     * reads of entries [from, to) and their proofs in the tree of `size` is
     * readable. Lines kept in memory or in a file always are; lines read back
     * asynchronously (a database, FetchedLines) are loaded first: those lines,
     * and the chunks at the tree's right edge at `size` and at the last signed
     * size, which proofs and checkpoints recompute. Another read may push them
     * out while this one waits, so `use` runs again after a fresh load (bounded).
     */
    async read(from, to, size, use) {
        const { load } = this.lines;
        if (!load)
            return use();
        const chunk = this.tree.chunkSize;
        // The tree keeps its last, incomplete chunk's nodes: only older chunks are read back.
        const open = this.size - (this.size % chunk);
        const edge = (n) => {
            const start = n - 1 - ((n - 1) % chunk);
            return n > 0 && start < open ? [start] : [];
        };
        for (let attempt = 1;; attempt += 1) {
            if (from < to)
                await load.call(this.lines, from, to);
            for (const start of new Set([...edge(size), ...edge(this.signed?.size ?? 0)]))
                await load.call(this.lines, start, start + chunk);
            try {
                return use();
            }
            catch (error) {
                if (!(error instanceof fetched_lines/* LinesNotLoadedError */.ez) || attempt >= READ_ATTEMPTS)
                    throw error;
            }
        }
    }
    entry(index) {
        if (!(Number.isInteger(index) && index >= 0 && index < this.lines.length))
            return undefined;
        return JSON.parse(this.lineAt(index));
    }
    /**
     * The line at `index`. One read back from where it is kept (a file, a
     * database) is checked against the tree's leaf first: a line changed after
     * it was hashed is refused here, never served beside a proof it fails.
     */
    lineAt(index) {
        const line = this.lines.at(index);
        if (this.lines.readsBack &&
            !(0,merkle/* equalHashes */.l$)((0,merkle/* leafHash */.Jq)(Buffer.from(line, 'utf8')), this.tree.leafHashAt(index)))
            throw new ledger_error/* LedgerError */.o(`ledger line ${index} read back is not the line the tree holds`);
        return line;
    }
    /**
     * Keeps every larger checkpoint in `record` before it goes out (see
     * `signedCheckpoint`); `kept` is the one the record holds now, which the
     * caller has checked against this ledger.
     */
    keepSignedIn(record, kept) {
        this.record = record;
        this.keptSize = kept?.size ?? 0;
    }
    /**
     * The signed checkpoint of the first `size` entries, read as `read` reads,
     * and, when it is the largest signed yet, made durable in the record first:
     * what is handed out is what a restart holds the log to.
     */
    async signedCheckpoint(size = this.size) {
        const text = await this.read(size, size, size, () => this.checkpoint(size));
        const keep = this.keeping
            .catch(() => undefined)
            .then(async () => {
            const signed = this.signed;
            if (!this.record || !signed || signed.size <= this.keptSize)
                return;
            await this.record.keep({
                size: signed.size,
                root: Buffer.from(signed.root).toString('base64'),
            });
            this.keptSize = Math.max(this.keptSize, signed.size);
        });
        this.keeping = keep;
        await keep;
        return text;
    }
    /** The signed checkpoint of the first `size` entries (all by default). */
    checkpoint(size = this.tree.size) {
        if (!this.signingKey || !this.origin)
            throw new ledger_error/* LedgerError */.o('this kernel has no signing key, so it signs no checkpoint');
        if (this.signed?.size === size)
            return this.signed.text;
        const root = this.tree.root(size);
        if (this.signed && size > this.signed.size) {
            const proof = this.tree.consistencyProof(this.signed.size, size);
            if (!(0,merkle_proof/* verifyConsistency */.Ko)(this.signed.size, size, this.signed.root, root, proof)) {
                throw new ledger_error/* LedgerError */.o('refusing to sign a checkpoint inconsistent with the last one signed');
            }
        }
        // Ed25519 is deterministic: an older size signs to the same note it had.
        const text = (0,checkpoint/* signCheckpoint */.Ch)({ origin: this.origin, size, root }, this.signingKey);
        if (!this.signed || size > this.signed.size)
            this.signed = { size, root, text };
        return text;
    }
    /** Entries [from, to) with inclusion proofs against the tree of `size` (a page of an export). */
    page(from, to, size = this.size) {
        return this.pageJson(from, to, size).map((json) => JSON.parse(json));
    }
    /**
     * The same page, each bundle entry already as JSON: the entry's canonical
     * line is spliced in as it is kept, never parsed and written again.
     */
    pageJson(from, to, size = this.size) {
        if (!(0 <= from && from <= to && to <= size && size <= this.size)) {
            throw new ledger_error/* LedgerError */.o(`range ${from}..${to} is not within 0..${size}`);
        }
        const proofs = this.tree.inclusionProofs(from, to, size);
        const json = [];
        for (let index = from; index < to; index += 1) {
            const proof = proofs[index - from].map((h) => Buffer.from(h).toString('base64'));
            json.push(`{"index":${index},"entry":${this.lineAt(index)},"inclusionProof":${JSON.stringify(proof)}}`);
        }
        return json;
    }
    /** Entries [from, to) with inclusion proofs against the current checkpoint. */
    bundle(from = 0, to = this.size) {
        if (!(Number.isInteger(from) &&
            Number.isInteger(to) &&
            0 <= from &&
            from <= to &&
            to <= this.size)) {
            throw new ledger_error/* LedgerError */.o(`range ${from}..${to} is not within 0..${this.size}`);
        }
        const checkpoint = this.checkpoint();
        return { checkpoint, entries: this.page(from, to) };
    }
}


/***/ }),

/***/ 8988:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   h: () => (/* binding */ createLogger),
/* harmony export */   mW: () => (/* binding */ LOG_FORMAT_FORM),
/* harmony export */   nx: () => (/* binding */ stderrLevel),
/* harmony export */   r5: () => (/* binding */ parseLogFormat)
/* harmony export */ });
/* unused harmony exports LOG_FORMATS, maskSecrets */
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1223);

/**
 * The kernel's and the App's one way to say something: a line of text for people (as it has
 * always been written), or a JSON line for a log store (`--log-format json`). Every line, in
 * either form, is masked (secret values, URL credentials, secret query values) and escaped
 * (logLine: no CR, LF or terminal control gets through) before it is written.
 *
 * Hand-written rather than pino: the kernel writes a few lines per lease event, and pino's
 * require alone costs ~50 ms at start (median of 21 runs, Node 24) and ~59 KB minified in
 * the bundle, for redaction by field path where ours must be by value (docs/logs.md).
 */
const LOG_FORMATS = ['text', 'json'];
const LOG_FORMAT_FORM = "'text' (lines for people, the default) or 'json' (one JSON object a line)";
/** `--log-format` or LEASE_GATE_LOG_FORMAT, else text; undefined: neither form. */
function parseLogFormat(raw) {
    if (raw === undefined || raw === '')
        return 'text';
    return LOG_FORMATS.includes(raw) ? raw : undefined;
}
function createLogger(options) {
    // Longest first, so a secret that holds a shorter one is masked whole. Very short values
    // (under 8 characters) would mask ordinary words; no key lease-gate takes is that short.
    const secrets = [...new Set(options.secrets ?? [])]
        .filter((s) => typeof s === 'string' && s.length >= 8)
        .sort((a, b) => b.length - a.length);
    const clean = (text) => (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .logLine */ .BP)(maskSecrets(text, secrets));
    const log = (level, msg, fields) => {
        if (options.format === 'text')
            return options.write(clean(msg));
        const line = {
            level,
            time: new Date(options.now()).toISOString(),
            msg: clean(msg),
        };
        for (const [name, value] of Object.entries({ ...options.base, ...fields })) {
            if (value === undefined || name in line)
                continue;
            line[name] = typeof value === 'string' ? clean(value) : value;
        }
        options.write(JSON.stringify(line));
    };
    return {
        log,
        info: (msg, fields) => log('info', msg, fields),
        warn: (msg, fields) => log('warn', msg, fields),
        error: (msg, fields) => log('error', msg, fields),
    };
}
/** Query parameters whose value is a credential by its name (`?access_token=\u2026`, `&sig=\u2026`). */
const SECRET_PARAM = /([?&;](?:[\w.-]*(?:token|key|secret|password|passwd|pwd|sig|signature|auth|code|credential)[\w.-]*)=)[^&#\s"']+/gi;
/** A URL's userinfo: `scheme://user:password@`, or `scheme://token@` (no colon). */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"':]*)(:[^\s/?#@"']*)?@/gi;
/** The password as ***, the user kept; a user alone is masked when it is long enough to be a token. */
const maskUserinfo = (_, scheme, user, password) => password !== undefined
    ? `${scheme}${user}:***@`
    : `${scheme}${user.length >= 16 ? '***' : user}@`;
/**
 * Every given secret, every URL's userinfo and every credential-named query value as ***.
 * A second fence behind the call sites' own care (urlForDisplay, redactUrl, withoutUrl): a
 * line someone adds later that quotes an error with a URL in it still leaks nothing.
 */
function maskSecrets(text, secrets = []) {
    let masked = text;
    for (const secret of secrets)
        masked = masked.split(secret).join('***');
    return masked.replace(URL_USERINFO, maskUserinfo).replace(SECRET_PARAM, '$1***');
}
/** The level a line written to stderr is logged at: a failure's words say error, else warn. */
function stderrLevel(line) {
    return /\b(failed|fails|could not|cannot|gave up|broke|lost|refus\w*|error)\b/i.test(line)
        ? 'error'
        : 'warn';
}


/***/ }),

/***/ 8497:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   n: () => (/* binding */ MetricsRenderer)
/* harmony export */ });
/* unused harmony export wantsOpenMetrics */
/* harmony import */ var prom_client__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(5222);
/**
 * A registry's text for one scrape: Prometheus's text format, or OpenMetrics when the
 * scraper's Accept header asks for it (Prometheus itself does, by default).
 */

/** Whether an Accept header prefers OpenMetrics (any q above 0). */
function wantsOpenMetrics(accept) {
    if (!accept)
        return false;
    return accept.split(',').some((part) => {
        const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
        if (type !== 'application/openmetrics-text')
            return false;
        const q = params.find((p) => p.startsWith('q='));
        return q === undefined || Number(q.slice(2)) > 0;
    });
}
/**
 * Renders `registry` in either format. prom-client renames a counter in place when it
 * writes OpenMetrics (`x_total` \u2192 `x`) and the next Prometheus-format scrape would lose the
 * suffix: each render here runs alone and puts the names back.
 */
class MetricsRenderer {
    registry;
    open = new prom_client__WEBPACK_IMPORTED_MODULE_0__.Registry();
    shared = new WeakSet();
    queue = Promise.resolve();
    constructor(registry) {
        this.registry = registry;
        this.open.setContentType(prom_client__WEBPACK_IMPORTED_MODULE_0__.Registry.OPENMETRICS_CONTENT_TYPE);
    }
    /** `begin` runs first, once the renders before this one are done (a scrape's fresh look). */
    render(accept, begin) {
        const next = this.queue.then(() => {
            begin?.();
            return this.renderNow(wantsOpenMetrics(accept));
        });
        this.queue = next.catch(() => undefined);
        return next;
    }
    async renderNow(openMetrics) {
        if (!openMetrics) {
            return { contentType: this.registry.contentType, text: await this.registry.metrics() };
        }
        const metrics = this.registry.getMetricsAsArray();
        const names = metrics.map((m) => m.name);
        for (const metric of metrics) {
            if (this.shared.has(metric))
                continue;
            this.open.registerMetric(metric);
            this.shared.add(metric);
        }
        try {
            return { contentType: this.open.contentType, text: await this.open.metrics() };
        }
        finally {
            metrics.forEach((m, i) => (m.name = names[i] ?? m.name));
        }
    }
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

//# sourceMappingURL=607.index.js.map