let node_fs = require("node:fs");
let node_os = require("node:os");
let node_path = require("node:path");
let node_url = require("node:url");
let node_worker_threads = require("node:worker_threads");
let node_crypto = require("node:crypto");
let node_http = require("node:http");
// src/errors.ts
/**
* The one base of every error lease-gate throws on purpose, and the one
* function that turns any error into the line a person sees.
*
* A LeaseGateError's message is written for people (what failed, what to do)
* and printed as it is, never with a stack; `code` is stable, one per kind
* (ERROR_CODES), for code that decides on the kind of failure, and `cause`
* keeps the error it wraps. Made as `new X(message, { ...fields, cause })`:
* the message first as for Error, everything else named (sigstore's BaseError
* is the model), so a field cannot be given in another's place.
*/
var LeaseGateError = class extends Error {
	name = "LeaseGateError";
	code;
	constructor(message, options) {
		super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
		this.code = options.code;
	}
};
/** `{ cause }` when there is one, else nothing: `cause` is absent rather than undefined. */
function causeOf(cause) {
	return cause === void 0 ? {} : { cause };
}
/** What a person can do about the system errors a face meets most. */
const HINTS = {
	EADDRINUSE: " (the port is in use: pick another with --port, or 0 for a free one)",
	ENOENT: " (no such file or directory)",
	ECONNREFUSED: " (nothing listens there: is the kernel running?)",
	EACCES: " (permission denied)"
};
/**
* One line for any error: ours as written (a bug of ours, code `internal`, as
* unexpected); an error of the system or of a driver (it
* carries a string `code`: a port in use, a missing file, a refused connection, a
* PostgreSQL error) by its first line, which names the path, address or reason, with a
* hint for the common ones; anything else named as unexpected. Callers that print to a
* log or a terminal still escape it (untrusted(), logLine()).
*/
function errorMessage(error) {
	const text = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
	if (error instanceof LeaseGateError) return error.code === "internal" ? `Unexpected error: ${text}` : error.message;
	const code = error?.code;
	if (typeof code === "string") return `${text}${HINTS[code] ?? ""}`;
	return `Unexpected error: ${text}`;
}
/**
* The error's own words for the inside of a longer message ("Cannot read FILE: <this>."):
* its message (or what it is, when not an Error) on one line, without errorMessage's
* "Unexpected error: " or hints, which do not fit mid-sentence: the sentence around it
* says what failed. Line breaks become spaces rather than cutting at the first, because
* some libraries put the reason on a later line (@actions/core's "Failed to get ID Token.
* \n Error Code : 500 \u2026"). Callers clip and escape as their output needs; wrap with
* `{ cause: error }` to keep the rest.
*/
function causeText(error) {
	return (error instanceof Error ? error.message : String(error)).replace(/\s*[\r\n]+\s*/g, " ").trim();
}
// src/http/errors.ts
const CODES = {
	network: "http_network",
	timeout: "http_timeout",
	"too-large": "http_too_large",
	cancelled: "http_cancelled"
};
/** The one error of the HTTP client: the exchange did not complete. */
var HttpError = class extends LeaseGateError {
	name = "HttpError";
	/** What went wrong, for callers that decide on it (retry, cancel). */
	failure;
	/** `[METHOD] "url"`, for messages. */
	call;
	/** What failed, without the call (`connection refused (ECONNREFUSED)`), for a sentence of the caller's own. */
	detail;
	constructor(message, options) {
		super(message, {
			...causeOf(options.cause),
			code: CODES[options.failure]
		});
		this.failure = options.failure;
		this.call = options.call;
		this.detail = message.startsWith(`${options.call}: `) ? message.slice(options.call.length + 2) : message;
	}
};
// src/http/loopback.ts
const LOOPBACK_HOSTS = /* @__PURE__ */ new Set([
	"localhost",
	"127.0.0.1",
	"[::1]",
	"::1"
]);
/**
* This machine, as a URL's (normalized) hostname names it: `localhost`, all of
* 127.0.0.0/8 and `[::1]`. Plain http: is allowed only to these, and the HTTP
* clients never send a request to them through a proxy.
*/
function isLoopbackHost(hostname) {
	return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
// src/http/agents.ts
/**
* Idle keep-alive sockets are closed after this: before a server's usual 5 s closes them
* under a request being sent. A server's shorter `Keep-Alive: timeout=` hint wins (Node).
*/
const KEEP_ALIVE_MS = 4e3;
/**
* What each scheme's agent is given as its `proxyEnv`, from `env` alone (never process.env
* when a test passes its own): https: falls back to HTTP_PROXY when HTTPS_PROXY is unset.
* `undefined`: no proxy for that scheme.
*/
function proxySettings(env) {
	const pick = (name) => env[name.toLowerCase()] ?? env[name] ?? "";
	const httpProxy = pick("HTTP_PROXY");
	const httpsProxy = pick("HTTPS_PROXY") || httpProxy;
	const noProxy = pick("NO_PROXY");
	return {
		"http:": httpProxy ? {
			HTTP_PROXY: httpProxy,
			NO_PROXY: noProxy
		} : void 0,
		"https:": httpsProxy ? {
			HTTPS_PROXY: httpsProxy,
			NO_PROXY: noProxy
		} : void 0
	};
}
/** Whether Node `version` (`24.22.3`) has the agents' `proxyEnv`: 24.5 on. */
function hasBuiltInProxy(version) {
	const [major = 0, minor = 0] = version.split(".").map(Number);
	return major > 24 || major === 24 && minor >= 5;
}
/**
* Node ignores a proxy URL it cannot parse, and a Node before 24.5 ignores `proxyEnv`: both
* would go around the proxy. Here each is a failure instead, naming the variable, never its
* value (it may hold the proxy's credentials).
*/
function proxyProblem(proxyEnv) {
	const [name, value] = Object.entries(proxyEnv)[0] ?? [];
	if (!hasBuiltInProxy(process.versions.node)) return `Node ${process.versions.node} cannot use the proxy in ${name}: Node 24.5 or later is needed`;
	return isProxyUrl(String(value)) ? void 0 : `the proxy named by ${name} is not an http: or https: URL`;
}
/** Whether `value` is a proxy URL Node's agents use: http: or https:, else Node ignores it. */
function isProxyUrl(value) {
	const url = URL.parse(value);
	return url !== null && (url.protocol === "http:" || url.protocol === "https:");
}
function createAgents(options) {
	const proxies = proxySettings(options.env);
	const made = /* @__PURE__ */ new Map();
	let https;
	let destroyed = false;
	return {
		async for(url, call) {
			const scheme = url.protocol === "https:" ? "https:" : "http:";
			const proxyEnv = options.proxyLoopback || !isLoopbackHost(url.hostname) ? proxies[scheme] : void 0;
			const problem = proxyEnv && proxyProblem(proxyEnv);
			if (problem) throw new HttpError(`${call}: ${problem}`, {
				failure: "network",
				call
			});
			const key = `${scheme}${proxyEnv ? "proxied" : "direct"}`;
			const module = scheme === "https:" ? await (https ??= import("node:https")) : void 0;
			if (destroyed) throw new HttpError(`${call}: the HTTP client is closed`, {
				failure: "cancelled",
				call
			});
			let agent = made.get(key);
			if (!agent) {
				const settings = {
					keepAlive: true,
					timeout: KEEP_ALIVE_MS,
					proxyEnv: proxyEnv ?? {}
				};
				agent = module ? new module.Agent(settings) : new node_http.Agent(settings);
				made.set(key, agent);
			}
			return agent;
		},
		destroy() {
			destroyed = true;
			for (const agent of made.values()) agent.destroy();
			made.clear();
		}
	};
}
// src/http/exchange.ts
function exchange(x) {
	return new Promise((resolve, reject) => {
		let timer;
		const fail = (error) => {
			clearTimeout(timer);
			request.destroy();
			reject(error);
		};
		const deadline = (ms, words) => {
			clearTimeout(timer);
			timer = setTimeout(() => fail(new HttpError(`${x.call}: ${words}`, {
				failure: "timeout",
				call: x.call
			})), ms);
		};
		const request = (0, node_http.request)({
			...(0, node_url.urlToHttpOptions)(x.url),
			auth: null,
			method: x.method,
			headers: x.headers,
			agent: x.agent,
			signal: x.signal
		});
		request.on("error", fail);
		request.on("socket", (socket) => whenConnected(socket, () => clearTimeout(timer)));
		request.on("response", (response) => {
			const chunks = [];
			let size = 0;
			const paused = `the answer stopped for ${x.bodyTimeoutMs} ms`;
			deadline(x.bodyTimeoutMs, paused);
			response.on("data", (chunk) => {
				size += chunk.length;
				if (size > x.maxBytes) {
					fail(new HttpError(`${x.call}: answer larger than ${x.maxBytes} bytes`, {
						failure: "too-large",
						call: x.call
					}));
					return;
				}
				chunks.push(chunk);
				deadline(x.bodyTimeoutMs, paused);
			});
			response.on("error", fail);
			response.on("close", () => {
				if (!response.complete) fail(new HttpError(`${x.call}: connection closed by the other side within the answer`, {
					failure: "network",
					call: x.call
				}));
			});
			response.on("end", () => {
				clearTimeout(timer);
				const text = Buffer.concat(chunks).toString("utf8");
				resolve({
					status: response.statusCode ?? 0,
					headers: response.headers,
					text
				});
			});
		});
		deadline(x.connectTimeoutMs, `no connection within ${x.connectTimeoutMs} ms`);
		request.end(x.body);
	});
}
/**
* `then` once the socket can carry the request: a kept-alive socket (or one Node's proxy
* support hands over already through its tunnel) at once; a new one at its TCP connect,
* or at its TLS handshake for https:.
*/
function whenConnected(socket, then) {
	if (socket.encrypted === true && (socket.connecting || !socket.authorized)) socket.once("secureConnect", then);
	else if (socket.connecting) socket.once("connect", then);
	else then();
}
// src/http/network-error.ts
/**
* A failed request read as an HttpError whose message is ours: cancelled by the caller,
* timed out, or the network's failure named by its code, never by Node's words.
*/
/** `timeout`: the request's own deadline signal; `signal`: the caller's. */
function requestFailure(error, sent) {
	const { call, timeoutMs } = sent;
	if (error instanceof HttpError) return error;
	if (sent.signal?.aborted) return new HttpError(`${call}: cancelled`, {
		failure: "cancelled",
		call
	});
	if (sent.timeout.aborted) return new HttpError(`${call}: no answer within ${timeoutMs} ms`, {
		failure: "timeout",
		call,
		cause: error
	});
	if (codeOf(error) === "ETIMEDOUT") return new HttpError(`${call}: connection timed out (ETIMEDOUT)`, {
		failure: "timeout",
		call,
		cause: error
	});
	return new HttpError(`${call}: ${describeNetworkError(error)}`, {
		failure: "network",
		call,
		cause: error
	});
}
/**
* What failed, in our words, by the error's code: Node's own messages are not passed on,
* since some carry the URL (with its credentials and query) or the proxy's.
*/
function describeNetworkError(error) {
	const code = codeOf(error);
	if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
	if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return `host name not resolved (${code})`;
	if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/.test(code)) return `TLS handshake failed (${code})`;
	if (code === "ECONNRESET" || code === "EPIPE") return `connection closed by the other side (${code})`;
	if (code === "ERR_PROXY_TUNNEL") return `the proxy did not open the tunnel (${code})`;
	if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return `host not reachable (${code})`;
	if (code.startsWith("HPE_")) return `the answer is not HTTP (${code})`;
	return code ? `connection failed (${code})` : "connection failed";
}
/** The first string `code` of the error or of what it wraps. */
function codeOf(error) {
	for (let e = error, depth = 0; e && depth < 4; e = e.cause, depth += 1) {
		const code = e.code;
		if (typeof code === "string" && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
	}
	return "";
}
// src/control-chars.ts
/**
* Control characters, once, for every layer that keeps them out of a line of text: the
* plane's clipped texts and deploy fields, the kernel's reasons and notifications, the
* action's outputs, the session's log lines and a shown URL.
*
* Here, beside errors.ts, and not in plane/: src/http/ (url-display.ts) sits below plane/ and
* may import nothing of ours but top-level modules like this one, and every other user may
* import it too. No imports and no node: APIs, so the console page may bundle it.
*/
/** C0 controls and DEL, as a character class's ranges (a line break, ESC, NUL, \u2026). */
const CONTROL_RANGES = "\\u0000-\\u001f\\u007f";
/** Whether a text holds a control character (`.test`: not global, so it keeps no lastIndex). */
const CONTROL_CHAR = new RegExp(`[${CONTROL_RANGES}]`);
/** Every control character of a text, for `.replace`. */
const CONTROL_CHARS = new RegExp(`[${CONTROL_RANGES}]`, "g");
// src/http/url-display.ts
/**
* The one way a URL lease-gate was given (a flag, a config file) is shown anywhere: in an
* error, a log line, an answer, a notification or the ledger. Only its scheme, host, port
* and path: credentials (`user:password@`), the query (`?token=\u2026`) and the fragment may
* hold a secret, and what is signed into the ledger can never be taken out again.
*
* Text that does not parse as a URL is cut the same way, by its characters: a refused
* flag is echoed so the person sees which one, never with what might be its secret.
*/
function urlForDisplay(raw) {
	let url;
	try {
		url = typeof raw === "string" ? new URL(raw) : raw;
	} catch {
		url = void 0;
	}
	return (url ? `${url.protocol}${url.host ? `//${url.host}` : ""}${url.pathname === "/" ? "" : url.pathname}` : cutByHand(String(raw))).replace(CONTROL_CHARS, "?").slice(0, 200);
}
/** `scheme://user:pass@host/path?query#fragment` \u2192 `scheme://host/path`, for text no URL parser takes. */
function cutByHand(text) {
	const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^?#]*)/.exec(text);
	const scheme = match?.[1] ?? "";
	let rest = match?.[2] ?? "";
	const slash = rest.indexOf("/");
	const at = (slash < 0 ? rest : rest.slice(0, slash)).lastIndexOf("@");
	if (at >= 0) rest = rest.slice(at + 1);
	return `${scheme}${rest}`;
}
// src/http/client.ts
/** Bodies past this are not ours to read: the plane's answers are small. */
const MAX_ANSWER_BYTES = 4194304;
const DEFAULTS = {
	connect: 5e3,
	headers: 1e4,
	body: 1e4
};
function createHttpClient(options = {}) {
	const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headers;
	const limits = {
		connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connect,
		bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULTS.body,
		maxBytes: MAX_ANSWER_BYTES
	};
	const agents = createAgents({
		env: options.env ?? process.env,
		proxyLoopback: options.proxyLoopback ?? false
	});
	const closing = new AbortController();
	async function send(req) {
		const call = `[${req.method}] "${urlForDisplay(req.url)}"`;
		if (closing.signal.aborted) throw new HttpError(`${call}: the HTTP client is closed`, {
			failure: "cancelled",
			call
		});
		const timeoutMs = req.timeoutMs ?? headersTimeout;
		const timeout = AbortSignal.timeout(timeoutMs);
		const cancel = req.signal ? AbortSignal.any([req.signal, closing.signal]) : closing.signal;
		try {
			const url = new URL(req.url);
			const answer = await exchange({
				...limits,
				method: req.method,
				url,
				headers: req.headers ?? {},
				body: req.body,
				agent: await agents.for(url, call),
				signal: AbortSignal.any([cancel, timeout]),
				call
			});
			return {
				status: answer.status,
				headers: answer.headers,
				text: answer.text
			};
		} catch (error) {
			throw requestFailure(error, {
				call,
				signal: cancel,
				timeout,
				timeoutMs
			});
		}
	}
	return {
		send,
		async getText(url, headers = {}, signal) {
			const answer = await send({
				method: "GET",
				url,
				headers,
				signal
			});
			if (answer.status !== 200) {
				const call = `[GET] "${urlForDisplay(url)}"`;
				throw new HttpError(`${call}: ${answer.status} ${answer.text.slice(0, 200)}`, {
					failure: "network",
					call
				});
			}
			return answer.text;
		},
		close() {
			if (!closing.signal.aborted) {
				closing.abort();
				agents.destroy();
			}
			return Promise.resolve();
		}
	};
}
function joinValues(array, separator = "|") {
	return array.map((val) => stringifyPrimitive(val)).join(separator);
}
function jsonStringifyReplacer(_, value) {
	if (typeof value === "bigint") return value.toString();
	return value;
}
function nullish(input) {
	return input === null || input === void 0;
}
function cleanRegex(source) {
	const start = source.startsWith("^") ? 1 : 0;
	const end = source.endsWith("$") ? source.length - 1 : source.length;
	return source.slice(start, end);
}
const captureStackTrace = "captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => {};
function isObject(data) {
	return typeof data === "object" && data !== null && !Array.isArray(data);
}
function isPlainObject(o) {
	if (isObject(o) === false) return false;
	const ctor = o.constructor;
	if (ctor === void 0) return true;
	if (typeof ctor !== "function") return true;
	const prot = ctor.prototype;
	if (isObject(prot) === false) return false;
	if (Object.prototype.hasOwnProperty.call(prot, "isPrototypeOf") === false) return false;
	return true;
}
function clone(inst, def, params) {
	const cl = new inst._zod.constr(def ?? inst._zod.def);
	if (!def || params?.parent) cl._zod.parent = inst;
	return cl;
}
function normalizeParams(_params) {
	const params = _params;
	if (!params) return {};
	if (typeof params === "string") return { error: () => params };
	if (params?.message !== void 0) {
		if (params?.error !== void 0) throw new Error("Cannot specify both `message` and `error` params");
		params.error = params.message;
	}
	delete params.message;
	if (typeof params.error === "string") return {
		...params,
		error: () => params.error
	};
	return params;
}
function stringifyPrimitive(value) {
	if (typeof value === "bigint") return value.toString() + "n";
	if (typeof value === "string") return `"${value}"`;
	return `${value}`;
}
const NUMBER_FORMAT_RANGES = /*@__PURE__*/ (() => ({
	safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
	int32: [-2147483648, 2147483647],
	uint32: [0, 4294967295],
	float32: [-34028234663852886e22, 34028234663852886e22],
	float64: [-Number.MAX_VALUE, Number.MAX_VALUE]
}))();
function aborted(x, startIndex = 0) {
	if (x.aborted === true) return true;
	for (let i = startIndex; i < x.issues.length; i++) if (x.issues[i]?.continue !== true) return true;
	return false;
}
function explicitlyAborted(x, startIndex = 0) {
	if (x.aborted === true) return true;
	for (let i = startIndex; i < x.issues.length; i++) if (x.issues[i]?.continue === false) return true;
	return false;
}
function prefixIssues(path, issues) {
	return issues.map((iss) => {
		var _a;
		(_a = iss).path ?? (_a.path = []);
		iss.path.unshift(path);
		return iss;
	});
}
function unwrapMessage(message) {
	return typeof message === "string" ? message : message?.message;
}
function attachSchema(issues, start, inst) {
	var _a;
	for (let i = start; i < issues.length; i++) (_a = issues[i]).schema ?? (_a.schema = inst);
}
function finalizeIssue(iss, ctx, config) {
	var _a;
	const traits = iss.inst?._zod?.traits;
	if (traits?.has("$ZodType")) {
		if (traits.has("$ZodCheck")) (_a = iss).schema ?? (_a.schema = iss.inst);
		else iss.schema = iss.inst;
	}
	const schemaError = iss.schema !== iss.inst ? iss.schema?._zod.def?.error : void 0;
	const message = iss.message ? iss.message : unwrapMessage(iss.inst?._zod.def?.error?.(iss)) ?? unwrapMessage(schemaError?.(iss)) ?? unwrapMessage(ctx?.error?.(iss)) ?? unwrapMessage(config.customError?.(iss)) ?? unwrapMessage(config.localeError?.(iss)) ?? "Invalid input";
	const full = {};
	for (const k of Object.keys(iss)) {
		if (k === "inst" || k === "schema" || k === "continue" || k === "input" || k === "__proto__") continue;
		full[k] = iss[k];
	}
	full.path ?? (full.path = []);
	full.message = message;
	if (ctx?.reportInput) full.input = iss.input;
	return full;
}
const highSurrogate = /[\uD800-\uDBFF]/;
function codePointLength(str) {
	const units = str.length;
	if (!highSurrogate.test(str)) return units;
	let count = units;
	for (let i = 0; i < units - 1; i++) if ((str.charCodeAt(i) & 64512) === 55296 && (str.charCodeAt(i + 1) & 64512) === 56320) {
		count--;
		i++;
	}
	return count;
}
function getLengthableOrigin(input) {
	if (Array.isArray(input)) return "array";
	if (typeof input === "string") return "string";
	return "unknown";
}
function parsedType(data) {
	const t = typeof data;
	switch (t) {
		case "number": return Number.isNaN(data) ? "nan" : "number";
		case "object": {
			if (data === null) return "null";
			if (Array.isArray(data)) return "array";
			const obj = data;
			if (obj && Object.getPrototypeOf(obj) !== Object.prototype && "constructor" in obj && obj.constructor) return obj.constructor.name;
		}
	}
	return t;
}
function issue(...args) {
	const [iss, input, inst] = args;
	if (typeof iss === "string") return {
		message: iss,
		code: "custom",
		input,
		inst
	};
	return { ...iss };
}
/**
* Installs a trait's members on its prototype. Each value builds that member for the instance on first read; the built value shadows the accessor as an own property, so a detached `const { parse } = schema` keeps working.
*
* Call this from a `proto` initializer, which runs once per prototype \u2014 never per instance.
*/
function members(proto, table) {
	for (const key in table) {
		const desc = Object.getOwnPropertyDescriptor(table, key);
		if (desc.get) Object.defineProperty(proto, key, {
			...desc,
			enumerable: false
		});
		else defineBound(proto, key, desc.value);
	}
}
/** Shadows a prototype member with an own value, so a getter that builds from the instance runs once. */
function own(inst, key, value, enumerable = true) {
	Object.defineProperty(inst, key, {
		configurable: true,
		writable: true,
		enumerable,
		value
	});
	return value;
}
/** Like {@link own}, for a member that was never an own data property and has to stay out of `Object.keys`. */
function hide(inst, key, value) {
	return own(inst, key, value, false);
}
function defineBound(proto, key, fn) {
	Object.defineProperty(proto, key, {
		configurable: true,
		get() {
			return this == null ? fn : own(this, key, fn.bind(this));
		},
		set(value) {
			own(this, key, value);
		}
	});
}
let installing;
let broke = false;
const breaker = {
	configurable: true,
	get() {
		broke = true;
	}
};
/**
* Installs a lazily-derived internal on the `_zod` prototype of `inst`'s
* constructor, computed from the internals object itself and cached there on
* first read. One accessor per constructor rather than one per instance.
*/
function defineLazyInternal(inst, key, compute) {
	const proto = Object.getPrototypeOf(inst._zod);
	if (key in proto && installing !== inst._zod) {
		installing = void 0;
		return;
	}
	installing = inst._zod;
	Object.defineProperty(proto, key, {
		configurable: true,
		get() {
			Object.defineProperty(this, key, breaker);
			const outer = broke;
			broke = false;
			try {
				const value = compute(this);
				if (broke) delete this[key];
				else Object.defineProperty(this, key, {
					configurable: true,
					writable: true,
					value
				});
				broke = broke || outer;
				return value;
			} catch (err) {
				delete this[key];
				broke = broke || outer;
				throw err;
			}
		},
		set(value) {
			Object.defineProperty(this, key, {
				configurable: true,
				writable: true,
				value
			});
		}
	});
}
// node_modules/zod/v4/core/core.js
var _a;
const _zodDesc = {
	value: void 0,
	enumerable: false
};
let _E = "captureStackTrace" in Error ? Error : null;
function newError(Definition) {
	const E = _E;
	if (E) {
		const saved = E.stackTraceLimit;
		if (typeof saved === "number") {
			try {
				E.stackTraceLimit = 0;
			} catch {
				_E = null;
				return new Definition();
			}
			try {
				return new Definition();
			} finally {
				E.stackTraceLimit = saved;
			}
		}
	}
	return new Definition();
}
/* @__NO_SIDE_EFFECTS__ */
function $constructor(name, initializer, proto, params) {
	const zodProto = {};
	function Internals(def) {
		this.def = def;
		this.constr = _;
		this.traits = /* @__PURE__ */ new Set();
	}
	Internals.prototype = zodProto;
	const protoMembers = proto;
	const initialized = protoMembers && /* @__PURE__ */ new WeakSet();
	function init(inst, def) {
		if (!inst._zod) {
			_zodDesc.value = new Internals(def);
			try {
				Object.defineProperty(inst, "_zod", _zodDesc);
			} finally {
				_zodDesc.value = void 0;
			}
		} else if (inst._zod.traits.has(name)) return;
		inst._zod.traits.add(name);
		initializer(inst, def);
		if (initialized) {
			const own = Object.getPrototypeOf(inst);
			const ctorProto = inst._zod.constr.prototype;
			let up = own;
			while (up && up !== ctorProto) up = Object.getPrototypeOf(up);
			const target = up ?? own;
			if (!initialized.has(target)) {
				initialized.add(target);
				members(target, protoMembers);
			}
		}
		const proto = _.prototype;
		for (const k in proto) {
			if (!Object.prototype.hasOwnProperty.call(proto, k)) continue;
			if (!(k in inst)) inst[k] = proto[k].bind(inst);
		}
	}
	const Parent = params?.Parent ?? Object;
	class Definition extends Parent {}
	Object.defineProperty(Definition, "name", { value: name });
	function _(def) {
		const inst = params?.Parent ? newError(Definition) : this;
		init(inst, def);
		const deferred = inst._zod.deferred;
		if (deferred) {
			for (const fn of deferred) fn();
			inst._zod.deferred = void 0;
		}
		const pp = globalThis.__zod_globalConfig?.postProcessor;
		if (pp) pp(inst);
		return inst;
	}
	Object.defineProperty(_, "init", { value: init });
	Object.defineProperty(_, Symbol.hasInstance, { value: (inst) => {
		if (params?.Parent && inst instanceof params.Parent) return true;
		return inst?._zod?.traits?.has(name);
	} });
	Object.defineProperty(_, "name", { value: name });
	return _;
}
var $ZodAsyncError = class extends Error {
	constructor() {
		super(`Encountered Promise during synchronous parse. Use .parseAsync() instead.`);
	}
};
(_a = globalThis).__zod_globalConfig ?? (_a.__zod_globalConfig = {});
const globalConfig = globalThis.__zod_globalConfig;
function config(newConfig) {
	if (newConfig) Object.assign(globalConfig, newConfig);
	return globalConfig;
}
// node_modules/zod/v4/core/errors.js
function _getMessage() {
	const internals = this._zod;
	internals.message ?? (internals.message = JSON.stringify(internals.def, jsonStringifyReplacer, 2));
	return internals.message;
}
function _setMessage(value) {
	this._zod.message = value;
}
const _messageDesc = {
	get: _getMessage,
	set: _setMessage,
	enumerable: true,
	configurable: true
};
const _issuesDesc = {
	value: void 0,
	enumerable: false
};
const _installedToString = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
const initializer = (inst, def) => {
	inst.name = "$ZodError";
	_issuesDesc.value = def;
	Object.defineProperty(inst, "issues", _issuesDesc);
	_issuesDesc.value = void 0;
	Object.defineProperty(inst, "message", _messageDesc);
	const proto = Object.getPrototypeOf(inst);
	if (!_installedToString.has(proto)) {
		_installedToString.add(proto);
		Object.defineProperty(proto, "toString", {
			configurable: true,
			enumerable: false,
			get() {
				const value = () => this.message;
				Object.defineProperty(this, "toString", {
					value,
					configurable: true,
					writable: true
				});
				return value;
			},
			set(value) {
				Object.defineProperty(this, "toString", {
					value,
					configurable: true,
					writable: true
				});
			}
		});
	}
};
const $ZodRealError = /* @__PURE__ */ $constructor("$ZodError", initializer, void 0, { Parent: Error });
// node_modules/zod/v4/core/parse.js
const _parse = (_Err) => {
	const fn = (schema, value, _ctx, _params) => {
		const ctx = _ctx ? {
			..._ctx,
			async: false
		} : { async: false };
		const result = schema._zod.run({
			value,
			issues: []
		}, ctx);
		if (result instanceof Promise) throw new $ZodAsyncError();
		if (result.issues.length) {
			const e = new ((_params?.Err) ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
			captureStackTrace(e, _params?.callee ?? fn);
			throw e;
		}
		return result.value;
	};
	return fn;
};
const parse = /* @__PURE__*/ _parse($ZodRealError);
const _parseAsync = (_Err) => {
	const fn = async (schema, value, _ctx, params) => {
		const ctx = _ctx ? {
			..._ctx,
			async: true
		} : { async: true };
		let result = schema._zod.run({
			value,
			issues: []
		}, ctx);
		if (result instanceof Promise) result = await result;
		if (result.issues.length) {
			const e = new ((params?.Err) ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
			captureStackTrace(e, params?.callee ?? fn);
			throw e;
		}
		return result.value;
	};
	return fn;
};
const parseAsync = /* @__PURE__*/ _parseAsync($ZodRealError);
const _safeParse = (_Err) => (schema, value, _ctx) => {
	const ctx = _ctx ? {
		..._ctx,
		async: false
	} : { async: false };
	const result = schema._zod.run({
		value,
		issues: []
	}, ctx);
	if (result instanceof Promise) throw new $ZodAsyncError();
	return result.issues.length ? failure(_Err, result.issues, ctx) : {
		success: true,
		data: result.value
	};
};
const safeParse = /* @__PURE__*/ _safeParse($ZodRealError);
function failure(Err, issues, ctx) {
	let error;
	return {
		success: false,
		get error() {
			if (!error) {
				error = new Err(issues.map((iss) => finalizeIssue(iss, ctx, config())));
				issues = void 0;
				ctx = void 0;
			}
			return error;
		},
		set error(e) {
			error = e;
			issues = void 0;
			ctx = void 0;
		}
	};
}
const _safeParseAsync = (_Err) => async (schema, value, _ctx) => {
	const ctx = _ctx ? {
		..._ctx,
		async: true
	} : { async: true };
	let result = schema._zod.run({
		value,
		issues: []
	}, ctx);
	if (result instanceof Promise) result = await result;
	return result.issues.length ? failure(_Err, result.issues, ctx) : {
		success: true,
		data: result.value
	};
};
const safeParseAsync = /* @__PURE__*/ _safeParseAsync($ZodRealError);
// node_modules/zod/v4/core/regexes.js
const anyString = /^[\s\S]{0,}$/;
const number$1 = /^-?\d+(?:\.\d+)?$/;
const _undefined$2 = /^undefined$/i;
// node_modules/zod/v4/core/checks.js
const $ZodCheck = /*@__PURE__*/ $constructor("$ZodCheck", (inst, def) => {
	var _a;
	inst._zod ?? (inst._zod = {});
	inst._zod.def = def;
	(_a = inst._zod).onattach ?? (_a.onattach = []);
});
/** Default `when` for length-based checks: run only on non-nullish values with a `length`. */
const _whenHasLength = (payload) => {
	const val = payload.value;
	return !nullish(val) && val.length !== void 0;
};
const numericOriginMap = {
	number: "number",
	bigint: "bigint",
	object: "date"
};
const $ZodCheckGreaterThan = /*@__PURE__*/ $constructor("$ZodCheckGreaterThan", (inst, def) => {
	$ZodCheck.init(inst, def);
	const origin = numericOriginMap[typeof def.value];
	inst._zod.check = (payload) => {
		if (def.inclusive ? payload.value >= def.value : payload.value > def.value) return;
		payload.issues.push({
			origin: numericOriginMap[typeof payload.value] ?? origin,
			code: "too_small",
			minimum: typeof def.value === "object" ? def.value.getTime() : def.value,
			input: payload.value,
			inclusive: def.inclusive,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckNumberFormat = /*@__PURE__*/ $constructor("$ZodCheckNumberFormat", (inst, def) => {
	$ZodCheck.init(inst, def);
	def.format = def.format || "float64";
	const isInt = def.format?.includes("int");
	const origin = isInt ? "int" : "number";
	const [minimum, maximum] = NUMBER_FORMAT_RANGES[def.format];
	inst._zod.check = (payload) => {
		const input = payload.value;
		if (isInt) {
			if (!Number.isInteger(input)) {
				payload.issues.push({
					expected: origin,
					format: def.format,
					code: "invalid_type",
					continue: false,
					input,
					inst
				});
				return;
			}
			if (!Number.isSafeInteger(input)) {
				if (input > 0) payload.issues.push({
					input,
					code: "too_big",
					maximum: Number.MAX_SAFE_INTEGER,
					note: "Integers must be within the safe integer range.",
					inst,
					origin,
					inclusive: true,
					continue: !def.abort
				});
				else payload.issues.push({
					input,
					code: "too_small",
					minimum: Number.MIN_SAFE_INTEGER,
					note: "Integers must be within the safe integer range.",
					inst,
					origin,
					inclusive: true,
					continue: !def.abort
				});
				return;
			}
		}
		if (input < minimum) payload.issues.push({
			origin: "number",
			input,
			code: "too_small",
			minimum,
			inclusive: true,
			inst,
			continue: !def.abort
		});
		if (input > maximum) payload.issues.push({
			origin: "number",
			input,
			code: "too_big",
			maximum,
			inclusive: true,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckMaxLength = /*@__PURE__*/ $constructor("$ZodCheckMaxLength", (inst, def) => {
	var _a;
	$ZodCheck.init(inst, def);
	(_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
	inst._zod.check = (payload) => {
		const input = payload.value;
		const units = input.length;
		if ((typeof input === "string" && units > def.maximum ? codePointLength(input) : units) <= def.maximum) return;
		const origin = getLengthableOrigin(input);
		payload.issues.push({
			origin,
			code: "too_big",
			maximum: def.maximum,
			inclusive: true,
			input,
			inst,
			continue: !def.abort
		});
	};
});
const $ZodCheckStringFormat = /*@__PURE__*/ $constructor("$ZodCheckStringFormat", (inst, def) => {
	var _a, _b;
	$ZodCheck.init(inst, def);
	if (def.pattern) (_a = inst._zod).check ?? (_a.check = (payload) => {
		def.pattern.lastIndex = 0;
		if (def.pattern.test(payload.value)) return;
		payload.issues.push({
			origin: "string",
			code: "invalid_format",
			format: def.format,
			input: payload.value,
			...def.pattern ? { pattern: def.pattern.toString() } : {},
			inst,
			continue: !def.abort
		});
	});
	else (_b = inst._zod).check ?? (_b.check = () => {});
});
const $ZodCheckRegex = /*@__PURE__*/ $constructor("$ZodCheckRegex", (inst, def) => {
	$ZodCheckStringFormat.init(inst, def);
	inst._zod.check = (payload) => {
		def.pattern.lastIndex = 0;
		if (def.pattern.test(payload.value)) return;
		payload.issues.push({
			origin: "string",
			code: "invalid_format",
			format: "regex",
			input: payload.value,
			pattern: def.pattern.toString(),
			inst,
			continue: !def.abort
		});
	};
});
// node_modules/zod/v4/core/versions.js
const version = {
	major: 4,
	minor: 6,
	patch: 7
};
// node_modules/zod/v4/core/schemas.js
const $ZodType = /*@__PURE__*/ $constructor("$ZodType", (inst, def) => {
	var _a;
	inst ?? (inst = {});
	inst._zod.def = def;
	inst._zod.bag = inst._zod.bag || {};
	inst._zod.version = version;
	const defChecks = inst._zod.def.checks;
	const checks = inst._zod.traits.has("$ZodCheck") ? [inst, ...defChecks ?? []] : defChecks?.length ? [...defChecks] : [];
	for (const ch of checks) for (const fn of ch._zod.onattach) fn(inst);
	if (checks.length === 0) {
		(_a = inst._zod).deferred ?? (_a.deferred = []);
		inst._zod.deferred?.push(() => {
			inst._zod.run = inst._zod.parse;
		});
	} else {
		const runChecks = (payload, checks, ctx) => {
			if (payload.memo) return payload;
			let isAborted = aborted(payload);
			let asyncResult;
			for (const ch of checks) {
				if (ch._zod.def.when) {
					if (explicitlyAborted(payload)) continue;
					if (!ch._zod.def.when(payload)) continue;
				} else if (isAborted) continue;
				const currLen = payload.issues.length;
				const _ = ch._zod.check(payload);
				if (_ instanceof Promise && ctx?.async === false) throw new $ZodAsyncError();
				if (asyncResult || _ instanceof Promise) asyncResult = (asyncResult ?? Promise.resolve()).then(async () => {
					await _;
					if (payload.issues.length === currLen) return;
					attachSchema(payload.issues, currLen, inst);
					if (!isAborted) isAborted = aborted(payload, currLen);
				});
				else {
					if (payload.issues.length === currLen) continue;
					attachSchema(payload.issues, currLen, inst);
					if (!isAborted) isAborted = aborted(payload, currLen);
				}
			}
			if (asyncResult) return asyncResult.then(() => {
				return payload;
			});
			return payload;
		};
		const handleCanaryResult = (canary, payload, ctx) => {
			if (aborted(canary)) {
				canary.aborted = true;
				return canary;
			}
			const checkResult = runChecks(payload, checks, ctx);
			if (checkResult instanceof Promise) {
				if (ctx.async === false) throw new $ZodAsyncError();
				return checkResult.then((checkResult) => inst._zod.parse(checkResult, ctx));
			}
			return inst._zod.parse(checkResult, ctx);
		};
		inst._zod.run = (payload, ctx) => {
			if (ctx.skipChecks) return inst._zod.parse(payload, ctx);
			if (ctx.direction === "backward") {
				const canary = inst._zod.parse({
					value: payload.value,
					issues: []
				}, {
					...ctx,
					skipChecks: true
				});
				if (canary instanceof Promise) return canary.then((canary) => {
					return handleCanaryResult(canary, payload, ctx);
				});
				return handleCanaryResult(canary, payload, ctx);
			}
			const result = inst._zod.parse(payload, ctx);
			if (result instanceof Promise) {
				if (ctx.async === false) throw new $ZodAsyncError();
				return result.then((result) => runChecks(result, checks, ctx));
			}
			return runChecks(result, checks, ctx);
		};
	}
}, {
	get "~standard"() {
		return hide(this, "~standard", standardProps(this));
	},
	set "~standard"(value) {
		own(this, "~standard", value);
	}
});
/** The Standard Schema surface for `inst`. Shared so wrappers can extend it without forcing it. */
const toStandardResult = (r, ctx) => r.issues.length ? { issues: r.issues.map((iss) => finalizeIssue(iss, ctx, config())) } : { value: r.value };
async function validateAsync(inst, value) {
	const ctx = { async: true };
	return toStandardResult(await inst._zod.run({
		value,
		issues: []
	}, ctx), ctx);
}
function standardProps(inst) {
	return {
		validate: (value) => {
			const ctx = { async: false };
			try {
				const r = inst._zod.run({
					value,
					issues: []
				}, ctx);
				if (!(r instanceof Promise)) return toStandardResult(r, ctx);
			} catch (_) {}
			return validateAsync(inst, value);
		},
		vendor: "zod",
		version: 1
	};
}
const $ZodString = /*@__PURE__*/ $constructor("$ZodString", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = def.pattern ?? anyString;
	inst._zod.parse = (payload, _) => {
		if (def.coerce) try {
			payload.value = String(payload.value);
		} catch (_) {}
		if (typeof payload.value === "string") return payload;
		payload.issues.push({
			expected: "string",
			code: "invalid_type",
			input: payload.value,
			inst
		});
		return payload;
	};
});
const $ZodNumber = /*@__PURE__*/ $constructor("$ZodNumber", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = number$1;
	inst._zod.parse = (payload, _ctx) => {
		if (def.coerce) try {
			payload.value = Number(payload.value);
		} catch (_) {}
		const input = payload.value;
		if (typeof input === "number" && !Number.isNaN(input) && Number.isFinite(input)) return payload;
		const received = typeof input === "number" ? Number.isNaN(input) ? "NaN" : !Number.isFinite(input) ? String(input) : void 0 : void 0;
		payload.issues.push({
			expected: "number",
			code: "invalid_type",
			input,
			inst,
			...received ? { received } : {}
		});
		return payload;
	};
});
const $ZodNumberFormat = /*@__PURE__*/ $constructor("$ZodNumberFormat", (inst, def) => {
	$ZodCheckNumberFormat.init(inst, def);
	$ZodNumber.init(inst, def);
});
const $ZodUndefined = /*@__PURE__*/ $constructor("$ZodUndefined", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = _undefined$2;
	inst._zod.values = /* @__PURE__ */ new Set([void 0]);
	inst._zod.parse = (payload, _ctx) => {
		const input = payload.value;
		if (typeof input === "undefined") return payload;
		payload.issues.push({
			expected: "undefined",
			code: "invalid_type",
			input,
			inst
		});
		return payload;
	};
});
function handleUnionResults(results, final, inst, ctx) {
	for (const result of results) if (result.issues.length === 0) {
		final.value = result.value;
		return final;
	}
	const nonaborted = results.filter((r) => !aborted(r));
	if (nonaborted.length === 1) {
		final.value = nonaborted[0].value;
		return nonaborted[0];
	}
	final.issues.push({
		code: "invalid_union",
		input: final.value,
		inst,
		errors: results.map((result) => result.issues.map((iss) => finalizeIssue(iss, ctx, config())))
	});
	return final;
}
const $ZodUnion = /*@__PURE__*/ $constructor("$ZodUnion", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.options.some((o) => o._zod.optin === "defaulted") ? "defaulted" : zod.def.options.some((o) => o._zod.optin !== void 0) ? "optional" : void 0);
	defineLazyInternal(inst, "optout", (zod) => zod.def.options.some((o) => o._zod.optout === "optional") ? "optional" : void 0);
	defineLazyInternal(inst, "values", (zod) => {
		if (zod.def.options.every((o) => o._zod.values)) return new Set(zod.def.options.flatMap((option) => Array.from(option._zod.values)));
	});
	defineLazyInternal(inst, "pattern", (zod) => {
		if (zod.def.options.every((o) => o._zod.pattern)) {
			const patterns = zod.def.options.map((o) => o._zod.pattern);
			return new RegExp(`^(${patterns.map((p) => cleanRegex(p.source)).join("|")})$`);
		}
	});
	const first = def.options.length === 1 ? def.options[0]._zod.run : null;
	inst._zod.parse = (payload, ctx) => {
		if (first) return first(payload, ctx);
		let async = false;
		const results = [];
		for (const option of def.options) {
			const result = option._zod.run({
				value: payload.value,
				issues: []
			}, ctx);
			if (result instanceof Promise) {
				results.push(result);
				async = true;
			} else {
				if (result.issues.length === 0) return result;
				results.push(result);
			}
		}
		if (!async) return handleUnionResults(results, payload, inst, ctx);
		return Promise.all(results).then((results) => {
			return handleUnionResults(results, payload, inst, ctx);
		});
	};
});
const $ZodRecord = /*@__PURE__*/ $constructor("$ZodRecord", (inst, def) => {
	$ZodType.init(inst, def);
	const memo = globalConfig.memoizer;
	memo?.attach(inst);
	inst._zod.parse = (payload, ctx) => {
		const input = payload.value;
		if (!isPlainObject(input)) {
			payload.issues.push({
				expected: "record",
				code: "invalid_type",
				input,
				inst
			});
			return payload;
		}
		const proms = [];
		const values = def.keyType._zod.values;
		if (values && !def.partial) {
			payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
			const recordKeys = /* @__PURE__ */ new Set();
			for (const key of values) if (typeof key === "string" || typeof key === "number" || typeof key === "symbol") {
				recordKeys.add(typeof key === "number" ? key.toString() : key);
				if (key === "__proto__") continue;
				const keyResult = def.keyType._zod.run({
					value: key,
					issues: []
				}, ctx);
				if (keyResult instanceof Promise) throw new Error("Async schemas not supported in object keys currently");
				if (keyResult.issues.length) {
					payload.issues.push({
						code: "invalid_key",
						origin: "record",
						issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
						input: key,
						path: [key],
						inst
					});
					continue;
				}
				const outKey = keyResult.value;
				if (outKey === "__proto__") continue;
				const result = def.valueType._zod.run({
					value: input[key],
					issues: []
				}, ctx);
				if (result instanceof Promise) proms.push(result.then((result) => {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}));
				else {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}
			}
			let unrecognized;
			for (const key in input) if (!recordKeys.has(key)) {
				if (def.mode === "loose") {
					if (key === "__proto__") continue;
					payload.value[key] = input[key];
				} else {
					unrecognized = unrecognized ?? [];
					unrecognized.push(key);
				}
			}
			if (unrecognized && unrecognized.length > 0) payload.issues.push({
				code: "unrecognized_keys",
				input,
				inst,
				keys: unrecognized,
				continue: true
			});
		} else {
			payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
			let unrecognized;
			for (const key of Reflect.ownKeys(input)) {
				if (key === "__proto__") continue;
				if (!Object.prototype.propertyIsEnumerable.call(input, key)) continue;
				let keyResult = def.keyType._zod.run({
					value: key,
					issues: []
				}, ctx);
				if (keyResult instanceof Promise) throw new Error("Async schemas not supported in object keys currently");
				if (typeof key === "string" && number$1.test(key) && keyResult.issues.length) {
					const retryResult = def.keyType._zod.run({
						value: Number(key),
						issues: []
					}, ctx);
					if (retryResult instanceof Promise) throw new Error("Async schemas not supported in object keys currently");
					if (retryResult.issues.length === 0) keyResult = retryResult;
				}
				if (keyResult.issues.length) {
					if (def.mode === "loose") payload.value[key] = input[key];
					else if (values) {
						unrecognized = unrecognized ?? [];
						unrecognized.push(key);
					} else payload.issues.push({
						code: "invalid_key",
						origin: "record",
						issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
						input: key,
						path: [key],
						inst
					});
					continue;
				}
				const outKey = keyResult.value;
				if (outKey === "__proto__") continue;
				const result = def.valueType._zod.run({
					value: input[key],
					issues: []
				}, ctx);
				if (result instanceof Promise) proms.push(result.then((result) => {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}));
				else {
					if (result.issues.length) payload.issues.push(...prefixIssues(key, result.issues));
					payload.value[outKey] = result.value;
				}
			}
			if (unrecognized && unrecognized.length > 0) payload.issues.push({
				code: "unrecognized_keys",
				input,
				inst,
				keys: unrecognized,
				continue: true
			});
		}
		if (proms.length) return Promise.all(proms).then(() => payload);
		return payload;
	};
});
const $ZodCustom = /*@__PURE__*/ $constructor("$ZodCustom", (inst, def) => {
	$ZodCheck.init(inst, def);
	$ZodType.init(inst, def);
	inst._zod.parse = (payload, _) => {
		return payload;
	};
	inst._zod.check = (payload) => {
		const input = payload.value;
		const r = def.fn(input);
		if (r instanceof Promise) return r.then((r) => handleRefineResult(r, payload, input, inst));
		handleRefineResult(r, payload, input, inst);
	};
});
function handleRefineResult(result, payload, input, inst) {
	if (!result) {
		const _iss = {
			code: "custom",
			input,
			inst,
			path: [...inst._zod.def.path ?? []],
			continue: !inst._zod.def.abort
		};
		if (inst._zod.def.params) _iss.params = inst._zod.def.params;
		payload.issues.push(issue(_iss));
	}
}
// node_modules/zod/v4/locales/en.js
const error = () => {
	const Sizable = {
		string: {
			unit: "characters",
			verb: "to have"
		},
		file: {
			unit: "bytes",
			verb: "to have"
		},
		array: {
			unit: "items",
			verb: "to have"
		},
		set: {
			unit: "items",
			verb: "to have"
		},
		map: {
			unit: "entries",
			verb: "to have"
		}
	};
	function getSizing(origin) {
		return Sizable[origin] ?? null;
	}
	const FormatDictionary = {
		regex: "input",
		email: "email address",
		url: "URL",
		emoji: "emoji",
		uuid: "UUID",
		uuidv4: "UUIDv4",
		uuidv6: "UUIDv6",
		nanoid: "nanoid",
		guid: "GUID",
		cuid: "cuid",
		cuid2: "cuid2",
		ulid: "ULID",
		xid: "XID",
		ksuid: "KSUID",
		datetime: "ISO datetime",
		date: "ISO date",
		time: "ISO time",
		duration: "ISO duration",
		ipv4: "IPv4 address",
		ipv6: "IPv6 address",
		mac: "MAC address",
		cidrv4: "IPv4 range",
		cidrv6: "IPv6 range",
		base64: "base64-encoded string",
		base64url: "base64url-encoded string",
		json_string: "JSON string",
		e164: "E.164 number",
		currency_code: "currency code",
		credit_card: "credit card number",
		iban: "IBAN",
		jwt: "JWT",
		template_literal: "input"
	};
	const TypeDictionary = { nan: "NaN" };
	function getTypeName(type, input) {
		if (type === "number" && typeof input === "number" && !Number.isFinite(input)) return String(input);
		return TypeDictionary[type] ?? type;
	}
	return (issue) => {
		switch (issue.code) {
			case "invalid_type": return `Invalid input: expected ${getTypeName(issue.expected)}, received ${getTypeName(parsedType(issue.input), issue.input)}`;
			case "invalid_value":
				if (issue.values.length === 1) return `Invalid input: expected ${stringifyPrimitive(issue.values[0])}`;
				return `Invalid option: expected one of ${joinValues(issue.values, "|")}`;
			case "too_big": {
				const adj = issue.exact ? "exactly " : issue.inclusive ? "<=" : "<";
				const sizing = getSizing(issue.origin);
				if (sizing) return `Too big: expected ${issue.origin ?? "value"} to have ${adj}${issue.maximum.toString()} ${sizing.unit ?? "elements"}`;
				return `Too big: expected ${issue.origin ?? "value"} to be ${adj}${issue.maximum.toString()}`;
			}
			case "too_small": {
				const adj = issue.exact ? "exactly " : issue.inclusive ? ">=" : ">";
				const sizing = getSizing(issue.origin);
				if (sizing) return `Too small: expected ${issue.origin} to have ${adj}${issue.minimum.toString()} ${sizing.unit}`;
				return `Too small: expected ${issue.origin} to be ${adj}${issue.minimum.toString()}`;
			}
			case "invalid_format": {
				const _issue = issue;
				if (_issue.format === "starts_with") return `Invalid string: must start with "${_issue.prefix}"`;
				if (_issue.format === "ends_with") return `Invalid string: must end with "${_issue.suffix}"`;
				if (_issue.format === "includes") return `Invalid string: must include "${_issue.includes}"`;
				if (_issue.format === "regex") return `Invalid string: must match pattern ${_issue.pattern}`;
				return `Invalid ${FormatDictionary[_issue.format] ?? issue.format}`;
			}
			case "not_multiple_of": return `Invalid number: must be a multiple of ${issue.divisor}`;
			case "unrecognized_keys": return `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${joinValues(issue.keys, ", ")}`;
			case "invalid_key": return `Invalid key in ${issue.origin}`;
			case "invalid_union":
				if (issue.options && Array.isArray(issue.options) && issue.options.length > 0) return `Invalid discriminator value. Expected ${issue.options.map((o) => `'${o}'`).join(" | ")}`;
				if (issue.inclusive === false) return "Invalid input: more than one option matched";
				return "Invalid input";
			case "invalid_element": return `Invalid value in ${issue.origin}`;
			default: return `Invalid input`;
		}
	};
};
function en_default() {
	return { localeError: error() };
}
// node_modules/zod/v4/core/api.js
function snapshotChecks(def) {
	if (def.checks) def.checks = [...def.checks];
	return def;
}
// @__NO_SIDE_EFFECTS__
function _string(Class, params) {
	return new Class(snapshotChecks({
		type: "string",
		...normalizeParams(params)
	}));
}
// @__NO_SIDE_EFFECTS__
function _number(Class, params) {
	return new Class(snapshotChecks({
		type: "number",
		checks: [],
		...normalizeParams(params)
	}));
}
// @__NO_SIDE_EFFECTS__
function _int(Class, params) {
	return new Class({
		type: "number",
		check: "number_format",
		abort: false,
		format: "safeint",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _undefined$1(Class, params) {
	return new Class({
		type: "undefined",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _gte(value, params) {
	return new $ZodCheckGreaterThan({
		check: "greater_than",
		...normalizeParams(params),
		value,
		inclusive: true
	});
}
// @__NO_SIDE_EFFECTS__
function _nonnegative(params) {
	return /* @__PURE__ */ _gte(0, params);
}
// @__NO_SIDE_EFFECTS__
function _maxLength(maximum, params) {
	return new $ZodCheckMaxLength({
		check: "max_length",
		...normalizeParams(params),
		maximum
	});
}
// @__NO_SIDE_EFFECTS__
function _regex(pattern, params) {
	return new $ZodCheckRegex({
		check: "string_format",
		format: "regex",
		...normalizeParams(params),
		pattern
	});
}
// @__NO_SIDE_EFFECTS__
function _refine(Class, fn, _params) {
	return new Class({
		type: "custom",
		check: "custom",
		fn,
		...normalizeParams(_params)
	});
}
// node_modules/zod/v4/mini/schemas.js
const ZodMiniType = /*@__PURE__*/ $constructor("ZodMiniType", (inst, def) => {
	if (!inst._zod) throw new Error("Uninitialized schema in ZodMiniType.");
	$ZodType.init(inst, def);
	inst.def = def;
	inst.type = def.type;
}, {
	get with() {
		return this.check;
	},
	set with(value) {
		own(this, "with", value);
	},
	parse(data, params) {
		return parse(this, data, params, { callee: this.parse });
	},
	parseAsync(data, params) {
		return parseAsync(this, data, params, { callee: this.parseAsync });
	},
	safeParse(data, params) {
		return safeParse(this, data, params);
	},
	safeParseAsync(data, params) {
		return safeParseAsync(this, data, params);
	},
	check(...checks) {
		const def = this.def;
		return this.clone({
			...def,
			checks: [...def.checks ?? [], ...checks.map((ch) => typeof ch === "function" ? { _zod: {
				check: ch,
				def: { check: "custom" },
				onattach: []
			} } : ch)]
		}, { parent: true });
	},
	clone(_def, params) {
		return clone(this, _def, params);
	},
	brand() {
		return this;
	},
	register(reg, meta) {
		reg.add(this, meta);
		return this;
	},
	apply(fn, ...args) {
		return args.length === 0 ? fn(this) : fn(this, ...args);
	}
});
const ZodMiniString = /*@__PURE__*/ $constructor("ZodMiniString", (inst, def) => {
	$ZodString.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function string(params) {
	return /* @__PURE__ */ _string(ZodMiniString, params);
}
const ZodMiniNumber = /*@__PURE__*/ $constructor("ZodMiniNumber", (inst, def) => {
	$ZodNumber.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function number(params) {
	return /* @__PURE__ */ _number(ZodMiniNumber, params);
}
const ZodMiniNumberFormat = /*@__PURE__*/ $constructor("ZodMiniNumberFormat", (inst, def) => {
	$ZodNumberFormat.init(inst, def);
	ZodMiniNumber.init(inst, def);
});
function int(params) {
	return /* @__PURE__ */ _int(ZodMiniNumberFormat, params);
}
const ZodMiniUndefined = /*@__PURE__*/ $constructor("ZodMiniUndefined", (inst, def) => {
	$ZodUndefined.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function _undefined(params) {
	return /* @__PURE__ */ _undefined$1(ZodMiniUndefined, params);
}
const ZodMiniUnion = /*@__PURE__*/ $constructor("ZodMiniUnion", (inst, def) => {
	$ZodUnion.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function union(options, params) {
	return new ZodMiniUnion({
		type: "union",
		options,
		...normalizeParams(params)
	});
}
const ZodMiniRecord = /*@__PURE__*/ $constructor("ZodMiniRecord", (inst, def) => {
	$ZodRecord.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function record(keyType, valueType, params) {
	if (!valueType || !valueType._zod) return new ZodMiniRecord({
		type: "record",
		keyType: /* @__PURE__ */ string(),
		valueType: keyType,
		...normalizeParams(valueType)
	});
	return new ZodMiniRecord({
		type: "record",
		keyType,
		valueType,
		...normalizeParams(params)
	});
}
const ZodMiniCustom = /*@__PURE__*/ $constructor("ZodMiniCustom", (inst, def) => {
	$ZodCustom.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function refine(fn, _params = {}) {
	return /* @__PURE__ */ _refine(ZodMiniCustom, fn, _params);
}
// src/zod-en.ts
/**
* zod/mini ships no messages (every issue reads "Invalid input"); classic zod installed
* English on first use. The texts a person sees (the app config, the policy and keys
* files, the kernel's 400 answers) keep zod's English wording, so each module whose
* schema messages reach a person imports this once. `config` is global and idempotent.
*/
config(en_default());
// src/plane/canonical-json.ts
/** JSON with sorted keys and no whitespace, so the same entry always hashes the same. */
function canonicalJson(value) {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
	if (value && typeof value === "object") return `{${Object.entries(value).filter(([, v]) => v !== void 0).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
	return JSON.stringify(value);
}
// src/plane/entry-kinds.ts
/**
* The ledger's entry kinds, once: the ledger's schema (ledger/entry.ts), the kernel's events
* (kernel/rules/event.ts), its notifications and the console page all read this list. Plain
* data with no imports, so the page bundles it.
*/
const ENTRY_KINDS = [
	"grant",
	"renew",
	"release",
	"lapse",
	"revoke",
	"freeze",
	"unfreeze",
	"break_glass",
	"break_glass_withdrawn"
];
(/* @__PURE__ */ number()).check(int(), /* @__PURE__ */ _nonnegative()), (/* @__PURE__ */ number()).check(int(), /* @__PURE__ */ _nonnegative()), (/* @__PURE__ */ number()).check(int(), /* @__PURE__ */ _nonnegative()), (/* @__PURE__ */ number()).check(int()), (/* @__PURE__ */ number()).check(int()), (/* @__PURE__ */ record((/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(64)), /* @__PURE__ */ union([
	(/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(2048)),
	/* @__PURE__ */ number(),
	/* @__PURE__ */ _undefined()
]))).check(/* @__PURE__ */ refine((d) => Object.keys(d).length <= 16, "expected at most 16 fields")), (/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/)), (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(500));
/**
* The canonical JSON of an entry the kernel built itself, written with its keys
* already in sorted order (no sort, no schema check on the hot path). Equal to
* `canonicalJson(entry)`; a test holds the two together.
*/
function entryJson(e) {
	const s = JSON.stringify;
	let text = `{"actorDid":${s(e.actorDid)}`;
	if (e.approval !== void 0) text += `,"approval":${s(e.approval)}`;
	if (e.approvedBy !== void 0) text += `,"approvedBy":${s(e.approvedBy)}`;
	if (e.by !== void 0) text += `,"by":${s(e.by)}`;
	if (e.clockMs !== void 0) text += `,"clockMs":${e.clockMs}`;
	if (e.deploy !== void 0) text += `,"deploy":${canonicalJson(e.deploy)}`;
	if (e.expiresAtMs !== void 0) text += `,"expiresAtMs":${e.expiresAtMs}`;
	text += `,"fence":${e.fence}`;
	if (e.issuer !== void 0) text += `,"issuer":${s(e.issuer)}`;
	text += `,"kind":"${e.kind}","leaseId":${s(e.leaseId)}`;
	if (e.promotedVia !== void 0) text += `,"promotedVia":${s(e.promotedVia)}`;
	if (e.reason !== void 0) text += `,"reason":${s(e.reason)}`;
	return `${text},"resource":${s(e.resource)},"seq":${e.seq},"tsMs":${e.tsMs}}`;
}
Math.floor(Number.MAX_SAFE_INTEGER / 2 ** 40);
// src/kernel/notify/notification.ts
/** The red a chat shows a break-glass in (GitHub's danger red), and its severity. */
const BREAK_GLASS_COLOR = "#cf222e";
/** At most this many lines in a batch's `text`: a chat message, not a log (Slack cuts at 40,000 characters). */
const TEXT_LINES = 20;
const KINDS = new Set(ENTRY_KINDS.filter((k) => k !== "renew"));
/** Whether a change is notified (renewals are not). */
const isNotified = (entry) => KINDS.has(entry.kind);
/**
* A notification's id: the first 128 bits of the SHA-256 of its ledger entry's canonical
* line, as a UUID (version 8, RFC 9562). The same change has the same id whenever it is
* sent, before or after a restart; anyone with the ledger can tell which entry it names.
*/
function notificationId(entry) {
	return uuidOf((0, node_crypto.createHash)("sha256").update(entryJson(entry)).digest());
}
function uuidOf(digest) {
	const b = Buffer.from(digest.subarray(0, 16));
	b[6] = b[6] & 15 | 128;
	b[8] = b[8] & 63 | 128;
	const hex = b.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
/** The words a chat webhook shows. Plane-supplied text stays on one line. */
function notificationText(n) {
	const line = (s) => CONTROL_CHAR.test(s) || s.length > 300 ? s.replace(CONTROL_CHARS, " ").slice(0, 300) : s;
	const who = line(n.agent);
	const why = n.reason ? `: ${line(n.reason)}` : "";
	switch (n.kind) {
		case "grant": return `${n.resource} granted to ${who} (fence ${n.fence ?? "?"})`;
		case "release": return `${n.resource} released by ${who}`;
		case "lapse": return `${n.resource} lapsed: ${who} stopped renewing it`;
		case "revoke": return `${n.resource} revoked from ${who} by ${n.by ? line(n.by) : "an operator"}${why}`;
		case "freeze":
			if (n.agent === "health-check") return `${n.resource} held while its health check fails${why}`;
			return `${n.resource} frozen ${n.until ? `until ${new Date(n.until).toISOString()}` : "until unfrozen"} by ${who}${why}`;
		case "unfreeze": return `${n.resource} unfrozen${why}`;
		case "break_glass": return `\ud83d\udd34 BREAK-GLASS on ${n.resource}: ${who} may be granted it once past any freeze${n.until ? ` until ${new Date(n.until).toISOString()}` : ""}, opened by ${n.by ? line(n.by) : "an operator"}${n.approvedBy ? `, approved by ${line(n.approvedBy)}` : ""}${why}`;
		case "break_glass_withdrawn": return `${n.resource}: the break-glass for ${who} withdrawn by ${n.by ? line(n.by) : "an operator"}${why}`;
	}
}
/** The notification of a ledger entry; `atMs` is the entry's stamp. */
function notificationOf(entry) {
	if (!KINDS.has(entry.kind)) return void 0;
	const n = {
		id: notificationId(entry),
		seq: entry.seq,
		kind: entry.kind,
		resource: entry.resource,
		agent: entry.actorDid,
		atMs: entry.tsMs,
		text: ""
	};
	if (entry.leaseId) {
		n.leaseId = entry.leaseId;
		n.fence = entry.fence;
	}
	if (entry.reason !== void 0) n.reason = entry.reason;
	if (entry.kind === "freeze" && entry.expiresAtMs !== void 0) n.until = entry.expiresAtMs;
	if ((entry.kind === "revoke" || entry.kind === "break_glass_withdrawn") && entry.by !== void 0) n.by = entry.by;
	if (entry.kind === "break_glass") {
		if (entry.expiresAtMs !== void 0) n.until = entry.expiresAtMs;
		if (entry.by !== void 0) n.by = entry.by;
		if (entry.approvedBy !== void 0) n.approvedBy = entry.approvedBy;
		n.severity = "critical";
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
function deliveryOf(notifications) {
	const items = notifications;
	if (items.length === 1) {
		const n = items[0];
		return {
			items,
			id: n.id,
			kind: n.kind,
			body: Buffer.from(JSON.stringify(n))
		};
	}
	const id = uuidOf((0, node_crypto.createHash)("sha256").update(`batch ${items[0].id} ${items.at(-1).id} ${items.length}`).digest());
	const shown = items.length > TEXT_LINES ? items.slice(0, 19) : items;
	const more = items.length - shown.length;
	const text = shown.map((n) => n.text).join("\n") + (more ? `\n\u2026 and ${more} more changes` : "");
	const body = JSON.stringify({
		id,
		kind: "batch",
		count: items.length,
		notifications,
		text
	});
	return {
		items,
		id,
		kind: "batch",
		body: Buffer.from(body)
	};
}
// src/kernel/notify/notify-config.ts
/**
* The notifier's settings as the kernel's command takes them (`--notify URL`,
* `--notify-secret-file FILE`, `--notify-file FILE`), checked whole at start: a URL that
* would send the secret in clear, a short secret or a malformed file stops the kernel
* before it serves, not at the first change.
*/
var NotifyError = class extends LeaseGateError {
	name = "NotifyError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "notify"
		});
	}
};
/** `--notify` URLs: https:, or plain http: to this machine only (never a secret in clear). */
function checkNotifyUrl(raw) {
	let url;
	try {
		url = new URL(raw);
	} catch {
		throw new NotifyError(`Invalid --notify '${urlForDisplay(raw)}': expected an https: URL.`);
	}
	const secure = url.protocol === "https:";
	const loopback = url.protocol === "http:" && isLoopbackHost(url.hostname);
	if (!(secure || loopback) || url.username || url.password) throw new NotifyError(`Invalid --notify '${url.origin}': expected an https: URL without credentials (plain http: only to loopback).`);
	return url.href;
}
// src/kernel/notify/notify.ts
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
const MAX_QUEUED = 1e4;
/** At most this many changes in one POST (a few hundred KB of JSON). */
const MAX_BATCH = 1e3;
/** The shortest time between two POSTs to one URL (the first after a quiet spell goes at once). */
const PACE_MS = 50;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 3e4;
const DEFAULT_RETRY_FOR_MS = 6e5;
const KEPT_FAILURES = 20;
/** GitHub's webhook signature of a body. */
const signBody = (secret, body) => `sha256=${(0, node_crypto.createHmac)("sha256", secret).update(body).digest("hex")}`;
/**
* One URL's news: a single FIFO (so in order per resource too) drained by one loop with
* one request in flight. Whatever queued while a request was out goes in the next one as a
* batch, so under load the kernel sends one POST per round trip, not one per change.
*/
var Target = class {
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
		if (this.head > 1024 && this.head * 2 > this.items.length) {
			this.items = this.items.slice(this.head);
			this.head = 0;
		}
	}
};
var Notifier = class {
	options;
	targets;
	http;
	ownHttp;
	retryForMs;
	now;
	failures = [];
	running = /* @__PURE__ */ new Set();
	stop = new AbortController();
	delivered = 0;
	deliveries = 0;
	failedCount = 0;
	constructor(options) {
		this.options = options;
		this.targets = options.urls.map((url) => new Target(checkNotifyUrl(url)));
		this.ownHttp = options.http === void 0;
		this.http = options.http ?? createHttpClient({ headersTimeoutMs: 1e4 });
		this.retryForMs = options.retryForMs ?? DEFAULT_RETRY_FOR_MS;
		this.now = options.now ?? (() => performance.now());
	}
	/**
	* Subscribes to the service's changes as the ledger records them (once, in order, across
	* replicas too); returns what `/readyz` shows.
	*/
	attach(service) {
		service.onRecorded((entries) => {
			for (const entry of entries) this.push(entry);
		});
		return { health: () => ({ notifications: this.health() }) };
	}
	/** Entries before `seq` are not sent to `url` (it had them before a restart); by URL as given. */
	resumeAt(from) {
		for (const target of this.targets) target.from = from[target.url] ?? target.from;
	}
	/**
	* Queues a change (called after its commit, on the answer's path): no I/O, no
	* serialising, nothing awaited; the body is made when it is sent.
	*/
	push(entry) {
		if (!isNotified(entry) || this.stop.signal.aborted) return;
		for (const target of this.targets) {
			if (entry.seq < target.from) continue;
			if (target.queued >= MAX_QUEUED) {
				target.dropped += 1;
				if (target.dropped === 1) {
					this.options.log?.(`kernel: notifications to ${new URL(target.url).origin} are ${MAX_QUEUED} behind; dropping new ones (counted in /readyz)`);
					this.options.onChange?.();
				}
				continue;
			}
			target.add({ entry });
			if (target.draining) continue;
			target.draining = true;
			const run = new Promise((resolve) => setImmediate(resolve)).then(() => this.drain(target)).finally(() => {
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
			recentFailures: [...this.failures]
		};
	}
	/** Stops retrying, lets deliveries in flight end (or waits `graceMs`), closes the client. */
	async close(graceMs = 2e3) {
		const idle = Promise.all([...this.running]);
		await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
		this.stop.abort();
		await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
		if (this.ownHttp) await this.http.close();
	}
	/** Until the URL's queue is empty: sends the oldest (as a batch when several wait), then the next. */
	async drain(target) {
		while (target.queued > 0 && !this.stop.signal.aborted) {
			const rest = target.sentAt + PACE_MS - performance.now();
			if (rest > 0) await sleep(rest, this.stop.signal);
			target.sentAt = performance.now();
			const items = target.peek(MAX_BATCH);
			const delivery = deliveryOf(items.map((i) => notificationOf(i.entry)));
			const ended = await this.deliver(target, delivery);
			target.done(items.length);
			if (ended) this.options.onDelivered?.(target.url, delivery.items.at(-1));
			this.options.onChange?.();
		}
	}
	/** Sends until answered 2xx or given up (true), or cut short by `close()` (false: still owed). */
	async deliver(target, delivery) {
		const { body } = delivery;
		const headers = {
			"content-type": "application/json",
			"user-agent": "lease-gate-kernel",
			"x-hub-signature-256": signBody(this.options.secret, body),
			"x-lease-gate-delivery": delivery.id,
			"x-lease-gate-event": delivery.kind
		};
		const giveUpAt = this.now() + this.retryForMs;
		let wait = FIRST_RETRY_MS;
		let lastError = "";
		for (let attempt = 1; attempt <= 1e3; attempt += 1) {
			if (this.stop.signal.aborted) break;
			try {
				const answer = await this.http.send({
					method: "POST",
					url: target.url,
					headers,
					body,
					signal: this.stop.signal
				});
				if (answer.status >= 200 && answer.status < 300) {
					this.deliveries += 1;
					this.delivered += delivery.items.length;
					return true;
				}
				lastError = `HTTP ${answer.status}`;
				if (answer.status < 500 && answer.status !== 408 && answer.status !== 429) break;
			} catch (error) {
				if (this.stop.signal.aborted) break;
				lastError = withoutUrl(causeText(error), target.url);
			}
			if (this.now() + wait > giveUpAt) break;
			await (this.options.sleep ?? sleep)(wait, this.stop.signal);
			wait = Math.min(MAX_RETRY_MS, wait * 2);
		}
		if (this.stop.signal.aborted) return false;
		this.failedCount += delivery.items.length;
		const first = delivery.items[0];
		const failure = {
			id: delivery.id,
			url: new URL(target.url).origin,
			kind: first.kind,
			resource: first.resource,
			error: lastError.slice(0, 300),
			atMs: Date.now()
		};
		this.failures.push(failure);
		if (this.failures.length > KEPT_FAILURES) this.failures.shift();
		const what = delivery.items.length === 1 ? `a ${first.kind} notification on ${first.resource}` : `a batch of ${delivery.items.length} notifications (from a ${first.kind} on ${first.resource})`;
		this.options.log?.(`kernel: gave up ${what} to ${failure.url}: ${failure.error}`);
		return true;
	}
};
/**
* An error's words without the URL's path and query: a chat webhook's URL is its credential
* (Slack's and Teams' carry the secret in the path), and failures reach `/readyz`, the
* console and the log. The origin stays, to say which receiver failed.
*/
function withoutUrl(message, url) {
	const origin = new URL(url).origin;
	return message.split(url).join(`${origin}/\u2026`).split(urlForDisplay(url)).join(`${origin}/\u2026`);
}
function sleep(ms, signal) {
	return new Promise((resolve) => {
		if (signal.aborted) return resolve();
		const timer = setTimeout(done, ms);
		function done() {
			clearTimeout(timer);
			signal.removeEventListener("abort", done);
			resolve();
		}
		signal.addEventListener("abort", done, { once: true });
	});
}
// src/fs/write-all.ts
/** A descriptor's writes, as writeAllSync takes them. */
const fdWriter = (fd) => (bytes, offset, length, position) => (0, node_fs.writeSync)(fd, bytes, offset, length, position);
/** writeAll's synchronous twin (see writeFileDurableSync for who needs it). */
function writeAllSync(write, bytes, position = null) {
	for (let written = 0; written < bytes.length;) {
		const at = position === null ? null : position + written;
		written += took(write(bytes, written, bytes.length - written, at), written, bytes);
	}
}
/** What one write took, or the error that says how far the whole got. */
function took(n, written, bytes) {
	if (!(n > 0)) throw new Error(`a write took ${written} of ${bytes.length} bytes`);
	return n;
}
// src/fs/durable.ts
const bytesOf = (piece) => typeof piece === "string" ? Buffer.from(piece, "utf8") : piece;
const tempOf = (path, options) => options.temp ?? `${path}.${process.pid}.tmp`;
/**
* writeFileDurable for callers that cannot wait: the notification worker's cursor saved
* between two deliveries (an asynchronous save could finish after a later one and put an
* older cursor back), and the kernel's signing key made during its synchronous start.
*/
function writeFileDurableSync(path, text, options = {}) {
	replaceSync(path, text, options, true);
}
/** A temporary file, renamed over `path`; with `durable`, both synced (writeFileDurable's steps). */
function replaceSync(path, text, options, durable) {
	const temp = tempOf(path, options);
	writeTempSync(temp, text, "w", options.mode ?? 384, durable);
	try {
		(0, node_fs.renameSync)(temp, path);
	} catch (error) {
		(0, node_fs.rmSync)(temp, { force: true });
		throw error;
	}
	if (durable) syncDirectorySync((0, node_path.dirname)(path));
}
/**
* Writes every byte of `text` to the file `temp` (opened with `flags`) and, unless told
* `sync` false, syncs it; a file it opened and could not fill is removed.
*/
function writeTempSync(temp, text, flags, mode, sync = true) {
	const fd = (0, node_fs.openSync)(temp, flags, mode);
	try {
		try {
			writeAllSync(fdWriter(fd), bytesOf(text), 0);
			if (sync) (0, node_fs.fsyncSync)(fd);
		} finally {
			(0, node_fs.closeSync)(fd);
		}
	} catch (error) {
		(0, node_fs.rmSync)(temp, { force: true });
		throw error;
	}
}
/**
* The one directory-sync policy. A rename or a new name is durable only once its
* directory is synced, so a write whose directory sync fails was NOT made durable and
* fails too \u2014 except where the platform cannot sync a directory at all: Windows cannot
* open one (EISDIR, EPERM), and some file systems (network, FUSE) refuse fsync on one
* (EINVAL). There a rename is as durable as that file system makes it, and refusing
* every write would leave the kernel unable to run there.
*/
const NO_DIRECTORY_SYNC = /* @__PURE__ */ new Set([
	"EISDIR",
	"EINVAL",
	"EPERM"
]);
const unsupported = (error) => NO_DIRECTORY_SYNC.has(error?.code ?? "");
/** syncDirectory's synchronous twin, for writeFileDurableSync and createFileOnce. */
function syncDirectorySync(dir) {
	let fd;
	try {
		fd = (0, node_fs.openSync)(dir, "r");
	} catch (error) {
		if (unsupported(error)) return;
		throw error;
	}
	try {
		(0, node_fs.fsyncSync)(fd);
	} catch (error) {
		if (!unsupported(error)) throw error;
	} finally {
		(0, node_fs.closeSync)(fd);
	}
}
// src/kernel/notify/notify-cursor.ts
/** A URL as the file names it: a hash, never the URL (a webhook's path is its secret). */
const urlKey = (url) => (0, node_crypto.createHash)("sha256").update(url).digest("hex").slice(0, 32);
/** The file's text for these URLs' points (URLs no longer notified are left out). */
function cursorText(cursors) {
	const targets = {};
	for (const [url, point] of Object.entries(cursors)) targets[urlKey(url)] = point;
	return `${JSON.stringify({
		version: 1,
		targets
	})}\n`;
}
function writeCursors(file, cursors) {
	writeFileDurableSync(file, cursorText(cursors));
}
// src/kernel/notify/notify-thread.ts
/**
* The worker's side (dist/notify/): a `Notifier` fed by the kernel's messages. Its health
* goes back at most once a turn, and only when it changed (a delivery ended, drops began).
*/
function serveNotifications() {
	const port = node_worker_threads.parentPort;
	const settings = node_worker_threads.workerData;
	if (!port || !settings || !Array.isArray(settings.urls) || typeof settings.secret !== "string") throw new NotifyError("The notification worker runs only as the kernel's worker thread.");
	lowerPriority();
	const log = (line) => port.postMessage({
		type: "log",
		line
	});
	let received = 0;
	/** Set by the kernel's 'resume': where each URL stands, saved as each delivery ends. */
	let cursors;
	let saveFailing = false;
	const save = () => {
		if (!cursors || !settings.cursorFile) return;
		try {
			writeCursors(settings.cursorFile, cursors);
			saveFailing = false;
		} catch (error) {
			if (!saveFailing) log(`kernel: cannot save the notification cursor ${settings.cursorFile}: ${errorMessage(error)}; a restart would send some notifications again`);
			saveFailing = true;
		}
	};
	let reporting = false;
	const sendHealth = () => port.postMessage({
		type: "health",
		received,
		health: notifier.health()
	});
	const report = () => {
		if (reporting) return;
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
			if (!cursors) return;
			cursors[url] = {
				next: last.seq + 1,
				id: last.id
			};
			save();
		}
	});
	port.on("message", (message) => {
		if (message.type === "events") {
			for (const entry of message.events) notifier.push(entry);
			received += message.events.length;
			return;
		}
		if (message.type === "resume") {
			cursors = { ...message.cursors };
			notifier.resumeAt(Object.fromEntries(Object.entries(cursors).map(([u, c]) => [u, c.next])));
			return;
		}
		notifier.close(message.graceMs).then(() => {
			sendHealth();
			port.postMessage({ type: "closed" });
			port.close();
		});
	});
	port.postMessage({ type: "ready" });
}
/**
* On Linux a nice value belongs to a thread, and `setPriority(0, \u2026)` sets the calling
* thread's: the worker yields to the thread that answers when the cores are busy (its news
* then wait a little and go in larger batches). Elsewhere it would lower the whole process,
* so it is left alone. Lowering one's own priority needs no privilege; a refusal changes nothing.
*/
function lowerPriority() {
	if (process.platform !== "linux") return;
	try {
		(0, node_os.setPriority)(0, 10);
	} catch {}
}
// src/bin/notify.ts
serveNotifications();

//# sourceMappingURL=notify.js.map