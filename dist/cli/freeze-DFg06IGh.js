const EPOCH = 2 ** 40;
/** The last timeline whose fences stay within Number.MAX_SAFE_INTEGER (2^53 - 1). */
const MAX_TIMELINE = Math.floor(Number.MAX_SAFE_INTEGER / EPOCH);
/**
* The least fence timeline `timeline` may draw above: (timeline - 1) \u00b7 2^40, so a
* database that never failed over (timeline 1) keeps fences 1, 2, 3\u2026. Undefined
* past MAX_TIMELINE, where a fence would no longer be an exact number.
*/
function fenceFloor(timeline) {
	if (!Number.isSafeInteger(timeline) || timeline < 1 || timeline > MAX_TIMELINE) return void 0;
	return (timeline - 1) * EPOCH;
}
/** Who the failover hold is "by" in a frozen answer, and in `windowUntilMs`' reply. */
const FAILOVER_BY = "failover";
/**
* The hold after a timeline change seen at `changedAtMs` (the database's clock): no
* grant or renewal before `changedAtMs + ttlMs`. Answered as a freeze (`reason: "frozen"`, with
* its end), which every client already waits out; undefined once it is over.
*/
function failoverHold(changedAtMs, ttlMs, now, timeline) {
	const untilMs = changedAtMs + ttlMs;
	if (!(changedAtMs > 0) || untilMs <= now) return void 0;
	return {
		reason: `the database failed over to timeline ${timeline}: no lease is granted or renewed for one lease time, in case the old primary acknowledged changes that were lost`,
		untilMs,
		by: FAILOVER_BY,
		atMs: changedAtMs
	};
}
// src/kernel/rules/freeze.ts
/**
* Who a health check's freezes are by (service/health-checks.ts): its hold while the
* check fails, which it lifts itself when the check passes, and its freeze after a
* check failed while the resource was held, which only an operator lifts.
*/
const HEALTH_HOLD_BY = "health-check";
const HEALTH_FREEZE_BY = "health-check:held";
/** The reason text an unfreeze at a freeze's own end records. */
const FREEZE_ENDED = "the freeze ended";
function freezeCommand(s, command, now, events) {
	if (command.kind === "freeze") {
		if (command.replaces && s.frozen && !command.replaces.includes(s.frozen.by)) return {
			frozen: s.frozen,
			changed: false
		};
		const frozen = {
			reason: command.reason,
			untilMs: command.untilMs,
			by: command.by,
			atMs: now
		};
		s.frozen = frozen;
		events.push(freezeEvent("freeze", s.resource, command.by, now, command.reason, command.untilMs));
		return {
			frozen,
			changed: true
		};
	}
	if (!s.frozen) return {
		frozen: null,
		changed: false
	};
	if (command.ifBy !== void 0 && s.frozen.by !== command.ifBy) return {
		frozen: s.frozen,
		changed: false
	};
	delete s.frozen;
	const reason = command.reason ?? "unfrozen by an operator";
	events.push(freezeEvent("unfreeze", s.resource, command.by, now, reason));
	return {
		frozen: null,
		changed: true
	};
}
/**
* A freeze whose end has come is recorded as over (an unfreeze entry) before anything
* else; returns when it ended (however late that is noticed), or undefined.
*/
function settleFreeze(s, now, events) {
	const untilMs = s.frozen?.untilMs;
	if (untilMs === null || untilMs === void 0 || untilMs > now) return void 0;
	const by = s.frozen.by;
	delete s.frozen;
	events.push(freezeEvent("unfreeze", s.resource, by, now, FREEZE_ENDED));
	return untilMs;
}
function frozenReply(freeze, waitMs, position) {
	const named = /^operator:(?!admin-key$)(.+)$/.exec(freeze.by)?.[1];
	const who = freeze.by === "failover" ? "the kernel" : named ? `operator ${named}` : "an operator";
	return {
		ok: false,
		reason: "frozen",
		message: freeze.by === "health-check" ? `held while its health check fails: ${freeze.reason}` : freeze.by === "health-check:held" ? `frozen after a failed health check until an operator unfreezes it: ${freeze.reason}` : freeze.untilMs !== null ? `frozen until ${iso(freeze.untilMs)} by ${who}: ${freeze.reason}` : named ? `frozen by ${who} until unfrozen: ${freeze.reason}` : `frozen until an operator unfreezes it: ${freeze.reason}`,
		until: freeze.untilMs,
		stampede: { waitMs },
		position
	};
}
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
function freezeEvent(kind, resource, by, atMs, reason, untilMs) {
	const event = {
		kind,
		atMs,
		resource,
		actorDid: by,
		leaseId: "",
		fence: 0,
		reason
	};
	if (untilMs !== null && untilMs !== void 0) event.expiresAtMs = untilMs;
	return event;
}
Object.defineProperty(exports, "HEALTH_FREEZE_BY", {
	enumerable: true,
	get: function() {
		return HEALTH_FREEZE_BY;
	}
});
Object.defineProperty(exports, "HEALTH_HOLD_BY", {
	enumerable: true,
	get: function() {
		return HEALTH_HOLD_BY;
	}
});
Object.defineProperty(exports, "MAX_TIMELINE", {
	enumerable: true,
	get: function() {
		return MAX_TIMELINE;
	}
});
Object.defineProperty(exports, "failoverHold", {
	enumerable: true,
	get: function() {
		return failoverHold;
	}
});
Object.defineProperty(exports, "fenceFloor", {
	enumerable: true,
	get: function() {
		return fenceFloor;
	}
});
Object.defineProperty(exports, "freezeCommand", {
	enumerable: true,
	get: function() {
		return freezeCommand;
	}
});
Object.defineProperty(exports, "frozenReply", {
	enumerable: true,
	get: function() {
		return frozenReply;
	}
});
Object.defineProperty(exports, "settleFreeze", {
	enumerable: true,
	get: function() {
		return settleFreeze;
	}
});

//# sourceMappingURL=freeze-DFg06IGh.js.map