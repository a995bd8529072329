const require_processes = require("./processes-DeLsQMUX.js");
const require_durable = require("./durable-3qlBTb9V.js");
const require_cli = require("./cli.js");
const require_session = require("./session-CtAguDwo.js");
let node_fs = require("node:fs");
// src/gate/keeper-status.ts
/**
* What the keeper has seen, as its status file carries it across the process
* boundary: one schema, and the types are what it parses (post, `run` and the
* keeper itself read and write it through this).
*/
const text = require_cli.string().check(require_cli._maxLength(2e3));
const at = require_cli.number().check(require_cli.refine(Number.isFinite));
const keepEnds = [
	"stopped",
	"lifetime",
	"parent-gone",
	"lost",
	"key-refused",
	"not-wanted"
];
const lossSchema = require_cli.object({
	/** When we learned of it (wall clock). */
	atMs: at,
	/** When the plane ended it, on the plane's clock (a watch's answer says). */
	endedAtMs: require_cli.optional(at),
	/**
	* `lease_held`, `revoked`, `replaced` (the plane granted a new lease: ours had ended),
	* from a watch `lapsed`, `released` or `unknown`, `broken_plane` (a renewal not ours to
	* believe, given back), or the plane's reason.
	*/
	reason: text,
	/** Who holds it now (for `revoked`: as the plane says). */
	holder: require_cli.optional(text),
	/** The operator's message (revoked) or the plane's. */
	message: require_cli.optional(text),
	/** `revoked`: who revoked (`operator:NAME`), when the plane names them. */
	by: require_cli.optional(text),
	/** `replaced`: the lease the plane granted instead, which the keeper gave back at once. */
	newLeaseId: require_cli.optional(text),
	gaveBack: require_cli.optional(require_cli.boolean())
});
require_cli.object({
	pid: require_cli.number().check(require_cli.refine(Number.isInteger)),
	resource: text,
	actorDid: text,
	leaseId: text,
	fence: require_cli.optional(require_cli.number()),
	expiresAtMs: at,
	renewals: require_cli.number(),
	/** Wall time of the last successful renewal. */
	lastRenewedAtMs: require_cli.optional(at),
	failures: require_cli.number(),
	lastError: require_cli.optional(text),
	/** Said once: the plane told no lease time the keeper could read on its clock (lease-time.ts). */
	note: require_cli.optional(text),
	/** Our lease ended under us; renewing stopped. */
	lost: require_cli.optional(lossSchema),
	ended: require_cli.optional(require_cli.object({
		atMs: at,
		why: require_cli._enum(keepEnds)
	}))
});
// src/lease/keeper-status.ts
/** The keeper's first argument: the granted lease, checked like a plane answer. */
const keeperLeaseSchema = require_cli.leaseSchema;
/** Writes the keeper's record, unless post has removed the file (then nobody wants it). */
function writeStatusFile(file, record) {
	if (!(0, node_fs.existsSync)(file)) return false;
	require_durable.writeFileAtomicSync(file, JSON.stringify(record));
	return true;
}
// src/cli/keep-command.ts
/**
* `lease-gate keep` (internal): the action's detached keeper. Renews the lease
* (and only renews it) until post stops it or removes its status file, its
* runner is gone or its lifetime ends. The key comes from the environment (`keyFromEnv`;
* main's spawn leaves only the step's key there, `helperEnv`).
*/
async function keep(args, _io, env) {
	const { values } = require_cli.parse(args, {
		"api-url": {
			type: "string",
			default: ""
		},
		resource: {
			type: "string",
			default: ""
		},
		"actor-did": {
			type: "string",
			default: ""
		},
		lease: {
			type: "string",
			default: ""
		},
		status: {
			type: "string",
			default: ""
		},
		"parent-pid": {
			type: "string",
			default: "0"
		},
		"oidc-audience": { type: "string" }
	});
	const url = require_cli.parsePlaneUrl(values["api-url"]);
	if (!url.ok || !values.resource || !values["actor-did"] || !values.status || !values.lease) throw new require_cli.UsageError("keep needs --api-url, --resource, --actor-did, --lease and --status.");
	let raw;
	try {
		raw = JSON.parse(values.lease);
	} catch {
		throw new require_cli.UsageError("Invalid --lease: expected the granted lease as JSON.");
	}
	const parsed = keeperLeaseSchema.safeParse(raw);
	if (!parsed.success) throw new require_cli.UsageError(`Invalid --lease: ${require_cli.describeIssues(parsed.error)}.`);
	const statusFile = values.status;
	const parentPid = Number(values["parent-pid"]);
	const audience = values["oidc-audience"];
	const session = require_session.openSession({
		apiUrl: url.url,
		key: audience ? "" : require_cli.keyFromEnv(env).value,
		bearer: audience ? require_cli.cachedToken(keeperTokens(env, audience)) : void 0,
		resource: values.resource,
		actorDid: values["actor-did"],
		env
	});
	const stop = new AbortController();
	process.once("SIGTERM", () => stop.abort()).once("SIGINT", () => stop.abort());
	const held = session.held(parsed.data);
	try {
		const status = await held.keep({
			signal: stop.signal,
			parentAlive: () => !(parentPid > 0) || require_processes.isAlive(parentPid),
			stillWanted: () => (0, node_fs.existsSync)(statusFile),
			onChange: (s) => writeStatusFile(statusFile, {
				pid: process.pid,
				...s,
				...s.lastError ? { lastError: s.lastError.slice(0, 500) } : {}
			})
		});
		if (status.ended?.why === "parent-gone" || status.ended?.why === "lifetime") await held.release();
	} finally {
		await session.close();
	}
	return require_cli.EXIT.done;
}
/** The job's own tokens: the runner's service on GitHub (the action), else its CI's way (ci-tokens.ts). */
function keeperTokens(env, audience) {
	const ci = require_cli.ciOfEnv(env);
	if (!ci || ci === "github") return require_cli.runnerTokenSource(env, audience);
	const way = require_cli.ciTokenWay(ci, env, ci === "gitlab" ? {} : { audience });
	if ("missing" in way) throw new require_cli.UsageError(`keep --oidc-audience: ${way.missing}`);
	return way.source;
}
exports.keep = keep;

//# sourceMappingURL=keep-command-rOWHe6_i.js.map