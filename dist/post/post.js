Object.defineProperty(exports, Symbol.toStringTag, { value: "Module" });
// \0rolldown/runtime.js
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJSMin = (cb, mod) => () => (mod || (cb((mod = { exports: {} }).exports, mod, mod.exports), cb = null), mod.exports);
var __copyProps = (to, from, except, desc) => {
	if (from && typeof from === "object" || typeof from === "function") for (var keys = __getOwnPropNames(from), i = 0, n = keys.length, key; i < n; i++) {
		key = keys[i];
		if (!__hasOwnProp.call(to, key) && key !== except) __defProp(to, key, {
			get: ((k) => from[k]).bind(null, key),
			enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable
		});
	}
	return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(isNodeMode || !mod || !mod.__esModule || !__hasOwnProp.call(mod, "default") ? __defProp(target, "default", {
	value: mod,
	enumerable: true
}) : target, mod));
let node_fs = require("node:fs");
let node_path = require("node:path");
let node_os = require("node:os");
let node_timers_promises = require("node:timers/promises");
let node_url = require("node:url");
let node_http = require("node:http");
let os = require("os");
os = __toESM(os, 1);
let crypto = require("crypto");
crypto = __toESM(crypto, 1);
let fs = require("fs");
fs = __toESM(fs, 1);
// src/gate/duration.ts
/** `1m 30s`-style text for logs. */
function formatDuration(ms) {
	if (ms < 1e3) return `${Math.round(ms)}ms`;
	const totalSeconds = Math.round(ms / 1e3);
	const hours = Math.floor(totalSeconds / 3600);
	const minutes = Math.floor(totalSeconds % 3600 / 60);
	const seconds = totalSeconds % 60;
	return [
		hours && `${hours}h`,
		minutes && `${minutes}m`,
		seconds && `${seconds}s`
	].filter(Boolean).join(" ") || "0s";
}
// src/plane/time.ts
const systemClock = { now: () => performance.now() };
const realSleep = async (ms, signal) => {
	if (signal?.aborted) return;
	try {
		await (0, node_timers_promises.setTimeout)(Math.max(0, ms), void 0, signal ? { signal } : {});
	} catch {}
};
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
// src/lease/errors.ts
/** A bad setting: the message names where the value came from and the accepted form. */
var SettingsError = class extends LeaseGateError {
	name = "SettingsError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "settings"
		});
	}
};
// src/fs/processes.ts
/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
function isAlive(pid) {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return error.code === "EPERM";
	}
	try {
		return !/^\d+ \(.*\) Z/.test((0, node_fs.readFileSync)(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return true;
	}
}
// node_modules/zod/v4/core/util.js
function getEnumValues(entries) {
	const numericValues = Object.values(entries).filter((v) => typeof v === "number");
	return Object.entries(entries).filter(([k, _]) => numericValues.indexOf(+k) === -1).map(([_, v]) => v);
}
function jsonStringifyReplacer(_, value) {
	if (typeof value === "bigint") return value.toString();
	return value;
}
var Cached = class {
	constructor(getter) {
		this._getter = getter;
		this._value = void 0;
	}
	get value() {
		const getter = this._getter;
		if (getter !== void 0) {
			this._value = getter();
			this._getter = void 0;
		}
		return this._value;
	}
};
function cached(getter) {
	return new Cached(getter);
}
function nullish(input) {
	return input === null || input === void 0;
}
function cleanRegex(source) {
	const start = source.startsWith("^") ? 1 : 0;
	const end = source.endsWith("$") ? source.length - 1 : source.length;
	return source.slice(start, end);
}
function assignProp(target, prop, value) {
	Object.defineProperty(target, prop, {
		value,
		writable: true,
		enumerable: true,
		configurable: true
	});
}
const captureStackTrace = "captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => {};
function isObject(data) {
	return typeof data === "object" && data !== null && !Array.isArray(data);
}
const propertyKeyTypes = /* @__PURE__*/ new Set([
	"string",
	"number",
	"symbol"
]);
function escapeRegex(str) {
	return str.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
function optionalKeys(shape) {
	return Object.keys(shape).filter((k) => {
		return shape[k]._zod.optin !== void 0 && shape[k]._zod.optout === "optional";
	});
}
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
/** The leading size checks of `defChecks` that set an upper bound, each paired with it. */
function sizeCaps(defChecks) {
	const caps = [];
	for (const ch of defChecks ?? []) {
		const d = ch._zod.def;
		if (!/_(length|size)$|_equals$/.test(d.check)) break;
		const max = d.maximum ?? d.length ?? d.size;
		if (max >= 0) caps.push([max, ch]);
	}
	return caps;
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
/** Returns the prototype to install on, or `undefined` if this group is already installed on it. */
function claim(inst, sentinel) {
	const proto = Object.getPrototypeOf(inst);
	return sentinel in proto ? void 0 : proto;
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
/**
* Installs `key` on `inst`'s prototype, computed by `make` on first read and cached there as an own
* data property. One accessor per constructor rather than one per instance, because an own accessor
* puts every instance after the first into v8 dictionary mode. The key doubles as the sentinel.
*/
function installLazyProp(inst, key, make, enumerable) {
	const proto = claim(inst, key);
	if (!proto) return;
	Object.defineProperty(proto, key, {
		configurable: true,
		get() {
			const desc = {
				configurable: true,
				writable: true,
				enumerable,
				value: void 0
			};
			Object.defineProperty(this, key, desc);
			desc.value = make(this);
			Object.defineProperty(this, key, desc);
			return desc.value;
		},
		set(value) {
			Object.defineProperty(this, key, {
				configurable: true,
				writable: true,
				enumerable,
				value
			});
		}
	});
}
/** Marks the thunk `_catch` synthesises for a constant catch value. `Function.length` cannot tell that thunk from a user callback \u2014 rest and defaulted parameters both report arity 0 \u2014 and a user callback reads `ctx.error`, whose issues only finalize correctly against the caller's per-parse error map. Provenance can say what arity cannot. A plain string key rather than `Symbol.for`, whose call at module scope no bundler can prove pure \u2014 the same shape that anchored `urlCanParse` into every build. */
const CONSTANT_CATCH = "~constantCatch";
/** Wraps a constant catch value in a thunk tagged with {@link CONSTANT_CATCH}. */
function constantCatch(value) {
	const fn = () => value;
	fn[CONSTANT_CATCH] = true;
	return fn;
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
var $ZodEncodeError = class extends Error {
	constructor(name) {
		super(`Encountered unidirectional transform during encode: ${name}`);
		this.name = "ZodEncodeError";
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
const boolean$1 = /^(?:true|false)$/i;
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
const $ZodCheckMinLength = /*@__PURE__*/ $constructor("$ZodCheckMinLength", (inst, def) => {
	var _a;
	$ZodCheck.init(inst, def);
	(_a = inst._zod.def).when ?? (_a.when = _whenHasLength);
	inst._zod.check = (payload) => {
		const input = payload.value;
		const units = input.length;
		if ((typeof input === "string" && units >= def.minimum && units < def.minimum * 2 ? codePointLength(input) : units) >= def.minimum) return;
		const origin = getLengthableOrigin(input);
		payload.issues.push({
			origin,
			code: "too_small",
			minimum: def.minimum,
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
const $ZodBoolean = /*@__PURE__*/ $constructor("$ZodBoolean", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.pattern = boolean$1;
	inst._zod.parse = (payload, _ctx) => {
		if (def.coerce) try {
			payload.value = Boolean(payload.value);
		} catch (_) {}
		const input = payload.value;
		if (typeof input === "boolean") return payload;
		payload.issues.push({
			expected: "boolean",
			code: "invalid_type",
			input,
			inst
		});
		return payload;
	};
});
const $ZodUnknown = /*@__PURE__*/ $constructor("$ZodUnknown", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.parse = (payload) => payload;
});
function capSize(inst, size) {
	const caps = sizeCaps(inst._zod.def.checks);
	if (!caps.length) return;
	const cap = Math.min(...caps.map((c) => c[0]));
	const parse = inst._zod.parse;
	inst._zod.parse = (payload, ctx) => {
		const n = size(payload.value);
		if (n > cap && !ctx?.skipChecks && ctx?.direction !== "backward") {
			for (const [max, ch] of sizeCaps(inst._zod.def.checks)) if (n > max && ch._zod.def.when(payload)) {
				const start = payload.issues.length;
				ch._zod.check(payload);
				payload.issues[start].continue = false;
				attachSchema(payload.issues, start, inst);
				return payload;
			}
		}
		return parse(payload, ctx);
	};
}
const arraySize = (input) => Array.isArray(input) ? input.length : -1;
function handleArrayResult(result, final, index) {
	if (result.issues.length) final.issues.push(...prefixIssues(index, result.issues));
	final.value[index] = result.value;
}
const $ZodArray = /*@__PURE__*/ $constructor("$ZodArray", (inst, def) => {
	$ZodType.init(inst, def);
	const memo = globalConfig.memoizer;
	memo?.attach(inst);
	inst._zod.parse = (payload, ctx) => {
		const input = payload.value;
		if (!Array.isArray(input)) {
			payload.issues.push({
				expected: "array",
				code: "invalid_type",
				input,
				inst
			});
			return payload;
		}
		payload.value = memo ? memo.alloc(inst, payload, Array(input.length), ctx) : Array(input.length);
		const proms = [];
		const abortEarly = ctx?.abortEarly;
		for (let i = 0; i < input.length; i++) {
			const item = input[i];
			const result = def.element._zod.run({
				value: item,
				issues: []
			}, ctx);
			if (result instanceof Promise) proms.push(result.then((result) => handleArrayResult(result, payload, i)));
			else {
				handleArrayResult(result, payload, i);
				if (abortEarly && result.issues.length !== 0 && aborted(result)) break;
			}
		}
		if (proms.length) return Promise.all(proms).then(() => payload);
		return payload;
	};
	capSize(inst, arraySize);
});
function handlePropertyResult(result, final, key, input, optin, optout) {
	const isPresent = key in input;
	const isOptionalOut = optout === "optional";
	if (!isPresent && isOptionalOut && optin === "optional") return;
	if (result.issues.length) {
		if (optin !== void 0 && isOptionalOut && !isPresent) return;
		final.issues.push(...prefixIssues(key, result.issues));
	}
	if (!isPresent && optin === void 0) {
		if (!result.issues.length) final.issues.push({
			code: "invalid_type",
			expected: "nonoptional",
			input: void 0,
			path: [key]
		});
		return;
	}
	if (result.value === void 0) {
		if (isPresent || optin === "defaulted" && !isOptionalOut) final.value[key] = void 0;
	} else final.value[key] = result.value;
}
const NO_SYMBOL_KEYS = [];
function normalizeDef(def) {
	const keys = Object.keys(def.shape);
	const ownSymbols = Object.getOwnPropertySymbols(def.shape);
	const symbolKeys = ownSymbols.length ? ownSymbols : NO_SYMBOL_KEYS;
	const allKeys = symbolKeys.length ? [...keys, ...symbolKeys] : keys;
	for (const k of allKeys) if (!def.shape?.[k]?._zod?.traits?.has("$ZodType")) throw new Error(`Invalid element at key "${String(k)}": expected a Zod schema`);
	const okeys = optionalKeys(def.shape);
	return {
		...def,
		allKeys,
		symbolKeys,
		keySet: new Set(keys),
		numKeys: keys.length,
		optionalKeys: new Set(okeys)
	};
}
function handleCatchall(proms, input, payload, ctx, def, inst, abortEarly) {
	const unrecognized = [];
	const keySet = def.keySet;
	const _catchall = def.catchall._zod;
	const t = _catchall.def.type;
	const optin = _catchall.optin;
	const optout = _catchall.optout;
	let seen = 0;
	for (const key in input) {
		if (abortEarly && payload.issues.length !== seen) {
			if (aborted(payload, seen)) break;
			seen = payload.issues.length;
		}
		if (keySet.has(key)) continue;
		if (key === "__proto__") {
			if (t === "never") unrecognized.push(key);
			continue;
		}
		if (t === "never") {
			unrecognized.push(key);
			continue;
		}
		const r = _catchall.run({
			value: input[key],
			issues: []
		}, ctx);
		if (r instanceof Promise) proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
		else handlePropertyResult(r, payload, key, input, optin, optout);
	}
	if (unrecognized.length) payload.issues.push({
		code: "unrecognized_keys",
		keys: unrecognized,
		input,
		inst,
		continue: true
	});
	if (!proms.length) return payload;
	return Promise.all(proms).then(() => {
		return payload;
	});
}
const $ZodObject = /*@__PURE__*/ $constructor("$ZodObject", (inst, def) => {
	$ZodType.init(inst, def);
	const desc = Object.getOwnPropertyDescriptor(def, "shape");
	const sh = desc?.get ? desc.get.raw : def.shape ?? {};
	if (sh) {
		const get = () => {
			const newSh = { ...sh };
			Object.defineProperty(def, "shape", { value: newSh });
			get.raw = newSh;
			return newSh;
		};
		get.raw = sh;
		Object.defineProperty(def, "shape", { get });
	}
	const _normalized = cached(() => normalizeDef(def));
	defineLazyInternal(inst, "propValues", (zod) => {
		const shape = zod.def.shape;
		const propValues = {};
		for (const key in shape) {
			const field = shape[key]._zod;
			if (field.values) {
				if (!Object.prototype.hasOwnProperty.call(propValues, key)) assignProp(propValues, key, /* @__PURE__ */ new Set());
				for (const v of field.values) propValues[key].add(v);
				if (field.optin !== void 0) propValues[key].add(void 0);
			}
		}
		return propValues;
	});
	const isObject$1 = isObject;
	const catchall = def.catchall;
	let value;
	const memo = globalConfig.memoizer;
	memo?.attach(inst);
	inst._zod.parse = (payload, ctx) => {
		value ?? (value = _normalized.value);
		const input = payload.value;
		if (!isObject$1(input)) {
			payload.issues.push({
				expected: "object",
				code: "invalid_type",
				input,
				inst
			});
			return payload;
		}
		payload.value = memo ? memo.alloc(inst, payload, {}, ctx) : {};
		const proms = [];
		const shape = value.shape;
		const abortEarly = ctx?.abortEarly;
		let seen = payload.issues.length;
		for (const key of value.allKeys) {
			if (abortEarly && payload.issues.length !== seen) {
				if (aborted(payload, seen)) break;
				seen = payload.issues.length;
			}
			if (key === "__proto__") continue;
			const el = shape[key];
			const optin = el._zod.optin;
			const optout = el._zod.optout;
			const r = el._zod.run({
				value: input[key],
				issues: []
			}, ctx);
			if (r instanceof Promise) proms.push(r.then((r) => handlePropertyResult(r, payload, key, input, optin, optout)));
			else handlePropertyResult(r, payload, key, input, optin, optout);
		}
		if (!catchall) return proms.length ? Promise.all(proms).then(() => payload) : payload;
		return handleCatchall(proms, input, payload, ctx, _normalized.value, inst, abortEarly === true);
	};
});
const $ZodEnum = /*@__PURE__*/ $constructor("$ZodEnum", (inst, def) => {
	$ZodType.init(inst, def);
	const values = getEnumValues(def.entries);
	const valuesSet = new Set(values);
	inst._zod.values = valuesSet;
	defineLazyInternal(inst, "pattern", (zod) => {
		const patternValues = getEnumValues(zod.def.entries).filter((k) => propertyKeyTypes.has(typeof k));
		return new RegExp(patternValues.length ? `^(${patternValues.map((o) => escapeRegex(o.toString())).join("|")})$` : "^[^\\s\\S]$");
	});
	inst._zod.parse = (payload, _ctx) => {
		const input = payload.value;
		if (valuesSet.has(input)) return payload;
		payload.issues.push({
			code: "invalid_value",
			values,
			input,
			inst
		});
		return payload;
	};
});
const $ZodLiteral = /*@__PURE__*/ $constructor("$ZodLiteral", (inst, def) => {
	$ZodType.init(inst, def);
	const values = new Set(def.values);
	inst._zod.values = values;
	defineLazyInternal(inst, "pattern", (zod) => {
		const vals = zod.def.values;
		return new RegExp(vals.length ? `^(${vals.map((o) => typeof o === "string" ? escapeRegex(o) : o ? escapeRegex(o.toString()) : String(o)).join("|")})$` : "^[^\\s\\S]$");
	});
	inst._zod.parse = (payload, _ctx) => {
		const input = payload.value;
		if (values.has(input)) return payload;
		payload.issues.push({
			code: "invalid_value",
			values: def.values,
			input,
			inst
		});
		return payload;
	};
});
const $ZodTransform = /*@__PURE__*/ $constructor("$ZodTransform", (inst, def) => {
	$ZodType.init(inst, def);
	inst._zod.optin = "optional";
	globalConfig.memoizer?.guard(inst);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") throw new $ZodEncodeError(inst.constructor.name);
		const _out = def.transform(payload.value, payload);
		if (ctx.async) return (_out instanceof Promise ? _out : Promise.resolve(_out)).then((output) => {
			payload.value = output;
			return payload;
		});
		if (_out instanceof Promise) throw new $ZodAsyncError();
		payload.value = _out;
		return payload;
	};
});
function handleOptionalResult(payload, result) {
	payload.value = result.issues.length ? void 0 : result.value;
	return payload;
}
const $ZodOptional = /*@__PURE__*/ $constructor("$ZodOptional", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
	inst._zod.optout = "optional";
	defineLazyInternal(inst, "values", (zod) => {
		const values = zod.def.innerType._zod.values;
		return values ? /* @__PURE__ */ new Set([...values, void 0]) : void 0;
	});
	defineLazyInternal(inst, "pattern", (zod) => {
		const pattern = zod.def.innerType._zod.pattern;
		return pattern ? new RegExp(`^(${cleanRegex(pattern.source)})?$`) : void 0;
	});
	inst._zod.parse = (payload, ctx) => {
		if (payload.value === void 0) {
			if (def.innerType._zod.optin !== "defaulted") return payload;
			const result = def.innerType._zod.run({
				value: payload.value,
				issues: []
			}, ctx);
			if (result instanceof Promise) return result.then((result) => handleOptionalResult(payload, result));
			return handleOptionalResult(payload, result);
		}
		return def.innerType._zod.run(payload, ctx);
	};
});
const $ZodNullable = /*@__PURE__*/ $constructor("$ZodNullable", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin);
	defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
	defineLazyInternal(inst, "pattern", (zod) => {
		const pattern = zod.def.innerType._zod.pattern;
		return pattern ? new RegExp(`^(${cleanRegex(pattern.source)}|null)$`) : void 0;
	});
	defineLazyInternal(inst, "values", (zod) => {
		return zod.def.innerType._zod.values ? /* @__PURE__ */ new Set([...zod.def.innerType._zod.values, null]) : void 0;
	});
	inst._zod.parse = (payload, ctx) => {
		if (payload.value === null) return payload;
		return def.innerType._zod.run(payload, ctx);
	};
});
function handleCatchResult(payload, result, def, ctx) {
	if (!result.issues.length) {
		payload.value = result.value;
		if (result.memo) payload.memo = true;
		return payload;
	}
	payload.value = def.catchValue({
		...result,
		value: payload.value,
		error: { issues: result.issues.map((iss) => finalizeIssue(iss, ctx, config())) },
		input: payload.value
	});
	return payload;
}
const $ZodCatch = /*@__PURE__*/ $constructor("$ZodCatch", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
	defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
	defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") return def.innerType._zod.run(payload, ctx);
		const result = def.innerType._zod.run({
			value: payload.value,
			issues: []
		}, ctx);
		if (result instanceof Promise) return result.then((result) => handleCatchResult(payload, result, def, ctx));
		return handleCatchResult(payload, result, def, ctx);
	};
});
const $ZodPipe = /*@__PURE__*/ $constructor("$ZodPipe", (inst, def) => {
	$ZodType.init(inst, def);
	defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
	defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
	defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
	defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
	inst._zod.parse = (payload, ctx) => {
		if (ctx.direction === "backward") {
			const right = def.out._zod.run(payload, ctx);
			if (right instanceof Promise) return right.then((right) => handlePipeResult(right, def.in, ctx));
			return handlePipeResult(right, def.in, ctx);
		}
		const left = def.in._zod.run(payload, ctx);
		if (left instanceof Promise) return left.then((left) => handlePipeResult(left, def.out, ctx));
		return handlePipeResult(left, def.out, ctx);
	};
});
function handlePipeResult(left, next, ctx) {
	if (left.issues.some((iss) => iss.code !== "unrecognized_keys")) {
		left.aborted = true;
		return left;
	}
	return next._zod.run({
		value: left.value,
		issues: left.issues
	}, ctx);
}
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
function _boolean(Class, params) {
	return new Class({
		type: "boolean",
		...normalizeParams(params)
	});
}
// @__NO_SIDE_EFFECTS__
function _unknown(Class) {
	return new Class({ type: "unknown" });
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
function _minLength(minimum, params) {
	return new $ZodCheckMinLength({
		check: "min_length",
		...normalizeParams(params),
		minimum
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
const ZodMiniBoolean = /*@__PURE__*/ $constructor("ZodMiniBoolean", (inst, def) => {
	$ZodBoolean.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function boolean(params) {
	return /* @__PURE__ */ _boolean(ZodMiniBoolean, params);
}
const ZodMiniUnknown = /*@__PURE__*/ $constructor("ZodMiniUnknown", (inst, def) => {
	$ZodUnknown.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function unknown() {
	return /* @__PURE__ */ _unknown(ZodMiniUnknown);
}
const ZodMiniArray = /*@__PURE__*/ $constructor("ZodMiniArray", (inst, def) => {
	$ZodArray.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function array(element, params) {
	return new ZodMiniArray({
		type: "array",
		element,
		...normalizeParams(params)
	});
}
const ZodMiniObject = /*@__PURE__*/ $constructor("ZodMiniObject", (inst, def) => {
	$ZodObject.init(inst, def);
	ZodMiniType.init(inst, def);
	installLazyProp(inst, "shape", (self) => self._zod.def.shape, false);
});
// @__NO_SIDE_EFFECTS__
function object(shape, params) {
	const def = {
		type: "object",
		shape: shape ?? {},
		...normalizeParams(params)
	};
	return new ZodMiniObject(def);
}
const ZodMiniEnum = /*@__PURE__*/ $constructor("ZodMiniEnum", (inst, def) => {
	$ZodEnum.init(inst, def);
	ZodMiniType.init(inst, def);
	inst.options = [...inst._zod.values];
});
// @__NO_SIDE_EFFECTS__
function _enum(values, params) {
	const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
	return new ZodMiniEnum({
		type: "enum",
		entries,
		...normalizeParams(params)
	});
}
const ZodMiniLiteral = /*@__PURE__*/ $constructor("ZodMiniLiteral", (inst, def) => {
	$ZodLiteral.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function literal(value, params) {
	return new ZodMiniLiteral({
		type: "literal",
		values: Array.isArray(value) ? value : [value],
		...normalizeParams(params)
	});
}
const ZodMiniTransform = /*@__PURE__*/ $constructor("ZodMiniTransform", (inst, def) => {
	$ZodTransform.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function transform(fn) {
	return new ZodMiniTransform({
		type: "transform",
		transform: fn
	});
}
const ZodMiniOptional = /*@__PURE__*/ $constructor("ZodMiniOptional", (inst, def) => {
	$ZodOptional.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function optional(innerType) {
	return new ZodMiniOptional({
		type: "optional",
		innerType
	});
}
const ZodMiniNullable = /*@__PURE__*/ $constructor("ZodMiniNullable", (inst, def) => {
	$ZodNullable.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function nullable(innerType) {
	return new ZodMiniNullable({
		type: "nullable",
		innerType
	});
}
const ZodMiniCatch = /*@__PURE__*/ $constructor("ZodMiniCatch", (inst, def) => {
	$ZodCatch.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function _catch(innerType, catchValue) {
	return new ZodMiniCatch({
		type: "catch",
		innerType,
		catchValue: typeof catchValue === "function" ? catchValue : constantCatch(catchValue)
	});
}
const ZodMiniPipe = /*@__PURE__*/ $constructor("ZodMiniPipe", (inst, def) => {
	$ZodPipe.init(inst, def);
	ZodMiniType.init(inst, def);
});
// @__NO_SIDE_EFFECTS__
function pipe(in_, out) {
	return new ZodMiniPipe({
		type: "pipe",
		in: in_,
		out
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
new RegExp(`[${CONTROL_RANGES}]`);
/** Every control character of a text, for `.replace`. */
const CONTROL_CHARS = new RegExp(`[${CONTROL_RANGES}]`, "g");
/** A whole text of `min` to `max` characters (no bound: any length), none a control character. */
const controlFree = (min = 0, max) => new RegExp(`^[^${CONTROL_RANGES}]{${min},${max ?? ""}}$`);
/**
* What a terminal or the runner must not be handed raw, for text escaped rather than
* replaced (lease/escape.ts): C0 controls but tab and line feed (those are escaped first,
* by the runner's own rule), DEL and the C1 controls (a terminal reads 0x9b as CSI), and
* the Unicode line and paragraph separators (a line break to some readers).
*/
const TERMINAL_CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
// src/plane/deploy.ts
/**
* What a lease request may say of the deploy it gates: extension fields of
* the lease body (`deploy: {...}`, `queue: 'newest'`). The hosted plane does
* not document them and ignores unknown fields; the bundled kernel validates
* them (a bad field is a 400 naming it), records them in the grant's ledger
* entry, supersedes waiting runs by them and answers the last grant's deploy
* of the same repository (`previous`) with a grant. Every field is optional:
* a CI system that knows no run number still names its commit.
*/
const REPOSITORY_PATTERN = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
/** A full commit id: SHA-1 (40) or SHA-256 (64) hex; the compare API needs it whole. */
const COMMIT_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Printable ASCII without spaces, as git refs are. */
const REF_PATTERN = /^[\x21-\x7e]{1,256}$/;
/** A workflow name is one line of text. */
const ONE_LINE = controlFree(1, 256);
const DEPLOY_FORMS = {
	repository: "owner/repo",
	workflow: "one line of 1 to 256 characters",
	ref: "1 to 256 printable characters without spaces, such as refs/heads/main",
	commit: "a full commit SHA: 40 (or 64) lowercase hex digits",
	runNumber: "a whole number from 1 to 10^12",
	runAttempt: "a whole number from 1 to 10^6",
	runUrl: "an https:// URL of at most 2048 characters"
};
const text$2 = (pattern, form) => (/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(pattern, `expected ${form}`));
const whole = (max, form) => (/* @__PURE__ */ number()).check(/* @__PURE__ */ refine((n) => Number.isInteger(n) && n >= 1 && n <= max, `expected ${form}`));
const isRunUrl = (value) => {
	if (value.length > 2048) return false;
	try {
		const url = new URL(value);
		return url.protocol === "https:" && url.username === "" && url.password === "";
	} catch {
		return false;
	}
};
/** Unknown keys are dropped, not refused: a newer gate may say more than this kernel knows. */
const deploySchema = /* @__PURE__ */ object({
	repository: /* @__PURE__ */ optional(text$2(REPOSITORY_PATTERN, DEPLOY_FORMS.repository)),
	workflow: /* @__PURE__ */ optional(text$2(ONE_LINE, DEPLOY_FORMS.workflow)),
	ref: /* @__PURE__ */ optional(text$2(REF_PATTERN, DEPLOY_FORMS.ref)),
	commit: /* @__PURE__ */ optional(text$2(COMMIT_PATTERN, DEPLOY_FORMS.commit)),
	runNumber: /* @__PURE__ */ optional(whole(0xe8d4a51000, DEPLOY_FORMS.runNumber)),
	runAttempt: /* @__PURE__ */ optional(whole(1e6, DEPLOY_FORMS.runAttempt)),
	runUrl: /* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ refine(isRunUrl, `expected ${DEPLOY_FORMS.runUrl}`)))
});
/** The deploy's fields in one fixed order (ledger lines, console rows, the kernel's check). */
const DEPLOY_FIELDS = [
	"repository",
	"workflow",
	"ref",
	"commit",
	"runNumber",
	"runAttempt",
	"runUrl"
];
/** A kernel's answer to a waiter a newer run of its lane took the place of. */
const supersededSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("superseded"),
	by: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1), /* @__PURE__ */ _maxLength(2048))
});
/** The commit list in a fixed order, so a ledger line and a console row read the same. */
function deployEntries(deploy) {
	const out = [];
	for (const key of DEPLOY_FIELDS) {
		const value = deploy[key];
		if (value !== void 0) out.push([key, value]);
	}
	return out;
}
/** A plain copy with only the known fields (what the kernel keeps and records). */
function cleanDeploy(deploy) {
	const out = {};
	for (const [key, value] of deployEntries(deploy)) out[key] = value;
	return Object.keys(out).length ? out : void 0;
}
// src/plane/schema.ts
/**
* The plane's wire contract (CONTRACT.md part 1 and interfaces.md). Only the
* fields we use are validated, and bounded: every answer is untrusted input.
* Unknown fields are accepted and ignored. zod/mini keeps this off the
* start-up bill (every job pays it twice).
*/
const LEASE_PATH = "/api/v1/acp/coordination/lease";
const RELEASE_PATH = "/api/v1/acp/coordination/release";
const REVOKE_PATH = "/api/v1/acp/coordination/revoke";
/** The bundled kernel's watch on one's own lease (answered when it ends); other planes may 404. */
const WATCH_PATH = "/api/v1/acp/coordination/watch";
/** The bundled kernel's operator freeze (admin key), CONTRACT.md part 3. */
const FREEZE_PATH = "/api/v1/acp/coordination/freeze";
const UNFREEZE_PATH = "/api/v1/acp/coordination/unfreeze";
/** The bundled kernel's break-glass (admin key) and its second operator's approval (approver key). */
const BREAK_GLASS_PATH = "/api/v1/acp/coordination/break-glass";
const APPROVE_BREAK_GLASS_PATH = "/api/v1/acp/coordination/break-glass/approve";
const WITHDRAW_BREAK_GLASS_PATH = "/api/v1/acp/coordination/break-glass/withdraw";
/** The local kernel's ledger routes (the hosted plane documents a ledger, not yet its routes). */
const LEDGER_PATHS = {
	checkpoint: "/api/v1/acp/ledger/checkpoint",
	bundle: "/api/v1/acp/ledger/bundle",
	publicKey: "/api/v1/acp/ledger/public-key"
};
const RESOURCE_PATTERN = /^[\x21-\x7e]{1,256}$/;
const RESOURCE_FORM = "1 to 256 printable characters without spaces, such as lock:deploy/production";
/** did:<method>:<method-specific id> with the DID syntax's characters. */
const DID_PATTERN = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/;
const DID_FORM = `a DID of the form did:<method>:<id>, at most 512 characters`;
const isDid = (value) => value.length <= 512 && DID_PATTERN.test(value);
/** The range of a JavaScript Date: an expiry outside it cannot be shown, so it is refused. */
const MAX_EPOCH_MS = 864e13;
/** No plane back-off is longer than a day; longer is a broken answer. */
const MAX_WAIT_MS = 864e5;
const MAX_TEXT = 1e3;
/** A DID and a resource name as a request names them, each refusal naming the accepted form. */
const didSchema = (/* @__PURE__ */ string()).check(/* @__PURE__ */ refine(isDid, `expected ${DID_FORM}`));
(/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(RESOURCE_PATTERN, `expected ${RESOURCE_FORM}`));
const shortText = (max) => (/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1, "expected a non-empty string"), /* @__PURE__ */ _maxLength(max, `expected at most ${max} characters`));
const boundedNumber = (min, max, what) => (/* @__PURE__ */ number()).check(/* @__PURE__ */ refine((n) => Number.isFinite(n) && n >= min && n <= max, `expected ${what}`));
const leaseSchema = /* @__PURE__ */ object({
	id: shortText(256),
	resource: shortText(256),
	holder: didSchema,
	expiresAtMs: boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds within the range of a date"),
	/**
	* The bundled kernel's: how long this grant or renewal runs from when the plane decided
	* it (a lease time, not a point on any clock), so the keeper paces without a wall clock.
	* One we cannot read is dropped (the keeper falls back to the documented 30 s).
	*/
	ttlMs: /* @__PURE__ */ optional(/* @__PURE__ */ _catch(/* @__PURE__ */ optional(boundedNumber(1, 36e5, "milliseconds from 1 to an hour")), void 0)),
	/** Only the bundled kernel promises a fencing token. */
	fence: /* @__PURE__ */ optional(boundedNumber(0, Number.MAX_SAFE_INTEGER, "a whole number from 0 to 2^53-1").check(/* @__PURE__ */ refine(Number.isInteger, "expected a whole number"))),
	/** The kernel's extension (plane/deploy.ts): what the holder deploys; one we cannot read is dropped. */
	deploy: /* @__PURE__ */ optional(/* @__PURE__ */ _catch(/* @__PURE__ */ optional(deploySchema), void 0))
});
const grantedSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	lease: leaseSchema
});
const heldSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("lease_held"),
	holder: didSchema,
	reserved: /* @__PURE__ */ optional(/* @__PURE__ */ boolean()),
	stampede: /* @__PURE__ */ object({ waitMs: boundedNumber(0, MAX_WAIT_MS, "milliseconds from 0 to a day") }),
	position: /* @__PURE__ */ optional(boundedNumber(0, 1e9, "a queue position")),
	/** The plane's estimate of the wait; optional (the kernel names it once a hold has ended). */
	etaMs: /* @__PURE__ */ optional(boundedNumber(0, MAX_WAIT_MS * 30, "milliseconds from 0 to 30 days")),
	/** How far the holder runs past a typical hold, when it does (the kernel's). */
	overdueMs: /* @__PURE__ */ optional(boundedNumber(0, MAX_WAIT_MS * 30, "milliseconds from 0 to 30 days"))
});
/** The kernel's operator freeze (CONTRACT.md part 3): a wait, within the gate's budget. */
const frozenSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("frozen"),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string()),
	until: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"))),
	stampede: /* @__PURE__ */ optional(/* @__PURE__ */ object({ waitMs: boundedNumber(0, MAX_WAIT_MS, "milliseconds from 0 to a day") })),
	position: /* @__PURE__ */ optional(boundedNumber(0, 1e9, "a queue position"))
});
const revokedSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: /* @__PURE__ */ literal("revoked"),
	holder: /* @__PURE__ */ optional(didSchema),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string()),
	/** Who revoked (`operator:NAME`), when the plane names them. */
	by: /* @__PURE__ */ optional(shortText(200))
});
const otherRefusalSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(false),
	reason: shortText(200),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string())
});
const releaseAnswerSchema = /* @__PURE__ */ object({ releasedIds: (/* @__PURE__ */ array(shortText(256))).check(/* @__PURE__ */ _maxLength(100, "expected at most 100 ids")) });
const statusAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	lease: /* @__PURE__ */ nullable(leaseSchema),
	/** The bundled kernel's freeze in force (an operator's or a recurring window); other planes leave it out. */
	frozen: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(/* @__PURE__ */ object({
		by: shortText(512),
		reason: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(1e4, "expected at most 10000 characters")),
		until: /* @__PURE__ */ nullable(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"))
	})))
});
const revokeAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	revoked: /* @__PURE__ */ boolean(),
	/** The bundled kernel names the lease it ended and its holder; other planes may not. */
	leaseId: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(shortText(256))),
	holder: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(didSchema))
});
/** The kernel's watch answer: still held, or how and when the lease ended (all of it untrusted). */
const watchAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	ended: /* @__PURE__ */ boolean(),
	reason: /* @__PURE__ */ optional(shortText(200)),
	endedAtMs: /* @__PURE__ */ optional(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds within the range of a date")),
	message: /* @__PURE__ */ optional(/* @__PURE__ */ string()),
	holder: /* @__PURE__ */ optional(didSchema),
	/** Who revoked (`operator:NAME`), when the plane names them. */
	by: /* @__PURE__ */ optional(shortText(200))
});
const freezeAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	frozen: /* @__PURE__ */ boolean(),
	until: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"))),
	/** Whether the command changed anything (unfreezing what was not frozen does not). */
	changed: /* @__PURE__ */ boolean()
});
/** The bundled kernel's break-glass, as opened or approved (its texts are untrusted: escape to print). */
const breakGlassAnswerSchema = /* @__PURE__ */ object({
	ok: /* @__PURE__ */ literal(true),
	actorDid: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(512)),
	reason: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(1e3)),
	by: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(100)),
	until: boundedNumber(0, MAX_EPOCH_MS, "epoch milliseconds"),
	/** Waiting for the second operator's approval. */
	pending: /* @__PURE__ */ boolean(),
	approvedBy: /* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(300))),
	/** The run and attempt whose OIDC token approved it (one approval approves one pass). */
	approval: /* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(512))),
	/** The answer of a withdrawal: this pass is gone. */
	withdrawn: /* @__PURE__ */ optional(/* @__PURE__ */ literal(true))
});
/** Plane text is bounded before anything else sees it. */
function clipText(text, max = MAX_TEXT) {
	if (text === void 0) return void 0;
	const line = text.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(CONTROL_CHARS, " ");
	return line.length <= max ? line : `${line.slice(0, max - 1)}\u2026`;
}
/** Turns a zod failure into "field: problem" that a person can act on. */
function describeIssues(error) {
	return error.issues.slice(0, 5).map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(body)"}: ${issue.message}`).join("; ");
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
// src/plane/url.ts
/**
* The plane origin must be https:, or plain http: to this machine only, so the
* key never crosses a network in clear. Returns the origin without a trailing slash.
*/
function parsePlaneUrl(raw) {
	let url;
	try {
		url = new URL(raw);
	} catch {
		return { ok: false };
	}
	const secure = url.protocol === "https:";
	const loopback = url.protocol === "http:" && isLoopbackHost(url.hostname);
	if (!(secure || loopback) || url.username || url.password || url.search || url.hash) return { ok: false };
	return {
		ok: true,
		url: url.href.replace(/\/+$/, "")
	};
}
// src/lease/settings.ts
/** Where clients read the plane key: ours first, then the hosted plane's documented name. */
const KEY_ENV = "LEASE_GATE_KEY";
const HOSTED_KEY_ENV = "INTRAMEDIAL_KEY";
/** The plane key from the environment, and the variable it came from. */
function keyFromEnv(env) {
	const ours = (env["LEASE_GATE_KEY"] ?? "").trim();
	if (ours) return {
		value: ours,
		from: KEY_ENV
	};
	return {
		value: (env["INTRAMEDIAL_KEY"] ?? "").trim(),
		from: HOSTED_KEY_ENV
	};
}
// src/lease/helpers.ts
/** False when /proc shows that `pid` now runs something else (the pid was reused). */
function runs(pid, marker) {
	try {
		return (0, node_fs.readFileSync)(`/proc/${pid}/cmdline`, "utf8").includes(marker);
	} catch {
		return true;
	}
}
/**
* SIGTERM, then SIGKILL if it is still there after `graceMs`; only if its
* command line still holds `marker`. True when it is gone.
*/
async function stopProcess(pid, graceMs, sleep, marker = "cli") {
	if (!(pid > 0) || !isAlive(pid) || !runs(pid, marker)) return true;
	try {
		process.kill(pid, "SIGTERM");
	} catch {
		return true;
	}
	for (let waited = 0; waited < graceMs; waited += 25) {
		await sleep(25);
		if (!isAlive(pid)) return true;
	}
	try {
		process.kill(pid, "SIGKILL");
	} catch {}
	await sleep(50);
	return !isAlive(pid);
}
// src/gate/keeper-status.ts
/**
* What the keeper has seen, as its status file carries it across the process
* boundary: one schema, and the types are what it parses (post, `run` and the
* keeper itself read and write it through this).
*/
const text$1 = (/* @__PURE__ */ string()).check(/* @__PURE__ */ _maxLength(2e3));
const at = (/* @__PURE__ */ number()).check(/* @__PURE__ */ refine(Number.isFinite));
const keepEnds = [
	"stopped",
	"lifetime",
	"parent-gone",
	"lost",
	"key-refused",
	"not-wanted"
];
const lossSchema = /* @__PURE__ */ object({
	/** When we learned of it (wall clock). */
	atMs: at,
	/** When the plane ended it, on the plane's clock (a watch's answer says). */
	endedAtMs: /* @__PURE__ */ optional(at),
	/**
	* `lease_held`, `revoked`, `replaced` (the plane granted a new lease: ours had ended),
	* from a watch `lapsed`, `released` or `unknown`, `broken_plane` (a renewal not ours to
	* believe, given back), or the plane's reason.
	*/
	reason: text$1,
	/** Who holds it now (for `revoked`: as the plane says). */
	holder: /* @__PURE__ */ optional(text$1),
	/** The operator's message (revoked) or the plane's. */
	message: /* @__PURE__ */ optional(text$1),
	/** `revoked`: who revoked (`operator:NAME`), when the plane names them. */
	by: /* @__PURE__ */ optional(text$1),
	/** `replaced`: the lease the plane granted instead, which the keeper gave back at once. */
	newLeaseId: /* @__PURE__ */ optional(text$1),
	gaveBack: /* @__PURE__ */ optional(/* @__PURE__ */ boolean())
});
/** The keeper's record in its status file: its pid and what it has seen. */
const keeperRecordSchema = /* @__PURE__ */ object({
	pid: (/* @__PURE__ */ number()).check(/* @__PURE__ */ refine(Number.isInteger)),
	resource: text$1,
	actorDid: text$1,
	leaseId: text$1,
	fence: /* @__PURE__ */ optional(/* @__PURE__ */ number()),
	expiresAtMs: at,
	renewals: /* @__PURE__ */ number(),
	/** Wall time of the last successful renewal. */
	lastRenewedAtMs: /* @__PURE__ */ optional(at),
	failures: /* @__PURE__ */ number(),
	lastError: /* @__PURE__ */ optional(text$1),
	/** Said once: the plane told no lease time the keeper could read on its clock (lease-time.ts). */
	note: /* @__PURE__ */ optional(text$1),
	/** Our lease ended under us; renewing stopped. */
	lost: /* @__PURE__ */ optional(lossSchema),
	ended: /* @__PURE__ */ optional(/* @__PURE__ */ object({
		atMs: at,
		why: /* @__PURE__ */ _enum(keepEnds)
	}))
});
// src/lease/keeper-status.ts
/** The keeper's last record, or undefined while it has written none (or the file is gone or bad). */
function readStatusFile(file) {
	let raw;
	try {
		raw = JSON.parse((0, node_fs.readFileSync)(file, "utf8"));
	} catch {
		return;
	}
	const parsed = keeperRecordSchema.safeParse(raw);
	return parsed.success ? parsed.data : void 0;
}
// src/plane/errors.ts
/** Typed failures of a plane call; every message says which call and what to do. */
var PlaneError = class extends LeaseGateError {
	name = "PlaneError";
	call;
	status;
	constructor(message, code, options) {
		super(message, {
			...causeOf(options.cause),
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
var CancelledError = class extends LeaseGateError {
	name = "CancelledError";
	constructor() {
		super("cancelled", { code: "cancelled" });
	}
};
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
const GIVE_BACK_MS$1 = 5e3;
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
			status.lastError = errorMessage(error);
			options.onChange?.(status);
			if (error instanceof KeyRefusedError) return end("key-refused");
			nextRenewal = clock.now() + RETRY_FAILED_RENEWAL_MS;
			continue;
		}
		const answeredAt = clock.now();
		if (answer.kind !== "granted") return lose(refusalLoss(answer, options.actorDid));
		const { lease } = answer;
		if (lease.id !== status.leaseId) {
			const gaveBack = await client.release(request, { retryUntilMs: clock.now() + GIVE_BACK_MS$1 }).then((r) => r.releasedIds.includes(lease.id)).catch(() => false);
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
	if (typeof message === "string") return clipText(message, 300);
	const reason = field(body, "reason");
	if (typeof reason === "string") return clipText(reason, 100);
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
	throw new ContractError(`${call}: the answer does not match the plane's contract: ${describeIssues(parsed.error)}`, {
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
	const parsed = grantedSchema.safeParse(raw.body);
	const broken = parsed.success ? grantProblem(parsed.data.lease, req, raw.dateMs ?? wallNow()) : {
		field: fieldOf(parsed.error),
		problem: `does not match the plane's contract: ${describeIssues(parsed.error)}`
	};
	if (!parsed.success || broken) return { broken };
	const previous = deploySchema.safeParse(field(raw.body, "previous"));
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
	const refusal = checkAnswer(otherRefusalSchema, raw, call);
	if (refusal.reason === "lease_held") {
		const held = checkAnswer(heldSchema, raw, call);
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
		const frozen = checkAnswer(frozenSchema, raw, call);
		return {
			kind: "frozen",
			message: clipText(frozen.message) || "frozen by an operator",
			untilMs: frozen.until ?? void 0,
			waitMs: frozen.stampede?.waitMs ?? FROZEN_POLL_MS,
			position: frozen.position,
			preferenceApplied: raw.preferenceApplied
		};
	}
	if (refusal.reason === "revoked") {
		const revoked = checkAnswer(revokedSchema, raw, call);
		return {
			kind: "revoked",
			holder: revoked.holder,
			message: clipText(revoked.message) || "revoked by an operator",
			...revoked.by ? { by: clipText(revoked.by, 200) } : {}
		};
	}
	if (refusal.reason === "superseded") return {
		kind: "superseded",
		by: clipText(checkAnswer(supersededSchema, raw, call).by, 2048)
	};
	return {
		kind: "refused",
		reason: clipText(refusal.reason, 200),
		message: clipText(refusal.message)
	};
}
function fieldOf(error) {
	const path = error.issues[0]?.path ?? [];
	return path.length ? path.map(String).join(".") : "(body)";
}
/** The lease on a resource and, from the bundled kernel, the freeze in force. */
function readStatus(raw, call) {
	const answer = checkAnswer(statusAnswerSchema, raw, call);
	const frozen = answer.frozen ? {
		by: clipText(answer.frozen.by, 200) ?? "",
		reason: clipText(answer.frozen.reason) ?? "",
		untilMs: answer.frozen.until
	} : void 0;
	return {
		lease: answer.lease,
		frozen
	};
}
function readWatch(raw, call) {
	const answer = checkAnswer(watchAnswerSchema, raw, call);
	if (!answer.ended) return { kind: "held" };
	return {
		kind: "ended",
		reason: clipText(answer.reason, 200) ?? "unknown",
		endedAtMs: answer.endedAtMs,
		message: clipText(answer.message),
		holder: answer.holder,
		...answer.by ? { by: clipText(answer.by, 200) } : {}
	};
}
function readRevoke(raw, call) {
	const answer = checkAnswer(revokeAnswerSchema, raw, call);
	return {
		revoked: answer.revoked,
		leaseId: answer.leaseId ?? void 0,
		holder: answer.holder ?? void 0
	};
}
// src/gate/wait.ts
/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
var LeaseRefusedError = class extends LeaseGateError {
	name = "LeaseRefusedError";
	/** The plane's reason (`actor_suspended`, \u2026), or what refused (`key refused`). */
	reason;
	/** The plane's own words, when it gave any. */
	detail;
	/** `message`: by default "The plane refused the lease: <reason> (<detail>)". */
	constructor(options) {
		const { reason, detail } = options;
		super(options.message ?? `The plane refused the lease: ${reason}${detail ? ` (${detail})` : ""}`, {
			...causeOf(options.cause),
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
// src/plane/retry.ts
/**
* The plane client's: the caller's budget alone bounds the attempts (a `run --wait-timeout 30m`
* retries a dead plane for 30 minutes, as it says), each back-off at most 8 s. A bound of 50
* attempts gave up after about 4.6 minutes while the CLI said "retrying for 25m 50s more".
*/
const DEFAULT_RETRY = {
	baseMs: 250,
	capMs: 8e3,
	maxAttempts: Number.POSITIVE_INFINITY
};
/**
* How long to wait before the next attempt, or undefined to give up: the attempts are spent,
* the budget is, or the plane's Retry-After asks for longer than is left. A computed back-off
* that would pass the deadline is cut to it, so the last attempt is made at the deadline and
* "retrying for N more" holds to the end.
*/
function nextRetryMs(policy, attempt, retryAfterMs, leftMs, random) {
	if (attempt + 1 >= policy.maxAttempts || leftMs <= 0) return void 0;
	if (retryAfterMs !== void 0) {
		const asked = Math.min(retryAfterMs, policy.capMs * 4);
		return asked > leftMs ? void 0 : asked;
	}
	return Math.min(backoffMs(policy, attempt, random), leftMs);
}
/** Capped exponential back-off with "equal jitter": half fixed, half random. */
function backoffMs(policy, attempt, random) {
	const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
	return Math.round(ceiling / 2 + random() * ceiling / 2);
}
/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(value, nowWallMs) {
	if (value === void 0 || value.trim() === "") return void 0;
	const trimmed = value.trim();
	if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1e3;
	const at = Date.parse(trimmed);
	return Number.isNaN(at) ? void 0 : Math.max(0, at - nowWallMs);
}
async function withRetries(attempt, call, how) {
	const { clock, sleep, random, policy } = how;
	const first = clock.now();
	const until = call.retryUntilMs ?? first + 3e4;
	for (let n = 0;; n += 1) try {
		return await attempt();
	} catch (error) {
		if (!(error instanceof TransientError)) throw error;
		const wait = nextRetryMs(policy, n, error.retryAfterMs, until - clock.now(), random);
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
// src/plane/lease-calls.ts
/** A plane without the watch route: "no watch here", not an error. */
const NO_WATCH = /* @__PURE__ */ new Set([404, 405]);
/** How long giving back a broken grant is retried. */
const GIVE_BACK_MS = 5e3;
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
			const raw = await post(RELEASE_PATH, payload, { retryUntilMs: clock.now() + GIVE_BACK_MS });
			return releaseAnswerSchema.safeParse(raw.body).success;
		} catch {
			return false;
		}
	}
	const statusOf = async (resource, call = {}) => {
		const path = `${LEASE_PATH}?resource=${encodeURIComponent(resource)}`;
		return readStatus(await caller.get(path, unheld(call)), name("GET", path));
	};
	return {
		async lease(req, call = {}) {
			const raw = await post(LEASE_PATH, leaseBody(req), call);
			const where = name("POST", LEASE_PATH);
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
			const raw = await post(RELEASE_PATH, payload, unheld(call));
			const answer = checkAnswer(releaseAnswerSchema, raw, name("POST", RELEASE_PATH));
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
				raw = await caller.once("POST", WATCH_PATH, payload, call);
			} catch (error) {
				if (error instanceof RequestRejectedError && NO_WATCH.has(error.status ?? 0)) return { kind: "unsupported" };
				throw error;
			}
			return readWatch(raw, name("POST", WATCH_PATH));
		}
	};
}
// src/plane/operator-calls.ts
function operatorCalls(caller) {
	const { post, name } = caller;
	return {
		async revoke(resource, reason, adminKey, call = {}, by) {
			return readRevoke(await post(REVOKE_PATH, by ? {
				resource,
				reason,
				by
			} : {
				resource,
				reason
			}, unheld(call), adminKey), name("POST", REVOKE_PATH));
		},
		async freeze(request, adminKey, call = {}) {
			const raw = await post(FREEZE_PATH, request, unheld(call), adminKey);
			const answer = checkAnswer(freezeAnswerSchema, raw, name("POST", FREEZE_PATH));
			return {
				until: answer.until ?? null,
				changed: answer.changed
			};
		},
		async unfreeze(resource, adminKey, call = {}, by) {
			const raw = await post(UNFREEZE_PATH, by ? {
				resource,
				by
			} : { resource }, unheld(call), adminKey);
			return { changed: checkAnswer(freezeAnswerSchema, raw, name("POST", UNFREEZE_PATH)).changed };
		},
		async breakGlass(request, adminKey, call = {}) {
			const raw = await post(BREAK_GLASS_PATH, request, unheld(call), adminKey);
			return checkAnswer(breakGlassAnswerSchema, raw, name("POST", BREAK_GLASS_PATH));
		},
		async approveBreakGlass(request, approverKey, call = {}) {
			const raw = await post(APPROVE_BREAK_GLASS_PATH, request, unheld(call), approverKey);
			return checkAnswer(breakGlassAnswerSchema, raw, name("POST", APPROVE_BREAK_GLASS_PATH));
		},
		async withdrawBreakGlass(request, adminKey, call = {}) {
			const raw = await post(WITHDRAW_BREAK_GLASS_PATH, request, unheld(call), adminKey);
			return checkAnswer(breakGlassAnswerSchema, raw, name("POST", WITHDRAW_BREAK_GLASS_PATH));
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
			throw new TransientError(`${name}: ${error instanceof HttpError ? error.message.slice(name.length + 2) : causeText(error)}`, {
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
		throw new TransientError(`${name}: could not get an OIDC token (${causeText(error).slice(0, 200)})`, {
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
		const retryAfter = parseRetryAfter(headerValue(response.headers["retry-after"]), Date.now());
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
	const clock = options.clock ?? systemClock;
	const timeoutMs = options.requestTimeoutMs ?? 1e4;
	const ownHttp = !options.http;
	const http = options.http ?? createHttpClient({
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
		sleep: options.sleep ?? realSleep,
		random: options.random ?? Math.random,
		policy: options.retry ?? DEFAULT_RETRY,
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
	const clock = options.clock ?? systemClock;
	const sleep = options.sleep ?? realSleep;
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
				message: errorMessage(error)
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
// src/lease/background.ts
const STOP_GRACE_MS = 5e3;
/** A fresh folder under RUNNER_TEMP, which the runner empties after the job. */
function jobTempDir(prefix, env = process.env) {
	return (0, node_fs.mkdtempSync)((0, node_path.join)(env.RUNNER_TEMP || (0, node_os.tmpdir)(), `lease-gate-${prefix}-`));
}
function stopDryRunKernel(pid) {
	return stopProcess(pid, STOP_GRACE_MS, realSleep);
}
/** What post finds in the keeper's command line before it signals that pid (helpers.ts). */
const KEEPER_MARKER = "keeper";
/**
* Stops the keeper (bounded), reads its last record, and removes the status
* file: a keeper still running (its pid never saved) exits without renewing.
*/
async function stopKeeper(pid, statusFile) {
	if (pid) await stopProcess(pid, STOP_GRACE_MS, realSleep, KEEPER_MARKER);
	const record = readStatusFile(statusFile);
	(0, node_fs.rmSync)(statusFile, { force: true });
	return record;
}
// src/plane/did.ts
/** GitHub's naming rules: owners are 1\u201339 letters, digits or single hyphens; repos 1\u2013100 of [A-Za-z0-9._-]. */
const OWNER_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
const RUN_ID_PATTERN = /^[1-9]\d{0,19}$/;
const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;
/** `owner/repo` by GitHub's rules; undefined for anything else. */
function parseRepository(value) {
	const [owner, repo, ...rest] = value.split("/");
	if (rest.length || !owner || !repo || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo)) return;
	return {
		owner,
		repo
	};
}
/**
* The run behind a DID made by deriveActorDid; undefined for any other DID.
* Strict: owner and repo by GitHub's rules (never percent-encoded), numeric
* run and attempt, a plain host name; nothing is decoded into a path.
*/
function parseRunDid(did) {
	if (!isDid(did) || !did.startsWith("did:web:")) return void 0;
	const parts = did.slice(8).split(":");
	if (parts.length !== 11) return void 0;
	const [rawHost = "", owner = "", repo = "", actions, runs, runId = "", attempts, attempt = "", jobs] = parts;
	const host = rawHost.replace(/%3A/gi, ":");
	if (!(actions === "actions" && runs === "runs" && attempts === "attempts" && jobs === "jobs") || !HOST_PATTERN.test(host) || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo) || !RUN_ID_PATTERN.test(runId) || !/^\d{1,6}$/.test(attempt)) return;
	return {
		host,
		owner,
		repo,
		repository: `${owner}/${repo}`,
		runId,
		attempt
	};
}
/** The run URL behind a DID made by deriveActorDid; undefined for any other DID. */
function runUrlFromDid(did) {
	const run = parseRunDid(did);
	if (!run) return void 0;
	const path = [
		run.owner,
		run.repo,
		"actions",
		"runs",
		run.runId,
		"attempts",
		run.attempt
	].map(encodeURIComponent).join("/");
	return `https://${run.host}/${path}`;
}
// src/lease/did.ts
/** A holder as people should read it: its DID, and its run when we know it. */
function describeHolder(did) {
	const url = runUrlFromDid(did);
	return url ? `${did} (run: ${url})` : did;
}
/** A holder in few characters, for a commit status: its run when we know it. */
function shortHolder(did) {
	const run = parseRunDid(did);
	return run ? `run ${run.runId} of ${run.repository}` : did;
}
// src/lease/escape.ts
/**
* Text from outside (plane answers, GitHub, files of other processes) on its
* way to a log line, a terminal or a job summary. Nothing it holds may start a
* line, run a workflow command or drive a terminal.
*/
/** One line, bounded: CR and LF as the runner escapes them (%0D, %0A), other controls as \uXXXX. */
function untrusted(text, max = 300) {
	return (text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`).replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/\t/g, " ").replace(TERMINAL_CONTROL_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
/** A whole log line for the runner: nothing after it can begin a new line. */
function logLine(text) {
	return text.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(TERMINAL_CONTROL_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
/** A cell of the job summary, which is HTML. */
function escapeHtml(text) {
	return untrusted(text, 2e3).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
// src/lease/texts.ts
/** The texts both faces print: leases, holders, losses. Plane text is escaped here. */
function formatEpoch(ms) {
	return Number.isFinite(ms) && Math.abs(ms) <= 864e13 ? `${new Date(ms).toISOString()} (${ms})` : "unknown";
}
function describeLoss(resource, loss) {
	const at = loss.endedAtMs === void 0 ? formatEpoch(loss.atMs).split(" ")[0] : `${formatEpoch(loss.endedAtMs).split(" ")[0]} (plane's clock)`;
	const message = loss.message ? `: ${untrusted(loss.message)}` : "";
	const now = loss.holder ? ` It is now held by ${describeHolder(loss.holder)}.` : "";
	switch (loss.reason) {
		case "revoked": return `Lost ${resource} at ${at}: ${loss.by ? `the lease was revoked ${revokedBy(untrusted(loss.by, 200))}` : "an operator revoked the lease"}${operatorReason(loss.message && untrusted(loss.message))}.${now}`;
		case "lapsed": return `Lost ${resource} at ${at}: the lease lapsed (not renewed in time).${now}`;
		case "released": return `Lost ${resource} at ${at}: the lease was released by someone acting as this agent.${now}`;
		case "unknown": return `Lost ${resource} at ${at}: the plane says the lease ended, not how.${now}`;
		case "lease_held": return `Lost ${resource} at ${at}: it is now held by ${describeHolder(loss.holder ?? "another agent")}.`;
		case "replaced": return `Lost ${resource} at ${at}: the lease had ended (lapsed, revoked or released) and the plane granted a new one (${untrusted(loss.newLeaseId ?? "?")}), which was ${loss.gaveBack ? "given back at once" : "not confirmed given back; it lapses on its own"}.`;
		case "broken_plane": return `Lost ${resource} at ${at}: a renewal was not ours to believe${message}.`;
		default: return `Lost ${resource} at ${at}: the plane refused the renewal (${untrusted(loss.reason, 100)})${message}.${now}`;
	}
}
// src/ledger/remote.ts
/**
* Reads a kernel's ledger over HTTP through the one HTTP client (src/http/):
* its proxies, timeouts and answer cap, and its errors, which every face
* already prints as one line.
*/
/** A page may take this long: a large ledger's pages carry long proofs. */
const TIMEOUT_MS = 3e4;
/**
* Entries asked per page: a page of a large ledger costs about 1 KB an entry
* (the proofs grow with the log). 100 keep a page's text, its parsed entries
* and the text written near 1 MB in all, so an export's memory is bounded by
* far less than the 4 MiB the client accepts in one answer (500 a page held
* several MB at once); the kernel serves each page sooner, too.
*/
const PAGE = 100;
/** An export stops after this many pages (10 million entries). */
const MAX_PAGES = 1e5;
/** A ledger answer that is not what the kernel serves: a broken or foreign server. */
var LedgerFetchError = class extends LeaseGateError {
	name = "LedgerFetchError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "ledger_fetch"
		});
	}
};
const pageSchema = /* @__PURE__ */ object({
	checkpoint: /* @__PURE__ */ string(),
	entries: /* @__PURE__ */ array(/* @__PURE__ */ unknown()),
	next: /* @__PURE__ */ optional(/* @__PURE__ */ nullable(/* @__PURE__ */ string()))
});
async function get(http, url, key) {
	const answer = await http.send({
		method: "GET",
		url,
		headers: key ? { authorization: `Bearer ${key}` } : {},
		timeoutMs: TIMEOUT_MS
	});
	if (answer.status !== 200) {
		const text = answer.text.replace(/[\r\n]+/g, " ").slice(0, 200);
		throw new LedgerFetchError(`[GET] "${url}": ${answer.status} ${text}`);
	}
	return answer.text;
}
function readPage(text, where) {
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		throw new LedgerFetchError(`${where}: not a ledger bundle page (not JSON)`);
	}
	const page = pageSchema.safeParse(json);
	if (!page.success) throw new LedgerFetchError(`${where}: not a ledger bundle page`);
	return page.data;
}
/**
* The pages of one export, in order, each checked against the first one's
* checkpoint (the kernel pins an export to its size when it starts): only one
* page is held at a time.
*/
async function* pagesOf(http, apiUrl, key) {
	let path = `${LEDGER_PATHS.bundle}?limit=${PAGE}`;
	let checkpoint;
	for (let pages = 0;; pages += 1) {
		if (pages >= MAX_PAGES) throw new LedgerFetchError(`the ledger export did not end within ${MAX_PAGES} pages`);
		const page = readPage(await get(http, apiUrl + path, key), apiUrl + path);
		if (checkpoint !== void 0 && page.checkpoint !== checkpoint) throw new LedgerFetchError("the kernel changed the checkpoint in the middle of one export");
		checkpoint = page.checkpoint;
		yield {
			checkpoint,
			entries: page.entries,
			size: Number(checkpoint.split("\n")[1])
		};
		if (page.next === null || page.next === void 0) return;
		path = `${LEDGER_PATHS.bundle}?cursor=${encodeURIComponent(page.next)}&limit=${PAGE}`;
	}
}
/**
* The kernel's whole ledger as one bundle, following the pages of one export
* (every page carries the same checkpoint), and the public key that checks it.
* In memory: for a ledger of any size, exportLedger writes it as it comes.
*/
async function fetchLedger(apiUrl, key, progress) {
	const http = createHttpClient({ bodyTimeoutMs: TIMEOUT_MS });
	try {
		const publicKey = await get(http, apiUrl + LEDGER_PATHS.publicKey, key);
		const entries = [];
		let checkpoint;
		for await (const page of pagesOf(http, apiUrl, key)) {
			checkpoint = page.checkpoint;
			for (const entry of page.entries) entries.push(entry);
			progress?.(entries.length, page.size);
		}
		const bundle = {
			checkpoint,
			entries
		};
		return {
			bundle,
			bundleText: JSON.stringify(bundle),
			publicKey
		};
	} finally {
		await http.close();
	}
}
/** A token is replaced this long before its `exp`. */
const REFRESH_BEFORE_S = 120;
/** A token whose expiry we cannot read is asked for again after this. */
const UNKNOWN_LIFETIME_MS = 6e4;
const MAX_TOKEN_CHARS = 16384;
/** Of a JWT's payload only `exp` is read (seconds since the epoch); the rest is the plane's to check. */
const jwtExpirySchema = /* @__PURE__ */ object({ exp: /* @__PURE__ */ number() });
/** The runner's token service answers `{ value: <the JWT> }`. */
const tokenAnswerSchema = /* @__PURE__ */ object({ value: (/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1), /* @__PURE__ */ _maxLength(MAX_TOKEN_CHARS)) });
/**
* A compact JWT's payload, read and NOT verified: the plane verifies. The CLI reads its own
* token only to pace refreshes and to name itself as the DID the token vouches for.
*/
function tokenClaims(token) {
	const payload = token.split(".")[1];
	if (!payload || payload.length > MAX_TOKEN_CHARS) return void 0;
	try {
		const json = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
		return json && typeof json === "object" && !Array.isArray(json) ? json : void 0;
	} catch {
		return;
	}
}
/** The `exp` of a compact JWT, read (not verified: the plane verifies) only to pace refreshes. */
function tokenExpiryMs(token) {
	const read = jwtExpirySchema.safeParse(tokenClaims(token));
	return read.success ? read.data.exp * 1e3 : void 0;
}
/** One token until shortly before it expires, then a fresh one; concurrent callers share a fetch. */
function cachedToken(fetch, now = Date.now) {
	let token;
	let freshUntil = -Infinity;
	let pending;
	return async () => {
		if (token && now() < freshUntil) return token;
		pending ??= fetch().then((value) => {
			const exp = tokenExpiryMs(value);
			token = value;
			freshUntil = exp === void 0 ? now() + UNKNOWN_LIFETIME_MS : Math.max(now() + 5e3, exp - REFRESH_BEFORE_S * 1e3);
			return value;
		}).finally(() => pending = void 0);
		return pending;
	};
}
/** Whether this job may ask the runner for a token (`permissions: id-token: write`). */
function runnerCanIssue(env) {
	return Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
}
/**
* The runner's token request service, asked as `@actions/core`'s getIDToken asks
* it: GET `$ACTIONS_ID_TOKEN_REQUEST_URL&audience=AUD` with the request token
* as Bearer, answering `{ value }`. Its variables last the whole job.
*/
function runnerTokenSource(env, audience, http = createHttpClient({ env })) {
	const base = env.ACTIONS_ID_TOKEN_REQUEST_URL ?? "";
	const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN ?? "";
	let origin = { ok: false };
	try {
		origin = parsePlaneUrl(new URL(base).origin);
	} catch {}
	if (!origin.ok || !requestToken) throw new SettingsError("No OIDC token service: ACTIONS_ID_TOKEN_REQUEST_URL (https://, or http:// on loopback) and ACTIONS_ID_TOKEN_REQUEST_TOKEN must be set; give the job `permissions: id-token: write`.");
	return async () => {
		const text = await http.getText(`${base}&audience=${encodeURIComponent(audience)}`, {
			authorization: `Bearer ${requestToken}`,
			accept: "application/json"
		});
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = void 0;
		}
		const answer = tokenAnswerSchema.safeParse(json);
		if (!answer.success) throw new Error("the runner's token service answered without a token");
		return answer.data.value;
	};
}
/**
* One token from the runner's service, on a client of its own (closed after). The action's
* steps ask here rather than `@actions/core`'s getIDToken, whose `@actions/http-client`
* brings all of undici onto every step's start (docs/performance.md, start-up).
*/
async function askRunnerForToken(env, audience) {
	const http = createHttpClient({ env });
	try {
		return await runnerTokenSource(env, audience, http)();
	} finally {
		await http.close();
	}
}
// src/action/context.ts
/** A summary that cannot be written is a warning, never a failure after a grant. */
async function summarize(ctx, heading, rows) {
	try {
		await ctx.summary(heading, rows);
	} catch (error) {
		ctx.warning(`Could not write the job summary (${errorMessage(error)}); the gate goes on.`);
	}
}
// node_modules/@actions/core/lib/utils.js
/**
* Sanitizes an input into a string so it can be passed into issueCommand safely
* @param input input to sanitize into a string
*/
function toCommandValue(input) {
	if (input === null || input === void 0) return "";
	else if (typeof input === "string" || input instanceof String) return input;
	return JSON.stringify(input);
}
/**
*
* @param annotationProperties
* @returns The command properties to send with the actual annotation command
* See IssueCommandProperties: https://github.com/actions/runner/blob/main/src/Runner.Worker/ActionCommandManager.cs#L646
*/
function toCommandProperties(annotationProperties) {
	if (!Object.keys(annotationProperties).length) return {};
	return {
		title: annotationProperties.title,
		file: annotationProperties.file,
		line: annotationProperties.startLine,
		endLine: annotationProperties.endLine,
		col: annotationProperties.startColumn,
		endColumn: annotationProperties.endColumn
	};
}
// node_modules/@actions/core/lib/command.js
/**
* Issues a command to the GitHub Actions runner
*
* @param command - The command name to issue
* @param properties - Additional properties for the command (key-value pairs)
* @param message - The message to include with the command
* @remarks
* This function outputs a specially formatted string to stdout that the Actions
* runner interprets as a command. These commands can control workflow behavior,
* set outputs, create annotations, mask values, and more.
*
* Command Format:
*   ::name key=value,key=value::message
*
* @example
* ```typescript
* // Issue a warning annotation
* issueCommand('warning', {}, 'This is a warning message');
* // Output: ::warning::This is a warning message
*
* // Set an environment variable
* issueCommand('set-env', { name: 'MY_VAR' }, 'some value');
* // Output: ::set-env name=MY_VAR::some value
*
* // Add a secret mask
* issueCommand('add-mask', {}, 'secretValue123');
* // Output: ::add-mask::secretValue123
* ```
*
* @internal
* This is an internal utility function that powers the public API functions
* such as setSecret, warning, error, and exportVariable.
*/
function issueCommand(command, properties, message) {
	const cmd = new Command(command, properties, message);
	process.stdout.write(cmd.toString() + os.EOL);
}
const CMD_STRING = "::";
var Command = class {
	constructor(command, properties, message) {
		if (!command) command = "missing.command";
		this.command = command;
		this.properties = properties;
		this.message = message;
	}
	toString() {
		let cmdStr = CMD_STRING + this.command;
		if (this.properties && Object.keys(this.properties).length > 0) {
			cmdStr += " ";
			let first = true;
			for (const key in this.properties) if (this.properties.hasOwnProperty(key)) {
				const val = this.properties[key];
				if (val) {
					if (first) first = false;
					else cmdStr += ",";
					cmdStr += `${key}=${escapeProperty(val)}`;
				}
			}
		}
		cmdStr += `${CMD_STRING}${escapeData(this.message)}`;
		return cmdStr;
	}
};
function escapeData(s) {
	return toCommandValue(s).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function escapeProperty(s) {
	return toCommandValue(s).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/:/g, "%3A").replace(/,/g, "%2C");
}
// node_modules/@actions/core/lib/file-command.js
function issueFileCommand(command, message) {
	const filePath = process.env[`GITHUB_${command}`];
	if (!filePath) throw new Error(`Unable to find environment variable for file command ${command}`);
	if (!fs.existsSync(filePath)) throw new Error(`Missing file at path: ${filePath}`);
	fs.appendFileSync(filePath, `${toCommandValue(message)}${os.EOL}`, { encoding: "utf8" });
}
function prepareKeyValueMessage(key, value) {
	const delimiter = `ghadelimiter_${crypto.randomUUID()}`;
	const convertedValue = toCommandValue(value);
	if (key.includes(delimiter)) throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
	if (convertedValue.includes(delimiter)) throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
	return `${key}<<${delimiter}${os.EOL}${convertedValue}${os.EOL}${delimiter}`;
}
// node_modules/@actions/core/lib/summary.js
var __awaiter$1 = function(thisArg, _arguments, P, generator) {
	function adopt(value) {
		return value instanceof P ? value : new P(function(resolve) {
			resolve(value);
		});
	}
	return new (P || (P = Promise))(function(resolve, reject) {
		function fulfilled(value) {
			try {
				step(generator.next(value));
			} catch (e) {
				reject(e);
			}
		}
		function rejected(value) {
			try {
				step(generator["throw"](value));
			} catch (e) {
				reject(e);
			}
		}
		function step(result) {
			result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected);
		}
		step((generator = generator.apply(thisArg, _arguments || [])).next());
	});
};
const { access, appendFile, writeFile } = fs.promises;
const SUMMARY_ENV_VAR = "GITHUB_STEP_SUMMARY";
var Summary = class {
	constructor() {
		this._buffer = "";
	}
	/**
	* Finds the summary file path from the environment, rejects if env var is not found or file does not exist
	* Also checks r/w permissions.
	*
	* @returns step summary file path
	*/
	filePath() {
		return __awaiter$1(this, void 0, void 0, function* () {
			if (this._filePath) return this._filePath;
			const pathFromEnv = process.env[SUMMARY_ENV_VAR];
			if (!pathFromEnv) throw new Error(`Unable to find environment variable for $${SUMMARY_ENV_VAR}. Check if your runtime environment supports job summaries.`);
			try {
				yield access(pathFromEnv, fs.constants.R_OK | fs.constants.W_OK);
			} catch (_a) {
				throw new Error(`Unable to access summary file: '${pathFromEnv}'. Check if the file has correct read/write permissions.`);
			}
			this._filePath = pathFromEnv;
			return this._filePath;
		});
	}
	/**
	* Wraps content in an HTML tag, adding any HTML attributes
	*
	* @param {string} tag HTML tag to wrap
	* @param {string | null} content content within the tag
	* @param {[attribute: string]: string} attrs key-value list of HTML attributes to add
	*
	* @returns {string} content wrapped in HTML element
	*/
	wrap(tag, content, attrs = {}) {
		const htmlAttrs = Object.entries(attrs).map(([key, value]) => ` ${key}="${value}"`).join("");
		if (!content) return `<${tag}${htmlAttrs}>`;
		return `<${tag}${htmlAttrs}>${content}</${tag}>`;
	}
	/**
	* Writes text in the buffer to the summary buffer file and empties buffer. Will append by default.
	*
	* @param {SummaryWriteOptions} [options] (optional) options for write operation
	*
	* @returns {Promise<Summary>} summary instance
	*/
	write(options) {
		return __awaiter$1(this, void 0, void 0, function* () {
			const overwrite = !!(options === null || options === void 0 ? void 0 : options.overwrite);
			const filePath = yield this.filePath();
			yield (overwrite ? writeFile : appendFile)(filePath, this._buffer, { encoding: "utf8" });
			return this.emptyBuffer();
		});
	}
	/**
	* Clears the summary buffer and wipes the summary file
	*
	* @returns {Summary} summary instance
	*/
	clear() {
		return __awaiter$1(this, void 0, void 0, function* () {
			return this.emptyBuffer().write({ overwrite: true });
		});
	}
	/**
	* Returns the current summary buffer as a string
	*
	* @returns {string} string of summary buffer
	*/
	stringify() {
		return this._buffer;
	}
	/**
	* If the summary buffer is empty
	*
	* @returns {boolen} true if the buffer is empty
	*/
	isEmptyBuffer() {
		return this._buffer.length === 0;
	}
	/**
	* Resets the summary buffer without writing to summary file
	*
	* @returns {Summary} summary instance
	*/
	emptyBuffer() {
		this._buffer = "";
		return this;
	}
	/**
	* Adds raw text to the summary buffer
	*
	* @param {string} text content to add
	* @param {boolean} [addEOL=false] (optional) append an EOL to the raw text (default: false)
	*
	* @returns {Summary} summary instance
	*/
	addRaw(text, addEOL = false) {
		this._buffer += text;
		return addEOL ? this.addEOL() : this;
	}
	/**
	* Adds the operating system-specific end-of-line marker to the buffer
	*
	* @returns {Summary} summary instance
	*/
	addEOL() {
		return this.addRaw(os.EOL);
	}
	/**
	* Adds an HTML codeblock to the summary buffer
	*
	* @param {string} code content to render within fenced code block
	* @param {string} lang (optional) language to syntax highlight code
	*
	* @returns {Summary} summary instance
	*/
	addCodeBlock(code, lang) {
		const attrs = Object.assign({}, lang && { lang });
		const element = this.wrap("pre", this.wrap("code", code), attrs);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML list to the summary buffer
	*
	* @param {string[]} items list of items to render
	* @param {boolean} [ordered=false] (optional) if the rendered list should be ordered or not (default: false)
	*
	* @returns {Summary} summary instance
	*/
	addList(items, ordered = false) {
		const tag = ordered ? "ol" : "ul";
		const listItems = items.map((item) => this.wrap("li", item)).join("");
		const element = this.wrap(tag, listItems);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML table to the summary buffer
	*
	* @param {SummaryTableCell[]} rows table rows
	*
	* @returns {Summary} summary instance
	*/
	addTable(rows) {
		const tableBody = rows.map((row) => {
			const cells = row.map((cell) => {
				if (typeof cell === "string") return this.wrap("td", cell);
				const { header, data, colspan, rowspan } = cell;
				const tag = header ? "th" : "td";
				const attrs = Object.assign(Object.assign({}, colspan && { colspan }), rowspan && { rowspan });
				return this.wrap(tag, data, attrs);
			}).join("");
			return this.wrap("tr", cells);
		}).join("");
		const element = this.wrap("table", tableBody);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds a collapsable HTML details element to the summary buffer
	*
	* @param {string} label text for the closed state
	* @param {string} content collapsable content
	*
	* @returns {Summary} summary instance
	*/
	addDetails(label, content) {
		const element = this.wrap("details", this.wrap("summary", label) + content);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML image tag to the summary buffer
	*
	* @param {string} src path to the image you to embed
	* @param {string} alt text description of the image
	* @param {SummaryImageOptions} options (optional) addition image attributes
	*
	* @returns {Summary} summary instance
	*/
	addImage(src, alt, options) {
		const { width, height } = options || {};
		const attrs = Object.assign(Object.assign({}, width && { width }), height && { height });
		const element = this.wrap("img", null, Object.assign({
			src,
			alt
		}, attrs));
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML section heading element
	*
	* @param {string} text heading text
	* @param {number | string} [level=1] (optional) the heading level, default: 1
	*
	* @returns {Summary} summary instance
	*/
	addHeading(text, level) {
		const tag = `h${level}`;
		const allowedTag = [
			"h1",
			"h2",
			"h3",
			"h4",
			"h5",
			"h6"
		].includes(tag) ? tag : "h1";
		const element = this.wrap(allowedTag, text);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML thematic break (<hr>) to the summary buffer
	*
	* @returns {Summary} summary instance
	*/
	addSeparator() {
		const element = this.wrap("hr", null);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML line break (<br>) to the summary buffer
	*
	* @returns {Summary} summary instance
	*/
	addBreak() {
		const element = this.wrap("br", null);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML blockquote to the summary buffer
	*
	* @param {string} text quote text
	* @param {string} cite (optional) citation url
	*
	* @returns {Summary} summary instance
	*/
	addQuote(text, cite) {
		const attrs = Object.assign({}, cite && { cite });
		const element = this.wrap("blockquote", text, attrs);
		return this.addRaw(element).addEOL();
	}
	/**
	* Adds an HTML anchor tag to the summary buffer
	*
	* @param {string} text link text/content
	* @param {string} href hyperlink
	*
	* @returns {Summary} summary instance
	*/
	addLink(text, href) {
		const element = this.wrap("a", text, { href });
		return this.addRaw(element).addEOL();
	}
};
const summary = new Summary();
/**
* The code to exit an action
*/
var ExitCode;
(function(ExitCode) {
	/**
	* A code indicating that the action was successful
	*/
	ExitCode[ExitCode["Success"] = 0] = "Success";
	/**
	* A code indicating that the action was a failure
	*/
	ExitCode[ExitCode["Failure"] = 1] = "Failure";
})(ExitCode || (ExitCode = {}));
/**
* Registers a secret which will get masked from logs
*
* @param secret - Value of the secret to be masked
* @remarks
* This function instructs the Actions runner to mask the specified value in any
* logs produced during the workflow run. Once registered, the secret value will
* be replaced with asterisks (***) whenever it appears in console output, logs,
* or error messages.
*
* This is useful for protecting sensitive information such as:
* - API keys
* - Access tokens
* - Authentication credentials
* - URL parameters containing signatures (SAS tokens)
*
* Note that masking only affects future logs; any previous appearances of the
* secret in logs before calling this function will remain unmasked.
*
* @example
* ```typescript
* // Register an API token as a secret
* const apiToken = "abc123xyz456";
* setSecret(apiToken);
*
* // Now any logs containing this value will show *** instead
* console.log(`Using token: ${apiToken}`); // Outputs: "Using token: ***"
* ```
*/
function setSecret(secret) {
	issueCommand("add-mask", {}, secret);
}
/**
* Gets the value of an input.
* Unless trimWhitespace is set to false in InputOptions, the value is also trimmed.
* Returns an empty string if the value is not defined.
*
* @param     name     name of the input to get
* @param     options  optional. See InputOptions.
* @returns   string
*/
function getInput(name, options) {
	const val = process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] || "";
	if (options && options.required && !val) throw new Error(`Input required and not supplied: ${name}`);
	if (options && options.trimWhitespace === false) return val;
	return val.trim();
}
/**
* Sets the value of an output.
*
* @param     name     name of the output to set
* @param     value    value to store. Non-string values will be converted to a string via JSON.stringify
*/
function setOutput(name, value) {
	if (process.env["GITHUB_OUTPUT"] || "") return issueFileCommand("OUTPUT", prepareKeyValueMessage(name, value));
	process.stdout.write(os.EOL);
	issueCommand("set-output", { name }, toCommandValue(value));
}
/**
* Sets the action status to failed.
* When the action exits it will be with an exit code of 1
* @param message add error issue message
*/
function setFailed(message) {
	process.exitCode = ExitCode.Failure;
	error(message);
}
/**
* Writes debug message to user log
* @param message debug message
*/
function debug(message) {
	issueCommand("debug", {}, message);
}
/**
* Adds an error issue
* @param message error issue message. Errors will be converted to string via toString()
* @param properties optional properties to add to the annotation.
*/
function error(message, properties = {}) {
	issueCommand("error", toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
* Adds a warning issue
* @param message warning issue message. Errors will be converted to string via toString()
* @param properties optional properties to add to the annotation.
*/
function warning(message, properties = {}) {
	issueCommand("warning", toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
* Adds a notice issue
* @param message notice issue message. Errors will be converted to string via toString()
* @param properties optional properties to add to the annotation.
*/
function notice(message, properties = {}) {
	issueCommand("notice", toCommandProperties(properties), message instanceof Error ? message.toString() : message);
}
/**
* Writes info to log with console.log.
* @param message info message
*/
function info(message) {
	process.stdout.write(message + os.EOL);
}
/**
* Saves state for current action, the state can only be retrieved by this action's post job execution.
*
* @param     name     name of the state to store
* @param     value    value to store. Non-string values will be converted to a string via JSON.stringify
*/
function saveState(name, value) {
	if (process.env["GITHUB_STATE"] || "") return issueFileCommand("STATE", prepareKeyValueMessage(name, value));
	issueCommand("save-state", { name }, toCommandValue(value));
}
/**
* Gets the value of an state set by this action's main execution.
*
* @param     name     name of the state to get
* @returns   string
*/
function getState(name) {
	return process.env[`STATE_${name}`] || "";
}
// src/action/core-context.ts
/**
* The runner's side of the port, through @actions/core (the OIDC token through our own
* client: oidc-token.ts). Annotations are
* workflow commands, whose data @actions/core escapes; plain lines are not, so
* info() escapes CR and LF itself: no text can begin a line of the log.
*/
function coreContext(env = process.env) {
	return {
		env,
		getInput: (name) => getInput(name),
		getState: (name) => getState(name),
		saveState: (name, value) => saveState(name, value),
		setOutput: (name, value) => setOutput(name, value),
		setSecret: (value) => setSecret(value),
		getIDToken: async (audience) => {
			const token = await askRunnerForToken(env, audience);
			setSecret(token);
			return token;
		},
		info: (line) => info(logLine(line)),
		debug: (line) => debug(logLine(line)),
		notice: (message, title) => notice(message, title ? { title } : {}),
		warning: (message, title) => warning(message, title ? { title } : {}),
		error: (message, title) => error(message, title ? { title } : {}),
		setFailed: (message) => setFailed(message),
		summary: async (heading, rows) => {
			if (!env.GITHUB_STEP_SUMMARY) return;
			const table = [[{
				data: "what",
				header: true
			}, {
				data: "value",
				header: true
			}], ...rows.map(([label, value]) => [escapeHtml(label), escapeHtml(value)])];
			await summary.addHeading(escapeHtml(heading), 3).addTable(table).write();
			summary.emptyBuffer();
		}
	};
}
// src/action/io.ts
/**
* Every input, output and state key of the action, typed. A contract test holds
* action.yml to these lists, so a rename cannot drift between the two.
*/
const INPUTS = {
	resource: "resource",
	actorDid: "actor-did",
	apiUrl: "api-url",
	key: "key",
	auth: "auth",
	oidcAudience: "oidc-audience",
	waitTimeout: "wait-timeout",
	onTimeout: "on-timeout",
	keepAlive: "keep-alive",
	dryRun: "dry-run",
	githubToken: "github-token",
	statusContext: "status-context",
	onOutdated: "on-outdated",
	queue: "queue"
};
/**
* action.yml's defaults, which the runner fills only for an input left out:
* an explicit empty value means the default too, as in actions/checkout.
* `github-token`'s default is a runner expression the step cannot see, so an
* empty one means no token (no GitHub API call). A contract test holds these
* to action.yml.
*/
const INPUT_DEFAULTS = {
	resource: "lock:deploy/production",
	"actor-did": "",
	"api-url": "https://api.intramedial.com",
	key: "",
	"wait-timeout": "30m",
	"on-timeout": "fail",
	"keep-alive": "true",
	"dry-run": "false",
	"github-token": "",
	"status-context": "lease-gate/{resource}",
	auth: "auto",
	"oidc-audience": "lease-gate",
	"on-outdated": "skip",
	queue: "fifo"
};
/** An input's value, or its default when empty. */
function inputOrDefault(getInput, name) {
	return getInput(name).trim() || INPUT_DEFAULTS[name];
}
/** Handed from main to post. Never the key. */
const STATE = {
	resource: "resource",
	actorDid: "actor-did",
	apiUrl: "api-url",
	leaseId: "lease-id",
	expiresAtMs: "expires-at-ms",
	grantedAtMs: "granted-at-ms",
	waitedMs: "waited-ms",
	fence: "fence",
	dryRun: "dry-run",
	kernelPid: "kernel-pid",
	kernelDir: "kernel-dir",
	keeperPid: "keeper-pid",
	keeperStatus: "keeper-status",
	/** 'none' once main knows it holds nothing (timeout, cancel, refusal); absent after a grant it may not have recorded. */
	outcome: "outcome"
};
// src/action/outdated.ts
/** A commit as a link a person can follow (the repository's own page on GITHUB_SERVER_URL). */
function commitUrl(deploy, env) {
	if (!deploy.repository || !deploy.commit) return void 0;
	return `${(env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "")}/${deploy.repository}/commit/${deploy.commit}`;
}
// src/action/deploy-report.ts
/** The summary rows that say what this run deploys (the commit as its GitHub link). */
function deployRows(deploy, env) {
	if (!deploy) return [];
	const rows = [];
	if (deploy.commit) rows.push(["commit", commitUrl(deploy, env) ?? deploy.commit]);
	if (deploy.ref) rows.push(["ref", deploy.ref]);
	if (deploy.workflow) rows.push(["workflow", deploy.workflow]);
	if (deploy.runNumber !== void 0) {
		const attempt = deploy.runAttempt && deploy.runAttempt > 1 ? `, attempt ${deploy.runAttempt}` : "";
		rows.push(["run", `${deploy.runNumber}${attempt}${deploy.runUrl ? ` ${deploy.runUrl}` : ""}`]);
	}
	return rows;
}
// src/action/github-failure.ts
function describeGitHubFailure(error, call) {
	const e = typeof error === "object" && error !== null ? error : {};
	const status = typeof e.status === "number" ? e.status : void 0;
	const said = untrusted(String(e.message ?? error).split("\n")[0] ?? "", 160);
	if (!e.response) return `could not reach ${untrusted(call.apiUrl, 200)} for ${call.what} (${networkCause(e) ?? said}): check the runner's network, proxy and GITHUB_API_URL; it is not a permission problem`;
	const headers = e.response.headers ?? {};
	if (status === 401) return `GitHub refused the token (401 ${said}): the 'github-token' input is not a valid token for ${untrusted(call.apiUrl, 200)}`;
	if (status === 403 || status === 429) {
		if (String(headers["x-ratelimit-remaining"] ?? "") === "0" || status === 429) return `GitHub's rate limit was reached for ${call.what} (${status} ${said})`;
		return `GitHub refused ${call.what} (${status} ${said}): the token needs '${call.permission}' permission (fork pull requests do not get it)`;
	}
	if (status === 404) return `GitHub found no ${call.missing} (404 ${said}), or the token cannot see that repository`;
	return `GitHub answered ${status ?? "?"} for ${call.what} (${said})`;
}
/** The system error behind a failed fetch: ENOTFOUND api.github.com, ECONNREFUSED 127.0.0.1:1. */
function networkCause(e) {
	for (let cause = e.cause, depth = 0; cause && depth < 4; depth += 1) {
		const c = cause;
		if (typeof c.code === "string" && /^E[A-Z_]+$/.test(c.code)) return untrusted(String(c.message ?? c.code), 160);
		cause = c.cause;
	}
}
/** The part of a pull_request event's payload (GITHUB_EVENT_PATH) the gate reads. */
const pullRequestEvent = /* @__PURE__ */ object({ pull_request: /* @__PURE__ */ optional(/* @__PURE__ */ object({ head: /* @__PURE__ */ optional(/* @__PURE__ */ object({ sha: /* @__PURE__ */ unknown() })) })) });
/** The commit the run is about: for pull requests the head, not the merge commit. */
function commitSha(env) {
	const isSha = (v) => typeof v === "string" && /^[0-9a-f]{40}$/.test(v);
	if (env.GITHUB_EVENT_NAME?.startsWith("pull_request") && env.GITHUB_EVENT_PATH) try {
		const sha = pullRequestEvent.safeParse(JSON.parse((0, node_fs.readFileSync)(env.GITHUB_EVENT_PATH, "utf8"))).data?.pull_request?.head?.sha;
		if (isSha(sha)) return sha;
	} catch {}
	return isSha(env.GITHUB_SHA) ? env.GITHUB_SHA : void 0;
}
function githubTarget(env) {
	const api = parsePlaneUrl(env.GITHUB_API_URL || "https://api.github.com");
	const sha = commitSha(env);
	const repository = parseRepository(env.GITHUB_REPOSITORY ?? "");
	if (!api.ok || !sha || !repository) return void 0;
	let server;
	try {
		server = new URL(env.GITHUB_SERVER_URL || "https://github.com");
	} catch {
		return;
	}
	const runId = /^\d{1,20}$/.test(env.GITHUB_RUN_ID ?? "") ? env.GITHUB_RUN_ID : void 0;
	const runUrl = runId ? `${server.origin}/${repository.owner}/${repository.repo}/actions/runs/${runId}` : void 0;
	return {
		apiUrl: api.url,
		serverHost: server.host,
		...repository,
		sha,
		runUrl
	};
}
function clip(text) {
	return text.length <= 140 ? text : `${text.slice(0, 139)}\u2026`;
}
var GitHubSurfaces = class {
	token;
	statusContext;
	warn;
	target;
	statusesOff;
	runsOff;
	octokit;
	runs = /* @__PURE__ */ new Map();
	constructor(token, statusContext, env, warn) {
		this.token = token;
		this.statusContext = statusContext;
		this.warn = warn;
		this.target = token ? githubTarget(env) : void 0;
		this.statusesOff = !this.target || !statusContext;
		this.runsOff = !this.target;
	}
	client(target) {
		this.octokit ??= Promise.resolve().then(() => require("./github-B_WNRM22.js")).then(({ getOctokit }) => getOctokit(this.token, {
			baseUrl: target.apiUrl,
			request: { timeout: 1e4 }
		}));
		return this.octokit;
	}
	async status(state, description) {
		const target = this.target;
		if (this.statusesOff || !target) return;
		try {
			await (await this.client(target)).rest.repos.createCommitStatus({
				owner: target.owner,
				repo: target.repo,
				sha: target.sha,
				state,
				context: this.statusContext,
				description: clip(description),
				...target.runUrl ? { target_url: target.runUrl } : {}
			});
		} catch (error) {
			this.statusesOff = true;
			const commit = `commit ${target.sha.slice(0, 7)} in ${target.owner}/${target.repo}`;
			const why = describeGitHubFailure(error, {
				apiUrl: target.apiUrl,
				what: `the commit status of ${commit}`,
				missing: commit,
				permission: "statuses: write"
			});
			this.warn(`Could not set the commit status '${this.statusContext}': ${why}. The gate goes on without it.`);
		}
	}
	/** What GitHub says of the run behind a holder's DID, looked up once per holder. */
	async holderRun(did, nowMs) {
		if (this.runs.has(did)) return this.runs.get(did);
		const run = parseRunDid(did);
		const target = this.target;
		let text;
		if (run && !this.runsOff && target && run.host === target.serverHost) try {
			text = describeRun((await (await this.client(target)).rest.actions.getWorkflowRun({
				owner: run.owner,
				repo: run.repo,
				run_id: Number(run.runId)
			})).data, run.repository, run.runId, nowMs);
		} catch (error) {
			this.runsOff = true;
			const named = `run ${run.runId} in ${run.repository}`;
			const why = describeGitHubFailure(error, {
				apiUrl: target.apiUrl,
				what: `the holder's ${named}`,
				missing: named,
				permission: "actions: read"
			});
			this.warn(`Could not look up the holder's run: ${why}. The gate goes on.`);
		}
		this.runs.set(did, text);
		return text;
	}
};
/** A GitHub run as the waiting job should read it; every field from GitHub is escaped. */
function describeRun(run, repository, runId, nowMs) {
	const str = (v, fallback) => typeof v === "string" ? untrusted(v, 120) : fallback;
	const who = str(run.triggering_actor?.login, "someone");
	const started = typeof run.run_started_at === "string" ? Date.parse(run.run_started_at) : NaN;
	const age = Number.isFinite(started) ? `, running for ${formatDuration(nowMs - started)}` : "";
	const number = typeof run.run_number === "number" ? run.run_number : runId;
	const state = run.status === "completed" ? `already completed (${str(run.conclusion, "no conclusion")}): its lease lapses on its own within a lease time unless something still renews it` : `${str(run.status, "unknown status")}${age}`;
	return `run #${number} of "${str(run.name, "a workflow")}" in ${repository}, started by ${who}, ${state} \u2014 ${str(run.html_url, "")}`.trim();
}
// src/action/deploy-settings.ts
/**
* The deploy's identity from the runner's environment. The workflow is its
* file (from GITHUB_WORKFLOW_REF, `owner/repo/.github/workflows/x.yml@ref`),
* which two workflows cannot share, or else its name. The run URL names the
* attempt, so a rerun's link is its own.
*/
function deployFromEnv(env) {
	const repository = env.GITHUB_REPOSITORY;
	const workflowRef = env.GITHUB_WORKFLOW_REF ?? "";
	const prefix = repository ? `${repository}/` : "";
	const at = workflowRef.lastIndexOf("@");
	const workflowFile = prefix && workflowRef.startsWith(prefix) && at > prefix.length ? workflowRef.slice(prefix.length, at) : void 0;
	const server = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "");
	const runId = /^\d{1,20}$/.test(env.GITHUB_RUN_ID ?? "") ? env.GITHUB_RUN_ID : void 0;
	const attempt = /^\d{1,7}$/.test(env.GITHUB_RUN_ATTEMPT ?? "") ? env.GITHUB_RUN_ATTEMPT : void 0;
	return keepValid({
		repository,
		workflow: workflowFile ?? env.GITHUB_WORKFLOW,
		ref: env.GITHUB_REF,
		commit: commitSha(env),
		runNumber: numberOf(env.GITHUB_RUN_NUMBER),
		runAttempt: numberOf(attempt),
		runUrl: repository && runId ? `${server}/${repository}/actions/runs/${runId}${attempt ? `/attempts/${attempt}` : ""}` : void 0
	});
}
const numberOf = (value) => value && /^\d{1,13}$/.test(value) ? Number(value) : void 0;
/** Each field on its own: one the kernel would refuse is left out rather than failing the step. */
function keepValid(candidate) {
	const kept = {};
	for (const [key, value] of Object.entries(candidate)) {
		if (value === void 0) continue;
		if (deploySchema.safeParse({ [key]: value }).success) kept[key] = value;
	}
	return cleanDeploy(deploySchema.parse(kept));
}
// src/action/saved-state.ts
/**
* What main hands post through the step state (`STATE` names each field), as one schema:
* post reads every field through it, never with its own Number() or comparison. State is
* text the runner stores; a field that does not parse (absent, empty, edited, from another
* version) reads as absent and leaves the others alone, so post still releases what it can.
*/
const text = (max) => /* @__PURE__ */ _catch(/* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ _minLength(1), /* @__PURE__ */ _maxLength(max))), void 0);
const count = /* @__PURE__ */ _catch(/* @__PURE__ */ optional(/* @__PURE__ */ pipe((/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(/^\d{1,16}$/)), /* @__PURE__ */ transform(Number))), void 0);
const savedStateSchema = /* @__PURE__ */ object({
	resource: text(512),
	actorDid: text(512),
	apiUrl: text(2048),
	leaseId: text(128),
	expiresAtMs: count,
	grantedAtMs: count,
	waitedMs: count,
	/** Shown as main saved it: a fence may pass 2^53 in text, never in a number. */
	fence: /* @__PURE__ */ _catch(/* @__PURE__ */ optional((/* @__PURE__ */ string()).check(/* @__PURE__ */ _regex(/^\d{1,20}$/))), void 0),
	dryRun: /* @__PURE__ */ _catch(/* @__PURE__ */ optional(/* @__PURE__ */ pipe(/* @__PURE__ */ literal("true"), /* @__PURE__ */ transform(() => true))), void 0),
	kernelPid: count,
	kernelDir: text(4096),
	keeperPid: count,
	keeperStatus: text(4096),
	outcome: /* @__PURE__ */ _catch(/* @__PURE__ */ optional(/* @__PURE__ */ _enum(["none", "granted"])), void 0)
});
/** Every field main saved, read through `savedStateSchema`. */
function readSavedState(ctx) {
	const raw = {};
	for (const [field, name] of Object.entries(STATE)) raw[field] = ctx.getState(name) || void 0;
	return savedStateSchema.parse(raw);
}
// src/action/settings.ts
/**
* The `auth` input: 'key', 'oidc', or 'auto' (a key if one is given, else an
* OIDC token when the job may ask for one, else none: the key check then fails closed).
*/
function readAuth(ctx) {
	const given = ctx.getInput(INPUTS.auth).trim() || "auto";
	const audience = ctx.getInput(INPUTS.oidcAudience).trim() || "lease-gate";
	if (![
		"auto",
		"key",
		"oidc"
	].includes(given)) throw new SettingsError(`Invalid input '${INPUTS.auth}': '${given.slice(0, 40)}'. Expected 'auto', 'key' or 'oidc'.`);
	if (!/^[\x21-\x7e]{1,200}$/.test(audience)) throw new SettingsError(`Invalid input '${INPUTS.oidcAudience}': '${audience.slice(0, 60)}'. Expected 1 to 200 printable characters without spaces.`);
	const canIssue = runnerCanIssue(ctx.env);
	if (given === "oidc" && !canIssue) throw new SettingsError(`Input '${INPUTS.auth}' is 'oidc', but this job cannot ask for an OIDC token (ACTIONS_ID_TOKEN_REQUEST_URL is not set): give the job \`permissions: id-token: write\`.`);
	if (given === "oidc") return {
		mode: "oidc",
		audience
	};
	if (given === "key" || readKey(ctx)) return {
		mode: readKey(ctx) ? "key" : "none",
		audience
	};
	return {
		mode: canIssue ? "oidc" : "none",
		audience
	};
}
/** Each call's Bearer: the job's OIDC token, asked for again shortly before it expires (masked by getIDToken). */
function oidcBearer(ctx, audience) {
	return cachedToken(() => ctx.getIDToken(audience));
}
/** Reads the plane key: the `key` input, else LEASE_GATE_KEY, else INTRAMEDIAL_KEY. */
function readKey(ctx) {
	return ctx.getInput(INPUTS.key).trim() || keyFromEnv(ctx.env).value;
}
/** Words someone may write meaning "off", refused so the context is not silently named that. */
const LOOKS_LIKE_OFF = /^(false|no|none|disabled?|0)$/i;
/**
* `status-context` with `{resource}` replaced: empty is the default context, like
* every input (the runner passes '' for an input given as ''); `off` turns commit
* statuses off, and only them (the token still names the holder's run and feeds the
* outdated check). Returns '' for off.
*/
function readStatusContext(ctx, resource) {
	const given = inputOrDefault((n) => ctx.getInput(n), INPUTS.statusContext);
	if (given === "off") return "";
	const context = given.replaceAll("{resource}", resource);
	if (context.length > 255 || /[\r\n]/.test(context) || LOOKS_LIKE_OFF.test(context)) throw new SettingsError(`Invalid input '${INPUTS.statusContext}': '${context.slice(0, 60).replace(/[\r\n]+/g, " ")}'. Expected a commit status context of one line, at most 255 characters ({resource} is replaced by the resource), or 'off' to turn commit statuses off.`);
	return context;
}
// src/action/post.ts
/** The post step: stop the keeper, give back what main may have been granted. It never fails the job. */
async function run(ctx = coreContext()) {
	try {
		const key = readKey(ctx);
		if (key) ctx.setSecret(key);
		const auth = readAuth(ctx);
		const bearer = auth.mode === "oidc" && !readSavedState(ctx).dryRun ? oidcBearer(ctx, auth.audience) : void 0;
		const token = ctx.getInput(INPUTS.githubToken);
		if (token) ctx.setSecret(token);
		await cleanup(ctx, key, new GitHubSurfaces(token, readStatusContext(ctx, readSavedState(ctx).resource ?? ""), ctx.env, (m) => ctx.warning(m)), bearer);
	} catch (error) {
		ctx.warning(`lease-gate post step: ${errorMessage(error)}`);
	} finally {
		await exportDryRunLedger(ctx);
		await stopKernel(ctx);
	}
}
async function cleanup(ctx, key, github, bearer) {
	const state = readSavedState(ctx);
	const { resource } = state;
	const actorDid = state.actorDid ?? "";
	const apiUrl = parsePlaneUrl(state.apiUrl ?? "");
	const keeper = await readKeeper(ctx);
	if (!resource || !isDid(actorDid) || !apiUrl.ok) {
		ctx.info("This job asked for no lease: nothing to release.");
		return;
	}
	const grantedId = state.leaseId;
	const session = openSession({
		apiUrl: apiUrl.url,
		key,
		bearer,
		resource,
		actorDid,
		env: ctx.env
	});
	try {
		if (!grantedId && state.outcome === "none") {
			ctx.info(`This job was granted no lease on ${resource}: nothing to release.`);
			return;
		}
		if (!grantedId) {
			const outcome = await session.releaseOwn();
			ctx.info(outcome.kind === "released" ? `Main recorded no lease, but the plane held one for this job's DID: released ${outcome.ids.join(", ")} (a release by resource and own DID can only give back this job's own lease).` : `This job holds no lease on ${resource}: nothing to release.`);
			return;
		}
		await giveBack(ctx, session.releaseOwn, {
			resource,
			actorDid,
			grantedId,
			keeper
		}, github);
	} finally {
		await session.close();
	}
}
async function giveBack(ctx, releaseOwn, job, github) {
	const { resource, keeper, grantedId } = job;
	const leaseId = grantedId;
	const state = readSavedState(ctx);
	const expiresAtMs = keeper?.expiresAtMs ?? state.expiresAtMs ?? NaN;
	const fence = state.fence;
	const heldFor = formatDuration(Math.max(0, Date.now() - (state.grantedAtMs || Date.now())));
	const rows = [
		["resource", resource],
		["holder", describeHolder(job.actorDid)],
		["lease id", leaseId],
		...deployRows(deployFromEnv(ctx.env), ctx.env),
		...fence ? [["fence", fence]] : [],
		["waited", formatDuration(state.waitedMs ?? 0)],
		["held for", heldFor],
		["expires", formatEpoch(expiresAtMs)]
	];
	if (state.dryRun) rows.push(["mode", "dry run on a local kernel"]);
	if (keeper) rows.push(["renewals", describeKeeper(keeper)]);
	if (keeper?.note) ctx.warning(`The keeper's pace: ${keeper.note}`);
	if (keeper?.lost) {
		const loss = describeLoss(resource, keeper.lost);
		ctx.error(`${loss} This job was not exclusive after that moment.`, `Lost ${resource}`);
		rows.push(["released", `lost at ${formatEpoch(keeper.lost.endedAtMs ?? keeper.lost.atMs)}`]);
		await releaseOwn();
		const to = keeper.lost.holder ? shortHolder(keeper.lost.holder) : keeper.lost.reason;
		await github.status("failure", `Lost at ${new Date(keeper.lost.atMs).toISOString().slice(11, 19)}Z: ${to}`);
		await summarize(ctx, `lease-gate: ${resource} was lost`, rows);
		return;
	}
	if (keeper?.ended && keeper.ended.why !== "stopped") ctx.warning(`The keeper stopped early (${keeper.ended.why})${keeper.lastError ? `: ${keeper.lastError}` : ""}.`);
	const outcome = await releaseOwn();
	let text;
	if (outcome.kind === "released" && outcome.ids.includes(leaseId)) {
		ctx.info(`Released ${resource} (lease ${leaseId}).`);
		text = "released";
	} else if (outcome.kind === "failed") {
		ctx.warning(`Could not release ${resource} (lease ${leaseId}): ${outcome.message} The lease lapses on its own by ${formatEpoch(expiresAtMs)}.`);
		text = "release failed; it lapses on its own";
	} else {
		const named = outcome.ids.join(", ") || "none";
		ctx.warning(`Released ${resource}, but the plane's answer does not name lease ${leaseId} (it named ${named}): the lease may have lapsed or been taken away before the post step.`);
		text = `not confirmed: the plane released ${named}`;
	}
	rows.push(["released", text]);
	await github.status("success", `${text === "released" ? "Released" : "Done"} after holding ${heldFor} (lease ${leaseId})`);
	await summarize(ctx, `lease-gate: ${resource} given back`, rows);
}
async function readKeeper(ctx) {
	const { keeperStatus: file, keeperPid } = readSavedState(ctx);
	if (!file) return void 0;
	const status = await stopKeeper(keeperPid || void 0, file);
	if (!status) ctx.warning("The keeper left no status (it may have been stopped before it started): renewals are unknown.");
	return status;
}
function describeKeeper(status) {
	const last = status.lastRenewedAtMs ? `, last at ${new Date(status.lastRenewedAtMs).toISOString()}` : "";
	const failures = status.failures ? `, ${status.failures} failed attempt(s)` : "";
	return `${status.renewals}${last}${failures}`;
}
/** A dry run's audit trail: the kernel's ledger bundle and public key, kept under RUNNER_TEMP. */
async function exportDryRunLedger(ctx) {
	const { apiUrl, kernelPid } = readSavedState(ctx);
	if (!kernelPid || !apiUrl) return;
	try {
		const { bundleText, publicKey, bundle } = await fetchLedger(apiUrl);
		const dir = jobTempDir("ledger", ctx.env);
		const file = (0, node_path.join)(dir, "ledger-bundle.json");
		(0, node_fs.writeFileSync)(file, bundleText);
		(0, node_fs.writeFileSync)((0, node_path.join)(dir, "ledger.pub"), publicKey);
		const [, size, root] = String(bundle.checkpoint ?? "").split("\n");
		ctx.info(`Exported the dry run's ledger: ${file} (${size} entries, root ${root}).`);
		await summarize(ctx, "lease-gate: the dry run's ledger", [
			["bundle", file],
			["public key", (0, node_path.join)(dir, "ledger.pub")],
			["entries", size ?? "?"],
			["root", root ?? "?"],
			["check it", `lease-gate verify ${file} --public-key ${(0, node_path.join)(dir, "ledger.pub")}`]
		]);
	} catch (error) {
		ctx.warning(`Could not export the dry run's ledger: ${errorMessage(error)}`);
	}
}
async function stopKernel(ctx) {
	const pid = readSavedState(ctx).kernelPid;
	if (!pid) return;
	if (await stopDryRunKernel(pid)) ctx.info("Stopped the dry run's local kernel.");
	else ctx.warning(`The dry run's local kernel (pid ${pid}) did not stop.`);
}
// src/bin/post.ts
run();
exports.__commonJSMin = __commonJSMin;
exports.__toESM = __toESM;

//# sourceMappingURL=post.js.map