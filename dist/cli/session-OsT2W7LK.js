const require_cli = require("./cli.js");
const require_session = require("./session-CtAguDwo.js");
// src/lease/texts.ts
/** The texts both faces print: leases, holders, losses. Plane text is escaped here. */
function formatEpoch(ms) {
	return Number.isFinite(ms) && Math.abs(ms) <= 864e13 ? `${new Date(ms).toISOString()} (${ms})` : "unknown";
}
/** "2026-12-07 04:00:00 UTC": the one time format of an output that names more than one time. */
function formatUtc(ms) {
	return Number.isFinite(ms) && Math.abs(ms) <= 864e13 ? `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC` : "unknown";
}
/** `at`: how the expiry is written, so an output keeps one time format (status: formatUtc). */
function describeLease(lease, at = formatEpoch) {
	const fence = lease.fence === void 0 ? "" : `, fence ${lease.fence}`;
	return `lease ${require_cli.untrusted(lease.id, 256)}${fence}, expires ${at(lease.expiresAtMs)}`;
}
/** When a lease lapses unless renewed, from the plane's own answer (its expiry), never a fixed TTL. */
function describeLapse(lease, nowMs) {
	const at = formatEpoch(lease.expiresAtMs).split(" ")[0];
	const left = lease.expiresAtMs - nowMs;
	return left > 0 ? `lapses at ${at} (in about ${require_cli.formatDuration(left)})` : `lapses at ${at}`;
}
/** "held by X" \u2014 or, for a reservation, "reserved for X (next in line)", never "held by". */
function describeHeldBy(holder, reserved) {
	return reserved ? `reserved for ${require_cli.describeHolder(holder)} (next in line)` : `held by ${require_cli.describeHolder(holder)}`;
}
/**
* "next in line", "3rd in line; about 6m at recent hold times", from a refusal's place and
* estimate; a holder past the typical hold is "overdue by 2m" (never "about 0ms").
*/
function describePlace(position, etaMs, overdueMs) {
	const place = position === void 0 ? "" : position === 0 ? "next in line" : `${ordinal(position + 1)} in line`;
	const overdue = overdueMs !== void 0 && overdueMs > 0 ? `the holder is overdue by ${require_cli.formatDuration(overdueMs)} at recent hold times` : "";
	return [
		place,
		overdue,
		etaMs === void 0 || overdue && etaMs === 0 ? "" : etaMs === 0 ? "any moment now at recent hold times" : `about ${require_cli.formatDuration(etaMs)} at recent hold times`
	].filter(Boolean).join("; ");
}
function ordinal(n) {
	const tens = n % 100;
	return `${n}${tens >= 11 && tens <= 13 ? "th" : {
		1: "st",
		2: "nd",
		3: "rd"
	}[n % 10] ?? "th"}`;
}
/**
* What a waiter is waiting for: "held by X (2nd in line; about 6 min at recent hold times)",
* "frozen until \u2026 by an operator: <reason>" or "held while its health check fails: <url>
* answered 503". Plane text is escaped here.
*/
function describeWaitState(e) {
	if (e.frozen) {
		const message = require_cli.untrusted(e.frozen.message);
		return message.startsWith("frozen") || healthHold(message) ? message : `frozen by an operator: ${message}`;
	}
	const place = describePlace(e.position, e.etaMs, e.overdueMs);
	return `${describeHeldBy(e.holder, e.reserved)}${place ? ` (${place})` : ""}`;
}
/** A wait of --wait-timeout 0 did not time out: it asked once, as told. */
const ASKED_ONCE = "asked once (--wait-timeout 0)";
/** The kernel's words for the health gate's hold (kernel/rules/freeze.ts, frozenReply). */
const HEALTH_HOLD_WORDS = "held while its health check fails";
const healthHold = (message) => message.startsWith(HEALTH_HOLD_WORDS);
function describeLoss(resource, loss) {
	const at = loss.endedAtMs === void 0 ? formatEpoch(loss.atMs).split(" ")[0] : `${formatEpoch(loss.endedAtMs).split(" ")[0]} (plane's clock)`;
	const message = loss.message ? `: ${require_cli.untrusted(loss.message)}` : "";
	const now = loss.holder ? ` It is now held by ${require_cli.describeHolder(loss.holder)}.` : "";
	switch (loss.reason) {
		case "revoked": return `Lost ${resource} at ${at}: ${loss.by ? `the lease was revoked ${require_session.revokedBy(require_cli.untrusted(loss.by, 200))}` : "an operator revoked the lease"}${require_session.operatorReason(loss.message && require_cli.untrusted(loss.message))}.${now}`;
		case "lapsed": return `Lost ${resource} at ${at}: the lease lapsed (not renewed in time).${now}`;
		case "released": return `Lost ${resource} at ${at}: the lease was released by someone acting as this agent.${now}`;
		case "unknown": return `Lost ${resource} at ${at}: the plane says the lease ended, not how.${now}`;
		case "lease_held": return `Lost ${resource} at ${at}: it is now held by ${require_cli.describeHolder(loss.holder ?? "another agent")}.`;
		case "replaced": return `Lost ${resource} at ${at}: the lease had ended (lapsed, revoked or released) and the plane granted a new one (${require_cli.untrusted(loss.newLeaseId ?? "?")}), which was ${loss.gaveBack ? "given back at once" : "not confirmed given back; it lapses on its own"}.`;
		case "broken_plane": return `Lost ${resource} at ${at}: a renewal was not ours to believe${message}.`;
		default: return `Lost ${resource} at ${at}: the plane refused the renewal (${require_cli.untrusted(loss.reason, 100)})${message}.${now}`;
	}
}
/** How often a wait whose holder and place stay the same says it is still waiting. */
const WAIT_PROGRESS_EVERY_MS = 6e4;
/**
* The wait's lines, for both faces: one at once on the first answer, one
* whenever the holder or our place changes, and otherwise at most one a
* minute saying how long it has waited. Undefined: say nothing now.
*/
function waitNotices(resource, everyMs = WAIT_PROGRESS_EVERY_MS) {
	let lastLineAt = -Infinity;
	return (event) => {
		const changed = event.first || event.holderChanged || event.positionChanged;
		if (!changed && event.elapsedMs - lastLineAt < everyMs) return void 0;
		lastLineAt = event.elapsedMs;
		const place = event.frozen ? "" : describePlace(event.position, event.etaMs, event.overdueMs);
		const waited = event.first ? "" : `; waited ${require_cli.formatDuration(event.elapsedMs)}`;
		return `${resource} is ${changed ? "" : "still "}${describeWaitState({
			...event,
			position: void 0,
			etaMs: void 0
		})}${place ? `; ${place}` : ""}${waited}`;
	};
}
// src/cli/session.ts
/** After the first line, a plane still failing is said at most this often. */
const STILL_FAILING_EVERY_MS = 6e4;
/**
* The CLI's lease session. An unreachable plane is said at once, once: which URL,
* where it came from and whether a kernel runs there; then retried quietly, with
* at most a line a minute, never silent for long.
*/
function cliSession(settings, io, env) {
	return require_session.openSession({
		...settings,
		env,
		onRetry: retryLines(settings.apiUrl, settings.apiUrlFrom, io.err, Date.now)
	});
}
/** A command's one session, closed when `use` settles, whatever it does. */
async function withSession(settings, io, env, use) {
	const session = cliSession(settings, io, env);
	try {
		return await use(session);
	} finally {
		await session.close();
	}
}
/**
* Waits for the lease as the action does (the plane's back-off, a line on stderr as the
* holder changes, unless `quiet`), until granted, timed out, superseded or one of
* `signals` stops it: acquire's wait and run's are this one.
*/
async function waitForLease(session, settings, io, options) {
	const cancel = new AbortController();
	let stoppedBy;
	const stop = (signal) => {
		stoppedBy ??= signal;
		cancel.abort();
	};
	for (const signal of options.signals) process.once(signal, stop);
	const notices = waitNotices(settings.resource);
	try {
		return {
			result: await session.acquire({
				timeoutMs: settings.waitTimeoutMs,
				signal: cancel.signal,
				retryWindowMs: retryWindowMs(settings.waitTimeoutMs),
				onHeld: (event) => {
					const line = notices(event);
					if (line && !options.quiet) io.err(`lease-gate: ${line}`);
				}
			}),
			stoppedBy
		};
	} finally {
		for (const signal of options.signals) process.off(signal, stop);
	}
}
/** The lines of a retried plane: the first failure in full, then one a minute. */
function retryLines(apiUrl, from, say, now, everyMs = STILL_FAILING_EVERY_MS) {
	let lastLineAt;
	return (event) => {
		const at = now();
		const left = require_cli.formatDuration(event.retryForMs);
		if (lastLineAt === void 0) {
			lastLineAt = at;
			say(`lease-gate: ${describeFirstFailure(apiUrl, from, event)} Retrying quietly for up to ${left}.`);
			return;
		}
		if (at - lastLineAt < everyMs) return;
		lastLineAt = at;
		say(`lease-gate: ${event.status === void 0 ? "cannot reach" : "still no answer from"} the plane at ${apiUrl} after ${event.attempt} attempts; retrying for ${left} more.`);
	};
}
function describeFirstFailure(apiUrl, from, event) {
	const cause = require_cli.untrusted(event.error.replace(/^\[[A-Z]+\] "[^"]*": /, ""), 200);
	const source = from ? ` (${from})` : "";
	const hosted = from === "the default, the hosted plane: no --api-url, no LEASE_GATE_API_URL" ? ` ${require_cli.HOSTED_HINT}` : "";
	return event.status === void 0 ? `cannot reach the plane at ${apiUrl}${source}: ${cause}.${hosted || " Is the kernel running there ('lease-gate kernel'), and is that the right URL?"}` : `the plane at ${apiUrl}${source} answered ${cause}.${hosted}`;
}
/** With --wait-timeout 0 the CLI asks once and retries an unreachable plane this long at most. */
const ASK_ONCE_RETRY_MS = 1e4;
/** How long a waiting command retries an unreachable plane: within --wait-timeout. */
function retryWindowMs(waitTimeoutMs) {
	return waitTimeoutMs === 0 ? ASK_ONCE_RETRY_MS : waitTimeoutMs;
}
Object.defineProperty(exports, "ASKED_ONCE", {
	enumerable: true,
	get: function() {
		return ASKED_ONCE;
	}
});
Object.defineProperty(exports, "HEALTH_HOLD_WORDS", {
	enumerable: true,
	get: function() {
		return HEALTH_HOLD_WORDS;
	}
});
Object.defineProperty(exports, "cliSession", {
	enumerable: true,
	get: function() {
		return cliSession;
	}
});
Object.defineProperty(exports, "describeLapse", {
	enumerable: true,
	get: function() {
		return describeLapse;
	}
});
Object.defineProperty(exports, "describeLease", {
	enumerable: true,
	get: function() {
		return describeLease;
	}
});
Object.defineProperty(exports, "describeLoss", {
	enumerable: true,
	get: function() {
		return describeLoss;
	}
});
Object.defineProperty(exports, "describeWaitState", {
	enumerable: true,
	get: function() {
		return describeWaitState;
	}
});
Object.defineProperty(exports, "formatUtc", {
	enumerable: true,
	get: function() {
		return formatUtc;
	}
});
Object.defineProperty(exports, "waitForLease", {
	enumerable: true,
	get: function() {
		return waitForLease;
	}
});
Object.defineProperty(exports, "withSession", {
	enumerable: true,
	get: function() {
		return withSession;
	}
});

//# sourceMappingURL=session-OsT2W7LK.js.map