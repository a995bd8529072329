const require_cli = require("./cli.js");
const require_session = require("./session-CtAguDwo.js");
require("./freeze-DFg06IGh.js");
const require_session$1 = require("./session-OsT2W7LK.js");
const require_freeze_commands = require("./freeze-commands-D-iFFqN9.js");
const require_deploy_flags = require("./deploy-flags-BvakNXK6.js");
const require_words = require("./words-6aBbOxTY.js");
// src/cli/queue-view.ts
const text = require_cli.string().check(require_cli._maxLength(2048));
const time = require_cli.number().check(require_cli._gte(0), require_cli._lte(864e13));
const overviewSchema = require_cli.object({
	nowMs: time,
	resources: require_cli.array(require_cli.object({
		resource: text,
		queue: require_cli.array(require_cli.object({
			actorDid: text,
			position: require_cli.number().check(require_cli.int(), require_cli._gte(0)),
			sinceMs: require_cli.optional(time),
			etaMs: require_cli.optional(time)
		})).check(require_cli._maxLength(1e4))
	})).check(require_cli._maxLength(5e3)),
	next: require_cli.optional(require_cli.nullable(text))
});
const PAGE = 5e3;
const MAX_PAGES = 200;
/**
* The waiters of `resource` in line order, or undefined when the plane has no overview
* (answers 404: the hosted plane, an older kernel). Pages through the overview by name.
*/
async function queueOf(settings, env) {
	const http = require_cli.createHttpClient({ env });
	try {
		const credential = settings.bearer ? await settings.bearer() : settings.key;
		const headers = credential ? { authorization: `Bearer ${credential}` } : {};
		let after;
		for (let page = 0; page < MAX_PAGES; page += 1) {
			const query = `?detail=1&limit=${PAGE}${after === void 0 ? "" : `&after=${encodeURIComponent(after)}`}`;
			const url = `${settings.apiUrl}${require_cli.KERNEL_RESOURCES_PATH}${query}`;
			const call = `[GET] "${settings.apiUrl}${require_cli.KERNEL_RESOURCES_PATH}"`;
			const answer = await http.send({
				method: "GET",
				url,
				headers
			});
			if (answer.status === 404) return void 0;
			if (answer.status !== 200) throw new require_session.ContractError(`${call}: answered ${answer.status} ${require_cli.untrusted(answer.text.replace(/\s+/g, " "), 200)}`, {
				call,
				status: answer.status
			});
			const parsed = overviewSchema.safeParse(parseJson(answer.text));
			if (!parsed.success) throw new require_session.ContractError(`${call}: the answer is not the kernel's overview`, { call });
			const { nowMs, resources, next } = parsed.data;
			const row = resources.find((r) => r.resource === settings.resource);
			if (row) return row.queue.map((w) => waiter(w, nowMs));
			if (!next || resources.some((r) => r.resource > settings.resource)) return [];
			after = next;
		}
		return [];
	} finally {
		await http.close();
	}
}
function parseJson(text) {
	try {
		return JSON.parse(text);
	} catch {
		return;
	}
}
function waiter(w, nowMs) {
	return {
		actorDid: w.actorDid,
		position: w.position,
		...w.sinceMs === void 0 ? {} : { waitedMs: Math.max(0, nowMs - w.sinceMs) },
		...w.etaMs === void 0 ? {} : { etaMs: w.etaMs }
	};
}
/** "  1st in line did:\u2026 \u00b7 waiting 3 min \u00b7 about 6 min at recent hold times": the console's words. */
function describeWaiter(w) {
	const parts = [`${require_words.placeInLine(w.position)} ${require_cli.untrusted(require_cli.describeHolder(w.actorDid), 2048)}`];
	if (w.waitedMs !== void 0) parts.push(require_words.waitingFor(w.waitedMs));
	if (w.etaMs !== void 0) parts.push(require_words.etaWords(w.etaMs));
	return `  ${parts.join(" \u00b7 ")}`;
}
// src/cli/lease-commands.ts
/** `lease-gate acquire`: wait for the lease like the action does, print it. */
async function acquire(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.ACQUIRE.flags));
	const settings = await require_cli.holderSettings(values, env);
	const session = require_session$1.cliSession({
		...settings,
		...require_deploy_flags.deployFor(values, settings, env)
	}, io, env);
	try {
		const { result, stoppedBy } = await require_session$1.waitForLease(session, settings, io, {
			signals: ["SIGINT", "SIGTERM"],
			quiet: values.json
		});
		if (result.outcome === "granted") {
			const { lease } = result.held;
			if (values.json) io.out(JSON.stringify({
				outcome: "granted",
				lease,
				waitedMs: result.waitedMs,
				actorDid: settings.actorDid
			}));
			else {
				io.out(`acquired ${lease.resource} as ${lease.holder}: ${require_session$1.describeLease(lease)}`);
				io.err(`lease-gate: this lease ${require_session$1.describeLapse(lease, Date.now())} unless renewed; to hold it while a command runs, use \`lease-gate run\`.`);
			}
			return require_cli.EXIT.done;
		}
		if (values.json) io.out(JSON.stringify({
			...result,
			actorDid: settings.actorDid
		}));
		else io.err(result.outcome === "timeout" ? settings.waitTimeoutMs === 0 ? `${settings.resource} is ${require_session$1.describeWaitState(result)}; ${require_session$1.ASKED_ONCE}` : `timed out after ${require_cli.formatDuration(result.waitedMs)}: ${settings.resource} is ${require_session$1.describeWaitState(result)}` : result.outcome === "superseded" ? `superseded by ${require_cli.untrusted(result.by, 2048)} while waiting; nothing is held` : `stopped${stoppedBy ? ` by ${stoppedBy}` : ""} while waiting; nothing is held`);
		return result.outcome === "cancelled" && stoppedBy ? require_cli.signalExitCode(stoppedBy) : require_cli.EXIT.refused;
	} finally {
		await session.close();
	}
}
/** `lease-gate release`: give back what this actor holds. */
async function release(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.RELEASE.flags));
	const settings = await require_cli.holderSettings(values, env);
	return require_session$1.withSession(settings, io, env, async (session) => {
		const answer = await session.client.release({
			resource: settings.resource,
			actorDid: settings.actorDid
		});
		if (values.json) io.out(JSON.stringify(answer));
		else io.out(answer.released ? `released ${answer.releasedIds.join(", ")}` : `${settings.actorDid} held nothing on ${settings.resource}`);
		return answer.released ? require_cli.EXIT.done : require_cli.EXIT.refused;
	});
}
/** `lease-gate status`: who holds the resource, without taking it. */
async function status(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.STATUS.flags));
	const settings = require_cli.settingsFromFlags(values, env);
	return require_session$1.withSession(settings, io, env, async (session) => {
		const { lease, frozen } = await session.client.statusOf(settings.resource);
		const queue = await queueOf(settings, env).catch((error) => {
			io.err(`lease-gate: the queue of ${settings.resource} was not read: ${require_cli.untrusted(require_cli.errorMessage(error), 1e3)}`);
		});
		if (values.json) io.out(JSON.stringify({
			resource: settings.resource,
			lease,
			...frozen ? { freeze: frozen } : {},
			queue: queue ?? null
		}));
		else {
			if (frozen) io.out(describeFreeze(settings.resource, frozen));
			if (lease) io.out(`${settings.resource} is held by ${require_cli.describeHolder(lease.holder)}: ${require_session$1.describeLease(lease, require_session$1.formatUtc)}${lease.deploy ? `; deploying ${require_deploy_flags.describeDeploy(lease.deploy)}` : ""}`);
			else if (!frozen) io.out(`${settings.resource} is free`);
			if (queue?.length) {
				io.out(`${queue.length} waiting:`);
				for (const w of queue) io.out(describeWaiter(w));
			}
		}
		return require_cli.EXIT.done;
	});
}
/** "R is frozen by X until T: reason", every plane text escaped; the health gate's in its own words. */
function describeFreeze(resource, frozen) {
	const reason = require_cli.untrusted(frozen.reason, 1e3);
	if (frozen.by === "health-check") return `${resource} is ${require_session$1.HEALTH_HOLD_WORDS}: ${reason}; nobody new is granted it`;
	const until = frozen.untilMs === null ? "until unfrozen" : `until ${require_session$1.formatUtc(frozen.untilMs)}`;
	return `${resource} is frozen by ${require_cli.untrusted(frozen.by, 200)} ${until}: ${reason}; nobody new is granted it`;
}
/** "revoked R: ended lease L of <holder>", when the plane names them (escaped: plane text). */
function describeRevoked(resource, answer) {
	if (!answer.holder) return `revoked ${resource}`;
	return `revoked ${resource}: ended ${answer.leaseId ? `lease ${require_cli.untrusted(answer.leaseId, 256)}` : "the lease"} of ${require_cli.describeHolder(answer.holder)}`;
}
/** `lease-gate revoke`: the operator's lever, with LEASE_GATE_ADMIN_KEY. */
async function revoke(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.REVOKE.flags));
	const settings = require_cli.settingsFromFlags(values, env);
	const by = require_freeze_commands.operatorName(values.by);
	const adminKey = env.LEASE_GATE_ADMIN_KEY ?? "";
	if (!adminKey) throw new require_cli.UsageError("revoke needs the admin key in LEASE_GATE_ADMIN_KEY.");
	const reason = values.reason ?? "revoked by an operator";
	const session = require_session$1.cliSession(settings, io, env);
	try {
		const answer = await session.client.revoke(settings.resource, reason, adminKey, {}, by);
		if (values.json) io.out(JSON.stringify(answer));
		else io.out(answer.revoked ? describeRevoked(settings.resource, answer) : `${settings.resource} was not held`);
		return answer.revoked ? require_cli.EXIT.done : require_cli.EXIT.refused;
	} catch (error) {
		if (error instanceof require_session.KeyRefusedError) throw new require_session.LeaseRefusedError({
			reason: "key refused",
			message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; revoking needs the kernel's admin key.`
		});
		throw error;
	} finally {
		await session.close();
	}
}
exports.acquire = acquire;
exports.describeFreeze = describeFreeze;
exports.release = release;
exports.revoke = revoke;
exports.status = status;

//# sourceMappingURL=lease-commands-BNIgJISG.js.map