require("./zod-en-DySWmmj3.js");
const require_cli = require("./cli.js");
const require_session = require("./session-CtAguDwo.js");
const require_time = require("./time-ww7Hd0C3.js");
const require_log_output = require("./log-output-Ds3jN6an.js");
let node_http = require("node:http");
let node_fs = require("node:fs");
let node_crypto = require("node:crypto");
let node_path = require("node:path");
let node_buffer = require("node:buffer");
// src/app/config.ts
/** The config file is wrong: the message names the field and the accepted form. */
var ConfigError = class extends require_cli.LeaseGateError {
	name = "ConfigError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "config"
		});
	}
};
const duration = (fallback, min = 0) => require_cli.pipe(require_cli._default(require_cli.string(), fallback), require_cli.transform((raw, ctx) => {
	const ms = require_cli.parseDuration(raw);
	if (ms === void 0 || ms < min) {
		ctx.issues.push({
			code: "custom",
			input: raw,
			message: `expected ${require_cli.DURATION_FORM}, at most 24h${min ? `, at least ${min / 1e3}s` : ""}`
		});
		return require_cli.NEVER;
	}
	return ms;
}));
const checkedUrl = (raw) => {
	const url = require_cli.parsePlaneUrl(raw);
	return url.ok ? url.url : raw;
};
const originUrl = (what) => require_cli.string().check(require_cli.refine((v) => require_cli.parsePlaneUrl(v).ok, `expected ${what}: an https:// origin (plain http:// only for localhost or 127.0.0.1)`));
/**
* `appId` as a number, or as a string of digits, on purpose: a value pasted from the App's
* page, or written by a templating tool, is often quoted. The docs and --help say so.
*/
const APP_ID_FORM = "expected the App ID, a positive integer (a number, or a string of digits such as \"123456\")";
/** The config file's shape; exported so a test holds `lease-gate app --help` and the docs to it. */
const configFileSchema = require_cli.strictObject({
	appId: require_cli.union([require_cli.number().check(require_cli.int(APP_ID_FORM), require_cli._positive(APP_ID_FORM)), require_cli.string().check(require_cli._regex(/^[1-9]\d{0,19}$/, { error: (issue) => typeof issue.input === "string" && /^Iv\d*\./.test(issue.input) ? "expected the App ID (a number, on the App's settings page under 'About'), not its Client ID (Iv\u2026)" : APP_ID_FORM }))], { error: APP_ID_FORM }),
	privateKeyFile: require_cli.string().check(require_cli._minLength(1, "expected the path of the App private key (PEM)")),
	webhookSecretFile: require_cli.string().check(require_cli._minLength(1, "expected the path of a file holding the webhook secret")),
	githubApiUrl: require_cli._default(originUrl("GitHub's REST API"), "https://api.github.com"),
	githubServerUrl: require_cli._default(originUrl("the GitHub server"), "https://github.com"),
	plane: require_cli.strictObject({
		url: originUrl("the plane's URL"),
		keyFile: require_cli.optional(require_cli.string().check(require_cli._minLength(1)))
	}),
	listen: require_cli._default(require_cli.strictObject({
		host: require_cli._default(require_cli.string().check(require_cli._minLength(1)), "127.0.0.1"),
		port: require_cli._default(require_cli.number().check(require_cli.int(), require_cli._gte(0), require_cli._lte(65535)), 8790),
		path: require_cli._default(require_cli.string().check(require_cli._regex(/^\/[\x21-\x7e]{0,200}$/, "expected a path starting with /")), "/")
	}), {
		host: "127.0.0.1",
		port: 8790,
		path: "/"
	}),
	rules: require_cli.array(require_cli.strictObject({
		repository: require_cli.string().check(require_cli._regex(/^[A-Za-z0-9*][A-Za-z0-9*-]{0,38}\/[A-Za-z0-9._*-]{1,100}$/, "expected owner/repo, where * matches any characters but /")),
		environment: require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(255)),
		resource: require_cli.resourceSchema,
		job: require_cli.optional(require_cli.string().check(require_cli._regex(/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/, "expected a workflow job id")))
	})).check(require_cli._minLength(1, "expected at least one rule")),
	takeUpGrace: duration("10m", 1e3),
	maxWait: duration("6h", 1e3),
	runCheckEvery: duration("1m", 1e3),
	deploymentStatus: require_cli._default(require_cli.boolean(), true)
});
/** Reads and checks the config file, and the secrets it names (paths relative to the file). */
function loadConfig(file, env) {
	let raw;
	try {
		raw = JSON.parse((0, node_fs.readFileSync)(file, "utf8"));
	} catch (error) {
		throw new ConfigError(`Cannot read the config ${file}: ${require_cli.causeText(error)}. Expected a JSON file.`, { cause: error });
	}
	const parsed = configFileSchema.safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		const at = issue.path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`).join("");
		if (issue.code === "unrecognized_keys") {
			const key = issue.keys[0] ?? "";
			const known = Object.keys(knownFields(issue.path)).join(", ");
			throw new ConfigError(`Invalid config ${file}: field '${`${at}.${require_cli.untrusted(key, 80)}`.slice(1)}': not a setting of the app (expected one of: ${known}).`);
		}
		throw new ConfigError(`Invalid config ${file}: field '${at.slice(1) || "(top)"}': ${issue.message}.`);
	}
	const c = parsed.data;
	const near = (path) => (0, node_path.resolve)((0, node_path.dirname)(file), path);
	const secret = (field, path) => {
		try {
			const text = (0, node_fs.readFileSync)(near(path), "utf8").trim();
			if (text) return text;
		} catch {}
		throw new ConfigError(`Invalid config ${file}: field '${field}': cannot read a non-empty file at ${path}.`);
	};
	const privateKey = secret("privateKeyFile", c.privateKeyFile);
	if (!isRsaPrivateKey(privateKey)) throw new ConfigError(`Invalid config ${file}: field 'privateKeyFile': ${c.privateKeyFile} is not a PEM RSA private key (the App's key as GitHub downloads it).`);
	const planeUrl = checkedUrl(c.plane.url);
	const planeKey = c.plane.keyFile ? secret("plane.keyFile", c.plane.keyFile) : require_cli.keyFromEnv(env).value;
	if (!planeKey && !planeUrl.startsWith("http:")) throw new ConfigError(`Invalid config ${file}: field 'plane.keyFile': no plane key; name a file, or set LEASE_GATE_KEY (only a plane on loopback may go without).`);
	if (!require_cli.isLoopbackHost(c.listen.host) && c.listen.host !== "0.0.0.0" && c.listen.host !== "::") {
		if (!/^[A-Za-z0-9.:-]{1,253}$/.test(c.listen.host)) throw new ConfigError(`Invalid config ${file}: field 'listen.host': expected a host name or address.`);
	}
	return {
		appId: String(c.appId),
		privateKey,
		webhookSecret: secret("webhookSecretFile", c.webhookSecretFile),
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
		deploymentStatus: c.deploymentStatus
	};
}
/** The fields of the object at `path` in the config schema (top, `plane`, `listen`, a rule). */
function knownFields(path) {
	const shape = configFileSchema.shape;
	return {
		plane: configFileSchema.shape.plane.shape,
		listen: configFileSchema.shape.listen._zod.def.innerType.shape,
		rules: configFileSchema.shape.rules._zod.def.element.shape
	}[String(path[0])] ?? shape;
}
/** The App's key must parse as an RSA private key: auth-app signs its JWT with RS256. */
function isRsaPrivateKey(pem) {
	if (!pem.includes("PRIVATE KEY-----")) return false;
	try {
		return (0, node_crypto.createPrivateKey)(pem).asymmetricKeyType === "rsa";
	} catch {
		return false;
	}
}
/** The first rule for this repository and environment, or undefined. */
function findRule(rules, repository, environment) {
	return rules.find((rule) => globToRegExp(rule.repository).test(repository) && rule.environment.toLowerCase() === environment.toLowerCase());
}
function globToRegExp(glob) {
	const body = glob.split("*").map((part) => part.replace(/[.]/g, "\\.")).join("[^/]*");
	return new RegExp(`^${body}$`, "i");
}
// src/app/events.ts
/**
* The parts of GitHub's webhook payloads the app uses, checked once here: a
* payload is untrusted even with a good signature (a bug, a changed shape).
* Unknown fields are ignored.
*/
const id = require_cli.number().check(require_cli.int(), require_cli._positive(), require_cli._lte(Number.MAX_SAFE_INTEGER));
const repository = require_cli.object({ full_name: require_cli.string().check(require_cli.refine((v) => require_cli.parseRepository(v) !== void 0, "expected owner/repo")) });
const protectionRuleSchema = require_cli.object({
	action: require_cli.string().check(require_cli._maxLength(64)),
	environment: require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(255)),
	event: require_cli.optional(require_cli.string().check(require_cli._maxLength(64))),
	deployment_callback_url: require_cli.string().check(require_cli._maxLength(2e3)),
	deployment: require_cli.object({ id }),
	repository,
	installation: require_cli.object({ id })
});
/** A workflow run, as in a `workflow_run` event and in GitHub's REST answer for one run. */
const runSchema = require_cli.object({
	id,
	run_attempt: require_cli.optional(require_cli.number().check(require_cli.int(), require_cli._positive())),
	status: require_cli.string().check(require_cli._maxLength(40))
});
/** `GET \u2026/environments/{name}`: only whether it requires reviewers matters here. */
const environmentSchema = require_cli.object({ protection_rules: require_cli.optional(require_cli.array(require_cli.object({ type: require_cli.string().check(require_cli._maxLength(64)) })).check(require_cli._maxLength(100))) });
/** `GET \u2026/actions/runs/{run}/approvals`: each review, its state and the environments it covers. */
const approvalsSchema = require_cli.array(require_cli.object({
	state: require_cli.string().check(require_cli._maxLength(40)),
	environments: require_cli.array(require_cli.object({ name: require_cli.optional(require_cli.string().check(require_cli._maxLength(255))) })).check(require_cli._maxLength(100))
})).check(require_cli._maxLength(1e3));
/** A `deployment_review` delivery: reviewers approved or rejected a run's environments. */
const deploymentReviewSchema = require_cli.object({
	action: require_cli.string().check(require_cli._maxLength(64)),
	workflow_run: require_cli.object({ id }),
	repository
});
const workflowRunSchema = require_cli.object({
	action: require_cli.string().check(require_cli._maxLength(64)),
	workflow_run: runSchema,
	repository
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
	} catch {
		return;
	}
	const match = /\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/([1-9]\d{0,19})\/deployment_protection_rule$/.exec(path);
	if (!match) return void 0;
	const [, owner = "", repo = "", runId] = match;
	return `${owner}/${repo}`.toLowerCase() === fullName.toLowerCase() ? runId : void 0;
}
// src/lease/take-up.ts
/**
* Take-up: the protection-rule app (`lease-gate app`) queues a job before it has a
* runner, under a DID of the job's own run, and approves the job once the lease is
* granted. The job's step cannot know the app's DID in advance (its own DID ends in a
* random nonce, and GitHub's event does not name the job), so the step takes up a
* lease held by a DID of its own run and attempt that ends in this marker: the app's.
*   \u2026:runs:<run>:attempts:<n>:jobs:<job or %2A>:protection-rule-<deployment id>
*/
const APP_NONCE_PREFIX = "protection-rule-";
/** The DID the app queues a run's deployment under (the action's encoder). */
function appDid(run, deploymentId) {
	const host = new URL(run.serverUrl).host;
	const [owner = "", repo = ""] = run.repository.split("/");
	const parts = [
		require_cli.didSegment(host),
		require_cli.didSegment(owner),
		require_cli.didSegment(repo),
		"actions",
		"runs"
	];
	parts.push(require_cli.didSegment(run.runId), "attempts", require_cli.didSegment(run.runAttempt));
	parts.push("jobs", require_cli.didSegment(run.job), `${APP_NONCE_PREFIX}${deploymentId}`);
	return `did:web:${parts.join(":")}`;
}
// src/app/gate.ts
function newGateState(startedAt) {
	return {
		active: /* @__PURE__ */ new Map(),
		awaitingReview: /* @__PURE__ */ new Map(),
		working: /* @__PURE__ */ new Set(),
		recovering: Promise.resolve(),
		shut: new AbortController(),
		startedAt
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
	if (wait.why) return;
	wait.why = "run-completed";
	wait.cancel.abort();
}
/** The DID a run's lease-gate step takes up under `rule` (lease/take-up.ts): the app queues as it. */
function runDid(config, run, rule, runAttempt) {
	return appDid({
		serverUrl: config.githubServerUrl,
		repository: run.repository,
		runId: run.runId,
		runAttempt: String(runAttempt),
		job: rule.job ?? "*"
	}, run.deploymentId);
}
/** The one call that answers a run's rule for `environment`, logged; a failure to send is logged too. */
function reviewer({ github, log }, installation, repo, runId, environment, tag) {
	const review = async (state, comment) => {
		log(`${tag}: ${state}: ${comment}`);
		await github.review(installation, repo, runId, {
			environment_name: environment,
			state,
			comment: comment.slice(0, 1e3)
		}).catch((error) => log(`${tag}: could not send '${state}': ${require_cli.errorMessage(error)}`));
	};
	return Object.assign(review, { environment });
}
// src/app/adopt.ts
async function adoptApproved(found, options) {
	const left = [];
	for (const request of found) {
		if (options.signal.aborted) return left;
		const approved = await approvedRun(request, options).catch((error) => {
			options.log(`recovery: delivery ${request.delivery.id}: could not tell whether its run was approved (${require_cli.errorMessage(error)}); queued again`);
			return "waiting";
		});
		if (approved === "waiting") left.push(request);
		else if (approved) {
			options.log(`recovery: ${approved.tag}: approved before the restart, and its lease ${approved.lease.id} is still held by its DID: kept for its job to take up, at most ${require_cli.formatDuration(options.config.takeUpGraceMs)} or until the run ends`);
			options.keep(approved);
		}
	}
	return left;
}
/** `waiting`: queue it again; an ApprovedRun: keep its lease; undefined: nothing to do. */
async function approvedRun(request, { config, github, plane, signal }) {
	const parsed = protectionRuleSchema.safeParse(request.delivery.payload);
	if (!parsed.success || parsed.data.action !== "requested") return "waiting";
	const event = parsed.data;
	const repository = event.repository.full_name;
	const runId = runIdFromCallback(event.deployment_callback_url, repository);
	const rule = findRule(config.rules, repository, event.environment);
	if (!runId || !rule) return "waiting";
	const repo = require_cli.parseRepository(repository);
	const installation = event.installation.id;
	const run = await github.getRun(installation, repo, runId);
	if (run.status === "waiting") return "waiting";
	if (run.status === "completed") return void 0;
	const did = runDid(config, {
		repository,
		runId,
		deploymentId: event.deployment.id
	}, rule, run.runAttempt);
	const lease = await plane.status(rule.resource, { signal });
	if (lease?.holder !== did) return void 0;
	return {
		tag: `run ${runId} of ${repository} (environment ${require_cli.untrusted(event.environment, 255)})`,
		did,
		resource: rule.resource,
		installation,
		repository,
		repo,
		runId,
		environment: event.environment,
		lease
	};
}
// src/app/hook-deliveries.ts
/** The two delivery calls over `get` (a GET as the App, retried like every call). */
function hookDeliveries(get) {
	return {
		async listDeliveries({ sinceMs, maxItems }) {
			const found = [];
			let cursor;
			for (let page = 0; page < MAX_DELIVERY_PAGES; page += 1) {
				const answer = await get(`/app/hook/deliveries?${`per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`}`);
				const items = require_cli.array(hookDeliverySchema).safeParse(require_log_output.parseJson(answer.text));
				if (!items.success) throw new require_log_output.GitHubError("GET /app/hook/deliveries: GitHub's answer is not a list of deliveries", { status: answer.status });
				for (const item of items.data) {
					const deliveredAtMs = Date.parse(item.delivered_at);
					if (!(deliveredAtMs >= sinceMs)) return found;
					found.push({
						id: item.id,
						guid: item.guid,
						deliveredAtMs,
						redelivery: item.redelivery,
						statusCode: item.status_code,
						event: item.event,
						action: item.action ?? null
					});
					if (found.length >= maxItems) return found;
				}
				cursor = nextCursor(require_log_output.headerOf(answer, "link"));
				if (!cursor) return found;
			}
			return found;
		},
		async deliveryPayload(id) {
			const answer = await get(`/app/hook/deliveries/${id}`);
			const detail = deliveryDetailSchema.safeParse(require_log_output.parseJson(answer.text));
			return detail.success ? detail.data.request.payload ?? void 0 : void 0;
		}
	};
}
/** At most this many pages of 100 deliveries are read at start (GitHub keeps 3 days of them). */
const MAX_DELIVERY_PAGES = 30;
const hookDeliverySchema = require_cli.object({
	id: require_cli.number().check(require_cli.int(), require_cli._positive()),
	guid: require_cli.string().check(require_cli._maxLength(100)),
	delivered_at: require_cli.string().check(require_cli._maxLength(40)),
	redelivery: require_cli.boolean(),
	status_code: require_cli.number(),
	event: require_cli.string().check(require_cli._maxLength(64)),
	action: require_cli.optional(require_cli.nullable(require_cli.string().check(require_cli._maxLength(64))))
});
const deliveryDetailSchema = require_cli.object({ request: require_cli.object({ payload: require_cli.optional(require_cli.nullable(require_cli.unknown())) }) });
/**
* The `cursor` of the Link header's `rel="next"`, never its URL: the next page is
* asked of the configured API origin, so a header cannot send the App JWT elsewhere.
*/
function nextCursor(link) {
	for (const part of (link ?? "").split(",")) {
		const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
		if (!match) continue;
		try {
			const cursor = new URL(match[1]).searchParams.get("cursor");
			return cursor && cursor.length <= 200 ? cursor : void 0;
		} catch {
			return;
		}
	}
}
// src/app/github-runs.ts
/** The run calls over `call` (as the installation, retried like every call). */
function runCalls(call) {
	return {
		async getRun(installationId, repo, runId) {
			const answer = await call("GET", installationId, `${repoPath(repo)}/actions/runs/${runId}`);
			const run = runSchema.safeParse(require_log_output.parseJson(answer.text));
			const attempt = run.success ? run.data.run_attempt ?? 1 : 0;
			if (!run.success || attempt > 999999) throw new require_log_output.GitHubError(`run ${runId}: GitHub's answer has no status or run_attempt`, { status: answer.status });
			return {
				status: run.data.status,
				runAttempt: attempt
			};
		},
		reviewers: (installationId, repo, runId, environment) => reviewers(call, installationId, repo, runId, environment),
		async review(installationId, repo, runId, body, attempt) {
			await call("POST", installationId, `${repoPath(repo)}/actions/runs/${runId}/deployment_protection_rule`, body, attempt);
		},
		async deploymentStatus(installationId, repo, deploymentId, description) {
			await call("POST", installationId, `${repoPath(repo)}/deployments/${deploymentId}/statuses`, {
				state: "queued",
				description: description.slice(0, 140)
			});
		}
	};
}
async function reviewers(call, installationId, repo, runId, environment) {
	const path = `${repoPath(repo)}/environments/${encodeURIComponent(environment)}`;
	const env = environmentSchema.safeParse(require_log_output.parseJson((await call("GET", installationId, path)).text));
	if (!env.success) throw new require_log_output.GitHubError(`environment ${environment}: GitHub's answer has no protection_rules`, { status: 200 });
	if (!env.data.protection_rules?.some((r) => r.type === "required_reviewers")) return "none";
	const answer = await call("GET", installationId, `${repoPath(repo)}/actions/runs/${runId}/approvals`);
	const reviews = approvalsSchema.safeParse(require_log_output.parseJson(answer.text));
	if (!reviews.success) throw new require_log_output.GitHubError(`run ${runId}: GitHub's approvals answer is not a list of reviews`, { status: 200 });
	let state = "waiting";
	for (const review of reviews.data) {
		if (!review.environments.some((e) => e.name === environment)) continue;
		if (review.state === "approved" || review.state === "rejected") state = review.state;
	}
	return state;
}
const repoPath = (repo) => `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`;
// node_modules/universal-user-agent/index.js
function getUserAgent() {
	if (typeof navigator === "object" && "userAgent" in navigator) return navigator.userAgent;
	if (typeof process === "object" && process.version !== void 0) return `Node.js/${process.version.substr(1)} (${process.platform}; ${process.arch})`;
	return "<environment undetectable>";
}
// node_modules/@octokit/endpoint/dist-bundle/index.js
var DEFAULTS = {
	method: "GET",
	baseUrl: "https://api.github.com",
	headers: {
		accept: "application/vnd.github.v3+json",
		"user-agent": `octokit-endpoint.js/0.0.0-development ${getUserAgent()}`
	},
	mediaType: { format: "" }
};
function lowercaseKeys(object) {
	if (!object) return {};
	return Object.keys(object).reduce((newObj, key) => {
		newObj[key.toLowerCase()] = object[key];
		return newObj;
	}, {});
}
function isPlainObject$1(value) {
	if (typeof value !== "object" || value === null) return false;
	if (Object.prototype.toString.call(value) !== "[object Object]") return false;
	const proto = Object.getPrototypeOf(value);
	if (proto === null) return true;
	const Ctor = Object.prototype.hasOwnProperty.call(proto, "constructor") && proto.constructor;
	return typeof Ctor === "function" && Ctor instanceof Ctor && Function.prototype.call(Ctor) === Function.prototype.call(value);
}
function mergeDeep(defaults, options) {
	const result = Object.assign({}, defaults);
	Object.keys(options).forEach((key) => {
		if (isPlainObject$1(options[key])) {
			if (!(key in defaults)) Object.assign(result, { [key]: options[key] });
			else result[key] = mergeDeep(defaults[key], options[key]);
		} else Object.assign(result, { [key]: options[key] });
	});
	return result;
}
function removeUndefinedProperties(obj) {
	for (const key in obj) if (obj[key] === void 0) delete obj[key];
	return obj;
}
function merge(defaults, route, options) {
	if (typeof route === "string") {
		let [method, url] = route.split(" ");
		options = Object.assign(url ? {
			method,
			url
		} : { url: method }, options);
	} else options = Object.assign({}, route);
	options.headers = lowercaseKeys(options.headers);
	removeUndefinedProperties(options);
	removeUndefinedProperties(options.headers);
	const mergedOptions = mergeDeep(defaults || {}, options);
	if (options.url === "/graphql") {
		if (defaults && defaults.mediaType.previews?.length) mergedOptions.mediaType.previews = defaults.mediaType.previews.filter((preview) => !mergedOptions.mediaType.previews.includes(preview)).concat(mergedOptions.mediaType.previews);
		mergedOptions.mediaType.previews = (mergedOptions.mediaType.previews || []).map((preview) => preview.replace(/-preview/, ""));
	}
	return mergedOptions;
}
function addQueryParameters(url, parameters) {
	const separator = /\?/.test(url) ? "&" : "?";
	const names = Object.keys(parameters);
	if (names.length === 0) return url;
	return url + separator + names.map((name) => {
		if (name === "q") return "q=" + parameters.q.split("+").map(encodeURIComponent).join("+");
		return `${name}=${encodeURIComponent(parameters[name])}`;
	}).join("&");
}
var urlVariableRegex = /\{[^{}}]+\}/g;
function removeNonChars(variableName) {
	return variableName.replace(/(?:^\W+)|(?:(?<!\W)\W+$)/g, "").split(/,/);
}
function extractUrlVariableNames(url) {
	const matches = url.match(urlVariableRegex);
	if (!matches) return [];
	return matches.map(removeNonChars).reduce((a, b) => a.concat(b), []);
}
function omit(object, keysToOmit) {
	const result = { __proto__: null };
	for (const key of Object.keys(object)) if (keysToOmit.indexOf(key) === -1) result[key] = object[key];
	return result;
}
function encodeReserved(str) {
	return str.split(/(%[0-9A-Fa-f]{2})/g).map(function(part) {
		if (!/%[0-9A-Fa-f]/.test(part)) part = encodeURI(part).replace(/%5B/g, "[").replace(/%5D/g, "]");
		return part;
	}).join("");
}
function encodeUnreserved(str) {
	return encodeURIComponent(str).replace(/[!'()*]/g, function(c) {
		return "%" + c.charCodeAt(0).toString(16).toUpperCase();
	});
}
function encodeValue(operator, value, key) {
	value = operator === "+" || operator === "#" ? encodeReserved(value) : encodeUnreserved(value);
	if (key) return encodeUnreserved(key) + "=" + value;
	else return value;
}
function isDefined(value) {
	return value !== void 0 && value !== null;
}
function isKeyOperator(operator) {
	return operator === ";" || operator === "&" || operator === "?";
}
function getValues(context, operator, key, modifier) {
	var value = context[key], result = [];
	if (isDefined(value) && value !== "") {
		if (typeof value === "string" || typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
			value = value.toString();
			if (modifier && modifier !== "*") value = value.substring(0, parseInt(modifier, 10));
			result.push(encodeValue(operator, value, isKeyOperator(operator) ? key : ""));
		} else if (modifier === "*") {
			if (Array.isArray(value)) value.filter(isDefined).forEach(function(value2) {
				result.push(encodeValue(operator, value2, isKeyOperator(operator) ? key : ""));
			});
			else Object.keys(value).forEach(function(k) {
				if (isDefined(value[k])) result.push(encodeValue(operator, value[k], k));
			});
		} else {
			const tmp = [];
			if (Array.isArray(value)) value.filter(isDefined).forEach(function(value2) {
				tmp.push(encodeValue(operator, value2));
			});
			else Object.keys(value).forEach(function(k) {
				if (isDefined(value[k])) {
					tmp.push(encodeUnreserved(k));
					tmp.push(encodeValue(operator, value[k].toString()));
				}
			});
			if (isKeyOperator(operator)) result.push(encodeUnreserved(key) + "=" + tmp.join(","));
			else if (tmp.length !== 0) result.push(tmp.join(","));
		}
	} else if (operator === ";") {
		if (isDefined(value)) result.push(encodeUnreserved(key));
	} else if (value === "" && (operator === "&" || operator === "?")) result.push(encodeUnreserved(key) + "=");
	else if (value === "") result.push("");
	return result;
}
function parseUrl(template) {
	return { expand: expand.bind(null, template) };
}
function expand(template, context) {
	var operators = [
		"+",
		"#",
		".",
		"/",
		";",
		"?",
		"&"
	];
	template = template.replace(/\{([^\{\}]+)\}|([^\{\}]+)/g, function(_, expression, literal) {
		if (expression) {
			let operator = "";
			const values = [];
			if (operators.indexOf(expression.charAt(0)) !== -1) {
				operator = expression.charAt(0);
				expression = expression.substr(1);
			}
			expression.split(/,/g).forEach(function(variable) {
				var tmp = /([^:\*]*)(?::(\d+)|(\*))?/.exec(variable);
				values.push(getValues(context, operator, tmp[1], tmp[2] || tmp[3]));
			});
			if (operator && operator !== "+") {
				var separator = ",";
				if (operator === "?") separator = "&";
				else if (operator !== "#") separator = operator;
				return (values.length !== 0 ? operator : "") + values.join(separator);
			} else return values.join(",");
		} else return encodeReserved(literal);
	});
	if (template === "/") return template;
	else return template.replace(/\/$/, "");
}
function parse$1(options) {
	let method = options.method.toUpperCase();
	let url = (options.url || "/").replace(/:([a-z]\w+)/g, "{$1}");
	let headers = Object.assign({}, options.headers);
	let body;
	let parameters = omit(options, [
		"method",
		"baseUrl",
		"url",
		"headers",
		"request",
		"mediaType"
	]);
	const urlVariableNames = extractUrlVariableNames(url);
	url = parseUrl(url).expand(parameters);
	if (!/^http/.test(url)) url = options.baseUrl + url;
	const remainingParameters = omit(parameters, Object.keys(options).filter((option) => urlVariableNames.includes(option)).concat("baseUrl"));
	if (!/application\/octet-stream/i.test(headers.accept)) {
		if (options.mediaType.format) headers.accept = headers.accept.split(/,/).map((format) => format.replace(/application\/vnd(\.\w+)(\.v3)?(\.\w+)?(\+json)?$/, `application/vnd$1$2.${options.mediaType.format}`)).join(",");
		if (url.endsWith("/graphql")) {
			if (options.mediaType.previews?.length) headers.accept = (headers.accept.match(/(?<![\w-])[\w-]+(?=-preview)/g) || []).concat(options.mediaType.previews).map((preview) => {
				return `application/vnd.github.${preview}-preview${options.mediaType.format ? `.${options.mediaType.format}` : "+json"}`;
			}).join(",");
		}
	}
	if (["GET", "HEAD"].includes(method)) url = addQueryParameters(url, remainingParameters);
	else if ("data" in remainingParameters) body = remainingParameters.data;
	else if (Object.keys(remainingParameters).length) body = remainingParameters;
	if (!headers["content-type"] && typeof body !== "undefined") headers["content-type"] = "application/json; charset=utf-8";
	if (["PATCH", "PUT"].includes(method) && typeof body === "undefined") body = "";
	return Object.assign({
		method,
		url,
		headers
	}, typeof body !== "undefined" ? { body } : null, options.request ? { request: options.request } : null);
}
function endpointWithDefaults(defaults, route, options) {
	return parse$1(merge(defaults, route, options));
}
function withDefaults$1(oldDefaults, newDefaults) {
	const DEFAULTS2 = merge(oldDefaults, newDefaults);
	const endpoint2 = endpointWithDefaults.bind(null, DEFAULTS2);
	return Object.assign(endpoint2, {
		DEFAULTS: DEFAULTS2,
		defaults: withDefaults$1.bind(null, DEFAULTS2),
		merge: merge.bind(null, DEFAULTS2),
		parse: parse$1
	});
}
var endpoint = withDefaults$1(null, DEFAULTS);
// node_modules/content-type/dist/index.js
const SP = 32;
const HTAB = 9;
const SEMI = 59;
const EQ = 61;
const DQUOTE = 34;
const BSLASH = 92;
const COMMA = 44;
const LOWER_CASE = 1;
const OWS = 2;
const SEMI_FLAG = 4;
const COMMA_FLAG = 8;
const TOKEN_FLAG = 16;
const NON_ASCII = 65280;
const CASE_FLAGS = 65281;
/**
* Character flags used to normalize HTTP field values while scanning.
* Out-of-range reads intentionally coerce to zero in bitwise expressions.
*/
const CHAR_MAP = /* @__PURE__ */ new Uint8Array(256);
CHAR_MAP[HTAB] |= OWS;
CHAR_MAP[SP] |= OWS;
CHAR_MAP[SEMI] |= SEMI_FLAG;
CHAR_MAP[COMMA] |= COMMA_FLAG;
for (let code = 128; code <= 255; code++) CHAR_MAP[code] |= LOWER_CASE;
for (const char of "!#$%&'*+-.^_`|~") CHAR_MAP[char.charCodeAt(0)] |= TOKEN_FLAG;
for (let code = 48; code <= 57; code++) CHAR_MAP[code] |= TOKEN_FLAG;
for (let code = 65; code <= 90; code++) CHAR_MAP[code] |= 17;
for (let code = 97; code <= 122; code++) CHAR_MAP[code] |= TOKEN_FLAG;
/**
* Null object perf optimization. Faster than `Object.create(null)` and `{ __proto__: null }`.
*/
const NullObject = /* @__PURE__ */ (() => {
	const C = function() {};
	C.prototype = Object.create(null);
	return C;
})();
/**
* Parse a `Content-Type` header.
*/
function parse(header, options) {
	const stopFlags = SEMI_FLAG | (options?.comma === true ? COMMA_FLAG : 0);
	const len = header.length;
	let valueStart = options?.start ?? 0;
	while ((CHAR_MAP[header.charCodeAt(valueStart)] & OWS) !== 0) valueStart++;
	let index = valueStart;
	let typeFlags = 0;
	let whitespace = -1;
	let stop = options?.parameters === false ? COMMA_FLAG : 0;
	while (index < len) {
		const code = header.charCodeAt(index);
		const flags = CHAR_MAP[code];
		if ((flags & stopFlags) !== 0) {
			stop |= flags & COMMA_FLAG;
			break;
		}
		if ((flags & OWS) !== 0) {
			if (whitespace === -1) whitespace = index;
		} else whitespace = -1;
		typeFlags |= code & NON_ASCII | flags;
		index++;
	}
	const valueEnd = whitespace === -1 ? index : whitespace;
	const value = header.slice(valueStart, valueEnd);
	const type = (typeFlags & CASE_FLAGS) === 0 ? value : value.toLowerCase();
	if (index === len || stop !== 0) return {
		type,
		index,
		parameters: new NullObject()
	};
	return parseParameters(header, type, index, len, stopFlags);
}
/**
* Parses the parameters of a `Content-Type` header starting at the given index.
*/
function parseParameters(header, type, index, len, stopFlags) {
	const parameters = new NullObject();
	parameter: while (index < len) {
		index++;
		while ((CHAR_MAP[header.charCodeAt(index)] & OWS) !== 0) index++;
		const keyStart = index;
		let keyFlags = 0;
		let keyWhitespace = -1;
		while (index < len) {
			const code = header.charCodeAt(index);
			const flags = CHAR_MAP[code];
			if ((flags & stopFlags) !== 0) {
				if ((flags & COMMA_FLAG) !== 0) break parameter;
				continue parameter;
			}
			if (code === EQ) {
				const keyEnd = keyWhitespace === -1 ? index : keyWhitespace;
				const value = header.slice(keyStart, keyEnd);
				const key = (keyFlags & CASE_FLAGS) === 0 ? value : value.toLowerCase();
				index++;
				while ((CHAR_MAP[header.charCodeAt(index)] & OWS) !== 0) index++;
				if (index < len && header.charCodeAt(index) === DQUOTE) {
					const quotedStart = ++index;
					let escaped = false;
					while (index < len) {
						const code = header.charCodeAt(index);
						if (code === DQUOTE) {
							if (parameters[key] === void 0) parameters[key] = escaped ? unescapeQuotedPairs(header, quotedStart, index) : header.slice(quotedStart, index);
							index++;
							let stop = 0;
							while (index < len) {
								const code = header.charCodeAt(index);
								const flags = CHAR_MAP[code];
								if ((flags & stopFlags) !== 0) {
									stop = flags & COMMA_FLAG;
									break;
								}
								index++;
							}
							if (stop !== 0) break parameter;
							continue parameter;
						}
						if (code === BSLASH && index + 1 < len) {
							escaped = true;
							index += 2;
							continue;
						}
						index++;
					}
					continue parameter;
				}
				const valueStart = index;
				let stop = 0;
				let valueWhitespace = -1;
				while (index < len) {
					const code = header.charCodeAt(index);
					const flags = CHAR_MAP[code];
					if ((flags & stopFlags) !== 0) {
						stop = flags & COMMA_FLAG;
						break;
					}
					if ((flags & OWS) !== 0) {
						if (valueWhitespace === -1) valueWhitespace = index;
					} else valueWhitespace = -1;
					index++;
				}
				if (parameters[key] === void 0) {
					const valueEnd = valueWhitespace === -1 ? index : valueWhitespace;
					parameters[key] = header.slice(valueStart, valueEnd);
				}
				if (stop !== 0) break parameter;
				continue parameter;
			}
			if ((flags & OWS) !== 0) {
				if (keyWhitespace === -1) keyWhitespace = index;
			} else keyWhitespace = -1;
			keyFlags |= code & NON_ASCII | flags;
			index++;
		}
	}
	return {
		type,
		index,
		parameters
	};
}
/**
* Remove backslashes from quoted pairs in a known-terminated quoted string body.
*/
function unescapeQuotedPairs(str, start, end) {
	let result = "";
	for (let index = start; index < end; index++) if (str.charCodeAt(index) === BSLASH) {
		result += str.slice(start, index);
		start = ++index;
	}
	return result + str.slice(start, end);
}
// node_modules/json-with-bigint/json-with-bigint.js
const intRegex = /^-?\d+$/;
const noiseValue = /^-?\d+n+$/;
const originalStringify = JSON.stringify;
const originalParse = JSON.parse;
const customFormat = /^-?\d+n$/;
const bigIntsStringify = /([\[:])?"(-?\d+)n"($|\s*[,\}\]])/g;
const noiseStringify = /([\[:])?("-?\d+n+)n("$|"\s*[,\}\]])/g;
/**
* @typedef {(this: any, key: string | number | undefined, value: any) => any} Replacer
* @typedef {(key: string | number | undefined, value: any, context?: { source: string }) => any} Reviver
*/
/**
* Checks if a value is unstringifiable according to native JSON.stringify rules.
*
* @param {any} val The value to check.
* @returns {boolean} True if the value is undefined, a function, or a symbol.
*/
const isUnstringifiable = (val) => val === void 0 || typeof val === "function" || typeof val === "symbol";
/**
* Checks if a value is a native JSON.rawJSON object (Node.js 22+).
*
* @param {any} val The value to check.
* @returns {boolean} True if the value is a RawJSON instance.
*/
const isRawJSON = (val) => val !== null && typeof val === "object" && val.constructor && val.constructor.name === "RawJSON";
/**
* Iteratively converts a JS value to a JSON string.
* Used as a fallback when the native JSON.stringify hits the Maximum Call Stack size.
* Fully compliant with JSON formatting (space), replacers, and toJSON behaviors.
*
* @param {any} rootValue The value to stringify.
* @param {Replacer | Array<string | number> | null} [replacer] User's custom replacer function.
* @param {string | number} [spaceParam] Indentation for pretty-printing.
* @returns {string | undefined} The generated JSON string.
*/
const stringifyIteratively = (rootValue, replacer, spaceParam) => {
	let space = "";
	if (typeof spaceParam === "number") space = " ".repeat(Math.min(10, Math.max(0, Math.floor(spaceParam))));
	else if (typeof spaceParam === "string") space = spaceParam.slice(0, 10);
	const isFunctionReplacer = typeof replacer === "function";
	const propertyList = Array.isArray(replacer) ? new Set(replacer.map(String)) : null;
	/**
	* Prepares a value for stringification by resolving toJSON, handling BigInts,
	* applying custom replacers, and unwrapping primitive objects.
	*
	* @param {object|Array} parent The parent object or array holding the value.
	* @param {string} key The key associated with the value.
	* @param {any} val The raw value to process.
	* @returns {any} The processed value ready for stringification.
	*/
	const prepareVal = (parent, key, val) => {
		if (val !== null && typeof val === "object" && typeof val.toJSON === "function") val = val.toJSON(key);
		if (typeof val === "string" && noiseValue.test(val)) return val + "n";
		if (typeof val === "bigint") {
			if ("rawJSON" in JSON) return JSON.rawJSON(val.toString());
			return val.toString() + "n";
		}
		if (isFunctionReplacer) val = replacer.call(parent, key, val);
		if (val !== null && typeof val === "object") {
			if (val instanceof Number || val instanceof String || val instanceof Boolean) val = val.valueOf();
		}
		return val;
	};
	const rootProcessed = prepareVal({ "": rootValue }, "", rootValue);
	if (isUnstringifiable(rootProcessed)) return;
	const isRootPrimitive = rootProcessed === null || typeof rootProcessed !== "object";
	const isRootNativeRawJSON = isRawJSON(rootProcessed);
	if (isRootPrimitive || isRootNativeRawJSON) return originalStringify(rootProcessed);
	const chunks = [];
	let level = 0;
	const stack = [{
		parent: { "": rootProcessed },
		key: "",
		val: rootProcessed,
		isArray: Array.isArray(rootProcessed),
		keys: Array.isArray(rootProcessed) ? null : Object.keys(rootProcessed),
		index: 0,
		first: true
	}];
	const visited = new WeakSet([rootProcessed]);
	while (stack.length > 0) {
		const node = stack[stack.length - 1];
		if (node.index === 0) {
			chunks.push(node.isArray ? "[" : "{");
			level++;
		}
		let isDone = false;
		if (node.isArray) {
			if (node.index < node.val.length) {
				if (!node.first) chunks.push(",");
				if (space) chunks.push("\n" + space.repeat(level));
				const childRaw = node.val[node.index];
				const childVal = prepareVal(node.val, String(node.index), childRaw);
				if (isUnstringifiable(childVal)) {
					chunks.push("null");
					node.first = false;
					node.index++;
				} else {
					const isComplexObject = childVal !== null && typeof childVal === "object";
					const isNativeRaw = isRawJSON(childVal);
					if (isComplexObject && !isNativeRaw) {
						if (visited.has(childVal)) throw new TypeError("Converting circular structure to JSON");
						visited.add(childVal);
						stack.push({
							parent: node.val,
							key: String(node.index),
							val: childVal,
							isArray: Array.isArray(childVal),
							keys: Array.isArray(childVal) ? null : Object.keys(childVal),
							index: 0,
							first: true
						});
						node.first = false;
						node.index++;
					} else {
						chunks.push(originalStringify(childVal));
						node.first = false;
						node.index++;
					}
				}
			} else isDone = true;
		} else {
			while (node.index < node.keys.length) {
				const k = node.keys[node.index++];
				if (propertyList && !propertyList.has(k)) continue;
				const childRaw = node.val[k];
				const childVal = prepareVal(node.val, k, childRaw);
				if (isUnstringifiable(childVal)) continue;
				if (!node.first) chunks.push(",");
				if (space) chunks.push("\n" + space.repeat(level) + originalStringify(k) + ": ");
				else chunks.push(originalStringify(k) + ":");
				const isComplexObject = childVal !== null && typeof childVal === "object";
				const isNativeRaw = isRawJSON(childVal);
				if (isComplexObject && !isNativeRaw) {
					if (visited.has(childVal)) throw new TypeError("Converting circular structure to JSON");
					visited.add(childVal);
					stack.push({
						parent: node.val,
						key: k,
						val: childVal,
						isArray: Array.isArray(childVal),
						keys: Array.isArray(childVal) ? null : Object.keys(childVal),
						index: 0,
						first: true
					});
					node.first = false;
					break;
				} else {
					chunks.push(originalStringify(childVal));
					node.first = false;
				}
			}
			if (node.index >= node.keys.length && stack[stack.length - 1] === node) isDone = true;
		}
		if (isDone) {
			level--;
			if (!node.first && space) chunks.push("\n" + space.repeat(level));
			chunks.push(node.isArray ? "]" : "}");
			visited.delete(node.val);
			stack.pop();
		}
	}
	return chunks.join("");
};
/**
* Converts a JavaScript value to a JSON string.
*
* Supports serialization of BigInt values using two strategies:
* 1. Custom format "123n" \u2192 "123" (universal fallback)
* 2. Native JSON.rawJSON() (Node.js 22+, fastest) when available
*
* All other values are serialized exactly like native JSON.stringify().
*
* @param {*} value The value to convert to a JSON string.
* @param {Replacer | Array<string | number> | null} [replacer]
* A function that alters the behavior of the stringification process,
* or an array of strings/numbers to indicate properties to exclude.
* @param {string | number} [space]
* A string or number to specify indentation or pretty-printing.
* @returns {string} The JSON string representation.
*/
const JSONStringify = (value, replacer, space) => {
	try {
		if ("rawJSON" in JSON) return originalStringify(value, (key, val) => {
			if (typeof val === "bigint") return JSON.rawJSON(val.toString());
			if (typeof replacer === "function") return replacer(key, val);
			if (Array.isArray(replacer) && replacer.includes(key)) return val;
			return val;
		}, space);
		if (!value) return originalStringify(value, replacer, space);
		return originalStringify(value, (key, val) => {
			if (typeof val === "string" && noiseValue.test(val)) return val.toString() + "n";
			if (typeof val === "bigint") return val.toString() + "n";
			if (typeof replacer === "function") return replacer(key, val);
			if (Array.isArray(replacer) && replacer.includes(key)) return val;
			return val;
		}, space).replace(bigIntsStringify, "$1$2$3").replace(noiseStringify, "$1$2$3");
	} catch (error) {
		if (error instanceof RangeError) {
			const convertedJSON = stringifyIteratively(value, replacer, space);
			if (convertedJSON === void 0) return void 0;
			if ("rawJSON" in JSON) return convertedJSON;
			return convertedJSON.replace(bigIntsStringify, "$1$2$3").replace(noiseStringify, "$1$2$3");
		}
		throw error;
	}
};
const featureCache = /* @__PURE__ */ new Map();
/**
* Detects if the current JSON.parse implementation supports the context.source feature.
*
* Uses toString() fingerprinting to cache results and automatically detect runtime
* replacements of JSON.parse (polyfills, mocks, etc.).
*
* @returns {boolean} true if context.source is supported, false otherwise.
*/
const isContextSourceSupported = () => {
	const parseFingerprint = JSON.parse.toString();
	if (featureCache.has(parseFingerprint)) return featureCache.get(parseFingerprint);
	try {
		const result = JSON.parse("1", (_, __, context) => !!context?.source && context.source === "1");
		featureCache.set(parseFingerprint, result);
		return result;
	} catch {
		featureCache.set(parseFingerprint, false);
		return false;
	}
};
/**
* Reviver function that converts custom-format BigInt strings back to BigInt values.
* Also handles "noise" strings that accidentally match the BigInt format.
*
* @param {string | number | undefined} key The object key.
* @param {*} value The value being parsed.
* @param {object} [context] Parse context (if supported by JSON.parse).
* @param {Reviver} [userReviver] User's custom reviver function.
* @returns {any} The transformed value.
*/
const convertMarkedBigIntsReviver = (key, value, context, userReviver) => {
	if (typeof value === "string" && customFormat.test(value)) return BigInt(value.slice(0, -1));
	if (typeof value === "string" && noiseValue.test(value)) return value.slice(0, -1);
	if (!(typeof userReviver === "function")) return value;
	return userReviver(key, value, context);
};
/**
* Fast JSON.parse implementation (~2x faster than classic fallback).
* Uses JSON.parse's context.source feature to detect integers and convert
* large numbers directly to BigInt without string manipulation.
*
* Does not support legacy custom format from v1 of this library.
*
* @param {string} text JSON string to parse.
* @param {Reviver} [reviver] Transform function to apply to each value.
* @returns {any} Parsed JavaScript value.
*/
const JSONParseV2 = (text, reviver) => {
	return JSON.parse(text, (key, value, context) => {
		const isBigNumber = typeof value === "number" && (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER);
		const isInt = context && intRegex.test(context.source);
		if (isBigNumber && isInt) return BigInt(context.source);
		if (!(typeof reviver === "function")) return value;
		return reviver(key, value, context);
	});
};
const MAX_INT = Number.MAX_SAFE_INTEGER.toString();
const MAX_DIGITS = MAX_INT.length;
const stringsOrLargeNumbers = /"(?:[^"\\]|\\.)*"|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/g;
const noiseValueWithQuotes = /^"-?\d+n+"$/;
/**
* Iteratively traverses the parsed object bottom-up (post-order),
* emulating the native JSON.parse reviver behavior.
* This avoids Call Stack overflows (RangeError) on deeply nested structures.
*
* @param {any} parsed The natively parsed JSON object.
* @param {Reviver} [userReviver] User's custom reviver function.
* @returns {any} The fully processed object.
*/
const applyReviverIteratively = (parsed, userReviver) => {
	const rootHolder = { "": parsed };
	const stack = [{
		parent: rootHolder,
		key: "",
		visited: false
	}];
	while (stack.length > 0) {
		const node = stack[stack.length - 1];
		if (!node.visited) {
			node.visited = true;
			const value = node.parent[node.key];
			if (value !== null && typeof value === "object") {
				const keys = Object.keys(value);
				for (let i = keys.length - 1; i >= 0; i--) stack.push({
					parent: value,
					key: keys[i],
					visited: false
				});
			}
		} else {
			const { parent, key } = node;
			let value = parent[key];
			if (typeof value === "string") {
				if (customFormat.test(value)) value = BigInt(value.slice(0, -1));
				else if (noiseValue.test(value)) value = value.slice(0, -1);
			}
			if (typeof userReviver === "function") value = userReviver.call(parent, key, value);
			if (value === void 0) delete parent[key];
			else parent[key] = value;
			stack.pop();
		}
	}
	return rootHolder[""];
};
/**
* Pre-processes the JSON string to mark large numbers with an 'n' suffix.
*
* @param {string} text The raw JSON string.
* @returns {string} The serialized string with marked BigInts.
*/
const serializeBigInts = (text) => {
	return text.replace(stringsOrLargeNumbers, (match, digits, fractional, exponential) => {
		const isString = match[0] === "\"";
		if (isString && noiseValueWithQuotes.test(match)) return match.substring(0, match.length - 1) + "n\"";
		const hasFractionalOrExponential = fractional || exponential;
		const isLessThanMaxSafeInt = digits && (digits.length < MAX_DIGITS || digits.length === MAX_DIGITS && digits <= MAX_INT);
		if (isString || hasFractionalOrExponential || isLessThanMaxSafeInt) return match;
		return "\"" + match + "n\"";
	});
};
/**
* Converts a JSON string into a JavaScript value.
*
* Supports parsing of large integers using two strategies:
* 1. Classic fallback: Marks large numbers with "123n" format, then converts to BigInt
* 2. Fast path (JSONParseV2): Uses context.source feature (~2x faster) when available
*
* All other JSON values are parsed exactly like native JSON.parse().
*
* @param {string} text A valid JSON string.
* @param {Reviver} [reviver]
* A function that transforms the results. This function is called for each member
* of the object. If a member contains nested objects, the nested objects are
* transformed before the parent object is.
* @returns {any} The parsed JavaScript value.
* @throws {SyntaxError} If text is not valid JSON.
*/
const JSONParse = (text, reviver) => {
	if (!text) return originalParse(text, reviver);
	try {
		if (isContextSourceSupported()) return JSONParseV2(text, reviver);
		const serializedData = serializeBigInts(text);
		return originalParse(serializedData, (key, value, context) => convertMarkedBigIntsReviver(key, value, context, reviver));
	} catch (error) {
		if (error instanceof RangeError) {
			const serializedData = serializeBigInts(text);
			const parsed = originalParse(serializedData);
			return applyReviverIteratively(parsed, reviver);
		}
		throw error;
	}
};
// node_modules/@octokit/request-error/dist-src/index.js
var RequestError = class extends Error {
	name;
	/**
	* http status code
	*/
	status;
	/**
	* Request options that lead to the error.
	*/
	request;
	/**
	* Response object if a response was received
	*/
	response;
	constructor(message, statusCode, options) {
		super(message, { cause: options.cause });
		this.name = "HttpError";
		this.status = Number.parseInt(statusCode);
		if (Number.isNaN(this.status)) this.status = 0;
		/* v8 ignore else -- @preserve -- Bug with vitest coverage where it sees an else branch that doesn't exist */
		if ("response" in options) this.response = options.response;
		const requestCopy = Object.assign({}, options.request);
		if (options.request.headers.authorization) requestCopy.headers = Object.assign({}, options.request.headers, { authorization: options.request.headers.authorization.replace(/(?<! ) .*$/, " [REDACTED]") });
		requestCopy.url = requestCopy.url.replace(/\bclient_secret=\w+/g, "client_secret=[REDACTED]").replace(/\baccess_token=\w+/g, "access_token=[REDACTED]");
		this.request = requestCopy;
	}
};
// node_modules/@octokit/request/dist-bundle/index.js
var defaults_default = { headers: { "user-agent": `octokit-request.js/10.0.16 ${getUserAgent()}` } };
function isPlainObject(value) {
	if (typeof value !== "object" || value === null) return false;
	if (Object.prototype.toString.call(value) !== "[object Object]") return false;
	const proto = Object.getPrototypeOf(value);
	if (proto === null) return true;
	const Ctor = Object.prototype.hasOwnProperty.call(proto, "constructor") && proto.constructor;
	return typeof Ctor === "function" && Ctor instanceof Ctor && Function.prototype.call(Ctor) === Function.prototype.call(value);
}
var noop = () => "";
async function fetchWrapper(requestOptions) {
	const fetch = requestOptions.request?.fetch || globalThis.fetch;
	if (!fetch) throw new Error("fetch is not set. Please pass a fetch implementation as new Octokit({ request: { fetch }}). Learn more at https://github.com/octokit/octokit.js/#fetch-missing");
	const log = requestOptions.request?.log || console;
	const parseSuccessResponseBody = requestOptions.request?.parseSuccessResponseBody !== false;
	const body = isPlainObject(requestOptions.body) || Array.isArray(requestOptions.body) ? JSONStringify(requestOptions.body) : requestOptions.body;
	const requestHeaders = Object.fromEntries(Object.entries(requestOptions.headers).map(([name, value]) => [name, String(value)]));
	let fetchResponse;
	try {
		fetchResponse = await fetch(requestOptions.url, {
			method: requestOptions.method,
			body,
			redirect: requestOptions.request?.redirect,
			headers: requestHeaders,
			signal: requestOptions.request?.signal,
			...requestOptions.body && { duplex: "half" }
		});
	} catch (error) {
		let message = "Unknown Error";
		if (error instanceof Error) {
			if (error.name === "AbortError") {
				error.status = 500;
				throw error;
			}
			message = error.message;
			if (error.name === "TypeError" && "cause" in error) {
				if (error.cause instanceof Error) message = error.cause.message;
				else if (typeof error.cause === "string") message = error.cause;
			}
		}
		const requestError = new RequestError(message, 500, { request: requestOptions });
		requestError.cause = error;
		throw requestError;
	}
	const status = fetchResponse.status;
	const url = fetchResponse.url;
	const responseHeaders = {};
	for (const [key, value] of fetchResponse.headers) responseHeaders[key] = value;
	const octokitResponse = {
		url,
		status,
		headers: responseHeaders,
		data: ""
	};
	if ("deprecation" in responseHeaders) {
		const matches = responseHeaders.link && responseHeaders.link.match(/<([^<>]+)>; rel="deprecation"/);
		const deprecationLink = matches && matches.pop();
		log.warn(`[@octokit/request] "${requestOptions.method} ${requestOptions.url}" is deprecated. It is scheduled to be removed on ${responseHeaders.sunset}${deprecationLink ? `. See ${deprecationLink}` : ""}`);
	}
	if (status === 204 || status === 205) return octokitResponse;
	if (requestOptions.method === "HEAD") {
		if (status < 400) return octokitResponse;
		throw new RequestError(fetchResponse.statusText, status, {
			response: octokitResponse,
			request: requestOptions
		});
	}
	if (status === 304) {
		octokitResponse.data = await getResponseData(fetchResponse);
		throw new RequestError("Not modified", status, {
			response: octokitResponse,
			request: requestOptions
		});
	}
	if (status >= 400) {
		octokitResponse.data = await getResponseData(fetchResponse);
		throw new RequestError(toErrorMessage(octokitResponse.data), status, {
			response: octokitResponse,
			request: requestOptions
		});
	}
	octokitResponse.data = parseSuccessResponseBody ? await getResponseData(fetchResponse) : fetchResponse.body;
	return octokitResponse;
}
async function getResponseData(response) {
	const contentType = response.headers.get("content-type");
	if (!contentType) return response.text().catch(noop);
	const mimetype = parse(contentType);
	if (isJSONResponse(mimetype)) {
		let text = "";
		try {
			text = await response.text();
			return JSONParse(text);
		} catch (err) {
			return text;
		}
	} else if (mimetype.type.startsWith("text/") || mimetype.parameters.charset?.toLowerCase() === "utf-8" && mimetype.type !== "application/octet-stream") return response.text().catch(noop);
	else return response.arrayBuffer().catch(
		/* v8 ignore next -- @preserve */
		() => /* @__PURE__ */ new ArrayBuffer(0)
	);
}
function isJSONResponse(mimetype) {
	return mimetype.type === "application/json" || mimetype.type === "application/scim+json";
}
function toErrorMessage(data) {
	if (typeof data === "string") return data;
	if (data instanceof ArrayBuffer) return "Unknown error";
	if (typeof data === "object" && data !== null && "message" in data) {
		const objectData = data;
		const suffix = "documentation_url" in objectData ? ` - ${objectData.documentation_url}` : "";
		return Array.isArray(objectData.errors) ? `${objectData.message}: ${objectData.errors.map((v) => JSON.stringify(v)).join(", ")}${suffix}` : `${objectData.message}${suffix}`;
	}
	return `Unknown error: ${JSON.stringify(data)}`;
}
function withDefaults(oldEndpoint, newDefaults) {
	const endpoint2 = oldEndpoint.defaults(newDefaults);
	const newApi = function(route, parameters) {
		const endpointOptions = endpoint2.merge(route, parameters);
		if (!endpointOptions.request || !endpointOptions.request.hook) return fetchWrapper(endpoint2.parse(endpointOptions));
		const request2 = (route2, parameters2) => {
			return fetchWrapper(endpoint2.parse(endpoint2.merge(route2, parameters2)));
		};
		Object.assign(request2, {
			endpoint: endpoint2,
			defaults: withDefaults.bind(null, endpoint2)
		});
		return endpointOptions.request.hook(request2, endpointOptions);
	};
	return Object.assign(newApi, {
		endpoint: endpoint2,
		defaults: withDefaults.bind(null, endpoint2)
	});
}
var request = withDefaults(endpoint, defaults_default);
/* v8 ignore next -- @preserve */
/* v8 ignore else -- @preserve */
// node_modules/@octokit/oauth-methods/dist-bundle/index.js
function requestToOAuthBaseUrl(request) {
	const endpointDefaults = request.endpoint.DEFAULTS;
	if (/^https:\/\/(api\.)?github\.com$/.test(endpointDefaults.baseUrl)) return "https://github.com";
	if (/^https:\/\/api\..*\.ghe\.com$/.test(endpointDefaults.baseUrl)) return endpointDefaults.baseUrl.replace("api.", "");
	return endpointDefaults.baseUrl.replace("/api/v3", "");
}
async function oauthRequest(request, route, parameters) {
	const withOAuthParameters = {
		baseUrl: requestToOAuthBaseUrl(request),
		headers: { accept: "application/json" },
		...parameters
	};
	const response = await request(route, withOAuthParameters);
	if ("error" in response.data) {
		const error = new RequestError(`${response.data.error_description} (${response.data.error}, ${response.data.error_uri})`, 400, { request: request.endpoint.merge(route, withOAuthParameters) });
		error.response = response;
		throw error;
	}
	return response;
}
async function exchangeWebFlowCode(options) {
	const response = await oauthRequest(options.request || request, "POST /login/oauth/access_token", {
		client_id: options.clientId,
		client_secret: options.clientSecret,
		code: options.code,
		redirect_uri: options.redirectUrl
	});
	const authentication = {
		clientType: options.clientType,
		clientId: options.clientId,
		clientSecret: options.clientSecret,
		token: response.data.access_token,
		scopes: response.data.scope.split(/\s+/).filter(Boolean)
	};
	if (options.clientType === "github-app") {
		if ("refresh_token" in response.data) {
			const apiTimeInMs = new Date(response.headers.date).getTime();
			authentication.refreshToken = response.data.refresh_token, authentication.expiresAt = toTimestamp(apiTimeInMs, response.data.expires_in), authentication.refreshTokenExpiresAt = toTimestamp(apiTimeInMs, response.data.refresh_token_expires_in);
		}
		delete authentication.scopes;
	}
	return {
		...response,
		authentication
	};
}
function toTimestamp(apiTimeInMs, expirationInSeconds) {
	return new Date(apiTimeInMs + expirationInSeconds * 1e3).toISOString();
}
async function createDeviceCode(options) {
	const request$5 = options.request || request;
	const parameters = { client_id: options.clientId };
	if ("scopes" in options && Array.isArray(options.scopes)) parameters.scope = options.scopes.join(" ");
	return oauthRequest(request$5, "POST /login/device/code", parameters);
}
async function exchangeDeviceCode(options) {
	const response = await oauthRequest(options.request || request, "POST /login/oauth/access_token", {
		client_id: options.clientId,
		device_code: options.code,
		grant_type: "urn:ietf:params:oauth:grant-type:device_code"
	});
	const authentication = {
		clientType: options.clientType,
		clientId: options.clientId,
		token: response.data.access_token,
		scopes: response.data.scope.split(/\s+/).filter(Boolean)
	};
	if ("clientSecret" in options) authentication.clientSecret = options.clientSecret;
	if (options.clientType === "github-app") {
		if ("refresh_token" in response.data) {
			const apiTimeInMs = new Date(response.headers.date).getTime();
			authentication.refreshToken = response.data.refresh_token, authentication.expiresAt = toTimestamp2(apiTimeInMs, response.data.expires_in), authentication.refreshTokenExpiresAt = toTimestamp2(apiTimeInMs, response.data.refresh_token_expires_in);
		}
		delete authentication.scopes;
	}
	return {
		...response,
		authentication
	};
}
function toTimestamp2(apiTimeInMs, expirationInSeconds) {
	return new Date(apiTimeInMs + expirationInSeconds * 1e3).toISOString();
}
async function checkToken(options) {
	const response = await (options.request || request)("POST /applications/{client_id}/token", {
		headers: { authorization: `basic ${btoa(`${options.clientId}:${options.clientSecret}`)}` },
		client_id: options.clientId,
		access_token: options.token
	});
	const authentication = {
		clientType: options.clientType,
		clientId: options.clientId,
		clientSecret: options.clientSecret,
		token: options.token,
		scopes: response.data.scopes
	};
	if (response.data.expires_at) authentication.expiresAt = response.data.expires_at;
	if (options.clientType === "github-app") delete authentication.scopes;
	return {
		...response,
		authentication
	};
}
async function refreshToken(options) {
	const response = await oauthRequest(options.request || request, "POST /login/oauth/access_token", {
		client_id: options.clientId,
		client_secret: options.clientSecret,
		grant_type: "refresh_token",
		refresh_token: options.refreshToken
	});
	const apiTimeInMs = new Date(response.headers.date).getTime();
	const authentication = {
		clientType: "github-app",
		clientId: options.clientId,
		clientSecret: options.clientSecret,
		token: response.data.access_token,
		refreshToken: response.data.refresh_token,
		expiresAt: toTimestamp3(apiTimeInMs, response.data.expires_in),
		refreshTokenExpiresAt: toTimestamp3(apiTimeInMs, response.data.refresh_token_expires_in)
	};
	return {
		...response,
		authentication
	};
}
function toTimestamp3(apiTimeInMs, expirationInSeconds) {
	return new Date(apiTimeInMs + expirationInSeconds * 1e3).toISOString();
}
async function resetToken(options) {
	const response = await (options.request || request)("PATCH /applications/{client_id}/token", {
		headers: { authorization: `basic ${btoa(`${options.clientId}:${options.clientSecret}`)}` },
		client_id: options.clientId,
		access_token: options.token
	});
	const authentication = {
		clientType: options.clientType,
		clientId: options.clientId,
		clientSecret: options.clientSecret,
		token: response.data.token,
		scopes: response.data.scopes
	};
	if (response.data.expires_at) authentication.expiresAt = response.data.expires_at;
	if (options.clientType === "github-app") delete authentication.scopes;
	return {
		...response,
		authentication
	};
}
async function deleteToken(options) {
	return (options.request || request)("DELETE /applications/{client_id}/token", {
		headers: { authorization: `basic ${btoa(`${options.clientId}:${options.clientSecret}`)}` },
		client_id: options.clientId,
		access_token: options.token
	});
}
async function deleteAuthorization(options) {
	return (options.request || request)("DELETE /applications/{client_id}/grant", {
		headers: { authorization: `basic ${btoa(`${options.clientId}:${options.clientSecret}`)}` },
		client_id: options.clientId,
		access_token: options.token
	});
}
/* v8 ignore next: we always pass a custom request in tests -- @preserve */
// node_modules/@octokit/auth-oauth-device/dist-bundle/index.js
async function getOAuthAccessToken(state, options) {
	const cachedAuthentication = getCachedAuthentication(state, options.auth);
	if (cachedAuthentication) return cachedAuthentication;
	const { data: verification } = await createDeviceCode({
		clientType: state.clientType,
		clientId: state.clientId,
		request: options.request || state.request,
		scopes: options.auth.scopes || state.scopes
	});
	await state.onVerification(verification);
	const authentication = await waitForAccessToken(options.request || state.request, state.clientId, state.clientType, verification);
	state.authentication = authentication;
	return authentication;
}
function getCachedAuthentication(state, auth2) {
	if (auth2.refresh === true) return false;
	if (!state.authentication) return false;
	if (state.clientType === "github-app") return state.authentication;
	const authentication = state.authentication;
	return ("scopes" in auth2 && auth2.scopes || state.scopes).join(" ") === authentication.scopes.join(" ") ? authentication : false;
}
async function wait(seconds) {
	await new Promise((resolve) => setTimeout(resolve, seconds * 1e3));
}
async function waitForAccessToken(request, clientId, clientType, verification) {
	try {
		const options = {
			clientId,
			request,
			code: verification.device_code
		};
		const { authentication } = clientType === "oauth-app" ? await exchangeDeviceCode({
			...options,
			clientType: "oauth-app"
		}) : await exchangeDeviceCode({
			...options,
			clientType: "github-app"
		});
		return {
			type: "token",
			tokenType: "oauth",
			...authentication
		};
	} catch (error) {
		if (!error.response) throw error;
		const errorType = error.response.data.error;
		if (errorType === "authorization_pending") {
			await wait(verification.interval);
			return waitForAccessToken(request, clientId, clientType, verification);
		}
		if (errorType === "slow_down") {
			await wait(verification.interval + 7);
			return waitForAccessToken(request, clientId, clientType, verification);
		}
		throw error;
	}
}
async function auth$3(state, authOptions) {
	return getOAuthAccessToken(state, { auth: authOptions });
}
async function hook$3(state, request, route, parameters) {
	let endpoint = request.endpoint.merge(route, parameters);
	if (/\/login\/(oauth\/access_token|device\/code)$/.test(endpoint.url)) return request(endpoint);
	const { token } = await getOAuthAccessToken(state, {
		request,
		auth: { type: "oauth" }
	});
	endpoint.headers.authorization = `token ${token}`;
	return request(endpoint);
}
var VERSION$4 = "0.0.0-development";
function createOAuthDeviceAuth(options) {
	const requestWithDefaults = options.request || request.defaults({ headers: { "user-agent": `octokit-auth-oauth-device.js/${VERSION$4} ${getUserAgent()}` } });
	const { request: request$3 = requestWithDefaults, ...otherOptions } = options;
	const state = options.clientType === "github-app" ? {
		...otherOptions,
		clientType: "github-app",
		request: request$3
	} : {
		...otherOptions,
		clientType: "oauth-app",
		request: request$3,
		scopes: options.scopes || []
	};
	if (!options.clientId) throw new Error("[@octokit/auth-oauth-device] \"clientId\" option must be set (https://github.com/octokit/auth-oauth-device.js#usage)");
	if (!options.onVerification) throw new Error("[@octokit/auth-oauth-device] \"onVerification\" option must be a function (https://github.com/octokit/auth-oauth-device.js#usage)");
	return Object.assign(auth$3.bind(null, state), { hook: hook$3.bind(null, state) });
}
/* v8 ignore next 2 -- @preserve */
// node_modules/@octokit/auth-oauth-user/dist-bundle/index.js
var VERSION$3 = "0.0.0-development";
async function getAuthentication(state) {
	if ("code" in state.strategyOptions) {
		const { authentication } = await exchangeWebFlowCode({
			clientId: state.clientId,
			clientSecret: state.clientSecret,
			clientType: state.clientType,
			onTokenCreated: state.onTokenCreated,
			...state.strategyOptions,
			request: state.request
		});
		return {
			type: "token",
			tokenType: "oauth",
			...authentication
		};
	}
	if ("onVerification" in state.strategyOptions) {
		const authentication = await createOAuthDeviceAuth({
			clientType: state.clientType,
			clientId: state.clientId,
			onTokenCreated: state.onTokenCreated,
			...state.strategyOptions,
			request: state.request
		})({ type: "oauth" });
		return {
			clientSecret: state.clientSecret,
			...authentication
		};
	}
	if ("token" in state.strategyOptions) return {
		type: "token",
		tokenType: "oauth",
		clientId: state.clientId,
		clientSecret: state.clientSecret,
		clientType: state.clientType,
		onTokenCreated: state.onTokenCreated,
		...state.strategyOptions
	};
	throw new Error("[@octokit/auth-oauth-user] Invalid strategy options");
}
async function auth$2(state, options = {}) {
	if (!state.authentication) state.authentication = state.clientType === "oauth-app" ? await getAuthentication(state) : await getAuthentication(state);
	if (state.authentication.invalid) throw new Error("[@octokit/auth-oauth-user] Token is invalid");
	const currentAuthentication = state.authentication;
	if ("expiresAt" in currentAuthentication) {
		if (options.type === "refresh" || new Date(currentAuthentication.expiresAt) < /* @__PURE__ */ new Date()) {
			const { authentication } = await refreshToken({
				clientType: "github-app",
				clientId: state.clientId,
				clientSecret: state.clientSecret,
				refreshToken: currentAuthentication.refreshToken,
				request: state.request
			});
			state.authentication = {
				tokenType: "oauth",
				type: "token",
				...authentication
			};
		}
	}
	if (options.type === "refresh") {
		if (state.clientType === "oauth-app") throw new Error("[@octokit/auth-oauth-user] OAuth Apps do not support expiring tokens");
		if (!currentAuthentication.hasOwnProperty("expiresAt")) throw new Error("[@octokit/auth-oauth-user] Refresh token missing");
		await state.onTokenCreated?.(state.authentication, { type: options.type });
	}
	if (options.type === "check" || options.type === "reset") {
		const method = options.type === "check" ? checkToken : resetToken;
		try {
			const { authentication } = await method({
				clientType: state.clientType,
				clientId: state.clientId,
				clientSecret: state.clientSecret,
				token: state.authentication.token,
				request: state.request
			});
			state.authentication = {
				tokenType: "oauth",
				type: "token",
				...authentication
			};
			if (options.type === "reset") await state.onTokenCreated?.(state.authentication, { type: options.type });
			return state.authentication;
		} catch (error) {
			if (error.status === 404) {
				error.message = "[@octokit/auth-oauth-user] Token is invalid";
				state.authentication.invalid = true;
			}
			throw error;
		}
	}
	if (options.type === "delete" || options.type === "deleteAuthorization") {
		const method = options.type === "delete" ? deleteToken : deleteAuthorization;
		try {
			await method({
				clientType: state.clientType,
				clientId: state.clientId,
				clientSecret: state.clientSecret,
				token: state.authentication.token,
				request: state.request
			});
		} catch (error) {
			if (error.status !== 404) throw error;
		}
		state.authentication.invalid = true;
		return state.authentication;
	}
	return state.authentication;
}
var ROUTES_REQUIRING_BASIC_AUTH = /\/applications\/[^/]+\/(token|grant)s?/;
function requiresBasicAuth(url) {
	return url && ROUTES_REQUIRING_BASIC_AUTH.test(url);
}
async function hook$2(state, request, route, parameters = {}) {
	const endpoint = request.endpoint.merge(route, parameters);
	if (/\/login\/(oauth\/access_token|device\/code)$/.test(endpoint.url)) return request(endpoint);
	if (requiresBasicAuth(endpoint.url)) {
		const credentials = btoa(`${state.clientId}:${state.clientSecret}`);
		endpoint.headers.authorization = `basic ${credentials}`;
		return request(endpoint);
	}
	const { token } = state.clientType === "oauth-app" ? await auth$2({
		...state,
		request
	}) : await auth$2({
		...state,
		request
	});
	endpoint.headers.authorization = "token " + token;
	return request(endpoint);
}
function createOAuthUserAuth({ clientId, clientSecret, clientType = "oauth-app", request: request$2 = request.defaults({ headers: { "user-agent": `octokit-auth-oauth-app.js/${VERSION$3} ${getUserAgent()}` } }), onTokenCreated, ...strategyOptions }) {
	const state = Object.assign({
		clientType,
		clientId,
		clientSecret,
		onTokenCreated,
		strategyOptions,
		request: request$2
	});
	return Object.assign(auth$2.bind(null, state), { hook: hook$2.bind(null, state) });
}
createOAuthUserAuth.VERSION = VERSION$3;
/* v8 ignore if -- @preserve */
/* v8 ignore next -- @preserve */
// node_modules/@octokit/auth-oauth-app/dist-bundle/index.js
async function auth$1(state, authOptions) {
	if (authOptions.type === "oauth-app") return {
		type: "oauth-app",
		clientId: state.clientId,
		clientSecret: state.clientSecret,
		clientType: state.clientType,
		headers: { authorization: `basic ${btoa(`${state.clientId}:${state.clientSecret}`)}` }
	};
	if ("factory" in authOptions) {
		const { type, ...options } = {
			...authOptions,
			...state
		};
		return authOptions.factory(options);
	}
	const common = {
		clientId: state.clientId,
		clientSecret: state.clientSecret,
		request: state.request,
		...authOptions
	};
	return (state.clientType === "oauth-app" ? await createOAuthUserAuth({
		...common,
		clientType: state.clientType
	}) : await createOAuthUserAuth({
		...common,
		clientType: state.clientType
	}))();
}
async function hook$1(state, request2, route, parameters) {
	let endpoint = request2.endpoint.merge(route, parameters);
	if (/\/login\/(oauth\/access_token|device\/code)$/.test(endpoint.url)) return request2(endpoint);
	if (state.clientType === "github-app" && !requiresBasicAuth(endpoint.url)) throw new Error(`[@octokit/auth-oauth-app] GitHub Apps cannot use their client ID/secret for basic authentication for endpoints other than "/applications/{client_id}/**". "${endpoint.method} ${endpoint.url}" is not supported.`);
	const credentials = btoa(`${state.clientId}:${state.clientSecret}`);
	endpoint.headers.authorization = `basic ${credentials}`;
	try {
		return await request2(endpoint);
	} catch (error) {
		if (error.status !== 401) throw error;
		error.message = `[@octokit/auth-oauth-app] "${endpoint.method} ${endpoint.url}" does not support clientId/clientSecret basic authentication.`;
		throw error;
	}
}
var VERSION$2 = "0.0.0-development";
function createOAuthAppAuth(options) {
	const state = Object.assign({
		request: request.defaults({ headers: { "user-agent": `octokit-auth-oauth-app.js/${VERSION$2} ${getUserAgent()}` } }),
		clientType: "oauth-app"
	}, options);
	return Object.assign(auth$1.bind(null, state), { hook: hook$1.bind(null, state) });
}
/* v8 ignore next -- @preserve */
// node_modules/universal-github-app-jwt/lib/utils.js
/**
* @param {string} privateKey
* @returns {boolean}
*/
function isPkcs1(privateKey) {
	return privateKey.includes("-----BEGIN RSA PRIVATE KEY-----");
}
/**
* @param {string} privateKey
* @returns {boolean}
*/
function isOpenSsh(privateKey) {
	return privateKey.includes("-----BEGIN OPENSSH PRIVATE KEY-----");
}
/**
* @param {string} str
* @returns {ArrayBuffer}
*/
function string2ArrayBuffer(str) {
	const buf = new ArrayBuffer(str.length);
	const bufView = new Uint8Array(buf);
	for (let i = 0, strLen = str.length; i < strLen; i++) bufView[i] = str.charCodeAt(i);
	return buf;
}
/**
* @param {string} pem
* @returns {ArrayBuffer}
*/
function getDERfromPEM(pem) {
	const pemB64 = pem.trim().split("\n").slice(1, -1).join("");
	return string2ArrayBuffer(atob(pemB64));
}
/**
* @param {import('../internals').Header} header
* @param {import('../internals').Payload} payload
* @returns {string}
*/
function getEncodedMessage(header, payload) {
	return `${base64encodeJSON(header)}.${base64encodeJSON(payload)}`;
}
/**
* @param {ArrayBuffer} buffer
* @returns {string}
*/
function base64encode(buffer) {
	var binary = "";
	var bytes = new Uint8Array(buffer);
	var len = bytes.byteLength;
	for (var i = 0; i < len; i++) binary += String.fromCharCode(bytes[i]);
	return fromBase64(btoa(binary));
}
/**
* @param {string} base64
* @returns {string}
*/
function fromBase64(base64) {
	return base64.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_");
}
/**
* @param {Record<string,unknown>} obj
* @returns {string}
*/
function base64encodeJSON(obj) {
	return fromBase64(btoa(JSON.stringify(obj)));
}
// node_modules/universal-github-app-jwt/lib/crypto-node.js
function convertPrivateKey(privateKey) {
	if (!isPkcs1(privateKey)) return privateKey;
	return (0, node_crypto.createPrivateKey)(privateKey).export({
		type: "pkcs8",
		format: "pem"
	});
}
// node_modules/universal-github-app-jwt/lib/get-token.js
/**
* @param {import('../internals').GetTokenOptions} options
* @returns {Promise<string>}
*/
async function getToken({ privateKey, payload }) {
	const convertedPrivateKey = convertPrivateKey(privateKey);
	/* c8 ignore start */
	if (isPkcs1(convertedPrivateKey)) throw new Error("[universal-github-app-jwt] Private Key is in PKCS#1 format, but only PKCS#8 is supported. See https://github.com/gr2m/universal-github-app-jwt#private-key-formats");
	/* c8 ignore stop */
	if (isOpenSsh(convertedPrivateKey)) throw new Error("[universal-github-app-jwt] Private Key is in OpenSSH format, but only PKCS#8 is supported. See https://github.com/gr2m/universal-github-app-jwt#private-key-formats");
	const algorithm = {
		name: "RSASSA-PKCS1-v1_5",
		hash: { name: "SHA-256" }
	};
	/** @type {import('../internals').Header} */
	const header = {
		alg: "RS256",
		typ: "JWT"
	};
	const privateKeyDER = getDERfromPEM(convertedPrivateKey);
	const importedKey = await node_crypto.subtle.importKey("pkcs8", privateKeyDER, algorithm, false, ["sign"]);
	const encodedMessage = getEncodedMessage(header, payload);
	const encodedMessageArrBuf = string2ArrayBuffer(encodedMessage);
	return `${encodedMessage}.${base64encode(await node_crypto.subtle.sign(algorithm.name, importedKey, encodedMessageArrBuf))}`;
}
// node_modules/universal-github-app-jwt/index.js
/**
* @param {import(".").Options} options
* @returns {Promise<import(".").Result>}
*/
async function githubAppJwt({ id, privateKey, now = Math.floor(Date.now() / 1e3) }) {
	const privateKeyWithNewlines = privateKey.replace(/\\n/g, "\n");
	const nowWithSafetyMargin = now - 30;
	const expiration = nowWithSafetyMargin + 600;
	return {
		appId: id,
		expiration,
		token: await getToken({
			privateKey: privateKeyWithNewlines,
			payload: {
				iat: nowWithSafetyMargin,
				exp: expiration,
				iss: id
			}
		})
	};
}
// node_modules/toad-cache/dist/toad-cache.mjs
/**
* toad-cache
*
* @copyright 2026 Igor Savin <kibertoad@gmail.com>
* @license MIT
* @version 3.7.3
*/
/**
* Validates the shared cache constructor parameters.
* Both values must be non-negative integers.
*
* @param {number} max
* @param {number} ttlInMsecs
*/
function validateCacheParams(max, ttlInMsecs) {
	if (typeof max !== "number" || !Number.isInteger(max) || max < 0) throw new Error("Invalid max value");
	if (typeof ttlInMsecs !== "number" || !Number.isInteger(ttlInMsecs) || ttlInMsecs < 0) throw new Error("Invalid ttl value");
}
var LruObject = class {
	constructor(max = 1e3, ttlInMsecs = 0) {
		validateCacheParams(max, ttlInMsecs);
		this.first = null;
		this.items = Object.create(null);
		this.last = null;
		this.size = 0;
		this.max = max;
		this.ttl = ttlInMsecs;
	}
	bumpLru(item) {
		if (this.last === item) return;
		const last = this.last;
		const next = item.next;
		const prev = item.prev;
		if (this.first === item) this.first = next;
		item.next = null;
		item.prev = last;
		last.next = item;
		if (prev !== null) prev.next = next;
		/* v8 ignore next 3 -- next is always non-null here: the early return above guarantees item !== this.last in a well-formed list */
		if (next !== null) next.prev = prev;
		this.last = item;
	}
	clear() {
		this.items = Object.create(null);
		this.first = null;
		this.last = null;
		this.size = 0;
	}
	delete(key) {
		const item = this.items[key];
		if (item !== void 0) {
			delete this.items[key];
			this.size--;
			if (item.prev !== null) item.prev.next = item.next;
			if (item.next !== null) item.next.prev = item.prev;
			if (this.first === item) this.first = item.next;
			if (this.last === item) this.last = item.prev;
		}
	}
	deleteMany(keys) {
		for (var i = 0; i < keys.length; i++) this.delete(keys[i]);
	}
	evict() {
		if (this.size > 0) {
			const item = this.first;
			delete this.items[item.key];
			if (--this.size === 0) {
				this.first = null;
				this.last = null;
			} else {
				this.first = item.next;
				this.first.prev = null;
			}
		}
	}
	expiresAt(key) {
		const item = this.items[key];
		if (item !== void 0) return item.expiry;
	}
	get(key) {
		const item = this.items[key];
		if (item !== void 0) {
			if (this.ttl > 0 && item.expiry <= Date.now()) {
				this.delete(key);
				return;
			}
			this.bumpLru(item);
			return item.value;
		}
	}
	getMany(keys) {
		const result = new Array(keys.length);
		for (var i = 0; i < keys.length; i++) result[i] = this.get(keys[i]);
		return result;
	}
	keys() {
		return Object.keys(this.items);
	}
	set(key, value) {
		const existing = this.items[key];
		if (existing !== void 0) {
			existing.value = value;
			existing.expiry = this.ttl > 0 ? Date.now() + this.ttl : this.ttl;
			this.bumpLru(existing);
			return;
		}
		if (this.max > 0 && this.size >= this.max) this.evict();
		const item = {
			expiry: this.ttl > 0 ? Date.now() + this.ttl : this.ttl,
			key,
			prev: this.last,
			next: null,
			value
		};
		this.items[key] = item;
		if (++this.size === 1) this.first = item;
		else this.last.next = item;
		this.last = item;
	}
};
// node_modules/@octokit/auth-app/dist-node/index.js
async function getAppAuthentication({ appId, privateKey, timeDifference, createJwt }) {
	try {
		if (createJwt) {
			const { jwt, expiresAt } = await createJwt(appId, timeDifference);
			return {
				type: "app",
				token: jwt,
				appId,
				expiresAt
			};
		}
		const authOptions = {
			id: appId,
			privateKey
		};
		if (timeDifference) Object.assign(authOptions, { now: Math.floor(Date.now() / 1e3) + timeDifference });
		const appAuthentication = await githubAppJwt(authOptions);
		return {
			type: "app",
			token: appAuthentication.token,
			appId: appAuthentication.appId,
			expiresAt: (/* @__PURE__ */ new Date(appAuthentication.expiration * 1e3)).toISOString()
		};
	} catch (error) {
		if (privateKey === "-----BEGIN RSA PRIVATE KEY-----") throw new Error("The 'privateKey` option contains only the first line '-----BEGIN RSA PRIVATE KEY-----'. If you are setting it using a `.env` file, make sure it is set on a single line with newlines replaced by '\n'");
		else throw error;
	}
}
function getCache() {
	return new LruObject(15e3, 354e4);
}
async function get(cache, options) {
	const cacheKey = optionsToCacheKey(options);
	const result = await cache.get(cacheKey);
	if (!result) return;
	const [token, createdAt, expiresAt, repositorySelection, permissionsString, singleFileName] = result.split("|");
	return {
		token,
		createdAt,
		expiresAt,
		permissions: options.permissions || permissionsString.split(/,/).reduce((permissions2, string) => {
			if (/!$/.test(string)) permissions2[string.slice(0, -1)] = "write";
			else permissions2[string] = "read";
			return permissions2;
		}, {}),
		repositoryIds: options.repositoryIds,
		repositoryNames: options.repositoryNames,
		singleFileName,
		repositorySelection
	};
}
async function set(cache, options, data) {
	const key = optionsToCacheKey(options);
	const permissionsString = options.permissions ? "" : Object.keys(data.permissions).map((name) => `${name}${data.permissions[name] === "write" ? "!" : ""}`).join(",");
	const value = [
		data.token,
		data.createdAt,
		data.expiresAt,
		data.repositorySelection,
		permissionsString,
		data.singleFileName
	].join("|");
	await cache.set(key, value);
}
function optionsToCacheKey({ installationId, permissions = {}, repositoryIds = [], repositoryNames = [] }) {
	const permissionsString = Object.keys(permissions).sort().map((name) => permissions[name] === "read" ? name : `${name}!`).join(",");
	return [
		installationId,
		repositoryIds.sort().join(","),
		repositoryNames.join(","),
		permissionsString
	].filter(Boolean).join("|");
}
function toTokenAuthentication({ installationId, token, createdAt, expiresAt, repositorySelection, permissions, repositoryIds, repositoryNames, singleFileName }) {
	return Object.assign({
		type: "token",
		tokenType: "installation",
		token,
		installationId,
		permissions,
		createdAt,
		expiresAt,
		repositorySelection
	}, repositoryIds ? { repositoryIds } : null, repositoryNames ? { repositoryNames } : null, singleFileName ? { singleFileName } : null);
}
async function getInstallationAuthentication(state, options, customRequest) {
	const installationId = Number(options.installationId || state.installationId);
	if (!installationId) throw new Error("[@octokit/auth-app] installationId option is required for installation authentication.");
	if (options.factory) {
		const { type, factory, oauthApp, ...factoryAuthOptions } = {
			...state,
			...options
		};
		return factory(factoryAuthOptions);
	}
	const request = customRequest || state.request;
	return getInstallationAuthenticationConcurrently(state, {
		...options,
		installationId
	}, request);
}
var pendingPromises = /* @__PURE__ */ new Map();
function getInstallationAuthenticationConcurrently(state, options, request) {
	const cacheKey = optionsToCacheKey(options);
	if (pendingPromises.has(cacheKey)) return pendingPromises.get(cacheKey);
	const promise = getInstallationAuthenticationImpl(state, options, request).finally(() => pendingPromises.delete(cacheKey));
	pendingPromises.set(cacheKey, promise);
	return promise;
}
async function getInstallationAuthenticationImpl(state, options, request) {
	if (!options.refresh) {
		const result = await get(state.cache, options);
		if (result) {
			const { token: token2, createdAt: createdAt2, expiresAt: expiresAt2, permissions: permissions2, repositoryIds: repositoryIds2, repositoryNames: repositoryNames2, singleFileName: singleFileName2, repositorySelection: repositorySelection2 } = result;
			return toTokenAuthentication({
				installationId: options.installationId,
				token: token2,
				createdAt: createdAt2,
				expiresAt: expiresAt2,
				permissions: permissions2,
				repositorySelection: repositorySelection2,
				repositoryIds: repositoryIds2,
				repositoryNames: repositoryNames2,
				singleFileName: singleFileName2
			});
		}
	}
	const appAuthentication = await getAppAuthentication(state);
	const payload = {
		installation_id: options.installationId,
		mediaType: { previews: ["machine-man"] },
		headers: { authorization: `bearer ${appAuthentication.token}` }
	};
	if (options.repositoryIds) Object.assign(payload, { repository_ids: options.repositoryIds });
	if (options.repositoryNames) Object.assign(payload, { repositories: options.repositoryNames });
	if (options.permissions) Object.assign(payload, { permissions: options.permissions });
	const { data: { token, expires_at: expiresAt, repositories, permissions: permissionsOptional, repository_selection: repositorySelectionOptional, single_file: singleFileName } } = await request("POST /app/installations/{installation_id}/access_tokens", payload);
	const permissions = permissionsOptional || {};
	const repositorySelection = repositorySelectionOptional || "all";
	const repositoryIds = repositories ? repositories.map((r) => r.id) : void 0;
	const repositoryNames = repositories ? repositories.map((repo) => repo.name) : void 0;
	const createdAt = (/* @__PURE__ */ new Date()).toISOString();
	const cacheOptions = {
		token,
		createdAt,
		expiresAt,
		repositorySelection,
		permissions,
		repositoryIds,
		repositoryNames
	};
	if (singleFileName) Object.assign(payload, { singleFileName });
	await set(state.cache, options, cacheOptions);
	const cacheData = {
		installationId: options.installationId,
		token,
		createdAt,
		expiresAt,
		repositorySelection,
		permissions,
		repositoryIds,
		repositoryNames
	};
	if (singleFileName) Object.assign(cacheData, { singleFileName });
	return toTokenAuthentication(cacheData);
}
async function auth(state, authOptions) {
	switch (authOptions.type) {
		case "app": return getAppAuthentication(state);
		case "oauth-app": return state.oauthApp({ type: "oauth-app" });
		case "installation": return getInstallationAuthentication(state, {
			...authOptions,
			type: "installation"
		});
		case "oauth-user": return state.oauthApp(authOptions);
		default: throw new Error(`Invalid auth type: ${authOptions.type}`);
	}
}
var PATHS = [
	"/app",
	"/app/hook/config",
	"/app/hook/deliveries",
	"/app/hook/deliveries/{delivery_id}",
	"/app/hook/deliveries/{delivery_id}/attempts",
	"/app/installations",
	"/app/installations/{installation_id}",
	"/app/installations/{installation_id}/access_tokens",
	"/app/installations/{installation_id}/suspended",
	"/app/installation-requests",
	"/marketplace_listing/accounts/{account_id}",
	"/marketplace_listing/plan",
	"/marketplace_listing/plans",
	"/marketplace_listing/plans/{plan_id}/accounts",
	"/marketplace_listing/stubbed/accounts/{account_id}",
	"/marketplace_listing/stubbed/plan",
	"/marketplace_listing/stubbed/plans",
	"/marketplace_listing/stubbed/plans/{plan_id}/accounts",
	"/orgs/{org}/installation",
	"/repos/{owner}/{repo}/installation",
	"/users/{username}/installation",
	"/enterprises/{enterprise}/installation"
];
function routeMatcher(paths) {
	const regex = `^(?:${paths.map((p) => p.split("/").map((c) => c.startsWith("{") ? "(?:.+?)" : c).join("/")).map((r) => `(?:${r})`).join("|")})$`;
	return new RegExp(regex, "i");
}
var REGEX = routeMatcher(PATHS);
function requiresAppAuth(url) {
	return !!url && REGEX.test(url.split("?")[0]);
}
var FIVE_SECONDS_IN_MS = 5e3;
function isNotTimeSkewError(error) {
	return !(error.message.match(/'Expiration time' claim \('exp'\) is too far in the future/) || error.message.match(/'Expiration time' claim \('exp'\) must be a numeric value representing the future time at which the assertion expires/) || error.message.match(/'Issued at' claim \('iat'\) must be an Integer representing the time that the assertion was issued/));
}
async function hook(state, request, route, parameters) {
	const endpoint = request.endpoint.merge(route, parameters);
	const url = endpoint.url;
	if (/\/login\/oauth\/access_token$/.test(url)) return request(endpoint);
	if (requiresAppAuth(url.replace(request.endpoint.DEFAULTS.baseUrl, ""))) {
		const { token: token2 } = await getAppAuthentication(state);
		endpoint.headers.authorization = `bearer ${token2}`;
		let response;
		try {
			response = await request(endpoint);
		} catch (error) {
			if (isNotTimeSkewError(error)) throw error;
			if (typeof error.response.headers.date === "undefined") throw error;
			const diff = Math.floor((Date.parse(error.response.headers.date) - Date.parse((/* @__PURE__ */ new Date()).toString())) / 1e3);
			state.log.warn(error.message);
			state.log.warn(`[@octokit/auth-app] GitHub API time and system time are different by ${diff} seconds. Retrying request with the difference accounted for.`);
			const { token: token3 } = await getAppAuthentication({
				...state,
				timeDifference: diff
			});
			endpoint.headers.authorization = `bearer ${token3}`;
			return request(endpoint);
		}
		return response;
	}
	if (requiresBasicAuth(url)) {
		const authentication = await state.oauthApp({ type: "oauth-app" });
		endpoint.headers.authorization = authentication.headers.authorization;
		return request(endpoint);
	}
	const { token, createdAt } = await getInstallationAuthentication(state, {}, request.defaults({ baseUrl: endpoint.baseUrl }));
	endpoint.headers.authorization = `token ${token}`;
	return sendRequestWithRetries(state, request, endpoint, createdAt);
}
async function sendRequestWithRetries(state, request, options, createdAt, retries = 0) {
	const timeSinceTokenCreationInMs = +/* @__PURE__ */ new Date() - +new Date(createdAt);
	try {
		return await request(options);
	} catch (error) {
		if (error.status !== 401) throw error;
		if (timeSinceTokenCreationInMs >= FIVE_SECONDS_IN_MS) {
			if (retries > 0) error.message = `After ${retries} retries within ${timeSinceTokenCreationInMs / 1e3}s of creating the installation access token, the response remains 401. At this point, the cause may be an authentication problem or a system outage. Please check https://www.githubstatus.com for status information`;
			throw error;
		}
		++retries;
		const awaitTime = retries * 1e3;
		state.log.warn(`[@octokit/auth-app] Retrying after 401 response to account for token replication delay (retry: ${retries}, wait: ${awaitTime / 1e3}s)`);
		await new Promise((resolve) => setTimeout(resolve, awaitTime));
		return sendRequestWithRetries(state, request, options, createdAt, retries);
	}
}
var VERSION$1 = "8.3.1";
function createAppAuth(options) {
	if (!options.appId) throw new Error("[@octokit/auth-app] appId option is required");
	if (!options.privateKey && !options.createJwt) throw new Error("[@octokit/auth-app] privateKey option is required");
	else if (options.privateKey && options.createJwt) throw new Error("[@octokit/auth-app] privateKey and createJwt options are mutually exclusive");
	if ("installationId" in options && !options.installationId) throw new Error("[@octokit/auth-app] installationId is set to a falsy value");
	const log = options.log || {};
	if (typeof log.warn !== "function") log.warn = console.warn.bind(console);
	const request$1 = options.request || request.defaults({ headers: { "user-agent": `octokit-auth-app.js/${VERSION$1} ${getUserAgent()}` } });
	const state = Object.assign({
		request: request$1,
		cache: getCache()
	}, options, options.installationId ? { installationId: Number(options.installationId) } : {}, {
		log,
		oauthApp: createOAuthAppAuth({
			clientType: "github-app",
			clientId: options.clientId || "",
			clientSecret: options.clientSecret || "",
			request: request$1
		})
	});
	return Object.assign(auth.bind(null, state), { hook: hook.bind(null, state) });
}
/* v8 ignore next - permissions are optional per OpenAPI spec, but we think that is incorrect -- @preserve */
/* v8 ignore next - repositorySelection are optional per OpenAPI spec, but we think that is incorrect -- @preserve */
/* v8 ignore start - due to skipped tests, see https://github.com/octokit/auth-app.js/pull/580 -- @preserve */
/* v8 ignore end -- @preserve */
// src/http/fetch.ts
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
		const method = (init.method ?? "GET").toUpperCase();
		const call = `[${method}] "${require_cli.urlForDisplay(url)}"`;
		if (method !== "GET" && method !== "POST") throw new require_cli.HttpError(`${call}: only GET and POST go through this client`, {
			failure: "network",
			call
		});
		if (init.body !== void 0 && init.body !== null && typeof init.body !== "string") throw new require_cli.HttpError(`${call}: only a text body goes through this client`, {
			failure: "network",
			call
		});
		const answer = await http.send({
			method,
			url,
			headers: Object.fromEntries(new Headers(init.headers).entries()),
			body: init.body ?? void 0,
			signal: init.signal ?? void 0
		});
		if (answer.status < 200 || answer.status > 599) throw new require_cli.HttpError(`${call}: answered status ${answer.status}`, {
			failure: "network",
			call
		});
		const headers = new Headers();
		for (const [name, value] of Object.entries(answer.headers)) for (const one of Array.isArray(value) ? value : value === void 0 ? [] : [value]) headers.append(name, one);
		const empty = [
			204,
			205,
			304
		].includes(answer.status);
		const response = new Response(empty ? null : answer.text, {
			status: answer.status,
			headers
		});
		Object.defineProperty(response, "url", { value: url });
		return response;
	};
}
// src/app/github-transport.ts
const RETRY = {
	baseMs: 500,
	capMs: 15e3,
	maxAttempts: 12
};
const USER_AGENT = "lease-gate-app";
function transport(options) {
	return {
		options,
		budgetMs: options.budgetMs ?? 12e4,
		policy: options.retry ?? RETRY
	};
}
function stopped(what, signal) {
	if (!signal?.aborted) return;
	throw new require_log_output.GitHubError(`${what}: stopped before GitHub's answer`, { status: 0 });
}
/** Retries `attempt` while it says how long to wait, within the budget; `signal` ends it. */
async function retrying(t, what, attempt, signal = t.options.signal) {
	const until = t.options.clock.now() + t.budgetMs;
	for (let n = 0;; n += 1) {
		stopped(what, signal);
		const result = await attempt();
		if (!isRetry(result)) return result;
		const left = until - t.options.clock.now();
		if (n + 1 >= t.policy.maxAttempts || result.retryInMs > left) throw new require_log_output.GitHubError(`${what}: ${result.why}; gave up after ${n + 1} attempts`, { status: 0 });
		await t.options.sleep(result.retryInMs, signal);
	}
}
function createCall(t, bearers) {
	const stopping = t.options.signal;
	/** The app's stop and a call's own signal, either of which ends the call. */
	const either = (signal) => signal && stopping ? AbortSignal.any([signal, stopping]) : signal ?? stopping;
	return async (method, as, path, body, controls = {}) => {
		let attempt = 0;
		let refreshed = false;
		const signal = either(controls.signal);
		const what = `${method} ${path}`;
		return retrying(t, what, async () => {
			attempt += 1;
			const bearer = as === "app" ? await bearers.appJwt() : await bearers.token(as, false);
			await controls.beforeEach?.();
			stopped(what, signal);
			return send(t, {
				method,
				path,
				bearer,
				body,
				signal
			}, attempt, () => {
				if (refreshed) return false;
				refreshed = true;
				return true;
			}).then(async (answer) => {
				if (answer !== "refresh") return answer;
				if (as !== "app") await bearers.token(as, true);
				return {
					retryInMs: 0,
					why: "token refused"
				};
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
				...require_log_output.restHeaders(bearer, USER_AGENT),
				...body ? { "content-type": "application/json" } : {}
			},
			body: body ? JSON.stringify(body) : void 0,
			...signal ? { signal } : {}
		});
	} catch (error) {
		stopped(`${method} ${path}`, signal);
		if (!(error instanceof require_cli.HttpError) || error.failure === "cancelled") throw error;
		options.onAttempt?.(void 0);
		return {
			retryInMs: require_time.backoffMs(policy, attempt, options.random),
			why: error.message
		};
	}
	options.onAttempt?.(answer.status);
	if (answer.status < 300) return answer;
	if (answer.status === 401 && mayRefresh()) return "refresh";
	const wait = require_log_output.retryWait(answer, options.wallNow(), policy, attempt, options.random);
	if (wait !== void 0) return {
		retryInMs: wait,
		why: `GitHub answered ${answer.status}`
	};
	throw new require_log_output.GitHubError(`${method} ${path}: GitHub answered ${answer.status}: ${require_cli.untrusted(require_log_output.answerMessage(answer.text), 200)}`, { status: answer.status });
}
const isRetry = (value) => typeof value === "object" && value !== null && "retryInMs" in value && "why" in value;
// src/app/github-token.ts
/** A token expiring sooner than this is fetched again. */
const REFRESH_BEFORE_MS = 3e5;
function appBearers(t, key) {
	const { apiUrl, http, signal } = t.options;
	const auth = createAppAuth({
		appId: key.appId,
		privateKey: key.privateKey,
		request: request.defaults({
			baseUrl: apiUrl,
			headers: { "user-agent": USER_AGENT },
			request: {
				fetch: fetchOver(http),
				...signal ? { signal } : {}
			}
		})
	});
	return {
		token: (installationId, refresh) => token(t, auth, installationId, refresh),
		appJwt: () => appJwt(auth)
	};
}
async function token(t, auth, installationId, refresh) {
	let attempts = 0;
	return retrying(t, `installation ${installationId} token`, async () => {
		try {
			const got = await auth({
				type: "installation",
				installationId,
				...refresh ? { refresh } : {}
			});
			if (!refresh && Date.parse(got.expiresAt) - t.options.wallNow() < REFRESH_BEFORE_MS) return token(t, auth, installationId, true);
			return got.token;
		} catch (error) {
			if (error instanceof require_log_output.GitHubError) throw error;
			const failed = error.cause;
			if (failed instanceof require_cli.HttpError) {
				if (failed.failure === "cancelled") throw failed;
				attempts += 1;
				return {
					retryInMs: require_time.backoffMs(t.policy, attempts, t.options.random),
					why: failed.message
				};
			}
			return tokenAnswered(t, installationId, error);
		}
	});
}
/** GitHub answered the token exchange with a refusal: how long to wait before asking again, or the error. */
function tokenAnswered({ options, policy }, installationId, error) {
	const status = Number(error.status ?? 0);
	const headers = error.response?.headers ?? {};
	const wait = require_log_output.retryWait({
		status,
		headers
	}, options.wallNow(), policy, 0, options.random);
	if (wait !== void 0) return {
		retryInMs: wait,
		why: `GitHub answered ${status || "nothing"}`
	};
	if (status === 404 || status === 401 || status === 403) throw new require_log_output.GitHubError(`installation ${installationId}: GitHub refused a token (${status}): not installed, suspended, or the App id or key is wrong`, { status });
	throw new require_log_output.GitHubError(`installation ${installationId} token: ${require_cli.untrusted(require_cli.causeText(error), 200)}`, {
		status,
		cause: error
	});
}
/** The App's own JWT (for `/app/\u2026` routes), made by auth-app from the private key. */
async function appJwt(auth) {
	try {
		return (await auth({ type: "app" })).token;
	} catch (error) {
		throw new require_log_output.GitHubError(`App JWT: ${require_cli.untrusted(require_cli.causeText(error), 200)}`, {
			status: 0,
			cause: error
		});
	}
}
// src/app/github.ts
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
	return !(error instanceof require_log_output.GitHubError && error.status >= 400 && error.status < 500);
}
function createGitHubApp(options) {
	const t = transport(options);
	const bearers = appBearers(t, options);
	const call = createCall(t, bearers);
	return {
		...hookDeliveries((path) => call("GET", "app", path)),
		...runCalls(call),
		token: (id) => bearers.token(id, false)
	};
}
// src/app/approval.ts
/** The plane no longer shows this run holding the lease it was granted: never approve it. */
var LeaseGoneError = class extends require_cli.LeaseGateError {
	name = "LeaseGoneError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "lease_revoked"
		});
	}
};
/** Renews `held` until stopped or lost; how long it is wanted is set once the approval is final. */
function keepAlive(held, signal, clock) {
	let until = Infinity;
	const stop = new AbortController();
	const ended = new AbortController();
	const done = held.keep({
		signal: AbortSignal.any([signal, stop.signal]),
		stillWanted: () => clock.now() < until
	}).finally(() => ended.abort());
	return {
		done,
		/** Aborted once the keeper stopped, whatever the reason: an approval in flight must stop too. */
		ended: ended.signal,
		keepFor: (ms) => void (until = clock.now() + ms),
		stop: async () => {
			stop.abort();
			return done;
		}
	};
}
/** Is `lease` still this run's, as the plane says now? Throws LeaseGoneError when not (or unknown). */
async function stillHeld(plane, lease, signal) {
	let now;
	try {
		now = await plane.status(lease.resource, { signal });
	} catch (error) {
		throw new LeaseGoneError(`the plane could not say who holds ${lease.resource} (${require_cli.errorMessage(error)})`, { cause: error });
	}
	if (now?.holder === lease.holder && now.id === lease.id && now.fence === lease.fence) return;
	const by = now ? `lease ${now.id} of ${require_cli.untrusted(now.holder, 300)}` : "nobody";
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
		}
	};
}
/** How long an approved run's lease is kept, as the log says it. */
const keptFor = (config) => `kept for the job to take up, at most ${require_cli.formatDuration(config.takeUpGraceMs)} or until the run ends`;
const fenceOf = (lease) => lease.fence === void 0 ? "none" : String(lease.fence);
async function approve(options, s, held, renewal) {
	const { config, github, clock, log } = options;
	const { lease } = held;
	const fence = fenceOf(lease);
	const comment = `lease-gate: ${s.resource} granted to this run as ${lease.holder}: lease ${lease.id}, fence ${fence}, plane ${config.planeUrl}. The job's lease-gate step takes it up; it lapses if no step has within ${require_cli.formatDuration(config.takeUpGraceMs)}.`;
	const keeper = keepAlive(held, s.wait.cancel.signal, clock);
	const stop = AbortSignal.any([keeper.ended, s.wait.cancel.signal]);
	try {
		await github.review(s.installation, s.repo, s.runId, {
			environment_name: s.review.environment,
			state: "approved",
			comment
		}, {
			signal: stop,
			beforeEach: () => stillHeld(options.plane, lease, stop)
		});
		log(`${s.tag}: approved after ${require_cli.formatDuration(held.waitedMs)}: ${s.resource} lease ${lease.id}, fence ${fence}; ${keptFor(config)}`);
	} catch (error) {
		if (!s.wait.cancel.signal.aborted && (error instanceof LeaseGoneError || keeper.ended.aborted)) return lost(log, s, held, keeper, error);
		if (!kept(options, s, error, lease, renewal)) {
			await keeper.stop();
			const released = await held.release();
			log(`${s.tag}: approval refused (${require_cli.errorMessage(error)}); lease ${lease.id} ${released.kind === "released" ? "given back" : "left to lapse"}`);
			return;
		}
	}
	keeper.keepFor(config.takeUpGraceMs);
	await afterApproval(options, s, held, await keeper.done);
}
/** The lease ended before GitHub took the approval: nothing more is sent but a rejection. */
async function lost(log, s, held, keeper, error) {
	const status = await keeper.stop();
	const why = error instanceof LeaseGoneError ? error.message : `lease ${held.lease.id} ended before GitHub answered (${status.lost?.reason ?? "renewals failed"})`;
	log(`${s.tag}: not approved: ${why}`);
	await s.review("rejected", `lease-gate: ${s.resource} was granted to this run, but the lease ended before GitHub took the approval (${why}); not approved. Re-run the job to queue again.`);
}
/** After a failed approval call: is the lease kept (the rule may be approved), or given back? */
function kept({ config, log }, s, error, lease, renewal) {
	const fence = fenceOf(lease);
	if (error instanceof require_log_output.GitHubError && error.status === 422) {
		log(`${s.tag}: GitHub says the rule is already decided (${require_cli.errorMessage(error)}); lease ${lease.id}, fence ${fence} ${keptFor(config)}`);
		return true;
	}
	if (mayHaveApplied(error)) {
		log(`${s.tag}: the approval may have been applied (${require_cli.errorMessage(error)}); lease ${lease.id}, fence ${fence} ${keptFor(config)}`);
		return true;
	}
	if (renewal) {
		log(`${s.tag}: approval refused (${require_cli.errorMessage(error)}), but this run held lease ${lease.id} before this request: fence ${fence} ${keptFor(config)}`);
		return true;
	}
	return false;
}
async function afterApproval({ log }, s, held, kept) {
	const { lease } = held;
	if (s.wait.why === "run-completed") {
		const released = await held.release();
		log(`${s.tag}: the run completed; ${released.kind === "released" ? `gave back lease ${lease.id}` : "nothing left to give back"}`);
		return;
	}
	const gaveBack = kept.lost?.reason === "revoked" && (await held.release()).kind !== "failed";
	const how = kept.ended?.why === "not-wanted" ? "the take-up grace ended: the job keeps it alive, or it lapses" : kept.lost?.reason === "revoked" ? `an operator revoked it: ${require_cli.untrusted(kept.lost.message ?? "no reason given", 300)}; ${gaveBack ? "gave it back" : "could not give it back (it lapses)"}, the job's step cannot take it up` : kept.lost ? `it ended (${kept.lost.reason}): the job gave it back` : `stopped (${kept.ended?.why ?? "unknown"})`;
	log(`${s.tag}: stopped renewing lease ${lease.id}: ${how}`);
}
// src/app/reviewers.ts
/** How often a run waiting for its reviewers is looked at: from 5 s, doubling to a minute (a review delivery wakes it sooner). */
const REVIEW_FIRST_LOOK_MS = 5e3;
const REVIEW_MAX_LOOK_MS = 6e4;
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
		} catch (error) {
			log(`${r.tag}: could not read where its required reviewers stand (${require_cli.errorMessage(error)}); it joins the queue now`);
			return true;
		}
		if (state === "none" || state === "approved") {
			if (waited) log(`${r.tag}: its reviewers approved; it joins the queue of ${resource}`);
			return true;
		}
		if (state === "rejected") {
			log(`${r.tag}: its reviewers rejected it; it does not join the queue of ${resource}`);
			return false;
		}
		if (!waited) {
			log(`${r.tag}: waits for its required reviewers before it joins the queue of ${resource}; it holds no place meanwhile`);
			arrival.placed?.();
			waited = true;
		}
		const left = deadline - clock.now();
		if (left <= 0) {
			await review("rejected", `lease-gate: its required reviewers did not approve it within the configured maximum wait (${require_cli.formatDuration(config.maxWaitMs)}); not approved.`);
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
	const wakers = state.awaitingReview.get(wait.runKey) ?? /* @__PURE__ */ new Set();
	state.awaitingReview.set(wait.runKey, wakers.add(wake));
	wait.cancel.signal.addEventListener("abort", wake, { once: true });
	try {
		await sleep(ms, nap.signal);
	} finally {
		wait.cancel.signal.removeEventListener("abort", wake);
		wakers.delete(wake);
		if (wakers.size === 0) state.awaitingReview.delete(wait.runKey);
	}
}
/** A `deployment_review` delivery: the run it names, if it waits for its reviewers, looks now. */
function deploymentReview(state, delivery) {
	const parsed = deploymentReviewSchema.safeParse(delivery.payload);
	if (!parsed.success) return;
	const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
	for (const wake of state.awaitingReview.get(key) ?? []) wake();
}
// src/app/run-gate.ts
/**
* A run waiting for its gate: it takes a place in the resource's queue under its DID,
* waits (blocking acquire), and is approved when granted (approval.ts), or rejected with
* the reason; while it waits or is kept, a run that ends leaves the queue.
*/
const PROGRESS_EVERY_MS = 6e4;
const sessionFor = (gate, did, resource) => require_session.openSession({
	apiUrl: gate.config.planeUrl,
	key: gate.config.planeKey,
	resource,
	actorDid: did,
	client: gate.plane,
	clock: gate.clock,
	sleep: gate.sleep,
	random: gate.random,
	wallNow: gate.wallNow
});
/** A run approved before a restart whose DID still holds its lease (adopt.ts): kept as after an approval. */
function keepApproved(gate, run) {
	const { active } = gate.state;
	if (active.has(run.did)) return;
	const wait = {
		runKey: runKey(run.repository, run.runId),
		cancel: new AbortController()
	};
	active.set(run.did, wait);
	const review = reviewer(gate, run.installation, run.repo, run.runId, run.environment, run.tag);
	const s = {
		...run,
		wait,
		review
	};
	const watching = new AbortController();
	const watch = watchRun(gate, s, watching.signal);
	track(gate.state, gate.approver.keepForTakeUp(s, sessionFor(gate, run.did, run.resource).held(run.lease)).finally(async () => {
		watching.abort();
		await watch;
		active.delete(run.did);
	}));
}
async function serve(gate, s) {
	const session = sessionFor(gate, s.did, s.resource);
	gate.log(`${s.tag}: queued for ${s.resource} as ${s.did}`);
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
				}
			});
			s.placed();
		} catch (error) {
			s.placed();
			return await refused(s, error);
		}
		if (result.outcome === "cancelled") {
			gate.log(`${s.tag}: ${s.wait.why === "shutdown" ? "the app is stopping" : "the run ended"} while it waited; left the queue of ${s.resource}`);
			return;
		}
		if (result.outcome === "timeout") return await s.review("rejected", `lease-gate: waited longer than the configured maximum (${require_cli.formatDuration(gate.config.maxWaitMs)}) for ${s.resource}, still ${result.reserved ? "reserved for" : "held by"} ${require_cli.shortHolder(result.holder)}; not approved.`);
		if (result.outcome === "superseded") return await s.review("rejected", `lease-gate: a newer run took this run's place in the queue of ${s.resource}; not approved.`);
		await gate.approver.approve(s, result.held, renews(before, result.held));
	} finally {
		watching.abort();
		await watch;
	}
}
/** The ask failed: the run is rejected, saying why. */
async function refused(s, error) {
	if (error instanceof require_session.LeaseRevokedError) return s.review("rejected", `lease-gate: ${s.resource} is revoked for this run: ${error.operatorMessage}`);
	const why = error instanceof require_session.LeaseRefusedError ? `the plane refused ${s.resource}: ${error.reason}` : error instanceof require_session.KeyRefusedError && error.status === 403 ? `the plane does not let this run have ${s.resource}: ${require_cli.errorMessage(error)}` : `the plane failed: ${require_cli.errorMessage(error)}`;
	return s.review("rejected", `lease-gate: ${why}; not approved.`);
}
/**
* What the plane says of the resource before this ask: the lease when this run's DID holds
* it (after a restart, a redelivery: the run was approved and its job may hold it), none
* when another or nobody does, `unknown` when the plane could not say.
*/
async function heldBefore({ log }, client, s) {
	try {
		const lease = await client.status(s.resource, { signal: s.wait.cancel.signal });
		return lease?.holder === s.did ? lease : void 0;
	} catch (error) {
		log(`${s.tag}: could not ask the plane who holds ${s.resource} (${require_cli.errorMessage(error)})`);
		return "unknown";
	}
}
/**
* True unless this ask newly granted the lease: the kernel keeps a lease's id on a renewal,
* so the same id as before is the DID's own lease renewed, and an unknown before counts as
* one (giving back a lease a job may deploy under is the worse mistake).
*/
function renews(before, held) {
	return before === "unknown" || before?.id === held.lease.id;
}
function heldReporter({ config, github, log }, s) {
	let lastLineAt = -Infinity;
	return async (event) => {
		const by = `${event.reserved ? "reserved for" : "held by"} ${require_cli.shortHolder(event.holder)}`;
		if (!event.holderChanged && event.elapsedMs - lastLineAt < PROGRESS_EVERY_MS) return;
		lastLineAt = event.elapsedMs;
		log(`${s.tag}: waiting for ${s.resource}: ${require_cli.untrusted(by, 300)}; waited ${require_cli.formatDuration(event.elapsedMs)}`);
		if (event.holderChanged && config.deploymentStatus) await github.deploymentStatus(s.installation, s.repo, s.deploymentId, `lease-gate: waiting for ${s.resource}, ${by}`).catch((error) => log(`${s.tag}: could not post the waiting status: ${require_cli.errorMessage(error)}`));
	};
}
/** A bounded check of the run's status while it waits or is kept: a missed event must not keep a place. */
async function watchRun({ config, github, log, sleep }, s, stop) {
	while (!stop.aborted) {
		try {
			await sleep(config.runCheckEveryMs, stop);
		} catch {
			return;
		}
		if (stop.aborted) return;
		try {
			if ((await github.getRun(s.installation, s.repo, s.runId)).status === "completed") return endRun(s.wait);
		} catch (error) {
			log(`${s.tag}: could not check the run's status: ${require_cli.errorMessage(error)}`);
		}
	}
}
/** A `workflow_run` delivery: a completed run's waits end (it leaves the queue, its kept lease is given back). */
function workflowRun(state, delivery) {
	const parsed = workflowRunSchema.safeParse(delivery.payload);
	if (!parsed.success || parsed.data.action !== "completed") return;
	const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
	for (const wait of state.active.values()) if (wait.runKey === key) endRun(wait);
}
// src/app/protection-rule.ts
/**
* The protection rule's core: a `deployment_protection_rule` request takes a place in
* the resource's queue under the DID the run's step takes up, waits (blocking acquire),
* approves when granted, and keeps the lease for the take-up grace; a refusal, a
* revoke or too long a wait rejects with the reason; a run that ends leaves the queue.
*/
/** More runs than this waiting at once are refused: every wait holds a little memory and a request. */
const MAX_WAITING = 1e3;
/** A kernel keeps a waiter's place for its held ask plus 2 s (kernel/rules/rules.ts); a little more. */
const STALE_PLACE_GRACE_MS = 3e3;
async function protectionRule(gate, delivery, arrival = {}) {
	if (arrival.recoveredSinceMs === void 0) await gate.state.recovering;
	const request = readRequest(gate, delivery);
	if (!request) return;
	const admitted = await admit(gate, request, arrival);
	if (!admitted) return;
	const { did, resource } = admitted;
	const { active } = gate.state;
	if (active.has(did)) {
		gate.log(`${request.tag}: already waiting as ${did}; this request is a repeat`);
		return;
	}
	const wait = {
		runKey: runKey(request.repository, request.runId),
		cancel: new AbortController()
	};
	active.set(did, wait);
	const waitedMs = arrival.recoveredSinceMs === void 0 ? 0 : Math.max(0, gate.wallNow() - arrival.recoveredSinceMs);
	try {
		if (arrival.recoveredSinceMs !== void 0 && !await placesLapsed(gate, request.tag, wait)) return;
		const { installation, repo, runId, tag, review } = request;
		if (!await reviewersApproved(gate, {
			installation,
			repo,
			runId,
			environment: request.environment.raw,
			tag,
			wait
		}, resource, arrival, review)) return;
		await serve(gate, {
			timeoutMs: Math.max(0, gate.config.maxWaitMs - waitedMs),
			placed: arrival.placed ?? (() => {}),
			tag,
			did,
			resource,
			wait,
			installation,
			repo,
			runId,
			deploymentId: request.deploymentId,
			review
		});
	} finally {
		active.delete(did);
	}
}
/** The request in `delivery`, or undefined (logged) when it is none the app answers. */
function readRequest(gate, delivery) {
	const parsed = protectionRuleSchema.safeParse(delivery.payload);
	if (!parsed.success) {
		gate.log(`delivery ${delivery.id}: not a deployment_protection_rule payload we can read; ignored`);
		return;
	}
	const event = parsed.data;
	if (event.action !== "requested") return void 0;
	const name = event.repository.full_name;
	const repo = require_cli.parseRepository(name);
	const runId = runIdFromCallback(event.deployment_callback_url, name);
	const shown = require_cli.untrusted(event.environment, 255);
	if (!runId) {
		gate.log(`delivery ${delivery.id}: deployment_callback_url names no run of ${name}; ignored`);
		return;
	}
	const tag = `run ${runId} of ${name} (environment ${shown})`;
	const installation = event.installation.id;
	return {
		repository: name,
		repo,
		runId,
		environment: {
			raw: event.environment,
			shown
		},
		deploymentId: event.deployment.id,
		installation,
		tag,
		review: reviewer(gate, installation, repo, runId, event.environment, tag)
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
		await github.token(installation);
	} catch (error) {
		log(`${tag}: dropped: ${require_cli.errorMessage(error)}`);
		return;
	}
	const rule = findRule(config.rules, repository, request.environment.raw);
	if (!rule) {
		await review("rejected", `lease-gate: no rule in the app's config for ${repository} and environment ${request.environment.shown}; not approved.`);
		return;
	}
	if (gate.state.active.size >= 1e3) {
		await review("rejected", `lease-gate: ${MAX_WAITING} runs are already waiting; try again later.`);
		return;
	}
	const run = await github.getRun(installation, request.repo, request.runId);
	if (run.status === "completed") {
		log(`${tag}: the run has already completed; nothing to do`);
		return;
	}
	if (arrival.recoveredSinceMs !== void 0 && run.status !== "waiting") {
		log(`${tag}: found again at start, but the run is ${require_cli.untrusted(run.status, 40)}: its rule is decided; nothing to do`);
		return;
	}
	return {
		did: runDid(config, request, rule, run.runAttempt),
		resource: rule.resource
	};
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
	if (left <= 0) return true;
	gate.log(`${tag}: still waiting; asks again in ${require_cli.formatDuration(left)}, once the places a previous process left in the queue have lapsed`);
	await gate.sleep(left, wait.cancel.signal);
	return !wait.cancel.signal.aborted;
}
// src/app/gatekeeper.ts
/**
* The protection rule's gatekeeper: it hands each delivery to the piece that answers it
* (protection-rule.ts a request, run-gate.ts a run that ended, reviewers.ts a review),
* queues again at start the requests a previous process left pending, and stops. Its
* pieces share one state (gate.ts), made here.
*/
function createGatekeeper(options) {
	const { config, github, clock, log } = options;
	const approver = createApprover({
		config,
		github,
		plane: options.plane,
		clock,
		log
	});
	const gate = {
		...options,
		approver,
		state: newGateState(clock.now())
	};
	const { state } = gate;
	async function onDelivery(delivery) {
		if (delivery.event === "deployment_protection_rule") return track(state, protectionRule(gate, delivery));
		if (delivery.event === "workflow_run") return workflowRun(state, delivery);
		if (delivery.event === "deployment_review") return deploymentReview(state, delivery);
		if (delivery.event === "ping") log(`delivery ${delivery.id}: ping from GitHub`);
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
				wait.why ??= "shutdown";
				wait.cancel.abort();
			}
			await Promise.allSettled([...state.working]);
			await state.recovering;
		}
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
		} catch (error) {
			log(`recovery: could not read the App's recent deliveries: ${require_cli.errorMessage(error)}; pending runs wait for a redelivery`);
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
			signal: state.shut.signal
		});
		for (const request of found) {
			if (state.shut.signal.aborted) return;
			let placed;
			const isPlaced = new Promise((resolve) => placed = resolve);
			const work = track(state, protectionRule(gate, request.delivery, {
				recoveredSinceMs: request.firstDeliveredAtMs,
				placed
			})).catch((error) => log(`recovery: delivery ${request.delivery.id} failed: ${require_cli.errorMessage(error)}`));
			await Promise.race([isPlaced, work]);
		}
	})();
	state.recovering = done;
	return done;
}
// node_modules/@octokit/webhooks-methods/dist-node/index.js
var VERSION = "6.0.0";
async function sign(secret, payload) {
	if (!secret || !payload) throw new TypeError("[@octokit/webhooks-methods] secret & payload required for sign()");
	if (typeof payload !== "string") throw new TypeError("[@octokit/webhooks-methods] payload must be a string");
	const algorithm = "sha256";
	return `${algorithm}=${(0, node_crypto.createHmac)(algorithm, secret).update(payload).digest("hex")}`;
}
sign.VERSION = VERSION;
async function verify(secret, eventPayload, signature) {
	if (!secret || !eventPayload || !signature) throw new TypeError("[@octokit/webhooks-methods] secret, eventPayload & signature required");
	if (typeof eventPayload !== "string") throw new TypeError("[@octokit/webhooks-methods] eventPayload must be a string");
	const signatureBuffer = node_buffer.Buffer.from(signature);
	const verificationBuffer = node_buffer.Buffer.from(await sign(secret, eventPayload));
	if (signatureBuffer.length !== verificationBuffer.length) return false;
	return (0, node_crypto.timingSafeEqual)(signatureBuffer, verificationBuffer);
}
verify.VERSION = VERSION;
// src/app/receiver.ts
const MAX_BODY_BYTES = 1048576;
const REMEMBER_DELIVERIES = 1e4;
const BODY_TIMEOUT_MS = 1e4;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;
/** A bounded set: the oldest id is forgotten first. */
var SeenDeliveries = class {
	max;
	ids = /* @__PURE__ */ new Set();
	constructor(max) {
		this.max = max;
	}
	/** True when `id` was new (and is now remembered). */
	add(id) {
		if (this.ids.has(id)) return false;
		this.ids.add(id);
		if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value);
		return true;
	}
};
function createReceiver(options) {
	const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
	const seen = new SeenDeliveries(options.rememberDeliveries ?? REMEMBER_DELIVERIES);
	const answer = (res, status, body) => {
		res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
	};
	return async (req, res) => {
		const path = (req.url ?? "").split("?")[0];
		if (req.method !== "POST" || path !== options.path) return answer(res, 404, {
			ok: false,
			message: "POST webhook deliveries to the configured path"
		});
		const event = header(req, "x-github-event");
		const id = header(req, "x-github-delivery");
		const signature = header(req, "x-hub-signature-256");
		const named = id && DELIVERY_ID.test(id) ? id : "(no valid X-GitHub-Delivery)";
		if (!signature) {
			options.log(`delivery ${named}: refused, no X-Hub-Signature-256`);
			return answer(res, 401, {
				ok: false,
				message: "expected X-Hub-Signature-256"
			});
		}
		const body = await readBounded(req, maxBody);
		if (body === void 0) {
			options.log(`delivery ${named}: refused, body over ${maxBody} bytes or too slow`);
			res.writeHead(413, { connection: "close" }).end();
			req.destroy();
			return;
		}
		let valid = false;
		try {
			valid = /^sha256=[0-9a-f]{64}$/.test(signature) && await verify(options.secret, body, signature);
		} catch {
			valid = false;
		}
		if (!valid) {
			options.log(`delivery ${named}: refused, bad signature`);
			return answer(res, 401, {
				ok: false,
				message: "signature does not match"
			});
		}
		if (!event || !EVENT_NAME.test(event) || !id || !DELIVERY_ID.test(id)) return answer(res, 400, {
			ok: false,
			message: "expected X-GitHub-Event and X-GitHub-Delivery"
		});
		if (!seen.add(id)) {
			options.log(`delivery ${id} (${event}): dropped, seen before`);
			return answer(res, 200, {
				ok: true,
				duplicate: true
			});
		}
		let payload;
		try {
			payload = JSON.parse(body);
		} catch {
			return answer(res, 400, {
				ok: false,
				message: "the body is not JSON"
			});
		}
		answer(res, 202, { ok: true });
		setImmediate(() => {
			options.onDelivery({
				id,
				event,
				payload
			}).catch((error) => {
				options.log(`delivery ${id} (${event}): failed: ${require_cli.errorMessage(error)}`);
			});
		});
	};
}
function header(req, name) {
	const value = req.headers[name];
	return typeof value === "string" ? value : void 0;
}
/** The body as text, or undefined once it is over `max` bytes or slower than the timeout. */
function readBounded(req, max) {
	return new Promise((resolve) => {
		if (Number(req.headers["content-length"] ?? "0") > max) return resolve(void 0);
		const chunks = [];
		let size = 0;
		const timer = setTimeout(() => done(void 0), BODY_TIMEOUT_MS);
		const done = (value) => {
			clearTimeout(timer);
			req.removeAllListeners("data");
			resolve(value);
		};
		req.on("data", (chunk) => {
			size += chunk.length;
			if (size > max) return done(void 0);
			chunks.push(chunk);
		});
		req.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
		req.on("error", () => done(void 0));
	});
}
/** At most this many deliveries are listed, and this many requests read. */
const MAX_LISTED = 3e3;
const MAX_REQUESTS = 1e3;
async function findPendingRequests(options) {
	const { github, log } = options;
	const listed = await github.listDeliveries({
		sinceMs: options.wallNow() - (options.windowMs ?? 2592e5),
		maxItems: MAX_LISTED
	});
	const requests = listed.filter((d) => d.event === "deployment_protection_rule" && d.action === "requested").slice(0, MAX_REQUESTS);
	const reviewedAt = await reviewApprovals(options, listed);
	/** One per run and environment: placed at its first delivery, with its newest payload. */
	const byRule = /* @__PURE__ */ new Map();
	for (const listedDelivery of requests) {
		let payload;
		try {
			payload = await github.deliveryPayload(listedDelivery.id);
		} catch (error) {
			log(`recovery: could not read delivery ${listedDelivery.id}: ${require_cli.errorMessage(error)}; skipped`);
			continue;
		}
		const parsed = protectionRuleSchema.safeParse(payload);
		if (!parsed.success) continue;
		const event = parsed.data;
		const runId = runIdFromCallback(event.deployment_callback_url, event.repository.full_name);
		if (!runId) continue;
		const run = `${event.repository.full_name.toLowerCase()}#${runId}`;
		const key = `${run}#${event.environment.toLowerCase()}`;
		const at = listedDelivery.deliveredAtMs;
		const order = listedDelivery.id;
		const known = byRule.get(key);
		const delivery = {
			id: `recovered-${listedDelivery.guid}`,
			event: "deployment_protection_rule",
			payload
		};
		if (!known) byRule.set(key, {
			run,
			first: at,
			firstId: order,
			newest: order,
			delivery
		});
		else {
			if (at < known.first || at === known.first && order < known.firstId) Object.assign(known, {
				first: at,
				firstId: order
			});
			if (order > known.newest) Object.assign(known, {
				newest: order,
				delivery
			});
		}
	}
	return [...byRule.values()].map((r) => {
		const review = reviewedAt.get(r.run);
		const late = review && review.at >= r.first;
		return {
			...r,
			at: late ? review.at : r.first,
			atId: late ? review.id : r.firstId
		};
	}).sort((a, b) => a.at - b.at || a.atId - b.atId).map((r) => ({
		delivery: r.delivery,
		firstDeliveredAtMs: r.first
	}));
}
/** When each run's reviewers last approved it (its newest `deployment_review` `approved`), by run. */
async function reviewApprovals(options, listed) {
	const found = /* @__PURE__ */ new Map();
	const approvals = listed.filter((d) => d.event === "deployment_review" && d.action === "approved").slice(0, MAX_REQUESTS);
	for (const listedDelivery of approvals) {
		let payload;
		try {
			payload = await options.github.deliveryPayload(listedDelivery.id);
		} catch (error) {
			options.log(`recovery: could not read delivery ${listedDelivery.id}: ${require_cli.errorMessage(error)}; skipped`);
			continue;
		}
		const parsed = deploymentReviewSchema.safeParse(payload);
		if (!parsed.success) continue;
		const key = `${parsed.data.repository.full_name.toLowerCase()}#${parsed.data.workflow_run.id}`;
		const known = found.get(key);
		if (!known || listedDelivery.id > known.id) found.set(key, {
			at: listedDelivery.deliveredAtMs,
			id: listedDelivery.id
		});
	}
	return found;
}
// src/app/metrics.ts
/**
* The App's Prometheus metrics on `GET /metrics`: runs waiting for the lease, the rule's
* answers GitHub took (approved, rejected), and every GitHub call's outcome. Read with the
* metrics key (LEASE_GATE_METRICS_KEY) as the Bearer token; off without one. docs/metrics.md.
*/
var import_prom_client = require_log_output.require_prom_client();
const outcomeOf = (status) => status === void 0 ? "network" : status < 400 ? "ok" : status === 429 ? "rate_limited" : status < 500 ? "client_error" : "server_error";
var AppMetrics = class {
	registry = new import_prom_client.Registry();
	renderer = new require_log_output.MetricsRenderer(this.registry);
	calls;
	reviews;
	constructor(waiting) {
		const registers = [this.registry];
		const calls = new import_prom_client.Counter({
			name: "lease_gate_app_github_calls_total",
			help: "Attempts of calls to GitHub\u2019s API, by outcome (each retry counts).",
			labelNames: ["outcome"],
			registers
		});
		const outcomes = [
			"ok",
			"client_error",
			"server_error",
			"rate_limited",
			"network"
		];
		this.calls = Object.fromEntries(outcomes.map((o) => [o, calls.labels(o)]));
		this.reviews = new import_prom_client.Counter({
			name: "lease_gate_app_reviews_total",
			help: "The protection rule\u2019s answers sent to GitHub (state approved or rejected), by outcome.",
			labelNames: ["state", "outcome"],
			registers
		});
		new import_prom_client.Gauge({
			name: "lease_gate_app_queued_runs",
			help: "Runs waiting for their lease (each a pending protection rule).",
			registers,
			collect() {
				this.set(waiting());
			}
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
				this.reviews.inc({
					state: body.state,
					outcome: "ok"
				});
			} catch (error) {
				this.reviews.inc({
					state: body.state,
					outcome: "failed"
				});
				throw error;
			}
		};
		return {
			...github,
			review
		};
	}
	/** Answers `GET /metrics` when `req` asks for it and returns true; false for any other path. */
	serve(req, res, key) {
		if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
		const header = req.headers.authorization ?? "";
		const status = !key ? 403 : !header.startsWith("Bearer ") ? 401 : matches(header.slice(7), key) ? 200 : 403;
		if (status !== 200) {
			const message = !key ? "Metrics need the App to be started with LEASE_GATE_METRICS_KEY." : "Metrics need the metrics key (LEASE_GATE_METRICS_KEY) as the Bearer token.";
			res.writeHead(status, {
				"content-type": "application/json",
				...NO_STORE
			});
			res.end(JSON.stringify({
				ok: false,
				reason: status === 401 ? "unauthorized" : "forbidden",
				message
			}));
			return true;
		}
		this.renderer.render(req.headers.accept).then(({ contentType, text }) => res.writeHead(200, {
			"content-type": contentType,
			...NO_STORE
		}).end(text), () => res.writeHead(500).end());
		return true;
	}
};
/** As the kernel's answers: a proxy or cache between Prometheus and the App keeps no scrape. */
const NO_STORE = { "cache-control": "no-store" };
const digest = (value) => (0, node_crypto.createHash)("sha256").update(value).digest();
/** In constant time, over digests, as the kernel compares its keys. */
const matches = (token, key) => token.length > 0 && (0, node_crypto.timingSafeEqual)(digest(token), digest(key));
// src/app/server.ts
/** `lease-gate app`: the webhook receiver on the configured address, in front of the plane. */
async function startApp(config, options) {
	const clock = options.clock ?? require_time.systemClock;
	const sleep = options.sleep ?? require_time.realSleep;
	const random = options.random ?? Math.random;
	const wallNow = options.wallNow ?? Date.now;
	const env = options.env ?? process.env;
	const http = require_cli.createHttpClient({ env });
	const stopping = new AbortController();
	const plane = require_session.createPlaneClient({
		apiUrl: config.planeUrl,
		key: config.planeKey,
		keyHint: "plane.keyFile in the app's config",
		clock,
		sleep,
		random,
		env
	});
	let waiting = () => 0;
	const metrics = new AppMetrics(() => waiting());
	const metricsKey = env.LEASE_GATE_METRICS_KEY || void 0;
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
		onAttempt: (status) => metrics.called(status)
	}));
	const gatekeeper = createGatekeeper({
		config,
		github,
		plane,
		log: options.log,
		clock,
		sleep,
		random,
		wallNow
	});
	waiting = gatekeeper.waiting;
	const receive = createReceiver({
		secret: config.webhookSecret,
		path: config.path,
		log: options.log,
		onDelivery: gatekeeper.onDelivery
	});
	const server = await listenOn(config, (req, res) => {
		if (metrics.serve(req, res, metricsKey)) return;
		receive(req, res).catch(() => {
			if (!res.headersSent) res.writeHead(500).end();
		});
	});
	gatekeeper.recover(() => findPendingRequests({
		github,
		wallNow,
		log: options.log
	}));
	const { port, address } = server.address();
	return {
		url: `http://${address.includes(":") ? `[${address}]` : address}:${port}${config.path === "/" ? "" : config.path}`,
		waiting: gatekeeper.waiting,
		async close() {
			stopping.abort();
			server.close();
			server.closeAllConnections();
			await gatekeeper.close();
			await plane.close();
			await http.close();
		}
	};
}
/** The App's server on its configured address, with bounded header and request times. */
async function listenOn(config, handle) {
	const server = (0, node_http.createServer)(handle);
	server.headersTimeout = 1e4;
	server.requestTimeout = 15e3;
	await new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(config.port, config.host, () => resolve());
	});
	return server;
}
// src/cli/app-metrics-key.ts
/**
* The App's LEASE_GATE_METRICS_KEY, refused (one line, never the key) as the kernel refuses
* its own: the plane key the App leases with (it would sit in a Prometheus config), or, on an
* App listening beyond loopback, a key short enough to guess.
*/
function appMetricsKeyOf(env, host, planeKey) {
	const metricsKey = env.LEASE_GATE_METRICS_KEY || void 0;
	if (metricsKey === void 0) return void 0;
	if (metricsKey === planeKey) throw new require_cli.UsageError("LEASE_GATE_METRICS_KEY is the plane key the App leases with: give the metrics key a value of its own.");
	if (!require_cli.isLoopbackHost(host) && metricsKey.length < 16) throw new require_cli.UsageError(`LEASE_GATE_METRICS_KEY is shorter than 16 characters, too easy to guess for an App listening on ${host}: use a long random key (openssl rand -hex 32).`);
	return metricsKey;
}
// src/cli/app-settings.ts
function appSettings(values, env = {}) {
	if (!values.config) throw new require_cli.UsageError("Missing --config FILE: the JSON config of the app.");
	return {
		configFile: values.config,
		logFormat: require_log_output.logFormatOf(values["log-format"], env)
	};
}
function smokeSettings(values) {
	const url = webhookUrl(values.url);
	const secretFile = values["secret-file"];
	if (!secretFile) throw new require_cli.UsageError("app smoke needs --secret-file FILE: the app's webhookSecretFile.");
	return {
		url,
		secretFile
	};
}
const URL_FORM = "the webhook URL GitHub is given, https:// (plain http:// only to loopback), such as https://gate.example.com/webhook";
/** https:, or plain http: to loopback only (the secret's signature goes with it); no credentials. */
function webhookUrl(raw) {
	if (!raw) throw new require_cli.UsageError(`app smoke needs --url URL: ${URL_FORM}.`);
	let url;
	try {
		url = new URL(raw);
	} catch {
		url = new URL("invalid:");
	}
	if (!((url.protocol === "https:" || url.protocol === "http:" && require_cli.isLoopbackHost(url.hostname)) && !url.username && !url.password)) throw new require_cli.UsageError(`Invalid --url '${require_cli.untrusted(raw, 200)}'. Expected ${URL_FORM}.`);
	return url.href;
}
// src/cli/app-smoke.ts
/**
* `lease-gate app smoke`: the wiring of a protection-rule app checked without GitHub. It
* signs a sample `deployment_protection_rule` delivery with the webhook secret and sends
* it where GitHub would (through the TLS proxy, if any), then says what the app answered.
* The sample names no run (its callback URL is not a run's), so the app reads and checks
* it, then ignores it: nothing is queued and GitHub is never called.
*/
const SMOKE_REPOSITORY = "lease-gate/smoke-test";
/** The sample: a delivery the app accepts and ignores (it names no run of the repository). */
function smokePayload() {
	return {
		action: "requested",
		environment: "lease-gate-smoke-test",
		event: "workflow_dispatch",
		deployment_callback_url: `https://api.github.com/repos/${SMOKE_REPOSITORY}/lease-gate-smoke-test`,
		deployment: { id: 1 },
		repository: { full_name: SMOKE_REPOSITORY },
		installation: { id: 1 }
	};
}
/** The webhook secret, as the app reads it: the file's text, trimmed. */
function readSecret(file) {
	let secret;
	try {
		secret = (0, node_fs.readFileSync)(file, "utf8").trim();
	} catch (error) {
		throw new require_cli.UsageError(`Cannot read --secret-file ${require_cli.untrusted(file, 200)}: ${require_cli.causeText(error)}`);
	}
	if (!secret) throw new require_cli.UsageError(`--secret-file ${require_cli.untrusted(file, 200)} is empty.`);
	return secret;
}
/** What the app's answer means for the wiring, in one line; ok only for 202. */
function readAnswer(status, body, id) {
	const said = require_cli.untrusted(body.replace(/\s+/g, " "), 200);
	if (status === 202) return {
		ok: true,
		line: `OK: the app accepted the signed deployment_protection_rule delivery ${id} (202): the URL reaches it and the webhook secret matches. The sample names no run, so the app ignores it; its log says "delivery ${id}: deployment_callback_url names no run of ${SMOKE_REPOSITORY}; ignored".`
	};
	if (status === 401) return {
		ok: false,
		line: `FAIL: the app refused the signature (401 ${said}): --secret-file is not the secret in its webhookSecretFile (nor the App's webhook secret on GitHub, if they agree).`
	};
	if (status === 404) return {
		ok: false,
		line: `FAIL: 404 ${said}: nothing takes deliveries at that path. Is it the app's listen.path (and the proxy's route to it)?`
	};
	return {
		ok: false,
		line: `FAIL: the URL answered ${status} ${said}: not the app's 202.`
	};
}
async function appSmoke(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.APP_SMOKE.flags));
	const { url, secretFile } = smokeSettings(values);
	const secret = readSecret(secretFile);
	const body = JSON.stringify(smokePayload());
	const id = `lease-gate-smoke-${(0, node_crypto.randomUUID)()}`;
	const http = require_cli.createHttpClient({ env });
	try {
		const answer = await http.send({
			method: "POST",
			url,
			headers: {
				"content-type": "application/json",
				"user-agent": "lease-gate-app-smoke",
				"x-github-event": "deployment_protection_rule",
				"x-github-delivery": id,
				"x-hub-signature-256": await sign(secret, body)
			},
			body
		});
		const { ok, line } = readAnswer(answer.status, answer.text, id);
		if (ok) io.out(line);
		else io.err(line);
		return ok ? require_cli.EXIT.done : require_cli.EXIT.refused;
	} finally {
		await http.close();
	}
}
// src/cli/app-command.ts
/** `lease-gate app --config FILE`: the protection-rule app, until SIGINT or SIGTERM. */
async function app(args, io, env) {
	if (args[0] === "smoke") return appSmoke(args.slice(1), io, env);
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.APP.flags));
	const settings = appSettings(values, env);
	try {
		return await startAppCommand(settings, io, env);
	} catch (error) {
		const log = {
			format: settings.logFormat,
			secrets: []
		};
		return require_log_output.refusedToStart(error, log, require_log_output.loggedOutput(io, log), "app");
	}
}
/** Checked settings \u2192 the app: its config read and checked, then served. */
async function startAppCommand(settings, io, env) {
	let config;
	try {
		config = loadConfig(settings.configFile, env);
	} catch (error) {
		if (error instanceof ConfigError) throw new require_cli.UsageError(error.message, { cause: error });
		throw error;
	}
	appMetricsKeyOf(env, config.host, config.planeKey);
	const logged = require_log_output.loggedOutput(io, {
		format: settings.logFormat,
		secrets: [
			config.privateKey,
			config.webhookSecret,
			config.planeKey,
			env.LEASE_GATE_METRICS_KEY
		]
	});
	const log = settings.logFormat === "json" ? (line) => logged.out(line) : (line) => logged.out(`${(/* @__PURE__ */ new Date()).toISOString()} ${line}`);
	const running = await startApp(config, {
		log,
		env
	});
	const stopped = new Promise((resolve) => process.once("SIGINT", resolve).once("SIGTERM", resolve));
	logged.outWith(`lease-gate app listening on ${running.url}`, { url: running.url });
	log(`plane ${config.planeUrl}, GitHub ${config.githubApiUrl}, ${config.rules.length} rule(s)`);
	await stopped;
	log("stopping: leaving every queue");
	await running.close();
	return require_cli.EXIT.done;
}
exports.app = app;

//# sourceMappingURL=app-command-CzRJflPf.js.map