const require_rolldown_runtime = require("./rolldown-runtime-C-fzZZTt.js");
const require_round_trips = require("./round-trips-B-VRNRTe.js");
const require_cli = require("./cli.js");
const require_freeze = require("./freeze-DFg06IGh.js");
const require_run_pass = require("./run-pass-B7n0Po02.js");
const require_checkpoint = require("./checkpoint-G5ROIOCl.js");
require("./zod-en-DySWmmj3.js");
const require_log_output = require("./log-output-Ds3jN6an.js");
const require_time = require("./time-ww7Hd0C3.js");
const require_entry_kinds = require("./entry-kinds-DYb7pk0U.js");
const require_durable = require("./durable-3qlBTb9V.js");
const require_processes = require("./processes-DeLsQMUX.js");
let node_os = require("node:os");
let node_http = require("node:http");
let node_fs = require("node:fs");
let node_url = require("node:url");
let node_crypto = require("node:crypto");
let node_path = require("node:path");
let node_timers_promises = require("node:timers/promises");
let node_fs_promises = require("node:fs/promises");
let node_net = require("node:net");
let node_worker_threads = require("node:worker_threads");
/** The release reason of a holder that found itself outdated and did not deploy. */
const OUTDATED_REASON = "outdated";
const laneOf = (d) => d?.repository !== void 0 && d.workflow !== void 0 && d.ref !== void 0 && d.runNumber !== void 0 ? {
	lane: JSON.stringify([
		d.repository,
		d.workflow,
		d.ref
	]),
	run: d.runNumber
} : void 0;
/** How a superseded run is told who took its place: the newer run's URL, else its number. */
const describeRun = (d) => d.runUrl ?? `run ${d.runNumber} of ${d.workflow} on ${d.ref} in ${d.repository}`;
/**
* A run joins the queue: the waiters of its lane that asked to step aside and
* are older leave it (marked), and the joiner itself is turned away when it
* asked to step aside and a newer run of its lane already waits.
*/
function supersede(queue, joiner, untilMs) {
	const mine = laneOf(joiner.deploy);
	if (!mine) return {
		queue: [...queue],
		marks: []
	};
	const marks = [];
	let joinerBy;
	const kept = queue.filter((w) => {
		const theirs = laneOf(w.deploy);
		if (!theirs || theirs.lane !== mine.lane || w.actorDid === joiner.actorDid) return true;
		if (theirs.run < mine.run && w.queue === "newest") {
			marks.push({
				actorDid: w.actorDid,
				by: describeRun(joiner.deploy),
				untilMs
			});
			return false;
		}
		if (theirs.run > mine.run && joiner.queue === "newest") joinerBy ??= describeRun(w.deploy);
		return true;
	});
	if (joinerBy !== void 0) marks.push({
		actorDid: joiner.actorDid,
		by: joinerBy,
		untilMs
	});
	return {
		queue: kept,
		marks,
		...joinerBy !== void 0 ? { joinerBy } : {}
	};
}
/** The grant before this one from the same repository, and the list with this grant as live. */
function recordGrant(deploys, deploy) {
	const repository = deploy?.repository;
	if (!deploy || repository === void 0) return { deploys: deploys && [...deploys] };
	const list = deploys ?? [];
	const found = list.find((d) => d.repository === repository);
	const rest = list.filter((d) => d !== found);
	const next = {
		repository,
		live: deploy
	};
	if (found) next.before = found.live;
	return {
		...found ? { previous: found.live } : {},
		deploys: [next, ...rest].slice(0, 32)
	};
}
/**
* A holder gave the lease back as outdated: the grant it made live did not
* deploy, so the repository's live grant is the one before it again.
*/
function undoGrant(deploys, deploy) {
	if (!deploys || deploy?.repository === void 0) return deploys && [...deploys];
	const out = [];
	for (const d of deploys) if (d.repository !== deploy.repository || !sameDeploy(d.live, deploy)) out.push(d);
	else if (d.before) out.push({
		repository: d.repository,
		live: d.before
	});
	return out.length ? out : void 0;
}
/** Field by field: a state read back from jsonb or a ledger line has its keys in another order. */
const sameDeploy = (a, b) => Object.keys(a).every((k) => a[k] === b[k]) && Object.keys(a).length === Object.keys(b).length;
// src/kernel/rules/timing.ts
/**
* The rules' clock constants and the typical hold, in a module of their own so `decide`
* (rules.ts), `lease()` (lease.ts), the ending of a hold (ending.ts) and `replay`
* (replay.ts) read one set of numbers without importing each other.
*/
const DEFAULT_TTL_MS = 3e4;
/** A waiter is dropped when it has not asked again this long after its told wait. */
const WAITER_GRACE_MS = 2e3;
/** A freed resource is kept for the next in line at most this long, whatever others were told. */
const MAX_RESERVATION_MS = 2500;
/** What a lock-delay adds to one renewal interval: the renewal's round trip and a prompt stop. */
const LOCK_DELAY_GRACE_MS = 2e3;
/**
* After a revoke, the resource goes to another agent only once the revoked
* holder gave it back or this long has passed (Chubby's lock-delay). The
* keeper and `run` renew at a third of the lease's time left, so a holder that
* learns of the revoke only from its next renewal learns within `ttlMs / 3`;
* the grace covers that renewal's answer and its command stopping on SIGTERM.
*/
const defaultLockDelayMs = (ttlMs) => Math.min(ttlMs, Math.round(ttlMs / 3) + LOCK_DELAY_GRACE_MS);
/** A frozen resource's waiters ask again this often (or at the freeze's end, if sooner). */
const FROZEN_WAIT_MS = 5e3;
/** The moving average of hold times (weights 0.7 old, 0.3 new), the live rules' and replay's. */
const typical = (before, held) => before === null ? held : .7 * before + .3 * held;
// src/kernel/rules/ending.ts
/**
* How a hold ends and what it leaves behind: the end itself (a release, lapse or
* revoke), its event, the revoke's refusal and lock-delay, the reservation for the
* next in line. Shared by `decide` (rules.ts) and `lease()` (lease.ts).
*/
/**
* Whether a revoke of `revoked` refuses `actorDid`: the same DID, or another DID of the
* same attempt of the same run by `runAttemptKey`, the prefix rule an OIDC token's DID
* check uses: whatever follows the attempt (job, nonce, or any other shape) is ignored,
* so a token cannot step round its revoke by asking under another tail. A rerun (a new
* attempt) is not refused.
*/
function revokeRefuses(revoked, actorDid) {
	if (revoked === actorDid) return true;
	const key = require_cli.runAttemptKey(revoked);
	return key !== void 0 && key === require_cli.runAttemptKey(actorDid);
}
/** Ends the lease; a freed resource is kept for the next in line for a short grace only. */
function end(s, kind, now, events, reason, by) {
	const lease = s.lease;
	s.lease = null;
	const at = kind === "lapse" ? Math.min(now, lease.expiresAtMs) : now;
	s.typicalHoldMs = typical(s.typicalHoldMs, at - lease.grantedAtMs);
	s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
	record(events, kind, lease, now, reason, by);
}
/**
* A freeze (an operator's or a window) ended at `at`. Its waiters kept their places but
* were told to ask again up to FROZEN_WAIT_MS apart, not the next in line's short wait, so
* a free resource is kept for the head of the queue until its place lapses (its told wait
* and the grace; at least the usual reservation): the first in line is granted, whoever
* asks first. A held request is woken by the unfreeze and asks at once. A resource still
* held, or in a lock-delay, is kept for the head when that ends, as always.
*/
function thawed(s, at) {
	const head = s.queue[0];
	if (!head || s.lease || s.lockDelay) return;
	s.reservedUntilMs = Math.max(s.reservedUntilMs, at + MAX_RESERVATION_MS, head.keepUntil);
}
/** A revoke keeps the resource from others until its holder gives it back, at most the lock-delay. */
function holdForGiveBack(s, ended, ctx) {
	const delayMs = ctx.lockDelayMs ?? defaultLockDelayMs(ctx.ttlMs);
	if (delayMs > 0) s.lockDelay = {
		actorDid: ended.holder,
		leaseId: ended.id,
		untilMs: ctx.now + delayMs
	};
}
/** The revoked holder gave it back (or the lock-delay ended): kept for the next in line briefly. */
function gaveBack(s, at) {
	delete s.lockDelay;
	s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
}
function record(events, kind, lease, atMs, reason, by) {
	const event = {
		kind,
		atMs,
		resource: lease.resource,
		actorDid: lease.holder,
		leaseId: lease.id,
		fence: lease.fence
	};
	if (kind === "grant" || kind === "renew") event.expiresAtMs = lease.expiresAtMs;
	if (reason !== void 0) event.reason = reason;
	if (by !== void 0) event.by = by;
	if (kind === "grant" && lease.deploy) event.deploy = lease.deploy;
	events.push(event);
}
const MAX_BREAK_GLASS_MS = 36e5;
/** The reason a withdrawal entry gives, by why it was withdrawn. */
const WITHDRAWN_REPLACED = "replaced by a new break-glass";
/** A pass in force for this agent now (open, approved if it had to be, not expired): its own, or its run's. */
function passFor(s, actorDid, now) {
	const pass = s.breakGlass;
	return pass && !pass.pending && require_run_pass.passCovers(pass.actorDid, actorDid) && pass.untilMs > now ? pass : void 0;
}
/** An expired pass is dropped (nothing recorded: the entry named its end). */
function settleBreakGlass(s, now) {
	if (s.breakGlass && s.breakGlass.untilMs <= now) delete s.breakGlass;
}
function breakGlassCommand(s, command, now, events) {
	if (command.kind === "break_glass") {
		withdrawUsable(s, command.by, WITHDRAWN_REPLACED, now, events);
		const pass = {
			actorDid: command.actorDid,
			reason: command.reason,
			by: command.by,
			untilMs: command.untilMs,
			atMs: now,
			pending: command.needsApproval
		};
		s.breakGlass = pass;
		if (!pass.pending) events.push(breakGlassEvent(s.resource, pass, now));
		return {
			ok: true,
			breakGlass: pass
		};
	}
	const pass = s.breakGlass;
	if (!pass?.pending || pass.actorDid !== command.actorDid) return {
		ok: false,
		reason: "no_break_glass",
		message: `${s.resource} has no break-glass for ${command.actorDid} waiting for approval`
	};
	if (pass.by === command.by) return {
		ok: false,
		reason: "same_operator",
		message: `${command.by} opened this break-glass; another operator must approve it`
	};
	const approved = {
		...pass,
		pending: false,
		approvedBy: command.by
	};
	if (command.approval !== void 0) approved.approval = command.approval;
	s.breakGlass = approved;
	events.push(breakGlassEvent(s.resource, approved, now));
	return {
		ok: true,
		breakGlass: approved
	};
}
function breakGlassEvent(resource, pass, atMs) {
	const event = {
		kind: "break_glass",
		atMs,
		resource,
		actorDid: pass.actorDid,
		leaseId: "",
		fence: 0,
		reason: pass.reason,
		by: pass.by,
		expiresAtMs: pass.untilMs
	};
	if (pass.approvedBy !== void 0) event.approvedBy = pass.approvedBy;
	if (pass.approval !== void 0) event.approval = pass.approval;
	return event;
}
/** An operator's cancel: a usable pass is withdrawn on the ledger; a pending one only forgotten. */
function withdrawBreakGlass(s, command, now, events) {
	const pass = s.breakGlass;
	if (!pass || command.actorDid !== void 0 && pass.actorDid !== command.actorDid) {
		const whose = command.actorDid === void 0 ? "" : ` for ${command.actorDid}`;
		return {
			ok: false,
			reason: "no_break_glass",
			message: `${s.resource} has no unused break-glass${whose} to withdraw`
		};
	}
	if (!withdrawUsable(s, command.by, "cancelled by an operator", now, events)) delete s.breakGlass;
	return {
		ok: true,
		withdrawn: pass
	};
}
/** Withdraws the resource's usable (on the ledger) pass, if any, with its entry. */
function withdrawUsable(s, by, reason, now, events) {
	const pass = s.breakGlass;
	if (!pass || pass.pending) return false;
	delete s.breakGlass;
	events.push({
		kind: "break_glass_withdrawn",
		atMs: now,
		resource: s.resource,
		actorDid: pass.actorDid,
		leaseId: "",
		fence: 0,
		reason,
		by
	});
	return true;
}
/**
* A restart's replay of a break-glass entry (rules.ts `replay`): a pass, usable, replacing
* the last; a withdrawal ends the pass it names (as verify reads it).
*/
function replayBreakGlass(s, e) {
	if (e.kind === "break_glass_withdrawn") {
		if (s.breakGlass?.actorDid === e.actorDid) delete s.breakGlass;
		return;
	}
	s.breakGlass = {
		actorDid: e.actorDid,
		reason: e.reason ?? "",
		by: e.by ?? "",
		untilMs: e.expiresAtMs ?? e.atMs,
		atMs: e.atMs,
		pending: false,
		...e.approvedBy !== void 0 ? { approvedBy: e.approvedBy } : {},
		...e.approval !== void 0 ? { approval: e.approval } : {}
	};
}
// src/kernel/rules/lease.ts
/**
* The `lease` command (grant, renewal, or a place in the queue), pure like the rest of
* the rules: `decide` (rules.ts) calls `lease()` on the settled state. Each step that
* may answer on its own (a revoke's refusal, a superseded run, the failover hold, a
* renewal, a refused promotion, a freeze, a grant) is a named function here, taken in
* the order the rules put them: safety first, then policy, then the queue.
*/
function lease(s, command, ctx, events) {
	const { now } = ctx;
	const { actorDid } = command;
	const refused = revokedReply(s, actorDid, ctx);
	if (refused) return refused;
	const turnedAway = supersededReply(s, command, now + ctx.ttlMs);
	if (turnedAway) return turnedAway;
	if (ctx.failover) return failoverReply(ctx.failover, now);
	const current = s.lease;
	if (current?.holder === actorDid) {
		s.lease = {
			...current,
			expiresAtMs: now + ctx.ttlMs
		};
		record(events, "renew", s.lease, now);
		return {
			ok: true,
			lease: s.lease,
			renewed: true
		};
	}
	const lane = {
		deploy: command.deploy,
		queue: command.queue
	};
	const pass = passFor(s, actorDid, now);
	if (command.unpromoted !== void 0 && !pass) return {
		ok: false,
		reason: "not_promoted",
		message: require_run_pass.unpromotedMessage(command.unpromoted, s.resource, actorDid)
	};
	const freeze = pass ? void 0 : s.frozen ?? ctx.window;
	if (freeze) return frozenWait(s, actorDid, lane, freeze, ctx);
	const reservedFor = s.reservedUntilMs > now && !pass ? s.queue[0]?.actorDid : void 0;
	if (!current && !s.lockDelay && (reservedFor === void 0 || reservedFor === actorDid)) return grant(s, command, ctx, events, pass);
	return heldReply(s, actorDid, lane, ctx, reservedFor);
}
/** A revoked agent (or another DID of its run's attempt) is refused, and asking again keeps it so. */
function revokedReply(s, actorDid, ctx) {
	const mark = s.revoked.find((m) => m.actorDid === actorDid) ?? s.revoked.find((m) => revokeRefuses(m.actorDid, actorDid));
	if (!mark) return void 0;
	const untilMs = Math.max(mark.untilMs, ctx.now + ctx.ttlMs);
	s.revoked = s.revoked.map((m) => m === mark ? {
		...mark,
		untilMs
	} : m);
	return {
		ok: false,
		reason: "revoked",
		holder: s.lease?.holder ?? actorDid,
		message: mark.message,
		...mark.by ? { by: mark.by } : {}
	};
}
/** Frozen: the asker keeps (or takes) its place and asks again at most FROZEN_WAIT_MS later. */
function frozenWait(s, actorDid, lane, freeze, ctx) {
	const { now } = ctx;
	if (ctx.window?.untilMs != null) s.windowUntilMs = ctx.window.untilMs;
	const position = keepPlace(s, actorDid, lane, 0, now);
	const untilMs = freeze.untilMs ?? Infinity;
	const waitMs = Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now)));
	keepPlace(s, actorDid, lane, waitMs, now);
	return require_freeze.frozenReply(freeze, waitMs, position);
}
/** The resource is free for this asker (nobody holds it, no lock-delay, no one else's reservation). */
function grant(s, command, ctx, events, pass) {
	const { now } = ctx;
	const { actorDid } = command;
	s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
	s.reservedUntilMs = 0;
	if (s.breakGlass && !s.breakGlass.pending && require_run_pass.passCovers(s.breakGlass.actorDid, actorDid)) delete s.breakGlass;
	const fence = ctx.nextFence();
	s.lease = {
		id: `lease_${fence.toString(36)}_${randomHex(ctx.random, 8)}`,
		resource: s.resource,
		holder: actorDid,
		expiresAtMs: now + ctx.ttlMs,
		fence,
		grantedAtMs: now
	};
	if (command.deploy) s.lease.deploy = command.deploy;
	const { previous, deploys } = recordGrant(s.deploys, command.deploy);
	s.deploys = deploys;
	record(events, "grant", s.lease, now);
	if (pass) events[events.length - 1].clocked = true;
	if (command.promotedVia !== void 0) events[events.length - 1].promotedVia = command.promotedVia;
	if (command.issuer !== void 0) events[events.length - 1].issuer = command.issuer;
	return {
		ok: true,
		lease: s.lease,
		renewed: false,
		...previous ? { previous } : {}
	};
}
/**
* Held (by the holder; during a lock-delay still the revoked holder's until it gives
* back; or kept for the next in line): the asker keeps its place and is told when to ask again.
*/
function heldReply(s, actorDid, lane, ctx, reservedFor) {
	const { now } = ctx;
	const current = s.lease;
	const delay = s.lockDelay;
	const position = keepPlace(s, actorDid, lane, 0, now);
	const waitMs = waitFor(s, position, current ? current.expiresAtMs - now : delay ? delay.untilMs - now : s.reservedUntilMs - now, ctx);
	keepPlace(s, actorDid, lane, waitMs, now);
	const eta = etaMs(s, position, now);
	const reply = {
		ok: false,
		reason: "lease_held",
		holder: current ? current.holder : delay ? delay.actorDid : reservedFor,
		...current || delay ? {} : { reserved: true },
		stampede: { waitMs },
		position
	};
	if (eta === void 0) return reply;
	const overdue = overdueMs(s, now);
	return overdue === void 0 ? {
		...reply,
		etaMs: eta
	} : {
		...reply,
		etaMs: eta,
		overdueMs: overdue
	};
}
/**
* How long the holder has held past a typical hold, when it has (then `etaMs` only
* counts the waiters ahead): a waiter is told "overdue by 3m", not "about 0ms".
*/
function overdueMs(s, now) {
	const typicalMs = s.typicalHoldMs;
	if (typicalMs === null || !s.lease) return void 0;
	const over = Math.round(now - s.lease.grantedAtMs - typicalMs);
	return over > 0 ? over : void 0;
}
/**
* Refused during the failover hold, renewals too: after an asynchronous failover the row
* may show a lease its holder released (the release was lost) while a lost grant gave the
* resource to another, so "renewing" it would hand it back beside that holder. Nothing is
* changed (no queue place: every lease of the old timeline has lapsed when the hold ends,
* and the waiters ask again then).
*/
function failoverReply(hold, now) {
	const untilMs = hold.untilMs ?? now + 5e3;
	return require_freeze.frozenReply(hold, Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now))), 0);
}
/**
* Puts the agent in the queue (at the back, if new, with its lane) and keeps its
* place `waitMs` + a grace. The refresh keeps the waiter's other fields (its lane).
*/
function keepPlace(s, actorDid, lane, waitMs, now) {
	let position = s.queue.findIndex((w) => w.actorDid === actorDid);
	if (position < 0) {
		s.queue = [...s.queue, {
			actorDid,
			keepUntil: 0,
			sinceMs: now,
			...lane
		}];
		position = s.queue.length - 1;
	}
	if (waitMs > 0) s.queue = s.queue.map((w, i) => i === position ? {
		...w,
		keepUntil: now + waitMs + WAITER_GRACE_MS
	} : w);
	return position;
}
/**
* About how long until this waiter is granted, at recent hold times: what the
* current holder has left of a typical hold (none, if it has held longer), plus
* one typical hold for each waiter ahead. `typicalHoldMs` is a moving average
* (weights 0.7 old, 0.3 new) of how long each past lease on this resource was held,
* from its grant to its release, lapse or revoke. Unknown (undefined) until one has ended.
*/
function etaMs(s, position, now) {
	const typicalMs = s.typicalHoldMs;
	if (typicalMs === null) return void 0;
	const held = s.lease ? now - s.lease.grantedAtMs : typicalMs;
	return Math.round(Math.max(0, typicalMs - held) + position * typicalMs);
}
/**
* The next in line polls briefly, so a handover costs at most one short
* sleep. Those further back cannot be served before the holds ahead of them
* end: they wait about half the typical time of those holds (never less than
* the next in line, jittered so they do not stampede), never past the lease's
* end (or the reservation's).
*/
function waitFor(s, position, boundMs, ctx) {
	const next = ctx.nextInLineWaitMs;
	let wait = next;
	if (position > 0) {
		const ahead = position * (s.typicalHoldMs ?? 0);
		wait = Math.max(next, ahead / 2) * (1 + .2 * ctx.random());
	}
	return Math.max(1, Math.round(Math.min(wait, boundMs)));
}
/**
* A superseded waiter is told so while it keeps asking; a run joining the
* queue supersedes the older waiters of its lane that asked to step aside
* (or is itself turned away). See deploy-order.ts.
*/
function supersededReply(s, { actorDid, deploy, queue }, untilMs) {
	const mark = s.superseded?.find((m) => m.actorDid === actorDid);
	if (mark) {
		s.superseded = s.superseded.map((m) => m === mark ? {
			...mark,
			untilMs
		} : m);
		return {
			ok: false,
			reason: "superseded",
			by: mark.by
		};
	}
	if (!deploy || s.lease?.holder === actorDid || s.queue.some((w) => w.actorDid === actorDid)) return;
	const joined = supersede(s.queue, {
		actorDid,
		deploy,
		queue
	}, untilMs);
	if (joined.marks.length === 0) return void 0;
	s.queue = joined.queue;
	s.superseded = [...s.superseded ?? [], ...joined.marks];
	if (s.queue.length === 0) s.reservedUntilMs = 0;
	return joined.joinerBy === void 0 ? void 0 : {
		ok: false,
		reason: "superseded",
		by: joined.joinerBy
	};
}
function randomHex(random, length) {
	let hex = "";
	while (hex.length < length) hex += Math.floor(random() * 16).toString(16);
	return hex;
}
// src/kernel/rules/replay.ts
/**
* A restart's side of the rules: rebuilding a resource's durable part from the log
* (`replay`) and the rule applied once the log is read (`afterRestart`). Pure, like rules.ts.
*/
/**
* Rebuilds a resource's durable part from one recorded event (a restart's
* replay). Queues are not durable: waiters ask again.
*/
function replay(state, e, ttlMs, lockDelayMs = defaultLockDelayMs(ttlMs)) {
	const s = {
		...state,
		queue: [],
		reservedUntilMs: 0
	};
	if (e.kind === "freeze") s.frozen = {
		reason: e.reason ?? "",
		untilMs: e.expiresAtMs ?? null,
		by: e.actorDid,
		atMs: e.atMs
	};
	else if (e.kind === "unfreeze") delete s.frozen;
	else if (e.kind === "break_glass" || e.kind === "break_glass_withdrawn") replayBreakGlass(s, e);
	else if (e.kind === "grant") {
		if (s.breakGlass && require_run_pass.passCovers(s.breakGlass.actorDid, e.actorDid)) delete s.breakGlass;
		delete s.lockDelay;
		if (s.revoked.length > 0) s.revoked = s.revoked.filter((m) => !revokeRefuses(m.actorDid, e.actorDid));
		s.lease = {
			id: e.leaseId,
			resource: e.resource,
			holder: e.actorDid,
			expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs,
			fence: e.fence,
			grantedAtMs: e.atMs
		};
		if (e.deploy) s.lease.deploy = e.deploy;
		s.deploys = recordGrant(s.deploys, e.deploy).deploys;
	} else if (e.kind === "renew") {
		if (s.lease) s.lease = {
			...s.lease,
			expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs
		};
	} else {
		const held = s.lease ? e.atMs - s.lease.grantedAtMs : null;
		if (held !== null) s.typicalHoldMs = typical(s.typicalHoldMs, held);
		if (e.kind === "release" && e.reason === "outdated") s.deploys = undoGrant(s.deploys, s.lease?.deploy);
		s.lease = null;
		if (e.kind === "revoke") {
			s.revoked = [...s.revoked.filter((m) => m.actorDid !== e.actorDid), {
				actorDid: e.actorDid,
				message: e.reason ?? "",
				untilMs: e.atMs + ttlMs
			}];
			if (lockDelayMs > 0) s.lockDelay = {
				actorDid: e.actorDid,
				leaseId: e.leaseId,
				untilMs: e.atMs + lockDelayMs
			};
		}
	}
	return s;
}
/**
* After a restart, a revoke the log has not seen end refuses its agent one lease lifetime
* from now: the asks that kept the refusal alive before the crash are not logged, and a
* refusal a little too long is safer than a revoke undone. A lock-delay still running in
* the log runs its whole length again from now, so a clock that stepped forward while the
* kernel was down cannot hand the resource on before the revoked holder stopped.
*/
function afterRestart(state, now, ttlMs, lockDelayMs = 0) {
	let next = state;
	if (state.revoked.length > 0) {
		const untilMs = now + ttlMs;
		next = {
			...next,
			revoked: state.revoked.map((m) => ({
				...m,
				untilMs: Math.max(m.untilMs, untilMs)
			}))
		};
	}
	if (state.lockDelay && state.lockDelay.untilMs > now - lockDelayMs) next = {
		...next,
		lockDelay: {
			...state.lockDelay,
			untilMs: Math.max(state.lockDelay.untilMs, now + lockDelayMs)
		}
	};
	return next;
}
// src/kernel/rules/rules.ts
/**
* The plane's rules for one resource, with no I/O: `decide` takes the
* resource's state, a command and a context (the time, the TTL, the next fence,
* randomness) and returns the next state, the reply and the events to record.
* Every store (memory, file, PostgreSQL) keeps states its own way and calls
* this one function, so the rules live in one place.
*/
const emptyState = (resource) => ({
	resource,
	lease: null,
	queue: [],
	reservedUntilMs: 0,
	typicalHoldMs: null,
	revoked: []
});
/** Nothing worth keeping: the store may forget this resource. */
const isIdle = (s) => s.lease === null && s.queue.length === 0 && s.revoked.length === 0 && s.typicalHoldMs === null && s.lockDelay === void 0 && !s.superseded?.length && !s.deploys?.length && !s.frozen && !s.breakGlass && s.windowUntilMs === void 0;
function decide(state, command, ctx) {
	return decideAny(state, command, ctx);
}
function decideAny(state, command, ctx) {
	const events = [];
	const s = settle(state, ctx.now, events);
	switch (command.kind) {
		case "lease": return {
			state: s,
			reply: lease(s, command, ctx, events),
			events
		};
		case "release": return {
			state: s,
			reply: release(s, command, ctx.now, events),
			events
		};
		case "revoke": {
			const ended = s.lease;
			if (ended) {
				end(s, "revoke", ctx.now, events, command.reason, command.by);
				s.reservedUntilMs = 0;
				s.revoked.push({
					actorDid: ended.holder,
					message: command.reason,
					untilMs: ctx.now + ctx.ttlMs,
					...command.by ? { by: command.by } : {}
				});
				s.queue = s.queue.filter((w) => !revokeRefuses(ended.holder, w.actorDid));
				holdForGiveBack(s, ended, ctx);
			}
			return {
				state: s,
				reply: {
					revoked: ended !== null,
					lease: ended
				},
				events
			};
		}
		case "freeze":
		case "unfreeze": {
			const reply = require_freeze.freezeCommand(s, command, ctx.now, events);
			if (command.kind === "unfreeze" && reply.changed) thawed(s, ctx.now);
			return {
				state: s,
				reply,
				events
			};
		}
		case "break_glass":
		case "approve_break_glass": return {
			state: s,
			reply: breakGlassCommand(s, command, ctx.now, events),
			events
		};
		case "withdraw_break_glass": return {
			state: s,
			reply: withdrawBreakGlass(s, command, ctx.now, events),
			events
		};
		case "status": return {
			state: s,
			reply: {
				lease: s.lease,
				frozen: s.frozen ?? ctx.window ?? null
			},
			events
		};
		case "expire": return {
			state: s,
			reply: null,
			events
		};
		case "leave":
			s.queue = s.queue.filter((w) => w.actorDid !== command.actorDid);
			if (s.queue.length === 0) s.reservedUntilMs = 0;
			return {
				state: s,
				reply: null,
				events
			};
	}
}
/** The earliest time at which `expire` would change this state, for the alarm. */
function nextDeadline(s) {
	let next = s.lease?.expiresAtMs;
	const consider = (at) => {
		if (next === void 0 || at < next) next = at;
	};
	for (const w of s.queue) consider(w.keepUntil + 1);
	for (const m of s.revoked) consider(m.untilMs + 1);
	for (const m of s.superseded ?? []) consider(m.untilMs + 1);
	if (s.reservedUntilMs > 0) consider(s.reservedUntilMs);
	if (s.lockDelay) consider(s.lockDelay.untilMs);
	if (s.frozen?.untilMs != null) consider(s.frozen.untilMs);
	if (s.windowUntilMs !== void 0) consider(s.windowUntilMs);
	if (s.breakGlass) consider(s.breakGlass.untilMs);
	return next;
}
/** A copy with lapses, departed waiters, and old marks and reservations applied. */
function settle(state, now, events) {
	const s = {
		...state,
		queue: state.queue.filter((w) => w.keepUntil >= now),
		revoked: state.revoked.filter((m) => m.untilMs > now)
	};
	if (state.superseded) s.superseded = state.superseded.filter((m) => m.untilMs > now);
	if (s.lease && s.lease.expiresAtMs <= now) end(s, "lapse", now, events);
	if (s.lockDelay && s.lockDelay.untilMs <= now) gaveBack(s, s.lockDelay.untilMs);
	if (s.frozen) {
		const endedAt = require_freeze.settleFreeze(s, now, events);
		if (endedAt !== void 0) thawed(s, endedAt);
	}
	if (s.windowUntilMs !== void 0 && s.windowUntilMs <= now) {
		const endedAt = s.windowUntilMs;
		delete s.windowUntilMs;
		thawed(s, endedAt);
	}
	if (s.reservedUntilMs > 0 && (s.reservedUntilMs <= now || s.queue.length === 0)) s.reservedUntilMs = 0;
	settleBreakGlass(s, now);
	return s;
}
function release(s, { actorDid, outdated }, now, events) {
	s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
	if (s.lockDelay?.actorDid === actorDid) gaveBack(s, now);
	const current = s.lease;
	if (current?.holder !== actorDid) return {
		ok: true,
		released: false,
		releasedIds: []
	};
	if (outdated) s.deploys = undoGrant(s.deploys, current.deploy);
	end(s, "release", now, events, outdated ? OUTDATED_REASON : void 0);
	return {
		ok: true,
		released: true,
		releasedIds: [current.id]
	};
}
// src/kernel/rules/work.ts
function workFor(resource, command) {
	let last;
	return {
		resource,
		command,
		decide(state, ctx) {
			last = decide(state, command, ctx);
			return last;
		},
		reply() {
			if (!last) throw new require_cli.InternalError(`the ${command.kind} on ${resource} was never decided`);
			return last.reply;
		}
	};
}
/**
* The one decide loop every backend runs: each command in order on the state
* the one before it on its resource left (`load` gives the stored one first).
* Pure: the caller loads states, gives each resource's rule context, and keeps
* the result its own way.
*/
function decideBatch(work, load, context) {
	const states = /* @__PURE__ */ new Map();
	const loaded = /* @__PURE__ */ new Map();
	const durable = /* @__PURE__ */ new Set();
	const decisions = work.map((item) => {
		const { resource } = item;
		let before = states.get(resource);
		if (!before) {
			before = load(resource);
			loaded.set(resource, before);
		}
		const decision = item.decide(before, context(resource));
		states.set(resource, decision.state);
		if (decision.events.length > 0) durable.add(resource);
		return decision;
	});
	const changed = new Set(durable);
	for (const [resource, state] of states) if (JSON.stringify(state) !== JSON.stringify(loaded.get(resource))) changed.add(resource);
	return {
		decisions,
		states,
		durable,
		changed
	};
}
/** The one rule context of every backend: the settings at `now`, fences from `nextFence`. */
function ruleContext(settings, resource, now, nextFence, failover) {
	return {
		now,
		ttlMs: settings.ttlMs,
		nextInLineWaitMs: settings.nextInLineWaitMs,
		lockDelayMs: settings.lockDelayMs,
		nextFence,
		random: settings.random,
		window: settings.window?.(resource, now),
		...failover ? { failover } : {}
	};
}
// src/kernel/rules/core.ts
/**
* Every resource's state and the fence counter, in memory, with no I/O:
* `decide` computes a change without keeping it, `put` keeps it. The service
* puts a decision only once it is durable.
*/
var ResourceTable = class {
	ttlMs;
	nextInLineWaitMs;
	lockDelayMs;
	random;
	window;
	/** The last fence taken (durable or not: fences never go back, gaps are fine). */
	fence = 0;
	states = /* @__PURE__ */ new Map();
	constructor(options = {}) {
		this.ttlMs = options.ttlMs ?? 3e4;
		this.nextInLineWaitMs = options.nextInLineWaitMs ?? 500;
		this.lockDelayMs = options.lockDelayMs ?? defaultLockDelayMs(this.ttlMs);
		this.random = options.random ?? Math.random;
		this.window = options.window;
	}
	get(resource) {
		return this.states.get(resource) ?? emptyState(resource);
	}
	decide(resource, command, now) {
		return decide(this.get(resource), command, this.context(resource, now));
	}
	/** The rules' context for one resource at `now`, taking fences from this table. */
	context(resource, now) {
		return ruleContext(this, resource, now, () => this.fence += 1);
	}
	put(state) {
		if (isIdle(state)) this.states.delete(state.resource);
		else this.states.set(state.resource, state);
	}
	values() {
		return this.states.values();
	}
	get size() {
		return this.states.size;
	}
};
// src/kernel/http/names.ts
/**
* The names this kernel answers to, and the origins it calls its own. A
* request's `Host` must be a loopback name (127.0.0.0/8, [::1], localhost),
* the address it listens on, or a host of a `--public-url`: a web page that
* rebinds its own name to 127.0.0.1 sends its own name as `Host`, and is
* answered 421. Any port is accepted, so a TCP proxy or port mapping in front
* works; a port does not make a name ours or not. A change must come from one
* of our own origins: `http://` + a loopback or listen `Host` (the page this
* kernel served there), or a `--public-url` origin exactly (`https://` behind
* a TLS proxy).
*/
var KernelNames = class {
	hostnames = /* @__PURE__ */ new Set();
	origins = /* @__PURE__ */ new Set();
	listenHostname;
	constructor(publicUrls = []) {
		for (const raw of publicUrls) {
			const url = parsePublicUrl(raw);
			if (!url) throw new require_cli.InternalError(`not a public URL: ${raw}`);
			this.hostnames.add(url.hostname);
			this.origins.add(url.origin);
		}
	}
	/** Told once the server listens (its URL, as `http://127.0.0.1:8787`). */
	listening(url) {
		this.listenHostname = new URL(url).hostname;
	}
	/** Whether `Host` names this kernel. No `Host` at all (HTTP/1.0) is no browser's. */
	hostAllowed(host) {
		if (host === void 0) return true;
		const hostname = hostnameOf(host);
		return hostname !== void 0 && (this.isDirect(hostname) || this.hostnames.has(hostname));
	}
	/** Whether `origin` is one of this kernel's own, for a request that came with `host`. */
	originAllowed(origin, host) {
		if (this.origins.has(origin)) return true;
		if (host === void 0) return false;
		const hostname = hostnameOf(host);
		return hostname !== void 0 && this.isDirect(hostname) && origin === `http://${host}`;
	}
	/** The origins a change may come from, for a message. */
	describe(host) {
		const own = host !== void 0 && this.hostAllowed(host) ? [`http://${host}`] : [];
		return [.../* @__PURE__ */ new Set([...own, ...this.origins])].join(", ") || "this kernel\u2019s own";
	}
	isDirect(hostname) {
		return require_cli.isLoopbackHost(hostname) || hostname === this.listenHostname;
	}
};
/** `--public-url`: an http(s) origin, nothing after it but an optional `/`. */
function parsePublicUrl(raw) {
	let url;
	try {
		url = new URL(raw);
	} catch {
		return;
	}
	const plain = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
	return (url.protocol === "https:" || url.protocol === "http:") && plain ? url : void 0;
}
const PUBLIC_URL_FORM = "an http:// or https:// origin such as https://gate.example (no path, query or credentials)";
/** The hostname of a `Host` header (lower case, IPv6 in brackets), or undefined when malformed. */
function hostnameOf(host) {
	if (!/^[A-Za-z0-9.\-[\]:]{1,300}$/.test(host)) return void 0;
	try {
		return new URL(`http://${host}`).hostname || void 0;
	} catch {
		return;
	}
}
const FIRST_RETRY_MS = 1e3;
var HealthCheckError = class extends require_cli.LeaseGateError {
	name = "HealthCheckError";
};
/**
* `RESOURCE=URL`, as `--health-check` takes it: the URL https:, or http: on
* loopback only (a check's answer decides whether production may be deployed).
*/
function parseHealthCheck(spec) {
	const form = `RESOURCE=URL: the resource ${require_cli.RESOURCE_FORM} (a name without ':' is lock:deploy/NAME, as --promote takes it), the URL https:// (or http:// on loopback)`;
	const at = spec.indexOf("=");
	const resource = at > 0 ? require_checkpoint.resourceOf(spec.slice(0, at)) : "";
	let url;
	try {
		url = new URL(spec.slice(at + 1));
	} catch {
		url = void 0;
	}
	const plainOk = url?.protocol === "http:" && require_cli.isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ""));
	if (!require_cli.RESOURCE_PATTERN.test(resource) || !url || !(url.protocol === "https:" || plainOk)) throw new HealthCheckError(`Invalid --health-check '${shown$1(spec)}'. Expected ${form}.`, { code: "health_check" });
	return {
		resource,
		url: url.toString()
	};
}
const shown$1 = (spec) => {
	const at = spec.indexOf("=");
	return at < 0 ? require_cli.urlForDisplay(spec) : `${spec.slice(0, Math.min(at, 200))}=${require_cli.urlForDisplay(spec.slice(at + 1))}`;
};
/**
* The check's URL credentials (`https://user:pass@host/\u2026`), sent as HTTP Basic: the URL
* as given is what the operator asked for, and it goes only to the check's own origin,
* over https: or to loopback (parseHealthCheck). The client sends no userinfo itself.
*/
function basicAuth(raw) {
	const url = new URL(raw);
	if (!url.username && !url.password) return {};
	const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
	return { authorization: `Basic ${Buffer.from(pair, "utf8").toString("base64")}` };
}
var HealthChecks = class {
	options;
	statuses;
	stop = new AbortController();
	loops = [];
	constructor(options) {
		this.options = options;
		this.statuses = options.checks.map((c) => ({
			resource: c.resource,
			url: require_cli.urlForDisplay(c.url),
			healthy: null,
			reason: null,
			checkedAtMs: null,
			nextAtMs: null
		}));
	}
	/** Starts polling every check against `service`; the returned health joins the overview. */
	attach(service) {
		this.loops = this.options.checks.map((check, i) => this.poll(service, check, this.statuses[i]));
		return { health: () => ({ healthChecks: this.statuses.map((s) => ({ ...s })) }) };
	}
	async close() {
		this.stop.abort();
		await Promise.all(this.loops);
	}
	async poll(service, check, status) {
		const { intervalMs, now, sleep } = this.options;
		let failures = 0;
		while (!this.stop.signal.aborted) {
			const result = await this.probe(check.url);
			if (this.stop.signal.aborted) return;
			const changed = result.healthy !== status.healthy;
			Object.assign(status, {
				...result,
				checkedAtMs: now()
			});
			if (changed) await this.act(service, check.resource, result).catch((error) => {
				status.healthy = null;
				this.options.log(`health check of ${check.resource}: could not apply "${result.reason}": ${require_cli.causeText(error)}`);
			});
			failures = result.healthy ? 0 : failures + 1;
			const wait = result.healthy ? intervalMs : Math.min(intervalMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
			status.nextAtMs = now() + wait;
			await sleep(wait, this.stop.signal).catch(() => void 0);
		}
	}
	/** One GET: 2xx is healthy; anything else, or no answer in time, is not. */
	async probe(url) {
		const timeoutMs = this.options.timeoutMs ?? 5e3;
		const where = require_cli.urlForDisplay(url);
		try {
			const answer = await this.options.http.send({
				method: "GET",
				url,
				headers: basicAuth(url),
				timeoutMs,
				signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(timeoutMs * 2)])
			});
			if (answer.status >= 200 && answer.status < 300) return {
				healthy: true,
				reason: `${where} answered ${answer.status}`
			};
			return {
				healthy: false,
				reason: `${where} answered ${answer.status}`
			};
		} catch (error) {
			return {
				healthy: false,
				reason: `${where} did not answer: ${(error instanceof require_cli.HttpError ? error.detail : "the request failed").slice(0, 200)}`
			};
		}
	}
	async act(service, resource, result) {
		if (result.healthy) {
			if ((await service.unfreeze(resource, "health-check", {
				ifBy: "health-check",
				reason: `the health check passed: ${result.reason}`
			})).changed) this.options.log(`health check of ${resource} passed: grants resume`);
			return;
		}
		const held = this.options.freezeHeld && await service.status(resource) !== null;
		if ((held ? await service.freeze(resource, `${result.reason} while it was held`, null, "health-check:held", { replaces: ["health-check"] }) : await service.freeze(resource, result.reason, null, "health-check", { replaces: [] })).changed) this.options.log(`health check of ${resource} failed (${result.reason}): ${held ? "frozen until an operator unfreezes it" : "grants held"}`);
	}
};
// src/kernel/auth/policy-claims.ts
/** Its own module so mappings.ts and policy.ts both read it without importing each other. */
/** The claims of GitHub's tokens a rule may test; anything else is a typo, refused at start. */
const POLICY_CLAIMS = [
	"sub",
	"repository",
	"repository_owner",
	"repository_id",
	"repository_owner_id",
	"repository_visibility",
	"ref",
	"ref_type",
	"ref_protected",
	"environment",
	"job_workflow_ref",
	"workflow_ref",
	"workflow",
	"event_name",
	"actor",
	"actor_id",
	"runner_environment",
	"base_ref",
	"head_ref"
];
// src/kernel/auth/refusal.ts
/**
* A credential refused (401), a caller acting beyond its credential (403
* `not_your_did`, `not_allowed`), or an issuer that cannot be reached (503):
* answered `{ ok: false, reason, message }`.
*/
var AuthRefusal = class extends require_cli.LeaseGateError {
	name = "AuthRefusal";
	status;
	/** The answer's `reason` (`unauthorized`, `not_your_did`, \u2026): the wire's word for the kind. */
	reason;
	constructor(message, options) {
		super(message, {
			...require_cli.causeOf(options.cause),
			code: "auth_refusal"
		});
		this.status = options.status;
		this.reason = options.reason;
	}
};
// src/kernel/auth/mappings.ts
const CIRCLE = "oidc.circleci.com/";
const circle = (names) => names.map((n) => `${CIRCLE}${n}`);
/** The claims a policy rule of an issuer of each kind may test; custom: its configured list. */
const CLAIMS_BY_KIND = {
	github: POLICY_CLAIMS,
	gitlab: [
		...[
			"sub",
			"namespace_id",
			"namespace_path",
			"project_id",
			"project_path",
			"user_id"
		],
		...[
			"user_login",
			"user_email",
			"user_access_level",
			"pipeline_id",
			"pipeline_source"
		],
		...[
			"job_id",
			"ref",
			"ref_type",
			"ref_path",
			"ref_protected",
			"environment"
		],
		...[
			"environment_protected",
			"deployment_tier",
			"deployment_action",
			"runner_id"
		],
		...[
			"runner_environment",
			"sha",
			"ci_config_ref_uri",
			"ci_config_sha",
			"project_visibility"
		],
		...[
			"job_project_id",
			"job_project_path",
			"job_namespace_id",
			"job_namespace_path"
		]
	],
	circleci: [
		"sub",
		...circle([
			"org-id",
			"project-id",
			"pipeline-id",
			"pipeline-definition-id",
			"workflow-id"
		]),
		...circle([
			"job-id",
			"vcs-origin",
			"vcs-ref",
			"context-ids",
			"ssh-rerun"
		])
	],
	buildkite: [
		...[
			"sub",
			"organization_slug",
			"organization_id",
			"pipeline_slug",
			"pipeline_id"
		],
		...[
			"build_number",
			"build_branch",
			"build_tag",
			"build_commit",
			"build_source",
			"step_key"
		],
		...[
			"job_id",
			"agent_id",
			"cluster_id",
			"cluster_name",
			"queue_id",
			"queue_key"
		],
		"runner_environment"
	]
};
function policyClaimsOf(spec) {
	return spec.kind === "custom" ? ["sub", ...spec.claims ?? []] : CLAIMS_BY_KIND[spec.kind];
}
/** The kinds whose tokens say whether the ref is protected (`protectedRef` rules). */
const PROTECTED_REF_KINDS = ["github", "gitlab"];
const refused = (message) => new AuthRefusal(message, {
	status: 401,
	reason: "unauthorized"
});
/** The repository a job's project maps to, or its own owner/repo-shaped name. */
function repositoryOf(spec, claims) {
	const text = (name) => require_cli.claimText(claims, name);
	const mapped = (...keys) => keys.map((k) => k === void 0 ? void 0 : spec.repositories.get(k)).find(Boolean);
	const fits = (value) => value && require_cli.parseRepository(value) ? value : void 0;
	switch (spec.kind) {
		case "github": return text("repository") ?? "";
		case "gitlab": return mapped(require_cli.gitlabProjectId(claims), text("project_path")) ?? fits(text("project_path")) ?? "";
		case "circleci": {
			const origin = /^[^/]+\/([^/]+\/[^/]+?)(?:\.git)?$/.exec(text(`${CIRCLE}vcs-origin`) ?? "");
			return mapped(text(`${CIRCLE}project-id`)) ?? fits(origin?.[1]) ?? "";
		}
		case "buildkite": {
			const slugs = `${text("organization_slug") ?? ""}/${text("pipeline_slug") ?? ""}`;
			return mapped(slugs) ?? fits(slugs) ?? "";
		}
		case "custom": {
			const claim = spec.deploy?.repository;
			const value = claim ? text(claim) : void 0;
			return (value && mapped(value)) ?? fits(value) ?? "";
		}
	}
}
/** The job a verified token of `spec` names; 401 when its claims name none in the accepted forms. */
function jobIdentity(spec, claims) {
	const issuer = {
		name: spec.name,
		kind: spec.kind,
		url: spec.url
	};
	const text = (name) => require_cli.claimText(claims, name) ?? "";
	if (spec.kind === "buildkite") {
		const org = spec.organization ?? "";
		if (text("organization_slug") !== org && text("organization_id") !== org) throw refused(`The OIDC token verified but is of the Buildkite organization ${JSON.stringify(text("organization_slug").slice(0, 100))}; issuer ${spec.name} accepts only ${org}'s.`);
	}
	const didPrefix = require_cli.jobDidPrefix(spec.kind, claims, spec.didHost, spec.did);
	if (didPrefix === void 0) throw refused(spec.kind === "github" ? "The OIDC token verified but names no GitHub Actions run (its repository, run_id and run_attempt claims), so the kernel cannot tell which DIDs it may act as." : `The OIDC token of issuer ${spec.name} verified but names no ${spec.kind} job (${jobClaims(spec)}), so the kernel cannot tell which DIDs it may act as.`);
	const repository = repositoryOf(spec, claims);
	const of = repository || spec.name;
	const [runId, attempt, described] = {
		github: [
			text("run_id"),
			text("run_attempt"),
			`run ${text("run_id")} (attempt ${text("run_attempt")}) of ${repository}`
		],
		gitlab: [
			text("pipeline_id"),
			"",
			`GitLab job ${text("job_id")} of pipeline ${text("pipeline_id")} of ${text("project_path")}`
		],
		circleci: [
			text(`${CIRCLE}workflow-id`),
			"",
			`CircleCI job ${text(`${CIRCLE}job-id`)} of ${of}`
		],
		buildkite: [
			text("build_number"),
			"",
			`Buildkite job ${text("job_id")} of build ${text("build_number")} of ${text("organization_slug")}/${text("pipeline_slug")}`
		],
		custom: [
			"",
			"",
			`a job of issuer ${spec.name} (${didPrefix})`
		]
	}[spec.kind];
	return {
		issuer,
		repository,
		runId,
		attempt,
		didPrefix,
		described
	};
}
const jobClaims = (spec) => ({
	github: "repository, run_id, run_attempt",
	gitlab: "project_id or job_project_id, pipeline_id, job_id",
	circleci: "oidc.circleci.com/org-id, project-id, job-id",
	buildkite: "organization_slug, pipeline_slug, build_number, job_id",
	custom: `the claims of its DID template ${spec.did ?? ""}`
})[spec.kind];
/**
* The deploy values a token vouches for, per field (the first recorded when none is sent);
* a field left empty is taken as sent, i.e. believed (docs/ci-issuers.md says which).
*/
function deployValues(spec, claims, job) {
	const text = (name) => require_cli.claimText(claims, name);
	const whole = (name) => {
		const value = text(name);
		return value && /^[1-9]\d{0,12}$/.test(value) ? Number(value) : void 0;
	};
	const repository = [job.repository || void 0];
	const none = {
		repository: [],
		workflow: [],
		ref: [],
		commit: [],
		runNumber: [],
		runAttempt: [],
		runUrl: []
	};
	switch (spec.kind) {
		case "github": return none;
		case "gitlab": {
			const config = /\/\/(.+)@[^@]*$/.exec(text("ci_config_ref_uri") ?? "")?.[1];
			const project = text("project_path");
			const pipeline = text("pipeline_id");
			const refPath = text("ref_path") ?? (text("ref") ? `refs/${text("ref_type") === "tag" ? "tags" : "heads"}/${text("ref")}` : void 0);
			return {
				...none,
				repository,
				workflow: [config],
				ref: [refPath],
				commit: [text("sha")],
				runNumber: [whole("pipeline_id")],
				runUrl: project && pipeline ? [`${spec.url}/${project}/-/pipelines/${pipeline}`] : []
			};
		}
		case "circleci": return {
			...none,
			repository,
			workflow: [text(`${CIRCLE}pipeline-definition-id`)],
			ref: [text(`${CIRCLE}vcs-ref`)]
		};
		case "buildkite": {
			const tag = text("build_tag");
			const branch = text("build_branch");
			const slugs = `${text("organization_slug") ?? ""}/${text("pipeline_slug") ?? ""}`;
			const build = whole("build_number");
			return {
				...none,
				repository,
				workflow: [text("pipeline_slug")],
				ref: [tag ? `refs/tags/${tag}` : branch ? `refs/heads/${branch}` : void 0],
				commit: [text("build_commit")],
				runNumber: [build],
				runUrl: build ? [`https://buildkite.com/${slugs}/builds/${build}`] : []
			};
		}
		case "custom": {
			const out = {
				...none,
				repository
			};
			for (const [field, claim] of Object.entries(spec.deploy ?? {})) {
				if (field === "repository") continue;
				out[field] = [field === "runNumber" || field === "runAttempt" ? whole(claim) : text(claim)];
			}
			return out;
		}
	}
}
/**
* Refusals built into a kind, whatever the rules say (a rule may lift the fork one):
* CircleCI tokens of an SSH rerun (a person at a shell holds the job's token, as PyPI
* refuses them); GitLab merge-request pipelines of a fork's code (`job_project_id` not
* `project_id`, or an MR pipeline whose token cannot tell). The claim named, or undefined.
*/
function builtInRefusal(kind, claims, allowForks) {
	if (kind === "circleci" && /^true$/i.test(String(claims[`${CIRCLE}ssh-rerun`]))) return {
		claim: `${CIRCLE}ssh-rerun`,
		why: "an SSH rerun: someone at a shell holds this job's token, so it is refused"
	};
	if (kind === "gitlab" && !allowForks) {
		const job = require_cli.claimText(claims, "job_project_id");
		const project = require_cli.claimText(claims, "project_id");
		if (job !== void 0 && project !== void 0 && job !== project) return {
			claim: "job_project_id",
			why: `a pipeline of project ${project}'s code (a fork) running in project ${job}: refused unless the rule says "allowForks": true`
		};
		if (job === void 0 && require_cli.claimText(claims, "pipeline_source") === "merge_request_event") return {
			claim: "pipeline_source",
			why: "a merge-request pipeline whose token has no job_project_id, so it may be a fork's: refused unless the rule says \"allowForks\": true"
		};
	}
}
// src/kernel/auth/deploy-claims.ts
/** The values the claims allow for each field, the first being the one recorded when none is sent. */
function vouched(claims, run, issuer) {
	const out = {};
	const values = issuer.kind === "github" ? github(claims, run, issuer.didHost) : deployValues(issuer, claims, run);
	for (const [field, list] of Object.entries(values)) out[field] = list.filter((v) => v !== void 0 && require_cli.deploySchema.safeParse({ [field]: v }).success);
	return out;
}
/** GitHub's mapping (the comment above). */
function github(claims, run, didHost) {
	const text = (name) => typeof claims[name] === "string" ? claims[name] : void 0;
	const whole = (name) => {
		const value = text(name);
		return value && /^[1-9]\d{0,12}$/.test(value) ? Number(value) : void 0;
	};
	const prefix = `${run.repository}/`;
	const workflowRef = text("workflow_ref") ?? "";
	const at = workflowRef.lastIndexOf("@");
	const workflowFile = workflowRef.startsWith(prefix) && at > prefix.length ? workflowRef.slice(prefix.length, at) : void 0;
	const path = [
		run.repository,
		"actions",
		"runs",
		run.runId,
		"attempts",
		run.attempt
	].join("/");
	return {
		repository: [run.repository],
		workflow: [workflowFile],
		ref: [text("ref")],
		commit: [text("sha")],
		runNumber: [whole("run_number")],
		runAttempt: [Number(run.attempt)],
		runUrl: [`https://${didHost}/${path}`, `https://${didHost}/${path.replace(/\/attempts\/\d+$/, "")}`]
	};
}
const pullRequest = (claims) => typeof claims.event_name === "string" && claims.event_name.startsWith("pull_request");
/** The fields a token's claims cannot vouch for on this event, taken as sent (see above). */
const takenAsSent = (claims, vouched) => pullRequest(claims) && !vouched ? /* @__PURE__ */ new Set(["commit"]) : /* @__PURE__ */ new Set();
/**
* The deploy to record for a lease asked with an OIDC token: `sent` checked field by
* field against the claims and completed from them. Undefined when none was sent (the
* run asked for no deploy order). Throws `403 not_your_deploy` naming the first field
* that disagrees. `mustVouch`: a resource of the promotion order (no field taken as sent).
*/
function deployOfRun(sent, claims, run, issuer, mustVouch = false) {
	if (!sent) return void 0;
	const allowed = vouched(claims, run, issuer);
	if (mustVouch && sent.commit !== void 0 && allowed.commit.length === 0) throw new AuthRefusal(`This token is ${run.described}: its claims name no commit (${issuer.kind} tokens carry none), so deploy.commit ${shown(sent.commit)} would be believed, not vouched for; on a resource of the promotion order a hold marks its commit as having completed a step, so the commit must come from the token.`, {
		status: 403,
		reason: "not_your_deploy"
	});
	if (issuer.kind !== "github" && sent.repository !== void 0 && !allowed.repository.length) throw new AuthRefusal(`This token is ${run.described}: its claims name no repository (owner/repo), so deploy.repository ${shown(sent.repository)} would be believed, and would let it into that repository's deploy order and promotion order. Map its project to the repository in issuer ${issuer.name}'s "repositories" (docs/ci-issuers.md), or send no deploy.repository.`, {
		status: 403,
		reason: "not_your_deploy"
	});
	const asSent = issuer.kind === "github" ? takenAsSent(claims, mustVouch) : new Set(require_cli.DEPLOY_FIELDS.filter((field) => allowed[field].length === 0));
	const out = {};
	for (const field of require_cli.DEPLOY_FIELDS) {
		const value = sent[field];
		if (asSent.has(field)) {
			if (value !== void 0) out[field] = value;
			continue;
		}
		const values = allowed[field];
		if (value !== void 0 && values.length > 0 && !values.includes(value)) throw new AuthRefusal(`This token is ${run.described}: its deploy.${field} is ${values.map(shown).join(" or ")}, not ${shown(value)}. On this kernel a run's deploy fields come from its OIDC token${field === "commit" && pullRequest(claims) ? ", a pull request run's commit too on a resource of the promotion order (a hold there marks its commit as having completed a step)" : ""}.`, {
			status: 403,
			reason: "not_your_deploy"
		});
		const recorded = value !== void 0 && values.length > 0 ? value : values[0];
		if (recorded !== void 0) out[field] = recorded;
	}
	return out;
}
/** A value for a message: validated by the deploy schema already (one line, bounded); quoted. */
const shown = (value) => typeof value === "number" ? String(value) : JSON.stringify(value.slice(0, 300));
// src/kernel/auth/issuers.ts
/** Verifiers for `specs`; jose is loaded here, only when OIDC is on. */
async function startIssuers(specs, http) {
	const { createOidcVerifier } = await Promise.resolve().then(() => require("./oidc-BIAx-Lh-.js"));
	return specs.map((spec) => ({
		...spec,
		verifier: createOidcVerifier({
			issuer: spec.url,
			audience: spec.audience,
			http
		})
	}));
}
function issuerSet(issuers) {
	const byUrl = new Map(issuers.map((issuer) => [issuer.url, issuer]));
	const names = issuers.map((i) => `${i.name} (${i.url})`).join(", ");
	return {
		issuers,
		async verify(token) {
			const iss = unverifiedIssuer(token);
			const issuer = iss === void 0 ? void 0 : byUrl.get(iss.replace(/\/+$/, ""));
			if (!issuer) throw new AuthRefusal(`The OIDC token ${iss === void 0 ? "names no issuer" : `is of ${JSON.stringify(iss.slice(0, 200))}`}; this kernel accepts tokens of ${names}.`, {
				status: 401,
				reason: "unauthorized"
			});
			const claims = await issuer.verifier.verify(token);
			return {
				issuer,
				claims,
				run: jobIdentity(issuer, claims)
			};
		}
	};
}
/** The `iss` a compact JWS's payload says, unverified: only to pick the verifier. */
function unverifiedIssuer(token) {
	const payload = token.split(".")[1] ?? "";
	try {
		const iss = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))?.iss;
		return typeof iss === "string" ? iss : void 0;
	} catch {
		return;
	}
}
// src/kernel/auth/authorize.ts
const OPEN$1 = { kind: "open" };
const SHARED = { kind: "shared-key" };
const digest$1 = (value) => (0, node_crypto.createHash)("sha256").update(value).digest();
/** Three base64url parts: what a JWS in compact form looks like. */
const JWT_SHAPE$1 = /^[\w-]+\.[\w-]*\.[\w-]*$/;
/** One GitHub-kind issuer named github, for the `{ verifier, didHost }` form. */
function setOf(oidc) {
	if ("issuers" in oidc) return oidc.issuers;
	const { verifier, didHost } = oidc;
	return issuerSet([{
		name: "github",
		kind: "github",
		url: verifier.issuer,
		audience: "",
		didHost,
		repositories: /* @__PURE__ */ new Map(),
		verifier
	}]);
}
function createAuthorizer(options) {
	const { key, keys, oidc } = options;
	const issuers = oidc ? setOf(oidc) : void 0;
	const byName = new Map(issuers?.issuers.map((i) => [i.name, i]));
	const required = Boolean(key || keys || oidc);
	const keyDigest = key ? digest$1(key) : void 0;
	async function authorize(headers) {
		if (!required) return OPEN$1;
		const header = headers.authorization ?? "";
		const bearer = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
		if (bearer) {
			if (keyDigest && (0, node_crypto.timingSafeEqual)(digest$1(bearer), keyDigest)) return SHARED;
			const scoped = keys?.find(bearer);
			if (scoped) return {
				kind: "scoped-key",
				key: scoped
			};
			if (issuers && bearer.length <= 16384 && JWT_SHAPE$1.test(bearer)) {
				const { claims, run } = await issuers.verify(bearer);
				return {
					kind: "oidc",
					claims,
					run,
					issuer: run.issuer
				};
			}
		}
		throw new AuthRefusal(expected(options, issuers), {
			status: 401,
			reason: "unauthorized"
		});
	}
	function mayActAs(principal, act) {
		if (principal.kind === "oidc") {
			const { run } = principal;
			if (!act.actorDid.startsWith(run.didPrefix)) throw new AuthRefusal(`This token is ${run.described}: it may act only as DIDs under ${run.didPrefix}, not as ${act.actorDid}.`, {
				status: 403,
				reason: "not_your_did"
			});
			if (act.action === "lease") oidc?.policy.check(principal.claims, act.resource, principal.issuer);
			return;
		}
		if (principal.kind === "scoped-key") {
			const scoped = principal.key;
			if (!scoped.actors(act.actorDid)) throw new AuthRefusal(`Key "${scoped.name}" may act only as ${scoped.actorPatterns.join(" or ")}, not as ${act.actorDid}.`, {
				status: 403,
				reason: "not_your_did"
			});
			if (act.action === "lease" && !scoped.resources(act.resource)) throw new AuthRefusal(`Key "${scoped.name}" may lease only ${scoped.resourcePatterns.join(" or ")}, not ${act.resource}.`, {
				status: 403,
				reason: "not_allowed"
			});
		}
	}
	function deployOf(principal, deploy, vouched = false) {
		const issuer = principal.kind === "oidc" ? byName.get(principal.issuer.name) : void 0;
		if (principal.kind !== "oidc" || !issuer) return deploy;
		return deployOfRun(deploy, principal.claims, principal.run, issuer, vouched);
	}
	return {
		required,
		authorize,
		mayActAs,
		deployOf
	};
}
function expected(options, issuers) {
	return `This kernel needs ${[
		options.key ? "its key (LEASE_GATE_KERNEL_KEY)" : "",
		options.keys ? "a key from its keys file" : "",
		issuers ? `an OIDC ID token from ${issuers.issuers.map((i) => i.url).join(" or ")}` : ""
	].filter(Boolean).join(" or ")} as a Bearer token.`;
}
// src/kernel/auth/file.ts
/** Policy and keys files are small; anything bigger is a mistake. */
const MAX_FILE_BYTES = 1048576;
/** A policy or keys file that cannot be used: the message names the file, the line or the entry. */
var AuthFileError = class extends require_cli.LeaseGateError {
	name = "AuthFileError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "auth_file"
		});
	}
};
/** Reads a JSON file and checks it against `schema`; errors name the line (syntax) or the entry (shape). */
function readJsonFile(file, schema, describe) {
	let text;
	try {
		text = (0, node_fs.readFileSync)(file, "utf8");
	} catch (error) {
		throw new AuthFileError(`Cannot read ${file}: ${require_cli.causeText(error)}`, { cause: error });
	}
	if (text.length > MAX_FILE_BYTES) throw new AuthFileError(`${file} is over ${MAX_FILE_BYTES} bytes.`);
	let raw;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		throw new AuthFileError(`${file}: ${syntaxError(text, require_cli.causeText(error))}`, { cause: error });
	}
	const parsed = schema.safeParse(raw);
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0];
	throw new AuthFileError(`${file}: ${describe(issue?.path ?? [], raw)}: ${issue?.message ?? "invalid"}.`);
}
/** "line 3, column 7: \u2026" from JSON.parse's "at position N" (Node 20 and 24 both say it). */
function syntaxError(text, message) {
	const at = /position (\d+)/.exec(message);
	const first = message.split("\n")[0] ?? message;
	if (!at) return `not valid JSON (${first})`;
	const before = text.slice(0, Number(at[1]));
	return `line ${before.split("\n").length}, column ${before.length - before.lastIndexOf("\n")}: not valid JSON (${first.replace(/ in JSON at position \d+.*$/, "")})`;
}
/** `rules[1] ("production") \u2192 claims.ref` for a zod path into a list of named entries. */
function entryPath(list, entries, path) {
	const [top, index, ...rest] = path;
	if (top !== list || typeof index !== "number") return path.length ? path.join(".") : "the file";
	const entry = Array.isArray(entries) ? entries[index] : void 0;
	return `${list}[${index}]${typeof entry?.name === "string" ? ` ("${entry.name.slice(0, 60)}")` : ""}${rest.length ? ` ${rest.join(".")}` : ""}`;
}
// node_modules/jose/dist/webapi/lib/buffer_utils.js
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: !0 });
function concat(...buffers) {
	const size = buffers.reduce((acc, { length }) => acc + length, 0), buf = new Uint8Array(size);
	let i = 0;
	for (const buffer of buffers) buf.set(buffer, i), i += buffer.length;
	return buf;
}
const NON_ASCII = /[^\x00-\x7f]/;
function encode(string) {
	if (typeof string == "string" && string.length >= 128) {
		if (NON_ASCII.test(string)) throw new TypeError("non-ASCII string encountered in encode()");
		return encoder.encode(string);
	}
	const bytes = new Uint8Array(string.length);
	for (let i = 0; i < string.length; i++) {
		const code = string.charCodeAt(i);
		if (code > 127) throw new TypeError("non-ASCII string encountered in encode()");
		bytes[i] = code;
	}
	return bytes;
}
function decodeBase64(encoded, url = !1) {
	if (Uint8Array.fromBase64) return Uint8Array.fromBase64(encoded, { alphabet: url ? "base64url" : "base64" });
	if (url) {
		if (encoded.includes("+") || encoded.includes("/")) throw new TypeError("Invalid base64url");
		encoded = encoded.replace(/-/g, "+").replace(/_/g, "/");
	}
	const binary = atob(encoded), bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
	return bytes;
}
// node_modules/jose/dist/webapi/util/errors.js
var JOSEError = class extends Error {
	static code = "ERR_JOSE_GENERIC";
	code = "ERR_JOSE_GENERIC";
	constructor(message, options) {
		super(message, options), this.name = this.constructor.name, Error.captureStackTrace?.(this, this.constructor);
	}
};
var JWTClaimValidationFailed = class extends JOSEError {
	static code = "ERR_JWT_CLAIM_VALIDATION_FAILED";
	code = "ERR_JWT_CLAIM_VALIDATION_FAILED";
	claim;
	reason;
	payload;
	constructor(message, payload, claim = "unspecified", reason = "unspecified") {
		super(message, { cause: {
			claim,
			reason,
			payload
		} }), this.claim = claim, this.reason = reason, this.payload = payload;
	}
};
var JWTExpired = class extends JOSEError {
	static code = "ERR_JWT_EXPIRED";
	code = "ERR_JWT_EXPIRED";
	claim;
	reason;
	payload;
	constructor(message, payload, claim = "unspecified", reason = "unspecified") {
		super(message, { cause: {
			claim,
			reason,
			payload
		} }), this.claim = claim, this.reason = reason, this.payload = payload;
	}
};
var JOSEAlgNotAllowed = class extends JOSEError {
	static code = "ERR_JOSE_ALG_NOT_ALLOWED";
	code = "ERR_JOSE_ALG_NOT_ALLOWED";
};
var JOSENotSupported = class extends JOSEError {
	static code = "ERR_JOSE_NOT_SUPPORTED";
	code = "ERR_JOSE_NOT_SUPPORTED";
};
var JWSInvalid = class extends JOSEError {
	static code = "ERR_JWS_INVALID";
	code = "ERR_JWS_INVALID";
};
var JWTInvalid = class extends JOSEError {
	static code = "ERR_JWT_INVALID";
	code = "ERR_JWT_INVALID";
};
var JWKSInvalid = class extends JOSEError {
	static code = "ERR_JWKS_INVALID";
	code = "ERR_JWKS_INVALID";
};
var JWKSNoMatchingKey = class extends JOSEError {
	static code = "ERR_JWKS_NO_MATCHING_KEY";
	code = "ERR_JWKS_NO_MATCHING_KEY";
	constructor(message = "no applicable key found in the JSON Web Key Set", options) {
		super(message, options);
	}
};
var JWKSMultipleMatchingKeys = class extends JOSEError {
	[Symbol.asyncIterator] = async function* () {};
	static code = "ERR_JWKS_MULTIPLE_MATCHING_KEYS";
	code = "ERR_JWKS_MULTIPLE_MATCHING_KEYS";
	constructor(message = "multiple matching keys found in the JSON Web Key Set", options) {
		super(message, options);
	}
};
var JWSSignatureVerificationFailed = class extends JOSEError {
	static code = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
	code = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
	constructor(message = "signature verification failed", options) {
		super(message, options);
	}
};
// node_modules/jose/dist/webapi/util/base64url.js
const invalid = "The input to be decoded is not correctly encoded.";
function decode(input) {
	try {
		return decodeBase64(typeof input == "string" ? input : decoder.decode(input), !0);
	} catch (cause) {
		throw new TypeError(invalid, { cause });
	}
}
// node_modules/jose/dist/webapi/lib/validate.js
function isObject(input) {
	if (typeof input != "object" || input === null || Object.prototype.toString.call(input) !== "[object Object]") return !1;
	const prototype = Object.getPrototypeOf(input);
	return prototype === null || Object.getPrototypeOf(prototype) === null;
}
function isJwkSet(input) {
	return isObject(input) && Array.isArray(input.keys) && Array.from(input.keys).every(isObject);
}
function isDisjoint(...headers) {
	const parameters = /* @__PURE__ */ new Set();
	for (const header of headers) if (header) for (const parameter of Object.keys(header)) {
		if (parameters.has(parameter)) return !1;
		parameters.add(parameter);
	}
	return !0;
}
function decodeBase64url(value, label, ErrorClass) {
	try {
		return decode(value);
	} catch (cause) {
		throw new ErrorClass(`Failed to base64url decode the ${label}`, { cause });
	}
}
function encodeAsciiMember(value, label, ErrorClass) {
	try {
		return encode(value);
	} catch (cause) {
		throw new ErrorClass(`The ${label} is not a valid base64url string`, { cause });
	}
}
function parseJoseHeader(encodedProtectedHeader, ErrorClass, message) {
	let parsed;
	try {
		parsed = JSON.parse(strictDecoder.decode(decode(encodedProtectedHeader)));
	} catch (cause) {
		throw new ErrorClass(message, { cause });
	}
	if (!isObject(parsed)) throw new ErrorClass(message);
	return parsed;
}
const JWS_RECOGNIZED = {
	__proto__: null,
	b64: !0
};
function validateAlgorithms(option, algorithms) {
	if (algorithms !== void 0 && (!Array.isArray(algorithms) || algorithms.some((s) => typeof s != "string"))) throw new TypeError(`"${option}" option must be an array of strings`);
	return algorithms === void 0 ? void 0 : new Set(algorithms);
}
function validateCrit(Err, recognizedDefault, recognizedOption, protectedHeader, joseHeader) {
	if (joseHeader.crit !== void 0 && protectedHeader?.crit === void 0) throw new Err("\"crit\" (Critical) Header Parameter MUST be integrity protected");
	if (!protectedHeader || protectedHeader.crit === void 0) return [];
	if (!Array.isArray(protectedHeader.crit) || protectedHeader.crit.length === 0 || protectedHeader.crit.some((input) => typeof input != "string" || input.length === 0)) throw new Err("\"crit\" (Critical) Header Parameter MUST be an array of non-empty strings when present");
	const recognized = recognizedOption === void 0 ? recognizedDefault : {
		__proto__: null,
		...recognizedOption,
		...recognizedDefault
	};
	for (const parameter of protectedHeader.crit) {
		if (!(parameter in recognized)) throw new JOSENotSupported(`Extension Header Parameter "${parameter}" is not recognized`);
		if (!Object.hasOwn(joseHeader, parameter) || joseHeader[parameter] === void 0) throw new Err(`Extension Header Parameter "${parameter}" is missing`);
		if (recognized[parameter] && (!Object.hasOwn(protectedHeader, parameter) || protectedHeader[parameter] === void 0)) throw new Err(`Extension Header Parameter "${parameter}" MUST be integrity protected`);
	}
	return protectedHeader.crit;
}
function validateB64(protectedHeader, extensions) {
	if (extensions.includes("b64")) {
		const b64 = protectedHeader.b64;
		if (typeof b64 != "boolean") throw new JWSInvalid("The \"b64\" (base64url-encode payload) Header Parameter must be a boolean");
		return b64;
	}
	return !0;
}
// node_modules/jose/dist/webapi/lib/key.js
const tag = (key) => key[Symbol.toStringTag];
const jwkMatchesOp = (entry, key, usage) => {
	const { alg } = entry;
	if (key.use !== void 0) {
		const expected = usage === "sign" || usage === "verify" ? "sig" : "enc";
		if (key.use !== expected) throw new TypeError(`Invalid key for this operation, its "use" must be "${expected}" when present`);
	}
	if (key.kty === "AKP" && key.alg === void 0) throw new TypeError("missing \"alg\" (Algorithm) Parameter value");
	if (key.alg !== void 0 && key.alg !== alg) throw new TypeError(`Invalid key for this operation, its "alg" must be "${alg}" when present`);
	if (Array.isArray(key.key_ops)) {
		const expectedKeyOp = usage === "encrypt" || usage === "decrypt" ? entry.ops?.[usage === "encrypt" ? 0 : 1] : usage;
		if (expectedKeyOp && !key.key_ops.includes(expectedKeyOp)) throw new TypeError(`Invalid key for this operation, its "key_ops" must include "${expectedKeyOp}" when present`);
	}
};
async function prepareKey(entry, key, usage) {
	const { alg, secret } = entry, requiresPrivateKey = usage === "decrypt" || usage === "sign";
	if (secret && key instanceof Uint8Array) return key;
	let normalized, keyObject;
	if (isObject(key)) {
		if (normalized = normalizeJwk(key), typeof normalized.kty != "string") throw invalidKeyType(alg, key, secret);
		if (!(secret ? normalized.kty === "oct" && typeof normalized.k == "string" : normalized.kty !== "oct" && (requiresPrivateKey ? normalized.kty === "AKP" && typeof normalized.priv == "string" || typeof normalized.d == "string" : normalized.d === void 0 && normalized.priv === void 0))) throw new TypeError(secret ? "JSON Web Key for symmetric algorithms must have JWK \"kty\" (Key Type) equal to \"oct\" and the JWK \"k\" (Key Value) present" : `JSON Web Key for this operation must be a ${requiresPrivateKey ? "private" : "public"} JWK`);
		if (jwkMatchesOp(entry, normalized, usage), normalized.kty === "oct") return decode(normalized.k);
		if (!Object.isFrozen(key)) {
			const { key_ops } = key;
			Array.isArray(key_ops) && Object.freeze(key_ops), Object.freeze(key);
		}
	} else {
		if (!isKeyLike(key)) throw invalidKeyType(alg, key, secret);
		const expectedType = secret ? "secret" : requiresPrivateKey ? "private" : "public";
		if (key.type !== expectedType && (secret || [
			"secret",
			"public",
			"private"
		].includes(key.type))) throw new TypeError(`${tag(key)} instances must be of type "${expectedType}" for the ${alg} algorithm`);
		if (isCryptoKey(key)) return key;
		if (keyObject = key, keyObject.type === "secret") return keyObject.export();
	}
	cache ||= /* @__PURE__ */ new WeakMap();
	const cacheKey = key;
	let cached = cache.get(cacheKey);
	if (cached?.[alg]) return cached[alg];
	if (cached || cache.set(cacheKey, cached = {}), keyObject && typeof keyObject.toCryptoKey == "function") {
		const isPublic = keyObject.type === "public", crv = nist[keyObject.asymmetricKeyDetails?.namedCurve], params = entry.resolve?.({
			crv,
			asymmetricKeyType: keyObject.asymmetricKeyType
		}) ?? entry.subtle;
		return cached[alg] = keyObject.toCryptoKey(params, isPublic, entry.usages[isPublic ? 0 : 1]);
	}
	return normalized ??= keyObject.export({ format: "jwk" }), normalized.alg = alg, cached[alg] = await jwkToKey(entry, normalized);
}
let cache;
const nist = {
	__proto__: null,
	prime256v1: "P-256",
	secp384r1: "P-384",
	secp521r1: "P-521"
};
const isCryptoKey = (key) => {
	if (key?.[Symbol.toStringTag] === "CryptoKey") return !0;
	try {
		return key instanceof CryptoKey;
	} catch {
		return !1;
	}
};
const isKeyObject = (key) => key?.[Symbol.toStringTag] === "KeyObject";
const isKeyLike = (key) => isCryptoKey(key) || isKeyObject(key);
function message(msg, actual, ...types) {
	if (types.length > 2) {
		const last = types.pop();
		msg += `one of type ${types.join(", ")}, or ${last}.`;
	} else types.length === 2 ? msg += `one of type ${types[0]} or ${types[1]}.` : msg += `of type ${types[0]}.`;
	return actual == null ? msg += ` Received ${actual}` : typeof actual == "function" && actual.name ? msg += ` Received function ${actual.name}` : typeof actual == "object" && actual != null && actual.constructor?.name && (msg += ` Received an instance of ${actual.constructor.name}`), msg;
}
function invalidKeyType(alg, actual, secret) {
	const types = [
		"CryptoKey",
		"KeyObject",
		"JSON Web Key"
	];
	return secret && types.push("Uint8Array"), new TypeError(message(`Key for the ${alg} algorithm must be `, actual, ...types));
}
const unusable = (name, prop = "algorithm.name") => /* @__PURE__ */ new TypeError(`CryptoKey does not support this operation, its ${prop} must be ${name}`);
function checkUsage(key, usage) {
	if (usage && !key.usages.includes(usage)) throw new TypeError(`CryptoKey does not support this operation, its usages must include ${usage}.`);
}
function checkModulusLength(alg, key) {
	const { modulusLength } = key.algorithm;
	if (typeof modulusLength != "number" || modulusLength < 2048) throw new TypeError(`${alg} requires key modulusLength to be 2048 bits or larger`);
}
function checkCryptoKey(key, expected, usage) {
	const algorithm = key.algorithm;
	if (algorithm.name !== expected.name) throw unusable(expected.name);
	if (expected.hash && algorithm.hash?.name !== expected.hash) throw unusable(expected.hash, "algorithm.hash");
	if (expected.namedCurve && algorithm.namedCurve !== expected.namedCurve) throw unusable(expected.namedCurve, "algorithm.namedCurve");
	if (expected.length !== void 0 && algorithm.length !== expected.length) throw unusable(expected.length, "algorithm.length");
	checkUsage(key, usage);
}
function snapshotJwk(jwk) {
	return {
		__proto__: null,
		...jwk
	};
}
function normalizeJwk(jwk) {
	const normalized = snapshotJwk(jwk);
	if (normalized.ext !== void 0 && typeof normalized.ext != "boolean") throw new TypeError("\"ext\" (Extractable) Parameter must be a boolean");
	if (normalized.key_ops !== void 0) {
		const value = normalized.key_ops, keyOps = Array.isArray(value) ? [...value] : void 0;
		if (!keyOps || keyOps.some((operation) => typeof operation != "string") || new Set(keyOps).size !== keyOps.length) throw new TypeError("\"key_ops\" (Key Operations) Parameter must be an array of unique strings");
		normalized.key_ops = keyOps;
	}
	return normalized;
}
async function jwkToKey(entry, jwk, extractable) {
	if (!entry.kty.includes(jwk.kty)) throw new JOSENotSupported("Invalid or unsupported JWK \"alg\" (Algorithm) Parameter value");
	const algorithm = entry.resolve?.({
		kty: jwk.kty,
		crv: jwk.crv
	}) ?? entry.subtle, isPrivate = !!(jwk.d || jwk.priv), keyData = {
		...jwk,
		ext: extractable ?? jwk.ext
	};
	return keyData.kty !== "AKP" && delete keyData.alg, delete keyData.use, crypto.subtle.importKey("jwk", keyData, algorithm, keyData.ext ?? !isPrivate, jwk.key_ops ?? entry.usages[isPrivate ? 1 : 0]);
}
async function rawKey(key, expected, usage, extractable = !1) {
	return key instanceof Uint8Array && (key = await crypto.subtle.importKey("raw", key, expected, extractable, [usage])), checkCryptoKey(key, expected, usage), key;
}
// node_modules/jose/dist/webapi/lib/key_descriptor.js
function table(entries) {
	const out = { __proto__: null };
	for (const alg in entries) out[alg] = {
		...entries[alg],
		alg
	};
	return out;
}
// node_modules/jose/dist/webapi/lib/jws_algorithms.js
const sig = [["verify"], ["sign"]];
function hmac(bits) {
	const subtle = {
		name: "HMAC",
		hash: `SHA-${bits}`
	};
	return {
		kty: ["oct"],
		secret: !0,
		subtle,
		signing: subtle,
		usages: sig
	};
}
function rsa(bits, saltLength) {
	const subtle = {
		name: saltLength ? "RSA-PSS" : "RSASSA-PKCS1-v1_5",
		hash: `SHA-${bits}`
	};
	return {
		kty: ["RSA"],
		subtle,
		signing: saltLength ? {
			...subtle,
			saltLength
		} : subtle,
		usages: sig,
		minRsaBits: 2048
	};
}
function ecdsa(crv, bits) {
	return {
		kty: ["EC"],
		crv,
		subtle: {
			name: "ECDSA",
			namedCurve: crv
		},
		signing: {
			name: "ECDSA",
			hash: `SHA-${bits}`
		},
		usages: sig
	};
}
function eddsa() {
	const subtle = { name: "Ed25519" };
	return {
		kty: ["OKP"],
		crv: "Ed25519",
		subtle,
		signing: subtle,
		usages: sig
	};
}
function mldsa(parameterSet) {
	const subtle = { name: `ML-DSA-${parameterSet}` };
	return {
		kty: ["AKP"],
		subtle,
		signing: subtle,
		usages: sig
	};
}
const JWS = table({
	HS256: hmac(256),
	HS384: hmac(384),
	HS512: hmac(512),
	RS256: rsa(256),
	RS384: rsa(384),
	RS512: rsa(512),
	PS256: rsa(256, 32),
	PS384: rsa(384, 48),
	PS512: rsa(512, 64),
	ES256: ecdsa("P-256", 256),
	ES384: ecdsa("P-384", 384),
	ES512: ecdsa("P-521", 512),
	EdDSA: eddsa(),
	Ed25519: eddsa(),
	"ML-DSA-44": mldsa(44),
	"ML-DSA-65": mldsa(65),
	"ML-DSA-87": mldsa(87)
});
function jwsAlgorithm(alg) {
	const entry = typeof alg == "string" ? JWS[alg] : void 0;
	if (!entry) throw new JOSENotSupported(`alg ${alg} is not supported either by JOSE or your javascript runtime`);
	return entry;
}
// node_modules/jose/dist/webapi/jwks/local.js
function isUsableJWK(jwk, entry, alg, kid) {
	const { kty, key_ops: keyOps, ext, kid: jwkKid, alg: jwkAlg, use, crv } = jwk;
	return (ext === void 0 || typeof ext == "boolean") && (keyOps === void 0 || Array.isArray(keyOps) && keyOps.every((operation, index) => typeof operation == "string" && keyOps.indexOf(operation) === index) && keyOps.includes("verify")) && entry.kty.includes(kty) && (kid === void 0 || typeof kid == "string" && kid === jwkKid) && (jwkAlg === void 0 ? kty !== "AKP" : alg === jwkAlg) && (use === void 0 || use === "sig") && (!entry.crv || crv === entry.crv);
}
async function importWithAlgCache(cache, jwk, entry) {
	const cached = cache.get(jwk) || cache.set(jwk, {}).get(jwk), { alg } = entry;
	if (cached[alg] === void 0) {
		const pending = jwkToKey(entry, jwk, !0).then((key) => {
			if (key.type !== "public") throw new JWKSInvalid("JSON Web Key Set members must be public keys");
			return cached[alg] = key, key;
		}).catch((error) => {
			throw cached[alg] === pending && delete cached[alg], error;
		});
		cached[alg] = pending;
	}
	return cached[alg];
}
function createLocalJWKSet(jwks) {
	let snapshot;
	try {
		snapshot = structuredClone(jwks);
	} catch (cause) {
		throw new JWKSInvalid("JSON Web Key Set malformed", { cause });
	}
	if (!isJwkSet(snapshot)) throw new JWKSInvalid("JSON Web Key Set malformed");
	const metadata = snapshot.keys.map((jwk) => {
		const normalized = snapshotJwk(jwk);
		return Array.isArray(normalized.key_ops) && (normalized.key_ops = [...normalized.key_ops]), normalized;
	}), cached = /* @__PURE__ */ new WeakMap();
	return Object.defineProperty(async (protectedHeader, token) => {
		const { alg, kid } = {
			...protectedHeader,
			...token?.header
		}, entry = typeof alg == "string" ? JWS[alg] : void 0;
		if (!entry || entry.secret) throw new JOSENotSupported("Unsupported \"alg\" value for a JSON Web Key Set");
		const candidates = snapshot.keys.filter((_, index) => isUsableJWK(metadata[index], entry, alg, kid)), { 0: jwk, length } = candidates;
		if (!length) throw new JWKSNoMatchingKey();
		if (length !== 1) {
			const error = new JWKSMultipleMatchingKeys();
			throw error[Symbol.asyncIterator] = async function* () {
				for (const jwk2 of candidates) try {
					yield await importWithAlgCache(cached, jwk2, entry);
				} catch {}
			}, error;
		}
		return importWithAlgCache(cached, jwk, entry);
	}, "jwks", { value: () => structuredClone(snapshot) });
}
// src/kernel/auth/oidc-keys.ts
/**
* An OIDC issuer's published keys, as the verifier (oidc.ts) uses them: the discovery
* document, then the JWKS, fetched through our one HTTP client; fetched again when older
* than `cacheMs`, never twice within `minRefreshMs` (failed attempts included), and kept
* through an outage only until `maxStaleMs` after the last good fetch. Its own module so
* the verifier holds only the token checks.
*/
/** Discovery and JWKS bodies past this are refused (GitHub's JWKS is ~2 KB). */
const MAX_DOCUMENT_CHARS = 65536;
const MAX_KEYS = 50;
const discoverySchema = require_cli.object({
	issuer: require_cli.string(),
	jwks_uri: require_cli.string()
});
const jwksSchema = require_cli.object({ keys: require_cli.array(require_cli.record(require_cli.string(), require_cli.unknown())).check(require_cli._maxLength(MAX_KEYS)) });
/** An issuer URL we may fetch from: https, or plain http on loopback; no credentials, query or fragment. */
function checkIssuerUrl(value, what = "issuer") {
	let url;
	try {
		url = new URL(value);
	} catch {
		throw new Error(`the OIDC ${what} '${require_cli.urlForDisplay(value)}' is not a URL`);
	}
	const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
	if (!(url.protocol === "https:" || url.protocol === "http:" && require_cli.isLoopbackHost(host)) || url.username || url.password || url.search || url.hash) throw new Error(`the OIDC ${what} '${require_cli.urlForDisplay(value)}' must be an https:// URL without credentials or query (plain http:// only on loopback)`);
	return url;
}
/** Fetches of every issuer's keys in this process, and those that failed: the metrics read it. */
const oidcKeyFetches = {
	attempts: 0,
	failures: 0
};
var IssuerKeys = class {
	issuer;
	settings;
	keys;
	/** When the keys in use were fetched. */
	keysAt = -Infinity;
	/** When the last fetch began, whether or not it succeeded; and why the last one failed. */
	attemptedAt = -Infinity;
	failure;
	inFlight;
	constructor(issuer, settings) {
		this.issuer = issuer;
		this.settings = settings;
	}
	/** Why the last fetch failed; undefined once one succeeded. */
	get lastError() {
		return this.failure;
	}
	/** Whether a fetch may begin now: none within `minRefreshMs` of the last attempt. */
	get mayRefresh() {
		return this.settings.now() - this.attemptedAt >= this.settings.minRefreshMs;
	}
	/** One fetch at a time, later callers share it; none within `minRefreshMs` of the last attempt. */
	async refresh() {
		if (!this.inFlight && !this.mayRefresh) return;
		this.inFlight ??= this.fetchKeys().then(() => this.failure = void 0).catch((error) => {
			oidcKeyFetches.failures += 1;
			this.failure = error;
		}).finally(() => this.inFlight = void 0);
		await this.inFlight;
	}
	/** The keys to verify with now: fetched again when old; 503 when there are none fit to use. */
	async keySet() {
		const { now, cacheMs, maxStaleMs } = this.settings;
		if (!this.keys || now() - this.keysAt > cacheMs) await this.refresh();
		if (this.keys && now() - this.keysAt <= maxStaleMs) return this.keys;
		throw unavailable(this.failure ?? /* @__PURE__ */ new Error("no keys fetched yet"));
	}
	async fetchKeys() {
		oidcKeyFetches.attempts += 1;
		this.attemptedAt = this.settings.now();
		const { issuer } = this;
		const discovery = discoverySchema.safeParse(await this.getJson(`${issuer}/.well-known/openid-configuration`, "discovery document"));
		if (!discovery.success || discovery.data.issuer.replace(/\/+$/, "") !== issuer) throw new Error(`the issuer's discovery document does not name ${issuer} with a jwks_uri`);
		const jwksUrl = checkIssuerUrl(discovery.data.jwks_uri, "jwks_uri");
		const jwks = jwksSchema.safeParse(await this.getJson(jwksUrl.href, "JWKS"));
		if (!jwks.success) throw new Error(`the issuer's JWKS is not a set of at most ${MAX_KEYS} keys`);
		this.keys = createLocalJWKSet(jwks.data);
		this.keysAt = this.attemptedAt;
	}
	async getJson(url, what) {
		const text = await this.settings.http.getText(url, { accept: "application/json" });
		if (text.length > MAX_DOCUMENT_CHARS) throw new Error(`the issuer's ${what} is too large`);
		try {
			return JSON.parse(text);
		} catch {
			throw new Error(`the issuer's ${what} is not JSON`);
		}
	}
};
/** The issuer's keys cannot be had: 503, so a caller tries again rather than give up. */
function unavailable(error) {
	return new AuthRefusal(`The kernel cannot fetch the OIDC issuer's keys (${require_cli.causeText(error).slice(0, 300)}); try again.`, {
		status: 503,
		reason: "issuer_unavailable",
		cause: error
	});
}
// src/kernel/auth/issuer-config.ts
/**
* The OIDC issuers a kernel accepts tokens of: `--oidc-issuer [KIND=]URL` (repeatable, all
* for `--oidc-audience`), or `--oidc-issuers FILE` (JSON, one entry per issuer, each with its
* own audience and mapping). Read and checked before the kernel listens; every error names
* the flag or the file and entry, and the accepted form. No I/O beyond reading the file.
*
*   { "issuers": [
*       { "name": "github", "kind": "github", "url": "https://token.actions.githubusercontent.com",
*         "audience": "lease-gate" },
*       { "name": "gitlab", "kind": "gitlab", "url": "https://gitlab.com", "audience": "lease-gate",
*         "repositories": { "4201": "acme/shop" } },
*       { "name": "buildkite", "kind": "buildkite", "url": "https://agent.buildkite.com",
*         "audience": "lease-gate", "organization": "acme" } ] }
*/
const ISSUERS_FILE_FLAG = "--oidc-issuers";
const CLAIM = /^[A-Za-z0-9_./-]{1,100}$/;
const text$1 = (max) => require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(max));
const claimName = require_cli.string().check(require_cli._regex(CLAIM, "expected a claim name such as build_number"));
const entrySchema = require_cli.strictObject({
	name: require_cli.string().check(require_cli._regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "expected a name such as gitlab")),
	kind: require_cli._enum(require_cli.CI_KINDS),
	url: text$1(500),
	audience: require_cli.optional(require_cli.string().check(require_cli._regex(/^[\x21-\x7e]{1,200}$/, "expected 1 to 200 printable characters"))),
	didHost: require_cli.optional(require_cli.string().check(require_cli._regex(/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/, "expected a host name such as gitlab.example.com"))),
	organization: require_cli.optional(text$1(100)),
	repositories: require_cli.optional(require_cli.record(text$1(200), text$1(201))),
	did: require_cli.optional(text$1(500)),
	deploy: require_cli.optional(require_cli.partialRecord(require_cli._enum(require_cli.DEPLOY_FIELDS), claimName)),
	claims: require_cli.optional(require_cli.array(claimName).check(require_cli._maxLength(100)))
});
const fileSchema = require_cli.strictObject({ issuers: require_cli.array(entrySchema).check(require_cli._minLength(1), require_cli._maxLength(50)) });
/** Every issuer named in an issuers file, checked as a whole (names and URLs unique, pins set). */
function readIssuersFile(file, audience) {
	const specs = readJsonFile(file, fileSchema, (path, raw) => entryPath("issuers", raw?.issuers, path)).issuers.map((entry, index) => {
		const where = `${file}: issuers[${index}] ("${entry.name}")`;
		const problem = entryProblem(entry, audience);
		if (problem) throw new AuthFileError(`${where}: ${problem}.`);
		return specOf(entry, audience);
	});
	const seen = /* @__PURE__ */ new Map();
	for (const spec of specs) for (const key of [`name ${spec.name}`, `url ${spec.url}`]) {
		if (seen.has(key)) throw new AuthFileError(`${file}: two issuers have the ${key}; each must be named once.`);
		seen.set(key, spec.name);
	}
	return specs;
}
/** `--oidc-issuer [KIND=]URL` values: the kinds a URL alone can configure. */
function issuersFromFlags(values, audience, didHost) {
	const specs = values.map((value) => {
		const at = /^([a-z]+)=(.*)$/.exec(value);
		const url = at ? at[2] : value;
		try {
			checkIssuerUrl(url.replace(/\/+$/, ""));
		} catch (error) {
			throw new AuthFileError(`Invalid --oidc-issuer: ${require_cli.causeText(error)}.`);
		}
		const kind = at ? at[1] : require_cli.kindOfIssuer(url) ?? "github";
		if (!require_cli.CI_KINDS.includes(kind)) throw new AuthFileError(`Invalid --oidc-issuer '${value.slice(0, 120)}': expected [KIND=]URL, KIND one of ${require_cli.CI_KINDS.join(", ")}, e.g. gitlab=https://gitlab.example.com.`);
		if (kind === "buildkite" || kind === "custom") throw new AuthFileError(`--oidc-issuer ${value.slice(0, 120)}: a ${kind} issuer needs ${kind === "buildkite" ? "its organization pinned (https://agent.buildkite.com issues tokens for every Buildkite organization)" : "a DID template and a claim mapping"}; configure it in an issuers file (${ISSUERS_FILE_FLAG} FILE, see docs/ci-issuers.md).`);
		const entry = {
			name: kind,
			kind,
			url,
			audience,
			...didHost && kind === "github" ? { didHost } : {}
		};
		const problem = entryProblem(entry, audience);
		if (problem) throw new AuthFileError(`Invalid --oidc-issuer '${value.slice(0, 120)}': ${problem}.`);
		return specOf(entry, audience);
	});
	for (const spec of specs) if (specs.filter((s) => s.name === spec.name).length > 1) spec.name = `${spec.kind}-${new URL(spec.url).host}`;
	if (new Set(specs.map((s) => s.url)).size < specs.length) throw new AuthFileError("--oidc-issuer names one issuer twice.");
	return specs;
}
function entryProblem(entry, audience) {
	try {
		checkIssuerUrl(entry.url.replace(/\/+$/, ""));
	} catch (error) {
		return require_cli.causeText(error);
	}
	if (!entry.audience && !audience) return "needs an \"audience\" (or --oidc-audience AUD for all)";
	const byUrl = require_cli.kindOfIssuer(entry.url);
	if (byUrl !== void 0 && byUrl !== entry.kind) return `its url is ${byUrl}'s, not a ${entry.kind} issuer's`;
	if (entry.kind === "buildkite" && !entry.organization) return "a buildkite issuer needs \"organization\" (its organization slug): https://agent.buildkite.com issues tokens for every Buildkite organization, so an unpinned one would let any of them lease";
	if (entry.kind === "circleci") {
		const org = /\/org\/([0-9a-f-]{36})$/i.exec(entry.url.replace(/\/+$/, ""))?.[1];
		if (!org) return "a circleci issuer url ends with /org/<org-id>, e.g. https://oidc.circleci.com/org/6a1b\u2026";
		if (entry.organization && entry.organization !== org) return `"organization" ${entry.organization} is not the org id in its url (${org})`;
	}
	if (entry.kind === "custom") {
		if (!entry.did) return "a custom issuer needs \"did\", a DID template such as did:web:jenkins.example.com:{sub}:";
		const bad = require_cli.templateProblem(entry.did);
		if (bad) return `"did": ${bad}`;
	} else if (entry.did || entry.deploy || entry.claims) return `"did", "deploy" and "claims" are for custom issuers; ${entry.kind}'s mapping is built in`;
	for (const [project, repository] of Object.entries(entry.repositories ?? {})) if (!require_cli.parseRepository(repository)) return `"repositories" maps ${project} to ${JSON.stringify(repository.slice(0, 80))}: expected owner/repo`;
}
/** `entry` as checked by entryProblem: it or `audience` names the audience. */
function specOf(entry, audience) {
	const url = entry.url.replace(/\/+$/, "");
	const host = new URL(url);
	const didHost = entry.didHost ?? (host.hostname === "token.actions.githubusercontent.com" ? "github.com" : host.host);
	const organization = entry.kind === "circleci" ? /\/org\/([0-9a-f-]{36})$/i.exec(url)?.[1] : entry.organization;
	return {
		name: entry.name,
		kind: entry.kind,
		url,
		audience: entry.audience ?? audience ?? "",
		didHost,
		organization,
		repositories: new Map(Object.entries(entry.repositories ?? {})),
		did: entry.did,
		deploy: entry.deploy,
		claims: entry.claims
	};
}
// src/kernel/auth/github-issuer.ts
/** GitHub Actions' issuer: its own module, so what names it need not load jose (oidc.ts). */
const GITHUB_ISSUER_URL = "https://token.actions.githubusercontent.com";
// src/kernel/auth/glob.ts
/**
* The patterns of policy and keys files: `*` any run of characters (slashes and
* colons included), `?` exactly one; everything else is itself. Anchored.
*/
function globToRegExp(pattern) {
	let source = "";
	for (const char of pattern) if (char === "*") source += ".*";
	else if (char === "?") source += ".";
	else source += char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
	return new RegExp(`^${source}$`, "s");
}
/** True when any of the patterns matches. */
function anyOf(patterns) {
	const compiled = patterns.map(globToRegExp);
	return (value) => compiled.some((re) => re.test(value));
}
// src/kernel/auth/keys.ts
/**
* The scoped keys file (`--keys FILE`, JSON), for callers that are not GitHub
* jobs (other CI systems, people): each key, stored as the SHA-256 of its text
* (never the key), may act only as DIDs matching `actors` and lease only
* resources matching `resources` (globs: `*`, `?`).
*
*   { "keys": [ { "name": "jenkins", "sha256": "<64 hex digits>",
*                 "actors": ["did:web:ci.example.com:jenkins:*"],
*                 "resources": ["lock:deploy/staging"] } ] }
*/
const pattern = require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(500));
const patterns$1 = require_cli.array(pattern).check(require_cli._minLength(1), require_cli._maxLength(100));
const keySchema = require_cli.strictObject({
	name: require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(200)),
	sha256: require_cli.string().check(require_cli._regex(/^[0-9a-fA-F]{64}$/, "expected the SHA-256 of the key as 64 hex digits")),
	actors: patterns$1,
	resources: patterns$1
});
const keysSchema = require_cli.strictObject({ keys: require_cli.array(keySchema).check(require_cli._minLength(1), require_cli._maxLength(1e4)) });
/** The hash a keys file stores: `printf %s "$KEY" | sha256sum`. */
const keyHash = (key) => (0, node_crypto.createHash)("sha256").update(key, "utf8").digest("hex");
function readScopedKeys(file) {
	const data = readJsonFile(file, keysSchema, (path, raw) => entryPath("keys", raw?.keys, path));
	const byHash = /* @__PURE__ */ new Map();
	data.keys.forEach((entry, index) => {
		const hash = entry.sha256.toLowerCase();
		const earlier = byHash.get(hash);
		if (earlier) throw new AuthFileError(`${file}: keys[${index}] ("${entry.name}") has the same key as "${earlier.name}".`);
		byHash.set(hash, {
			name: entry.name,
			actors: anyOf(entry.actors),
			resources: anyOf(entry.resources),
			actorPatterns: entry.actors,
			resourcePatterns: entry.resources
		});
	});
	return {
		size: byHash.size,
		find: (key) => key ? byHash.get(keyHash(key)) : void 0
	};
}
// src/kernel/auth/policy.ts
/**
* The policy file (`--policy FILE`, JSON): which OIDC token claims may lease
* which resources. A resource may be leased when some rule whose `resources`
* match it, of the token's issuer, has every one of its `claims` matched by the
* token and none of its refusals; a resource no rule names is refused. Patterns
* are globs (`*`, `?`); a list claim (CircleCI's context-ids) matches when one
* of its items does.
*
*   { "rules": [ { "name": "production from main", "issuer": "github",
*                  "resources": ["lock:deploy/production"],
*                  "claims": { "repository": "acme/shop", "ref": "refs/heads/main",
*                              "environment": "production" },
*                  "refuse": { "event_name": "pull_request*" } } ] }
*
* `issuer` names an issuer (its name or URL); with one issuer configured it may be left
* out, with several it may not. `claims` and `refuse` may test only the claims of that
* issuer's kind (mappings.ts), so a typo is refused at start. `protectedRef`: the token
* must say its ref is protected (GitHub, GitLab). `allowForks`: lifts GitLab's built-in
* refusal of a fork's merge-request pipelines.
*/
const text = require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(500));
const patterns = require_cli.union([text, require_cli.array(text).check(require_cli._minLength(1), require_cli._maxLength(100))]);
const claimsSchema = require_cli.record(text, patterns);
const ruleSchema = require_cli.strictObject({
	name: require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(200)),
	issuer: require_cli.optional(text),
	resources: require_cli.array(text).check(require_cli._minLength(1), require_cli._maxLength(100)),
	claims: claimsSchema.check(require_cli.refine((c) => Object.keys(c).length > 0, "a rule needs at least one claim")),
	refuse: require_cli.optional(claimsSchema),
	protectedRef: require_cli.optional(require_cli.boolean()),
	allowForks: require_cli.optional(require_cli.boolean())
});
const policySchema = require_cli.strictObject({ rules: require_cli.array(ruleSchema).check(require_cli._minLength(1), require_cli._maxLength(1e3)) });
const list = (value) => typeof value === "string" ? [value] : value;
/** The one issuer of a kernel started with only `--oidc-audience` (GitHub's). */
const GITHUB_ONLY = [{
	name: "github",
	kind: "github",
	url: GITHUB_ISSUER_URL
}];
function readPolicy(file, issuers = GITHUB_ONLY) {
	return compilePolicy(readJsonFile(file, policySchema, (path, raw) => entryPath("rules", raw?.rules, path)), issuers, file);
}
function compilePolicy(data, issuers = GITHUB_ONLY, where = "the policy") {
	const rules = data.rules.map((rule, index) => {
		const at = `${where}: rules[${index}] ("${rule.name.slice(0, 60)}")`;
		const issuer = issuerOfRule(rule.issuer, issuers, at);
		const tests = (claims, key) => Object.entries(claims).map(([claim, value]) => {
			const known = policyClaimsOf(issuer);
			if (!known.includes(claim)) throw new AuthFileError(`${at} ${key}.${claim}: not a claim a rule may test on ${issuer.kind} tokens; expected one of ${known.join(", ")}.`);
			return {
				claim,
				shown: list(value).join(" or "),
				match: anyOf(list(value))
			};
		});
		if (rule.protectedRef && !PROTECTED_REF_KINDS.includes(issuer.kind)) throw new AuthFileError(`${at} protectedRef: ${issuer.kind} tokens do not say whether a ref is protected (only ${PROTECTED_REF_KINDS.join(" and ")} tokens do).`);
		return {
			name: rule.name,
			index,
			issuer: issuer.name,
			kind: issuer.kind,
			resources: anyOf(rule.resources),
			claims: tests(rule.claims, "claims"),
			refuse: tests(rule.refuse ?? {}, "refuse"),
			protectedRef: rule.protectedRef ?? false,
			allowForks: rule.allowForks ?? false
		};
	});
	return {
		rules: rules.length,
		check(claims, resource, issuer) {
			const name = issuer?.name ?? issuers[0]?.name;
			let refusedBy;
			for (const rule of rules) {
				if (rule.issuer !== name || !rule.resources(resource)) continue;
				const why = refusal(rule, claims, resource);
				if (why === void 0) return;
				refusedBy ??= why;
			}
			throw new AuthRefusal(refusedBy ?? `No rule of the kernel's policy lets anyone${issuers.length > 1 ? ` with a token of issuer ${name}` : ""} lease ${resource}.`, {
				status: 403,
				reason: "not_allowed"
			});
		}
	};
}
/** The issuer a rule names (by name or URL), or the only one; refused at start otherwise. */
function issuerOfRule(named, issuers, at) {
	const names = issuers.map((i) => i.name).join(", ");
	if (named === void 0) {
		if (issuers.length === 1) return issuers[0];
		throw new AuthFileError(`${at}: with several issuers configured (${names}) every rule names its "issuer".`);
	}
	const issuer = issuers.find((i) => i.name === named || i.url === named.replace(/\/+$/, ""));
	if (!issuer) throw new AuthFileError(`${at} issuer: ${JSON.stringify(named.slice(0, 100))} is not a configured issuer; expected one of ${names}.`);
	return issuer;
}
/** Why `rule` does not let these claims lease `resource`, or undefined when it does. */
function refusal(rule, claims, resource) {
	const head = `Policy rule ${rule.index + 1} ("${rule.name}")`;
	const failed = rule.claims.find((c) => !claimTexts(claims[c.claim]).some((v) => c.match(v)));
	if (failed) {
		const has = claimTexts(claims[failed.claim]).join(", ");
		return `${head} lets ${resource} be leased only with ${failed.claim} ${failed.shown}; this token has ${failed.claim} ${has ? JSON.stringify(has.slice(0, 200)) : "(none)"}.`;
	}
	const hit = rule.refuse.find((c) => claimTexts(claims[c.claim]).some((v) => c.match(v)));
	if (hit) {
		const has = claimTexts(claims[hit.claim]).join(", ");
		return `${head} refuses ${resource} to tokens with ${hit.claim} ${hit.shown}; this token has ${hit.claim} ${JSON.stringify(has.slice(0, 200))}.`;
	}
	if (rule.protectedRef && String(claims.ref_protected) !== "true") return `${head} lets ${resource} be leased only from a protected ref; this token has ref_protected ${JSON.stringify(String(claims.ref_protected ?? "(none)"))}.`;
	const builtIn = builtInRefusal(rule.kind, claims, rule.allowForks);
	if (builtIn) return `${head} refuses ${resource} to this token (${builtIn.claim}): ${builtIn.why}.`;
}
/** A claim as texts for matching: a scalar as one, a list's scalars each; else one '' (matches only `*`). */
function claimTexts(value) {
	const one = (v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : "";
	if (Array.isArray(value)) {
		const items = value.map(one).filter(Boolean);
		return items.length ? items : [""];
	}
	return [one(value)];
}
// src/cli/kernel-auth.ts
/**
* The credential flags' own rules, checked without reading a file: what needs --oidc-audience,
* the kernel key refused beside scoped credentials, the audience's form.
*/
function authFlagsChecked(values, key) {
	const audience = values["oidc-audience"];
	const file = values["oidc-issuers"];
	const oidcOn = audience !== void 0 || file !== void 0;
	if (!oidcOn && (values["oidc-issuer"]?.length || values["oidc-did-host"] || values.policy)) throw new require_cli.UsageError("--oidc-issuer, --oidc-did-host and --policy need --oidc-audience AUD (the audience the jobs ask their tokens for, e.g. lease-gate).");
	if (file !== void 0 && (values["oidc-issuer"]?.length || values["oidc-did-host"])) throw new require_cli.UsageError(`--oidc-issuers ${file} names every issuer, with its didHost: leave out --oidc-issuer and --oidc-did-host.`);
	if (key && (oidcOn || values.keys)) throw new require_cli.UsageError("LEASE_GATE_KERNEL_KEY makes everyone who has it trusted to be anyone, which --oidc-audience and --keys exist to prevent: unset it, and give such callers a scoped key in the keys file instead.");
	if (oidcOn && !values.policy) throw new require_cli.UsageError(`${audience !== void 0 ? "--oidc-audience" : "--oidc-issuers"} needs --policy FILE: any GitHub repository can ask for a token with that audience, so the policy says which may lease what.`);
	if (audience !== void 0 && !/^[\x21-\x7e]{1,200}$/.test(audience)) throw new require_cli.UsageError(`Invalid --oidc-audience '${audience.slice(0, 80)}'. Expected 1 to 200 printable characters.`);
}
/**
* The issuers the flags name: an issuers file, or `--oidc-issuer [KIND=]URL` (GitHub's when
* none) for `--oidc-audience`; undefined when OIDC is off.
*/
function issuerSpecs(values) {
	const audience = values["oidc-audience"];
	if (values["oidc-issuers"] !== void 0) return readIssuersFile(values["oidc-issuers"], audience);
	if (audience === void 0) return void 0;
	const didHost = values["oidc-did-host"];
	if (didHost !== void 0 && !/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/.test(didHost)) throw new require_cli.UsageError(`Invalid --oidc-did-host '${didHost.slice(0, 80)}'. Expected a host name such as github.com.`);
	const flags = values["oidc-issuer"]?.length ? values["oidc-issuer"] : [GITHUB_ISSUER_URL];
	try {
		return issuersFromFlags(flags, audience, didHost);
	} catch (error) {
		throw new require_cli.UsageError(require_cli.causeText(error), { cause: error });
	}
}
/** Flags \u2192 the kernel's authorizer, every file read and checked before it listens. */
async function kernelAuth(values, key, operatorKeys = {}) {
	authFlagsChecked(values, key);
	try {
		const keys = values.keys ? readScopedKeys(values.keys) : void 0;
		for (const [name, value] of Object.entries(operatorKeys)) {
			const agent = value && keys?.find(value);
			if (agent) throw new require_cli.UsageError(`${name} is the scoped key "${agent.name}" in ${values.keys}: an operator's key must be one no agent holds.`);
		}
		let http;
		let oidc;
		const parts = [];
		if (keys) parts.push(`${keys.size} scoped key(s) from ${values.keys}`);
		const specs = issuerSpecs(values);
		if (specs && values.policy) {
			const policy = readPolicy(values.policy, specs);
			http = require_cli.createHttpClient();
			oidc = {
				issuers: issuerSet(await startIssuers(specs, http)),
				policy
			};
			const each = specs.map((i) => `${i.name} (${i.kind}) ${i.url} for audience ${i.audience}${i.kind === "github" || i.kind === "gitlab" ? ` (DIDs under did:web:${require_cli.didSegment(i.didHost)}:\u2026)` : ""}`);
			parts.push(`OIDC tokens from ${each.join(", ")}, policy of ${policy.rules} rule(s) from ${values.policy}`);
		}
		return {
			auth: createAuthorizer({
				key,
				keys,
				oidc
			}),
			summary: parts.length ? `credentials: ${parts.join("; ")}` : "",
			close: async () => {
				await http?.close();
			}
		};
	} catch (error) {
		if (error instanceof AuthFileError) throw new require_cli.UsageError(error.message, { cause: error });
		throw error;
	}
}
// src/cli/kernel-postgres.ts
const STORE_FORM = "'memory', 'postgres' (the URL from DATABASE_URL) or a postgres://user@host:5432/db URL";
/**
* The PostgreSQL settings from `--store`, `--schema` and `--pool-size`, or
* undefined for the in-process stores. DATABASE_URL is read only when asked
* for (`--store postgres`), so a job that happens to set it keeps a local kernel.
*/
function postgresFrom(values, env) {
	const store = values.store ?? "memory";
	if (store === "memory") {
		if (values.schema !== void 0 || values["pool-size"] !== void 0) throw new require_cli.UsageError("--schema and --pool-size go with --store postgres.");
		return;
	}
	let url = store;
	if (store === "postgres") {
		url = env.DATABASE_URL ?? "";
		if (!url) throw new require_cli.UsageError("--store postgres reads its URL from DATABASE_URL, which is not set.");
	}
	if (!/^postgres(ql)?:\/\//.test(url)) throw new require_cli.UsageError(`Invalid --store. Expected ${STORE_FORM}.`);
	const schema = values.schema ?? env.LEASE_GATE_PG_SCHEMA ?? "public";
	if (!require_round_trips.SCHEMA_PATTERN.test(schema)) throw new require_cli.UsageError(`Invalid --schema '${schema}'. Expected ${require_round_trips.SCHEMA_FORM}.`);
	const size = values["pool-size"] ?? "10";
	if (!/^\d{1,3}$/.test(size) || Number(size) < 2 || Number(size) > 100) throw new require_cli.UsageError(`Invalid --pool-size '${size}'. Expected a whole number from 2 to 100.`);
	return {
		url,
		schema,
		poolSize: Number(size)
	};
}
/** Opens the PostgreSQL service (loaded only when asked for: `pg` stays off every other path). */
async function openPostgres(options, rest) {
	const { PostgresService } = await Promise.resolve().then(() => require("./backend-Bo1fZP-H.js"));
	return PostgresService.open({
		...options,
		...rest
	});
}
/** `lease-gate kernel migrate --store \u2026`: brings the schema to this version, and nothing else. */
async function migrateCommand(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.STORE_FLAGS));
	const options = postgresFrom(values, env);
	if (!options) throw new require_cli.UsageError(`kernel migrate needs --store. Expected ${STORE_FORM}.`);
	const { migrateDatabase } = await Promise.resolve().then(() => require("./migrate-once-Cd1bG8Pa.js"));
	const applied = await migrateDatabase(options);
	io.out(applied.length ? `migrated schema ${options.schema} to version ${applied.at(-1)} (applied ${applied.join(", ")})` : `schema ${options.schema} is current`);
	return require_cli.EXIT.done;
}
// src/github/compare-budget.ts
/**
* The bounds (docs/promotion-order.md). At most 200 + 1,200 calls in the first hour and
* 1,200 an hour after: a quarter of a 5,000/h token. A caller: 40 calls (two whole checks
* of 20 commits), then one every 30 s.
*/
const COMPARE_LIMITS = {
	kernel: {
		burst: 200,
		perHour: 1200
	},
	caller: {
		burst: 40,
		perHour: 120
	},
	inFlight: 4,
	callers: 1e4
};
const HOUR_MS = 36e5;
/** A token bucket: `burst` tokens, refilled at `perHour`. */
var Bucket = class {
	limit;
	tokens;
	at;
	constructor(limit, now) {
		this.limit = limit;
		this.tokens = limit.burst;
		this.at = now;
	}
	/** 0 when a token is there now, else the milliseconds until one is. */
	waitMs(now) {
		this.tokens = Math.min(this.limit.burst, this.tokens + (now - this.at) * this.limit.perHour / HOUR_MS);
		this.at = now;
		return this.tokens >= 1 ? 0 : (1 - this.tokens) * HOUR_MS / this.limit.perHour;
	}
	take() {
		this.tokens -= 1;
	}
};
/** The budget was spent: not GitHub's answer, so nothing about the commit is kept. */
var CompareBudgetSpent = class extends require_log_output.GitHubError {
	name = "CompareBudgetSpent";
};
var CompareBudget = class {
	clock;
	limits;
	kernel;
	callers = /* @__PURE__ */ new Map();
	out = 0;
	waiting = [];
	constructor(clock, limits = COMPARE_LIMITS) {
		this.clock = clock;
		this.limits = limits;
		this.kernel = new Bucket(limits.kernel, clock.now());
	}
	/**
	* Takes one call from `caller`'s budget and the kernel's, or throws naming the bound that
	* is spent and when the next call is there. Neither is taken unless both have one.
	*/
	take(caller) {
		const now = this.clock.now();
		const own = caller === void 0 ? void 0 : this.callerBucket(caller, now);
		const ownWait = own?.waitMs(now) ?? 0;
		if (ownWait > 0) throw this.spent(`for ${caller}`, this.limits.caller, ownWait);
		const kernelWait = this.kernel.waitMs(now);
		if (kernelWait > 0) throw this.spent("for all callers", this.limits.kernel, kernelWait);
		own?.take();
		this.kernel.take();
	}
	/** Runs `call` once fewer than `inFlight` calls are out, in the order they came. */
	async slot(call) {
		if (this.out >= this.limits.inFlight) await new Promise((resolve) => this.waiting.push(resolve));
		else this.out += 1;
		try {
			return await call();
		} finally {
			const next = this.waiting.shift();
			if (next) next();
			else this.out -= 1;
		}
	}
	callerBucket(caller, now) {
		let bucket = this.callers.get(caller);
		if (bucket) this.callers.delete(caller);
		else bucket = new Bucket(this.limits.caller, now);
		this.callers.set(caller, bucket);
		if (this.callers.size > this.limits.callers) this.callers.delete(this.callers.keys().next().value);
		return bucket;
	}
	spent(whose, limit, waitMs) {
		const every = Math.round(HOUR_MS / limit.perHour / 1e3);
		return new CompareBudgetSpent(`the kernel's GitHub compare budget ${whose} is spent (${limit.burst} calls, then one every ${every} s); try again in ${Math.ceil(waitMs / 1e3)} s`, { status: 0 });
	}
};
// src/github/compare.ts
const RETRY = {
	baseMs: 250,
	capMs: 2e3,
	maxAttempts: 5
};
const USER_AGENT = "lease-gate-kernel";
/**
* How long a commit GitHub could not answer about (unknown to it, GitHub down, the token
* refused) is refused without asking again: one failure, not one per request and candidate.
*/
const FAILED_FOR_MS = 6e4;
const statusSchema = require_cli.object({ status: require_cli._enum([
	"ahead",
	"behind",
	"identical",
	"diverged"
]) });
function createGitHubCompare(options) {
	const compare = {
		options,
		budgetMs: options.budgetMs ?? 1e4,
		policy: options.retry ?? RETRY,
		budget: options.budget ?? new CompareBudget(options.clock),
		kept: /* @__PURE__ */ new Map(),
		failed: /* @__PURE__ */ new Map()
	};
	return { contains: (repository, base, head, caller) => contains(compare, repository, base, head, caller) };
}
async function contains(compare, repository, base, head, caller) {
	if (!require_cli.REPOSITORY_PATTERN.test(repository) || !require_cli.COMMIT_PATTERN.test(base) || !require_cli.COMMIT_PATTERN.test(head)) throw new require_log_output.GitHubError("compare: expected owner/repo and two full commit ids", { status: 0 });
	if (base === head) return true;
	const { kept } = compare;
	const key = `${repository} ${base} ${head}`;
	const known = kept.get(key);
	if (known !== void 0) return known;
	const commit = `${repository} ${base}`;
	failedBefore(compare, commit);
	let answer;
	try {
		answer = await ask$1(compare, repository, base, head, caller);
	} catch (error) {
		keepFailure(compare, commit, error);
		throw error;
	}
	kept.set(key, answer);
	if (kept.size > 1e4) kept.delete(kept.keys().next().value);
	return answer;
}
async function ask$1({ options, budgetMs, policy, budget }, repository, base, head, caller) {
	const { http, clock, sleep } = options;
	const [owner, repo] = repository.split("/");
	const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/compare/${base}...${head}?per_page=1`;
	const what = `GitHub's compare of ${repository} ${base.slice(0, 12)}...${head.slice(0, 12)}`;
	const until = clock.now() + budgetMs;
	let refreshed = false;
	for (let attempt = 1;; attempt += 1) {
		let answer;
		let why;
		let waitMs;
		budget.take(caller);
		try {
			const headers = require_log_output.restHeaders(await options.token(), USER_AGENT);
			answer = await budget.slot(() => http.send({
				method: "GET",
				url: `${options.apiUrl}${path}`,
				headers
			}));
		} catch (error) {
			if (!(error instanceof require_cli.HttpError) || error.failure === "cancelled") throw error;
			why = require_log_output.printable(require_cli.causeText(error));
			waitMs = require_time.backoffMs(policy, attempt, options.random);
		}
		if (answer) {
			if (answer.status === 200) {
				const body = statusSchema.safeParse(require_log_output.parseJson(answer.text));
				if (!body.success) throw new require_log_output.GitHubError(`${what} answered no status GitHub documents`, { status: 200 });
				return body.data.status === "ahead" || body.data.status === "identical";
			}
			if (answer.status === 401 && !refreshed) {
				refreshed = true;
				continue;
			}
			why = `GitHub answered ${answer.status}: ${require_log_output.printable(require_log_output.answerMessage(answer.text))}`;
			waitMs = require_log_output.retryWait(answer, options.wallNow(), policy, attempt, options.random);
			if (waitMs === void 0) throw new require_log_output.GitHubError(`${what}: ${why}`, { status: answer.status });
		}
		if (attempt >= policy.maxAttempts || waitMs > until - clock.now()) throw new require_log_output.GitHubError(`${what}: ${why}; gave up after ${attempt} attempts`, { status: answer?.status ?? 0 });
		await sleep(waitMs);
	}
}
/** The failure kept for this commit, thrown again while it stands. */
function failedBefore({ failed, options }, key) {
	const before = failed.get(key);
	if (!before) return;
	const leftMs = before.untilMs - options.clock.now();
	if (leftMs <= 0) return void failed.delete(key);
	throw new require_log_output.GitHubError(`${before.message}; this commit is not asked about again for ${Math.ceil(leftMs / 1e3)} s`, { status: before.status });
}
function keepFailure({ failed, options }, key, error) {
	if (!(error instanceof require_log_output.GitHubError) || error instanceof CompareBudgetSpent) return;
	failed.delete(key);
	failed.set(key, {
		untilMs: options.clock.now() + FAILED_FOR_MS,
		message: error.message,
		status: error.status
	});
	if (failed.size > 1e4) failed.delete(failed.keys().next().value);
}
// src/cli/compare-flag.ts
const DEFAULT_GITHUB_API_URL = "https://api.github.com";
/**
* `--github-token-file FILE [--github-api-url URL]`: the kernel may ask GitHub's compare
* whether a commit that completed the step before contains the one asking (a descendant
* passes the promotion order). The token is read from the file at each question, so a
* rotated one is used without a restart, and is never printed or kept; the URL must be
* https: (plain http: to loopback only), since the token goes with every question.
*/
function githubFlags(values, promote) {
	const file = values["github-token-file"];
	const rawUrl = values["github-api-url"];
	if (file === void 0) {
		if (rawUrl !== void 0) throw new require_cli.UsageError("--github-api-url needs --github-token-file FILE.");
		return;
	}
	if (!promote) throw new require_cli.UsageError("--github-token-file is for the promotion order: give it with --promote FROM->TO.");
	const url = require_cli.parsePlaneUrl(rawUrl ?? "https://api.github.com");
	if (!url.ok) throw new require_cli.UsageError(`Invalid --github-api-url '${require_cli.urlForDisplay(rawUrl ?? "")}'. Expected an https:// URL such as ${DEFAULT_GITHUB_API_URL} or https://HOST/api/v3, without credentials, query or fragment (plain http:// only on loopback).`);
	return {
		tokenFile: file,
		apiUrl: url.url
	};
}
/** GitHub's compare for the promotion order, its token file read once now (it must hold one). */
async function openCompare({ tokenFile: file, apiUrl }, env) {
	const token = async () => {
		let text;
		try {
			text = (await (0, node_fs_promises.readFile)(file, "utf8")).trim();
		} catch (error) {
			throw new require_cli.UsageError(`Cannot read --github-token-file '${require_cli.untrusted(file, 200)}': ${error.code ?? "unreadable"}.`, { cause: error });
		}
		if (!/^[\x21-\x7e]{1,4096}$/.test(text)) throw new require_cli.UsageError(`--github-token-file '${require_cli.untrusted(file, 200)}' holds no token: expected one line of printable ASCII.`);
		return text;
	};
	await token();
	const http = require_cli.createHttpClient({ env });
	return {
		compare: createGitHubCompare({
			apiUrl,
			http,
			token,
			clock: require_time.systemClock,
			sleep: require_time.realSleep,
			wallNow: Date.now,
			random: Math.random
		}),
		apiUrl,
		close: () => http.close()
	};
}
// src/cli/kernel-settings.ts
/**
* Flags and environment \u2192 the kernel's settings, or a UsageError naming the flag and the
* form it takes. Pure: no file is read here (startKernel reads keys, policies, windows).
*/
function kernelSettings(values, env) {
	const port = wholeNumber(values.port, "--port", 0, 65535, "a port number from 0 to 65535 (0 picks a free one)");
	const ttlMs = milliseconds(values["ttl-ms"], "--ttl-ms");
	const lockDelayMs = parseLockDelay(values["lock-delay-ms"], ttlMs);
	const healthChecks = parseHealthChecks(values["health-check"]);
	const healthIntervalMs = milliseconds(values["health-interval-ms"], "--health-interval-ms");
	if (values["health-freeze-held"] && !healthChecks.length) throw new require_cli.UsageError("--health-freeze-held needs a --health-check RESOURCE=URL.");
	const publicUrls = values["public-url"];
	const parsedUrls = publicUrls.map((url) => {
		const parsed = parsePublicUrl(url);
		if (!parsed) throw new require_cli.UsageError(`Invalid --public-url '${url}'. Expected ${PUBLIC_URL_FORM}.`);
		return parsed;
	});
	const host = values.host.replace(/^\[(.*)\]$/, "$1");
	const keys = require_log_output.kernelKeysOf(env, host, parsedUrls);
	const oidcOn = values["oidc-audience"] ?? (values["oidc-issuers"] ? "issuers file" : void 0);
	const approverOidc = approverOidcOf(values["approver-oidc"], oidcOn, env);
	const promote = require_checkpoint.promoteFlag(values.promote);
	const github = githubFlags(values, promote);
	if (!require_cli.isLoopbackHost(host) && !keys.key && !values.keys && !oidcOn) throw new require_cli.UsageError(`Refusing to listen on ${values.host} without a credential: set LEASE_GATE_KERNEL_KEY, --keys FILE or --oidc-audience, or keep --host on loopback.`);
	authFlagsChecked(values, keys.key);
	const warnings = [];
	const dataPrefix = dataPrefixFrom(values, warnings);
	const postgres = postgresFrom(values, env);
	if (postgres && (dataPrefix || values.ledger)) throw new require_cli.UsageError("--store postgres keeps the log in the database: drop --data-prefix and --ledger.");
	if (postgres && !values["signing-key"]) throw new require_cli.UsageError("--store postgres needs --signing-key FILE: every replica signs the shared ledger with the same key.");
	return {
		host,
		port,
		ttlMs,
		lockDelayMs,
		publicUrls,
		keys,
		approverOidc,
		promote,
		github,
		healthChecks,
		healthIntervalMs,
		healthFreezeHeld: values["health-freeze-held"],
		auth: authOf(values),
		logFile: values.ledger ?? (dataPrefix ? `${dataPrefix}.ledger.jsonl` : void 0),
		postgres,
		signingKeyFile: values["signing-key"],
		windowsFile: values.windows,
		notify: {
			urls: values.notify ?? [],
			secretFile: values["notify-secret-file"],
			file: values["notify-file"]
		},
		exitWithPid: Number(values["exit-with-pid"]),
		quiet: values.quiet,
		logFormat: require_log_output.logFormatOf(values["log-format"], env),
		warnings
	};
}
/** Only the credential flags, for kernelAuth() at start. */
const authOf = (values) => ({
	"oidc-issuer": values["oidc-issuer"],
	"oidc-audience": values["oidc-audience"],
	"oidc-issuers": values["oidc-issuers"],
	"oidc-did-host": values["oidc-did-host"],
	policy: values.policy,
	keys: values.keys
});
/** Digits only, from `min` to `max`, else refused naming the flag and `form`. */
function wholeNumber(raw, flag, min, max, form) {
	const n = Number(raw);
	if (!/^\d+$/.test(raw) || n < min || n > max) throw new require_cli.UsageError(`Invalid ${flag} '${raw}'. Expected ${form}.`);
	return n;
}
/** A period in milliseconds, from 100 ms to an hour (--ttl-ms, --health-interval-ms). */
const milliseconds = (raw, flag) => wholeNumber(raw, flag, 100, 36e5, "milliseconds from 100 to 3600000");
/**
* `--approver-oidc PATTERN` (repeatable): OIDC identities that may approve a break-glass, a
* glob over the verified token's `sub` (`repo:acme/ops:environment:break-glass`), so a
* reviewer-protected workflow can be the second approver. Tokens are verified as every
* token is, which needs --oidc-audience; the admin key opens what they approve.
*/
function approverOidcOf(patterns, audience, env) {
	if (!patterns.length) return void 0;
	if (audience === void 0) throw new require_cli.UsageError("--approver-oidc needs --oidc-audience AUD (and --policy FILE): the kernel verifies the approvers' tokens as it verifies the jobs'.");
	if (!env.LEASE_GATE_ADMIN_KEY) throw new require_cli.UsageError("--approver-oidc approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.");
	for (const pattern of patterns) if (!/^[\x21-\x7e]{1,256}$/.test(pattern) || !/^repo:[A-Za-z0-9][A-Za-z0-9-]*\//.test(pattern)) throw new require_cli.UsageError(`Invalid --approver-oidc '${pattern.slice(0, 80)}'. Expected a glob over a token's sub that starts with repo:OWNER/, such as repo:acme/ops:environment:break-glass (printable, no spaces).`);
	return [...patterns];
}
/** `--health-check RESOURCE=URL`, repeated; one check per resource. */
function parseHealthChecks(specs) {
	const checks = [];
	for (const spec of specs) {
		let check;
		try {
			check = parseHealthCheck(spec);
		} catch (error) {
			if (error instanceof HealthCheckError) throw new require_cli.UsageError(error.message, { cause: error });
			throw error;
		}
		if (checks.some((c) => c.resource === check.resource)) throw new require_cli.UsageError(`--health-check names ${check.resource} twice: one check per resource.`);
		checks.push(check);
	}
	return checks;
}
/** `--lock-delay-ms`: 0 (none) up to a lease lifetime; one renewal interval plus grace by default. */
function parseLockDelay(raw, ttlMs) {
	if (raw === void 0) return defaultLockDelayMs(ttlMs);
	const ms = Number(raw);
	if (!/^\d{1,10}$/.test(raw) || ms > ttlMs) throw new require_cli.UsageError(`Invalid --lock-delay-ms '${raw}'. Expected milliseconds from 0 to the lease lifetime (--ttl-ms, ${ttlMs}).`);
	return ms;
}
/**
* --data-prefix PATH: the kernel's log is PATH.ledger.jsonl. It was called --state, a
* name for a file that holds no state; that name still works and says so once.
*/
function dataPrefixFrom(values, warnings) {
	if (values.state === void 0) return values["data-prefix"];
	if (values["data-prefix"] !== void 0) throw new require_cli.UsageError("Give --data-prefix only: --state is its old name.");
	warnings.push(`lease-gate kernel: --state is now --data-prefix (the log is ${values.state}.ledger.jsonl); the old name will go in a later major release.`);
	return values.state;
}
// src/ledger/ledger-error.ts
/** A ledger that cannot be appended to, sealed or read back as asked. */
var LedgerError = class extends require_cli.LeaseGateError {
	name = "LedgerError";
	/** `code`: only for its subclasses (ledger_lines_not_loaded). */
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: options.code ?? "ledger"
		});
	}
};
/** Chunks kept at most between loads (about 16,000 lines). */
const KEEP_CHUNKS = 64;
/** A read of a line that no load made readable; Ledger.read loads again and retries. */
var LinesNotLoadedError = class extends LedgerError {
	name = "LinesNotLoadedError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "ledger_lines_not_loaded"
		});
	}
};
/**
* A ledger's lines kept elsewhere and read back asynchronously (the
* PostgreSQL store's table): memory holds the count and the chunks the last
* loads asked for, at most KEEP_CHUNKS of them, never the history. `fetch`
* returns lines [lo, hi) in order; it is the only I/O, and it is the caller's.
*/
var FetchedLines = class {
	fetch;
	readsBack = true;
	length = 0;
	/** Chunk start \u2192 its lines' bytes, least recently loaded first. */
	chunks = /* @__PURE__ */ new Map();
	constructor(fetch) {
		this.fetch = fetch;
	}
	/** Starts an empty source at `length` lines already kept (a tree restored from its frontier). */
	restore(length) {
		if (this.length !== 0) throw new RangeError("only an empty source restores");
		this.length = length;
	}
	/** Counts the line and returns its bytes for hashing; it is read back when asked for. */
	push(line) {
		this.length += 1;
		return Buffer.from(line, "utf8");
	}
	at(i) {
		return this.line(i).toString("utf8");
	}
	bytes(lo, hi) {
		const out = [];
		for (let i = lo; i < hi; i += 1) out.push(this.line(i));
		return out;
	}
	/** Reads the chunks of lines [lo, hi) that are not kept whole, in one fetch a run of them. */
	async load(lo, hi) {
		const end = Math.min(hi, this.length);
		const missing = [];
		for (let start = lo - lo % 256; start < end; start += 256) {
			const kept = this.chunks.get(start);
			if (kept && kept.length === Math.min(256, this.length - start)) {
				this.chunks.delete(start);
				this.chunks.set(start, kept);
			} else missing.push(start);
		}
		for (let i = 0; i < missing.length;) {
			let j = i + 1;
			while (j < missing.length && missing[j] === missing[j - 1] + 256) j += 1;
			const from = missing[i];
			const to = Math.min(missing[j - 1] + 256, this.length);
			const lines = await this.fetch(from, to);
			if (lines.length !== to - from) throw new LedgerError(`ledger lines ${from}..${to} could not be read back`);
			for (let start = from; start < to; start += 256) {
				const chunk = lines.slice(start - from, start - from + 256).map((line) => Buffer.from(line, "utf8"));
				this.chunks.delete(start);
				this.chunks.set(start, chunk);
			}
			i = j;
		}
		for (const start of this.chunks.keys()) {
			if (this.chunks.size <= KEEP_CHUNKS) break;
			this.chunks.delete(start);
		}
	}
	get heldBytes() {
		let bytes = 0;
		for (const chunk of this.chunks.values()) for (const line of chunk) bytes += line.length;
		return bytes;
	}
	line(i) {
		const start = i - i % 256;
		const line = this.chunks.get(start)?.[i - start];
		if (!line) throw new LinesNotLoadedError(`ledger line ${i} is not loaded`);
		return line;
	}
};
// src/ledger/lines.ts
const CHUNK_BYTES = 4194304;
/** Per line: its chunk, its offset in the chunk, its length in bytes. */
const SLOTS = 3;
var LineStore = class {
	readsBack = false;
	chunks = [];
	used = CHUNK_BYTES;
	index = new Uint32Array(SLOTS * 1024);
	length = 0;
	/** Keeps one line; returns its bytes (a view that stays valid, for hashing). */
	push(line) {
		const most = line.length * 3;
		if (this.chunks.length === 0 || this.used + most > this.chunks.at(-1).length) {
			this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, most)));
			this.used = 0;
		}
		const chunk = this.chunks.length - 1;
		const bytes = this.chunks[chunk].write(line, this.used, "utf8");
		if ((this.length + 1) * SLOTS > this.index.length) {
			const bigger = new Uint32Array(this.index.length * 2);
			bigger.set(this.index);
			this.index = bigger;
		}
		const at = this.length * SLOTS;
		this.index[at] = chunk;
		this.index[at + 1] = this.used;
		this.index[at + 2] = bytes;
		this.length += 1;
		const view = this.chunks[chunk].subarray(this.used, this.used + bytes);
		this.used += bytes;
		return view;
	}
	/** The line at `i` (0 \u2264 i < length). */
	at(i) {
		const at = i * SLOTS;
		const start = this.index[at + 1];
		return this.chunks[this.index[at]].toString("utf8", start, start + this.index[at + 2]);
	}
	bytes(lo, hi) {
		const out = [];
		for (let i = lo; i < hi; i += 1) {
			const at = i * SLOTS;
			const start = this.index[at + 1];
			out.push(this.chunks[this.index[at]].subarray(start, start + this.index[at + 2]));
		}
		return out;
	}
	get heldBytes() {
		return this.chunks.length * CHUNK_BYTES + this.index.byteLength;
	}
};
// src/ledger/ledger.ts
/** Loads and tries of one Ledger.read whose lines other reads keep pushing out. */
const READ_ATTEMPTS = 3;
/**
* The ledger's numbering, the one place it is written: entries follow the
* `size` already recorded, and each is stamped with the plane's clock made
* strictly increasing after `lastTs` (the last recorded stamp; -1 for none).
* A lapse stamped one after the stamp before it carries the clock that found
* it due (`clockMs`): a run of +1 stamps may run ahead of the clock, so its
* stamp alone does not show it came no earlier than the lease's expiry. So
* does a grant a break-glass let through (`clocked`): its stamp alone does not
* show it came before the pass ended.
* The in-memory ledger and the PostgreSQL sequencer both use it; the sequencer numbers after
* lease_gate_sequenced's size and last stamp, one replica at a time under its advisory lock
* (kernel/postgres/sequencer.ts): no row lock is shared by every commit.
*/
function numberEntries(events, size, lastTs) {
	let ts = lastTs;
	return events.map((event, i) => {
		const clock = Math.round(event.atMs);
		const before = ts;
		ts = Math.max(clock, before + 1);
		const inRun = (event.kind === "lapse" || event.clocked === true) && ts === before + 1;
		return require_checkpoint.entryOf(event, size + i, ts, inRun ? clock : void 0);
	});
}
/**
* The append-only, Merkle-sealed record of every grant, renewal, release,
* lapse and revocation, in memory. Whoever keeps it durable (the kernel's
* store) prepares entries, writes their lines, and only then accepts them.
* Without a signing key it is still a log and a tree, but signs no checkpoint.
*/
var Ledger = class {
	signingKey;
	origin;
	publicKey;
	tree = new require_checkpoint.MerkleTree();
	/** The accepted entries as their canonical lines (the Merkle leaves): off the heap, or in the log file. */
	lines = new LineStore();
	lastTs = -1;
	signed;
	record;
	/** The largest size the record holds. */
	keptSize = 0;
	keeping = Promise.resolve();
	constructor(signingKey) {
		this.signingKey = signingKey;
		this.publicKey = signingKey && (0, node_crypto.createPublicKey)(signingKey);
		this.origin = this.publicKey && require_checkpoint.originFor(this.publicKey);
	}
	get size() {
		return this.tree.size;
	}
	/**
	* Keeps the lines in `source` from now on (a file kernel's log, read back on
	* demand): then the tree keeps only its chunks' hashes and recomputes the
	* rest from the lines. Only before the first entry.
	*/
	readFrom(source) {
		if (this.size !== 0 || this.lines.length !== 0) throw new LedgerError("a ledger changes where it keeps its lines only while empty");
		this.lines = source;
		this.tree = new require_checkpoint.MerkleTree(source.readsBack ? { leaves: (lo, hi) => source.bytes(lo, hi) } : {});
	}
	/** What a snapshot keeps of the ledger: its size, last stamp, root and the tree's chunk roots. */
	snapshot() {
		return {
			size: this.size,
			lastTs: this.lastTs,
			root: Buffer.from(this.tree.root()).toString("base64"),
			chunkRoots: Buffer.from(this.tree.chunkRoots()).toString("base64")
		};
	}
	/**
	* Takes a snapshot's ledger in over `source`, whose lines are already
	* restored to the snapshot's size: the tree from its chunk roots and the
	* leaves after them read back, kept only when it has the root the snapshot
	* names (else this throws and the ledger is still empty). The caller checks
	* the snapshot against the log.
	*/
	restoreFrom(source, snapshot) {
		if (this.size !== 0 || this.lines.length !== 0 || source.length !== snapshot.size) throw new LedgerError("a snapshot restores only an empty ledger over its own lines");
		const tree = new require_checkpoint.MerkleTree({ leaves: (lo, hi) => source.bytes(lo, hi) });
		tree.restoreChunks(new Uint8Array(Buffer.from(snapshot.chunkRoots, "base64")));
		if (tree.size > snapshot.size) throw new LedgerError("the snapshot has more chunks than entries");
		for (const bytes of source.bytes(tree.size, snapshot.size)) tree.append(bytes);
		if (Buffer.from(tree.root()).toString("base64") !== snapshot.root) throw new LedgerError("the snapshot's tree does not have the root it names");
		this.lines = source;
		this.tree = tree;
		this.lastTs = snapshot.lastTs;
	}
	/** The tree's root at `size` (all by default), base64, as a snapshot names it. */
	rootAt(size = this.size) {
		return Buffer.from(this.tree.root(size)).toString("base64");
	}
	/** Bytes this ledger keeps in memory for its lines and its tree. */
	get heldBytes() {
		return this.lines.heldBytes + this.tree.heldBytes;
	}
	get signs() {
		return this.signingKey !== void 0;
	}
	/** Numbers and times new entries after the accepted ones; changes nothing. */
	prepare(events) {
		const entries = numberEntries(events, this.lines.length, this.lastTs);
		const lines = entries.map(require_checkpoint.entryJson);
		let text = "";
		for (const line of lines) text += `${line}\n`;
		return {
			entries,
			text,
			lines
		};
	}
	/** Takes prepared entries in once they are durable; `lines` are their canonical JSON when known. */
	accept(entries, lines) {
		entries.forEach((entry, i) => {
			if (entry.seq !== this.lines.length) throw new LedgerError(`entry ${entry.seq} accepted out of order`);
			this.tree.append(this.lines.push(lines?.[i] ?? require_checkpoint.entryJson(entry)));
			this.lastTs = entry.tsMs;
		});
	}
	/** Prepares and accepts one entry at once (an in-memory ledger). */
	append(event) {
		const { entries, lines } = this.prepare([event]);
		this.accept(entries, lines);
		return entries[0];
	}
	/** Takes in one line read back from durable storage, checked as untrusted. */
	load(line, where) {
		let parsed;
		try {
			parsed = JSON.parse(line);
		} catch {
			throw new LedgerError(`${where} is not JSON; the ledger is damaged before its last record`);
		}
		const entry = require_checkpoint.entrySchema.safeParse(parsed);
		if (!entry.success || entry.data.seq !== this.lines.length || require_checkpoint.canonicalJson(entry.data) !== line) throw new LedgerError(`${where} is not the ledger entry ${this.lines.length} in canonical form`);
		this.accept([entry.data], [line]);
		return entry.data;
	}
	/**
	* Runs `use` (entry, page, pageJson, checkpoint: synchronous) once what it
	* reads of entries [from, to) and their proofs in the tree of `size` is
	* readable. Lines kept in memory or in a file always are; lines read back
	* asynchronously (a database, FetchedLines) are loaded first: those lines,
	* and the chunks at the tree's right edge at `size` and at the last signed
	* size, which proofs and checkpoints recompute. Another read may push them
	* out while this one waits, so `use` runs again after a fresh load (bounded).
	*/
	async read(from, to, size, use) {
		const { load } = this.lines;
		if (!load) return use();
		const chunk = this.tree.chunkSize;
		const open = this.size - this.size % chunk;
		const edge = (n) => {
			const start = n - 1 - (n - 1) % chunk;
			return n > 0 && start < open ? [start] : [];
		};
		for (let attempt = 1;; attempt += 1) {
			if (from < to) await load.call(this.lines, from, to);
			for (const start of /* @__PURE__ */ new Set([...edge(size), ...edge(this.signed?.size ?? 0)])) await load.call(this.lines, start, start + chunk);
			try {
				return use();
			} catch (error) {
				if (!(error instanceof LinesNotLoadedError) || attempt >= READ_ATTEMPTS) throw error;
			}
		}
	}
	entry(index) {
		if (!(Number.isInteger(index) && index >= 0 && index < this.lines.length)) return void 0;
		return JSON.parse(this.lineAt(index));
	}
	/**
	* The line at `index`. One read back from where it is kept (a file, a
	* database) is checked against the tree's leaf first: a line changed after
	* it was hashed is refused here, never served beside a proof it fails.
	*/
	lineAt(index) {
		const line = this.lines.at(index);
		if (this.lines.readsBack && !require_checkpoint.equalHashes(require_checkpoint.leafHash(Buffer.from(line, "utf8")), this.tree.leafHashAt(index))) throw new LedgerError(`ledger line ${index} read back is not the line the tree holds`);
		return line;
	}
	/**
	* Keeps every larger checkpoint in `record` before it goes out (see
	* `signedCheckpoint`); `kept` is the one the record holds now, which the
	* caller has checked against this ledger.
	*/
	keepSignedIn(record, kept) {
		this.record = record;
		this.keptSize = kept?.size ?? 0;
	}
	/**
	* The signed checkpoint of the first `size` entries, read as `read` reads,
	* and, when it is the largest signed yet, made durable in the record first:
	* what is handed out is what a restart holds the log to.
	*/
	async signedCheckpoint(size = this.size) {
		const text = await this.read(size, size, size, () => this.checkpoint(size));
		const keep = this.keeping.catch(() => void 0).then(async () => {
			const signed = this.signed;
			if (!this.record || !signed || signed.size <= this.keptSize) return;
			await this.record.keep({
				size: signed.size,
				root: Buffer.from(signed.root).toString("base64")
			});
			this.keptSize = Math.max(this.keptSize, signed.size);
		});
		this.keeping = keep;
		await keep;
		return text;
	}
	/** The signed checkpoint of the first `size` entries (all by default). */
	checkpoint(size = this.tree.size) {
		if (!this.signingKey || !this.origin) throw new LedgerError("this kernel has no signing key, so it signs no checkpoint");
		if (this.signed?.size === size) return this.signed.text;
		const root = this.tree.root(size);
		if (this.signed && size > this.signed.size) {
			const proof = this.tree.consistencyProof(this.signed.size, size);
			if (!require_checkpoint.verifyConsistency(this.signed.size, size, this.signed.root, root, proof)) throw new LedgerError("refusing to sign a checkpoint inconsistent with the last one signed");
		}
		const text = require_checkpoint.signCheckpoint({
			origin: this.origin,
			size,
			root
		}, this.signingKey);
		if (!this.signed || size > this.signed.size) this.signed = {
			size,
			root,
			text
		};
		return text;
	}
	/** Entries [from, to) with inclusion proofs against the tree of `size` (a page of an export). */
	page(from, to, size = this.size) {
		return this.pageJson(from, to, size).map((json) => JSON.parse(json));
	}
	/**
	* The same page, each bundle entry already as JSON: the entry's canonical
	* line is spliced in as it is kept, never parsed and written again.
	*/
	pageJson(from, to, size = this.size) {
		if (!(0 <= from && from <= to && to <= size && size <= this.size)) throw new LedgerError(`range ${from}..${to} is not within 0..${size}`);
		const proofs = this.tree.inclusionProofs(from, to, size);
		const json = [];
		for (let index = from; index < to; index += 1) {
			const proof = proofs[index - from].map((h) => Buffer.from(h).toString("base64"));
			json.push(`{"index":${index},"entry":${this.lineAt(index)},"inclusionProof":${JSON.stringify(proof)}}`);
		}
		return json;
	}
	/** Entries [from, to) with inclusion proofs against the current checkpoint. */
	bundle(from = 0, to = this.size) {
		if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= this.size)) throw new LedgerError(`range ${from}..${to} is not within 0..${this.size}`);
		return {
			checkpoint: this.checkpoint(),
			entries: this.page(from, to)
		};
	}
};
// src/kernel/http/api.ts
/** A user's mistake or a refusal: answered with `{ ok: false, reason, message }`. */
var ApiRefusal = class extends require_cli.LeaseGateError {
	name = "ApiRefusal";
	status;
	/** The answer's `reason` (`bad_request`, `not_found`, \u2026): the wire's word for the kind. */
	reason;
	constructor(message, options) {
		super(message, {
			...require_cli.causeOf(options.cause),
			code: "api_refusal"
		});
		this.status = options.status;
		this.reason = options.reason;
	}
};
function parse(schema, body) {
	const result = schema.safeParse(body);
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	throw new ApiRefusal(`${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`, {
		status: 400,
		reason: "bad_request"
	});
}
// src/kernel/http/admin.ts
/**
* The operator's credentials, checked in one place: the Bearer comparison, the admin key
* every lever (revoke, freeze, unfreeze, break-glass) needs, the second approver's key or
* OIDC identity, and who may read why the kernel is not ready. Every route takes its check
* from here, so a lever cannot drift to a check of its own.
*/
/** Routes that take the admin key instead of the kernel's key. */
const ADMIN_PATHS = /* @__PURE__ */ new Set([
	require_cli.REVOKE_PATH,
	require_cli.FREEZE_PATH,
	require_cli.UNFREEZE_PATH,
	require_cli.BREAK_GLASS_PATH,
	require_cli.APPROVE_BREAK_GLASS_PATH,
	require_cli.WITHDRAW_BREAK_GLASS_PATH
]);
const ANY_LEVER = {
	doing: "This",
	disabled: "admin_disabled"
};
function operatorChecks(keys, auth) {
	const { adminKey } = keys;
	return {
		requireAdmin: (req, lever = ANY_LEVER) => requireAdmin(req, adminKey, lever),
		requireApprover: approverCheck(keys.approverKey, keys.approverOidc, auth),
		/**
		* `/readyz` answers anyone (a load balancer, a probe by address), but why it
		* is not ready (the store's error) and the notifier's failures (URLs' origins,
		* resource names) only the operator: the admin key or the kernel's shared key
		* (or anyone, on a keyless kernel). Not a scoped key or an OIDC token: any
		* repository's run gets a token that verifies, whether or not the policy lets
		* it lease anything.
		*/
		mayReadHealth: async (req) => {
			if (adminKey && bearerMatches(req.headers.authorization, adminKey)) return true;
			return auth.authorize(req.headers).then((principal) => principal.kind === "shared-key" || principal.kind === "open", () => false);
		}
	};
}
/** The operator's levers need the admin key; they are off without one. */
function requireAdmin(req, adminKey, lever) {
	if (!adminKey) throw new ApiRefusal(`${lever.doing} needs the kernel to be started with LEASE_GATE_ADMIN_KEY.`, {
		status: 403,
		reason: lever.disabled
	});
	if (!bearerMatches(req.headers.authorization, adminKey)) throw new ApiRefusal(`${lever.doing} needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.`, {
		status: 403,
		reason: "forbidden"
	});
}
/**
* The second operator's approval needs its own credential, so the admin key alone cannot do
* both halves: the approver key, or an OIDC token (verified as every token is) whose `sub`
* matches `--approver-oidc`; then the token, not the body, names the approver.
*/
function approverCheck(approverKey, patterns, auth) {
	if (approverKey === void 0 && !patterns?.length) return void 0;
	const matches = patterns?.length ? anyOf(patterns) : void 0;
	const needs = [...approverKey !== void 0 ? ["the approver key (LEASE_GATE_APPROVER_KEY)"] : [], ...patterns?.length ? [`an OIDC token whose sub matches ${patterns.join(" or ")}`] : []].join(" or ");
	return async (req) => {
		const header = req.headers.authorization;
		if (approverKey !== void 0 && bearerMatches(header, approverKey)) return { kind: "key" };
		const bearer = header?.startsWith("Bearer ") ? header.slice(7).trim() : "";
		if (matches && JWT_SHAPE.test(bearer)) {
			const principal = await auth.authorize(req.headers);
			if (principal.kind === "oidc") {
				if (principal.issuer.kind !== "github") throw new ApiRefusal(`A ${principal.issuer.kind} job's token (issuer ${principal.issuer.name}) may not approve a break-glass: OIDC approvers are GitHub Actions runs; approving needs ${needs} as the Bearer token.`, {
					status: 403,
					reason: "forbidden"
				});
				const sub = principal.claims.sub;
				const printable = typeof sub === "string" && SUB_PATTERN.test(sub);
				if (printable && matches(sub)) return {
					kind: "oidc",
					by: `oidc:${sub}`,
					repoPrefix: repoPrefixOf(principal.run.didPrefix),
					approval: principal.run.didPrefix.slice(0, -1)
				};
				throw new ApiRefusal(`${printable ? `This token's sub (${sub})` : "A token without a printable sub"} may not approve a break-glass: approving needs ${needs} as the Bearer token.`, {
					status: 403,
					reason: "forbidden"
				});
			}
		}
		throw new ApiRefusal(`Approving a break-glass needs ${needs} as the Bearer token.`, {
			status: 403,
			reason: "forbidden"
		});
	};
}
/**
* `did:web:<host>:<owner>:<repo>:` from a run's DID prefix: every run and attempt of the
* repository shares it, so a re-run cannot approve the pass its first attempt was given.
*/
function repoPrefixOf(didPrefix) {
	return didPrefix.slice(0, didPrefix.indexOf(":actions:runs:") + 1);
}
/** Three base64url parts: what a JWS in compact form looks like. */
const JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;
/** A `sub` the ledger may name: printable, bounded (GitHub's are `repo:OWNER/REPO:\u2026`). */
const SUB_PATTERN = /^[\x21-\x7e]{1,256}$/;
const digest = (value) => (0, node_crypto.createHash)("sha256").update(value).digest();
/** Compares in constant time (over digests, so lengths do not leak either). */
function bearerMatches(header, key) {
	const value = header ?? "";
	const token = value.startsWith("Bearer ") ? value.slice(7) : "";
	return (0, node_crypto.timingSafeEqual)(digest(token), digest(key)) && token.length > 0;
}
// src/kernel/http/freeze-routes.ts
/** The longest freeze one command may name: a year (longer is a typo; unfreeze ends any). */
const MAX_FREEZE_MS = 316224e5;
/** Who the ledger names for a freeze made with the admin key. */
const ADMIN_OPERATOR = "operator:admin-key";
/** The operator's name (freeze, unfreeze and revoke bodies): one schema for the shape. */
const operatorBy = require_cli.optional(require_cli.string().check(require_cli._regex(require_cli.OPERATOR_NAME_PATTERN, `expected ${require_cli.OPERATOR_NAME_FORM}`)));
/**
* An operator's reason (freeze, break-glass, revoke): text of one line. The ledger signs
* it for good and terminals, the console and notifications show it, so a control
* character (NUL, ESC, a line break) is refused, as in the plane's other texts.
*/
const reasonText = (max = 1e3) => require_cli.string().check(require_cli._maxLength(max), require_cli._regex(require_cli.controlFree(), "expected text without control characters"));
/** A reason that must be given. */
const reasonGiven = reasonText().check(require_cli._minLength(1, "expected a reason"));
/** Who the ledger names: the operator's own name when it gave one. */
const operatorOf = (name) => name ? `operator:${name}` : ADMIN_OPERATOR;
const freezeBody = require_cli.object({
	resource: require_cli.resourceSchema,
	reason: reasonGiven,
	/** The end, as epoch milliseconds. */
	untilMs: require_cli.optional(require_cli.number().check(require_cli.int(), require_cli._positive())),
	/** Or the length, from now. */
	forMs: require_cli.optional(require_cli.number().check(require_cli.int(), require_cli._positive(), require_cli._lte(MAX_FREEZE_MS))),
	by: operatorBy
}).check(require_cli.refine((b) => b.untilMs === void 0 || b.forMs === void 0, {
	error: "give untilMs or forMs, not both",
	path: ["untilMs"]
}));
const unfreezeBody = require_cli.object({
	resource: require_cli.resourceSchema,
	by: operatorBy
});
/** POST freeze and unfreeze, with the admin key (`requireAdmin` throws without it). */
function freezeRoutes(service, requireAdmin) {
	return {
		[`POST ${require_cli.FREEZE_PATH}`]: async (req) => {
			requireAdmin(req);
			const body = parse(freezeBody, await req.json());
			const now = service.now();
			const untilMs = body.forMs !== void 0 ? now + body.forMs : body.untilMs ?? null;
			if (untilMs !== null && (untilMs <= now || untilMs > now + 316224e5)) throw new ApiRefusal(`untilMs: expected a time after now (${new Date(now).toISOString()}) and within a year`, {
				status: 400,
				reason: "bad_request"
			});
			return {
				status: 200,
				body: {
					ok: true,
					frozen: true,
					until: untilMs,
					changed: (await service.freeze(body.resource, body.reason, untilMs, operatorOf(body.by))).changed
				}
			};
		},
		[`POST ${require_cli.UNFREEZE_PATH}`]: async (req) => {
			requireAdmin(req);
			const { resource: r, by: name } = parse(unfreezeBody, await req.json());
			return {
				status: 200,
				body: {
					ok: true,
					frozen: false,
					changed: (await service.unfreeze(r, operatorOf(name))).changed
				}
			};
		}
	};
}
// src/kernel/http/break-glass-routes.ts
/** The pass's agent, or a GitHub run (`run`: OWNER/REPO/RUN_ID, plane/run-pass.ts) for any job of it. */
const run = require_cli.string().check(require_cli.refine((v) => require_run_pass.runPassDid(v) !== void 0, `expected ${require_run_pass.RUN_FORM}`));
const breakGlassBody = require_cli.object({
	resource: require_cli.resourceSchema,
	actorDid: require_cli.optional(require_cli.didSchema),
	run: require_cli.optional(run),
	reason: reasonGiven,
	/** How long the pass stays open, from now. */
	forMs: require_cli.optional(require_cli.number().check(require_cli.int(), require_cli._positive(), require_cli._lte(MAX_BREAK_GLASS_MS, `expected at most ${MAX_BREAK_GLASS_MS} (one hour)`))),
	by: operatorBy
});
const approveBody = require_cli.object({
	resource: require_cli.resourceSchema,
	actorDid: require_cli.optional(require_cli.didSchema),
	run: require_cli.optional(run),
	by: operatorBy
});
/** A cancel: the pass on `resource`, only if it is for `actorDid` (or `run`) when that is given. */
const withdrawBody = require_cli.object({
	resource: require_cli.resourceSchema,
	actorDid: require_cli.optional(require_cli.didSchema),
	run: require_cli.optional(run),
	by: operatorBy
});
function passDid(body, optional = false) {
	if (body.actorDid !== void 0 && body.run !== void 0) throw new ApiRefusal("actorDid or run: expected one of them, not both", {
		status: 400,
		reason: "bad_request"
	});
	if (body.run !== void 0) return require_run_pass.runPassDid(body.run);
	if (body.actorDid === void 0 && !optional) throw new ApiRefusal(`actorDid: expected ${require_cli.DID_FORM} (or run: ${require_run_pass.RUN_FORM})`, {
		status: 400,
		reason: "bad_request"
	});
	return body.actorDid;
}
/**
* POST break-glass (the admin key) and its approval (the approver key or an approver OIDC
* identity, when the kernel has one: then a break-glass waits for it). Approving with the
* admin key would let one key do both halves, so it is refused; so is a job approving its
* own repository's pass with a run's token.
*/
function breakGlassRoutes(service, requireAdmin, requireApprover) {
	return {
		[`POST ${require_cli.BREAK_GLASS_PATH}`]: async (req) => {
			requireAdmin(req);
			const body = parse(breakGlassBody, await req.json());
			const actorDid = passDid(body);
			const untilMs = service.now() + (body.forMs ?? 9e5);
			return answer(await service.breakGlass(body.resource, {
				actorDid,
				reason: body.reason,
				untilMs,
				by: operatorOf(body.by),
				needsApproval: requireApprover !== void 0
			}));
		},
		[`POST ${require_cli.APPROVE_BREAK_GLASS_PATH}`]: async (req) => {
			if (!requireApprover) throw new ApiRefusal("This kernel has no second approver (LEASE_GATE_APPROVER_KEY or --approver-oidc): a break-glass is open as soon as it is made.", {
				status: 409,
				reason: "no_approver"
			});
			const approver = await requireApprover(req);
			const parsed = parse(approveBody, await req.json());
			const body = {
				...parsed,
				actorDid: passDid(parsed)
			};
			if (approver.kind === "oidc") {
				if (body.by) throw new ApiRefusal(`by: an OIDC approver is named by its token (${approver.by}): leave by out`, {
					status: 400,
					reason: "bad_request"
				});
				if (body.actorDid.toLowerCase().startsWith(approver.repoPrefix.toLowerCase())) throw new ApiRefusal(`${approver.by} is a run of the repository the break-glass lets through (${body.actorDid}): an identity from elsewhere must approve it`, {
					status: 409,
					reason: "same_operator"
				});
				return answer(await service.approveBreakGlass(body.resource, body.actorDid, approver.by, approver.approval));
			}
			if (!body.by) throw new ApiRefusal(`by: expected the approver's name, so the ledger names who approved`, {
				status: 400,
				reason: "bad_request"
			});
			return answer(await service.approveBreakGlass(body.resource, body.actorDid, operatorOf(body.by)));
		},
		[`POST ${require_cli.WITHDRAW_BREAK_GLASS_PATH}`]: async (req) => {
			requireAdmin(req);
			const body = parse(withdrawBody, await req.json());
			const reply = await service.withdrawBreakGlass(body.resource, operatorOf(body.by), passDid(body, true));
			if (!reply.ok) return {
				status: 409,
				body: reply
			};
			return withdrawn(reply.withdrawn);
		}
	};
}
/** A withdrawal's answer: the pass that is gone. */
function withdrawn(pass) {
	const { body } = answer({
		ok: true,
		breakGlass: pass
	});
	return {
		status: 200,
		body: {
			...body,
			withdrawn: true
		}
	};
}
function answer(reply) {
	if (!reply.ok) return {
		status: 409,
		body: reply
	};
	const { actorDid: a, reason, by, untilMs, pending, approvedBy, approval } = reply.breakGlass;
	return {
		status: 200,
		body: {
			ok: true,
			actorDid: a,
			reason,
			by,
			until: untilMs,
			pending,
			...approvedBy !== void 0 ? { approvedBy } : {},
			...approval !== void 0 ? { approval } : {}
		}
	};
}
// src/kernel/auth/caller.ts
/**
* Whose GitHub compare budget a lease's descendant check spends (github/compare-budget.ts):
* what the credential says of its bearer. An OIDC token: its repository (any workflow or
* pull request of it can start runs, so they share one budget). A scoped key: its name. The
* shared key, or none: the DID asked for, since everyone with the key may be anyone; the
* kernel's own budget bounds them all together.
*/
function compareCaller(principal, actorDid) {
	if (principal.kind === "oidc") {
		const { run } = principal;
		return run.repository ? `the repository ${run.repository}` : run.described;
	}
	if (principal.kind === "scoped-key") return `key "${principal.key.name}"`;
	return actorDid;
}
const realTimers = {
	set: (run, ms) => setTimeout(run, ms),
	clear: (handle) => clearTimeout(handle)
};
var HeldCalls = class {
	service;
	maxWaitS;
	maxHeld;
	timers;
	count = 0;
	closing = false;
	/** The subclass's subscription to the service's changes, ended by `close`. */
	unsubscribe = () => void 0;
	constructor(service, options = {}) {
		this.service = service;
		this.maxWaitS = options.maxWaitS ?? 25;
		this.maxHeld = options.maxHeld ?? 1e3;
		this.timers = options.timers ?? realTimers;
	}
	/** True once `close` was called: answers should close their connections. */
	get stopping() {
		return this.closing;
	}
	/** How many requests are held (or admitted to be) right now. */
	get size() {
		return this.count;
	}
	/** Answers every held request at once (the kernel is stopping). */
	close() {
		this.closing = true;
		this.unsubscribe();
		this.answerAll();
	}
	/**
	* Whether a request preferring to wait `preferredS` seconds may be held: it asked for
	* a second or more, there is room under the cap, and the kernel is not stopping.
	*/
	mayHold(preferredS) {
		return Boolean(preferredS && preferredS >= 1 && this.count < this.maxHeld && !this.closing);
	}
	/** The wait applied to a held request: what it prefers, within the cap. */
	appliedWait(preferredS) {
		return Math.min(preferredS, this.maxWaitS);
	}
};
// src/kernel/service/held.ts
/**
* `wait=N` from RFC 7240 `Prefer` header(s) (node joins repeated ones with
* ", "); the first `wait` counts. Undefined when absent or not delta-seconds:
* a preference the server does not understand is ignored, never an error.
*/
function preferredWait(header) {
	if (!header) return void 0;
	for (const preference of header.split(",")) {
		const [token = "", ...rest] = (preference.split(";")[0] ?? "").split("=");
		if (token.trim().toLowerCase() !== "wait") continue;
		const value = rest.join("=").trim().replace(/^"(.*)"$/, "$1");
		return /^\d{1,10}$/.test(value) ? Number(value) : void 0;
	}
}
/**
* Lease requests held open until they can be granted (blocking acquire).
* A held request is an ordinary waiter in the rules' queue: it asked once and
* was refused, so it has its place, and the rules keep a freed resource for
* the head of the queue. A frozen resource's waiters are held too: they keep
* their place through the freeze, and its end wakes them. It asks again, in-process,
* when the service says the resource changed (release, lapse, revoke, unfreeze, from
* any store) and whenever its
* told wait runs out, which keeps its place from lapsing while it is held.
* Its answer is the service's, so a grant is answered only once it is durable.
*/
var HeldRequests = class extends HeldCalls {
	byResource = /* @__PURE__ */ new Map();
	/**
	* Wake-ups per resource while first asks on it are out: one that comes after
	* the ask decided and before its hold is registered makes the hold ask again
	* at once, rather than at its told wait.
	*/
	asking = /* @__PURE__ */ new Map();
	constructor(service, options = {}) {
		super(service, options);
		const changed = service.onResourceChanged((resource) => this.wake(resource));
		const releasing = service.onReleasing?.((resource) => this.wakeFirst(resource));
		this.unsubscribe = () => {
			changed();
			releasing?.();
		};
	}
	/**
	* Asks for the lease; with a preferred wait of N \u2265 1 seconds (and room),
	* holds the request until it is granted, refused for good, or min(N, cap)
	* seconds pass, then answers with the last reply.
	*/
	async lease(resource, actorDid, preferredS, signal, extensions = {}) {
		if (!this.mayHold(preferredS)) return { reply: await this.firstAsk(resource, actorDid, extensions) };
		const appliedWaitS = this.appliedWait(preferredS);
		this.count += 1;
		try {
			const deadline = this.service.now() + appliedWaitS * 1e3;
			await this.service.listen(resource);
			const asking = this.asking.get(resource) ?? {
				asks: 0,
				wakes: 0
			};
			this.asking.set(resource, asking);
			asking.asks += 1;
			const wakes = asking.wakes;
			let holding;
			try {
				const reply = await this.firstAsk(resource, actorDid, extensions);
				if (!mayWait(reply)) return {
					reply,
					appliedWaitS
				};
				if (signal.aborted) {
					await this.service.leave(resource, actorDid);
					return {
						reply,
						appliedWaitS
					};
				}
				const woken = asking.wakes !== wakes;
				holding = this.hold(resource, actorDid, reply, deadline, signal, extensions, woken);
			} finally {
				asking.asks -= 1;
				if (asking.asks === 0) this.asking.delete(resource);
			}
			return {
				reply: await holding,
				appliedWaitS
			};
		} finally {
			this.count -= 1;
		}
	}
	/** Every held request asks afresh and answers with that (the kernel is stopping). */
	answerAll() {
		for (const holds of this.byResource.values()) for (const hold of holds) hold.wake();
	}
	hold(resource, actorDid, first, deadline, signal, extensions, woken) {
		return new Promise((resolve, reject) => {
			let last = first;
			let timer;
			let asking = false;
			let again = false;
			let done = false;
			const finish = (settle) => {
				if (done) return;
				done = true;
				this.timers.clear(timer);
				signal.removeEventListener("abort", gone);
				const holds = this.byResource.get(resource);
				holds?.delete(hold);
				if (holds?.size === 0) this.byResource.delete(resource);
				settle();
			};
			const arm = (reply) => {
				const left = deadline - this.service.now();
				timer = this.timers.set(ask, Math.max(0, Math.min(reply.stampede.waitMs, left)));
			};
			const ask = () => {
				if (done) return;
				if (asking) {
					again = true;
					return;
				}
				asking = true;
				this.timers.clear(timer);
				this.service.lease(resource, actorDid, extensions).then((reply) => {
					asking = false;
					last = reply;
					if (done) return;
					const over = this.closing || this.service.now() >= deadline;
					if (!mayWait(reply) || over) return finish(() => resolve(reply));
					if (again) {
						again = false;
						return ask();
					}
					arm(reply);
				}, (error) => {
					asking = false;
					finish(() => reject(error instanceof Error ? error : new Error(String(error))));
				});
			};
			const gone = () => finish(() => {
				resolve(last);
				this.service.leave(resource, actorDid).catch(() => void 0);
			});
			const hold = { wake: ask };
			let holds = this.byResource.get(resource);
			if (!holds) this.byResource.set(resource, holds = /* @__PURE__ */ new Set());
			holds.add(hold);
			signal.addEventListener("abort", gone, { once: true });
			if (woken) ask();
			else arm(first);
		});
	}
	/**
	* A run that names its lane may have superseded waiters held here or on
	* another replica (deploy-order.ts), which no durable event announces: they
	* ask again now. Only a first ask wakes them, so their asks wake nobody.
	*/
	async firstAsk(resource, actorDid, extensions) {
		const reply = await this.service.lease(resource, actorDid, extensions);
		if (extensions.deploy?.runNumber !== void 0) {
			if (this.service.wakeEverywhere) await this.service.wakeEverywhere(resource);
			else this.wakeHolds(resource);
		}
		return reply;
	}
	/** The resource may be free: its held requests ask again, and so do those whose first ask is out, once held. */
	wake(resource) {
		const asking = this.asking.get(resource);
		if (asking) asking.wakes += 1;
		this.wakeHolds(resource);
	}
	/**
	* The request held longest on this resource asks now, in the batch of the release that
	* is being submitted: the likeliest head of the queue here. Only that one: a request
	* whose ask is refused asks again when the release is durable (its wake), and so do all
	* the others, as before, so a release costs at most one ask more than it did.
	*/
	wakeFirst(resource) {
		(this.byResource.get(resource)?.values().next().value)?.wake();
	}
	/** Every request held on this resource asks again, in arrival order. */
	wakeHolds(resource) {
		const holds = this.byResource.get(resource);
		if (holds) for (const hold of [...holds]) hold.wake();
	}
};
const mayWait = (reply) => !reply.ok && (reply.reason === "lease_held" || reply.reason === "frozen");
// src/kernel/service/lease-extensions.ts
/**
* The extension fields of a lease body (plane/deploy.ts), validated and
* bounded: `{ error }` names the first bad field (answered 400); a body
* without them costs one property lookup each.
*/
function leaseExtensions(body) {
	const { deploy, queue } = body ?? {};
	if (deploy === void 0 && queue === void 0) return {};
	const parsed = require_cli.leaseExtensionSchema.safeParse({
		deploy,
		queue
	});
	if (!parsed.success) return { error: require_cli.describeIssues(parsed.error) };
	const out = {};
	const clean = parsed.data.deploy && require_cli.cleanDeploy(parsed.data.deploy);
	if (clean) out.deploy = clean;
	if (parsed.data.queue) out.queue = parsed.data.queue;
	return out;
}
/** The release body's one extension: `outdated: true` (the holder did not deploy). */
function releaseOutdated(body) {
	const { outdated } = body ?? {};
	if (outdated === void 0 || outdated === false) return false;
	if (outdated === true) return true;
	return { error: "outdated: expected true or false" };
}
// src/kernel/http/lease-routes.ts
/**
* The lease's own routes: take one (held with `Prefer: wait=N`), watch it, give it back, read
* it, and the operator's revoke. Bodies are checked here; the service and the rules decide.
*/
const leaseBody = require_cli.object({
	resource: require_cli.resourceSchema,
	actorDid: require_cli.didSchema
});
const watchBody = require_cli.object({
	resource: require_cli.resourceSchema,
	actorDid: require_cli.didSchema,
	leaseId: require_cli.string().check(require_cli._minLength(1), require_cli._maxLength(256))
});
const revokeBody = require_cli.object({
	resource: require_cli.resourceSchema,
	reason: require_cli._default(reasonText(), "revoked by an operator"),
	by: operatorBy
});
const NEVER_ABORTED = new AbortController().signal;
const REVOKING = {
	doing: "Revoking",
	disabled: "revoke_disabled"
};
const ok$1 = (body, status = 200) => ({
	status,
	body
});
/**
* The lease and release body: a well-formed one is taken as it is (the hot
* path); anything else goes through the schema, which names what is wrong.
*/
function leaseOf(body) {
	if (typeof body === "object" && body !== null) {
		const { resource: r, actorDid: a } = body;
		if (typeof r === "string" && typeof a === "string" && require_cli.RESOURCE_PATTERN.test(r) && require_cli.isDid(a)) return {
			resource: r,
			actorDid: a
		};
	}
	return parse(leaseBody, body);
}
/** POST lease, watch, release and revoke; GET lease. */
function leaseRoutes(deps) {
	const { service, auth, held, watches, requireAdmin } = deps;
	return {
		[`POST ${require_cli.LEASE_PATH}`]: leaseRoute(deps),
		[`POST ${require_cli.WATCH_PATH}`]: async (req, principal) => {
			const { resource: r, actorDid: a, leaseId } = parse(watchBody, await req.json());
			auth.mayActAs(principal, {
				action: "watch",
				resource: r,
				actorDid: a
			});
			const wait = preferredWait(req.headers.prefer);
			const signal = wait ? req.signal : NEVER_ABORTED;
			const answer = watchReply(await watches.watch(r, a, leaseId, wait, signal));
			if (held.stopping) answer.headers = {
				...answer.headers,
				connection: "close"
			};
			return answer;
		},
		[`POST ${require_cli.RELEASE_PATH}`]: async (req, principal) => {
			const body = await req.json();
			const { resource: r, actorDid: a } = leaseOf(body);
			auth.mayActAs(principal, {
				action: "release",
				resource: r,
				actorDid: a
			});
			const outdated = releaseOutdated(body);
			if (typeof outdated !== "boolean") throw new ApiRefusal(outdated.error, {
				status: 400,
				reason: "bad_request"
			});
			return ok$1(await service.release(r, a, outdated));
		},
		[`POST ${require_cli.REVOKE_PATH}`]: async (req) => {
			requireAdmin(req, REVOKING);
			const { resource: r, reason, by } = parse(revokeBody, await req.json());
			const { lease } = await service.revoke(r, reason, by ? operatorOf(by) : void 0);
			return ok$1({
				ok: true,
				revoked: lease !== null,
				leaseId: lease?.id ?? null,
				holder: lease?.holder ?? null
			});
		},
		[`GET ${require_cli.LEASE_PATH}`]: async (req) => {
			const r = req.query.get("resource") ?? "";
			parse(require_cli.object({ resource: require_cli.resourceSchema }), { resource: r });
			const { lease, frozen } = await service.statusOf(r);
			return ok$1({
				ok: true,
				lease: lease && publicLease(lease, void 0),
				...frozen ? { frozen: {
					by: frozen.by,
					reason: frozen.reason,
					until: frozen.untilMs
				} } : {}
			});
		}
	};
}
/** POST lease: checked against the caller's identity and the promotion order, then asked (held). */
function leaseRoute({ service, auth, held, promotions }) {
	return async (req, principal) => {
		const body = await req.json();
		const { resource: r, actorDid: a } = leaseOf(body);
		auth.mayActAs(principal, {
			action: "lease",
			resource: r,
			actorDid: a
		});
		const extensions = leaseExtensions(body);
		if ("error" in extensions) throw new ApiRefusal(extensions.error, {
			status: 400,
			reason: "bad_request"
		});
		const deploy = auth.deployOf(principal, extensions.deploy, promotions?.ordered(r));
		if (deploy) extensions.deploy = deploy;
		else delete extensions.deploy;
		const promotion = await promotions?.check(r, deploy, compareCaller(principal, a));
		if (promotion?.unpromoted !== void 0) extensions.unpromoted = promotion.unpromoted;
		if (promotion?.promotedVia !== void 0) extensions.promotedVia = promotion.promotedVia;
		if (principal.kind === "oidc") extensions.issuer = principal.issuer.url;
		const wait = preferredWait(req.headers.prefer);
		const signal = wait ? req.signal : NEVER_ABORTED;
		const { reply, appliedWaitS } = await held.lease(r, a, wait, signal, extensions);
		const answer = reply.ok ? ok$1({
			ok: true,
			lease: publicLease(reply.lease, service.ttlMs),
			renewed: reply.renewed,
			...reply.previous ? { previous: reply.previous } : {}
		}) : ok$1(reply, 409);
		if (appliedWaitS !== void 0) {
			answer.headers = { "preference-applied": `wait=${appliedWaitS}` };
			if (held.stopping) answer.headers.connection = "close";
		}
		return answer;
	};
}
/** A watch's answer on the wire: still held, or how and when it ended. */
function watchReply(answer) {
	if (answer.kind === "not-yours") throw new ApiRefusal("Only the holder may watch a lease: actorDid must be the DID the lease was granted to.", {
		status: 403,
		reason: "not_your_lease"
	});
	const headers = answer.appliedWaitS === void 0 ? void 0 : { "preference-applied": `wait=${answer.appliedWaitS}` };
	return {
		status: 200,
		body: answer.kind === "held" ? {
			ok: true,
			ended: false,
			lease: publicLease(answer.lease, void 0)
		} : {
			ok: true,
			ended: true,
			reason: answer.end?.reason ?? "unknown",
			...answer.end ? {
				leaseId: answer.end.leaseId,
				endedAtMs: answer.end.endedAtMs
			} : {},
			...answer.end?.message === void 0 ? {} : { message: answer.end.message },
			...answer.end?.by === void 0 ? {} : { by: answer.end.by },
			...answer.holder === void 0 ? {} : { holder: answer.holder }
		},
		...headers ? { headers } : {}
	};
}
/**
* The lease as answered. `ttlMs` (the kernel's extension): how long this grant or renewal
* runs from when the kernel decided it, so a keeper paces its renewals from the time it sent
* the request, never from its own wall clock against `expiresAtMs`.
*/
function publicLease(lease, ttlMs) {
	const { id, resource: r, holder, expiresAtMs, fence, deploy } = lease;
	return {
		id,
		resource: r,
		holder,
		expiresAtMs,
		fence,
		...ttlMs === void 0 ? {} : { ttlMs },
		...deploy ? { deploy } : {}
	};
}
// src/kernel/http/ledger-routes.ts
const DEFAULT_PAGE = 1e3;
const MAX_PAGE = 1e4;
/** Entries built between two yields to the event loop, so renewals keep flowing. */
const SLICE = 250;
/**
* The ledger's routes. An export is pinned to the ledger's size S when it
* starts; every page carries the checkpoint of S and proofs against it, and a
* cursor to the next page.
*/
function ledgerRoutes(ledger) {
	const signed = () => {
		if (!ledger.signs || !ledger.publicKey) throw new ApiRefusal("This kernel runs without a signing key: it keeps its log but signs no checkpoint.", {
			status: 404,
			reason: "no_signing_key"
		});
		return ledger.publicKey;
	};
	return {
		[`GET ${require_cli.LEDGER_PATHS.checkpoint}`]: async () => {
			signed();
			const size = ledger.size;
			return {
				status: 200,
				body: await ledger.signedCheckpoint(size)
			};
		},
		[`GET ${require_cli.LEDGER_PATHS.publicKey}`]: () => Promise.resolve({
			status: 200,
			body: String(signed().export({
				type: "spki",
				format: "pem"
			}))
		}),
		[`GET ${require_cli.LEDGER_PATHS.bundle}`]: (req) => {
			signed();
			const { size, from, end, limit } = pageRequest(req.query, ledger.size);
			const to = Math.min(end, from + limit);
			const next = to < end ? encodeCursor(size, to, end) : null;
			return Promise.resolve({
				status: 200,
				body: bundlePage(ledger, size, from, to, next)
			});
		}
	};
}
function pageRequest(query, currentSize) {
	const limit = whole$1(query.get("limit"), DEFAULT_PAGE, "limit");
	if (limit < 1 || limit > 1e4) throw new ApiRefusal(`limit: expected a whole number from 1 to ${MAX_PAGE}`, {
		status: 400,
		reason: "bad_request"
	});
	const cursor = query.get("cursor");
	if (cursor !== null) {
		const decoded = decodeCursor(cursor);
		if (!decoded || decoded.size > currentSize || decoded.from > decoded.end || decoded.end > decoded.size) throw new ApiRefusal("cursor: expected the `next` value of an earlier page", {
			status: 400,
			reason: "bad_request"
		});
		return {
			...decoded,
			limit
		};
	}
	const from = whole$1(query.get("from"), 0, "from");
	const end = whole$1(query.get("to"), currentSize, "to");
	if (from > end || end > currentSize) throw new ApiRefusal(`from/to: expected 0 \u2264 from \u2264 to \u2264 ${currentSize}`, {
		status: 400,
		reason: "bad_request"
	});
	return {
		size: currentSize,
		from,
		end,
		limit
	};
}
function whole$1(value, fallback, name) {
	if (value === null) return fallback;
	if (!/^\d{1,15}$/.test(value)) throw new ApiRefusal(`${name}: expected a whole number`, {
		status: 400,
		reason: "bad_request"
	});
	return Number(value);
}
const encodeCursor = (size, from, end) => Buffer.from(`v1.${size}.${from}.${end}`, "utf8").toString("base64url");
function decodeCursor(cursor) {
	if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return void 0;
	const match = /^v1\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
	if (!match) return void 0;
	return {
		size: Number(match[1]),
		from: Number(match[2]),
		end: Number(match[3])
	};
}
/** The page as JSON pieces, yielding to the event loop between slices. */
async function* bundlePage(ledger, size, from, to, next) {
	const checkpoint = await ledger.signedCheckpoint(size);
	yield `{"checkpoint":${JSON.stringify(checkpoint)},"entries":[`;
	for (let start = from; start < to; start += SLICE) {
		if (start > from) await (0, node_timers_promises.setImmediate)();
		const end = Math.min(to, start + SLICE);
		const slice = await ledger.read(start, end, size, () => ledger.pageJson(start, end, size));
		yield `${start > from ? "," : ""}${slice.join(",")}`;
	}
	yield `],"next":${JSON.stringify(next)}}`;
}
// src/metrics/bounded.ts
var import_prom_client = require_log_output.require_prom_client();
/** The label every resource past the cap shares. */
const OTHER_RESOURCE = "other";
/**
* Caches one value per resource label (a record of prom-client children, built once), so
* the hot path looks a resource up in a Map and touches no label strings.
*/
var BoundedLabels = class {
	cap;
	build;
	byResource = /* @__PURE__ */ new Map();
	other;
	constructor(cap, build) {
		this.cap = cap;
		this.build = build;
		if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`the resource cap must be a whole number \u2265 0, not ${cap}`);
	}
	/** The value for `resource`: its own while under the cap, else the shared "other" one. */
	of(resource) {
		const known = this.byResource.get(resource);
		if (known !== void 0) return known;
		if (this.byResource.size >= this.cap || resource === "other") return this.other ??= this.build(OTHER_RESOURCE);
		const made = this.build(resource);
		this.byResource.set(resource, made);
		return made;
	}
	/** The label `resource` is counted under. */
	labelOf(resource) {
		return this.byResource.has(resource) || this.byResource.size < this.cap ? resource === "other" ? OTHER_RESOURCE : resource : OTHER_RESOURCE;
	}
};
// src/kernel/http/metrics-scrape.ts
/**
* What the kernel's metrics read at each scrape rather than count as it goes: levels
* (waiters, leases held, freezes, held requests, the ledger, readiness) and the counts other
* parts keep themselves (notifications, OIDC key fetches, PostgreSQL round trips). Nothing
* here runs on the hot path; one look at the service serves every gauge of a scrape.
*/
/**
* Registers the gauges read at a scrape. Returns what forgets the last look: called as each
* scrape begins, so the gauges of one scrape share one look and no scrape reads an old one.
*/
function scrapeGauges(metrics, sources) {
	const { service } = sources;
	const registers = [metrics.registry];
	let taken;
	const look = () => taken ??= lookAt(service);
	let ledgerSize = -1;
	const perResource = (name, help, value) => new import_prom_client.Gauge({
		name,
		help,
		labelNames: ["resource"],
		registers,
		async collect() {
			this.reset();
			for (const r of (await look()).overview?.resources ?? []) this.inc({ resource: metrics.resources.labelOf(r.resource) }, value(r));
		}
	});
	perResource("lease_gate_waiters", "Waiters in the queue, per resource.", (r) => r.queue.length);
	perResource("lease_gate_leases_held", "Live leases (1 while a resource is held).", (r) => r.lease ? 1 : 0);
	perResource("lease_gate_frozen", "Resources under an operator\u2019s freeze.", (r) => r.frozen ? 1 : 0);
	leaseAgeSeries(registers, metrics, look);
	new import_prom_client.Gauge({
		name: "lease_gate_held_requests",
		help: "Blocking acquires (Prefer: wait=N) held open now.",
		registers,
		collect() {
			this.set(sources.held?.size ?? 0);
		}
	});
	new import_prom_client.Gauge({
		name: "lease_gate_ledger_entries",
		help: "Entries in the ledger (the size its checkpoint covers).",
		registers,
		async collect() {
			const { ledgerSize: size } = await look();
			if (size !== ledgerSize) metrics.lastChangeMs = Date.now();
			ledgerSize = size;
			this.set(size);
		}
	});
	new import_prom_client.Gauge({
		name: "lease_gate_checkpoint_age_seconds",
		help: "Seconds since the ledger (and so its checkpoint) last grew, as this process saw.",
		registers,
		async collect() {
			await look();
			this.set(Math.max(0, Date.now() - metrics.lastChangeMs) / 1e3);
		}
	});
	new import_prom_client.Gauge({
		name: "lease_gate_ready",
		help: "1 when the kernel\u2019s store takes writes (/readyz answers 200), else 0.",
		registers,
		async collect() {
			this.set((await look()).ready ? 1 : 0);
		}
	});
	notificationSeries(registers, sources.health);
	healthCheckSeries(registers, sources.health);
	processCounts(registers);
	return () => taken = void 0;
}
async function lookAt(service) {
	const ready = await service.ready().then(() => true, () => false);
	const overview = ready ? await service.overview().catch(() => void 0) : void 0;
	if (ready) await service.syncLedger().catch(() => void 0);
	return {
		overview,
		ready,
		ledgerSize: service.ledger.size
	};
}
/** A count kept elsewhere, shown as a counter (it only grows). */
function countFrom(registers, name, help, read) {
	return new import_prom_client.Counter({
		name,
		help,
		registers,
		collect() {
			this.reset();
			this.inc(read());
		}
	});
}
/** The notifier's counts, as `/readyz` tells them to the operator. */
function notificationSeries(registers, health) {
	const field = (name) => () => {
		const value = (health?.().notifications)?.[name];
		return typeof value === "number" ? value : 0;
	};
	countFrom(registers, "lease_gate_notifications_delivered_total", "Notifications a URL received.", field("delivered"));
	countFrom(registers, "lease_gate_notifications_failed_total", "Notifications given up after their retries.", field("failed"));
	countFrom(registers, "lease_gate_notifications_dropped_total", "Notifications never queued (their URL too far behind).", field("dropped"));
	new import_prom_client.Gauge({
		name: "lease_gate_notifications_pending",
		help: "Notifications queued and not yet delivered (the notifier\u2019s lag, in notifications).",
		registers,
		collect() {
			this.set(field("pending")());
		}
	});
}
/** How long each live lease has been held, at the scrape (the longest, for resource="other"). */
function leaseAgeSeries(registers, metrics, look) {
	new import_prom_client.Gauge({
		name: "lease_gate_lease_age_seconds",
		help: "How long the live lease has been held (the longest, for resource=\"other\").",
		labelNames: ["resource"],
		registers,
		async collect() {
			this.reset();
			const { overview } = await look();
			const nowMs = overview?.nowMs ?? 0;
			const ages = /* @__PURE__ */ new Map();
			for (const { resource, lease } of overview?.resources ?? []) {
				if (!lease) continue;
				const label = metrics.resources.labelOf(resource);
				const age = Math.max(0, nowMs - lease.grantedAtMs) / 1e3;
				ages.set(label, Math.max(age, ages.get(label) ?? 0));
			}
			for (const [resource, age] of ages) this.set({ resource }, age);
		}
	});
}
/** Each `--health-check` as `/readyz` tells it: 1 healthy, 0 failing, none before its first poll. */
function healthCheckSeries(registers, health) {
	new import_prom_client.Gauge({
		name: "lease_gate_health_check_healthy",
		help: "A resource\u2019s --health-check: 1 while its URL answers healthy, 0 while it fails.",
		labelNames: ["resource"],
		registers,
		collect() {
			this.reset();
			const checks = health?.().healthChecks;
			if (!Array.isArray(checks)) return;
			for (const check of checks) if (typeof check.resource === "string" && typeof check.healthy === "boolean") this.set({ resource: check.resource }, check.healthy ? 1 : 0);
		}
	});
}
/** Counts the auth and PostgreSQL modules keep for the whole process. */
function processCounts(registers) {
	countFrom(registers, "lease_gate_oidc_key_fetches_total", "Fetches of an OIDC issuer\u2019s keys.", () => oidcKeyFetches.attempts);
	countFrom(registers, "lease_gate_oidc_key_fetch_failures_total", "Fetches of an OIDC issuer\u2019s keys that failed.", () => oidcKeyFetches.failures);
	countFrom(registers, "lease_gate_postgres_round_trips_total", "Queries sent to PostgreSQL (each one round trip).", () => require_round_trips.storeRoundTrips.count);
}
// src/kernel/http/metrics.ts
/**
* The kernel's Prometheus metrics: a prom-client registry fed by the service's observer
* (service/observer.ts) on the hot path, and by a look at the service at each scrape for
* what is a level rather than a count (waiters, leases held, the ledger, readiness).
* Per-resource series are capped (metrics/bounded.ts); docs/metrics.md lists every metric.
*/
/** Deploys wait and hold for seconds to an hour or so. */
const DEPLOY_BUCKETS = [
	.5,
	1,
	5,
	15,
	30,
	60,
	120,
	300,
	600,
	1200,
	1800,
	3600,
	7200
];
/** A handover (freed \u2192 next grant) is milliseconds to a few seconds. */
const HANDOVER_BUCKETS = [
	.001,
	.0025,
	.005,
	.01,
	.025,
	.05,
	.1,
	.25,
	.5,
	1,
	2.5,
	5,
	10
];
const COMMIT_BUCKETS = [
	5e-4,
	.001,
	.0025,
	.005,
	.01,
	.025,
	.05,
	.1,
	.25,
	.5,
	1,
	2.5
];
const BATCH_BUCKETS = [
	1,
	2,
	4,
	8,
	16,
	32,
	64,
	128,
	256
];
/** Waiters remembered per resource (for their wait time) beyond which new ones are not. */
const WAITERS_REMEMBERED = 1e3;
var KernelMetrics = class {
	registry = new import_prom_client.Registry();
	resources;
	renderer = new require_log_output.MetricsRenderer(this.registry);
	stores;
	refusals;
	/** Since when each waiter asked (by resource, then DID): its wait, once granted. */
	waitingSince = /* @__PURE__ */ new Map();
	/** When each live lease was granted (here), and when a resource with waiters was freed. */
	grantedAt = /* @__PURE__ */ new Map();
	freedAt = /* @__PURE__ */ new Map();
	/** Wall time the ledger was last seen to grow (metrics-scrape.ts): the checkpoint's age. */
	lastChangeMs = Date.now();
	forgetLook = () => void 0;
	constructor(options = {}) {
		const registers = [this.registry];
		const counter = (name, help) => new import_prom_client.Counter({
			name,
			help,
			labelNames: ["resource"],
			registers
		});
		const histogram = (name, help, buckets) => new import_prom_client.Histogram({
			name,
			help,
			labelNames: ["resource"],
			buckets,
			registers
		});
		const grants = counter("lease_gate_grants_total", "Leases granted.");
		const renewals = counter("lease_gate_renewals_total", "Leases renewed by their holder.");
		const releases = counter("lease_gate_releases_total", "Leases given back by their holder.");
		const lapses = counter("lease_gate_lapses_total", "Leases that lapsed (not renewed).");
		const revokes = counter("lease_gate_revokes_total", "Leases revoked by an operator.");
		this.refusals = new import_prom_client.Counter({
			name: "lease_gate_refusals_total",
			help: "Requests the rules refused, by reason (lease_held counts each ask of a waiter).",
			labelNames: ["resource", "reason"],
			registers
		});
		const wait = histogram("lease_gate_wait_seconds", "From a waiter\u2019s first ask to its grant (0 for a grant without a wait).", DEPLOY_BUCKETS);
		const hold = histogram("lease_gate_hold_seconds", "From a grant to its release, lapse or revoke.", DEPLOY_BUCKETS);
		const handover = histogram("lease_gate_handover_seconds", "From a lease\u2019s end, with waiters, to the next grant on its resource.", HANDOVER_BUCKETS);
		this.resources = new BoundedLabels(options.resourceCap ?? 50, (label) => ({
			label,
			grants: grants.labels(label),
			renewals: renewals.labels(label),
			releases: releases.labels(label),
			lapses: lapses.labels(label),
			revokes: revokes.labels(label),
			refusals: /* @__PURE__ */ new Map(),
			wait: wait.labels(label),
			hold: hold.labels(label),
			handover: handover.labels(label)
		}));
		this.stores = storeSeries(registers);
	}
	/** Adds the gauges read at each scrape (waiters, ledger, readiness, notifications). */
	scrapeFrom(sources) {
		this.forgetLook = scrapeGauges(this, sources);
	}
	/** The text for one scrape, OpenMetrics when `accept` asks for it. */
	render(accept) {
		return this.renderer.render(accept, () => this.forgetLook());
	}
	committed(batch) {
		const store = this.stores[batch.shared ? "shared" : "local"];
		store.batchSize.observe(batch.size);
		store.commit.observe(batch.seconds);
		if (batch.failed) {
			store.failures.inc();
			return;
		}
		batch.decisions.forEach((decision, i) => {
			if (decision) this.decided(decision, batch.commands[i]);
		});
	}
	decided(decision, command) {
		const { state, reply, events } = decision;
		const series = this.resources.of(state.resource);
		const refused = reply ?? {};
		if (refused.ok === false && refused.reason !== void 0) {
			this.refused(series, refused.reason);
			if (refused.reason === "lease_held" && command?.kind === "lease") this.waiting(decision, command.actorDid);
		}
		for (const event of events) this.event(series, event, state.queue.length > 0);
		if (state.queue.length === 0) this.waitingSince.delete(state.resource);
	}
	refused(series, reason) {
		let child = series.refusals.get(reason);
		if (!child) {
			child = this.refusals.labels(series.label, reason);
			series.refusals.set(reason, child);
		}
		child.inc();
	}
	/** Remembers when a refused waiter first asked (its place in the queue says). */
	waiting({ state }, actorDid) {
		let waiters = this.waitingSince.get(state.resource);
		if (waiters?.has(actorDid)) return;
		const since = state.queue.find((w) => w.actorDid === actorDid)?.sinceMs;
		if (since === void 0) return;
		if (!waiters) this.waitingSince.set(state.resource, waiters = /* @__PURE__ */ new Map());
		if (waiters.size < WAITERS_REMEMBERED) waiters.set(actorDid, since);
	}
	event(series, event, waiters) {
		const { resource, atMs } = event;
		switch (event.kind) {
			case "grant": {
				series.grants.inc();
				const since = this.waitingSince.get(resource)?.get(event.actorDid);
				this.waitingSince.get(resource)?.delete(event.actorDid);
				series.wait.observe(since === void 0 ? 0 : Math.max(0, atMs - since) / 1e3);
				const freed = this.freedAt.get(resource);
				if (freed !== void 0) series.handover.observe(Math.max(0, atMs - freed) / 1e3);
				this.freedAt.delete(resource);
				this.grantedAt.set(resource, atMs);
				return;
			}
			case "renew":
				series.renewals.inc();
				return;
			case "release":
				series.releases.inc();
				return this.ended(series, event, waiters);
			case "lapse":
				series.lapses.inc();
				return this.ended(series, event, waiters);
			case "revoke":
				series.revokes.inc();
				return this.ended(series, event, waiters);
			case "freeze":
			case "unfreeze":
			case "break_glass":
			case "break_glass_withdrawn": return;
		}
	}
	ended(series, { resource, atMs }, waiters) {
		const granted = this.grantedAt.get(resource);
		if (granted !== void 0) series.hold.observe(Math.max(0, atMs - granted) / 1e3);
		this.grantedAt.delete(resource);
		if (waiters) this.freedAt.set(resource, atMs);
		else this.freedAt.delete(resource);
	}
};
/** The store's series: batch size, commit latency and failed batches, shared or local. */
function storeSeries(registers) {
	const labelNames = ["store"];
	const batchSize = new import_prom_client.Histogram({
		name: "lease_gate_store_batch_size",
		help: "Commands per batch committed to the store (PostgreSQL when store=\"postgres\").",
		labelNames,
		buckets: BATCH_BUCKETS,
		registers
	});
	const commit = new import_prom_client.Histogram({
		name: "lease_gate_store_commit_seconds",
		help: "How long a batch took to decide and make durable.",
		labelNames,
		buckets: COMMIT_BUCKETS,
		registers
	});
	const failures = new import_prom_client.Counter({
		name: "lease_gate_store_commit_failures_total",
		help: "Batches the store refused as a whole.",
		labelNames,
		registers
	});
	const of = (store) => ({
		batchSize: batchSize.labels(store),
		commit: commit.labels(store),
		failures: failures.labels(store)
	});
	return {
		shared: of("postgres"),
		local: of("local")
	};
}
// src/kernel/http/metrics-route.ts
/**
* `GET /metrics`: the kernel's metrics for Prometheus, to the holder of the admin key or of
* the metrics key (LEASE_GATE_METRICS_KEY, which reads metrics and nothing else), as the
* Bearer token. Off (403) when the kernel has neither. Reached by address as the probes are
* (a scraper names a pod by its IP), since the key, not the Host, is what guards it.
*/
const METRICS_ROUTE = "GET /metrics";
/** Throws 401 without a Bearer token, 403 with a wrong one or when metrics are off. */
function requireMetricsReader(req, keys) {
	const accepted = [keys.metricsKey, keys.adminKey].filter((k) => Boolean(k));
	if (!accepted.length) throw new ApiRefusal("Metrics need the kernel to be started with LEASE_GATE_METRICS_KEY or LEASE_GATE_ADMIN_KEY.", {
		status: 403,
		reason: "metrics_disabled"
	});
	const header = req.headers.authorization;
	if (!header?.startsWith("Bearer ")) throw new ApiRefusal("Metrics need the metrics key (LEASE_GATE_METRICS_KEY) or the admin key as the Bearer token.", {
		status: 401,
		reason: "unauthorized"
	});
	if (!accepted.map((key) => bearerMatches(header, key)).some(Boolean)) throw new ApiRefusal("This Bearer token is neither the metrics key nor the admin key.", {
		status: 403,
		reason: "forbidden"
	});
}
/** `metrics` undefined: the kernel keeps none (`metrics: false`, or nobody may read them). */
function metricsRoutes(metrics, keys) {
	return { [METRICS_ROUTE]: async (req) => {
		requireMetricsReader(req, keys);
		if (!metrics) throw new ApiRefusal("This kernel was started with its metrics off.", {
			status: 403,
			reason: "metrics_disabled"
		});
		const { contentType, text } = await metrics.render(req.headers.accept);
		return {
			status: 200,
			body: text,
			headers: { "content-type": contentType }
		};
	} };
}
// src/kernel/rules/overview.ts
/** Every resource with a live lease, a reservation or waiters, as seen at `now`. */
function overviewOf(states, now) {
	const resources = [];
	for (const s of states) {
		const lease = s.lease && s.lease.expiresAtMs > now ? s.lease : null;
		const queue = s.queue.filter((w) => w.keepUntil >= now).map((w, position) => {
			const eta = etaMs(s, position, now);
			return {
				actorDid: w.actorDid,
				position,
				...w.deploy ? { deploy: w.deploy } : {},
				...w.sinceMs === void 0 ? {} : { sinceMs: w.sinceMs },
				...eta === void 0 ? {} : { etaMs: eta }
			};
		});
		const head = queue[0];
		const reserved = !lease && head && s.reservedUntilMs > now ? {
			holder: head.actorDid,
			untilMs: s.reservedUntilMs
		} : null;
		const frozen = s.frozen && (s.frozen.untilMs === null || s.frozen.untilMs > now) ? s.frozen : void 0;
		const breakGlass = s.breakGlass && s.breakGlass.untilMs > now ? s.breakGlass : void 0;
		if (!lease && !reserved && queue.length === 0 && !frozen && !breakGlass) continue;
		resources.push({
			resource: s.resource,
			lease: lease && {
				id: lease.id,
				holder: lease.holder,
				expiresAtMs: lease.expiresAtMs,
				fence: lease.fence,
				grantedAtMs: lease.grantedAtMs,
				...lease.deploy ? { deploy: lease.deploy } : {}
			},
			reserved,
			queue,
			...frozen ? { frozen } : {},
			...breakGlass ? { breakGlass } : {}
		});
	}
	resources.sort((a, b) => a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
	return {
		nowMs: now,
		resources
	};
}
/** Resources per page of the overview when the caller names no limit, and at most. */
const OVERVIEW_PAGE = {
	default: 1e3,
	max: 5e3
};
/**
* One page of the overview, in resource order: the resources after `after`
* (exclusive), at most `limit`. A page ends on a name, so a resource taken or
* freed between pages moves nothing else in or out of the next one.
*/
function overviewPage(overview, after, limit) {
	const all = overview.resources;
	let start = 0;
	if (after !== void 0) {
		let high = all.length;
		while (start < high) {
			const mid = start + high >> 1;
			if (all[mid].resource <= after) start = mid + 1;
			else high = mid;
		}
	}
	const resources = all.slice(start, start + limit);
	const more = start + limit < all.length;
	return {
		nowMs: overview.nowMs,
		resources,
		next: more ? resources.at(-1).resource : null
	};
}
/**
* The page as a plain `GET` shows it: without the waiters' `sinceMs` and `etaMs`, which only
* `?detail=1` (the console, `lease-gate status`) asks for, so the answer's shape stays what it was.
*/
function withoutDetail(resources) {
	return resources.map((r) => r.queue.some((w) => w.sinceMs !== void 0 || w.etaMs !== void 0) ? {
		...r,
		queue: r.queue.map(({ sinceMs: _since, etaMs: _eta, ...w }) => w)
	} : r);
}
// src/kernel/http/status-routes.ts
/**
* What the kernel tells of itself: the overview of every resource (the console's, paged),
* `/healthz` for anyone, and `/readyz`, whose reasons only the operator reads.
*/
/** Routes anyone may call, by address, without a key: a probe's. */
const OPEN_ROUTES = /* @__PURE__ */ new Set(["GET /healthz", "GET /readyz"]);
/** What `/readyz` tells a caller without the kernel's key when it is not ready: no more. */
const NOT_READY = {
	ok: false,
	reason: "not_ready",
	message: "The kernel is not ready; its key's holders can ask /readyz why."
};
/** The overview is paged by resource name: `?after=R&limit=N`; `detail=1` adds each waiter's `sinceMs`. */
const overviewQuery = require_cli.object({
	detail: require_cli.optional(require_cli.literal("1")),
	after: require_cli.optional(require_cli.resourceSchema),
	limit: require_cli.optional(require_cli.string().check(require_cli._regex(/^\d{1,5}$/, `expected a whole number from 1 to ${OVERVIEW_PAGE.max}`), require_cli.refine((n) => Number(n) >= 1 && Number(n) <= OVERVIEW_PAGE.max, `expected a whole number from 1 to ${OVERVIEW_PAGE.max}`)))
});
const ok = (body, status = 200) => ({
	status,
	body
});
/** GET the overview, `/healthz` and `/readyz`. */
function statusRoutes(deps) {
	const { service, windows: recurring, promotions, health, mayReadHealth } = deps;
	return {
		[`GET ${require_cli.KERNEL_RESOURCES_PATH}`]: async (req) => {
			const { after, limit, detail } = parse(overviewQuery, {
				after: req.query.get("after") ?? void 0,
				limit: req.query.get("limit") ?? void 0,
				detail: req.query.get("detail") ?? void 0
			});
			const size = limit === void 0 ? OVERVIEW_PAGE.default : Number(limit);
			const overview = await service.overview();
			const windows = recurring?.describe(overview.nowMs);
			const page = overviewPage(overview, after, size);
			return ok({
				ok: true,
				...page,
				...detail ? {} : { resources: withoutDetail(page.resources) },
				...windows ? { windows } : {},
				...promotions ? { promotions: promotions.steps } : {},
				...health?.()
			});
		},
		"GET /healthz": () => Promise.resolve(ok({ ok: true })),
		"GET /readyz": async (req) => {
			const told = await mayReadHealth(req);
			try {
				await service.ready();
				return ok(told ? {
					ok: true,
					...health?.()
				} : { ok: true });
			} catch (error) {
				return ok(told ? {
					ok: false,
					reason: "store_unavailable",
					message: `the kernel's store is not writable: ${require_cli.causeText(error)}`
				} : NOT_READY, 503);
			}
		}
	};
}
// src/kernel/service/watch.ts
const REASONS = {
	revoke: "revoked",
	lapse: "lapsed",
	release: "released"
};
/** Ends remembered for watches that arrive just after the end (a keeper asking again). */
const REMEMBERED_ENDS = 1e4;
/** How far back the ledger is searched for an end this process did not hear. */
const LEDGER_LOOKBACK = 1e5;
/** Entries looked at per step back (a few of FetchedLines' chunks). */
const LOOKBACK_WINDOW = 1024;
/** Entries of one lease a ledger search returns at most (its end and the renewals before it). */
const SEARCH_LIMIT = 16;
/**
* Watches on one's own lease: a request held open until the lease ends
* (revoked, lapsed, released) or the wait runs out. It hears ends through the
* service's change feed; with replicas it asks the service to listen for the
* lease's resource first (the PostgreSQL store then tells it that resource's
* commits by LISTEN/NOTIFY), so a revoke on one replica answers a watch held
* on another. It listens before it looks, and looks again at the wait's end,
* so an end is never missed for a notice lost on the way.
*/
var LeaseWatches = class extends HeldCalls {
	waiting = /* @__PURE__ */ new Map();
	ends = /* @__PURE__ */ new Map();
	constructor(service, options = {}) {
		super(service, options);
		this.unsubscribe = service.onChange((_resource, event) => this.heard(event));
	}
	async watch(resource, actorDid, leaseId, preferredS, signal) {
		const known = this.ends.get(leaseId);
		if (known) return this.endedAnswer(known, actorDid, void 0);
		const listening = this.listen(leaseId);
		try {
			const room = this.mayHold(preferredS);
			if (room) await this.service.listen(resource);
			const lease = await this.service.status(resource);
			if (lease?.id !== leaseId) return await this.afterEnd(resource, leaseId, actorDid, void 0);
			if (lease.holder !== actorDid) return { kind: "not-yours" };
			if (!room) return {
				kind: "held",
				lease
			};
			const appliedWaitS = this.appliedWait(preferredS);
			this.count += 1;
			let end;
			try {
				end = await listening.until(appliedWaitS * 1e3, signal, () => this.closing);
			} finally {
				this.count -= 1;
			}
			if (end) return this.endedAnswer(end, actorDid, appliedWaitS);
			const again = await this.service.status(resource);
			if (again?.id === leaseId) return {
				kind: "held",
				lease: again,
				appliedWaitS
			};
			return await this.afterEnd(resource, leaseId, actorDid, appliedWaitS);
		} finally {
			listening.cancel();
		}
	}
	/** Every held watch answers at once ("still held"; the kernel is stopping). */
	answerAll() {
		for (const set of this.waiting.values()) for (const wake of set) wake(void 0);
	}
	heard(event) {
		if (event.kind === "grant" || event.kind === "renew") return;
		if (require_entry_kinds.namesNoLease(event.kind)) return;
		const end = {
			leaseId: event.leaseId,
			resource: event.resource,
			actorDid: event.actorDid,
			reason: REASONS[event.kind],
			endedAtMs: Math.round(event.atMs),
			...event.kind === "revoke" && event.reason !== void 0 ? { message: event.reason } : {},
			...event.kind === "revoke" && event.by !== void 0 ? { by: event.by } : {}
		};
		this.ends.set(end.leaseId, end);
		if (this.ends.size > REMEMBERED_ENDS) this.ends.delete(this.ends.keys().next().value);
		for (const wake of this.waiting.get(end.leaseId) ?? []) wake(end);
	}
	listen(leaseId) {
		let heard;
		let wake;
		const onEnd = (end) => {
			heard ??= end;
			wake?.(end);
		};
		let set = this.waiting.get(leaseId);
		if (!set) this.waiting.set(leaseId, set = /* @__PURE__ */ new Set());
		set.add(onEnd);
		return {
			until: (ms, signal, stopping) => new Promise((resolve) => {
				if (heard || signal.aborted || stopping()) return resolve(heard);
				const timer = this.timers.set(() => finish(void 0), ms);
				const gone = () => finish(void 0);
				const finish = (end) => {
					wake = void 0;
					this.timers.clear(timer);
					signal.removeEventListener("abort", gone);
					resolve(end);
				};
				wake = finish;
				signal.addEventListener("abort", gone, { once: true });
			}),
			cancel: () => {
				set.delete(onEnd);
				if (set.size === 0) this.waiting.delete(leaseId);
			}
		};
	}
	/** The lease is not live: how it ended, from what this process heard or from the ledger. */
	async afterEnd(resource, leaseId, actorDid, appliedWaitS) {
		const end = this.ends.get(leaseId) ?? await this.fromLedger(leaseId);
		return this.endedAnswer(end, actorDid, appliedWaitS, resource);
	}
	async endedAnswer(end, actorDid, appliedWaitS, resource = end?.resource) {
		if (end && end.actorDid !== actorDid) return { kind: "not-yours" };
		const now = resource === void 0 ? null : await this.service.status(resource);
		return {
			kind: "ended",
			end,
			holder: now && now.id !== end?.leaseId ? now.holder : void 0,
			...appliedWaitS === void 0 ? {} : { appliedWaitS }
		};
	}
	async fromLedger(leaseId) {
		await this.service.syncLedger();
		const { ledger } = this.service;
		const size = ledger.size;
		const stop = Math.max(0, size - LEDGER_LOOKBACK);
		const decides = (e) => e?.leaseId === leaseId && !require_entry_kinds.namesNoLease(e.kind);
		let found;
		if (this.service.searchLedger) {
			const needle = `"leaseId":${JSON.stringify(leaseId)}`;
			for (const seq of await this.service.searchLedger(needle, stop, SEARCH_LIMIT)) {
				if (seq >= size) continue;
				const e = await ledger.read(seq, seq + 1, size, () => ledger.entry(seq));
				if (decides(e)) {
					found = e;
					break;
				}
			}
		} else for (let hi = size; hi > stop && !found; hi -= LOOKBACK_WINDOW) {
			const lo = Math.max(stop, hi - LOOKBACK_WINDOW);
			found = await ledger.read(lo, hi, size, () => {
				for (let i = hi - 1; i >= lo; i -= 1) {
					const e = ledger.entry(i);
					if (decides(e)) return e;
				}
			});
		}
		if (!found || found.kind !== "release" && found.kind !== "lapse" && found.kind !== "revoke") return void 0;
		return {
			leaseId,
			resource: found.resource,
			actorDid: found.actorDid,
			reason: REASONS[found.kind],
			endedAtMs: found.tsMs,
			...found.kind === "revoke" && found.reason !== void 0 ? { message: found.reason } : {},
			...found.kind === "revoke" && found.by !== void 0 ? { by: found.by } : {}
		};
	}
};
/**
* The promotion order a kernel was started with (`--promote staging->production`), kept
* from its ledger: before a lease of a resource that has a step before it, the entries
* recorded since the last look are read (a replica syncs its ledger first), so the answer
* is what the ledger shows, the one record `verify` checks offline. Reading a little stale
* only refuses (a commit whose step before finished a moment ago asks again); it never
* lets one through early, since a hold completes before its release is recorded.
*/
var Promotions = class {
	service;
	compare;
	record;
	inOrder;
	cursor = 0;
	/** One read of the ledger at a time, in order. */
	reading = Promise.resolve();
	constructor(service, chain, compare) {
		this.service = service;
		this.compare = compare;
		this.record = new require_checkpoint.PromotionRecord(chain);
		this.inOrder = /* @__PURE__ */ new Set([...chain.keys(), ...chain.values()]);
	}
	get steps() {
		return this.record.steps;
	}
	/** Whether `resource` is in the order, before or after a step (its commits must be vouched for). */
	ordered(resource) {
		return this.inOrder.has(resource);
	}
	/**
	* Whether this deploy may take `resource` now. The same commit completed the step before:
	* yes. Otherwise, with GitHub's compare, the newest commits of its repository that
	* completed it are asked whether they contain this one; the first that does is the
	* answer. GitHub not answering refuses (fail closed), saying so, and so does the
	* caller's GitHub budget being spent (`caller`: whose, auth/caller.ts).
	*/
	async check(resource, deploy, caller) {
		const from = this.record.stepBefore(resource);
		if (from === void 0) return {};
		const caughtUp = this.reading.then(() => this.catchUp());
		this.reading = caughtUp.catch(() => void 0);
		await caughtUp;
		const unpromoted = this.record.missing(resource, deploy);
		const c = require_checkpoint.commitOf(deploy);
		if (unpromoted === void 0 || !this.compare || !c) return unpromoted ? { unpromoted } : {};
		const candidates = this.record.completedOn(from, c.repository, 20);
		try {
			for (const done of candidates) if (await this.compare.contains(c.repository, c.commit, done, caller)) return { promotedVia: done };
		} catch (error) {
			return { unpromoted: `${unpromoted}; GitHub could not say whether a commit that completed it contains this one (${require_cli.causeText(error)})` };
		}
		return { unpromoted: candidates.length ? `${unpromoted}; GitHub's compare finds it in none of the ${candidates.length} newest commits that did` : unpromoted };
	}
	async catchUp() {
		await this.service.syncLedger();
		const { ledger } = this.service;
		const size = ledger.size;
		if (this.cursor >= size) return;
		const from = this.cursor;
		const entries = await ledger.read(from, size, size, () => {
			const read = [];
			for (let i = from; i < size; i += 1) read.push(ledger.entry(i));
			return read;
		});
		for (const entry of entries) if (entry) this.record.add(entry);
		this.cursor = size;
	}
};
// src/kernel/http/app.ts
/** The app's metrics from the server's options: new ones unless off or nobody may read them. */
function metricsOf(options) {
	const { metrics, metricsKey, adminKey } = options;
	if (metrics === false) return { metricsKey };
	return {
		metrics: metrics || (metricsKey || adminKey ? new KernelMetrics() : void 0),
		metricsKey
	};
}
/** Who calls an open route or a lever: the lever checks the admin key itself. */
const OPEN = { kind: "open" };
/**
* Routing, keys, origin checks and validation; the service does the rest. The routes come
* by concept (lease-, freeze-, break-glass-, status-, ledger-routes), each lever checked
* with the one admin check (admin.ts).
*/
function createKernelApp(options) {
	const { service } = options;
	const names = options.names ?? new KernelNames();
	const held = options.held ?? new HeldRequests(service);
	const watches = new LeaseWatches(service);
	const promotions = options.promote?.size ? new Promotions(service, options.promote, options.compare) : void 0;
	const auth = options.auth ?? createAuthorizer({ key: options.key });
	const checks = operatorChecks(options, auth);
	const routes = {
		...leaseRoutes({
			service,
			auth,
			held,
			watches,
			promotions,
			requireAdmin: checks.requireAdmin
		}),
		...freezeRoutes(service, checks.requireAdmin),
		...breakGlassRoutes(service, checks.requireAdmin, checks.requireApprover),
		...statusRoutes({
			service,
			windows: options.windows,
			promotions,
			health: options.health,
			mayReadHealth: checks.mayReadHealth
		}),
		...syncedFirst(ledgerRoutes(service.ledger), service),
		...metricsRoutes(options.metrics, options)
	};
	const unobserve = options.metrics && observed(options.metrics, service, held, options.health);
	const paths = new Set(Object.keys(routes).map((r) => r.slice(r.indexOf(" ") + 1)));
	return Object.assign(dispatch(routes, paths, names, auth), {
		serves: (path) => paths.has(path),
		names,
		close: () => {
			held.close();
			watches.close();
			unobserve?.();
		}
	});
}
/** Feeds `metrics` from the service's batches and its state at each scrape; returns the undo. */
function observed(metrics, service, held, health) {
	metrics.scrapeFrom({
		service,
		held,
		health
	});
	return service.observe?.(metrics) ?? (() => void 0);
}
/** Finds the request's route, checks its Host, origin and caller, and answers refusals. */
function dispatch(routes, paths, names, auth) {
	return async (req) => {
		try {
			const name = `${req.method} ${req.path}`;
			const byAddress = OPEN_ROUTES.has(name) || name === "GET /metrics";
			if (!byAddress && !names.hostAllowed(req.headers.host)) refuseHost(req.headers.host);
			const route = routes[name];
			if (!route) throw paths.has(req.path) ? new ApiRefusal(`${req.method} is not served on ${req.path}.`, {
				status: 405,
				reason: "method_not_allowed"
			}) : new ApiRefusal(`No route ${req.method} ${req.path}.`, {
				status: 404,
				reason: "not_found"
			});
			if (req.method === "POST") refuseCrossOrigin(req, names);
			return await route(req, ADMIN_PATHS.has(req.path) || byAddress ? OPEN : await auth.authorize(req.headers));
		} catch (error) {
			return refusalAnswer(error);
		}
	};
}
/** A refusal as the wire has it; anything else is not ours to word and goes on up. */
function refusalAnswer(error) {
	if (error instanceof ApiRefusal || error instanceof AuthRefusal) return {
		status: error.status,
		body: {
			ok: false,
			reason: error.reason,
			message: error.message
		}
	};
	if (error instanceof require_round_trips.StoreUnavailableError) return {
		status: 503,
		body: {
			ok: false,
			reason: "store_unavailable",
			message: error.message
		}
	};
	throw error;
}
/** A replica's ledger catches up with the shared store before it answers. */
function syncedFirst(routes, service) {
	const synced = {};
	for (const [name, route] of Object.entries(routes)) synced[name] = async (req, principal) => {
		await service.syncLedger();
		return route(req, principal);
	};
	return synced;
}
/** A name that is not ours: a DNS-rebinding page, or a proxy not named with --public-url. */
function refuseHost(host) {
	throw new ApiRefusal(`This kernel does not answer to Host ${JSON.stringify((host ?? "").slice(0, 100))}: it answers to loopback names, its listen address and each --public-url.`, {
		status: 421,
		reason: "misdirected"
	});
}
/**
* A browser page from another origin may not change anything here. The
* origin is checked against the kernel's own names, never built from `Host`
* alone (a rebinding page controls the name it is reached by).
*/
function refuseCrossOrigin(req, names) {
	const { origin, host } = req.headers;
	if (origin !== void 0 && !names.originAllowed(origin, host) || req.headers["sec-fetch-site"] === "cross-site") throw new ApiRefusal(`Requests that change leases must come from this kernel's own origin (${names.describe(host)}), not from a page on another site.`, {
		status: 403,
		reason: "cross_origin"
	});
}
// src/kernel/http/wire.ts
/**
* The adapter's words at the wire: the request's id and the notices that carry it, a refused
* credential's line, a path made safe for a log line, and malformed HTTP's answer.
*/
/**
* A notice about this request, with its id: the client's X-Request-Id when it is a plain
* token, else a new one, said back so a client's report and the kernel's log line match.
*/
function noticeFor(req, res, log) {
	const requestId = requestIdOf(req);
	res.setHeader("x-request-id", requestId);
	return (line) => log(line, { requestId });
}
function requestIdOf(req) {
	const given = req.headers["x-request-id"];
	return typeof given === "string" && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : (0, node_crypto.randomUUID)();
}
/**
* A credential refused (401, 403) as `401 unauthorized`: an operator's business (a leaked or
* rotated key, a wrong audience). The reason word only, never the message: that may quote
* the request, and never what was presented.
*/
function refusalOf(answer) {
	if (answer.status !== 401 && answer.status !== 403) return void 0;
	const reason = answer.body?.reason;
	const word = typeof reason === "string" && /^[a-z_-]{1,40}$/.test(reason) ? reason : "refused";
	return `${answer.status} ${word}`;
}
/** A path from the wire, made safe for one log line. */
const escape = (text) => JSON.stringify(text.slice(0, 200)).slice(1, -1);
/** Malformed HTTP gets a JSON answer too, then the connection closes. */
function answerClientError(error, socket) {
	if (error.code === "ECONNRESET" || !socket.writable) {
		socket.destroy();
		return;
	}
	const [status, reason, message] = error.code === "HPE_HEADER_OVERFLOW" ? [
		431,
		"headers_too_large",
		"The request headers are too large."
	] : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? [
		408,
		"request_timeout",
		"The request took too long to arrive."
	] : [
		400,
		"bad_request",
		"The request is not well-formed HTTP/1.1."
	];
	const body = JSON.stringify({
		ok: false,
		reason,
		message
	});
	socket.end(`HTTP/1.1 ${status} ${node_http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
// src/kernel/service/alarms.ts
/** A binary min-heap of (time, resource): the next lapse without a scan of every lease. */
var AlarmHeap = class {
	items = [];
	get size() {
		return this.items.length;
	}
	peek() {
		return this.items[0]?.at;
	}
	push(at, resource) {
		const items = this.items;
		items.push({
			at,
			resource
		});
		let i = items.length - 1;
		while (i > 0) {
			const parent = i - 1 >> 1;
			if (items[parent].at <= at) break;
			[items[parent], items[i]] = [items[i], items[parent]];
			i = parent;
		}
	}
	/** Removes and returns the earliest alarm due by `now`. */
	popDue(now) {
		const items = this.items;
		const top = items[0];
		if (!top || top.at > now) return void 0;
		const last = items.pop();
		if (items.length) {
			items[0] = last;
			let i = 0;
			for (;;) {
				const l = 2 * i + 1;
				const r = l + 1;
				let m = i;
				if (l < items.length && items[l].at < items[m].at) m = l;
				if (r < items.length && items[r].at < items[m].at) m = r;
				if (m === i) break;
				[items[m], items[i]] = [items[i], items[m]];
				i = m;
			}
		}
		return top;
	}
};
// src/kernel/service/pass-approvals.ts
/** How many ledger entries one read of the local ledger looks at. */
const WINDOW = 4096;
/**
* One OIDC approval (a run's attempt) approves one break-glass, across resources and
* restarts: a token of a team that may approve would otherwise let any number of jobs past
* any number of freezes. The rules see one resource at a time, so the service asks here
* first, one approval at a time in this process: an approval already recorded on the
* ledger (`approval` of a `break_glass` entry), or approved here since, is refused.
*
* The ledger is the memory: a restart forgets nothing. With PostgreSQL replicas, two
* replicas approving with one token in the same moment could both pass the search (the
* entry of the first is not sequenced yet); `verify` refuses such a ledger.
*/
var PassApprovals = class {
	reader;
	used = /* @__PURE__ */ new Map();
	/** Local ledgers: entries below this index have been read into `used`. */
	scanned = 0;
	turn = Promise.resolve();
	constructor(reader) {
		this.reader = reader;
	}
	/** Runs `approve` unless `approval` approved a pass before; one at a time. */
	once(approval, resource, approve) {
		const next = this.turn.then(async () => {
			const where = this.used.get(approval) ?? await this.recorded(approval);
			if (where !== void 0) return {
				ok: false,
				reason: "approval_used",
				message: `${approval} already approved a break-glass (${where}): one approval approves one pass; approve this one from another run`
			};
			const reply = await approve();
			if (reply.ok) this.used.set(approval, `on ${resource}`);
			return reply;
		});
		this.turn = next.catch(() => void 0);
		return next;
	}
	/** Where the ledger records `approval` on a pass, if it does. */
	async recorded(approval) {
		const { ledger, searchLedger } = this.reader;
		if (searchLedger) {
			const needle = `"approval":${JSON.stringify(approval)}`;
			const [seq] = await searchLedger.call(this.reader, needle, 0, 1);
			return seq === void 0 ? void 0 : `ledger entry ${seq}`;
		}
		const size = ledger.size;
		for (let lo = this.scanned; lo < size; lo += WINDOW) {
			const hi = Math.min(size, lo + WINDOW);
			await ledger.read(lo, hi, size, () => {
				for (let i = lo; i < hi; i += 1) this.note(ledger.entry(i));
			});
			this.scanned = hi;
		}
		return this.used.get(approval);
	}
	note(e) {
		if (e?.kind === "break_glass" && e.approval !== void 0 && !this.used.has(e.approval)) this.used.set(e.approval, `ledger entry ${e.seq}`);
	}
};
// src/kernel/rules/event.ts
/**
* A durable change (every grant, renewal, release, lapse, revocation, freeze
* and unfreeze), as the rules make it and as a change notice carries it to
* other replicas: one shape, checked wherever it arrives from outside.
*/
const kernelEventSchema = require_cli.object({
	kind: require_cli._enum(require_entry_kinds.ENTRY_KINDS),
	atMs: require_cli.number(),
	resource: require_cli.string(),
	actorDid: require_cli.string(),
	leaseId: require_cli.string(),
	fence: require_cli.number(),
	/** The lease's end as the holder was told it (grants and renewals). */
	expiresAtMs: require_cli.optional(require_cli.number()),
	reason: require_cli.optional(require_cli.string()),
	/** Who revoked, `operator:NAME` (revokes whose operator gave a name), or opened a break-glass. */
	by: require_cli.optional(require_cli.string()),
	/** The second operator who approved a break-glass, when one had to. */
	approvedBy: require_cli.optional(require_cli.string()),
	/** The run and attempt whose OIDC token approved a break-glass (one approval, one pass). */
	approval: require_cli.optional(require_cli.string()),
	/**
	* A grant a break-glass let through: stamped in a run of +1 stamps, its entry carries the
	* clock that decided it (clockMs), so verify sees it came before the pass ended.
	*/
	clocked: require_cli.optional(require_cli.boolean()),
	/** What the holder deploys (grants only). */
	deploy: require_cli.optional(require_cli.deploySchema),
	/**
	* A grant past a promotion step by a descendant (kernel --github-token-file): the commit
	* that completed the step before and contains this one, by GitHub's compare.
	*/
	promotedVia: require_cli.optional(require_cli.string()),
	/** The OIDC issuer (URL) whose token the grant's holder proved itself with (grants only). */
	issuer: require_cli.optional(require_cli.string())
});
const FREEING = /* @__PURE__ */ new Set([
	"release",
	"lapse",
	"revoke",
	"unfreeze",
	"break_glass"
]);
/** Whether these changes may have freed their resource (held requests wake on it). */
const frees = (events) => events.some((e) => FREEING.has(e.kind));
// src/kernel/store/group-commit.ts
/**
* Group commit, for every store: calls that arrive while every slot
* is committing wait and go together in the next batch, so one WAL flush and
* one pair of round trips serve many calls. Few slots: on two cores, 4 or 8
* PostgreSQL batches in flight were slower than 2, and 2 than one at a time
* with a spare (`spareAfterMs`): smaller batches, more work per call. A call
* that waits longer than `waitMs` (every slot stuck
* on a locked row) is refused at once, as a busy pool refuses a connection.
*/
var GroupCommit = class {
	commit;
	options;
	waiting = [];
	inFlight = 0;
	gathering = false;
	running = /* @__PURE__ */ new Set();
	/** Batches in flight that have not yet taken spareAfterMs. */
	onTime = 0;
	/** submitTogether calls running: a call submitted meanwhile waits for their end. */
	together = 0;
	constructor(commit, options) {
		this.commit = commit;
		this.options = options;
	}
	submit(item) {
		return new Promise((resolve, reject) => {
			const entry = {
				item,
				resolve,
				reject,
				timer: Number.isFinite(this.options.waitMs) ? setTimeout(() => {
					const at = this.waiting.indexOf(entry);
					if (at < 0) return;
					this.waiting.splice(at, 1);
					reject(this.options.busy());
				}, this.options.waitMs) : void 0
			};
			this.waiting.push(entry);
			if (this.together === 0) this.start();
		});
	}
	/**
	* The calls `submit`ted while `fn` runs (synchronously) wait for it to end, so they go
	* in one batch, in the order submitted (unless a batch's cap splits them): a release and
	* the asks of the requests held for what it frees are committed together.
	*/
	submitTogether(fn) {
		this.together += 1;
		try {
			return fn();
		} finally {
			this.together -= 1;
			if (this.together === 0 && this.waiting.length > 0) this.start();
		}
	}
	/** A batch now, or at the end of this event-loop turn when the store gathers its calls. */
	start() {
		if (this.options.gatherTurn && this.inFlight === 0) {
			if (this.gathering) return;
			this.gathering = true;
			setImmediate(() => {
				this.gathering = false;
				this.next();
			});
			return;
		}
		this.next();
	}
	/** Resolves once no batch is in flight (a service that is closing waits for its writes). */
	async idle() {
		while (this.running.size > 0 || this.gathering) await Promise.all([...this.running, new Promise((r) => setImmediate(r))]);
	}
	next() {
		if (this.inFlight >= this.options.slots || this.waiting.length === 0) return;
		const { spareAfterMs, maxBatch } = this.options;
		if (spareAfterMs !== void 0 && this.onTime > 0 && this.waiting.length < maxBatch) return;
		const batch = this.waiting.splice(0, maxBatch);
		for (const b of batch) clearTimeout(b.timer);
		this.inFlight += 1;
		let late;
		if (spareAfterMs !== void 0) {
			this.onTime += 1;
			late = setTimeout(() => {
				late = void 0;
				this.onTime -= 1;
				this.next();
			}, spareAfterMs);
			late.unref();
		}
		const run = this.run(batch).finally(() => {
			if (late) {
				clearTimeout(late);
				this.onTime -= 1;
			}
			this.inFlight -= 1;
			this.running.delete(run);
			this.next();
		});
		this.running.add(run);
	}
	async run(batch) {
		try {
			const results = await this.commit(batch.map((b) => b.item));
			batch.forEach((b, i) => {
				const result = results[i];
				if (result?.status === "fulfilled") b.resolve(result.value);
				else b.reject(asError(result?.reason ?? "no result for this call"));
			});
		} catch (error) {
			for (const b of batch) b.reject(asError(error));
		}
	}
};
const asError = (error) => error instanceof Error ? error : new Error(String(error));
// src/kernel/store/entry-event.ts
/** A ledger entry as the event the rules replay (a restart, a file kernel's view of its log). */
function toEvent(entry) {
	const { kind, tsMs, resource, actorDid, leaseId, fence, expiresAtMs, reason } = entry;
	const event = {
		kind,
		atMs: tsMs,
		resource,
		actorDid,
		leaseId,
		fence
	};
	if (expiresAtMs !== void 0) event.expiresAtMs = expiresAtMs;
	if (reason !== void 0) event.reason = reason;
	if (entry.by !== void 0) event.by = entry.by;
	if (entry.approvedBy !== void 0) event.approvedBy = entry.approvedBy;
	if (entry.approval !== void 0) event.approval = entry.approval;
	if (entry.promotedVia !== void 0) event.promotedVia = entry.promotedVia;
	if (entry.issuer !== void 0) event.issuer = entry.issuer;
	const deploy = entry.deploy && require_cli.deploySchema.safeParse(entry.deploy);
	if (deploy?.success) event.deploy = deploy.data;
	return event;
}
/**
* A ledger's lines read back from the log file they were written to: memory
* holds one byte offset per run of RUN_LINES lines (8 bytes per 256 entries)
* and the last run read, never the lines themselves. Line i+1 starts one byte
* (its newline) after line i ends, which is how the file store writes them.
*/
var FileLines = class {
	path;
	readsBack = true;
	length = 0;
	/** Where the next line starts (just past the last line's newline). */
	end = 0;
	starts = /* @__PURE__ */ new Float64Array(64);
	fd;
	run;
	constructor(path) {
		this.path = path;
	}
	/** Takes the index a snapshot kept: `length` lines, run starts, and the end of the last line. */
	restore(length, starts, end) {
		if (this.length !== 0) throw new RangeError("only an empty source restores");
		if (starts.length !== Math.ceil(length / 256)) throw new RangeError(`${starts.length} run starts do not index ${length} lines`);
		this.grow(starts.length);
		this.starts.set(starts);
		this.length = length;
		this.end = end;
	}
	/** The byte offsets of each run's first line (for a snapshot). */
	runStarts() {
		return Array.from(this.starts.subarray(0, Math.ceil(this.length / 256)));
	}
	push(line) {
		if (this.length % 256 === 0) {
			const run = this.length / 256;
			this.grow(run + 1);
			this.starts[run] = this.end;
		}
		const bytes = Buffer.from(line, "utf8");
		this.end += bytes.length + 1;
		this.length += 1;
		return bytes;
	}
	at(i) {
		const { bytes, offsets } = this.read(Math.floor(i / 256));
		const j = i % 256;
		return bytes.toString("utf8", offsets[j], offsets[j + 1] - 1);
	}
	bytes(lo, hi) {
		const out = [];
		for (let i = lo; i < hi;) {
			const { bytes, offsets, count } = this.read(Math.floor(i / 256));
			const first = i % 256;
			const last = Math.min(count, first + (hi - i));
			for (let j = first; j < last; j += 1) out.push(bytes.subarray(offsets[j], offsets[j + 1] - 1));
			i += last - first;
		}
		return out;
	}
	get heldBytes() {
		return this.starts.byteLength + (this.run?.bytes.length ?? 0);
	}
	close() {
		if (this.fd !== void 0) (0, node_fs.closeSync)(this.fd);
		this.fd = void 0;
		this.run = void 0;
	}
	grow(runs) {
		if (runs <= this.starts.length) return;
		const bigger = new Float64Array(Math.max(runs, this.starts.length * 2));
		bigger.set(this.starts);
		this.starts = bigger;
	}
	/** One run's bytes and where each of its lines starts (offsets[count] is one past the last newline). */
	read(index) {
		const count = Math.min(256, this.length - index * 256);
		if (!(count > 0)) throw new RangeError(`line ${index * 256} is not in the ledger`);
		if (this.run?.index === index && this.run.count === count) return this.run;
		const from = this.starts[index];
		const to = (index + 1) * 256 < this.length ? this.starts[index + 1] : this.end;
		const bytes = Buffer.allocUnsafe(to - from);
		this.fd ??= (0, node_fs.openSync)(this.path, "r");
		let got = 0;
		while (got < bytes.length) {
			const n = (0, node_fs.readSync)(this.fd, bytes, got, bytes.length - got, from + got);
			if (n <= 0) break;
			got += n;
		}
		if (got === bytes.length - 1) bytes[got++] = 10;
		const offsets = [0];
		for (let at = 0; offsets.length <= count;) {
			const nl = bytes.indexOf(10, at);
			if (nl < 0 || nl >= got) throw new RangeError(`${this.path}: lines ${index * 256}..${index * 256 + count} could not be read back at byte ${from}`);
			at = nl + 1;
			offsets.push(at);
		}
		this.run = {
			index,
			count,
			bytes,
			offsets
		};
		return this.run;
	}
};
// src/kernel/store/restart.ts
/** Follows the log's stamps entry by entry. */
function logTimeAfter(time, tsMs) {
	if (time && tsMs === time.lastMs + 1) return {
		lastMs: tsMs,
		earliestMs: time.earliestMs
	};
	return {
		lastMs: tsMs,
		earliestMs: tsMs
	};
}
/**
* The restart rule, with no I/O. A lease the log leaves open whose told expiry
* had passed by the kernel's clock before the log's last entry was written is
* left to lapse; every other one is renewed so that it has, from `now` (the
* moment the kernel serves again), at least what it had left when the log
* ended (its told expiry less the earliest the clock read then, at most one
* TTL), never earlier than its told expiry. Not a full TTL: leases held at a
* crash would otherwise keep their resources a whole lifetime longer. The
* renewal is stamped as of the log's end (`atMs = lastMs`), when the lease was
* still live, so the ledger shows it renewed before it expired.
*/
function resumeLeases(states, time, now, ttlMs) {
	const resumed = [];
	const events = [];
	for (const state of states) {
		const { lease } = state;
		if (!lease || lease.expiresAtMs <= time.earliestMs) continue;
		const leftMs = Math.min(ttlMs, lease.expiresAtMs - time.earliestMs);
		const expiresAtMs = Math.max(lease.expiresAtMs, now + leftMs);
		if (expiresAtMs === lease.expiresAtMs) continue;
		resumed.push({
			...state,
			lease: {
				...lease,
				expiresAtMs
			}
		});
		events.push({
			kind: "renew",
			atMs: time.lastMs,
			resource: lease.resource,
			actorDid: lease.holder,
			leaseId: lease.id,
			fence: lease.fence,
			expiresAtMs,
			reason: "kernel restart"
		});
	}
	return {
		states: resumed,
		events
	};
}
// src/kernel/rules/state.ts
/**
* The one statement of what the rules keep for a resource (rules.ts): the
* schema every reader of a stored state checks against (a PostgreSQL row, a
* snapshot file), and the types the rules use, inferred from it. Adding a
* field is done here, once. Pure: no I/O.
*/
const leaseRecordSchema = require_cli.object({
	id: require_cli.string(),
	resource: require_cli.string(),
	holder: require_cli.string(),
	expiresAtMs: require_cli.number(),
	fence: require_cli.number().check(require_cli.int()),
	grantedAtMs: require_cli.number(),
	/** What the holder said it deploys (extension fields of its request). */
	deploy: require_cli.optional(require_cli.deploySchema)
});
const waiterSchema = require_cli.object({
	actorDid: require_cli.string(),
	/** When this waiter must have asked again to keep its place. */
	keepUntil: require_cli.number(),
	/** When it first asked (epoch ms, the kernel's clock): the console's "waited". Absent in older rows. */
	sinceMs: require_cli.optional(require_cli.number()),
	/** What it deploys and whether it steps aside for newer runs of its lane (deploy-order.ts). */
	deploy: require_cli.optional(require_cli.deploySchema),
	queue: require_cli.optional(require_cli.queueSchema)
});
/**
* An operator's revoke: the revoked agent is refused here until `untilMs`, and so is
* every other DID of the same run attempt (`revokeRefuses`): a job asking again under
* a new nonce is the same run, not a new agent.
*/
const revokedMarkSchema = require_cli.object({
	actorDid: require_cli.string(),
	message: require_cli.string(),
	untilMs: require_cli.number(),
	/** Who revoked (`operator:NAME`), when named: the revoked holder is told. */
	by: require_cli.optional(require_cli.string())
});
/** A revoked holder that has not given the resource back yet: nobody else gets it until `untilMs`. */
const lockDelaySchema = require_cli.object({
	actorDid: require_cli.string(),
	leaseId: require_cli.string(),
	untilMs: require_cli.number()
});
/** A waiter a newer run of its lane superseded (deploy-order.ts). */
const supersededMarkSchema = require_cli.object({
	actorDid: require_cli.string(),
	by: require_cli.string(),
	untilMs: require_cli.number()
});
/** The live grant of one repository on a resource, and the one before it. */
const repositoryDeploysSchema = require_cli.object({
	repository: require_cli.string(),
	live: require_cli.deploySchema,
	before: require_cli.optional(require_cli.deploySchema)
});
/** Why and until when (null: until unfrozen) a resource takes no new holder. */
const freezeSchema = require_cli.object({
	reason: require_cli.string(),
	untilMs: require_cli.nullable(require_cli.number()),
	/** Who froze it, as the ledger names them. */
	by: require_cli.string(),
	atMs: require_cli.number()
});
/** An operator's break-glass (break-glass.ts): one agent let through a freeze once. */
const breakGlassSchema = require_cli.object({
	actorDid: require_cli.string(),
	reason: require_cli.string(),
	by: require_cli.string(),
	untilMs: require_cli.number(),
	atMs: require_cli.number(),
	/** Waiting for a second operator's approval: not usable yet, and not on the ledger. */
	pending: require_cli.boolean(),
	approvedBy: require_cli.optional(require_cli.string()),
	/** The OIDC approval's run and attempt (one approval approves one pass). */
	approval: require_cli.optional(require_cli.string())
});
/**
* Everything the rules know about one resource; small and plain JSON. The
* optional fields came later: rows and snapshots written before them still read.
*/
const resourceStateSchema = require_cli.object({
	resource: require_cli.string(),
	lease: require_cli.nullable(leaseRecordSchema),
	queue: require_cli.array(waiterSchema),
	/** Until when a freed resource is kept for the head of the queue (0: not kept). */
	reservedUntilMs: require_cli.number(),
	/** A moving average of how long holders kept it. */
	typicalHoldMs: require_cli.nullable(require_cli.number()),
	revoked: require_cli.array(revokedMarkSchema),
	/** Set by a revoke; cleared when the revoked holder gives the resource back or at `untilMs`. */
	lockDelay: require_cli.optional(lockDelaySchema),
	/** Waiters a newer run of their lane superseded (deploy-order.ts). */
	superseded: require_cli.optional(require_cli.array(supersededMarkSchema)),
	/** Each repository's last grant here, for `previous` (deploy-order.ts). */
	deploys: require_cli.optional(require_cli.array(repositoryDeploysSchema)),
	/** An operator's freeze (see freeze.ts): no new grant until it ends. */
	frozen: require_cli.optional(freezeSchema),
	/**
	* The end of the recurring window (windows.ts) that last refused a waiter here: the
	* window is configuration, not state, so this is how the rules see it end (thawed).
	*/
	windowUntilMs: require_cli.optional(require_cli.number()),
	/** An operator's break-glass not used yet (break-glass.ts). */
	breakGlass: require_cli.optional(breakGlassSchema)
});
/** A stored state checked like any outside input, or undefined when it is not one. */
function readResourceState(raw, resource) {
	const parsed = resourceStateSchema.safeParse(raw);
	if (!parsed.success || resource !== void 0 && parsed.data.resource !== resource) return void 0;
	return parsed.data;
}
// src/kernel/store/snapshot.ts
const whole = require_cli.number().check(require_cli.int(), require_cli._nonnegative());
/**
* The file carries its own checksum and its last line is checked against the
* log; its states are still read through the one state schema (state.ts).
*/
const snapshotStateSchema = require_cli.object({
	version: require_cli.literal(1),
	ledger: require_cli.object({
		size: whole,
		lastTs: require_cli.number().check(require_cli.int()),
		root: require_cli.string(),
		chunkRoots: require_cli.string()
	}),
	runStarts: require_cli.array(whole),
	end: whole,
	fence: require_cli.number().check(require_cli.int()),
	time: require_cli.object({
		lastMs: require_cli.number(),
		earliestMs: require_cli.number()
	}),
	ttlMs: require_cli.number(),
	lockDelayMs: require_cli.number(),
	states: require_cli.array(resourceStateSchema)
});
/** The state a snapshot file holds, or undefined when it is not one this kernel writes. */
function readSnapshotState(value) {
	const parsed = snapshotStateSchema.safeParse(value);
	return parsed.success ? parsed.data : void 0;
}
// src/kernel/store/log-view.ts
/** Resource states serialised between two yields while a snapshot is taken. */
const STATES_PER_TURN = 1e3;
/**
* A file kernel's start: the ledger reads its lines back from the log; a
* snapshot the log confirms stands for the part of the log it covers, and
* only the lines after it are replayed. A snapshot whose last entry the log
* no longer holds where it says refuses the start (the log was cut short or
* rewritten; a crash between an append and a snapshot leaves the snapshot
* behind the log, never ahead of it): it is returned as `snapshotTaken`, and
* refused once the log is read whole. Any other snapshot is ignored with a
* note and the whole log replayed: the log is the one truth.
*/
async function openLogView(store, live, ledger) {
	const fresh = () => ({
		store,
		lines: new FileLines(store.path),
		table: new ResourceTable({
			ttlMs: live.ttlMs,
			lockDelayMs: live.lockDelayMs
		}),
		time: void 0,
		since: 0,
		writing: void 0
	});
	let replayed = fresh();
	let start;
	let note;
	let snapshotTaken;
	const found = store.readSnapshot();
	if ("disagrees" in found) snapshotTaken = { size: found.disagrees.size };
	else if ("snapshot" in found) {
		const used = restoreSnapshot(found.snapshot, replayed, live, ledger);
		if ("start" in used) start = used.start;
		else {
			replayed.lines.close();
			replayed = fresh();
			({note, snapshotTaken} = used);
		}
	} else note = found.ignored;
	if (!start) ledger.readFrom(replayed.lines);
	const { table } = replayed;
	let index = start?.index ?? 0;
	const recovered = await store.openFrom((line) => {
		index += 1;
		const entry = ledger.load(line, `${store.describe} line ${index}`);
		table.put(replay(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
		table.fence = Math.max(table.fence, entry.fence);
		replayed.time = logTimeAfter(replayed.time, entry.tsMs);
		replayed.since += 1;
	}, start);
	const ignored = note && `${store.path}.snapshot.json was ignored: ${note}; the whole log was read`;
	const warning = [recovered.warning, ignored].filter(Boolean).join("; ");
	return {
		replayed,
		fenceFloor: recovered.fenceFloor,
		snapshotTaken,
		...warning ? { warning } : {}
	};
}
/**
* Restores the ledger and the view from a snapshot the log confirms, and says where the
* log's replay starts; or why it is not used (the log's root at its size is still checked
* once the log is read, so its size and root are returned).
*/
function restoreSnapshot(snapshot, replayed, live, ledger) {
	const state = readSnapshotState(snapshot.state);
	try {
		if (!state || state.ledger.size !== snapshot.size) throw new Error("it is not a snapshot of this kernel");
		if (state.ttlMs !== live.ttlMs || state.lockDelayMs !== live.lockDelayMs) throw new Error("it was taken with another lease lifetime or lock-delay");
		if (state.end !== snapshot.lastOffset + snapshot.lastBytes + 1) throw new Error("its index does not end at its last entry");
		replayed.lines.restore(state.ledger.size, state.runStarts, state.end);
		ledger.restoreFrom(replayed.lines, state.ledger);
		for (const resource of state.states) replayed.table.put(resource);
		replayed.table.fence = state.fence;
		replayed.time = state.time;
		return { start: {
			index: snapshot.size,
			offset: state.end,
			lastBytes: snapshot.lastBytes
		} };
	} catch (error) {
		const taken = state && {
			size: state.ledger.size,
			root: state.ledger.root
		};
		return {
			note: require_cli.causeText(error),
			snapshotTaken: taken
		};
	}
}
/**
* The snapshot of what is durable now, as the pieces of its JSON, or undefined when there is
* nothing to snapshot. Taken at once (between two batches: the ledger, its index and the
* view all stand at the same entry); the states are then serialised a slice a turn.
*/
async function snapshotPieces(replayed, ledger) {
	const size = ledger.size;
	if (size === 0 || !replayed.time) return void 0;
	const { lines, table } = replayed;
	const last = Buffer.from(lines.at(size - 1), "utf8");
	replayed.since = 0;
	const snapshot = {
		size,
		lastOffset: lines.end - last.length - 1,
		lastBytes: last.length,
		lastSha256: (0, node_crypto.createHash)("sha256").update(last).digest("hex"),
		state: {
			version: 1,
			ledger: ledger.snapshot(),
			runStarts: lines.runStarts(),
			end: lines.end,
			fence: table.fence,
			time: replayed.time,
			ttlMs: table.ttlMs,
			lockDelayMs: table.lockDelayMs,
			states: []
		}
	};
	const states = [...table.values()];
	const whole = JSON.stringify(snapshot);
	if (!whole.endsWith(`"states":[]}}`)) throw new require_cli.InternalError("the snapshot is not laid out as it is read");
	const body = [whole.slice(0, -4), "["];
	for (let i = 0; i < states.length; i += STATES_PER_TURN) {
		if (i > 0) {
			await (0, node_timers_promises.setImmediate)();
			body.push(",");
		}
		body.push(states.slice(i, i + STATES_PER_TURN).map((state) => JSON.stringify(state)).join(","));
	}
	body.push("]}}");
	return body;
}
/** The log is not the one its snapshot was taken of: the start is refused, saying how to recover. */
function snapshotDisagrees(logPath, size) {
	return new require_round_trips.StartRefusedError(`Refusing to start: ${logPath}.snapshot.json was taken of ${size} ${size === 1 ? "entry" : "entries"} of ${logPath}, and the log no longer holds them: it was cut short or rewritten since. Put back the log it was taken of (from a backup); to keep this log on purpose (an older backup restored), move ${logPath}.snapshot.json aside (checkpoints signed over the entries lost no longer verify).`);
}
// src/kernel/store/signed-record.ts
/**
* The last checkpoint a file kernel signed over its log, kept beside it
* (`LOG.signed.json`): its size and root. A checkpoint is a promise that the
* log's first `size` entries are these and never others; a log rewritten
* between two runs would otherwise be signed again under a new root, and only
* someone holding the old checkpoint would ever know. Written (synced, renamed
* into place) before a checkpoint of a larger size is handed out; checked at
* start, before the kernel serves or signs anything.
*/
const signedRecordPath = (logPath) => `${logPath}.signed.json`;
const recordSchema = require_cli.object({
	size: require_cli.number().check(require_cli.int(), require_cli._positive()),
	root: require_cli.string().check(require_cli._regex(/^[A-Za-z0-9+/]{43}=$/))
});
/** The record beside `logPath`, or undefined when there is none (no checkpoint signed yet). */
function readSignedRecord(logPath) {
	const path = signedRecordPath(logPath);
	let text;
	try {
		text = (0, node_fs.readFileSync)(path, "utf8");
	} catch (error) {
		if (error.code === "ENOENT") return void 0;
		throw new require_round_trips.StartRefusedError(`Cannot read ${path}, the last checkpoint signed over ${logPath}: ${require_cli.causeText(error)}`);
	}
	let parsed;
	try {
		parsed = recordSchema.safeParse(JSON.parse(text));
	} catch {
		parsed = void 0;
	}
	if (!parsed?.success) throw new require_round_trips.StartRefusedError(`${path} is damaged: it should hold the last checkpoint signed over ${logPath} as {"size":N,"root":"\u2026"}. ${RECOVERY}`);
	return parsed.data;
}
const RECOVERY = "Put back the log that was signed (from a backup), or, to start a new history on purpose, move the log and its .signed.json and .snapshot.json aside (checkpoints handed out before then no longer verify against the new log).";
/**
* Refuses (StartRefusedError) a log whose tree at the recorded size does not
* have the recorded root, or that is shorter: it is not the history signed.
*/
function checkSignedHistory(ledger, record, logPath) {
	if (ledger.size < record.size) throw new require_round_trips.StartRefusedError(`Refusing to start: ${logPath} holds ${entries(ledger.size)}, but a checkpoint of ${entries(record.size)} was signed over it (${signedRecordPath(logPath)}): entries were removed. ${RECOVERY}`);
	const root = ledger.rootAt(record.size);
	if (root !== record.root) throw new require_round_trips.StartRefusedError(`Refusing to start: the first ${entries(record.size)} of ${logPath} are not what was signed (their root is ${root}, the checkpoint signed over them had ${record.root}, ${signedRecordPath(logPath)}): the log was rewritten. ${RECOVERY}`);
}
const entries = (n) => `${n} ${n === 1 ? "entry" : "entries"}`;
/** Makes `record` the one kept beside `logPath`: a new file, synced, renamed over the old one. */
async function writeSignedRecord(logPath, record) {
	const path = signedRecordPath(logPath);
	try {
		const text = `${JSON.stringify({
			size: record.size,
			root: record.root
		})}\n`;
		await require_durable.writeFileDurable(path, text, { temp: `${path}.tmp` });
	} catch (error) {
		throw new require_round_trips.StoreUnavailableError(`cannot record the signed checkpoint in ${path}: ${require_cli.causeText(error)}`);
	}
}
// src/kernel/store/log-file.ts
const nodeLogFs = {
	openRead(path) {
		let fd;
		try {
			fd = (0, node_fs.openSync)(path, "r");
		} catch (error) {
			if (error.code === "ENOENT") return void 0;
			throw error;
		}
		return {
			size: (0, node_fs.fstatSync)(fd).size,
			read: (into, position) => (0, node_fs.readSync)(fd, into, 0, into.length, position),
			close: () => (0, node_fs.closeSync)(fd)
		};
	},
	async openLog(path) {
		return nodeLogFile(await (0, node_fs_promises.open)(path, node_fs_promises.constants.O_RDWR | node_fs_promises.constants.O_CREAT, 384));
	},
	async saveCopy(path, bytes) {
		const handle = await (0, node_fs_promises.open)(path, "wx", 384);
		try {
			await require_durable.writeAll(require_durable.handleWriter(handle), bytes, 0);
			await handle.datasync();
		} finally {
			await handle.close();
		}
		await require_durable.syncDirectory((0, node_path.dirname)(path));
	}
};
function nodeLogFile(handle) {
	return {
		write: require_durable.handleWriter(handle),
		datasync: () => handle.datasync(),
		truncate: (length) => handle.truncate(length),
		size: async () => (await handle.stat()).size,
		close: () => handle.close()
	};
}
// src/kernel/store/snapshot-file.ts
/**
* The snapshot beside a file kernel's log (`LOG.snapshot.json`): a header line with the
* SHA-256 of the body, then the body, a SnapshotFile whose `state` is the backend's.
*/
/** Pieces of a snapshot hashed or written between two yields to the event loop. */
const SNAPSHOT_PIECES_PER_TURN = 64;
const snapshotLogSchema = require_cli.object({
	size: require_cli.number().check(require_cli.int(), require_cli._positive()),
	lastOffset: require_cli.number().check(require_cli.int(), require_cli._nonnegative()),
	lastBytes: require_cli.number().check(require_cli.int(), require_cli._positive()),
	lastSha256: require_cli.string().check(require_cli._regex(/^[0-9a-f]{64}$/)),
	state: require_cli.unknown()
});
const sha256Hex = (data) => (0, node_crypto.createHash)("sha256").update(data).digest("hex");
/** See LogFileStore.readSnapshot: the snapshot at `snapshotPath`, checked against the log at `logPath`. */
function readSnapshotFile(logPath, snapshotPath) {
	let text;
	try {
		text = readSmall(snapshotPath);
	} catch (error) {
		if (error.code === "ENOENT") return {};
		return { ignored: `cannot read it (${require_cli.causeText(error)})` };
	}
	const newline = text.indexOf("\n");
	const body = text.slice(newline + 1).trimEnd();
	const header = /^\{"sha256":"([0-9a-f]{64})"\}$/.exec(text.slice(0, newline));
	if (newline < 0 || !header || sha256Hex(body) !== header[1]) return { ignored: "it is damaged" };
	let parsed;
	try {
		parsed = snapshotLogSchema.safeParse(JSON.parse(body));
	} catch {
		return { ignored: "it is damaged" };
	}
	if (!parsed.success) return { ignored: "it is not a snapshot of this kernel" };
	const snapshot = parsed.data;
	return endsAtItsLastLine(logPath, snapshot) ? { snapshot } : { disagrees: snapshot };
}
/** The log holds, at the offset the snapshot names, the very line it names as its last. */
function endsAtItsLastLine(logPath, snapshot) {
	const last = readAt(logPath, snapshot.lastOffset, snapshot.lastBytes + 1);
	const line = last?.subarray(0, snapshot.lastBytes);
	const before = snapshot.lastOffset === 0 ? 10 : readAt(logPath, snapshot.lastOffset - 1, 1)?.[0];
	if (!last || !line || line.length !== snapshot.lastBytes) return false;
	if (last.length > snapshot.lastBytes && last[snapshot.lastBytes] !== 10) return false;
	return before === 10 && sha256Hex(line) === snapshot.lastSha256;
}
/** See LogFileStore.writeSnapshot: replaced whole and durably (writeFileDurable), or a StoreError. */
async function writeSnapshotFile(snapshotPath, body) {
	const hash = (0, node_crypto.createHash)("sha256");
	for (let i = 0; i < body.length; i += 1) {
		if (i > 0 && i % SNAPSHOT_PIECES_PER_TURN === 0) await (0, node_timers_promises.setImmediate)();
		hash.update(body[i], "utf8");
	}
	const header = `{"sha256":"${hash.digest("hex")}"}\n`;
	try {
		await require_durable.writeFileDurable(snapshotPath, async (write) => {
			await write(header);
			for (let i = 0; i < body.length; i += SNAPSHOT_PIECES_PER_TURN) await write(body.slice(i, i + SNAPSHOT_PIECES_PER_TURN).join(""));
			await write("\n");
		}, { temp: `${snapshotPath}.tmp` });
	} catch (error) {
		throw new require_round_trips.StoreError(`cannot write the snapshot ${snapshotPath}: ${require_cli.causeText(error)}`, { cause: error });
	}
}
/** A whole small file (the snapshot), as UTF-8. */
function readSmall(file) {
	const fd = (0, node_fs.openSync)(file, "r");
	try {
		const chunks = [];
		for (let position = 0;;) {
			const chunk = Buffer.allocUnsafe(1048576);
			const n = (0, node_fs.readSync)(fd, chunk, 0, chunk.length, position);
			if (n <= 0) break;
			chunks.push(chunk.subarray(0, n));
			position += n;
		}
		return Buffer.concat(chunks).toString("utf8");
	} finally {
		(0, node_fs.closeSync)(fd);
	}
}
/** Up to `length` bytes of `file` at `position` (fewer at its end), or undefined when it is missing. */
function readAt(file, position, length) {
	let fd;
	try {
		fd = (0, node_fs.openSync)(file, "r");
	} catch {
		return;
	}
	try {
		const bytes = Buffer.alloc(length);
		let got = 0;
		while (got < length) {
			const n = (0, node_fs.readSync)(fd, bytes, got, length - got, position + got);
			if (n <= 0) break;
			got += n;
		}
		return bytes.subarray(0, got);
	} finally {
		(0, node_fs.closeSync)(fd);
	}
}
// src/kernel/store/file-store.ts
/** Bytes read at a time at start. */
const READ_BYTES = 4194304;
/**
* A file of canonical JSON lines, written at the end of what is durable and
* fdatasync'ed per batch. Only bytes a write reports as written count, and a
* batch counts only once all of them are written and synced; a short or failed
* write is cut back to the last durable byte (never past the file's end) before
* the error is reported, and retried on the next batch, so the file never holds
* half a batch that memory does not. Beside it, `PATH.snapshot.json` may hold
* a snapshot that saves a restart the replay of what it covers (local-backend.ts).
*/
function fileStore(path, given, formerPlace) {
	return new FileStore(path, given ?? formerPlace ?? {});
}
var FileStore = class {
	path;
	describe;
	fs;
	now;
	snapshotPath;
	file;
	/** Bytes of whole records on disk and synced: the only length the file is ever cut to. */
	durableBytes = 0;
	/** The last record kept at start was whole but had no newline: the next write starts with one. */
	newlineOwed = false;
	dirty = false;
	constructor(path, options) {
		this.path = path;
		this.describe = path;
		this.fs = options.fs ?? nodeLogFs;
		this.now = options.now ?? Date.now;
		this.snapshotPath = `${path}.snapshot.json`;
	}
	async open() {
		const lines = [];
		return {
			lines,
			...await this.openFrom((line) => lines.push(line))
		};
	}
	/** See LogFileStore.openFrom. */
	async openFrom(onLine, start) {
		const { path } = this;
		const reader = this.openReader();
		let read = {
			index: start?.index ?? 0,
			at: start?.offset ?? 0,
			tail: Buffer.alloc(0)
		};
		let warning;
		if (start && reader && reader.size === start.offset - 1) {
			reader.close();
			read.at -= 1;
			this.newlineOwed = true;
			warning = `${path}: the last record (${start.lastBytes} bytes) had no newline; it is whole and was kept`;
		} else if (reader) read = this.readLines(reader, onLine, read);
		this.durableBytes = read.at;
		let fenceFloor = 0;
		if (read.tail.length > 0) ({fenceFloor, warning} = await this.keepTail(read, onLine));
		try {
			this.file = await this.fs.openLog(path);
		} catch (error) {
			throw new require_round_trips.StoreError(`Cannot open the kernel's log ${path}: ${require_cli.causeText(error)}`, { cause: error });
		}
		await this.repair();
		return {
			fenceFloor,
			...warning ? { warning } : {}
		};
	}
	openReader() {
		try {
			return this.fs.openRead(this.path);
		} catch (error) {
			throw new require_round_trips.StoreError(`Cannot read the kernel's log ${this.path}: ${require_cli.causeText(error)}`, { cause: error });
		}
	}
	/** Hands out each whole line from `from` on; only the part after the last newline is carried. */
	readLines(reader, onLine, from) {
		let { index, at, tail } = from;
		try {
			const block = Buffer.allocUnsafe(READ_BYTES);
			for (let position = at; position < reader.size;) {
				let n;
				try {
					n = reader.read(block, position);
				} catch (error) {
					throw new require_round_trips.StoreError(`Cannot read the kernel's log ${this.path}: ${require_cli.causeText(error)}`, { cause: error });
				}
				if (n <= 0) break;
				position += n;
				const data = tail.length > 0 ? Buffer.concat([tail, block.subarray(0, n)]) : block.subarray(0, n);
				let start = 0;
				for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, start)) {
					onLine(data.toString("utf8", start, nl));
					index += 1;
					at += nl - start + 1;
					start = nl + 1;
				}
				tail = Buffer.from(data.subarray(start));
			}
		} finally {
			reader.close();
		}
		return {
			index,
			at,
			tail
		};
	}
	/**
	* The bytes after the last newline: a record whole and valid but for its newline may have
	* been acknowledged, so it stays; a torn one is saved to a copy, then cut off.
	*/
	async keepTail({ index, tail }, onLine) {
		const { path } = this;
		const text = tail.toString("utf8");
		if (require_checkpoint.readEntry(text, index)) {
			onLine(text);
			this.durableBytes += tail.length;
			this.newlineOwed = true;
			return {
				fenceFloor: 0,
				warning: `${path}: the last record (${tail.length} bytes) had no newline; it is whole and was kept`
			};
		}
		const copy = `${path}.cut-${new Date(this.now()).toISOString().replace(/[:.]/g, "-")}`;
		try {
			await this.fs.saveCopy(copy, tail);
		} catch (error) {
			throw new require_round_trips.StoreError(`${path}: the last record is torn (${tail.length} bytes) and cannot be saved to ${copy} before it is cut: ${require_cli.causeText(error)}. Free space and start again.`, { cause: error });
		}
		this.dirty = true;
		return {
			fenceFloor: highestFence(text),
			warning: `${path}: the last record was torn (${tail.length} bytes without an end); it was saved to ${copy}, cut off, and the ${index} records before it kept`
		};
	}
	/** Cuts the file back to what is durable (a torn record, a failed write), and syncs it. */
	async repair() {
		const { file, durableBytes } = this;
		if (!this.dirty || !file) return;
		try {
			const size = await file.size();
			if (size < durableBytes) throw new Error(`it holds ${size} bytes, fewer than the ${durableBytes} already durable; refusing to extend it`);
			if (size > durableBytes) await file.truncate(durableBytes);
			await file.datasync();
			this.dirty = false;
		} catch (error) {
			throw new require_round_trips.StoreError(`cannot repair ${this.path}: ${require_cli.causeText(error)}`, { cause: error });
		}
	}
	readSnapshot() {
		return readSnapshotFile(this.path, this.snapshotPath);
	}
	writeSnapshot(body) {
		return writeSnapshotFile(this.snapshotPath, body);
	}
	async append(text) {
		const { file, path } = this;
		if (!file) throw new require_round_trips.StoreError(`${path} is not open`);
		await this.repair();
		const bytes = Buffer.from(this.newlineOwed ? `\n${text}` : text, "utf8");
		const start = this.durableBytes;
		try {
			this.dirty = true;
			await require_durable.writeAll((b, o, l) => file.write(b, o, l, start + o), bytes, start);
			await file.datasync();
		} catch (error) {
			await this.repair().catch(() => void 0);
			throw new require_round_trips.StoreError(`cannot write ${path}: ${require_cli.causeText(error)}`, { cause: error });
		}
		this.durableBytes += bytes.length;
		this.newlineOwed = false;
		this.dirty = false;
	}
	async probe() {
		if (!this.file) throw new require_round_trips.StoreError(`${this.path} is not open`);
		await this.repair();
		try {
			await this.file.datasync();
		} catch (error) {
			throw new require_round_trips.StoreError(`cannot sync ${this.path}: ${require_cli.causeText(error)}`, { cause: error });
		}
	}
	async close() {
		await this.file?.close();
		this.file = void 0;
	}
};
/** The highest fence named in bytes that are cut: a fence seen anywhere is never issued again. */
function highestFence(text) {
	let highest = 0;
	for (const match of text.matchAll(/"fence":(\d{1,15})/g)) highest = Math.max(highest, Number(match[1]));
	return highest;
}
// src/kernel/store/kernel-store.ts
const isLogFileStore = (store) => "openFrom" in store && "readSnapshot" in store;
// src/kernel/store/store.ts
/**
* Nothing outlives the process; appends always succeed. `fenceFloor`: the
* first grant's fence is above it (the CLI's memory kernel gives the clock's,
* memoryFenceFloor, so fences rise across its restarts too).
*/
function memoryStore(options = {}) {
	const fenceFloor = options.fenceFloor ?? 0;
	return {
		describe: "memory",
		open: () => Promise.resolve({
			lines: [],
			fenceFloor
		}),
		append: () => Promise.resolve(),
		probe: () => Promise.resolve(),
		close: () => Promise.resolve()
	};
}
/**
* Fences a memory kernel can issue per millisecond of wall clock between its
* start and the next one's. At today's clock the floor is about 1.8 \u00d7 10^15,
* within a safe integer (9 \u00d7 10^15) until the year 2255.
*/
const FENCES_PER_MS = 1e3;
/**
* Where a memory kernel's fences start: the wall clock in microseconds. A
* memory kernel remembers nothing, so its fences would start at 1 again after
* each restart; these rise across restarts unless the clock is set back
* between them, or one run issued more than 1,000 fences per millisecond it ran.
*/
function memoryFenceFloor(nowMs = Date.now()) {
	return Math.floor(nowMs) * FENCES_PER_MS;
}
// src/kernel/store/local-backend.ts
/** Entries between two snapshots of a file kernel: a restart replays at most about this many. */
const SNAPSHOT_EVERY = 16384;
/**
* The backend of one process: the states in memory (the table), the record in
* a store's append-only log (memory: none; a file: fdatasync'ed per batch). A
* batch is decided on the table, its entries numbered by the ledger, written
* with one append, and only then kept. The clock never reads earlier than the
* log's end. Not shared: this process is the only one that changes it.
*/
var LocalBackend = class {
	options;
	ledger;
	shared = false;
	batching = {
		maxBatch: Infinity,
		slots: 1,
		waitMs: Infinity,
		gatherTurn: true,
		busy: () => new require_round_trips.StoreUnavailableError("the kernel's store is busy")
	};
	name;
	ttlMs;
	/** The lines are in this process: the service reads them itself. */
	searchLedger = void 0;
	table;
	store;
	/** The last durable entry's time at start: the clock reads no earlier. */
	clockFloor = -Infinity;
	/** Restart renewals a full disk did not take yet: written first, before any other change. */
	owed = [];
	closed = false;
	replayed;
	/** A snapshot read at start but not used: its size and root, checked against the log read whole. */
	snapshotTaken;
	sequenced;
	heard;
	constructor(options) {
		this.options = options;
		this.table = options.table;
		this.store = options.store;
		this.ledger = options.ledger;
		this.name = options.store.describe;
		this.ttlMs = options.table.ttlMs;
	}
	now() {
		return Math.max(this.options.now(), this.clockFloor);
	}
	/**
	* Replays the store's log into the ledger and the table, applies the restart
	* rule (`resumeLeases`) and writes its renewals.
	*/
	async open() {
		const { table, ledger } = this;
		let time;
		let recovered;
		if (isLogFileStore(this.store)) {
			const opened = await openLogView(this.store, table, ledger);
			const { replayed } = opened;
			this.replayed = replayed;
			this.snapshotTaken = opened.snapshotTaken;
			recovered = opened;
			try {
				await this.holdToSigned(this.store);
			} catch (error) {
				await this.store.close();
				replayed.lines.close();
				throw error;
			}
			time = replayed.time;
			for (const state of replayed.table.values()) table.put(structuredClone(state));
			table.fence = Math.max(table.fence, replayed.table.fence);
		} else {
			const log = await this.store.open();
			recovered = log;
			log.lines.forEach((line, i) => {
				const entry = ledger.load(line, `${this.store.describe} line ${i + 1}`);
				table.put(replay(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
				table.fence = Math.max(table.fence, entry.fence);
				time = logTimeAfter(time, entry.tsMs);
			});
		}
		table.fence = Math.max(table.fence, recovered.fenceFloor);
		if (time) this.clockFloor = time.lastMs;
		const now = this.now();
		for (const state of [...table.values()]) table.put(afterRestart(state, now, table.ttlMs, table.lockDelayMs));
		const owed = time ? await this.resume(time, now) : void 0;
		const warning = [recovered.warning, owed].filter(Boolean).join("; ");
		return warning ? { warning } : {};
	}
	/**
	* A file kernel signs only the history it signed before: its log, replayed,
	* must have at the last signed checkpoint's size that checkpoint's root
	* (else StartRefusedError, before anything is served or written), and every
	* larger checkpoint is recorded beside the log before it goes out. Checked
	* with or without a signing key this run: a later run may have one. A log
	* with entries and no record gets one at start, of the log as it is (a first
	* start since the record came in, or one deleted), after its snapshot is checked.
	*/
	async holdToSigned(store) {
		let last = readSignedRecord(store.path);
		if (last) checkSignedHistory(this.ledger, last, store.path);
		this.holdToSnapshot(store);
		if (!last && this.ledger.size > 0) {
			const record = {
				size: this.ledger.size,
				root: this.ledger.rootAt()
			};
			try {
				await writeSignedRecord(store.path, record);
				last = record;
				this.options.log?.(`notice: ${signedRecordPath(store.path)} was missing: it now holds the log's ${record.size} entries as the history a restart is held to`);
			} catch (error) {
				this.options.log?.(`warning: ${signedRecordPath(store.path)} is missing and could not be written now (${require_cli.causeText(error)}); it is written before the next checkpoint goes out`);
			}
		}
		if (this.ledger.signs) this.ledger.keepSignedIn({ keep: (signed) => writeSignedRecord(store.path, signed) }, last);
	}
	/**
	* A snapshot the start did not use must still agree with the log read whole:
	* its last entry where it says (else it was cut short or rewritten since),
	* and the log's root at its size (else it was rewritten: a snapshot taken
	* with another lease lifetime, say). Else StartRefusedError.
	*/
	holdToSnapshot(store) {
		const taken = this.snapshotTaken;
		this.snapshotTaken = void 0;
		if (!taken) return;
		if (!taken.root || this.ledger.size < taken.size || this.ledger.rootAt(taken.size) !== taken.root) throw snapshotDisagrees(store.path, taken.size);
	}
	/** Writes the snapshot of what is durable now (log-view.ts), when there is something to write. */
	async snapshot() {
		const replayed = this.replayed;
		const body = replayed && await snapshotPieces(replayed, this.ledger);
		if (body) await replayed.store.writeSnapshot(body);
	}
	/** See Backend.onSequenced: told as each write is durable, in the ledger's order. */
	onSequenced(listener) {
		this.sequenced = listener;
	}
	/**
	* Tells what became durable, follows it in the file kernel's view of its log,
	* and now and then (off the answer path) snapshots it.
	*/
	recorded(entries) {
		this.sequenced?.(entries);
		const replayed = this.replayed;
		if (!replayed) return;
		const { table } = replayed;
		for (const entry of entries) {
			table.put(replay(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
			table.fence = Math.max(table.fence, entry.fence);
			replayed.time = logTimeAfter(replayed.time, entry.tsMs);
		}
		replayed.since += entries.length;
		if (replayed.since >= SNAPSHOT_EVERY && !replayed.writing) replayed.writing = new Promise((done) => setImmediate(done)).then(() => this.snapshot()).catch(() => void 0).finally(() => replayed.writing = void 0);
	}
	/**
	* Renews the leases the log leaves open (the restart rule). Written before
	* serving when the store takes it; on a full disk the renewals are owed and
	* go first in the next write, so they are still stamped as of the log's end.
	*/
	async resume(time, now) {
		const { states, events } = resumeLeases(this.table.values(), time, now, this.table.ttlMs);
		for (const state of states) this.table.put(state);
		if (events.length === 0) return void 0;
		const prepared = this.ledger.prepare(events);
		try {
			await this.store.append(prepared.text, prepared.entries);
			this.ledger.accept(prepared.entries, prepared.lines);
			this.recorded(prepared.entries);
		} catch (error) {
			this.owed = events;
			return `could not yet record the renewals of the ${events.length} leases held across the restart (${require_cli.causeText(error)}); they go first in the next write`;
		}
	}
	/**
	* A failed write keeps memory as it was for every resource the batch changed
	* durably; the others (a refusal, a status, a queue that moved) are answered.
	*/
	async commit(work) {
		const now = this.now();
		const { decisions, states, durable } = decideBatch(work, (resource) => this.table.get(resource), (resource) => this.table.context(resource, now));
		let failure;
		if (durable.size > 0 && this.closed) failure = new require_round_trips.StoreUnavailableError("the kernel is stopping");
		else if (durable.size > 0) {
			const events = decisions.flatMap((d) => d.events);
			const owed = this.owed;
			const prepared = this.ledger.prepare(owed.length ? [...owed, ...events] : events);
			try {
				await this.store.append(prepared.text, prepared.entries);
				if (owed.length) this.owed = [];
				this.ledger.accept(prepared.entries, prepared.lines);
				this.recorded(prepared.entries);
			} catch (error) {
				const message = error instanceof require_round_trips.StoreError ? error.message : String(error);
				failure = new require_round_trips.StoreUnavailableError(`the kernel's store cannot write: ${message}`);
			}
		}
		for (const [resource, state] of states) if (!failure || !durable.has(resource)) this.table.put(state);
		return decisions.map((value) => failure && durable.has(value.state.resource) ? {
			status: "rejected",
			reason: failure
		} : {
			status: "fulfilled",
			value
		});
	}
	due(limit) {
		const now = this.now();
		return Promise.resolve([...this.deadlines()].filter((d) => d.at <= now).sort((a, b) => a.at - b.at).slice(0, limit).map((d) => d.resource));
	}
	*deadlines() {
		for (const state of this.table.values()) {
			const at = nextDeadline(state);
			if (at !== void 0) yield {
				resource: state.resource,
				at
			};
		}
	}
	overview() {
		return Promise.resolve(overviewOf(this.table.values(), this.now()));
	}
	/** Only `announceFreed`'s notices: the service tells the commits of one process itself. */
	watch(listener) {
		this.heard = listener;
	}
	/** One process: every change is made here, so there is no one else to hear. */
	async listen() {}
	/** One process: its own held requests are the only ones to wake. */
	announceFreed(resource) {
		this.heard?.({
			resource,
			events: [],
			freed: true
		});
		return Promise.resolve();
	}
	/** One process: the ledger is written here, so it is never behind. */
	async syncLedger() {}
	/** Throws a StoreError when the store cannot take a write now. */
	ready() {
		return this.store.probe();
	}
	async close() {
		this.closed = true;
		const replayed = this.replayed;
		if (replayed) {
			await replayed.writing;
			if (replayed.since > 0) await this.snapshot().catch(() => void 0);
		}
		await this.store.close();
		replayed?.lines.close();
	}
};
// src/kernel/service/service.ts
const ALARM_RETRY_MS = 1e3;
const SWEEP_BATCH = 100;
/**
* The kernel, once, over any backend (backend.ts): every call is decided by
* the rules inside the backend's commit and resolves only once its change is
* durable. Calls are grouped (GroupCommit, bounded as the backend asks); lapses
* are found by alarms at each decided deadline (a backend of one process) or by
* sweeping what the backend says is due (a shared one, whose other replicas may
* be gone); held requests are woken here, for changes made here or heard from
* other replicas.
*/
var KernelService = class KernelService {
	backend;
	hooks;
	ledger;
	/** Set when the backend searches its ledger where it keeps it. */
	searchLedger;
	batches;
	approvals = new PassApprovals(this);
	listeners = /* @__PURE__ */ new Set();
	changedListeners = /* @__PURE__ */ new Set();
	releasingListeners = /* @__PURE__ */ new Set();
	recordedListeners = /* @__PURE__ */ new Set();
	observers = [];
	alarms = new AlarmHeap();
	scheduled = /* @__PURE__ */ new Map();
	log;
	timer;
	timerAt = Infinity;
	sweepTimer;
	sweepFailing = false;
	closed = false;
	get ttlMs() {
		return this.backend.ttlMs;
	}
	constructor(backend, hooks) {
		this.backend = backend;
		this.hooks = hooks;
		this.ledger = backend.ledger;
		this.log = hooks.log ?? ((line) => console.error(line));
		const { searchLedger } = backend;
		if (searchLedger) this.searchLedger = (needle, from, limit) => searchLedger.call(backend, needle, from, limit);
		this.batches = new GroupCommit((work) => this.commit(work), backend.batching);
	}
	/** The in-process kernel over a memory or file store: replays it, then serves. */
	static open(options) {
		return KernelService.over(new LocalBackend(options), options);
	}
	/** Opens the backend and starts finding lapses. */
	static async over(backend, hooks = {}) {
		const service = new KernelService(backend, hooks);
		backend.watch((notice) => service.heard(notice));
		backend.onSequenced((entries) => service.recorded(entries));
		const { warning } = await backend.open();
		if (backend.shared) service.scheduleSweep();
		else {
			for (const { resource, at } of backend.deadlines()) service.schedule(resource, at);
			service.arm();
		}
		return {
			service,
			...warning ? { warning } : {}
		};
	}
	lease(resource, actorDid, extensions) {
		return this.run(resource, {
			kind: "lease",
			actorDid,
			...extensions
		});
	}
	async release(resource, actorDid, outdated) {
		const command = {
			kind: "release",
			actorDid,
			...outdated ? { outdated } : {}
		};
		const reply = await this.batches.submitTogether(() => {
			const released = this.run(resource, command);
			for (const listener of this.releasingListeners) listener(resource);
			return released;
		});
		if (!reply.released) await this.backend.announceFreed(resource);
		return reply;
	}
	revoke(resource, reason, by) {
		return this.run(resource, {
			kind: "revoke",
			reason,
			...by ? { by } : {}
		});
	}
	freeze(...[resource, reason, untilMs, by, only]) {
		return this.run(resource, {
			kind: "freeze",
			reason,
			untilMs,
			by,
			...only
		});
	}
	unfreeze(resource, by, only) {
		return this.run(resource, {
			kind: "unfreeze",
			by,
			...only
		});
	}
	/** See PlaneService.breakGlass. */
	breakGlass(resource, pass) {
		return this.run(resource, {
			kind: "break_glass",
			...pass
		});
	}
	/** See PlaneService.approveBreakGlass. */
	approveBreakGlass(resource, actorDid, by, approval) {
		const approve = () => this.run(resource, {
			kind: "approve_break_glass",
			actorDid,
			by,
			approval
		});
		return approval === void 0 ? approve() : this.approvals.once(approval, resource, approve);
	}
	/** See PlaneService.withdrawBreakGlass. */
	withdrawBreakGlass(resource, by, actorDid) {
		return this.run(resource, {
			kind: "withdraw_break_glass",
			by,
			actorDid
		});
	}
	async status(resource) {
		return (await this.statusOf(resource)).lease;
	}
	/** The lease and the freeze in force (an operator's or a recurring window), if any. */
	statusOf(resource) {
		return this.run(resource, { kind: "status" });
	}
	/** Every resource with a live lease, a reservation, waiters or a freeze. */
	overview() {
		return this.backend.overview();
	}
	/** Brings `ledger` up to date with what other replicas committed (one process: it is). */
	syncLedger() {
		return this.backend.syncLedger();
	}
	/** See PlaneService.onChange. */
	onChange(listener) {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
	/** See PlaneService.observe. */
	observe(observer) {
		this.observers = [...this.observers, observer];
		return () => {
			this.observers = this.observers.filter((o) => o !== observer);
		};
	}
	/** See PlaneService.listen. */
	async listen(resource) {
		await this.backend.listen(resource);
	}
	/** See PlaneService.onRecorded. */
	onRecorded(listener) {
		this.recordedListeners.add(listener);
		return () => this.recordedListeners.delete(listener);
	}
	/**
	* Wakes the held requests of `resource` on every replica: a queue change no
	* durable event announces (superseding, deploy-order.ts). One process wakes its own.
	*/
	wakeEverywhere(resource) {
		return this.backend.announceFreed(resource);
	}
	/** Takes a waiter out of the queue at once (nothing durable changes). */
	async leave(resource, actorDid) {
		await this.run(resource, {
			kind: "leave",
			actorDid
		});
		this.resourceChanged(resource);
	}
	/**
	* Told when a resource may have become free: a release, lapse or revoke made
	* durable here or on another replica (where this one listens), or a waiter that left.
	* Held requests wake on it.
	*/
	onResourceChanged(listener) {
		this.changedListeners.add(listener);
		return () => this.changedListeners.delete(listener);
	}
	/** See PlaneService.onReleasing. */
	onReleasing(listener) {
		this.releasingListeners.add(listener);
		return () => this.releasingListeners.delete(listener);
	}
	/** The backend's clock (a shared backend's decisions read the database's; this paces held requests). */
	now() {
		return this.backend.now();
	}
	/** Throws a StoreError when the backend cannot take a write now. */
	ready() {
		return this.backend.ready();
	}
	async close() {
		if (this.closed) return;
		this.closed = true;
		if (this.timer) clearTimeout(this.timer);
		if (this.sweepTimer) clearTimeout(this.sweepTimer);
		await this.batches.idle();
		await this.backend.close();
	}
	resourceChanged(resource) {
		for (const listener of this.changedListeners) listener(resource);
	}
	async run(resource, command) {
		const work = workFor(resource, command);
		await this.batches.submit(work);
		return work.reply();
	}
	/** One batch through the backend; what it made durable is told and armed, in order. */
	async commit(work) {
		const results = this.observers.length ? await this.observed(work) : await this.backend.commit(work);
		const decided = results.flatMap((r) => r.status === "fulfilled" ? [r.value] : []);
		const events = decided.flatMap((d) => d.events);
		if (events.length) this.hooks.onEvents?.(events);
		for (const { state, events } of decided) {
			if (!this.backend.shared) this.schedule(state.resource, nextDeadline(state));
			if (!this.backend.shared) this.tell({
				resource: state.resource,
				events
			});
		}
		if (!this.backend.shared) this.arm();
		return results;
	}
	/** The backend's commit, timed and told to the observers (only when there are any). */
	async observed(work) {
		const started = performance.now();
		const { name: backend, shared } = this.backend;
		const tell = (decisions, failed) => {
			const batch = {
				backend,
				shared,
				size: work.length,
				seconds: (performance.now() - started) / 1e3,
				commands: work.map((w) => w.command),
				decisions,
				failed
			};
			for (const observer of this.observers) try {
				observer.committed(batch);
			} catch (error) {
				this.log(`a metrics observer failed: ${require_cli.causeText(error)}`);
			}
		};
		let results;
		try {
			results = await this.backend.commit(work);
		} catch (error) {
			tell([], true);
			throw error;
		}
		tell(results.map((r) => r.status === "fulfilled" ? r.value : void 0), false);
		return results;
	}
	/** The backend's numbered entries, once durable (onSequenced): what notifications follow. */
	recorded(entries) {
		for (const listener of this.recordedListeners) listener(entries);
	}
	heard(notice) {
		this.tell(notice);
	}
	tell({ resource, events, freed }) {
		for (const event of events) for (const listener of this.listeners) listener(resource, event);
		if (freed || frees(events)) this.resourceChanged(resource);
	}
	/** Keeps one alarm per resource at its earliest deadline (a renewal needs none). */
	schedule(resource, at) {
		if (at === void 0) return;
		const current = this.scheduled.get(resource);
		if (current !== void 0 && current <= at) return;
		this.scheduled.set(resource, at);
		this.alarms.push(at, resource);
	}
	arm() {
		const next = this.alarms.peek();
		if (next === void 0 || next >= this.timerAt || this.closed) return;
		if (this.timer) clearTimeout(this.timer);
		this.timerAt = next;
		this.timer = setTimeout(() => this.ring(), Math.max(0, next - this.now()) + 1);
		this.timer.unref();
	}
	ring() {
		this.timer = void 0;
		this.timerAt = Infinity;
		const now = this.now();
		for (let due = this.alarms.popDue(now); due; due = this.alarms.popDue(now)) {
			const { at, resource } = due;
			if (this.scheduled.get(resource) !== at) continue;
			this.scheduled.delete(resource);
			this.run(resource, { kind: "expire" }).catch((error) => {
				this.log(`kernel: could not record a lapse on ${resource}: ${require_cli.causeText(error)}`);
				this.scheduled.set(resource, now + ALARM_RETRY_MS);
				this.alarms.push(now + ALARM_RETRY_MS, resource);
				this.arm();
			});
		}
		this.arm();
	}
	/** A shared backend: a lapse is recorded within about a quarter of a lease (a second at most). */
	scheduleSweep() {
		if (this.closed) return;
		const every = Math.min(1e3, Math.max(25, this.backend.ttlMs / 4));
		this.sweepTimer = setTimeout(() => void this.sweep(), every * (.75 + .5 * Math.random()));
		this.sweepTimer.unref();
	}
	async sweep() {
		try {
			for (const resource of await this.backend.due(SWEEP_BATCH)) {
				if (this.closed) return;
				await this.run(resource, { kind: "expire" });
			}
			if (this.sweepFailing) this.log(`kernel: ${this.backend.name} answers again`);
			this.sweepFailing = false;
		} catch (error) {
			if (!this.sweepFailing) this.log(`kernel: ${require_cli.errorMessage(error)}`);
			this.sweepFailing = true;
		} finally {
			this.scheduleSweep();
		}
	}
};
// src/console/serve.ts
/** No inline script or style, nothing from another origin, no framing. */
const CONTENT_SECURITY_POLICY = [
	"default-src 'none'",
	"script-src 'self'",
	"style-src 'self'",
	"img-src 'self'",
	"connect-src 'self'",
	"base-uri 'none'",
	"form-action 'none'",
	"frame-ancestors 'none'"
].join("; ");
/** Request path \u2192 built file. Nothing else is served, so no path reaches the file system. */
const PAGES = {
	"/": "index.html",
	"/console/": "index.html",
	"/playground": "playground.html",
	"/playground/": "playground.html",
	"/console/console.js": "console.js",
	"/console/playground.js": "playground.js",
	"/console/console.css": "console.css"
};
/** A lock, drawn inline: served at /favicon.svg and /favicon.ico (browsers ask for the latter). */
const FAVICON = Buffer.from("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\"><rect x=\"3\" y=\"7\" width=\"10\" height=\"8\" rx=\"1\" fill=\"#3b6fd8\"/><path d=\"M5 7V5a3 3 0 0 1 6 0v2\" fill=\"none\" stroke=\"#3b6fd8\" stroke-width=\"1.6\"/></svg>");
const TYPES = {
	html: "text/html; charset=utf-8",
	js: "text/javascript; charset=utf-8",
	css: "text/css; charset=utf-8"
};
function defaultAssetsDir() {
	const here = (0, node_path.dirname)((0, node_url.fileURLToPath)(require("node:url").pathToFileURL(__filename).href));
	return [(0, node_path.join)(here, "..", "console"), (0, node_path.join)(here, "..", "..", "dist", "console")].find((dir) => (0, node_fs.existsSync)((0, node_path.join)(dir, "index.html")));
}
function createConsole(options = {}) {
	const cache = /* @__PURE__ */ new Map();
	const read = (file) => {
		if (!cache.has(file)) {
			const dir = options.assetsDir ?? defaultAssetsDir();
			cache.set(file, dir && (0, node_fs.existsSync)((0, node_path.join)(dir, file)) ? (0, node_fs.readFileSync)((0, node_path.join)(dir, file)) : null);
		}
		return cache.get(file) ?? null;
	};
	return (req, res) => {
		if (req.method !== "GET" && req.method !== "HEAD") return false;
		const path = (req.url ?? "").split("?")[0] ?? "";
		if (path === "/favicon.svg" || path === "/favicon.ico") {
			res.writeHead(200, {
				"content-type": "image/svg+xml",
				"content-length": FAVICON.length,
				"x-content-type-options": "nosniff",
				"cache-control": "max-age=86400"
			});
			res.end(req.method === "HEAD" ? void 0 : FAVICON);
			return true;
		}
		const file = PAGES[path];
		if (!file) return false;
		const body = read(file);
		const headers = {
			"content-security-policy": CONTENT_SECURITY_POLICY,
			"x-content-type-options": "nosniff",
			"referrer-policy": "no-referrer",
			"cross-origin-opener-policy": "same-origin",
			"cache-control": "no-cache"
		};
		if (!body) {
			const text = "The console is not built: run npm run build.\n";
			res.writeHead(503, {
				...headers,
				"content-type": "text/plain; charset=utf-8"
			});
			res.end(req.method === "HEAD" ? void 0 : text);
			return true;
		}
		const type = TYPES[file.slice(file.lastIndexOf(".") + 1)] ?? "application/octet-stream";
		res.writeHead(200, {
			...headers,
			"content-type": type,
			"content-length": body.length
		});
		res.end(req.method === "HEAD" ? void 0 : body);
		return true;
	};
}
// src/kernel/http/server.ts
const BODY_LIMIT_BYTES = 65536;
/** What of a refused body is read and dropped before the answer goes (and the connection closes). */
const DRAIN_LIMIT_BYTES = 1048576;
/** Epoch milliseconds that never go backwards, whatever the wall clock does. */
function epochMonotonic() {
	const wallStart = Date.now();
	const perfStart = performance.now();
	return () => Math.round(wallStart + performance.now() - perfStart);
}
/** Opens the service (replaying its store) and builds the app on it. */
async function openKernel(options) {
	const names = new KernelNames(options.publicUrls);
	if (options.service) {
		const { service } = options;
		return {
			service,
			app: appOf(service, options, names)
		};
	}
	const table = options.table ?? new ResourceTable();
	const log = options.log ?? ((line) => console.error(line));
	const { service, warning } = await KernelService.open({
		table,
		store: options.store ?? memoryStore(),
		ledger: options.ledger ?? new Ledger(),
		now: options.now ?? epochMonotonic(),
		onEvents: options.onEvents,
		log
	});
	return {
		service,
		app: appOf(service, options, names),
		warning
	};
}
function appOf(service, options, names) {
	const extra = options.onService?.(service);
	return createKernelApp({
		service,
		key: options.key,
		adminKey: options.adminKey,
		approverKey: options.approverKey,
		approverOidc: options.approverOidc,
		auth: options.auth,
		names,
		windows: options.windows,
		promote: options.promote,
		compare: options.compare,
		health: extra && (() => extra.health()),
		...metricsOf(options)
	});
}
/** The thin adapter: node's request to the app's, the app's answer to node's response. */
function nodeAdapter(app, log, consoleHook) {
	return async (req, res) => {
		const note = noticeFor(req, res, log);
		const url = req.url ?? "/";
		const mark = url.indexOf("?");
		const path = mark < 0 ? url : url.slice(0, mark);
		if (!app.serves(path) && app.names.hostAllowed(req.headers.host) && consoleHook?.(req, res)) return;
		const request = new NodeRequest(req, res, path, mark < 0 ? "" : url.slice(mark + 1));
		try {
			const answer = await app(request);
			const refusal = refusalOf(answer);
			if (refusal) note(`kernel: refused ${req.method} ${escape(path)}: ${refusal}`);
			await send(res, answer, () => request.signal);
		} catch (error) {
			if (error instanceof ClientGone) {
				note(`kernel: the client went away before its ${req.method} ${escape(path)} body ended`);
				return;
			}
			const known = error instanceof require_cli.LeaseGateError && error.code !== "internal";
			const stack = error instanceof Error ? error.stack : void 0;
			const why = known ? error.message : stack ?? require_cli.causeText(error);
			note(`kernel: ${req.method} ${escape(path)} failed: ${why}`);
			if (!res.headersSent) await send(res, {
				status: 500,
				body: {
					ok: false,
					reason: "internal",
					message: "The kernel failed; see its log."
				}
			});
			else res.destroy();
		}
	};
}
async function startKernelServer(options) {
	const { service, app, warning } = await openKernel(options);
	const handle = nodeAdapter(app, options.log ?? ((line) => console.error(line)), options.console ?? createConsole());
	const server = (0, node_http.createServer)((req, res) => void handle(req, res));
	server.keepAliveTimeout = 5e3;
	server.on("clientError", answerClientError);
	try {
		await new Promise((resolve, reject) => {
			server.once("error", reject);
			server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
		});
	} catch (error) {
		app.close();
		await service.close();
		throw error;
	}
	const address = server.address();
	const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
	app.names.listening(`http://${host}:${address.port}`);
	return {
		url: `http://${host}:${address.port}`,
		server,
		service,
		warning,
		close: async () => {
			app.close();
			await new Promise((resolve) => {
				const cut = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 5e3);
				server.close(() => {
					clearTimeout(cut);
					resolve();
				});
				server.closeIdleConnections();
			});
			await service.close();
		}
	};
}
/**
* The app's view of one node request. A class, so `signal` is a getter on the
* prototype: a getter in a per-request object literal makes V8 allocate an
* accessor pair in the old generation, which then held the request's whole
* graph (req, res, their buffers) through every young collection until the
* next full one, and most of the kernel's collector time went to that.
*/
var NodeRequest = class {
	req;
	res;
	path;
	method;
	query;
	headers;
	gone;
	constructor(req, res, path, search) {
		this.req = req;
		this.res = res;
		this.path = path;
		this.method = req.method ?? "GET";
		this.query = new URLSearchParams(search);
		this.headers = req.headers;
	}
	json() {
		return readJson(this.req, this.res);
	}
	/** Built on first use: most answers are immediate and never look at it. */
	get signal() {
		return this.gone ??= goneSignal(this.res);
	}
};
/** The client went away before its body ended: nothing to answer, logged as such. */
var ClientGone = class extends require_cli.LeaseGateError {
	name = "ClientGone";
	constructor() {
		super("the client went away before its body ended", { code: "client_gone" });
	}
};
/** Aborted when the client goes away before its answer is finished (also if it already has). */
function goneSignal(res) {
	const controller = new AbortController();
	const abort = () => res.writableFinished || controller.abort();
	if (res.closed || res.destroyed) abort();
	else res.once("close", abort);
	return controller.signal;
}
async function readJson(req, res) {
	const type = req.headers["content-type"] ?? "";
	if (!/^application\/json\b/i.test(type)) {
		await readLimited(req, res, 0).catch((error) => {
			if (error instanceof ClientGone) throw error;
		});
		throw new ApiRefusal("Send the body as Content-Type: application/json.", {
			status: 415,
			reason: "unsupported_media_type"
		});
	}
	const text = await readLimited(req, res, BODY_LIMIT_BYTES);
	try {
		return JSON.parse(text);
	} catch {
		throw new ApiRefusal("The body is not valid JSON.", {
			status: 400,
			reason: "bad_json"
		});
	}
}
/**
* Reads the body up to `limit` bytes. A body refused (past the limit, or not read at all)
* is still read and dropped up to DRAIN_LIMIT_BYTES, so that a client that sends all of its
* body before it reads gets the answer; past that the answer goes at once. Either way the
* connection closes after the answer: what is left of the body never reaches a next request.
*/
function readLimited(req, res, limit) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let size = 0;
		const refuse = () => {
			res.setHeader("connection", "close");
			req.removeAllListeners("data").pause();
			reject(new ApiRefusal(`The body is over ${limit} bytes.`, {
				status: 413,
				reason: "payload_too_large"
			}));
		};
		req.on("data", (chunk) => {
			size += chunk.length;
			if (size <= limit) chunks.push(chunk);
			else if (size > limit + DRAIN_LIMIT_BYTES) refuse();
		});
		req.on("error", () => reject(new ClientGone()));
		req.on("close", () => req.complete || reject(new ClientGone()));
		req.on("end", () => {
			if (size > limit) refuse();
			else resolve(Buffer.concat(chunks).toString("utf8"));
		});
	});
}
const isStream = (body) => typeof body === "object" && body !== null && Symbol.asyncIterator in body;
/** JSON, plain text for a string (the checkpoint, the public key), or JSON in pieces. */
async function send(res, answer, signal) {
	const { status, body, headers } = answer;
	if (isStream(body)) {
		res.writeHead(status, {
			"content-type": "application/json",
			"cache-control": "no-store",
			...headers
		});
		const gone = signal?.();
		for await (const piece of body) {
			if (gone?.aborted) return;
			if (!res.write(piece)) await drainedOrClosed(res);
		}
		res.end();
		return;
	}
	const plain = typeof body === "string";
	const text = plain ? body : JSON.stringify(body);
	res.writeHead(status, {
		"content-type": plain ? "text/plain; charset=utf-8" : "application/json",
		"cache-control": "no-store",
		"content-length": Buffer.byteLength(text),
		...headers
	});
	res.end(text);
}
/** Resolves on the first of drain or close, leaving no listener behind for the next wait. */
function drainedOrClosed(res) {
	return new Promise((resolve) => {
		const done = () => {
			res.off("drain", done).off("close", done);
			resolve();
		};
		res.on("drain", done).on("close", done);
	});
}
// src/kernel/store/state-lock.ts
/** Another kernel holds the log; the message names it, in one line. */
var StateLockedError = class extends require_round_trips.StartRefusedError {
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "state_locked"
		});
	}
};
/** How long a start waits by default: a restart whose old process is still on its way out. */
const LOCK_WAIT_MS = 5e3;
const RETRY_MS = 100;
const ASK_TIMEOUT_MS = 1e3;
const ANSWER_BYTES = 512;
/**
* The lock's socket name for a log: the same for every path that names that
* file. The log is created first when missing (the store would create it, with
* the same mode), so a file exists to have an identity; a log that cannot be
* created refuses the start (StateLockedError, naming it).
*/
function lockAddress(logFile, platform = process.platform) {
	let identity;
	try {
		(0, node_fs.closeSync)((0, node_fs.openSync)(logFile, "a", 384));
		const { dev, ino } = (0, node_fs.statSync)(logFile, { bigint: true });
		identity = `${dev}:${ino}`;
	} catch (error) {
		throw new StateLockedError(`Cannot open the kernel's log ${logFile} (${error.code ?? require_cli.causeText(error)}): its folder must exist and be writable.`, { cause: error });
	}
	const hash = (0, node_crypto.createHash)("sha256").update(identity).digest("hex").slice(0, 40);
	if (platform === "linux") return `\0lease-gate:${hash}`;
	if (platform === "win32") return `\\\\?\\pipe\\lease-gate-${hash}`;
	return (0, node_path.join)((0, node_os.tmpdir)(), `lease-gate-${hash}.sock`);
}
/**
* Takes the lock of `logFile`, waiting up to `waitMs` while another process
* holds it, then refusing with a StateLockedError naming that process.
*/
async function lockState(logFile, options) {
	const platform = options.platform ?? process.platform;
	const address = lockAddress(logFile, platform);
	const holder = options.holder ?? {
		pid: process.pid,
		startedAt: (/* @__PURE__ */ new Date()).toISOString()
	};
	const answer = `${JSON.stringify(holder)}\n`;
	const deadline = options.now() + options.waitMs;
	let removedStale = false;
	for (;;) {
		const server = (0, node_net.createServer)((socket) => {
			socket.on("error", () => void 0);
			socket.end(answer);
		});
		const error = await listen$1(server, address);
		if (!error) {
			server.unref();
			return { close: () => new Promise((done) => server.close(() => done())) };
		}
		if (error.code !== "EADDRINUSE") throw new StateLockedError(`Cannot lock the kernel's log ${logFile} (${error.code ?? error.message}): a second kernel on it could not be kept out.`);
		const other = await ask(address);
		if (other === "gone" && platform !== "linux" && platform !== "win32" && !removedStale) {
			removedStale = true;
			try {
				(0, node_fs.unlinkSync)(address);
			} catch {}
			continue;
		}
		if (options.now() >= deadline) throw new StateLockedError(lockedMessage(logFile, other, options.waitMs));
		await options.sleep(RETRY_MS);
	}
}
function listen$1(server, address) {
	return new Promise((done) => {
		server.once("error", (error) => done(error));
		server.listen(address, () => done(void 0));
	});
}
/** The holder, as it says (checked: it is another process's word), or why not. */
function ask(address) {
	return new Promise((done) => {
		let text = "";
		const socket = (0, node_net.createConnection)(address);
		const finish = (result) => {
			socket.destroy();
			clearTimeout(timer);
			done(result);
		};
		const timer = setTimeout(() => finish("silent"), ASK_TIMEOUT_MS);
		socket.on("data", (chunk) => {
			text += chunk.toString("utf8");
			if (text.length > ANSWER_BYTES) finish("silent");
		});
		socket.on("end", () => finish(parseHolder(text)));
		socket.on("error", (error) => finish(error.code === "ECONNREFUSED" || error.code === "ENOENT" ? "gone" : "silent"));
	});
}
function parseHolder(text) {
	try {
		const value = JSON.parse(text);
		if (Number.isInteger(value.pid) && value.pid > 0 && value.pid < 2 ** 32 && typeof value.startedAt === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(value.startedAt)) return {
			pid: value.pid,
			startedAt: value.startedAt
		};
	} catch {}
	return "silent";
}
function lockedMessage(logFile, other, waitMs) {
	return `Refusing to start: ${typeof other === "object" ? `another kernel (pid ${other.pid}, started ${other.startedAt})` : "another process"} holds the kernel's log ${logFile}. One kernel at a time keeps a log: stop that one first (this one waited ${waitMs / 1e3} s for it to go), or give this one another --data-prefix.`;
}
// src/kernel/notify/notify-config.ts
/**
* The notifier's settings as the kernel's command takes them (`--notify URL`,
* `--notify-secret-file FILE`, `--notify-file FILE`), checked whole at start: a URL that
* would send the secret in clear, a short secret or a malformed file stops the kernel
* before it serves, not at the first change.
*/
var NotifyError = class extends require_cli.LeaseGateError {
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
		throw new NotifyError(`Invalid --notify '${require_cli.urlForDisplay(raw)}': expected an https: URL.`);
	}
	const secure = url.protocol === "https:";
	const loopback = url.protocol === "http:" && require_cli.isLoopbackHost(url.hostname);
	if (!(secure || loopback) || url.username || url.password) throw new NotifyError(`Invalid --notify '${url.origin}': expected an https: URL without credentials (plain http: only to loopback).`);
	return url.href;
}
function readNotifySecret(file) {
	let secret;
	try {
		secret = (0, node_fs.readFileSync)(file, "utf8").trim();
	} catch (error) {
		throw new NotifyError(`Cannot read --notify-secret-file ${file}: ${require_cli.causeText(error)}`, { cause: error });
	}
	if (secret.length < 16) throw new NotifyError(`--notify-secret-file ${file}: expected a secret of at least 16 characters.`);
	return secret;
}
/**
* `--notify-file FILE`: the same settings as a config entry,
* `{"notify": {"urls": ["https://\u2026"], "secretFile": "/path"}}`; the flags add to its URLs
* and `--notify-secret-file` wins over its secret file. Checked whole at start.
*/
function readNotifyFile(file) {
	let raw;
	try {
		raw = JSON.parse((0, node_fs.readFileSync)(file, "utf8"));
	} catch (error) {
		throw new NotifyError(`Cannot read --notify-file ${file}: ${require_cli.causeText(error)}`, { cause: error });
	}
	const form = `expected {"notify": {"urls": ["https://\u2026"], "secretFile": "FILE"}}`;
	const notify = raw?.notify;
	if (typeof notify !== "object" || notify === null || Array.isArray(notify)) throw new NotifyError(`--notify-file ${file}: ${form}.`);
	const { urls, secretFile } = notify;
	if (!Array.isArray(urls) || urls.length === 0 || urls.length > 20 || !urls.every((u) => typeof u === "string")) throw new NotifyError(`--notify-file ${file}: notify.urls: expected 1 to 20 URLs as strings.`);
	if (secretFile !== void 0 && (typeof secretFile !== "string" || secretFile === "")) throw new NotifyError(`--notify-file ${file}: notify.secretFile: expected a file path.`);
	for (const url of urls) checkNotifyUrl(url);
	return {
		urls,
		...secretFile ? { secretFile } : {}
	};
}
// src/kernel/notify/notification.ts
const KINDS = new Set(require_entry_kinds.ENTRY_KINDS.filter((k) => k !== "renew"));
/** Whether a change is notified (renewals are not). */
const isNotified = (entry) => KINDS.has(entry.kind);
/**
* A notification's id: the first 128 bits of the SHA-256 of its ledger entry's canonical
* line, as a UUID (version 8, RFC 9562). The same change has the same id whenever it is
* sent, before or after a restart; anyone with the ledger can tell which entry it names.
*/
function notificationId(entry) {
	return uuidOf((0, node_crypto.createHash)("sha256").update(require_checkpoint.entryJson(entry)).digest());
}
function uuidOf(digest) {
	const b = Buffer.from(digest.subarray(0, 16));
	b[6] = b[6] & 15 | 128;
	b[8] = b[8] & 63 | 128;
	const hex = b.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
// src/kernel/notify/notify-cursor.ts
const RESUME_BOUNDS = {
	maxEntries: 1e4,
	maxAgeMs: 864e5
};
/** Entries read from the ledger between two yields to the kernel's other work. */
const SCAN_SLICE = 2e3;
/** The cursor file of a log file. */
const cursorFileOf = (logFile) => `${logFile}.notify.json`;
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
	require_durable.writeFileDurableSync(file, cursorText(cursors));
}
/** The file as found: its points by URL key, or none (first start), or why it is unusable. */
function readCursorFile(file) {
	let text;
	try {
		text = (0, node_fs.readFileSync)(file, "utf8");
	} catch (error) {
		if (error.code === "ENOENT") return { missing: true };
		return { invalid: `it cannot be read (${error.code ?? "error"})` };
	}
	let raw;
	try {
		raw = JSON.parse(text);
	} catch {
		return { invalid: "it is not JSON" };
	}
	const form = raw;
	if (typeof form !== "object" || form === null || form.version !== 1 || typeof form.targets !== "object" || form.targets === null) return { invalid: "it is not {\"version\": 1, \"targets\": {...}}" };
	const points = {};
	for (const [key, value] of Object.entries(form.targets)) {
		const point = value;
		if (typeof point !== "object" || point === null || !Number.isSafeInteger(point.next) || point.next < 0 || point.id !== void 0 && (typeof point.id !== "string" || point.id.length > 64)) return { invalid: `its entry ${key.slice(0, 40)} is not {"next": N, "id": "\u2026"}` };
		points[key] = {
			next: point.next,
			id: point.id
		};
	}
	return { points };
}
/**
* From the cursor file and the ledger: for each URL where it starts, and the entries it is
* still owed. A URL with no cursor (first start with it) or one that does not match this
* ledger (another log under the same name) starts at the ledger's end, saying so for the
* second. What is owed is read back from the ledger's end, newest first, at most
* `bounds.maxEntries` notifications and none stamped more than `bounds.maxAgeMs` before
* `nowMs`: what lies beyond is skipped and named (the ledger export still has it).
*/
async function planResume(ledger, urls, file, nowMs, bounds = RESUME_BOUNDS) {
	const size = ledger.size;
	const notes = [];
	const stored = readCursorFile(file);
	if ("invalid" in stored) notes.push(`the notification cursor ${file} was not used: ${stored.invalid}; notifications start at ledger entry ${size}`);
	const atEnd = () => ({
		next: size,
		id: idAt(ledger, size - 1)
	});
	const cursors = {};
	for (const url of urls) {
		const point = "points" in stored ? stored.points[urlKey(url)] : void 0;
		if (!point) cursors[url] = atEnd();
		else if (point.next > size || point.next > 0 && idAt(ledger, point.next - 1) !== point.id) {
			notes.push(`the notification cursor of ${origin$1(url)} (ledger entry ${point.next}) does not match this ledger; its notifications start at entry ${size}`);
			cursors[url] = atEnd();
		} else cursors[url] = point;
	}
	const low = Math.min(size, ...Object.values(cursors).map((c) => c.next));
	const owed = [];
	const oldest = nowMs - bounds.maxAgeMs;
	let floor = size;
	for (let i = size - 1; i >= low; i -= 1) {
		if ((size - 1 - i) % SCAN_SLICE === 1999) await (0, node_timers_promises.setImmediate)();
		const entry = ledger.entry(i);
		if (!entry || entry.tsMs < oldest) break;
		if (isNotified(entry)) {
			if (owed.length === bounds.maxEntries) break;
			owed.push(entry);
		}
		floor = i;
	}
	owed.reverse();
	for (const url of urls) {
		const point = cursors[url];
		if (point.next < floor) {
			notes.push(`notifications to ${origin$1(url)} of ledger entries ${point.next} to ${floor - 1} are not sent: more than ${bounds.maxEntries} notifications or ${Math.round(bounds.maxAgeMs / 36e5)} h behind (\`lease-gate ledger export\` has them)`);
			cursors[url] = {
				next: floor,
				id: idAt(ledger, floor - 1)
			};
		}
		const count = owed.filter((e) => e.seq >= cursors[url].next).length;
		if (count > 0) notes.push(`sending ${origin$1(url)} the ${count} notifications committed before the restart and not yet delivered (from ledger entry ${cursors[url].next})`);
	}
	return {
		cursors,
		entries: owed,
		notes
	};
}
function idAt(ledger, index) {
	const entry = index >= 0 ? ledger.entry(index) : void 0;
	return entry && notificationId(entry);
}
const origin$1 = (url) => new URL(url).origin;
// src/kernel/notify/notify-thread.ts
/**
* Notifications off the kernel's thread. The kernel answers every request on one thread,
* and notifications made there (ids, text, JSON, HMAC, the POSTs) cost it about a sixth of
* its time (`npm run bench -- notify`: 63 \u2192 76 \u00b5s of CPU per request). Here that thread
* only hands the changes over, as they are, in one message per HANDOFF_MS at most (47 \u2192 47
* \u00b5s); a worker thread runs the `Notifier` (queues, batches, retries, signatures) at a
* lower priority and reports its health back when it changes, which `/readyz` shows.
*
* The worker is its own bundle, dist/notify/ (built from src/bin/notify.ts), found beside
* the CLI's; run from source (the tests), it is src/bin/notify.ts through tsx, as helper
* processes are (src/lease/helpers.ts).
*
* With a cursor file (a file kernel, notify-cursor.ts) the worker follows the ledger across
* restarts: at start this thread reads the cursor and the entries after it from the ledger
* and hands them over first (the worker never reads the ledger), live changes after them;
* the worker moves the cursor when a delivery has ended, never when it was handed over.
*/
/** The shortest time between two hand-overs to the worker. */
const HANDOFF_MS = 10;
/** How long close() waits for a worker still starting (from source tsx compiles it first). */
const START_WAIT_MS = 3e4;
/**
* The worker: dist/cli/*.js \u2192 dist/notify/index.js; from source (src/kernel/*.ts),
* src/bin/notify.ts loaded through tsx's API (a worker takes no `--import` of its own).
*/
function notifyWorker(moduleUrl = require("node:url").pathToFileURL(__filename).href) {
	const path = (0, node_url.fileURLToPath)(moduleUrl);
	const here = (0, node_path.dirname)(path);
	if (path.endsWith(".ts")) {
		const root = (0, node_path.join)(here, "..", "..", "..");
		const entry = (0, node_path.join)(root, "src", "bin", "notify.ts");
		const tsx = (0, node_path.join)(root, "node_modules", "tsx", "dist", "esm", "api", "index.mjs");
		for (const file of [entry, tsx]) if (!(0, node_fs.existsSync)(file)) throw new NotifyError(`lease-gate cannot find its notification worker ${file}.`);
		return {
			file: `import(${JSON.stringify((0, node_url.pathToFileURL)(tsx).href)}).then(({ tsImport }) => tsImport(${JSON.stringify((0, node_url.pathToFileURL)(entry).href)}, ${JSON.stringify(moduleUrl)}));`,
			eval: true
		};
	}
	const file = (0, node_path.join)(here, "..", "notify", "index.js");
	if (!(0, node_fs.existsSync)(file)) throw new NotifyError(`lease-gate cannot find its notification worker ${file}; is dist/ complete?`);
	return {
		file,
		eval: false
	};
}
var NotifierThread = class {
	options;
	worker;
	log;
	urls;
	batch = [];
	flushing = false;
	lastFlush = -Infinity;
	/** Changes handed to the worker, and the worker's last report of what it has and how it does. */
	posted = 0;
	report = {
		received: 0,
		health: {
			ok: true,
			delivered: 0,
			requests: 0,
			pending: 0,
			failed: 0,
			dropped: 0,
			recentFailures: []
		}
	};
	/** Set when the worker has stopped on its own: what it was given since is lost, and counted. */
	stopped;
	lost = 0;
	closed;
	exited;
	started;
	settings;
	/** Set while the backlog is read from the ledger: live changes wait behind it. */
	resuming;
	constructor(options) {
		this.options = options;
		const urls = options.urls.map((url) => checkNotifyUrl(url));
		this.urls = urls.length;
		this.log = options.log ?? (() => void 0);
		this.settings = {
			urls,
			secret: options.secret,
			cursorFile: options.cursorFile
		};
		const worker = options.workerFile ? {
			file: options.workerFile,
			eval: false
		} : notifyWorker();
		this.worker = new node_worker_threads.Worker(worker.file, {
			workerData: this.settings,
			eval: worker.eval
		});
		this.worker.unref();
		this.started = new Promise((resolve) => this.worker.on("message", (m) => m.type === "ready" && resolve()));
		this.worker.on("message", (message) => this.heard(message));
		this.worker.on("error", (error) => this.fail(error.message));
		this.exited = new Promise((resolve) => this.worker.once("exit", (code) => {
			if (!this.closed) this.fail(`it exited (code ${code})`);
			resolve();
		}));
	}
	/**
	* Subscribes to the service's entries; with a cursor file, first hands over what the
	* ledger holds after it (read now, before any later change is told, so none is missed
	* or told twice).
	*/
	attach(service) {
		service.onRecorded((entries) => this.push(entries));
		if (this.settings.cursorFile) this.resuming = this.resume(service.ledger);
		return { health: () => ({ notifications: this.health() }) };
	}
	/**
	* Called after a commit, on the answer's path: keeps the changes that are notified and
	* hands them over on the next turn, one message for all that one turn committed.
	*/
	push(entries) {
		for (const entry of entries) if (isNotified(entry)) this.batch.push(entry);
		if (this.flushing || this.resuming || this.batch.length === 0) return;
		this.flushing = true;
		const wait = this.lastFlush + HANDOFF_MS - performance.now();
		if (wait <= 0) setImmediate(() => this.flush());
		else setTimeout(() => this.flush(), wait);
	}
	health() {
		const { received, health } = this.report;
		const inTransit = this.stopped ? 0 : this.posted - received + this.batch.length;
		const dropped = health.dropped + this.lost;
		return {
			...health,
			ok: health.ok && dropped === 0 && !this.stopped,
			pending: health.pending + inTransit * this.urls,
			dropped,
			...this.stopped ? { stopped: this.stopped } : {}
		};
	}
	/** Hands over what is left, lets the worker end its deliveries (or `graceMs`), then ends it. */
	close(graceMs = 2e3) {
		this.closed ??= (async () => {
			await this.resuming;
			this.flush();
			if (!this.stopped) {
				let wait;
				await Promise.race([
					this.started,
					this.exited,
					new Promise((resolve) => wait = setTimeout(resolve, START_WAIT_MS))
				]);
				clearTimeout(wait);
				const done = new Promise((resolve) => this.worker.on("message", (m) => m.type === "closed" && resolve()));
				this.worker.postMessage({
					type: "close",
					graceMs
				});
				let timer;
				await Promise.race([
					done,
					this.exited,
					new Promise((resolve) => timer = setTimeout(resolve, graceMs + 1e3))
				]);
				clearTimeout(timer);
			}
			await this.worker.terminate();
		})();
		return this.closed;
	}
	/**
	* Reads where each URL stands and what it is owed (bounded), saves the starting points,
	* tells the worker, then hands over the backlog ahead of what was committed meanwhile.
	* If the ledger or the cursor cannot be read, notifications go on from the next change.
	*/
	async resume(ledger) {
		const file = this.settings.cursorFile;
		try {
			const plan = await planResume(ledger, this.settings.urls, file, (this.options.now ?? Date.now)(), this.options.resumeBounds ?? RESUME_BOUNDS);
			for (const note of plan.notes) this.log(`kernel: ${note}`);
			writeCursors(file, plan.cursors);
			this.worker.postMessage({
				type: "resume",
				cursors: plan.cursors
			});
			this.batch = [...plan.entries, ...this.batch];
		} catch (error) {
			this.log(`kernel: notifications could not resume from ${file}: ${require_cli.errorMessage(error)}; they go on from the next change`);
		} finally {
			this.resuming = void 0;
			this.push([]);
		}
	}
	flush() {
		this.flushing = false;
		this.lastFlush = performance.now();
		if (this.batch.length === 0) return;
		const events = this.batch;
		this.batch = [];
		if (this.stopped) {
			this.lost += events.length * this.urls;
			return;
		}
		this.posted += events.length;
		this.worker.postMessage({
			type: "events",
			events
		});
	}
	heard(message) {
		if (message.type === "ready") return;
		if (message.type === "health") this.report = message;
		else if (message.type === "log") this.log(message.line);
	}
	fail(why) {
		if (this.stopped || this.closed) return;
		this.stopped = `the notification thread stopped: ${why}`;
		const { received, health } = this.report;
		this.lost += health.pending + (this.posted - received) * this.urls;
		this.report = {
			received: this.posted,
			health: {
				...health,
				pending: 0
			}
		};
		this.log(`kernel: ${this.stopped}; changes are no longer notified (see /readyz)`);
	}
};
// src/kernel/service/windows.ts
var WindowsError = class extends require_cli.LeaseGateError {
	name = "WindowsError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "windows"
		});
	}
};
const MINUTE = 6e4;
const DAY = 864e5;
const MAX_DURATION_MS = 31 * DAY;
const FIELDS = [
	{
		name: "minute",
		min: 0,
		max: 59
	},
	{
		name: "hour",
		min: 0,
		max: 23
	},
	{
		name: "day of month",
		min: 1,
		max: 31
	},
	{
		name: "month",
		min: 1,
		max: 12
	},
	{
		name: "day of week",
		min: 0,
		max: 7
	}
];
var FreezeWindows = class FreezeWindows {
	windows;
	constructor(windows) {
		this.windows = windows;
	}
	static fromFile(file) {
		let text;
		try {
			text = (0, node_fs.readFileSync)(file, "utf8");
		} catch (error) {
			throw new WindowsError(`Cannot read the windows file ${file}: ${require_cli.causeText(error)}`, { cause: error });
		}
		return FreezeWindows.parse(text, file);
	}
	/** Checks every entry; the error names the file, the entry and the field. */
	static parse(text, source = "windows") {
		let raw;
		try {
			raw = JSON.parse(text);
		} catch (error) {
			throw new WindowsError(`${source}: not JSON (${require_cli.causeText(error)})`, { cause: error });
		}
		const list = raw?.windows;
		if (!Array.isArray(list) || list.length > 100) throw new WindowsError(`${source}: expected {"windows": [ ... ]} with at most 100 entries`);
		return new FreezeWindows(list.map((entry, i) => checkEntry(entry, `${source}: entry ${i + 1}`)));
	}
	get size() {
		return this.windows.length;
	}
	/** The window in force on this resource at `now`, as a freeze (the one that ends last). */
	activeFor(resource, now) {
		let found;
		for (const w of this.windows) {
			if (!covers(w, resource)) continue;
			const start = startInForce(w, now);
			if (start === null) continue;
			const untilMs = start + w.durationMs;
			if (!found || untilMs > (found.untilMs ?? 0)) found = {
				reason: `${w.reason} (window ${w.name})`,
				untilMs,
				by: `window:${w.name}`,
				atMs: start
			};
		}
		return found;
	}
	/** Every window, with whether it is in force and when it next starts, for the console. */
	describe(now) {
		return this.windows.map((w) => {
			const start = startInForce(w, now);
			return {
				name: w.name,
				schedule: w.schedule,
				timeZone: w.timeZone,
				durationMs: w.durationMs,
				resources: w.resources,
				reason: w.reason,
				activeFromMs: start,
				activeUntilMs: start === null ? null : start + w.durationMs,
				nextStartMs: nextStart(w, now)
			};
		});
	}
};
function checkEntry(entry, where) {
	if (!entry || typeof entry !== "object") throw new WindowsError(`${where}: expected an object`);
	const e = entry;
	const text = (field, max) => {
		const value = e[field];
		if (typeof value !== "string" || value.trim() === "" || value.length > max) throw new WindowsError(`${where}: ${field}: expected a string of 1 to ${max} characters`);
		return value;
	};
	const name = text("name", 100);
	const at = `${where} ("${name.replace(/[^\x20-\x7e]/g, "?")}")`;
	const schedule = text("schedule", 200);
	const parsed = parseSchedule(schedule, `${at}: schedule`);
	const duration = text("duration", 20);
	const durationMs = parseWindowDuration(duration);
	if (durationMs === void 0) throw new WindowsError(`${at}: duration: expected a duration such as '90m', '4h' or '2d' (at most 31d), not '${duration.slice(0, 20)}'`);
	const timeZone = text("timeZone", 100);
	let format;
	try {
		format = new Intl.DateTimeFormat("en-US", {
			timeZone,
			hourCycle: "h23",
			weekday: "short",
			month: "numeric",
			day: "numeric",
			hour: "numeric",
			minute: "numeric"
		});
	} catch {
		throw new WindowsError(`${at}: timeZone: expected an IANA time zone such as 'Europe/Berlin' or 'UTC', not '${timeZone.slice(0, 60)}'`);
	}
	const resources = e.resources;
	if (!Array.isArray(resources) || resources.length === 0 || resources.length > 100 || !resources.every((r) => typeof r === "string" && /^[\x21-\x7e]{1,256}$/.test(r))) throw new WindowsError(`${at}: resources: expected 1 to 100 resource names (printable, no spaces; a trailing * matches a prefix)`);
	return {
		name,
		schedule,
		duration,
		durationMs,
		timeZone,
		resources,
		reason: text("reason", 1e3),
		parsed,
		fields: zonedFields(format)
	};
}
function parseWindowDuration(raw) {
	const match = /^(\d+)(m|h|d)$/.exec(raw.trim());
	if (!match) return void 0;
	const ms = Number(match[1]) * {
		m: MINUTE,
		h: 60 * MINUTE,
		d: DAY
	}[match[2]];
	return ms > 0 && ms <= MAX_DURATION_MS ? ms : void 0;
}
function parseSchedule(schedule, where) {
	const parts = schedule.trim().split(/\s+/);
	if (parts.length !== 5) throw new WindowsError(`${where}: expected five fields (minute hour day-of-month month day-of-week), as '0 18 * * 5'`);
	const sets = parts.map((part, i) => parseField(part, FIELDS[i], where));
	const weekdays = new Set([...sets[4]].map((d) => d % 7));
	return {
		minutes: sets[0],
		hours: sets[1],
		days: sets[2],
		months: sets[3],
		weekdays,
		dayOr: parts[2] !== "*" && parts[4] !== "*"
	};
}
function parseField(part, field, where) {
	const values = /* @__PURE__ */ new Set();
	for (const item of part.split(",")) {
		const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
		const bad = () => new WindowsError(`${where}: ${field.name} '${item.slice(0, 20)}': expected *, a number from ${field.min} to ${field.max}, a range a-b, a list a,b or a step */n`);
		if (!match) throw bad();
		const from = match[1] === "*" ? field.min : Number(match[2]);
		const to = match[1] === "*" ? field.max : match[3] !== void 0 ? Number(match[3]) : from;
		const step = match[4] !== void 0 ? Number(match[4]) : 1;
		if (from < field.min || to > field.max || from > to || step < 1) throw bad();
		for (let v = from; v <= to; v += step) values.add(v);
	}
	return values;
}
function zonedFields(format) {
	const WEEKDAYS = {
		Sun: 0,
		Mon: 1,
		Tue: 2,
		Wed: 3,
		Thu: 4,
		Fri: 5,
		Sat: 6
	};
	return (ms) => {
		const f = {};
		for (const p of format.formatToParts(ms)) f[p.type] = p.value;
		return {
			minute: Number(f.minute),
			hour: Number(f.hour) % 24,
			day: Number(f.day),
			month: Number(f.month),
			weekday: WEEKDAYS[f.weekday ?? ""] ?? 0
		};
	};
}
function dayMatches(s, f) {
	if (!s.months.has(f.month)) return false;
	if (s.dayOr) return s.days.has(f.day) || s.weekdays.has(f.weekday);
	return s.days.has(f.day) && s.weekdays.has(f.weekday);
}
const covers = (w, resource) => w.resources.some((r) => r.endsWith("*") ? resource.startsWith(r.slice(0, -1)) : r === resource);
/**
* The latest scheduled start in (now - duration, now], or null. Walks back from
* now a day, an hour or a minute at a time (whichever field fails), so a window
* costs at most a few thousand steps, once a minute (cached).
*/
function startInForce(w, now) {
	const minute = Math.floor(now / MINUTE);
	if (w.cache?.minute === minute) return w.cache.start;
	let t = minute * MINUTE;
	let start = null;
	for (let steps = 0; t > now - w.durationMs && steps < 2e4; steps += 1) {
		const f = w.fields(t);
		if (!dayMatches(w.parsed, f)) t -= (f.hour * 60 + f.minute + 1) * MINUTE;
		else if (!w.parsed.hours.has(f.hour)) t -= (f.minute + 1) * MINUTE;
		else if (!w.parsed.minutes.has(f.minute)) t -= MINUTE;
		else {
			start = t;
			break;
		}
	}
	w.cache = {
		minute,
		start
	};
	return start;
}
/** The next start after now, walking forward the same way, within a year. */
function nextStart(w, now) {
	let t = (Math.floor(now / MINUTE) + 1) * MINUTE;
	const end = now + 366 * DAY;
	for (let steps = 0; t <= end && steps < 5e4; steps += 1) {
		const f = w.fields(t);
		if (!dayMatches(w.parsed, f)) t += (1440 - f.hour * 60 - f.minute) * MINUTE;
		else if (!w.parsed.hours.has(f.hour)) t += (60 - f.minute) * MINUTE;
		else if (!w.parsed.minutes.has(f.minute)) t += MINUTE;
		else return t;
	}
	return null;
}
// src/fs/create-once.ts
/**
* Creates `path` with `text` unless it exists: true if this call made it, false if it was
* there already. The text is written and synced under a name of its own, then linked into
* place: link(2) fails where the name exists, as O_EXCL does, so of two processes that race
* exactly one creates it, and neither reader ever sees it half written. The directory is
* synced after (durable.ts's policy), so a crash cannot take back a file that was reported made.
*/
function createFileOnce(path, text, mode = 384) {
	const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
	require_durable.writeTempSync(temp, text, "wx", mode);
	try {
		(0, node_fs.linkSync)(temp, path);
	} catch (error) {
		if (error.code === "EEXIST") return false;
		throw error;
	} finally {
		(0, node_fs.unlinkSync)(temp);
	}
	require_durable.syncDirectorySync((0, node_path.dirname)(path));
	return true;
}
// src/cli/kernel-identity.ts
/** Where a file kernel without --signing-key keeps the key it made: beside its log. */
const signingKeyFileOf = (logFile) => `${logFile}.key`;
/**
* The ledger's signing key: --signing-key FILE; else, for a kernel with a log, the key
* beside it (made once, at its first start, and kept); else one made for this run. A
* durable ledger signed by a new key at each restart would break every `verify --previous`.
*/
function kernelIdentity(flagFile, logFile) {
	if (flagFile) {
		const key = readKey(flagFile, (why, cause) => new require_cli.UsageError(why, { cause }));
		return {
			key,
			line: `ledger ${origin(key)} signs with --signing-key ${flagFile}`
		};
	}
	if (logFile) return keptKey(signingKeyFileOf(logFile));
	const key = (0, node_crypto.generateKeyPairSync)("ed25519").privateKey;
	const pem = String(publicOf(key).export({
		type: "spki",
		format: "pem"
	})).trim();
	return {
		key,
		line: `ledger ${origin(key)} signs with a key made for this run; its public key:\n${pem}`
	};
}
/** The key in `file`, made there now if there is none (of two starts at once, one makes it). */
function keptKey(file) {
	const made = (0, node_crypto.generateKeyPairSync)("ed25519").privateKey;
	let created;
	try {
		created = createFileOnce(file, String(made.export({
			type: "pkcs8",
			format: "pem"
		})));
	} catch (error) {
		throw new require_round_trips.StartRefusedError(`Cannot make the ledger's signing key ${file}: ${require_cli.causeText(error)}. Give one with --signing-key FILE (lease-gate keygen --out DIR).`, { cause: error });
	}
	const key = created ? made : readKey(file, (why, cause) => new require_round_trips.StartRefusedError(why, { cause }));
	const how = created ? "made now, at its first start" : "kept from its first start";
	return {
		key,
		line: `ledger ${origin(key)} signs with the key in ${file} (${how}; --signing-key FILE names another)`
	};
}
function readKey(file, refuse) {
	let key;
	try {
		key = (0, node_crypto.createPrivateKey)((0, node_fs.readFileSync)(file, "utf8"));
	} catch (error) {
		throw refuse(`Cannot read the signing key ${file}: ${require_cli.causeText(error)}`, error);
	}
	if (key.asymmetricKeyType !== "ed25519") throw refuse(`The signing key ${file} is not an Ed25519 key.`);
	return key;
}
const publicOf = (key) => (0, node_crypto.createPublicKey)(key);
const origin = (key) => require_checkpoint.originFor(publicOf(key));
// src/cli/kernel-start.ts
/**
* Checked settings \u2192 the kernel, serving until SIGINT or SIGTERM (or the --exit-with-pid
* process goes). Every file the settings name is read here, before it listens.
*/
async function startKernel(settings, io, env) {
	for (const warning of settings.warnings) io.err(warning);
	const github = settings.github && await openCompare(settings.github, env);
	const { key, adminKey, approverKey } = settings.keys;
	const credentials = await kernelAuth(settings.auth, key, {
		LEASE_GATE_ADMIN_KEY: adminKey,
		LEASE_GATE_APPROVER_KEY: approverKey
	}).catch(async (error) => {
		await github?.close();
		throw error;
	});
	const lock = settings.logFile ? await lockState(settings.logFile, {
		waitMs: LOCK_WAIT_MS,
		now: Date.now,
		sleep: (ms) => new Promise((done) => setTimeout(done, ms))
	}).catch(async (error) => {
		await credentials.close();
		await github?.close();
		throw error;
	}) : void 0;
	try {
		return await serve(settings, {
			credentials,
			github
		}, io, env);
	} finally {
		await lock?.close();
	}
}
async function serve(settings, given, io, env) {
	const identity = kernelIdentity(settings.signingKeyFile, settings.logFile);
	const windows = settings.windowsFile ? loadWindows(settings.windowsFile) : void 0;
	const notifier = notifierFrom(settings.notify, io, settings.logFile && cursorFileOf(settings.logFile));
	const opened = {
		...given,
		identity,
		windows,
		notifier,
		checks: checksOf(settings, io, env)
	};
	let running;
	try {
		running = await listen(settings, opened, io);
	} catch (error) {
		await opened.credentials.close();
		await opened.notifier?.close();
		await opened.checks?.close();
		await opened.github?.close();
		throw error;
	}
	const stopped = new Promise((resolve) => {
		process.once("SIGINT", resolve).once("SIGTERM", resolve);
		const parent = settings.exitWithPid;
		if (parent > 0) setInterval(() => require_processes.isAlive(parent) || resolve(), 2e3).unref();
	});
	io.outWith(`lease-gate kernel listening on ${running.url}`, { url: running.url });
	if (running.warning) io.err(`warning: ${running.warning}`);
	if (!settings.quiet) for (const line of startLines(settings, opened)) io.out(line);
	await stopped;
	await opened.checks?.close();
	await running.close();
	await opened.credentials.close();
	await opened.notifier?.close();
	await opened.github?.close();
	return require_cli.EXIT.done;
}
/** The service (PostgreSQL's, or the in-process one) behind the HTTP server, listening. */
async function listen(settings, opened, io) {
	const { ttlMs, lockDelayMs, postgres, logFile } = settings;
	const { windows, notifier, checks } = opened;
	const ledger = new Ledger(opened.identity.key);
	const store = logFile ? fileStore(logFile) : memoryStore({ fenceFloor: memoryFenceFloor() });
	const log = eventLog(settings.quiet, io);
	const window = windows && ((r, now) => windows.activeFor(r, now));
	return startKernelServer({
		service: postgres ? await openPostgres(postgres, {
			ledger,
			ttlMs,
			lockDelayMs,
			window,
			onEvents: log,
			log: (line) => io.err(line)
		}) : void 0,
		ledger,
		windows,
		store,
		onEvents: log,
		log: serverLog(io),
		table: new ResourceTable({
			ttlMs,
			lockDelayMs,
			window
		}),
		onService: (notifier || checks) && ((service) => {
			const told = [notifier?.attach(service), checks?.attach(service)];
			return { health: () => Object.assign({}, ...told.map((t) => t?.health())) };
		}),
		...settings.keys,
		auth: opened.credentials.auth,
		approverOidc: settings.approverOidc,
		promote: settings.promote,
		compare: opened.github?.compare,
		host: settings.host,
		port: settings.port,
		publicUrls: settings.publicUrls
	});
}
/** The HTTP server's lines carry the request's id (and a JSON line has it as a field). */
const serverLog = (io) => (line, fields) => io.errWith(line, fields ?? {});
/** One stdout line per event but renewals, unless --quiet. */
function eventLog(quiet, io) {
	return (events) => {
		if (quiet) return;
		for (const e of events) {
			if (e.kind === "renew") continue;
			io.outWith(`${new Date(e.atMs).toISOString()} ${e.kind} ${e.resource} ${e.actorDid} ${e.leaseId} fence=${e.fence}${e.reason ? ` reason=${JSON.stringify(e.reason)}` : ""}`, {
				event: e.kind,
				resource: e.resource,
				did: e.actorDid,
				leaseId: e.leaseId,
				fence: e.fence,
				reason: e.reason
			});
		}
	};
}
/** What the start-up says after the listening line (not with --quiet). */
function startLines(settings, opened) {
	const { postgres, approverOidc, promote, healthChecks, healthIntervalMs } = settings;
	const { credentials, identity, windows, github, checks } = opened;
	const lines = [];
	if (credentials.summary) lines.push(credentials.summary);
	if (postgres) lines.push(`store: PostgreSQL ${require_round_trips.redactUrl(postgres.url)}, schema ${postgres.schema}`);
	lines.push(...identity.line.split("\n"));
	if (windows) lines.push(`freeze windows: ${windows.size} from ${settings.windowsFile}`);
	if (approverOidc) lines.push(`break-glass approvers: OIDC tokens whose sub matches ${approverOidc.join(" or ")}`);
	if (promote) lines.push(`promotion order: ${[...promote].map(([to, from]) => `${from} -> ${to}`).join(", ")}${github ? ` (descendants too, by GitHub's compare at ${github.apiUrl})` : ""}`);
	if (checks) lines.push(`health checks: ${healthChecks.length}, every ${healthIntervalMs} ms${settings.healthFreezeHeld ? ", a failure while held freezes" : ""}`);
	return lines;
}
function checksOf(settings, io, env) {
	if (!settings.healthChecks.length) return void 0;
	return new HealthChecks({
		checks: settings.healthChecks,
		intervalMs: settings.healthIntervalMs,
		freezeHeld: settings.healthFreezeHeld,
		http: require_cli.createHttpClient({ env }),
		now: Date.now,
		sleep: (ms, signal) => new Promise((done) => {
			const timer = setTimeout(done, ms);
			signal.addEventListener("abort", () => (clearTimeout(timer), done(void 0)), { once: true });
		}),
		log: (line) => io.err(line)
	});
}
function loadWindows(file) {
	try {
		return FreezeWindows.fromFile(file);
	} catch (error) {
		if (error instanceof WindowsError) throw new require_cli.UsageError(error.message, { cause: error });
		throw error;
	}
}
/** --notify and --notify-file's URLs, signed with the secret of --notify-secret-file or the file's. */
function notifierFrom(flags, io, cursorFile) {
	let fromFile = { urls: [] };
	try {
		if (flags.file) fromFile = readNotifyFile(flags.file);
	} catch (error) {
		if (error instanceof NotifyError) throw new require_cli.UsageError(error.message, { cause: error });
		throw error;
	}
	const urls = [...fromFile.urls, ...flags.urls];
	const secretFile = flags.secretFile ?? fromFile.secretFile;
	if (urls.length === 0) {
		if (secretFile) throw new require_cli.UsageError("--notify-secret-file needs at least one --notify URL.");
		return;
	}
	if (!secretFile) throw new require_cli.UsageError("--notify needs --notify-secret-file FILE: every delivery is signed.");
	try {
		return new NotifierThread({
			urls,
			secret: readNotifySecret(secretFile),
			cursorFile,
			log: (line) => io.err(line)
		});
	} catch (error) {
		if (error instanceof NotifyError) throw new require_cli.UsageError(error.message, { cause: error });
		throw error;
	}
}
// src/cli/kernel-command.ts
var kernel_command_exports = /* @__PURE__ */ require_rolldown_runtime.__exportAll({ kernel: () => kernel });
/** `lease-gate kernel`: the local plane on loopback, until SIGINT or SIGTERM. */
async function kernel(args, io, env) {
	if (args[0] === "migrate") return migrateCommand(args.slice(1), io, env);
	return serveKernel(args, io, env);
}
/**
* Parse \u2192 check (kernelSettings, no I/O) \u2192 start (every file read, then listen), every
* line through one logger; with --log-format json a refusal to start is a JSON line too.
*/
async function serveKernel(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.KERNEL_FLAGS));
	const log = logSettings(values, env);
	const logged = require_log_output.loggedOutput(io, log);
	try {
		return await startKernel(kernelSettings(values, env), logged, env);
	} catch (error) {
		if (error instanceof require_round_trips.StartRefusedError) {
			logged.err(`lease-gate kernel: ${error.message}`);
			return require_cli.EXIT.usage;
		}
		return require_log_output.refusedToStart(error, log, logged, "kernel");
	}
}
/**
* The form, and what no line may hold: the keys and the database's password, as given
* (before they are checked: a refusal is logged too). PostgreSQL replicas name themselves.
*/
function logSettings(values, env) {
	const store = values.store?.startsWith("postgres") ? values.store : void 0;
	const database = store === "postgres" ? env.DATABASE_URL : store;
	return {
		format: require_log_output.logFormatOf(values["log-format"], env),
		secrets: [
			env.LEASE_GATE_KERNEL_KEY,
			env.LEASE_GATE_ADMIN_KEY,
			env.LEASE_GATE_APPROVER_KEY,
			env.LEASE_GATE_METRICS_KEY,
			require_log_output.urlPassword(database)
		],
		...store && { base: { replica: `${(0, node_os.hostname)()}:${process.pid}` } }
	};
}
exports.AuthRefusal = AuthRefusal;
exports.DEFAULT_TTL_MS = DEFAULT_TTL_MS;
exports.FetchedLines = FetchedLines;
exports.IssuerKeys = IssuerKeys;
exports.JOSEAlgNotAllowed = JOSEAlgNotAllowed;
exports.JOSEError = JOSEError;
exports.JWKSNoMatchingKey = JWKSNoMatchingKey;
exports.JWSInvalid = JWSInvalid;
exports.JWSSignatureVerificationFailed = JWSSignatureVerificationFailed;
exports.JWS_RECOGNIZED = JWS_RECOGNIZED;
exports.JWTClaimValidationFailed = JWTClaimValidationFailed;
exports.JWTExpired = JWTExpired;
exports.JWTInvalid = JWTInvalid;
exports.KernelService = KernelService;
exports.checkIssuerUrl = checkIssuerUrl;
exports.checkModulusLength = checkModulusLength;
exports.concat = concat;
exports.decideBatch = decideBatch;
exports.decodeBase64url = decodeBase64url;
exports.decoder = decoder;
exports.defaultLockDelayMs = defaultLockDelayMs;
exports.emptyState = emptyState;
exports.encode = encode;
exports.encodeAsciiMember = encodeAsciiMember;
exports.isDisjoint = isDisjoint;
exports.isObject = isObject;
exports.jwsAlgorithm = jwsAlgorithm;
exports.kernel = kernel;
exports.kernelEventSchema = kernelEventSchema;
Object.defineProperty(exports, "kernel_command_exports", {
	enumerable: true,
	get: function() {
		return kernel_command_exports;
	}
});
exports.nextDeadline = nextDeadline;
exports.numberEntries = numberEntries;
exports.overviewOf = overviewOf;
exports.parseJoseHeader = parseJoseHeader;
exports.prepareKey = prepareKey;
exports.rawKey = rawKey;
exports.readResourceState = readResourceState;
exports.ruleContext = ruleContext;
exports.strictDecoder = strictDecoder;
exports.unavailable = unavailable;
exports.validateAlgorithms = validateAlgorithms;
exports.validateB64 = validateB64;
exports.validateCrit = validateCrit;

//# sourceMappingURL=kernel-command-DtAmYtw2.js.map