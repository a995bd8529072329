const require_cli = require("./cli.js");
const require_time = require("./time-ww7Hd0C3.js");
let node_http = require("node:http");
// src/plane/errors.ts
/** Typed failures of a plane call; every message says which call and what to do. */
var PlaneError = class extends require_cli.LeaseGateError {
	name = "PlaneError";
	call;
	status;
	constructor(message, code, options) {
		super(message, {
			...require_cli.causeOf(options.cause),
			code
		});
		this.call = options.call;
		this.status = options.status;
	}
};
/** 401/403: the key was refused. Never retried. */
var KeyRefusedError = class extends PlaneError {
	name = "KeyRefusedError";
	/** The plane's own reason, escaped to one line, for a face that words the hint itself. */
	said;
	constructor(message, options) {
		super(message, "plane_key_refused", options);
		this.said = options.said;
	}
};
/** Other 4xx: our bug or bad input. Never retried. */
var RequestRejectedError = class extends PlaneError {
	name = "RequestRejectedError";
	constructor(message, options) {
		super(message, "plane_request_rejected", options);
	}
};
/** The body does not match the contract; the message names the field. */
var ContractError = class extends PlaneError {
	name = "ContractError";
	/** `code`: only for BrokenGrantError. */
	constructor(message, options) {
		super(message, options.code ?? "plane_contract", options);
	}
};
/** Network failure, request timeout, 408, 429 or 5xx (store_unavailable too): worth asking again. */
var TransientError = class extends PlaneError {
	name = "TransientError";
	/** The plane's Retry-After, when it named one. */
	retryAfterMs;
	/** What looks unavailable when it goes on failing: the plane, or the OIDC token service. */
	failing;
	constructor(message, options) {
		super(message, "plane_transient", options);
		this.retryAfterMs = options.retryAfterMs;
		this.failing = options.failing ?? "the plane";
	}
};
/** Transient failures went on past the retry budget. */
var PlaneUnavailableError = class extends PlaneError {
	name = "PlaneUnavailableError";
	constructor(message, options) {
		super(message, "plane_unavailable", options);
	}
};
/** The caller's signal stopped the call. */
var CancelledError = class extends require_cli.LeaseGateError {
	name = "CancelledError";
	constructor() {
		super("cancelled", { code: "cancelled" });
	}
};
async function withRetries(attempt, call, how) {
	const { clock, sleep, random, policy } = how;
	const first = clock.now();
	const until = call.retryUntilMs ?? first + 3e4;
	for (let n = 0;; n += 1) try {
		return await attempt();
	} catch (error) {
		if (!(error instanceof TransientError)) throw error;
		const wait = require_time.nextRetryMs(policy, n, error.retryAfterMs, until - clock.now(), random);
		if (wait === void 0) throw new PlaneUnavailableError(`${error.message} \u2014 still failing after ${n + 1} attempt(s) over ${Math.round((clock.now() - first) / 1e3)} s; ${error.failing} looks unavailable`, {
			call: error.call,
			status: error.status,
			cause: error
		});
		how.onRetry?.({
			error: error.message,
			attempt: n + 1,
			status: error.status,
			retryForMs: Math.max(0, Math.round(until - clock.now()))
		});
		await sleep(wait, call.signal);
		if (call.signal?.aborted) throw new CancelledError();
	}
}
// src/plane/caller.ts
function createCaller(apiUrl, send, key, retrying) {
	return {
		once: (method, path, payload, call) => send(method, path, payload, call, key),
		post: (path, payload, call, bearer = key) => withRetries(() => send("POST", path, payload, call, bearer), call, retrying),
		get: (path, call) => withRetries(() => send("GET", path, void 0, call, key), call, retrying),
		name: (method, path) => `[${method}] "${apiUrl}${path}"`
	};
}
/** A call the plane never holds (`Prefer: wait` is for lease requests and watches). */
function unheld(call) {
	return {
		...call,
		waitSeconds: void 0
	};
}
// src/plane/grant.ts
/**
* A grant is believed only once it is checked (CONTRACT.md part 4): it names the
* DID we asked as and the resource we asked for, its expiry lies ahead within a
* bounded skew and within the longest lease a plane grants, and its id has a
* form that is safe in an output, a log line, a file name or a URL path.
*/
/** The kernel issues `lease_<fence>_<hex>`, the hosted plane `lease_4c1e`: both fit. */
const LEASE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const LEASE_ID_FORM = "1 to 128 characters of A-Z a-z 0-9 . _ : -";
/**
* How far the plane's clock may be from ours before an expiry is called broken.
* Expiry is information, never a correctness input (CONTRACT.md part 2): the
* bound only refuses the absurd, such as `expiresAtMs: 1`.
*/
const MAX_CLOCK_SKEW_MS = 3e5;
/** The longest lease any plane grants: the kernel's largest `--ttl-ms` (the hosted plane's is 30 s). */
const MAX_LEASE_MS = 36e5;
/**
* What is wrong with a grant, or undefined when it is ours to believe. `nowMs` is the plane's
* own clock when its answer tells it (the Date header), else our wall clock: a runner whose
* clock is 10 minutes off must not call a good grant absurd.
*/
function grantProblem(lease, asked, nowMs) {
	const wallNow = nowMs;
	if (lease.holder !== asked.actorDid) return {
		field: "lease.holder",
		problem: `names ${quote(lease.holder)}, not ${asked.actorDid} (the DID asked as)`
	};
	if (lease.resource !== asked.resource) return {
		field: "lease.resource",
		problem: `names ${quote(lease.resource)}, not ${asked.resource} (the resource asked for)`
	};
	if (!LEASE_ID_PATTERN.test(lease.id)) return {
		field: "lease.id",
		problem: `${quote(lease.id)} is not ${LEASE_ID_FORM}`
	};
	if (lease.expiresAtMs < wallNow - 3e5) return {
		field: "lease.expiresAtMs",
		problem: `${lease.expiresAtMs} is already past (more than ${MAX_CLOCK_SKEW_MS / 6e4} min before this clock's ${wallNow})`
	};
	if (lease.expiresAtMs > wallNow + 36e5 + 3e5) return {
		field: "lease.expiresAtMs",
		problem: `${lease.expiresAtMs} is further ahead than the longest lease a plane grants (${MAX_LEASE_MS / 6e4} min, with ${MAX_CLOCK_SKEW_MS / 6e4} min of clock skew)`
	};
}
/** A plane that answered `ok: true` with a grant that is not ours: it was given back, the call fails. */
var BrokenGrantError = class extends ContractError {
	name = "BrokenGrantError";
	/** The grant's field that is wrong. */
	field;
	/** The release by (resource, own DID) that followed was answered. */
	gaveBack;
	constructor(message, options) {
		super(message, {
			call: options.call,
			status: options.status,
			code: "plane_broken_grant"
		});
		this.field = options.field;
		this.gaveBack = options.gaveBack;
	}
};
/** Plane text in a message: bounded, on one line, without markup. */
function quote(text) {
	return JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}\u2026` : text).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
// src/plane/json-body.ts
/** A body that is not JSON reads as undefined: the caller decides what that means for its status. */
function parseJson(text) {
	try {
		return JSON.parse(text);
	} catch {
		return;
	}
}
/** One field of a JSON answer, still unchecked: the caller's schema or type test reads it. */
function field(body, name) {
	return typeof body === "object" && body !== null && name in body ? Object.getOwnPropertyDescriptor(body, name)?.value : void 0;
}
/** The plane's own words on a failure (its `message`, else its `reason`), clipped to one line. */
function bodyMessage(body) {
	const message = field(body, "message");
	if (typeof message === "string") return require_cli.clipText(message, 300);
	const reason = field(body, "reason");
	if (typeof reason === "string") return require_cli.clipText(reason, 100);
}
// src/plane/answers.ts
/**
* The readers of the plane's answers, one per route: each checks the body against the
* contract (a ContractError names the field that is wrong) and reads it as the client's
* answer, its untrusted texts clipped. No I/O: the client sends, these read.
*/
/** A frozen resource that names no back-off is asked again this often. */
const FROZEN_POLL_MS = 5e3;
/** The body as `schema` reads it, or a ContractError naming `call` and what does not match. */
function checkAnswer(schema, raw, call) {
	const parsed = schema.safeParse(raw.body);
	if (parsed.success) return parsed.data;
	throw new ContractError(`${call}: the answer does not match the plane's contract: ${require_cli.describeIssues(parsed.error)}`, {
		call,
		status: raw.status
	});
}
/** The documented pair, plus the deploy's extension fields when the gate knows them. */
function leaseRequestOf(req) {
	const out = {
		resource: req.resource,
		actorDid: req.actorDid
	};
	if (req.deploy) out.deploy = req.deploy;
	if (req.queue) out.queue = req.queue;
	return out;
}
/** A lease call's body: the request without a release's fields (`outdated`). */
const leaseBody = (req) => ({ ...leaseRequestOf(req) });
/**
* A lease answer, or what is wrong with the grant it makes: a broken grant is the
* client's to give back (it needs the network) before it fails the call.
*/
function readLease(raw, req, call, wallNow) {
	if (field(raw.body, "ok") !== true) return { answer: interpretLease(raw, call) };
	const parsed = require_cli.grantedSchema.safeParse(raw.body);
	const broken = parsed.success ? grantProblem(parsed.data.lease, req, raw.dateMs ?? wallNow()) : {
		field: fieldOf(parsed.error),
		problem: `does not match the plane's contract: ${require_cli.describeIssues(parsed.error)}`
	};
	if (!parsed.success || broken) return { broken };
	const previous = require_cli.deploySchema.safeParse(field(raw.body, "previous"));
	return { answer: {
		kind: "granted",
		lease: parsed.data.lease,
		preferenceApplied: raw.preferenceApplied,
		...raw.dateMs === void 0 ? {} : { planeDateMs: raw.dateMs },
		...previous.success && previous.data ? { previous: previous.data } : {}
	} };
}
function brokenGrantError(call, raw, broken, gaveBack) {
	return new BrokenGrantError(`${call}: the plane granted a lease that is not ours to believe: ${broken.field} ${broken.problem}. ${gaveBack ? "It was given back" : "Giving it back failed (it lapses on its own)"} by (resource, own DID); the plane looks broken.`, {
		call,
		status: raw.status,
		field: broken.field,
		gaveBack
	});
}
/** A refusal (`ok` is not true) read as what it means for a waiter. */
function interpretLease(raw, call) {
	const refusal = checkAnswer(require_cli.otherRefusalSchema, raw, call);
	if (refusal.reason === "lease_held") {
		const held = checkAnswer(require_cli.heldSchema, raw, call);
		return {
			kind: "held",
			holder: held.holder,
			waitMs: held.stampede.waitMs,
			reserved: held.reserved === true,
			...held.position === void 0 ? {} : { position: Math.floor(held.position) },
			...held.etaMs === void 0 ? {} : { etaMs: held.etaMs },
			...held.overdueMs === void 0 ? {} : { overdueMs: held.overdueMs },
			preferenceApplied: raw.preferenceApplied
		};
	}
	if (refusal.reason === "frozen") {
		const frozen = checkAnswer(require_cli.frozenSchema, raw, call);
		return {
			kind: "frozen",
			message: require_cli.clipText(frozen.message) || "frozen by an operator",
			untilMs: frozen.until ?? void 0,
			waitMs: frozen.stampede?.waitMs ?? FROZEN_POLL_MS,
			position: frozen.position,
			preferenceApplied: raw.preferenceApplied
		};
	}
	if (refusal.reason === "revoked") {
		const revoked = checkAnswer(require_cli.revokedSchema, raw, call);
		return {
			kind: "revoked",
			holder: revoked.holder,
			message: require_cli.clipText(revoked.message) || "revoked by an operator",
			...revoked.by ? { by: require_cli.clipText(revoked.by, 200) } : {}
		};
	}
	if (refusal.reason === "superseded") return {
		kind: "superseded",
		by: require_cli.clipText(checkAnswer(require_cli.supersededSchema, raw, call).by, 2048)
	};
	return {
		kind: "refused",
		reason: require_cli.clipText(refusal.reason, 200),
		message: require_cli.clipText(refusal.message)
	};
}
function fieldOf(error) {
	const path = error.issues[0]?.path ?? [];
	return path.length ? path.map(String).join(".") : "(body)";
}
/** The lease on a resource and, from the bundled kernel, the freeze in force. */
function readStatus(raw, call) {
	const answer = checkAnswer(require_cli.statusAnswerSchema, raw, call);
	const frozen = answer.frozen ? {
		by: require_cli.clipText(answer.frozen.by, 200) ?? "",
		reason: require_cli.clipText(answer.frozen.reason) ?? "",
		untilMs: answer.frozen.until
	} : void 0;
	return {
		lease: answer.lease,
		frozen
	};
}
function readWatch(raw, call) {
	const answer = checkAnswer(require_cli.watchAnswerSchema, raw, call);
	if (!answer.ended) return { kind: "held" };
	return {
		kind: "ended",
		reason: require_cli.clipText(answer.reason, 200) ?? "unknown",
		endedAtMs: answer.endedAtMs,
		message: require_cli.clipText(answer.message),
		holder: answer.holder,
		...answer.by ? { by: require_cli.clipText(answer.by, 200) } : {}
	};
}
function readRevoke(raw, call) {
	const answer = checkAnswer(require_cli.revokeAnswerSchema, raw, call);
	return {
		revoked: answer.revoked,
		leaseId: answer.leaseId ?? void 0,
		holder: answer.holder ?? void 0
	};
}
// src/plane/lease-calls.ts
/** A plane without the watch route: "no watch here", not an error. */
const NO_WATCH = /* @__PURE__ */ new Set([404, 405]);
/** How long giving back a broken grant is retried. */
const GIVE_BACK_MS$1 = 5e3;
/** `wallNow`: only to refuse a grant whose expiry is absurd, when the plane sends no Date. */
function leaseCalls(caller, clock, wallNow) {
	const { post, name } = caller;
	/** Release by (resource, own DID), bounded, never throwing: true when the plane answered it. */
	async function giveBack(req) {
		try {
			const payload = {
				resource: req.resource,
				actorDid: req.actorDid
			};
			const raw = await post(require_cli.RELEASE_PATH, payload, { retryUntilMs: clock.now() + GIVE_BACK_MS$1 });
			return require_cli.releaseAnswerSchema.safeParse(raw.body).success;
		} catch {
			return false;
		}
	}
	const statusOf = async (resource, call = {}) => {
		const path = `${require_cli.LEASE_PATH}?resource=${encodeURIComponent(resource)}`;
		return readStatus(await caller.get(path, unheld(call)), name("GET", path));
	};
	return {
		async lease(req, call = {}) {
			const raw = await post(require_cli.LEASE_PATH, leaseBody(req), call);
			const where = name("POST", require_cli.LEASE_PATH);
			const read = readLease(raw, req, where, wallNow);
			if ("answer" in read) return read.answer;
			throw brokenGrantError(where, raw, read.broken, await giveBack(req));
		},
		async release(req, call = {}) {
			const payload = {
				resource: req.resource,
				actorDid: req.actorDid
			};
			if (req.outdated) payload.outdated = true;
			const raw = await post(require_cli.RELEASE_PATH, payload, unheld(call));
			const answer = checkAnswer(require_cli.releaseAnswerSchema, raw, name("POST", require_cli.RELEASE_PATH));
			return {
				released: answer.releasedIds.length > 0,
				releasedIds: answer.releasedIds
			};
		},
		async status(resource, call = {}) {
			return (await statusOf(resource, call)).lease;
		},
		statusOf,
		async watch(req, call = {}) {
			const payload = {
				resource: req.resource,
				actorDid: req.actorDid,
				leaseId: req.leaseId
			};
			let raw;
			try {
				raw = await caller.once("POST", require_cli.WATCH_PATH, payload, call);
			} catch (error) {
				if (error instanceof RequestRejectedError && NO_WATCH.has(error.status ?? 0)) return { kind: "unsupported" };
				throw error;
			}
			return readWatch(raw, name("POST", require_cli.WATCH_PATH));
		}
	};
}
// src/plane/operator-calls.ts
function operatorCalls(caller) {
	const { post, name } = caller;
	return {
		async revoke(resource, reason, adminKey, call = {}, by) {
			return readRevoke(await post(require_cli.REVOKE_PATH, by ? {
				resource,
				reason,
				by
			} : {
				resource,
				reason
			}, unheld(call), adminKey), name("POST", require_cli.REVOKE_PATH));
		},
		async freeze(request, adminKey, call = {}) {
			const raw = await post(require_cli.FREEZE_PATH, request, unheld(call), adminKey);
			const answer = checkAnswer(require_cli.freezeAnswerSchema, raw, name("POST", require_cli.FREEZE_PATH));
			return {
				until: answer.until ?? null,
				changed: answer.changed
			};
		},
		async unfreeze(resource, adminKey, call = {}, by) {
			const raw = await post(require_cli.UNFREEZE_PATH, by ? {
				resource,
				by
			} : { resource }, unheld(call), adminKey);
			return { changed: checkAnswer(require_cli.freezeAnswerSchema, raw, name("POST", require_cli.UNFREEZE_PATH)).changed };
		},
		async breakGlass(request, adminKey, call = {}) {
			const raw = await post(require_cli.BREAK_GLASS_PATH, request, unheld(call), adminKey);
			return checkAnswer(require_cli.breakGlassAnswerSchema, raw, name("POST", require_cli.BREAK_GLASS_PATH));
		},
		async approveBreakGlass(request, approverKey, call = {}) {
			const raw = await post(require_cli.APPROVE_BREAK_GLASS_PATH, request, unheld(call), approverKey);
			return checkAnswer(require_cli.breakGlassAnswerSchema, raw, name("POST", require_cli.APPROVE_BREAK_GLASS_PATH));
		},
		async withdrawBreakGlass(request, adminKey, call = {}) {
			const raw = await post(require_cli.WITHDRAW_BREAK_GLASS_PATH, request, unheld(call), adminKey);
			return checkAnswer(require_cli.breakGlassAnswerSchema, raw, name("POST", require_cli.WITHDRAW_BREAK_GLASS_PATH));
		}
	};
}
// src/plane/plane-date.ts
/**
* An answer's `Date` header (RFC 9110: the origin's clock when it made the answer, whole
* seconds) as epoch milliseconds; undefined when absent or unreadable. It is the only word
* on the plane's clock besides `expiresAtMs`, so a plane that tells no `ttlMs` is read by it.
*/
function planeDateOf(value) {
	const text = Array.isArray(value) ? value[0] : value;
	if (text === void 0 || text.length > 64) return void 0;
	const ms = Date.parse(text);
	return Number.isFinite(ms) && ms > 0 && ms <= 864e13 ? ms : void 0;
}
// src/plane/send.ts
/** Stands for "the token `bearer` gives now" where a call takes its credential. */
const FRESH_TOKEN = "\0fresh-token";
/** A refusal's status is undocumented: the body decides for these. */
const BODY_DECIDES = /* @__PURE__ */ new Set([409, 423]);
function createSender(options) {
	return async (method, path, payload, call, bearer) => {
		const url = options.apiUrl + path;
		const name = `[${method}] "${url}"`;
		const headers = { accept: "application/json" };
		if (payload !== void 0) headers["content-type"] = "application/json";
		const credential = bearer === "\0fresh-token" ? await freshToken(options, name) : bearer;
		if (credential) headers.authorization = `Bearer ${credential}`;
		const wait = call.waitSeconds && call.waitSeconds >= 1 ? Math.floor(call.waitSeconds) : 0;
		if (wait) headers.prefer = `wait=${wait}`;
		let response;
		try {
			response = await options.http.send({
				method,
				url,
				headers,
				body: payload === void 0 ? void 0 : JSON.stringify(payload),
				signal: call.signal,
				timeoutMs: options.timeoutMs
			});
		} catch (error) {
			if (call.signal?.aborted) throw new CancelledError();
			throw new TransientError(`${name}: ${error instanceof require_cli.HttpError ? error.message.slice(name.length + 2) : require_cli.causeText(error)}`, {
				call: name,
				cause: error
			});
		}
		return readAnswer(options, {
			name,
			path,
			wait
		}, response);
	};
}
async function freshToken(options, name) {
	try {
		return await options.bearer();
	} catch (error) {
		throw new TransientError(`${name}: could not get an OIDC token (${require_cli.causeText(error).slice(0, 200)})`, {
			call: name,
			cause: error,
			failing: "the OIDC token service"
		});
	}
}
/** The answer as a JSON body, or the typed failure its status means. */
function readAnswer(options, sent, response) {
	const { name, wait } = sent;
	const { status, text } = response;
	const statusText = `${status} ${node_http.STATUS_CODES[status] ?? ""}`.trim();
	const body = parseJson(text);
	const failure = statusFailure(options, sent, response, statusText, body);
	if (failure) throw failure;
	if (body === void 0) throw new ContractError(`${name}: ${statusText}, but the body is not JSON`, {
		call: name,
		status
	});
	const applied = headerValue(response.headers["preference-applied"]) ?? "";
	return {
		status,
		body,
		preferenceApplied: wait > 0 && /(^|[\s,])wait=\d+/i.test(applied),
		dateMs: planeDateOf(response.headers.date)
	};
}
/** 401/403: the key; 408, 429, 5xx: worth asking again; other non-2xx: rejected. */
function statusFailure(options, sent, response, statusText, body) {
	const { name, path } = sent;
	const { status } = response;
	if (status === 401 || status === 403) return keyRefused(options, name, status, statusText, body);
	if (status === 408 || status === 429 || status >= 500) {
		const retryAfter = require_time.parseRetryAfter(headerValue(response.headers["retry-after"]), Date.now());
		const detail = bodyMessage(body);
		return new TransientError(`${name}: ${statusText}${detail ? ` (${detail})` : ""}`, {
			call: name,
			status,
			retryAfterMs: retryAfter
		});
	}
	if ((status < 200 || status >= 300) && !(path === "/api/v1/acp/coordination/lease" && BODY_DECIDES.has(status))) {
		const detail = bodyMessage(body);
		return new RequestRejectedError(`${name}: ${statusText}${detail ? ` (${detail})` : ""}`, {
			call: name,
			status
		});
	}
}
function keyRefused(options, name, status, statusText, body) {
	const said = bodyMessage(body);
	const sent = options.bearer ? "the OIDC token sent" : options.key ? "the key" : "the call: no key was sent";
	const keyHint = (!options.bearer ? void 0 : status === 403 ? "the kernel's policy rules for the token's issuer against the job's claims (docs/ci-issuers.md)" : "that the kernel trusts the token's issuer and audience (its --oidc-issuer or --oidc-issuers, docs/ci-issuers.md)") ?? options.keyHint ?? "LEASE_GATE_KEY (or INTRAMEDIAL_KEY for the hosted plane)";
	return new KeyRefusedError(`${name}: ${statusText}${said ? ` (${said})` : ""}. The plane refused ${sent}; check ${keyHint}.`, {
		call: name,
		status,
		said
	});
}
function headerValue(value) {
	return Array.isArray(value) ? value[0] : value;
}
function createPlaneClient(options) {
	const clock = options.clock ?? require_time.systemClock;
	const timeoutMs = options.requestTimeoutMs ?? 1e4;
	const ownHttp = !options.http;
	const http = options.http ?? require_cli.createHttpClient({
		headersTimeoutMs: timeoutMs,
		...options.env ? { env: options.env } : {}
	});
	const send = createSender({
		...options,
		http,
		timeoutMs
	});
	const key = options.bearer ? FRESH_TOKEN : options.key || void 0;
	const caller = createCaller(options.apiUrl, send, key, {
		clock,
		sleep: options.sleep ?? require_time.realSleep,
		random: options.random ?? Math.random,
		policy: options.retry ?? require_time.DEFAULT_RETRY,
		onRetry: options.onRetry
	});
	return {
		apiUrl: options.apiUrl,
		requestTimeoutMs: timeoutMs,
		...leaseCalls(caller, clock, options.wallNow ?? Date.now),
		...operatorCalls(caller),
		async close() {
			if (ownHttp) await http.close();
		}
	};
}
// src/gate/wait.ts
/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
var LeaseRefusedError = class extends require_cli.LeaseGateError {
	name = "LeaseRefusedError";
	/** The plane's reason (`actor_suspended`, \u2026), or what refused (`key refused`). */
	reason;
	/** The plane's own words, when it gave any. */
	detail;
	/** `message`: by default "The plane refused the lease: <reason> (<detail>)". */
	constructor(options) {
		const { reason, detail } = options;
		super(options.message ?? `The plane refused the lease: ${reason}${detail ? ` (${detail})` : ""}`, {
			...require_cli.causeOf(options.cause),
			code: options.code ?? "lease_refused"
		});
		this.reason = reason;
		this.detail = detail;
	}
};
/** An operator revoked this agent's lease on the resource: final, not a wait. */
var LeaseRevokedError = class extends LeaseRefusedError {
	name = "LeaseRevokedError";
	resource;
	operatorMessage;
	constructor(options) {
		const { resource, operatorMessage } = options;
		super({
			reason: "revoked",
			detail: operatorMessage,
			message: `${resource} was revoked for this agent ${revokedBy(options.by)}${operatorReason(operatorMessage)}`,
			code: "lease_revoked"
		});
		this.resource = resource;
		this.operatorMessage = operatorMessage;
	}
};
/** "by operator:alice" when the plane names who revoked (plane text, clipped to one line), else "by an operator". */
const revokedBy = (by) => `by ${by ?? "an operator"}`;
/** ": <reason>" for a revoke's message, or nothing when it only repeats "revoked by an operator". */
function operatorReason(message) {
	const said = (message ?? "").trim();
	return said === "" || /^revoked( by an operator)?\.?$/i.test(said) ? "" : `: ${said}`;
}
/** A plane that names no back-off must not be hammered. */
const MIN_SLEEP_MS = 100;
/** The longest single sleep, whatever the plane names. */
const MAX_SLEEP_MS = 6e4;
const RELEASE_ON_CANCEL_MS = 2e3;
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
	const request = leaseRequestOf(options);
	const started = clock.now();
	const deadline = started + options.timeoutMs;
	const retryUntilMs = Math.max(deadline, started + (options.minRetryWindowMs ?? 3e4));
	const last = {};
	for (let asks = 1;; asks += 1) {
		const elapsed = () => Math.round(clock.now() - started);
		if (signal?.aborted) {
			if (asks > 1) await releaseQuietly(options, request);
			return {
				outcome: "cancelled",
				waitedMs: elapsed(),
				asks: asks - 1
			};
		}
		const call = {
			signal,
			retryUntilMs,
			waitSeconds: asks === 1 ? void 0 : holdSeconds(options, deadline)
		};
		const askedAt = clock.now();
		let answer;
		try {
			answer = await client.lease(request, call);
		} catch (error) {
			if (!(error instanceof CancelledError)) throw error;
			await releaseQuietly(options, request);
			return {
				outcome: "cancelled",
				waitedMs: elapsed(),
				asks
			};
		}
		if (answer.kind !== "held" && answer.kind !== "frozen") return settle(options, request, answer, {
			asks,
			elapsed
		});
		if (answer.kind === "held" && !answer.reserved && options.takeUp?.(answer.holder)) {
			const taken = await takeUp(options, answer.holder, {
				signal,
				retryUntilMs
			});
			if (taken) return {
				outcome: "granted",
				lease: taken,
				waitedMs: elapsed(),
				asks,
				takenUp: true
			};
		}
		const remaining = deadline - clock.now();
		const frozen = answer.kind === "frozen" ? {
			message: answer.message,
			untilMs: answer.untilMs
		} : void 0;
		const { holder, reserved } = answer.kind === "held" ? answer : {
			holder: "",
			reserved: false
		};
		if (remaining <= 0) {
			const waitedMs = elapsed();
			await releaseQuietly(options, request);
			return {
				outcome: "timeout",
				holder,
				reserved,
				waitedMs,
				asks,
				frozen
			};
		}
		const nextAskInMs = Math.min(pauseMs(options, answer, askedAt), remaining, MAX_SLEEP_MS);
		await options.onHeld?.(heldEvent(answer, {
			holder,
			reserved,
			frozen,
			asks,
			elapsedMs: elapsed(),
			nextAskInMs
		}, last));
		last.holder = holder;
		last.position = answer.position;
		await sleep(nextAskInMs, signal);
	}
}
/** An answer that ends the wait: granted, superseded, or a refusal waiting cannot fix (thrown). */
async function settle(options, request, answer, ask) {
	const { asks, elapsed } = ask;
	switch (answer.kind) {
		case "granted": {
			if (options.signal?.aborted) {
				await releaseQuietly(options, request);
				return {
					outcome: "cancelled",
					waitedMs: elapsed(),
					asks
				};
			}
			const { lease, previous } = answer;
			return {
				outcome: "granted",
				lease,
				waitedMs: elapsed(),
				asks,
				...previous ? { previous } : {}
			};
		}
		case "revoked": throw new LeaseRevokedError({
			resource: options.resource,
			operatorMessage: answer.message,
			by: answer.by
		});
		case "superseded": return {
			outcome: "superseded",
			by: answer.by,
			waitedMs: elapsed(),
			asks
		};
		case "refused": throw new LeaseRefusedError({
			reason: answer.reason,
			detail: answer.message
		});
	}
}
/**
* Only an answer the plane held as asked may be followed at once by the next ask;
* any other (the first, or a plane that ignores Prefer) waits the plane's back-off.
*/
function pauseMs(options, answer, askedAt) {
	return answer.preferenceApplied === true && options.clock.now() - askedAt >= REALLY_HELD_MS ? options.random() * 50 : Math.max(MIN_SLEEP_MS, answer.waitMs + options.random() * Math.min(250, answer.waitMs * .1));
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
		etaMs: answer.kind === "held" ? answer.etaMs : void 0,
		overdueMs: answer.kind === "held" ? answer.overdueMs : void 0,
		frozen: ask.frozen
	};
}
/**
* Asks as the holder (a renewal: same id and fence) and leaves our own place in the
* queue. Undefined when that lease is not there to take up any more.
*/
async function takeUp(options, holder, call) {
	const answer = await options.client.lease({
		resource: options.resource,
		actorDid: holder
	}, call);
	if (answer.kind === "granted" && answer.lease.holder === holder) {
		await releaseQuietly(options, {
			resource: options.resource,
			actorDid: options.actorDid
		});
		return answer.lease;
	}
}
/** Whole seconds the plane may hold this ask: within the budget and the request timeout. */
function holdSeconds(options, deadline) {
	const cap = options.maxHoldSeconds ?? 0;
	const left = Math.floor((deadline - options.clock.now()) / 1e3);
	const seconds = Math.min(cap, left);
	return seconds >= 1 ? seconds : void 0;
}
/**
* Release by (resource, our own DID): it gives back a lease granted in the
* moment of a cancel, and otherwise only leaves the queue; it can never
* release another agent's lease.
*/
async function releaseQuietly(options, request) {
	try {
		await options.client.release(request, { retryUntilMs: options.clock.now() + RELEASE_ON_CANCEL_MS });
	} catch {}
}
// src/gate/lease-time.ts
/**
* How long a grant or renewal runs, read in the plane's own words (CONTRACT.md part 2):
* `ttlMs` when it tells one (the bundled kernel does); otherwise `expiresAtMs` against the
* answer's `Date` header, both on the plane's clock (the hosted plane's contract has only
* `expiresAtMs`). Never `expiresAtMs` against the runner's wall clock while the plane gave
* a better word: a runner 10 minutes off would renew 10 minutes late, or never.
*/
/** The hosted plane's documented lease time (CONTRACT.md part 1): no reading goes above it. */
const DOCUMENTED_LEASE_MS = 3e4;
/**
* A `Date` header names whole seconds, rounded down: when the plane wrote it, its clock
* may already have been up to this much later, so that much less of the lease was left.
*/
const DATE_RESOLUTION_MS = 1e3;
/** Without ttlMs or a Date header, a reading below this is not believed to the letter. */
const FALLBACK_FLOOR_MS = 1e3;
/**
* The lease time to pace renewals by, never more than the plane's word allows. With a Date
* header: `expiresAtMs - Date - 1 s` (the header's uncertainty), counted from when the request
* was sent, so latency only makes the keeper renew earlier. With neither word: the smaller of
* the documented 30 s and the expiry against our own wall clock (at least 1 s), and `fallback`
* says so to the caller, who logs it.
*/
function leaseTimeOf(lease, word) {
	if (lease.ttlMs !== void 0) return {
		ms: lease.ttlMs,
		source: "ttl"
	};
	if (word.planeDateMs !== void 0) return {
		ms: bound(lease.expiresAtMs - word.planeDateMs - DATE_RESOLUTION_MS, 0),
		source: "date"
	};
	return {
		ms: bound(lease.expiresAtMs - word.wallSentAtMs, FALLBACK_FLOOR_MS),
		source: "fallback"
	};
}
function bound(ms, floor) {
	return Math.min(DOCUMENTED_LEASE_MS, Math.max(floor, Math.floor(ms)));
}
/** The keeper's one log line for a plane that gave no word it could read on the plane's clock. */
function fallbackNote(time) {
	return `The plane's answer tells no ttlMs and no readable Date header: the lease time is read as ${time.ms} ms, the smaller of the documented ${DOCUMENTED_LEASE_MS / 1e3} s and its expiresAtMs against this runner's clock (at least ${FALLBACK_FLOOR_MS / 1e3} s). Renewals are paced by that; a runner clock far ahead of the plane's renews often, one far behind may renew too late for leases shorter than 30 s.`;
}
// src/gate/keep.ts
const MIN_RENEW_EVERY_MS = 100;
/** How often the parent and the lifetime are checked while sleeping. */
const CHECK_EVERY_MS = 2e3;
const RETRY_FAILED_RENEWAL_MS = 1e3;
const GIVE_BACK_MS = 5e3;
/** After a failed watch, or one the plane answered at once, the next one waits this long. */
const WATCH_AGAIN_MS = 1e3;
/**
* Renews the lease at about a third of its remaining time until stopped. It
* renews and only renews: an answer naming another lease id means ours ended
* (lapsed, revoked, released by someone with our DID), so that new lease is
* given back at once and the loss reported. Correctness never rests on clocks.
*/
async function keepLease(options) {
	const { watch } = options;
	if (!watch) return renewLoop(options, {});
	const inner = new AbortController();
	const stop = () => inner.abort();
	options.signal?.addEventListener("abort", stop, { once: true });
	if (options.signal?.aborted) stop();
	const seen = {};
	const watching = watchLoop(options, watch, inner.signal, (end) => {
		seen.end = end;
		stop();
	});
	try {
		return await renewLoop({
			...options,
			signal: inner.signal
		}, seen);
	} finally {
		stop();
		options.signal?.removeEventListener("abort", stop);
		await watching;
	}
}
async function watchLoop(options, watch, signal, onEnd) {
	while (!signal.aborted) {
		const askedAt = options.clock.now();
		let answer;
		try {
			answer = await watch(options.lease.id, signal);
		} catch {
			await options.sleep(WATCH_AGAIN_MS, signal);
			continue;
		}
		if (answer.kind === "unsupported") return;
		if (answer.kind === "ended") return signal.aborted ? void 0 : onEnd(answer);
		const spent = options.clock.now() - askedAt;
		if (spent < WATCH_AGAIN_MS) await options.sleep(WATCH_AGAIN_MS - spent, signal);
	}
}
async function renewLoop(options, seen) {
	const { client, clock, signal } = options;
	const request = {
		resource: options.resource,
		actorDid: options.actorDid
	};
	const started = clock.now();
	const status = firstStatus(options);
	options.onChange?.(status);
	let leaseEnd = firstLeaseEnd(options, started);
	let nextRenewal = started + Math.max(0, leaseEnd - started) / 3;
	const end = (why) => {
		status.ended = {
			atMs: options.wallNow(),
			why
		};
		options.onChange?.(status);
		return status;
	};
	const lose = (loss) => {
		status.lost = {
			atMs: options.wallNow(),
			...loss
		};
		return end("lost");
	};
	const stopped = () => seen.end ? lose(lossOf(seen.end)) : end("stopped");
	for (;;) {
		const now = clock.now();
		if (signal?.aborted) return stopped();
		const halt = haltOf(options, now - started);
		if (halt) return end(halt);
		if (now < nextRenewal) {
			await options.sleep(Math.max(1, Math.min(nextRenewal - now, CHECK_EVERY_MS)), signal);
			continue;
		}
		let answer;
		const sent = {
			atMs: clock.now(),
			wallAtMs: options.wallNow()
		};
		try {
			answer = await client.lease(request, {
				signal,
				retryUntilMs: Math.max(leaseEnd, now + RETRY_FAILED_RENEWAL_MS)
			});
		} catch (error) {
			if (error instanceof CancelledError) return stopped();
			if (error instanceof BrokenGrantError) return lose({
				reason: "broken_plane",
				message: error.message,
				gaveBack: error.gaveBack
			});
			status.failures += 1;
			status.lastError = require_cli.errorMessage(error);
			options.onChange?.(status);
			if (error instanceof KeyRefusedError) return end("key-refused");
			nextRenewal = clock.now() + RETRY_FAILED_RENEWAL_MS;
			continue;
		}
		const answeredAt = clock.now();
		if (answer.kind !== "granted") return lose(refusalLoss(answer, options.actorDid));
		const { lease } = answer;
		if (lease.id !== status.leaseId) {
			const gaveBack = await client.release(request, { retryUntilMs: clock.now() + GIVE_BACK_MS }).then((r) => r.releasedIds.includes(lease.id)).catch(() => false);
			return lose({
				reason: "replaced",
				newLeaseId: lease.id,
				gaveBack
			});
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
		...options.lease.fence === void 0 ? {} : { fence: options.lease.fence },
		expiresAtMs: options.lease.expiresAtMs,
		renewals: 0,
		failures: 0
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
	const told = options.lease.ttlMs !== void 0 || options.planeDateMs !== void 0;
	return options.sentAtMs === void 0 || !told ? started : options.sentAtMs + leaseTimeOf(options.lease, {
		planeDateMs: options.planeDateMs,
		wallSentAtMs: 0
	}).ms;
}
/** Why the keeper stops on its own, `ranMs` after it started: its lifetime, its parent, its want. */
function haltOf(options, ranMs) {
	if (ranMs >= options.maxLifetimeMs) return "lifetime";
	if (options.parentAlive && !options.parentAlive()) return "parent-gone";
	if (options.stillWanted && !options.stillWanted()) return "not-wanted";
}
/** A renewal refused: our lease had ended, and how. */
function refusalLoss(answer, actorDid) {
	switch (answer.kind) {
		case "held": return {
			reason: "lease_held",
			holder: answer.holder
		};
		case "revoked": return {
			reason: "revoked",
			message: answer.message,
			...answer.by ? { by: answer.by } : {},
			...answer.holder && answer.holder !== actorDid ? { holder: answer.holder } : {}
		};
		case "superseded": return {
			reason: "superseded",
			message: answer.by
		};
		case "frozen": return {
			reason: "frozen",
			message: answer.message
		};
		case "refused": return {
			reason: answer.reason,
			...answer.message ? { message: answer.message } : {}
		};
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
	const time = leaseTimeOf(answer.lease, {
		planeDateMs: answer.planeDateMs,
		wallSentAtMs
	});
	if (time.source === "fallback") status.note ??= fallbackNote(time);
	return time.ms;
}
/** A loss as the watch told it: when the plane ended the lease, why, and who holds it now. */
function lossOf(end) {
	return {
		reason: end.reason,
		...end.endedAtMs === void 0 ? {} : { endedAtMs: end.endedAtMs },
		...end.message === void 0 ? {} : { message: end.message },
		...end.holder === void 0 ? {} : { holder: end.holder },
		...end.by === void 0 ? {} : { by: end.by }
	};
}
// src/lease/session.ts
/**
* One lease session, the same for the action and the CLI:
* `acquire() \u2192 Held { keep(), release() }`. It knows no runner and no
* terminal; the faces turn its events into annotations or stderr lines.
*/
/** The one set of limits both faces use (they drifted when each had its own). */
const LIMITS = {
	/** The longest job GitHub runs (5 days, self-hosted) plus an hour. */
	keeperMaxLifetimeMs: 4356e5,
	/** How long a release is retried: a lease lasts 30 s anyway. */
	releaseBudgetMs: 1e4,
	/** How long main waits for the keeper's first status record. */
	keeperStartMs: 2e3,
	/** `run`: SIGTERM to the command's group, then SIGKILL after this. */
	terminateGraceMs: 1e4
};
function openSession(options) {
	const clock = options.clock ?? require_time.systemClock;
	const sleep = options.sleep ?? require_time.realSleep;
	const random = options.random ?? Math.random;
	const wallNow = options.wallNow ?? Date.now;
	const client = options.client ?? sessionClient(options, {
		clock,
		sleep,
		random,
		wallNow
	});
	let request = {
		resource: options.resource,
		actorDid: options.actorDid
	};
	const maxHoldSeconds = options.blocking === false ? 0 : Math.max(0, Math.floor(client.requestTimeoutMs / 1e3) - 2);
	const keeping = {
		client,
		clock,
		sleep,
		wallNow,
		maxHoldSeconds
	};
	async function releaseOwn(how = {}) {
		try {
			const answer = await client.release(how.outdated ? {
				...request,
				outdated: true
			} : request, { retryUntilMs: clock.now() + LIMITS.releaseBudgetMs });
			return {
				kind: answer.released ? "released" : "nothing",
				ids: answer.releasedIds
			};
		} catch (error) {
			return {
				kind: "failed",
				message: require_cli.errorMessage(error)
			};
		}
	}
	function held(lease, waitedMs = 0, grant = {}) {
		return {
			lease,
			waitedMs,
			keep: (controls) => keepLease(keepOptions(keeping, () => request, {
				lease,
				grant
			}, controls)),
			release: releaseOwn
		};
	}
	return {
		client,
		async acquire({ timeoutMs, signal, onHeld, retryWindowMs, takeUp }) {
			let grant = {};
			const result = await waitForLease({
				client: timedClient(client, clock, (timing) => {
					grant = timing;
				}),
				...request,
				...options.deploy ? { deploy: options.deploy } : {},
				...options.queue ? { queue: options.queue } : {},
				timeoutMs,
				clock,
				sleep,
				random,
				signal,
				maxHoldSeconds,
				...retryWindowMs === void 0 ? {} : { minRetryWindowMs: retryWindowMs },
				...onHeld ? { onHeld } : {},
				...takeUp ? { takeUp } : {}
			});
			if (result.outcome !== "granted") return result;
			if (result.takenUp) request = {
				resource: options.resource,
				actorDid: result.lease.holder
			};
			return {
				outcome: "granted",
				held: held(result.lease, result.waitedMs, grant),
				waitedMs: result.waitedMs,
				...result.previous ? { previous: result.previous } : {},
				...result.takenUp ? { takenUp: true } : {}
			};
		},
		held,
		releaseOwn,
		close: () => client.close()
	};
}
/** The plane client a session makes when it is given none, on the session's clocks. */
function sessionClient(options, time) {
	return createPlaneClient({
		apiUrl: options.apiUrl,
		key: options.key,
		bearer: options.bearer,
		keyHint: options.keyHint,
		...time,
		...options.env ? { env: options.env } : {},
		...options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {},
		...options.onRetry ? { onRetry: options.onRetry } : {}
	});
}
/** The client as the wait sees it, telling `onGrant` when a granted request was sent. */
function timedClient(client, clock, onGrant) {
	return {
		lease: async (...args) => {
			const sent = clock.now();
			const answer = await client.lease(...args);
			if (answer.kind === "granted") onGrant({
				sentAtMs: sent,
				planeDateMs: answer.planeDateMs
			});
			return answer;
		},
		release: (...args) => client.release(...args)
	};
}
function keepOptions(keeping, request, granted, controls) {
	const { client, maxHoldSeconds } = keeping;
	return {
		client,
		...request(),
		lease: controls.lease ?? granted.lease,
		...controls.lease ? {} : granted.grant,
		clock: keeping.clock,
		wallNow: keeping.wallNow,
		sleep: keeping.sleep,
		signal: controls.signal,
		maxLifetimeMs: LIMITS.keeperMaxLifetimeMs,
		...controls.parentAlive ? { parentAlive: controls.parentAlive } : {},
		...controls.stillWanted ? { stillWanted: controls.stillWanted } : {},
		...controls.onChange ? { onChange: controls.onChange } : {},
		...maxHoldSeconds > 0 && !controls.noWatch ? { watch: (leaseId, signal) => client.watch({
			...request(),
			leaseId
		}, {
			signal,
			waitSeconds: maxHoldSeconds
		}) } : {}
	};
}
Object.defineProperty(exports, "ContractError", {
	enumerable: true,
	get: function() {
		return ContractError;
	}
});
Object.defineProperty(exports, "KeyRefusedError", {
	enumerable: true,
	get: function() {
		return KeyRefusedError;
	}
});
Object.defineProperty(exports, "LIMITS", {
	enumerable: true,
	get: function() {
		return LIMITS;
	}
});
Object.defineProperty(exports, "LeaseRefusedError", {
	enumerable: true,
	get: function() {
		return LeaseRefusedError;
	}
});
Object.defineProperty(exports, "LeaseRevokedError", {
	enumerable: true,
	get: function() {
		return LeaseRevokedError;
	}
});
Object.defineProperty(exports, "createPlaneClient", {
	enumerable: true,
	get: function() {
		return createPlaneClient;
	}
});
Object.defineProperty(exports, "openSession", {
	enumerable: true,
	get: function() {
		return openSession;
	}
});
Object.defineProperty(exports, "operatorReason", {
	enumerable: true,
	get: function() {
		return operatorReason;
	}
});
Object.defineProperty(exports, "revokedBy", {
	enumerable: true,
	get: function() {
		return revokedBy;
	}
});

//# sourceMappingURL=session-CtAguDwo.js.map