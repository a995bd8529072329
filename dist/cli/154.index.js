export const id = 154;
export const ids = [154];
export const modules = {

/***/ 8154:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  app: () => (/* binding */ app)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: ./node_modules/zod/v4/mini/schemas.js + 5 modules
var schemas = __webpack_require__(8395);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/core.js
var core = __webpack_require__(8532);
// EXTERNAL MODULE: ./node_modules/zod/v4/core/api.js + 1 modules
var api = __webpack_require__(3305);
// EXTERNAL MODULE: ./src/zod-en.ts
var zod_en = __webpack_require__(3184);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
// EXTERNAL MODULE: ./src/gate/duration.ts
var duration = __webpack_require__(9731);
// EXTERNAL MODULE: ./src/plane/schema.ts
var schema = __webpack_require__(3659);
// EXTERNAL MODULE: ./src/plane/url.ts
var plane_url = __webpack_require__(4043);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/lease/settings.ts
var settings = __webpack_require__(4801);
;// CONCATENATED MODULE: ./src/app/config.ts











/** The config file is wrong: the message names the field and the accepted form. */
class ConfigError extends errors/* LeaseGateError */.eg {
    name = 'ConfigError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'config' });
    }
}
const config_duration = (fallback, min = 0) => schemas/* pipe */.FsL(schemas/* _default */.Rvf(schemas/* string */.YjP(), fallback), schemas/* transform */.pdi((raw, ctx) => {
    const ms = (0,duration/* parseDuration */.E9)(raw);
    if (ms === undefined || ms < min) {
        ctx.issues.push({
            code: 'custom',
            input: raw,
            message: `expected ${duration/* DURATION_FORM */.ec}, at most 24h${min ? `, at least ${min / 1000}s` : ''}`,
        });
        return core/* NEVER */.tm;
    }
    return ms;
}));
const checkedUrl = (raw) => {
    const url = (0,plane_url/* parsePlaneUrl */.p)(raw);
    return url.ok ? url.url : raw;
};
const originUrl = (what) => schemas/* string */.YjP()
    .check(schemas/* refine */.YPB((v) => (0,plane_url/* parsePlaneUrl */.p)(v).ok, `expected ${what}: an https:// origin (plain http:// only for localhost or 127.0.0.1)`));
/**
 * `appId` as a number, or as a string of digits, on purpose: a value pasted from the App's
 * page, or written by a templating tool, is often quoted. The docs and --help say so.
 */
const APP_ID_FORM = 'expected the App ID, a positive integer (a number, or a string of digits such as "123456")';
/** The config file's shape; exported so a test holds `lease-gate app --help` and the docs to it. */
const configFileSchema = schemas/* strictObject */.rej({
    // A string of digits is accepted on purpose (a value pasted from the App's page, or
    // written by a templating tool, is often quoted); the docs and --help say so.
    appId: schemas/* union */.KCZ([
        schemas/* number */.aig().check(schemas/* int */.Whr(APP_ID_FORM), api/* _positive */.NC(APP_ID_FORM)),
        schemas/* string */.YjP().check(api/* _regex */.Fk(/^[1-9]\d{0,19}$/, {
            error: (issue) => typeof issue.input === 'string' && /^Iv\d*\./.test(issue.input)
                ? "expected the App ID (a number, on the App's settings page under 'About'), not its Client ID (Iv\u2026)"
                : APP_ID_FORM,
        })),
    ], { error: APP_ID_FORM }),
    privateKeyFile: schemas/* string */.YjP()
        .check(api/* _minLength */.m9(1, 'expected the path of the App private key (PEM)')),
    webhookSecretFile: schemas/* string */.YjP()
        .check(api/* _minLength */.m9(1, 'expected the path of a file holding the webhook secret')),
    githubApiUrl: schemas/* _default */.Rvf(originUrl("GitHub's REST API"), 'https://api.github.com'),
    githubServerUrl: schemas/* _default */.Rvf(originUrl('the GitHub server'), 'https://github.com'),
    plane: schemas/* strictObject */.rej({
        url: originUrl("the plane's URL"),
        keyFile: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _minLength */.m9(1))),
    }),
    listen: schemas/* _default */.Rvf(schemas/* strictObject */.rej({
        host: schemas/* _default */.Rvf(schemas/* string */.YjP().check(api/* _minLength */.m9(1)), '127.0.0.1'),
        port: schemas/* _default */.Rvf(schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _gte */.qm(0), api/* _lte */.Zm(65_535)), 8790),
        path: schemas/* _default */.Rvf(schemas/* string */.YjP().check(api/* _regex */.Fk(/^\/[\x21-\x7e]{0,200}$/, 'expected a path starting with /')), '/'),
    }), { host: '127.0.0.1', port: 8790, path: '/' }),
    rules: schemas/* array */.YOg(schemas/* strictObject */.rej({
        repository: schemas/* string */.YjP()
            .check(api/* _regex */.Fk(/^[A-Za-z0-9*][A-Za-z0-9*-]{0,38}\/[A-Za-z0-9._*-]{1,100}$/, 'expected owner/repo, where * matches any characters but /')),
        environment: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(255)),
        resource: schema/* resourceSchema */.C5,
        job: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _regex */.Fk(/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/, 'expected a workflow job id'))),
    }))
        .check(api/* _minLength */.m9(1, 'expected at least one rule')),
    takeUpGrace: config_duration('10m', 1_000),
    maxWait: config_duration('6h', 1_000),
    runCheckEvery: config_duration('1m', 1_000),
    deploymentStatus: schemas/* _default */.Rvf(schemas/* boolean */.zMY(), true),
});
/** Reads and checks the config file, and the secrets it names (paths relative to the file). */
function loadConfig(file, env) {
    let raw;
    try {
        raw = JSON.parse((0,external_node_fs_.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        throw new ConfigError(`Cannot read the config ${file}: ${(0,errors/* causeText */.xv)(error)}. Expected a JSON file.`, { cause: error });
    }
    const parsed = configFileSchema.safeParse(raw);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const at = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
        if (issue.code === 'unrecognized_keys') {
            // A misspelt setting (`takeUpGrase`) must not leave its default in force unseen.
            const key = issue.keys[0] ?? '';
            const known = Object.keys(knownFields(issue.path)).join(', ');
            throw new ConfigError(`Invalid config ${file}: field '${`${at}.${(0,lease_escape/* untrusted */.bp)(key, 80)}`.slice(1)}': not a setting of the app (expected one of: ${known}).`);
        }
        const field = at.slice(1);
        throw new ConfigError(`Invalid config ${file}: field '${field || '(top)'}': ${issue.message}.`);
    }
    const c = parsed.data;
    const near = (path) => (0,external_node_path_.resolve)((0,external_node_path_.dirname)(file), path);
    const secret = (field, path) => {
        try {
            const text = (0,external_node_fs_.readFileSync)(near(path), 'utf8').trim();
            if (text)
                return text;
        }
        catch {
            // Named below, without the file's content.
        }
        throw new ConfigError(`Invalid config ${file}: field '${field}': cannot read a non-empty file at ${path}.`);
    };
    const privateKey = secret('privateKeyFile', c.privateKeyFile);
    if (!isRsaPrivateKey(privateKey)) {
        // Checked here, not at the first run: a key that does not parse would drop every run.
        throw new ConfigError(`Invalid config ${file}: field 'privateKeyFile': ${c.privateKeyFile} is not a PEM RSA private key (the App's key as GitHub downloads it).`);
    }
    const planeUrl = checkedUrl(c.plane.url);
    const planeKey = c.plane.keyFile
        ? secret('plane.keyFile', c.plane.keyFile)
        : (0,settings/* keyFromEnv */.ji)(env).value;
    if (!planeKey && !planeUrl.startsWith('http:')) {
        throw new ConfigError(`Invalid config ${file}: field 'plane.keyFile': no plane key; name a file, or set LEASE_GATE_KEY (only a plane on loopback may go without).`);
    }
    if (!(0,plane_url/* isLoopbackHost */.c)(c.listen.host) && c.listen.host !== '0.0.0.0' && c.listen.host !== '::') {
        // Any address is allowed (GitHub must reach it); this only catches typos early.
        if (!/^[A-Za-z0-9.:-]{1,253}$/.test(c.listen.host)) {
            throw new ConfigError(`Invalid config ${file}: field 'listen.host': expected a host name or address.`);
        }
    }
    return {
        appId: String(c.appId),
        privateKey,
        webhookSecret: secret('webhookSecretFile', c.webhookSecretFile),
        githubApiUrl: checkedUrl(c.githubApiUrl),
        githubServerUrl: checkedUrl(c.githubServerUrl),
        planeUrl,
        planeKey,
        host: c.listen.host,
        port: c.listen.port,
        path: c.listen.path,
        rules: c.rules,
        takeUpGraceMs: c.takeUpGrace,
        maxWaitMs: c.maxWait,
        runCheckEveryMs: c.runCheckEvery,
        deploymentStatus: c.deploymentStatus,
    };
}
/** The fields of the object at `path` in the config schema (top, `plane`, `listen`, a rule). */
function knownFields(path) {
    const shape = configFileSchema.shape;
    const inner = {
        plane: configFileSchema.shape.plane.shape,
        listen: configFileSchema.shape.listen._zod.def.innerType.shape,
        rules: configFileSchema.shape.rules._zod.def.element.shape,
    };
    return inner[String(path[0])] ?? shape;
}
/** The App's key must parse as an RSA private key: auth-app signs its JWT with RS256. */
function isRsaPrivateKey(pem) {
    if (!pem.includes('PRIVATE KEY-----'))
        return false;
    try {
        return (0,external_node_crypto_.createPrivateKey)(pem).asymmetricKeyType === 'rsa';
    }
    catch {
        return false;
    }
}
/** The first rule for this repository and environment, or undefined. */
function findRule(rules, repository, environment) {
    return rules.find((rule) => globToRegExp(rule.repository).test(repository) &&
        rule.environment.toLowerCase() === environment.toLowerCase());
}
function globToRegExp(glob) {
    const body = glob
        .split('*')
        .map((part) => part.replace(/[.]/g, '\\.'))
        .join('[^/]*');
    return new RegExp(`^${body}$`, 'i');
}

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
// EXTERNAL MODULE: ./src/http/client.ts + 3 modules
var client = __webpack_require__(3276);
// EXTERNAL MODULE: ./src/plane/client.ts + 6 modules
var plane_client = __webpack_require__(4984);
// EXTERNAL MODULE: ./src/plane/time.ts
var time = __webpack_require__(7513);
// EXTERNAL MODULE: ./src/plane/did.ts
var plane_did = __webpack_require__(4027);
;// CONCATENATED MODULE: ./src/app/events.ts



/**
 * The parts of GitHub's webhook payloads the app uses, checked once here: a
 * payload is untrusted even with a good signature (a bug, a changed shape).
 * Unknown fields are ignored.
 */
const id = schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC(), api/* _lte */.Zm(Number.MAX_SAFE_INTEGER));
const repository = schemas/* object */.Ikc({
    full_name: schemas/* string */.YjP()
        .check(schemas/* refine */.YPB((v) => (0,plane_did/* parseRepository */.SU)(v) !== undefined, 'expected owner/repo')),
});
const protectionRuleSchema = schemas/* object */.Ikc({
    action: schemas/* string */.YjP().check(api/* _maxLength */.Eb(64)),
    environment: schemas/* string */.YjP().check(api/* _minLength */.m9(1), api/* _maxLength */.Eb(255)),
    event: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _maxLength */.Eb(64))),
    deployment_callback_url: schemas/* string */.YjP().check(api/* _maxLength */.Eb(2_000)),
    deployment: schemas/* object */.Ikc({ id }),
    repository,
    installation: schemas/* object */.Ikc({ id }),
});
/** A workflow run, as in a `workflow_run` event and in GitHub's REST answer for one run. */
const runSchema = schemas/* object */.Ikc({
    id,
    run_attempt: schemas/* optional */.lqM(schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC())),
    status: schemas/* string */.YjP().check(api/* _maxLength */.Eb(40)),
});
/** `GET \u2026/environments/{name}`: only whether it requires reviewers matters here. */
const environmentSchema = schemas/* object */.Ikc({
    protection_rules: schemas/* optional */.lqM(schemas/* array */.YOg(schemas/* object */.Ikc({ type: schemas/* string */.YjP().check(api/* _maxLength */.Eb(64)) })).check(api/* _maxLength */.Eb(100))),
});
/** `GET \u2026/actions/runs/{run}/approvals`: each review, its state and the environments it covers. */
const approvalsSchema = schemas/* array */.YOg(schemas/* object */.Ikc({
    state: schemas/* string */.YjP().check(api/* _maxLength */.Eb(40)),
    environments: schemas/* array */.YOg(schemas/* object */.Ikc({ name: schemas/* optional */.lqM(schemas/* string */.YjP().check(api/* _maxLength */.Eb(255))) }))
        .check(api/* _maxLength */.Eb(100)),
}))
    .check(api/* _maxLength */.Eb(1_000));
/** A `deployment_review` delivery: reviewers approved or rejected a run's environments. */
const deploymentReviewSchema = schemas/* object */.Ikc({
    action: schemas/* string */.YjP().check(api/* _maxLength */.Eb(64)),
    workflow_run: schemas/* object */.Ikc({ id }),
    repository,
});
const workflowRunSchema = schemas/* object */.Ikc({
    action: schemas/* string */.YjP().check(api/* _maxLength */.Eb(64)),
    workflow_run: runSchema,
    repository,
});
/**
 * The run id from `deployment_callback_url`, when that URL names this repository's
 * run: `\u2026/repos/{owner}/{repo}/actions/runs/{run_id}/deployment_protection_rule`.
 * The URL itself is never called: the app builds the route from its own API origin,
 * so a payload cannot send the installation token elsewhere.
 */
function runIdFromCallback(url, fullName) {
    let path;
    try {
        path = new URL(url).pathname;
    }
    catch {
        return undefined;
    }
    const match = /\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/([1-9]\d{0,19})\/deployment_protection_rule$/.exec(path);
    if (!match)
        return undefined;
    const [, owner = '', repo = '', runId] = match;
    return `${owner}/${repo}`.toLowerCase() === fullName.toLowerCase() ? runId : undefined;
}

;// CONCATENATED MODULE: ./src/lease/take-up.ts

/**
 * Take-up: the protection-rule app (`lease-gate app`) queues a job before it has a
 * runner, under a DID of the job's own run, and approves the job once the lease is
 * granted. The job's step cannot know the app's DID in advance (its own DID ends in a
 * random nonce, and GitHub's event does not name the job), so the step takes up a
 * lease held by a DID of its own run and attempt that ends in this marker: the app's.
 *   \u2026:runs:<run>:attempts:<n>:jobs:<job or %2A>:protection-rule-<deployment id>
 */
const APP_NONCE_PREFIX = 'protection-rule-';
/** The job segment when the app's rule does not name the job: `*`, never a job id. */
const ANY_JOB = '*';
/** The DID the app queues a run's deployment under (the action's encoder). */
function appDid(run, deploymentId) {
    const host = new URL(run.serverUrl).host;
    const [owner = '', repo = ''] = run.repository.split('/');
    const parts = [(0,plane_did/* didSegment */.f4)(host), (0,plane_did/* didSegment */.f4)(owner), (0,plane_did/* didSegment */.f4)(repo), 'actions', 'runs'];
    parts.push((0,plane_did/* didSegment */.f4)(run.runId), 'attempts', (0,plane_did/* didSegment */.f4)(run.runAttempt));
    parts.push('jobs', (0,plane_did/* didSegment */.f4)(run.job), `${APP_NONCE_PREFIX}${deploymentId}`);
    return `did:web:${parts.join(':')}`;
}
/**
 * May the step whose DID is `ownDid` take up a lease held by `holder`? Only when
 * both are run DIDs of the same host, repository, run and attempt, the holder's
 * job is this job (or any job), and the holder's nonce is the app's.
 */
function mayTakeUp(ownDid, holder) {
    const own = parseRunDid(ownDid);
    const theirs = parseRunDid(holder);
    if (!own || !theirs || ownDid === holder)
        return false;
    const same = own.host === theirs.host &&
        own.repository === theirs.repository &&
        own.runId === theirs.runId &&
        own.attempt === theirs.attempt;
    const [ownJob] = ownDid.split(':').slice(-2);
    const [job, nonce = ''] = holder.split(':').slice(-2);
    const jobOk = job === ownJob || job === didSegment(ANY_JOB);
    return same && jobOk && new RegExp(`^${APP_NONCE_PREFIX}[1-9]\\d{0,19}$`).test(nonce);
}

;// CONCATENATED MODULE: ./src/app/gate.ts


function newGateState(startedAt) {
    return {
        active: new Map(),
        awaitingReview: new Map(),
        working: new Set(),
        recovering: Promise.resolve(),
        shut: new AbortController(),
        startedAt,
    };
}
/** Counts `work` as under way until it settles (close waits for it). */
function track(state, work) {
    state.working.add(work);
    return work.finally(() => state.working.delete(work));
}
const runKey = (repository, runId) => `${repository.toLowerCase()}#${runId}`;
/** The run is over: its wait ends (once; a shutdown already under way keeps its reason). */
function endRun(wait) {
    if (wait.why)
        return;
    wait.why = 'run-completed';
    wait.cancel.abort();
}
/** The DID a run's lease-gate step takes up under `rule` (lease/take-up.ts): the app queues as it. */
function runDid(config, run, rule, runAttempt) {
    return appDid({
        serverUrl: config.githubServerUrl,
        repository: run.repository,
        runId: run.runId,
        runAttempt: String(runAttempt),
        job: rule.job ?? ANY_JOB,
    }, run.deploymentId);
}
/** The one call that answers a run's rule for `environment`, logged; a failure to send is logged too. */
function reviewer({ github, log }, installation, repo, runId, environment, tag) {
    const review = async (state, comment) => {
        log(`${tag}: ${state}: ${comment}`);
        await github
            .review(installation, repo, runId, {
            environment_name: environment,
            state,
            comment: comment.slice(0, 1_000),
        })
            .catch((error) => log(`${tag}: could not send '${state}': ${(0,errors/* errorMessage */.gJ)(error)}`));
    };
    return Object.assign(review, { environment });
}

;// CONCATENATED MODULE: ./src/app/adopt.ts







async function adoptApproved(found, options) {
    const left = [];
    for (const request of found) {
        if (options.signal.aborted)
            return left;
        const approved = await approvedRun(request, options).catch((error) => {
            options.log(`recovery: delivery ${request.delivery.id}: could not tell whether its run was approved (${(0,errors/* errorMessage */.gJ)(error)}); queued again`);
            return 'waiting';
        });
        if (approved === 'waiting')
            left.push(request);
        else if (approved) {
            options.log(`recovery: ${approved.tag}: approved before the restart, and its lease ${approved.lease.id} is still held by its DID: kept for its job to take up, at most ${(0,duration/* formatDuration */.a3)(options.config.takeUpGraceMs)} or until the run ends`);
            options.keep(approved);
        }
    }
    return left;
}
/** `waiting`: queue it again; an ApprovedRun: keep its lease; undefined: nothing to do. */
async function approvedRun(request, { config, github, plane, signal }) {
    const parsed = protectionRuleSchema.safeParse(request.delivery.payload);
    // What cannot be read here is left to the gatekeeper, which says why it drops it.
    if (!parsed.success || parsed.data.action !== 'requested')
        return 'waiting';
    const event = parsed.data;
    const repository = event.repository.full_name;
    const runId = runIdFromCallback(event.deployment_callback_url, repository);
    const rule = findRule(config.rules, repository, event.environment);
    if (!runId || !rule)
        return 'waiting';
    const repo = (0,plane_did/* parseRepository */.SU)(repository);
    const installation = event.installation.id;
    const run = await github.getRun(installation, repo, runId);
    if (run.status === 'waiting')
        return 'waiting';
    if (run.status === 'completed')
        return undefined;
    const did = runDid(config, { repository, runId, deploymentId: event.deployment.id }, rule, run.runAttempt);
    const lease = await plane.status(rule.resource, { signal });
    if (lease?.holder !== did)
        return undefined;
    const environment = (0,lease_escape/* untrusted */.bp)(event.environment, 255);
    return {
        tag: `run ${runId} of ${repository} (environment ${environment})`,
        did,
        resource: rule.resource,
        installation,
        repository,
        repo,
        runId,
        environment: event.environment,
        lease,
    };
}

// EXTERNAL MODULE: ./src/github/rest.ts
var rest = __webpack_require__(6417);
;// CONCATENATED MODULE: ./src/app/hook-deliveries.ts


/** The two delivery calls over `get` (a GET as the App, retried like every call). */
function hookDeliveries(get) {
    return {
        async listDeliveries({ sinceMs, maxItems }) {
            const found = [];
            let cursor;
            for (let page = 0; page < MAX_DELIVERY_PAGES; page += 1) {
                const query = `per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
                const answer = await get(`/app/hook/deliveries?${query}`);
                const items = schemas/* array */.YOg(hookDeliverySchema).safeParse((0,rest/* parseJson */.qF)(answer.text));
                if (!items.success) {
                    throw new rest/* GitHubError */.y_("GET /app/hook/deliveries: GitHub's answer is not a list of deliveries", { status: answer.status });
                }
                for (const item of items.data) {
                    const deliveredAtMs = Date.parse(item.delivered_at);
                    // Newest first: once past the window, every later item is older still.
                    if (!(deliveredAtMs >= sinceMs))
                        return found;
                    found.push({
                        id: item.id,
                        guid: item.guid,
                        deliveredAtMs,
                        redelivery: item.redelivery,
                        statusCode: item.status_code,
                        event: item.event,
                        action: item.action ?? null,
                    });
                    if (found.length >= maxItems)
                        return found;
                }
                cursor = nextCursor((0,rest/* headerOf */.rR)(answer, 'link'));
                if (!cursor)
                    return found;
            }
            return found;
        },
        async deliveryPayload(id) {
            const answer = await get(`/app/hook/deliveries/${id}`);
            const detail = deliveryDetailSchema.safeParse((0,rest/* parseJson */.qF)(answer.text));
            return detail.success ? (detail.data.request.payload ?? undefined) : undefined;
        },
    };
}
/** At most this many pages of 100 deliveries are read at start (GitHub keeps 3 days of them). */
const MAX_DELIVERY_PAGES = 30;
const hookDeliverySchema = schemas/* object */.Ikc({
    id: schemas/* number */.aig().check(schemas/* int */.Whr(), api/* _positive */.NC()),
    guid: schemas/* string */.YjP().check(api/* _maxLength */.Eb(100)),
    delivered_at: schemas/* string */.YjP().check(api/* _maxLength */.Eb(40)),
    redelivery: schemas/* boolean */.zMY(),
    status_code: schemas/* number */.aig(),
    event: schemas/* string */.YjP().check(api/* _maxLength */.Eb(64)),
    action: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* string */.YjP().check(api/* _maxLength */.Eb(64)))),
});
const deliveryDetailSchema = schemas/* object */.Ikc({
    request: schemas/* object */.Ikc({ payload: schemas/* optional */.lqM(schemas/* nullable */.mee(schemas/* unknown */.L5J())) }),
});
/**
 * The `cursor` of the Link header's `rel="next"`, never its URL: the next page is
 * asked of the configured API origin, so a header cannot send the App JWT elsewhere.
 */
function nextCursor(link) {
    for (const part of (link ?? '').split(',')) {
        const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
        if (!match)
            continue;
        try {
            const cursor = new URL(match[1]).searchParams.get('cursor');
            return cursor && cursor.length <= 200 ? cursor : undefined;
        }
        catch {
            return undefined;
        }
    }
    return undefined;
}

;// CONCATENATED MODULE: ./src/app/github-runs.ts


/** The run calls over `call` (as the installation, retried like every call). */
function runCalls(call) {
    return {
        async getRun(installationId, repo, runId) {
            const answer = await call('GET', installationId, `${repoPath(repo)}/actions/runs/${runId}`);
            // The REST run has the webhook's run shape: one schema for both.
            const run = runSchema.safeParse((0,rest/* parseJson */.qF)(answer.text));
            const attempt = run.success ? (run.data.run_attempt ?? 1) : 0;
            if (!run.success || attempt > 999_999) {
                throw new rest/* GitHubError */.y_(`run ${runId}: GitHub's answer has no status or run_attempt`, {
                    status: answer.status,
                });
            }
            return { status: run.data.status, runAttempt: attempt };
        },
        reviewers: (installationId, repo, runId, environment) => reviewers(call, installationId, repo, runId, environment),
        async review(installationId, repo, runId, body, attempt) {
            await call('POST', installationId, `${repoPath(repo)}/actions/runs/${runId}/deployment_protection_rule`, body, attempt);
        },
        async deploymentStatus(installationId, repo, deploymentId, description) {
            await call('POST', installationId, `${repoPath(repo)}/deployments/${deploymentId}/statuses`, {
                state: 'queued',
                description: description.slice(0, 140),
            });
        },
    };
}
async function reviewers(call, installationId, repo, runId, environment) {
    const path = `${repoPath(repo)}/environments/${encodeURIComponent(environment)}`;
    const env = environmentSchema.safeParse((0,rest/* parseJson */.qF)((await call('GET', installationId, path)).text));
    if (!env.success)
        throw new rest/* GitHubError */.y_(`environment ${environment}: GitHub's answer has no protection_rules`, {
            status: 200,
        });
    if (!env.data.protection_rules?.some((r) => r.type === 'required_reviewers'))
        return 'none';
    const answer = await call('GET', installationId, `${repoPath(repo)}/actions/runs/${runId}/approvals`);
    const reviews = approvalsSchema.safeParse((0,rest/* parseJson */.qF)(answer.text));
    if (!reviews.success)
        throw new rest/* GitHubError */.y_(`run ${runId}: GitHub's approvals answer is not a list of reviews`, {
            status: 200,
        });
    // Newest last, as GitHub lists them: the latest review of this environment decides.
    let state = 'waiting';
    for (const review of reviews.data) {
        if (!review.environments.some((e) => e.name === environment))
            continue;
        if (review.state === 'approved' || review.state === 'rejected')
            state = review.state;
    }
    return state;
}
const repoPath = (repo) => `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`;

// EXTERNAL MODULE: ./node_modules/@octokit/auth-app/dist-node/index.js + 9 modules
var dist_node = __webpack_require__(6479);
// EXTERNAL MODULE: ./node_modules/@octokit/request/dist-bundle/index.js + 3 modules
var dist_bundle = __webpack_require__(9942);
// EXTERNAL MODULE: ./src/http/errors.ts
var http_errors = __webpack_require__(8549);
// EXTERNAL MODULE: ./src/http/url-display.ts
var url_display = __webpack_require__(3390);
;// CONCATENATED MODULE: ./src/http/fetch.ts


/**
 * A `fetch` over the one HTTP client, for libraries that take a fetch of their own
 * (`@octokit/request`'s `request.fetch`, which `@octokit/auth-app` uses for the App's
 * token exchange): their requests then keep the client's timeouts, proxy rules
 * (loopback never proxied) and bounded answers instead of the global fetch's.
 * Only what those callers send is taken: GET or POST, a string body, plain headers.
 */
function fetchOver(http) {
    return async (input, init = {}) => {
        const url = input instanceof Request ? input.url : String(input);
        const method = (init.method ?? 'GET').toUpperCase();
        const call = `[${method}] "${(0,url_display/* urlForDisplay */.B)(url)}"`;
        if (method !== 'GET' && method !== 'POST') {
            throw new http_errors/* HttpError */.j(`${call}: only GET and POST go through this client`, {
                failure: 'network',
                call,
            });
        }
        if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
            throw new http_errors/* HttpError */.j(`${call}: only a text body goes through this client`, {
                failure: 'network',
                call,
            });
        }
        const answer = await http.send({
            method,
            url,
            headers: Object.fromEntries(new Headers(init.headers).entries()),
            body: init.body ?? undefined,
            signal: init.signal ?? undefined,
        });
        if (answer.status < 200 || answer.status > 599) {
            throw new http_errors/* HttpError */.j(`${call}: answered status ${answer.status}`, {
                failure: 'network',
                call,
            });
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
                headers.append(name, one);
        }
        // A Response may not carry a body with these statuses.
        const empty = [204, 205, 304].includes(answer.status);
        const response = new Response(empty ? null : answer.text, { status: answer.status, headers });
        Object.defineProperty(response, 'url', { value: url });
        return response;
    };
}

// EXTERNAL MODULE: ./src/plane/retry.ts
var retry = __webpack_require__(3860);
;// CONCATENATED MODULE: ./src/app/github-transport.ts




const RETRY = { baseMs: 500, capMs: 15_000, maxAttempts: 12 };
const USER_AGENT = 'lease-gate-app';
function transport(options) {
    return { options, budgetMs: options.budgetMs ?? 120_000, policy: options.retry ?? RETRY };
}
function stopped(what, signal) {
    if (!signal?.aborted)
        return;
    // No final answer: a POST in flight may have been applied (mayHaveApplied says so).
    throw new rest/* GitHubError */.y_(`${what}: stopped before GitHub's answer`, { status: 0 });
}
/** Retries `attempt` while it says how long to wait, within the budget; `signal` ends it. */
async function retrying(t, what, attempt, signal = t.options.signal) {
    const until = t.options.clock.now() + t.budgetMs;
    for (let n = 0;; n += 1) {
        stopped(what, signal);
        const result = await attempt();
        if (!isRetry(result))
            return result;
        const left = until - t.options.clock.now();
        if (n + 1 >= t.policy.maxAttempts || result.retryInMs > left) {
            throw new rest/* GitHubError */.y_(`${what}: ${result.why}; gave up after ${n + 1} attempts`, {
                status: 0,
            });
        }
        await t.options.sleep(result.retryInMs, signal);
    }
}
function createCall(t, bearers) {
    const stopping = t.options.signal;
    /** The app's stop and a call's own signal, either of which ends the call. */
    const either = (signal) => signal && stopping ? AbortSignal.any([signal, stopping]) : (signal ?? stopping);
    return async (method, as, path, body, controls = {}) => {
        let attempt = 0;
        let refreshed = false;
        const signal = either(controls.signal);
        const what = `${method} ${path}`;
        return retrying(t, what, async () => {
            attempt += 1;
            const bearer = as === 'app' ? await bearers.appJwt() : await bearers.token(as, false);
            await controls.beforeEach?.();
            stopped(what, signal);
            return send(t, { method, path, bearer, body, signal }, attempt, () => {
                if (refreshed)
                    return false;
                refreshed = true;
                return true;
            }).then(async (answer) => {
                if (answer !== 'refresh')
                    return answer;
                if (as !== 'app')
                    await bearers.token(as, true);
                return { retryInMs: 0, why: 'token refused' };
            });
        }, signal);
    };
}
/** One attempt: the answer, how long to wait before the next, or `refresh` (a 401, once). */
async function send({ options, policy }, { method, path, bearer, body, signal }, attempt, mayRefresh) {
    let answer;
    try {
        answer = await options.http.send({
            method,
            url: `${options.apiUrl}${path}`,
            headers: {
                ...(0,rest/* restHeaders */.xf)(bearer, USER_AGENT),
                ...(body ? { 'content-type': 'application/json' } : {}),
            },
            body: body ? JSON.stringify(body) : undefined,
            ...(signal ? { signal } : {}),
        });
    }
    catch (error) {
        stopped(`${method} ${path}`, signal);
        if (!(error instanceof http_errors/* HttpError */.j) || error.failure === 'cancelled')
            throw error;
        options.onAttempt?.(undefined);
        return { retryInMs: (0,retry/* backoffMs */.jo)(policy, attempt, options.random), why: error.message };
    }
    options.onAttempt?.(answer.status);
    if (answer.status < 300)
        return answer;
    // A token GitHub no longer takes (revoked, or the clock moved): one fresh one.
    if (answer.status === 401 && mayRefresh())
        return 'refresh';
    const wait = (0,rest/* retryWait */.fN)(answer, options.wallNow(), policy, attempt, options.random);
    if (wait !== undefined)
        return { retryInMs: wait, why: `GitHub answered ${answer.status}` };
    throw new rest/* GitHubError */.y_(`${method} ${path}: GitHub answered ${answer.status}: ${(0,lease_escape/* untrusted */.bp)((0,rest/* answerMessage */.Mw)(answer.text), 200)}`, { status: answer.status });
}
const isRetry = (value) => typeof value === 'object' && value !== null && 'retryInMs' in value && 'why' in value;

;// CONCATENATED MODULE: ./src/app/github-token.ts









/** A token expiring sooner than this is fetched again. */
const REFRESH_BEFORE_MS = 5 * 60_000;
function appBearers(t, key) {
    const { apiUrl, http, signal } = t.options;
    const auth = (0,dist_node/* createAppAuth */.K)({
        appId: key.appId,
        privateKey: key.privateKey,
        // The token exchange goes through the one HTTP client too: its timeouts, its proxy rules.
        request: dist_bundle/* request */.E.defaults({
            baseUrl: apiUrl,
            headers: { 'user-agent': USER_AGENT },
            // The app's stop cuts a token exchange in flight too.
            request: { fetch: fetchOver(http), ...(signal ? { signal } : {}) },
        }),
    });
    return {
        token: (installationId, refresh) => token(t, auth, installationId, refresh),
        appJwt: () => appJwt(auth),
    };
}
async function token(t, auth, installationId, refresh) {
    let attempts = 0;
    return retrying(t, `installation ${installationId} token`, async () => {
        try {
            const got = await auth({
                type: 'installation',
                installationId,
                ...(refresh ? { refresh } : {}),
            });
            if (!refresh && Date.parse(got.expiresAt) - t.options.wallNow() < REFRESH_BEFORE_MS) {
                return token(t, auth, installationId, true);
            }
            return got.token;
        }
        catch (error) {
            if (error instanceof rest/* GitHubError */.y_)
                throw error;
            // No answer (the client's timeout, a network failure): octokit wraps the client's
            // HttpError as a status 500; back off as for any other call, saying what happened.
            const failed = error.cause;
            if (failed instanceof http_errors/* HttpError */.j) {
                if (failed.failure === 'cancelled')
                    throw failed;
                attempts += 1;
                return { retryInMs: (0,retry/* backoffMs */.jo)(t.policy, attempts, t.options.random), why: failed.message };
            }
            return tokenAnswered(t, installationId, error);
        }
    });
}
/** GitHub answered the token exchange with a refusal: how long to wait before asking again, or the error. */
function tokenAnswered({ options, policy }, installationId, error) {
    const status = Number(error.status ?? 0);
    const headers = error.response?.headers ?? {};
    const wait = (0,rest/* retryWait */.fN)({ status, headers }, options.wallNow(), policy, 0, options.random);
    if (wait !== undefined)
        return { retryInMs: wait, why: `GitHub answered ${status || 'nothing'}` };
    if (status === 404 || status === 401 || status === 403) {
        throw new rest/* GitHubError */.y_(`installation ${installationId}: GitHub refused a token (${status}): not installed, suspended, or the App id or key is wrong`, { status });
    }
    throw new rest/* GitHubError */.y_(`installation ${installationId} token: ${(0,lease_escape/* untrusted */.bp)((0,errors/* causeText */.xv)(error), 200)}`, {
        status,
        cause: error,
    });
}
/** The App's own JWT (for `/app/\u2026` routes), made by auth-app from the private key. */
async function appJwt(auth) {
    try {
        return (await auth({ type: 'app' })).token;
    }
    catch (error) {
        throw new rest/* GitHubError */.y_(`App JWT: ${(0,lease_escape/* untrusted */.bp)((0,errors/* causeText */.xv)(error), 200)}`, {
            status: 0,
            cause: error,
        });
    }
}

;// CONCATENATED MODULE: ./src/app/github.ts







/**
 * GitHub as the App installation: an App JWT from the private key and installation
 * tokens (github-token.ts), and the few REST calls the protection rule needs
 * (github-runs.ts, hook-deliveries.ts), each retried within a budget
 * (github-transport.ts): 5xx and network failures with back-off, rate limits (429, or
 * 403 with `retry-after` / `x-ratelimit-remaining: 0`) after the time GitHub names.
 */
/**
 * Whether a failed POST may still have been applied by GitHub: no final answer (a
 * network failure, 5xx past the retry budget) may have been; a 4xx answer was not.
 */
function mayHaveApplied(error) {
    return !(error instanceof rest/* GitHubError */.y_ && error.status >= 400 && error.status < 500);
}
function createGitHubApp(options) {
    const t = transport(options);
    const bearers = appBearers(t, options);
    const call = createCall(t, bearers);
    return {
        ...hookDeliveries((path) => call('GET', 'app', path)),
        ...runCalls(call),
        token: (id) => bearers.token(id, false),
    };
}

;// CONCATENATED MODULE: ./src/app/approval.ts





/** The plane no longer shows this run holding the lease it was granted: never approve it. */
class LeaseGoneError extends errors/* LeaseGateError */.eg {
    name = 'LeaseGoneError';
    constructor(message, options = {}) {
        super(message, { ...options, code: 'lease_revoked' });
    }
}
/** Renews `held` until stopped or lost; how long it is wanted is set once the approval is final. */
function keepAlive(held, signal, clock) {
    let until = Infinity;
    const stop = new AbortController();
    const ended = new AbortController();
    const done = held
        .keep({
        signal: AbortSignal.any([signal, stop.signal]),
        stillWanted: () => clock.now() < until,
    })
        .finally(() => ended.abort());
    return {
        done,
        /** Aborted once the keeper stopped, whatever the reason: an approval in flight must stop too. */
        ended: ended.signal,
        keepFor: (ms) => void (until = clock.now() + ms),
        stop: async () => {
            stop.abort();
            return done;
        },
    };
}
/** Is `lease` still this run's, as the plane says now? Throws LeaseGoneError when not (or unknown). */
async function stillHeld(plane, lease, signal) {
    let now;
    try {
        now = await plane.status(lease.resource, { signal });
    }
    catch (error) {
        throw new LeaseGoneError(`the plane could not say who holds ${lease.resource} (${(0,errors/* errorMessage */.gJ)(error)})`, { cause: error });
    }
    if (now?.holder === lease.holder && now.id === lease.id && now.fence === lease.fence)
        return;
    const by = now ? `lease ${now.id} of ${(0,lease_escape/* untrusted */.bp)(now.holder, 300)}` : 'nobody';
    throw new LeaseGoneError(`lease ${lease.id} of ${lease.resource} is no longer this run's (the plane shows ${by})`);
}
function createApprover(options) {
    return {
        /** Approves once the grant is made; `renewal`: this run held the lease before this request. */
        approve: (s, held, renewal) => approve(options, s, held, renewal),
        /** Keeps an approved run's lease for the take-up grace (from now), then says how it ended. */
        async keepForTakeUp(s, held) {
            const keeper = keepAlive(held, s.wait.cancel.signal, options.clock);
            keeper.keepFor(options.config.takeUpGraceMs);
            await afterApproval(options, s, held, await keeper.done);
        },
    };
}
/** How long an approved run's lease is kept, as the log says it. */
const keptFor = (config) => `kept for the job to take up, at most ${(0,duration/* formatDuration */.a3)(config.takeUpGraceMs)} or until the run ends`;
const fenceOf = (lease) => (lease.fence === undefined ? 'none' : String(lease.fence));
async function approve(options, s, held, renewal) {
    const { config, github, clock, log } = options;
    const { lease } = held;
    const fence = fenceOf(lease);
    const comment = `lease-gate: ${s.resource} granted to this run as ${lease.holder}: lease ${lease.id}, fence ${fence}, plane ${config.planeUrl}. The job's lease-gate step takes it up; it lapses if no step has within ${(0,duration/* formatDuration */.a3)(config.takeUpGraceMs)}.`;
    const keeper = keepAlive(held, s.wait.cancel.signal, clock);
    const stop = AbortSignal.any([keeper.ended, s.wait.cancel.signal]);
    try {
        await github.review(s.installation, s.repo, s.runId, { environment_name: s.review.environment, state: 'approved', comment }, { signal: stop, beforeEach: () => stillHeld(options.plane, lease, stop) });
        log(`${s.tag}: approved after ${(0,duration/* formatDuration */.a3)(held.waitedMs)}: ${s.resource} lease ${lease.id}, fence ${fence}; ${keptFor(config)}`);
    }
    catch (error) {
        if (!s.wait.cancel.signal.aborted &&
            (error instanceof LeaseGoneError || keeper.ended.aborted)) {
            return lost(log, s, held, keeper, error);
        }
        if (!kept(options, s, error, lease, renewal)) {
            await keeper.stop();
            const released = await held.release();
            log(`${s.tag}: approval refused (${(0,errors/* errorMessage */.gJ)(error)}); lease ${lease.id} ${released.kind === 'released' ? 'given back' : 'left to lapse'}`);
            return;
        }
    }
    keeper.keepFor(config.takeUpGraceMs);
    await afterApproval(options, s, held, await keeper.done);
}
/** The lease ended before GitHub took the approval: nothing more is sent but a rejection. */
async function lost(log, s, held, keeper, error) {
    const status = await keeper.stop();
    const why = error instanceof LeaseGoneError
        ? error.message
        : `lease ${held.lease.id} ended before GitHub answered (${status.lost?.reason ?? 'renewals failed'})`;
    // Nothing is given back: a lease the plane could not show is not known to be gone, and
    // an earlier attempt GitHub applied unheard may have let the job take it up.
    log(`${s.tag}: not approved: ${why}`);
    await s.review('rejected', `lease-gate: ${s.resource} was granted to this run, but the lease ended before GitHub took the approval (${why}); not approved. Re-run the job to queue again.`);
}
/** After a failed approval call: is the lease kept (the rule may be approved), or given back? */
function kept({ config, log }, s, error, lease, renewal) {
    const fence = fenceOf(lease);
    if (error instanceof rest/* GitHubError */.y_ && error.status === 422) {
        // The rule is decided already: approved (by this app before a restart, by another
        // replica, or by a call GitHub applied and answered 5xx) or rejected. An approved
        // job may be deploying under this lease now: giving it back would let the next run
        // in beside it. A rejected run ends, and the run check gives the lease back then.
        log(`${s.tag}: GitHub says the rule is already decided (${(0,errors/* errorMessage */.gJ)(error)}); lease ${lease.id}, fence ${fence} ${keptFor(config)}`);
        return true;
    }
    if (mayHaveApplied(error)) {
        // No final answer: GitHub may have approved. Kept; it lapses if no job takes it up.
        log(`${s.tag}: the approval may have been applied (${(0,errors/* errorMessage */.gJ)(error)}); lease ${lease.id}, fence ${fence} ${keptFor(config)}`);
        return true;
    }
    if (renewal) {
        // A 4xx but 422 on a lease this DID held before the ask (a redelivery after a
        // restart, GitHub answering 404 or 403): the run was approved earlier and its job may
        // deploy under this very lease. Kept, as for 422.
        log(`${s.tag}: approval refused (${(0,errors/* errorMessage */.gJ)(error)}), but this run held lease ${lease.id} before this request: fence ${fence} ${keptFor(config)}`);
        return true;
    }
    // A 4xx but 422 is a refusal of the call itself, and this ask granted the lease:
    // nothing was approved under it.
    return false;
}
async function afterApproval({ log }, s, held, kept) {
    const { lease } = held;
    if (s.wait.why === 'run-completed') {
        // The run is over, post steps included: nobody can hold this lease for it any more.
        const released = await held.release();
        log(`${s.tag}: the run completed; ${released.kind === 'released' ? `gave back lease ${lease.id}` : 'nothing left to give back'}`);
        return;
    }
    // A revoked lease nobody took up yet is given back at once: the next run need not
    // wait out the kernel's lock-delay for a job that may never start.
    const gaveBack = kept.lost?.reason === 'revoked' && (await held.release()).kind !== 'failed';
    const how = kept.ended?.why === 'not-wanted'
        ? 'the take-up grace ended: the job keeps it alive, or it lapses'
        : kept.lost?.reason === 'revoked'
            ? `an operator revoked it: ${(0,lease_escape/* untrusted */.bp)(kept.lost.message ?? 'no reason given', 300)}; ${gaveBack ? 'gave it back' : 'could not give it back (it lapses)'}, the job's step cannot take it up`
            : kept.lost
                ? `it ended (${kept.lost.reason}): the job gave it back`
                : `stopped (${kept.ended?.why ?? 'unknown'})`;
    log(`${s.tag}: stopped renewing lease ${lease.id}: ${how}`);
}

;// CONCATENATED MODULE: ./src/app/reviewers.ts




/** How often a run waiting for its reviewers is looked at: from 5 s, doubling to a minute (a review delivery wakes it sooner). */
const REVIEW_FIRST_LOOK_MS = 5_000;
const REVIEW_MAX_LOOK_MS = 60_000;
/** True once the run may join the queue of `resource`; false when it must not (rejected, ended, too long). */
async function reviewersApproved(gate, r, resource, arrival, review) {
    const { config, github, clock, log } = gate;
    const deadline = clock.now() + config.maxWaitMs;
    let lookMs = REVIEW_FIRST_LOOK_MS;
    let waited = false;
    while (!r.wait.cancel.signal.aborted) {
        let state;
        try {
            state = await github.reviewers(r.installation, r.repo, r.runId, r.environment);
        }
        catch (error) {
            log(`${r.tag}: could not read where its required reviewers stand (${(0,errors/* errorMessage */.gJ)(error)}); it joins the queue now`);
            return true;
        }
        if (state === 'none' || state === 'approved') {
            if (waited)
                log(`${r.tag}: its reviewers approved; it joins the queue of ${resource}`);
            return true;
        }
        if (state === 'rejected') {
            log(`${r.tag}: its reviewers rejected it; it does not join the queue of ${resource}`);
            return false;
        }
        if (!waited) {
            log(`${r.tag}: waits for its required reviewers before it joins the queue of ${resource}; it holds no place meanwhile`);
            // It has no place to take yet: the requests found again after it need not wait for it.
            arrival.placed?.();
            waited = true;
        }
        const left = deadline - clock.now();
        if (left <= 0) {
            await review('rejected', `lease-gate: its required reviewers did not approve it within the configured maximum wait (${(0,duration/* formatDuration */.a3)(config.maxWaitMs)}); not approved.`);
            return false;
        }
        await napOrReview(gate, r.wait, Math.min(lookMs, left));
        lookMs = Math.min(lookMs * 2, REVIEW_MAX_LOOK_MS);
    }
    return false;
}
/** Sleeps `ms`, or less: until the run ends or a review of it is delivered. */
async function napOrReview({ sleep, state }, wait, ms) {
    const nap = new AbortController();
    const wake = () => nap.abort();
    const wakers = state.awaitingReview.get(wait.runKey) ?? new Set();
    state.awaitingReview.set(wait.runKey, wakers.add(wake));
    wait.cancel.signal.addEventListener('abort', wake, { once: true });
    try {
        await sleep(ms, nap.signal);
    }
    finally {
        wait.cancel.signal.removeEventListener('abort', wake);
        wakers.delete(wake);
        if (wakers.size === 0)
            state.awaitingReview.delete(wait.runKey);
    }
}
/** A `deployment_review` delivery: the run it names, if it waits for its reviewers, looks now. */
function deploymentReview(state, delivery) {
    const parsed = deploymentReviewSchema.safeParse(delivery.payload);
    if (!parsed.success)
        return;
    const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
    for (const wake of state.awaitingReview.get(key) ?? [])
        wake();
}

// EXTERNAL MODULE: ./src/gate/wait.ts
var wait = __webpack_require__(4146);
// EXTERNAL MODULE: ./src/lease/did.ts
var did = __webpack_require__(623);
// EXTERNAL MODULE: ./src/lease/session.ts + 2 modules
var session = __webpack_require__(6267);
// EXTERNAL MODULE: ./src/plane/errors.ts
var plane_errors = __webpack_require__(3291);
;// CONCATENATED MODULE: ./src/app/run-gate.ts









/**
 * A run waiting for its gate: it takes a place in the resource's queue under its DID,
 * waits (blocking acquire), and is approved when granted (approval.ts), or rejected with
 * the reason; while it waits or is kept, a run that ends leaves the queue.
 */
const PROGRESS_EVERY_MS = 60_000;
const sessionFor = (gate, did, resource) => (0,session/* openSession */.f)({
    apiUrl: gate.config.planeUrl,
    key: gate.config.planeKey,
    resource,
    actorDid: did,
    client: gate.plane,
    clock: gate.clock,
    sleep: gate.sleep,
    random: gate.random,
    wallNow: gate.wallNow,
});
/** A run approved before a restart whose DID still holds its lease (adopt.ts): kept as after an approval. */
function keepApproved(gate, run) {
    const { active } = gate.state;
    if (active.has(run.did))
        return;
    const wait = { runKey: runKey(run.repository, run.runId), cancel: new AbortController() };
    active.set(run.did, wait);
    const review = reviewer(gate, run.installation, run.repo, run.runId, run.environment, run.tag);
    const s = { ...run, wait, review };
    const watching = new AbortController();
    const watch = watchRun(gate, s, watching.signal);
    void track(gate.state, gate.approver
        .keepForTakeUp(s, sessionFor(gate, run.did, run.resource).held(run.lease))
        .finally(async () => {
        watching.abort();
        await watch;
        active.delete(run.did);
    }));
}
async function serve(gate, s) {
    const session = sessionFor(gate, s.did, s.resource);
    gate.log(`${s.tag}: queued for ${s.resource} as ${s.did}`);
    // Before the ask: a lease this DID holds already is one an approved job may deploy under.
    const before = await heldBefore(gate, session.client, s);
    const watching = new AbortController();
    const watch = watchRun(gate, s, watching.signal);
    try {
        let result;
        try {
            const report = heldReporter(gate, s);
            result = await session.acquire({
                timeoutMs: s.timeoutMs,
                signal: s.wait.cancel.signal,
                onHeld: (event) => {
                    s.placed();
                    return report(event);
                },
            });
            s.placed();
        }
        catch (error) {
            s.placed();
            return await refused(s, error);
        }
        if (result.outcome === 'cancelled') {
            gate.log(`${s.tag}: ${s.wait.why === 'shutdown' ? 'the app is stopping' : 'the run ended'} while it waited; left the queue of ${s.resource}`);
            return;
        }
        if (result.outcome === 'timeout') {
            return await s.review('rejected', `lease-gate: waited longer than the configured maximum (${(0,duration/* formatDuration */.a3)(gate.config.maxWaitMs)}) for ${s.resource}, still ${result.reserved ? 'reserved for' : 'held by'} ${(0,did/* shortHolder */.F9)(result.holder)}; not approved.`);
        }
        if (result.outcome === 'superseded') {
            // The app asks in FIFO order, so only a plane that supersedes on its own gets here.
            return await s.review('rejected', `lease-gate: a newer run took this run's place in the queue of ${s.resource}; not approved.`);
        }
        await gate.approver.approve(s, result.held, renews(before, result.held));
    }
    finally {
        watching.abort();
        await watch;
    }
}
/** The ask failed: the run is rejected, saying why. */
async function refused(s, error) {
    if (error instanceof wait/* LeaseRevokedError */.JU) {
        return s.review('rejected', `lease-gate: ${s.resource} is revoked for this run: ${error.operatorMessage}`);
    }
    const why = error instanceof wait/* LeaseRefusedError */.Nf
        ? `the plane refused ${s.resource}: ${error.reason}`
        : error instanceof plane_errors/* KeyRefusedError */.gy && error.status === 403
            ? // The kernel's policy or a scoped key: it names what the key may act as.
                `the plane does not let this run have ${s.resource}: ${(0,errors/* errorMessage */.gJ)(error)}`
            : `the plane failed: ${(0,errors/* errorMessage */.gJ)(error)}`;
    return s.review('rejected', `lease-gate: ${why}; not approved.`);
}
/**
 * What the plane says of the resource before this ask: the lease when this run's DID holds
 * it (after a restart, a redelivery: the run was approved and its job may hold it), none
 * when another or nobody does, `unknown` when the plane could not say.
 */
async function heldBefore({ log }, client, s) {
    try {
        const lease = await client.status(s.resource, { signal: s.wait.cancel.signal });
        return lease?.holder === s.did ? lease : undefined;
    }
    catch (error) {
        log(`${s.tag}: could not ask the plane who holds ${s.resource} (${(0,errors/* errorMessage */.gJ)(error)})`);
        return 'unknown';
    }
}
/**
 * True unless this ask newly granted the lease: the kernel keeps a lease's id on a renewal,
 * so the same id as before is the DID's own lease renewed, and an unknown before counts as
 * one (giving back a lease a job may deploy under is the worse mistake).
 */
function renews(before, held) {
    return before === 'unknown' || before?.id === held.lease.id;
}
function heldReporter({ config, github, log }, s) {
    let lastLineAt = -Infinity;
    return async (event) => {
        const by = `${event.reserved ? 'reserved for' : 'held by'} ${(0,did/* shortHolder */.F9)(event.holder)}`;
        if (!event.holderChanged && event.elapsedMs - lastLineAt < PROGRESS_EVERY_MS)
            return;
        lastLineAt = event.elapsedMs;
        log(`${s.tag}: waiting for ${s.resource}: ${(0,lease_escape/* untrusted */.bp)(by, 300)}; waited ${(0,duration/* formatDuration */.a3)(event.elapsedMs)}`);
        if (event.holderChanged && config.deploymentStatus) {
            await github
                .deploymentStatus(s.installation, s.repo, s.deploymentId, `lease-gate: waiting for ${s.resource}, ${by}`)
                .catch((error) => log(`${s.tag}: could not post the waiting status: ${(0,errors/* errorMessage */.gJ)(error)}`));
        }
    };
}
/** A bounded check of the run's status while it waits or is kept: a missed event must not keep a place. */
async function watchRun({ config, github, log, sleep }, s, stop) {
    while (!stop.aborted) {
        try {
            await sleep(config.runCheckEveryMs, stop);
        }
        catch {
            return;
        }
        if (stop.aborted)
            return;
        try {
            const run = await github.getRun(s.installation, s.repo, s.runId);
            if (run.status === 'completed')
                return endRun(s.wait);
        }
        catch (error) {
            log(`${s.tag}: could not check the run's status: ${(0,errors/* errorMessage */.gJ)(error)}`);
        }
    }
}
/** A `workflow_run` delivery: a completed run's waits end (it leaves the queue, its kept lease is given back). */
function workflowRun(state, delivery) {
    const parsed = workflowRunSchema.safeParse(delivery.payload);
    if (!parsed.success || parsed.data.action !== 'completed')
        return;
    const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
    for (const wait of state.active.values())
        if (wait.runKey === key)
            endRun(wait);
}

;// CONCATENATED MODULE: ./src/app/protection-rule.ts









/**
 * The protection rule's core: a `deployment_protection_rule` request takes a place in
 * the resource's queue under the DID the run's step takes up, waits (blocking acquire),
 * approves when granted, and keeps the lease for the take-up grace; a refusal, a
 * revoke or too long a wait rejects with the reason; a run that ends leaves the queue.
 */
/** More runs than this waiting at once are refused: every wait holds a little memory and a request. */
const MAX_WAITING = 1_000;
/** A kernel keeps a waiter's place for its held ask plus 2 s (kernel/rules/rules.ts); a little more. */
const STALE_PLACE_GRACE_MS = 3_000;
async function protectionRule(gate, delivery, arrival = {}) {
    if (arrival.recoveredSinceMs === undefined)
        await gate.state.recovering;
    const request = readRequest(gate, delivery);
    if (!request)
        return;
    const admitted = await admit(gate, request, arrival);
    if (!admitted)
        return;
    const { did, resource } = admitted;
    const { active } = gate.state;
    if (active.has(did)) {
        gate.log(`${request.tag}: already waiting as ${did}; this request is a repeat`);
        return;
    }
    const wait = {
        runKey: runKey(request.repository, request.runId),
        cancel: new AbortController(),
    };
    active.set(did, wait);
    // A request found again at start has waited since GitHub first delivered it.
    const waitedMs = arrival.recoveredSinceMs === undefined
        ? 0
        : Math.max(0, gate.wallNow() - arrival.recoveredSinceMs);
    try {
        if (arrival.recoveredSinceMs !== undefined && !(await placesLapsed(gate, request.tag, wait)))
            return;
        const { installation, repo, runId, tag, review } = request;
        const run = { installation, repo, runId, environment: request.environment.raw, tag, wait };
        if (!(await reviewersApproved(gate, run, resource, arrival, review)))
            return;
        await serve(gate, {
            timeoutMs: Math.max(0, gate.config.maxWaitMs - waitedMs),
            placed: arrival.placed ?? (() => { }),
            tag,
            did,
            resource,
            wait,
            installation,
            repo,
            runId,
            deploymentId: request.deploymentId,
            review,
        });
    }
    finally {
        active.delete(did);
    }
}
/** The request in `delivery`, or undefined (logged) when it is none the app answers. */
function readRequest(gate, delivery) {
    const parsed = protectionRuleSchema.safeParse(delivery.payload);
    if (!parsed.success) {
        gate.log(`delivery ${delivery.id}: not a deployment_protection_rule payload we can read; ignored`);
        return undefined;
    }
    const event = parsed.data;
    if (event.action !== 'requested')
        return undefined;
    const name = event.repository.full_name;
    const repo = (0,plane_did/* parseRepository */.SU)(name);
    const runId = runIdFromCallback(event.deployment_callback_url, name);
    const shown = (0,lease_escape/* untrusted */.bp)(event.environment, 255);
    if (!runId) {
        gate.log(`delivery ${delivery.id}: deployment_callback_url names no run of ${name}; ignored`);
        return undefined;
    }
    const tag = `run ${runId} of ${name} (environment ${shown})`;
    const installation = event.installation.id;
    return {
        repository: name,
        repo,
        runId,
        environment: { raw: event.environment, shown },
        deploymentId: event.deployment.id,
        installation,
        tag,
        review: reviewer(gate, installation, repo, runId, event.environment, tag),
    };
}
/**
 * The checks before a request may wait: the installation, the app's rule for it, room to
 * wait, a run still waiting. The DID its run's step takes up, or undefined (answered or logged).
 */
async function admit(gate, request, arrival) {
    const { config, github, log } = gate;
    const { repository, installation, tag, review } = request;
    try {
        // A token first: an installation GitHub does not know gets no place in any queue.
        await github.token(installation);
    }
    catch (error) {
        log(`${tag}: dropped: ${(0,errors/* errorMessage */.gJ)(error)}`);
        return undefined;
    }
    const rule = findRule(config.rules, repository, request.environment.raw);
    if (!rule) {
        await review('rejected', `lease-gate: no rule in the app's config for ${repository} and environment ${request.environment.shown}; not approved.`);
        return undefined;
    }
    if (gate.state.active.size >= MAX_WAITING) {
        await review('rejected', `lease-gate: ${MAX_WAITING} runs are already waiting; try again later.`);
        return undefined;
    }
    const run = await github.getRun(installation, request.repo, request.runId);
    if (run.status === 'completed') {
        log(`${tag}: the run has already completed; nothing to do`);
        return undefined;
    }
    if (arrival.recoveredSinceMs !== undefined && run.status !== 'waiting') {
        // Found again at start: only a run still waiting on a rule has one to answer.
        log(`${tag}: found again at start, but the run is ${(0,lease_escape/* untrusted */.bp)(run.status, 40)}: its rule is decided; nothing to do`);
        return undefined;
    }
    const did = runDid(config, request, rule, run.runAttempt);
    return { did, resource: rule.resource };
}
/**
 * A killed process's places in the plane's queue outlive it by one held ask and a
 * grace. Were the first recovered ask to come before they all lapse, a stale place
 * of a later run could stay ahead of an earlier run asking anew: the first order
 * would break. So recovered runs ask only once that long has passed since start.
 */
async function placesLapsed(gate, tag, wait) {
    const staleForMs = gate.plane.requestTimeoutMs + STALE_PLACE_GRACE_MS;
    const left = gate.state.startedAt + staleForMs - gate.clock.now();
    if (left <= 0)
        return true;
    gate.log(`${tag}: still waiting; asks again in ${(0,duration/* formatDuration */.a3)(left)}, once the places a previous process left in the queue have lapsed`);
    await gate.sleep(left, wait.cancel.signal);
    return !wait.cancel.signal.aborted;
}

;// CONCATENATED MODULE: ./src/app/gatekeeper.ts








/**
 * The protection rule's gatekeeper: it hands each delivery to the piece that answers it
 * (protection-rule.ts a request, run-gate.ts a run that ended, reviewers.ts a review),
 * queues again at start the requests a previous process left pending, and stops. Its
 * pieces share one state (gate.ts), made here.
 */
function createGatekeeper(options) {
    const { config, github, clock, log } = options;
    const approver = createApprover({ config, github, plane: options.plane, clock, log });
    const gate = { ...options, approver, state: newGateState(clock.now()) };
    const { state } = gate;
    async function onDelivery(delivery) {
        if (delivery.event === 'deployment_protection_rule') {
            return track(state, protectionRule(gate, delivery));
        }
        if (delivery.event === 'workflow_run')
            return workflowRun(state, delivery);
        if (delivery.event === 'deployment_review')
            return deploymentReview(state, delivery);
        if (delivery.event === 'ping')
            log(`delivery ${delivery.id}: ping from GitHub`);
    }
    return {
        onDelivery,
        recover: (find) => recover(gate, find),
        /** How many runs wait or are kept now. */
        waiting: () => state.active.size,
        /** Leaves every queue (a granted lease is left to the job or to lapse) and waits for the work. */
        async close() {
            state.shut.abort();
            for (const wait of state.active.values()) {
                wait.why ??= 'shutdown';
                wait.cancel.abort();
            }
            await Promise.allSettled([...state.working]);
            await state.recovering;
        },
    };
}
/**
 * Queues again the requests a previous process left pending, one at a time in their
 * first order (each has its place in the plane's queue before the next asks); live
 * deliveries wait until then. A failure to list is logged: the app serves on.
 */
function recover(gate, find) {
    const { log, state } = gate;
    const done = (async () => {
        let found;
        try {
            found = await find();
        }
        catch (error) {
            log(`recovery: could not read the App's recent deliveries: ${(0,errors/* errorMessage */.gJ)(error)}; pending runs wait for a redelivery`);
            return;
        }
        log(`recovery: ${found.length} protection-rule request(s) of the last deliveries to check again`);
        const { config, github, plane } = gate;
        const keep = (run) => keepApproved(gate, run);
        found = await adoptApproved(found, {
            config,
            github,
            plane,
            log,
            keep,
            signal: state.shut.signal,
        });
        for (const request of found) {
            if (state.shut.signal.aborted)
                return;
            let placed;
            const isPlaced = new Promise((resolve) => (placed = resolve));
            const work = track(state, protectionRule(gate, request.delivery, {
                recoveredSinceMs: request.firstDeliveredAtMs,
                placed,
            })).catch((error) => log(`recovery: delivery ${request.delivery.id} failed: ${(0,errors/* errorMessage */.gJ)(error)}`));
            await Promise.race([isPlaced, work]);
        }
    })();
    state.recovering = done;
    return done;
}

// EXTERNAL MODULE: ./node_modules/@octokit/webhooks-methods/dist-node/index.js
var webhooks_methods_dist_node = __webpack_require__(1054);
;// CONCATENATED MODULE: ./src/app/receiver.ts


const MAX_BODY_BYTES = 1024 * 1024;
const REMEMBER_DELIVERIES = 10_000;
const BODY_TIMEOUT_MS = 10_000;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;
/** A bounded set: the oldest id is forgotten first. */
class SeenDeliveries {
    max;
    ids = new Set();
    constructor(max) {
        this.max = max;
    }
    /** True when `id` was new (and is now remembered). */
    add(id) {
        if (this.ids.has(id))
            return false;
        this.ids.add(id);
        if (this.ids.size > this.max)
            this.ids.delete(this.ids.values().next().value);
        return true;
    }
}
function createReceiver(options) {
    const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
    const seen = new SeenDeliveries(options.rememberDeliveries ?? REMEMBER_DELIVERIES);
    const answer = (res, status, body) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    return async (req, res) => {
        const path = (req.url ?? '').split('?')[0];
        if (req.method !== 'POST' || path !== options.path) {
            return answer(res, 404, {
                ok: false,
                message: 'POST webhook deliveries to the configured path',
            });
        }
        const event = header(req, 'x-github-event');
        const id = header(req, 'x-github-delivery');
        const signature = header(req, 'x-hub-signature-256');
        // Only what the headers say before the signature is checked: escaped, bounded.
        const named = id && DELIVERY_ID.test(id) ? id : '(no valid X-GitHub-Delivery)';
        if (!signature) {
            // Unsigned is unauthenticated, the same answer as a signature that does not match.
            options.log(`delivery ${named}: refused, no X-Hub-Signature-256`);
            return answer(res, 401, { ok: false, message: 'expected X-Hub-Signature-256' });
        }
        const body = await readBounded(req, maxBody);
        if (body === undefined) {
            options.log(`delivery ${named}: refused, body over ${maxBody} bytes or too slow`);
            res.writeHead(413, { connection: 'close' }).end();
            req.destroy();
            return;
        }
        let valid = false;
        try {
            valid =
                /^sha256=[0-9a-f]{64}$/.test(signature) && (await (0,webhooks_methods_dist_node/* verify */.MX)(options.secret, body, signature));
        }
        catch {
            valid = false;
        }
        if (!valid) {
            options.log(`delivery ${named}: refused, bad signature`);
            return answer(res, 401, { ok: false, message: 'signature does not match' });
        }
        if (!event || !EVENT_NAME.test(event) || !id || !DELIVERY_ID.test(id)) {
            return answer(res, 400, {
                ok: false,
                message: 'expected X-GitHub-Event and X-GitHub-Delivery',
            });
        }
        if (!seen.add(id)) {
            options.log(`delivery ${id} (${event}): dropped, seen before`);
            return answer(res, 200, { ok: true, duplicate: true });
        }
        let payload;
        try {
            payload = JSON.parse(body);
        }
        catch {
            return answer(res, 400, { ok: false, message: 'the body is not JSON' });
        }
        answer(res, 202, { ok: true });
        setImmediate(() => {
            options.onDelivery({ id, event, payload }).catch((error) => {
                options.log(`delivery ${id} (${event}): failed: ${(0,errors/* errorMessage */.gJ)(error)}`);
            });
        });
    };
}
function header(req, name) {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
}
/** The body as text, or undefined once it is over `max` bytes or slower than the timeout. */
function readBounded(req, max) {
    return new Promise((resolve) => {
        const declared = Number(req.headers['content-length'] ?? '0');
        if (declared > max)
            return resolve(undefined);
        const chunks = [];
        let size = 0;
        const timer = setTimeout(() => done(undefined), BODY_TIMEOUT_MS);
        const done = (value) => {
            clearTimeout(timer);
            req.removeAllListeners('data');
            resolve(value);
        };
        req.on('data', (chunk) => {
            size += chunk.length;
            if (size > max)
                return done(undefined);
            chunks.push(chunk);
        });
        req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
        req.on('error', () => done(undefined));
    });
}

;// CONCATENATED MODULE: ./src/app/recovery.ts


/**
 * The app keeps its queue in memory: after a crash, runs that waited stay pending
 * (GitHub does not deliver again on its own). At start the app reads its own recent
 * deliveries from GitHub (`GET /app/hook/deliveries`, answered or not: a run that
 * waited was answered 202, one sent while the app was down failed) and the payload
 * of each protection-rule request (`GET /app/hook/deliveries/{id}`), one per run and
 * environment, oldest first. A run whose reviewers approved it (a `deployment_review`
 * delivery) takes its place at that approval, as it did live: at the back of the runs
 * that came before it. The gatekeeper then asks again only for runs GitHub still shows
 * `waiting`, and keeps the leases of runs approved before the restart (adopt.ts).
 */
/** GitHub keeps an App's deliveries for 3 days. */
const RECOVERY_WINDOW_MS = 3 * 24 * 3_600_000;
/** At most this many deliveries are listed, and this many requests read. */
const MAX_LISTED = 3_000;
const MAX_REQUESTS = 1_000;
async function findPendingRequests(options) {
    const { github, log } = options;
    const listed = await github.listDeliveries({
        sinceMs: options.wallNow() - (options.windowMs ?? RECOVERY_WINDOW_MS),
        maxItems: MAX_LISTED,
    });
    const requests = listed
        .filter((d) => d.event === 'deployment_protection_rule' && d.action === 'requested')
        .slice(0, MAX_REQUESTS);
    const reviewedAt = await reviewApprovals(options, listed);
    /** One per run and environment: placed at its first delivery, with its newest payload. */
    const byRule = new Map();
    for (const listedDelivery of requests) {
        let payload;
        try {
            payload = await github.deliveryPayload(listedDelivery.id);
        }
        catch (error) {
            log(`recovery: could not read delivery ${listedDelivery.id}: ${(0,errors/* errorMessage */.gJ)(error)}; skipped`);
            continue;
        }
        const parsed = protectionRuleSchema.safeParse(payload);
        if (!parsed.success)
            continue;
        const event = parsed.data;
        const runId = runIdFromCallback(event.deployment_callback_url, event.repository.full_name);
        if (!runId)
            continue;
        const run = `${event.repository.full_name.toLowerCase()}#${runId}`;
        const key = `${run}#${event.environment.toLowerCase()}`;
        const at = listedDelivery.deliveredAtMs;
        const order = listedDelivery.id;
        const known = byRule.get(key);
        const delivery = {
            id: `recovered-${listedDelivery.guid}`,
            event: 'deployment_protection_rule',
            payload,
        };
        if (!known)
            byRule.set(key, { run, first: at, firstId: order, newest: order, delivery });
        else {
            if (at < known.first || (at === known.first && order < known.firstId))
                Object.assign(known, { first: at, firstId: order });
            if (order > known.newest)
                Object.assign(known, { newest: order, delivery });
        }
    }
    const placed = [...byRule.values()].map((r) => {
        // Joined the queue when its reviewers approved, if that came after its request.
        const review = reviewedAt.get(r.run);
        const late = review && review.at >= r.first;
        return { ...r, at: late ? review.at : r.first, atId: late ? review.id : r.firstId };
    });
    return (placed
        // GitHub's delivered_at is to the second; its delivery ids rise in the order sent.
        .sort((a, b) => a.at - b.at || a.atId - b.atId)
        .map((r) => ({ delivery: r.delivery, firstDeliveredAtMs: r.first })));
}
/** When each run's reviewers last approved it (its newest `deployment_review` `approved`), by run. */
async function reviewApprovals(options, listed) {
    const found = new Map();
    const approvals = listed
        .filter((d) => d.event === 'deployment_review' && d.action === 'approved')
        .slice(0, MAX_REQUESTS);
    for (const listedDelivery of approvals) {
        let payload;
        try {
            payload = await options.github.deliveryPayload(listedDelivery.id);
        }
        catch (error) {
            options.log(`recovery: could not read delivery ${listedDelivery.id}: ${(0,errors/* errorMessage */.gJ)(error)}; skipped`);
            continue;
        }
        const parsed = deploymentReviewSchema.safeParse(payload);
        if (!parsed.success)
            continue;
        const key = `${parsed.data.repository.full_name.toLowerCase()}#${parsed.data.workflow_run.id}`;
        const known = found.get(key);
        if (!known || listedDelivery.id > known.id)
            found.set(key, { at: listedDelivery.deliveredAtMs, id: listedDelivery.id });
    }
    return found;
}

// EXTERNAL MODULE: ./node_modules/prom-client/index.js
var prom_client = __webpack_require__(5222);
// EXTERNAL MODULE: ./src/metrics/render.ts
var render = __webpack_require__(8497);
;// CONCATENATED MODULE: ./src/app/metrics.ts
/**
 * The App's Prometheus metrics on `GET /metrics`: runs waiting for the lease, the rule's
 * answers GitHub took (approved, rejected), and every GitHub call's outcome. Read with the
 * metrics key (LEASE_GATE_METRICS_KEY) as the Bearer token; off without one. docs/metrics.md.
 */



const outcomeOf = (status) => status === undefined
    ? 'network'
    : status < 400
        ? 'ok'
        : status === 429
            ? 'rate_limited'
            : status < 500
                ? 'client_error'
                : 'server_error';
class AppMetrics {
    registry = new prom_client.Registry();
    renderer = new render/* MetricsRenderer */.n(this.registry);
    calls;
    reviews;
    constructor(waiting) {
        const registers = [this.registry];
        const calls = new prom_client.Counter({
            name: 'lease_gate_app_github_calls_total',
            help: 'Attempts of calls to GitHub\u2019s API, by outcome (each retry counts).',
            labelNames: ['outcome'],
            registers,
        });
        const outcomes = [
            'ok',
            'client_error',
            'server_error',
            'rate_limited',
            'network',
        ];
        this.calls = Object.fromEntries(outcomes.map((o) => [o, calls.labels(o)]));
        this.reviews = new prom_client.Counter({
            name: 'lease_gate_app_reviews_total',
            help: 'The protection rule\u2019s answers sent to GitHub (state approved or rejected), by outcome.',
            labelNames: ['state', 'outcome'],
            registers,
        });
        new prom_client.Gauge({
            name: 'lease_gate_app_queued_runs',
            help: 'Runs waiting for their lease (each a pending protection rule).',
            registers,
            collect() {
                this.set(waiting());
            },
        });
    }
    /** One attempt's answer (its status) or none (a network failure): the transport tells it. */
    called(status) {
        this.calls[outcomeOf(status)].inc();
    }
    /** Wraps the App's review call so that each answer it sends is counted. */
    counted(github) {
        const review = async (installation, repo, runId, body, attempt) => {
            try {
                await github.review(installation, repo, runId, body, attempt);
                this.reviews.inc({ state: body.state, outcome: 'ok' });
            }
            catch (error) {
                this.reviews.inc({ state: body.state, outcome: 'failed' });
                throw error;
            }
        };
        return { ...github, review };
    }
    /** Answers `GET /metrics` when `req` asks for it and returns true; false for any other path. */
    serve(req, res, key) {
        if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics')
            return false;
        const header = req.headers.authorization ?? '';
        const status = !key
            ? 403
            : !header.startsWith('Bearer ')
                ? 401
                : matches(header.slice(7), key)
                    ? 200
                    : 403;
        if (status !== 200) {
            const message = !key
                ? 'Metrics need the App to be started with LEASE_GATE_METRICS_KEY.'
                : 'Metrics need the metrics key (LEASE_GATE_METRICS_KEY) as the Bearer token.';
            res.writeHead(status, { 'content-type': 'application/json', ...NO_STORE });
            res.end(JSON.stringify({
                ok: false,
                reason: status === 401 ? 'unauthorized' : 'forbidden',
                message,
            }));
            return true;
        }
        this.renderer.render(req.headers.accept).then(({ contentType, text }) => res.writeHead(200, { 'content-type': contentType, ...NO_STORE }).end(text), () => res.writeHead(500).end());
        return true;
    }
}
/** As the kernel's answers: a proxy or cache between Prometheus and the App keeps no scrape. */
const NO_STORE = { 'cache-control': 'no-store' };
const digest = (value) => (0,external_node_crypto_.createHash)('sha256').update(value).digest();
/** In constant time, over digests, as the kernel compares its keys. */
const matches = (token, key) => token.length > 0 && (0,external_node_crypto_.timingSafeEqual)(digest(token), digest(key));

;// CONCATENATED MODULE: ./src/app/server.ts









/** `lease-gate app`: the webhook receiver on the configured address, in front of the plane. */
async function startApp(config, options) {
    const clock = options.clock ?? time/* systemClock */.m;
    const sleep = options.sleep ?? time/* realSleep */.u;
    const random = options.random ?? Math.random;
    const wallNow = options.wallNow ?? Date.now;
    const env = options.env ?? process.env;
    const http = (0,client/* createHttpClient */.u)({ env });
    // Stopping ends every GitHub call and every wait between its retries at once: a
    // GitHub that does not answer must not hold a SIGTERM for its whole retry budget.
    const stopping = new AbortController();
    const plane = (0,plane_client/* createPlaneClient */.ku)({
        apiUrl: config.planeUrl,
        key: config.planeKey,
        keyHint: "plane.keyFile in the app's config",
        clock,
        sleep,
        random,
        env,
    });
    // Made before GitHub's client, which tells it each call; its gauge reads the gatekeeper's queue.
    let waiting = () => 0;
    const metrics = new AppMetrics(() => waiting());
    const metricsKey = env.LEASE_GATE_METRICS_KEY || undefined;
    const github = metrics.counted(createGitHubApp({
        appId: config.appId,
        privateKey: config.privateKey,
        apiUrl: config.githubApiUrl,
        http,
        clock,
        wallNow,
        sleep,
        random,
        ...options.github,
        signal: stopping.signal,
        onAttempt: (status) => metrics.called(status),
    }));
    const gatekeeper = createGatekeeper({
        config,
        github,
        plane,
        log: options.log,
        clock,
        sleep,
        random,
        wallNow,
    });
    waiting = gatekeeper.waiting;
    const receive = createReceiver({
        secret: config.webhookSecret,
        path: config.path,
        log: options.log,
        onDelivery: gatekeeper.onDelivery,
    });
    const server = await listenOn(config, (req, res) => {
        if (metrics.serve(req, res, metricsKey))
            return;
        receive(req, res).catch(() => {
            if (!res.headersSent)
                res.writeHead(500).end();
        });
    });
    // Listening first, so nothing GitHub sends meanwhile fails; started before any request is
    // handled (a connection is an event, this a continuation), so a live delivery queues after
    // what a previous process left, and the "listening" line comes before the recovery's.
    void gatekeeper.recover(() => findPendingRequests({ github, wallNow, log: options.log }));
    const { port, address } = server.address();
    const host = address.includes(':') ? `[${address}]` : address;
    return {
        url: `http://${host}:${port}${config.path === '/' ? '' : config.path}`,
        waiting: gatekeeper.waiting,
        async close() {
            stopping.abort();
            server.close();
            server.closeAllConnections();
            await gatekeeper.close();
            await plane.close();
            await http.close();
        },
    };
}
/** The App's server on its configured address, with bounded header and request times. */
async function listenOn(config, handle) {
    const server = (0,external_node_http_.createServer)(handle);
    server.headersTimeout = 10_000;
    server.requestTimeout = 15_000;
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
    });
    return server;
}

// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/http/loopback.ts
var loopback = __webpack_require__(507);
// EXTERNAL MODULE: ./src/cli/kernel-keys.ts
var kernel_keys = __webpack_require__(2146);
;// CONCATENATED MODULE: ./src/cli/app-metrics-key.ts



/**
 * The App's LEASE_GATE_METRICS_KEY, refused (one line, never the key) as the kernel refuses
 * its own: the plane key the App leases with (it would sit in a Prometheus config), or, on an
 * App listening beyond loopback, a key short enough to guess.
 */
function appMetricsKeyOf(env, host, planeKey) {
    const metricsKey = env.LEASE_GATE_METRICS_KEY || undefined;
    if (metricsKey === undefined)
        return undefined;
    if (metricsKey === planeKey)
        throw new options/* UsageError */.eb('LEASE_GATE_METRICS_KEY is the plane key the App leases with: give the metrics key a value of its own.');
    if (!(0,loopback/* isLoopbackHost */.c)(host) && metricsKey.length < kernel_keys/* MIN_KEY_LENGTH */.u)
        throw new options/* UsageError */.eb(`LEASE_GATE_METRICS_KEY is shorter than ${kernel_keys/* MIN_KEY_LENGTH */.u} characters, too easy to guess for an App listening on ${host}: use a long random key (openssl rand -hex 32).`);
    return metricsKey;
}

// EXTERNAL MODULE: ./src/cli/app-help.ts
var app_help = __webpack_require__(6269);
// EXTERNAL MODULE: ./src/cli/log-format-flag.ts
var log_format_flag = __webpack_require__(7661);
;// CONCATENATED MODULE: ./src/cli/app-settings.ts




function appSettings(values, env = {}) {
    if (!values.config)
        throw new options/* UsageError */.eb('Missing --config FILE: the JSON config of the app.');
    return { configFile: values.config, logFormat: (0,log_format_flag/* logFormatOf */.r)(values['log-format'], env) };
}
function smokeSettings(values) {
    const url = webhookUrl(values.url);
    const secretFile = values['secret-file'];
    if (!secretFile)
        throw new options/* UsageError */.eb("app smoke needs --secret-file FILE: the app's webhookSecretFile.");
    return { url, secretFile };
}
const URL_FORM = 'the webhook URL GitHub is given, https:// (plain http:// only to loopback), such as https://gate.example.com/webhook';
/** https:, or plain http: to loopback only (the secret's signature goes with it); no credentials. */
function webhookUrl(raw) {
    if (!raw)
        throw new options/* UsageError */.eb(`app smoke needs --url URL: ${URL_FORM}.`);
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        url = new URL('invalid:');
    }
    const ok = (url.protocol === 'https:' || (url.protocol === 'http:' && (0,loopback/* isLoopbackHost */.c)(url.hostname))) &&
        !url.username &&
        !url.password;
    if (!ok)
        throw new options/* UsageError */.eb(`Invalid --url '${(0,lease_escape/* untrusted */.bp)(raw, 200)}'. Expected ${URL_FORM}.`);
    return url.href;
}

// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
;// CONCATENATED MODULE: ./src/cli/app-smoke.ts










/**
 * `lease-gate app smoke`: the wiring of a protection-rule app checked without GitHub. It
 * signs a sample `deployment_protection_rule` delivery with the webhook secret and sends
 * it where GitHub would (through the TLS proxy, if any), then says what the app answered.
 * The sample names no run (its callback URL is not a run's), so the app reads and checks
 * it, then ignores it: nothing is queued and GitHub is never called.
 */
const SMOKE_REPOSITORY = 'lease-gate/smoke-test';
/** The sample: a delivery the app accepts and ignores (it names no run of the repository). */
function smokePayload() {
    return {
        action: 'requested',
        environment: 'lease-gate-smoke-test',
        event: 'workflow_dispatch',
        deployment_callback_url: `https://api.github.com/repos/${SMOKE_REPOSITORY}/lease-gate-smoke-test`,
        deployment: { id: 1 },
        repository: { full_name: SMOKE_REPOSITORY },
        installation: { id: 1 },
    };
}
/** The webhook secret, as the app reads it: the file's text, trimmed. */
function readSecret(file) {
    let secret;
    try {
        // As the app reads it: the file's text, trimmed.
        secret = (0,external_node_fs_.readFileSync)(file, 'utf8').trim();
    }
    catch (error) {
        throw new options/* UsageError */.eb(`Cannot read --secret-file ${(0,lease_escape/* untrusted */.bp)(file, 200)}: ${(0,errors/* causeText */.xv)(error)}`);
    }
    if (!secret)
        throw new options/* UsageError */.eb(`--secret-file ${(0,lease_escape/* untrusted */.bp)(file, 200)} is empty.`);
    return secret;
}
/** What the app's answer means for the wiring, in one line; ok only for 202. */
function readAnswer(status, body, id) {
    const said = (0,lease_escape/* untrusted */.bp)(body.replace(/\s+/g, ' '), 200);
    if (status === 202)
        return {
            ok: true,
            line: `OK: the app accepted the signed deployment_protection_rule delivery ${id} (202): the URL reaches it and the webhook secret matches. The sample names no run, so the app ignores it; its log says "delivery ${id}: deployment_callback_url names no run of ${SMOKE_REPOSITORY}; ignored".`,
        };
    if (status === 401)
        return {
            ok: false,
            line: `FAIL: the app refused the signature (401 ${said}): --secret-file is not the secret in its webhookSecretFile (nor the App's webhook secret on GitHub, if they agree).`,
        };
    if (status === 404)
        return {
            ok: false,
            line: `FAIL: 404 ${said}: nothing takes deliveries at that path. Is it the app's listen.path (and the proxy's route to it)?`,
        };
    return { ok: false, line: `FAIL: the URL answered ${status} ${said}: not the app's 202.` };
}
async function appSmoke(args, io, env) {
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(app_help/* APP_SMOKE */.QM.flags));
    const { url, secretFile } = smokeSettings(values);
    const secret = readSecret(secretFile);
    const body = JSON.stringify(smokePayload());
    const id = `lease-gate-smoke-${(0,external_node_crypto_.randomUUID)()}`;
    const http = (0,client/* createHttpClient */.u)({ env });
    try {
        const answer = await http.send({
            method: 'POST',
            url,
            headers: {
                'content-type': 'application/json',
                'user-agent': 'lease-gate-app-smoke',
                'x-github-event': 'deployment_protection_rule',
                'x-github-delivery': id,
                'x-hub-signature-256': await (0,webhooks_methods_dist_node/* sign */._S)(secret, body),
            },
            body,
        });
        const { ok, line } = readAnswer(answer.status, answer.text, id);
        if (ok)
            io.out(line);
        else
            io.err(line);
        return ok ? options/* EXIT */.dc.done : options/* EXIT */.dc.refused;
    }
    finally {
        await http.close();
    }
}

// EXTERNAL MODULE: ./src/cli/log-output.ts
var log_output = __webpack_require__(7500);
;// CONCATENATED MODULE: ./src/cli/app-command.ts









/** `lease-gate app --config FILE`: the protection-rule app, until SIGINT or SIGTERM. */
async function app(args, io, env) {
    if (args[0] === 'smoke')
        return appSmoke(args.slice(1), io, env);
    const { values } = (0,options/* parse */.qg)(args, (0,table/* optionsOf */.cz)(app_help/* APP */.uq.flags));
    const settings = appSettings(values, env);
    try {
        return await startAppCommand(settings, io, env);
    }
    catch (error) {
        // A config that does not check out, said as a JSON line when asked for.
        const log = { format: settings.logFormat, secrets: [] };
        return (0,log_output/* refusedToStart */.ej)(error, log, (0,log_output/* loggedOutput */.kO)(io, log), 'app');
    }
}
/** Checked settings \u2192 the app: its config read and checked, then served. */
async function startAppCommand(settings, io, env) {
    let config;
    try {
        config = loadConfig(settings.configFile, env);
    }
    catch (error) {
        if (error instanceof ConfigError)
            throw new options/* UsageError */.eb(error.message, { cause: error });
        throw error;
    }
    appMetricsKeyOf(env, config.host, config.planeKey);
    // Masked and escaped (src/log); the text form starts with its time, a JSON line has a field.
    const logged = (0,log_output/* loggedOutput */.kO)(io, {
        format: settings.logFormat,
        secrets: [config.privateKey, config.webhookSecret, config.planeKey, env.LEASE_GATE_METRICS_KEY],
    });
    const log = settings.logFormat === 'json'
        ? (line) => logged.out(line)
        : (line) => logged.out(`${new Date().toISOString()} ${line}`);
    const running = await startApp(config, { log, env });
    const stopped = new Promise((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve));
    logged.outWith(`lease-gate app listening on ${running.url}`, { url: running.url });
    log(`plane ${config.planeUrl}, GitHub ${config.githubApiUrl}, ${config.rules.length} rule(s)`);
    await stopped;
    log('stopping: leaving every queue');
    await running.close();
    return options/* EXIT */.dc.done;
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

/***/ 3184:
/***/ ((__unused_webpack_module, __unused_webpack___webpack_exports__, __webpack_require__) => {

/* harmony import */ var zod_mini__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8532);
/* harmony import */ var zod_v4_locales_en_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(252);


/**
 * zod/mini ships no messages (every issue reads "Invalid input"); classic zod installed
 * English on first use. The texts a person sees (the app config, the policy and keys
 * files, the kernel's 400 answers) keep zod's English wording, so each module whose
 * schema messages reach a person imports this once. `config` is global and idempotent.
 */
zod_mini__WEBPACK_IMPORTED_MODULE_0__/* .config */ .$W((0,zod_v4_locales_en_js__WEBPACK_IMPORTED_MODULE_1__/* ["default"] */ .A)());


/***/ })

};

//# sourceMappingURL=154.index.js.map