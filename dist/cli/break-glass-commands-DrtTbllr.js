const require_cli = require("./cli.js");
const require_freeze_commands = require("./freeze-commands-D-iFFqN9.js");
const require_session = require("./session-OsT2W7LK.js");
const require_session$1 = require("./session-CtAguDwo.js");
const require_run_pass = require("./run-pass-B7n0Po02.js");
// src/cli/break-glass-flags.ts
/** What the break-glass commands (open, approve, cancel) share: whom the pass is for (an agent or a run), the key, a refusal. */
function agentOf(raw, command) {
	if (raw === void 0 || !require_cli.isDid(raw)) throw new require_cli.UsageError(raw === void 0 ? `${command} needs --agent DID: the job to let through (the console's queue lists each waiter's DID).` : `Invalid --agent '${require_cli.untrusted(raw, 80)}'. Expected ${require_cli.DID_FORM}.`);
	return raw;
}
/**
* The pass's DID: --agent's, or the run's for --run (every DID the action derives for that
* run, plane/run-pass.ts); exactly one of them. `optional`: neither is allowed (a cancel).
*/
function passDidOf(values, command, optional = false) {
	if (values.agent !== void 0 && values.run !== void 0) throw new require_cli.UsageError(`${command} takes --agent DID or --run ${require_run_pass.RUN_FORM}, not both.`);
	if (values.run === void 0) {
		if (values.agent === void 0 && optional) return void 0;
		if (values.agent === void 0) throw new require_cli.UsageError(`${command} needs --agent DID or --run ${require_run_pass.RUN_FORM}: the job to let through (the console's queue lists each waiter's DID; a refused job's log names its run).`);
		return agentOf(values.agent, command);
	}
	const did = require_run_pass.runPassDid(values.run);
	if (did === void 0) throw new require_cli.UsageError(`Invalid --run '${require_cli.untrusted(values.run, 80)}'. Expected ${require_run_pass.RUN_FORM}.`);
	return did;
}
function keyOf(env, name, command) {
	const key = env[name] ?? "";
	if (!key) throw new require_cli.UsageError(`${command} needs the key in ${name}.`);
	return key;
}
function keyRefused(error, name) {
	if (!(error instanceof require_session$1.KeyRefusedError)) return error;
	return new require_session$1.LeaseRefusedError({
		reason: "key refused",
		message: `The plane refused the key (${error.status}${error.said ? `: ${error.said}` : ""}): check ${name}.`
	});
}
// src/cli/break-glass-cancel.ts
/**
* `lease-gate break-glass --cancel`: the operator withdraws the unused pass on the resource
* (only the one for --agent, when given), so it can no longer be used. A usable pass is
* withdrawn with a signed ledger entry, so a kernel's restart does not bring it back.
*/
async function cancelBreakGlass(values, io, env) {
	if (values.reason !== void 0 || values.for !== void 0) throw new require_cli.UsageError("break-glass --cancel takes no --reason or --for: it withdraws the pass there is.");
	const actorDid = passDidOf(values, "break-glass --cancel", true);
	const by = require_freeze_commands.operatorName(values.by);
	const settings = require_cli.settingsFromFlags(values, env);
	const adminKey = keyOf(env, "LEASE_GATE_ADMIN_KEY", "break-glass --cancel");
	const session = require_session.cliSession(settings, io, env);
	try {
		const answer = await session.client.withdrawBreakGlass({
			resource: settings.resource,
			...actorDid !== void 0 ? { actorDid } : {},
			...by ? { by } : {}
		}, adminKey);
		if (values.json) io.out(JSON.stringify({
			resource: settings.resource,
			...answer
		}));
		else io.out(`withdrawn: the break-glass on ${settings.resource} for ${require_cli.untrusted(answer.actorDid, 200)} can no longer be used`);
		return require_cli.EXIT.done;
	} catch (error) {
		throw keyRefused(error, "LEASE_GATE_ADMIN_KEY");
	} finally {
		await session.close();
	}
}
// src/cli/break-glass-commands.ts
const MAX_FOR_MS = 36e5;
const FOR_FORM = "a duration such as '10m' or '1h' (at most 1h)";
const said = (a) => `${a.pending ? "waiting for a second operator to approve" : "open"}: ${whom(a.actorDid)} may be granted it once, frozen or not, until ${new Date(a.until).toISOString()}`;
/** A run's pass lets one job of that run through, whichever attempt asks. */
const whom = (did) => require_run_pass.isRunPass(did) ? `one job of the run ${require_cli.untrusted(did, 200)} (any attempt)` : require_cli.untrusted(did, 200);
/** `lease-gate break-glass`: one named job may be granted the resource once, frozen or not. */
async function breakGlass(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.BREAK_GLASS.flags));
	if (values.cancel) return cancelBreakGlass(values, io, env);
	const actorDid = passDidOf(values, "break-glass");
	const reason = values.reason?.trim() ?? "";
	if (!reason || reason.length > 1e3) throw new require_cli.UsageError("break-glass needs --reason TEXT (1 to 1000 characters): it is recorded in the ledger.");
	const request = {
		resource: "",
		actorDid,
		reason
	};
	const by = require_freeze_commands.operatorName(values.by);
	if (by) request.by = by;
	if (values.for !== void 0) {
		const forMs = require_cli.parseDuration(values.for);
		if (forMs === void 0 || forMs <= 0 || forMs > MAX_FOR_MS) throw new require_cli.UsageError(`Invalid --for '${require_cli.untrusted(values.for, 40)}'. Expected ${FOR_FORM}.`);
		request.forMs = forMs;
	}
	const settings = require_cli.settingsFromFlags(values, env);
	request.resource = settings.resource;
	const adminKey = keyOf(env, "LEASE_GATE_ADMIN_KEY", "break-glass");
	const session = require_session.cliSession(settings, io, env);
	try {
		const answer = await session.client.breakGlass(request, adminKey);
		if (values.json) io.out(JSON.stringify({
			resource: settings.resource,
			...answer
		}));
		else io.out(`break-glass on ${settings.resource} ${said(answer)}`);
		return require_cli.EXIT.done;
	} catch (error) {
		throw keyRefused(error, "LEASE_GATE_ADMIN_KEY");
	} finally {
		await session.close();
	}
}
/** `lease-gate approve-break-glass`: the second operator lets a pending break-glass be used. */
async function approveBreakGlass(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.APPROVE_BREAK_GLASS.flags));
	const actorDid = passDidOf(values, "approve-break-glass");
	const tokenFile = values["oidc-token-file"];
	if (tokenFile === "") throw new require_cli.UsageError("Invalid --oidc-token-file: expected the path of a file holding a token.");
	if (tokenFile !== void 0 && values.by !== void 0) throw new require_cli.UsageError("approve-break-glass takes --by NAME (with LEASE_GATE_APPROVER_KEY) or --oidc-token-file FILE, not both: the token names its approver.");
	const by = tokenFile === void 0 ? require_freeze_commands.operatorName(values.by) : void 0;
	if (tokenFile === void 0 && !by) throw new require_cli.UsageError("approve-break-glass needs --by NAME (with LEASE_GATE_APPROVER_KEY), or --oidc-token-file FILE: the ledger names the approver.");
	let credential;
	try {
		credential = tokenFile === void 0 ? keyOf(env, "LEASE_GATE_APPROVER_KEY", "approve-break-glass") : await require_cli.givenTokenSource(tokenFile, env)();
	} catch (error) {
		if (error instanceof require_cli.SettingsError) throw new require_cli.UsageError(error.message, { cause: error });
		throw error;
	}
	const settings = require_cli.settingsFromFlags({
		...values,
		"oidc-token-file": void 0
	}, env);
	const session = require_session.cliSession(settings, io, env);
	try {
		const answer = await session.client.approveBreakGlass({
			resource: settings.resource,
			actorDid,
			...by ? { by } : {}
		}, credential);
		if (values.json) io.out(JSON.stringify({
			resource: settings.resource,
			...answer
		}));
		else io.out(`approved: break-glass on ${settings.resource} ${said(answer)}`);
		return require_cli.EXIT.done;
	} catch (error) {
		throw keyRefused(error, tokenFile === void 0 ? "LEASE_GATE_APPROVER_KEY" : `the token in --oidc-token-file ${tokenFile}`);
	} finally {
		await session.close();
	}
}
exports.approveBreakGlass = approveBreakGlass;
exports.breakGlass = breakGlass;

//# sourceMappingURL=break-glass-commands-DrtTbllr.js.map