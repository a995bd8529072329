const require_session = require("./session-CtAguDwo.js");
const require_cli = require("./cli.js");
const require_session$1 = require("./session-OsT2W7LK.js");
// src/plane/freeze-for.ts
/**
* How long a freeze or a break-glass lasts, as the CLI's `--for` and the console's field take
* it: `90s`, `90m`, `4h`, `3d` (a freeze may outlast any job, so days too). Pure, so the
* browser's console and the CLI read one form the same way.
*/
const UNIT_MS = {
	ms: 1,
	s: 1e3,
	m: 6e4,
	h: 36e5,
	d: 864e5
};
const MAX_FREEZE_MS = 366 * UNIT_MS.d;
const FREEZE_FOR_FORM = "a duration such as '90m', '4h' or '3d' (at most 366d)";
/** Milliseconds for `90m`, `4h`, `3d`, `500ms`, or plain seconds; undefined when not one of those. */
function parseForDuration(raw) {
	const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
	if (!match) return void 0;
	const ms = Math.round(Number(match[1]) * UNIT_MS[match[2] ?? "s"]);
	return Number.isFinite(ms) ? ms : void 0;
}
/** `--for` of a freeze: more than nothing, at most 366 days. */
function parseFreezeFor(raw) {
	const ms = parseForDuration(raw);
	return ms !== void 0 && ms > 0 && ms <= MAX_FREEZE_MS ? ms : void 0;
}
// src/cli/freeze-commands.ts
const UNTIL_FORM = "an ISO 8601 time with a zone, such as '2026-12-24T18:00:00Z' or '2026-12-24T19:00+01:00'";
/** `--until`: a time with its zone (a bare local time would depend on the host's). */
function parseFreezeUntil(raw, nowMs) {
	if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) return void 0;
	const ms = Date.parse(raw);
	return Number.isFinite(ms) && ms > nowMs && ms <= nowMs + MAX_FREEZE_MS ? ms : void 0;
}
/** `--by NAME`: who the ledger names for the freeze, unfreeze or revoke (else operator:admin-key). */
function operatorName(raw) {
	if (raw === void 0) return void 0;
	if (!require_cli.OPERATOR_NAME_PATTERN.test(raw)) throw new require_cli.UsageError(`Invalid --by '${require_cli.untrusted(raw, 70)}'. Expected ${require_cli.OPERATOR_NAME_FORM}.`);
	return raw;
}
function adminKeyOf(env, what) {
	const adminKey = env.LEASE_GATE_ADMIN_KEY ?? "";
	if (!adminKey) throw new require_cli.UsageError(`${what} needs the admin key in LEASE_GATE_ADMIN_KEY.`);
	return adminKey;
}
function keyRefused(error) {
	if (!(error instanceof require_session.KeyRefusedError)) return error;
	return new require_session.LeaseRefusedError({
		reason: "key refused",
		message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; freezing needs the kernel's admin key.`
	});
}
/** `lease-gate freeze`: no new holder until the end named (or an unfreeze); the holder is kept. */
async function freeze(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.FREEZE.flags));
	const reason = values.reason?.trim() ?? "";
	if (!reason || reason.length > 1e3) throw new require_cli.UsageError("freeze needs --reason TEXT (1 to 1000 characters), said to every waiter.");
	if (values.until !== void 0 && values.for !== void 0) throw new require_cli.UsageError("Give --until or --for, not both.");
	const request = {
		resource: "",
		reason
	};
	const by = operatorName(values.by);
	if (by) request.by = by;
	if (values.for !== void 0) {
		const forMs = parseFreezeFor(values.for);
		if (forMs === void 0) throw new require_cli.UsageError(`Invalid --for '${require_cli.untrusted(values.for, 40)}'. Expected ${FREEZE_FOR_FORM}.`);
		request.forMs = forMs;
	}
	if (values.until !== void 0) {
		const untilMs = parseFreezeUntil(values.until, Date.now());
		if (untilMs === void 0) throw new require_cli.UsageError(`Invalid --until '${require_cli.untrusted(values.until, 60)}'. Expected ${UNTIL_FORM}, in the future and within a year.`);
		request.untilMs = untilMs;
	}
	const settings = require_cli.settingsFromFlags(values, env);
	request.resource = settings.resource;
	const adminKey = adminKeyOf(env, "freeze");
	const session = require_session$1.cliSession(settings, io, env);
	try {
		const answer = await session.client.freeze(request, adminKey);
		if (values.json) io.out(JSON.stringify({
			resource: settings.resource,
			frozen: true,
			...answer
		}));
		else io.out(`froze ${settings.resource} ${answer.until === null ? "until unfrozen" : `until ${new Date(answer.until).toISOString()}`}; its holder (if any) keeps it, nobody else is granted it`);
		return require_cli.EXIT.done;
	} catch (error) {
		throw keyRefused(error);
	} finally {
		await session.close();
	}
}
/** `lease-gate unfreeze`: grants resume, waiters first in the order they came. */
async function unfreeze(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.UNFREEZE.flags));
	const by = operatorName(values.by);
	const settings = require_cli.settingsFromFlags(values, env);
	const adminKey = adminKeyOf(env, "unfreeze");
	const session = require_session$1.cliSession(settings, io, env);
	try {
		const answer = await session.client.unfreeze(settings.resource, adminKey, {}, by);
		if (values.json) io.out(JSON.stringify({
			resource: settings.resource,
			frozen: false,
			...answer
		}));
		else io.out(answer.changed ? `unfroze ${settings.resource}` : `${settings.resource} was not frozen`);
		return answer.changed ? require_cli.EXIT.done : require_cli.EXIT.refused;
	} catch (error) {
		throw keyRefused(error);
	} finally {
		await session.close();
	}
}
exports.freeze = freeze;
exports.operatorName = operatorName;
exports.parseFreezeUntil = parseFreezeUntil;
exports.unfreeze = unfreeze;

//# sourceMappingURL=freeze-commands-D-iFFqN9.js.map