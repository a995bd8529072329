const require_cli = require("./cli.js");
const require_remote = require("./remote-BeUzwwFI.js");
const require_entry_kinds = require("./entry-kinds-DYb7pk0U.js");
const require_words = require("./words-6aBbOxTY.js");
// src/console/page/api.ts
const MAX_LIST = 1e4;
/** Resources asked per page of the overview (the kernel's most), and how many pages at most. */
const RESOURCES_PAGE = 5e3;
const text = require_cli.string().check(require_cli._maxLength(1e3));
const time = require_cli.number().check(require_cli._gte(0), require_cli._lte(864e13));
const freezeSchema = require_cli.object({
	reason: text,
	untilMs: require_cli.nullable(time),
	by: text,
	atMs: time
});
/** What a holder or waiter deploys, as the kernel recorded it; links are checked again when drawn. */
const deploySchema = require_cli.optional(require_cli.object({
	repository: require_cli.optional(text),
	workflow: require_cli.optional(text),
	ref: require_cli.optional(text),
	commit: require_cli.optional(text),
	runNumber: require_cli.optional(require_cli.number()),
	runAttempt: require_cli.optional(require_cli.number()),
	runUrl: require_cli.optional(require_cli.string().check(require_cli._maxLength(2048)))
}));
require_cli.object({
	ok: require_cli.literal(true),
	nowMs: time,
	resources: require_cli.array(require_cli.object({
		resource: text,
		lease: require_cli.nullable(require_cli.object({
			id: text,
			holder: text,
			expiresAtMs: time,
			fence: require_cli.optional(require_cli.number()),
			grantedAtMs: require_cli.optional(time),
			deploy: deploySchema
		})),
		reserved: require_cli.optional(require_cli.nullable(require_cli.object({
			holder: text,
			untilMs: time
		}))),
		frozen: require_cli.optional(freezeSchema),
		/** An operator's break-glass not used yet: open, or waiting for a second operator. */
		breakGlass: require_cli.optional(require_cli.object({
			actorDid: text,
			reason: text,
			by: text,
			untilMs: time,
			pending: require_cli.boolean(),
			approvedBy: require_cli.optional(text)
		})),
		queue: require_cli.array(require_cli.object({
			actorDid: text,
			position: require_cli.number(),
			deploy: deploySchema,
			/** When it first asked, by the kernel's clock (`detail=1`; absent from older kernels). */
			sinceMs: require_cli.optional(time),
			/** About how long until it is granted, at recent hold times (`detail=1`, when known). */
			etaMs: require_cli.optional(time)
		})).check(require_cli._maxLength(MAX_LIST))
	})).check(require_cli._maxLength(RESOURCES_PAGE)),
	/** The `after` of the next page; absent from a kernel that does not page. */
	next: require_cli.optional(require_cli.nullable(require_cli.string().check(require_cli._maxLength(1e3)))),
	/** The promotion order (`--promote`): each step, from and to. */
	promotions: require_cli.optional(require_cli.array(require_cli.object({
		from: text,
		to: text
	})).check(require_cli._maxLength(100))),
	windows: require_cli.optional(require_cli.array(require_cli.object({
		name: text,
		schedule: text,
		timeZone: text,
		durationMs: require_cli.number(),
		resources: require_cli.array(text).check(require_cli._maxLength(100)),
		reason: text,
		activeFromMs: require_cli.nullable(time),
		activeUntilMs: require_cli.nullable(time),
		nextStartMs: require_cli.nullable(time)
	})).check(require_cli._maxLength(100))),
	/** The health gate's checks (docs/health-gate.md); absent when the kernel runs none. */
	healthChecks: require_cli.optional(require_cli.array(require_cli.object({
		resource: text,
		url: text,
		healthy: require_cli.nullable(require_cli.boolean()),
		reason: require_cli.nullable(text),
		checkedAtMs: require_cli.nullable(time),
		nextAtMs: require_cli.nullable(time)
	})).check(require_cli._maxLength(100))),
	notifications: require_cli.optional(require_cli.object({
		ok: require_cli.boolean(),
		delivered: require_cli.number(),
		pending: require_cli.number(),
		failed: require_cli.number(),
		dropped: require_cli.number(),
		/** Why notifications have stopped altogether (the kernel's notification thread is gone). */
		stopped: require_cli.optional(text),
		recentFailures: require_cli.array(require_cli.object({
			id: text,
			url: text,
			kind: text,
			resource: text,
			error: text,
			atMs: time
		})).check(require_cli._maxLength(100))
	}))
});
const entrySchema = require_cli.object({
	tsMs: time,
	kind: require_cli._enum(require_entry_kinds.ENTRY_KINDS),
	resource: text,
	actorDid: text,
	leaseId: text,
	fence: require_cli.number(),
	expiresAtMs: require_cli.optional(time),
	reason: require_cli.optional(text),
	by: require_cli.optional(text),
	approvedBy: require_cli.optional(text),
	deploy: deploySchema,
	promotedVia: require_cli.optional(text)
});
require_cli.object({
	checkpoint: require_cli.string().check(require_cli._maxLength(1e4)),
	entries: require_cli.array(require_cli.object({
		index: require_cli.number(),
		entry: require_cli.unknown(),
		inclusionProof: require_cli.array(require_cli.string()).check(require_cli._maxLength(64))
	})).check(require_cli._maxLength(MAX_LIST)),
	next: require_cli.optional(require_cli.nullable(require_cli.string().check(require_cli._maxLength(1e3))))
});
// src/console/page/holds.ts
/** Ledger entries \u2192 holds per resource: pure, shared by the console and the playground. */
/**
* Pairs each grant with the release, lapse or revocation of the same lease.
* A lease whose end is not in the entries is still open; an end whose grant
* came before the first entry shown starts at the earliest time known.
*/
function holdsFrom(entries) {
	const byResource = /* @__PURE__ */ new Map();
	const open = /* @__PURE__ */ new Map();
	const first = entries[0]?.tsMs ?? 0;
	for (const e of entries) {
		if (require_entry_kinds.namesNoLease(e.kind)) continue;
		const holds = byResource.get(e.resource) ?? [];
		byResource.set(e.resource, holds);
		if (e.kind === "grant" || e.kind === "renew") {
			if (open.has(e.leaseId)) continue;
			const hold = {
				resource: e.resource,
				holder: e.actorDid,
				leaseId: e.leaseId,
				fence: e.fence,
				startMs: e.kind === "grant" ? e.tsMs : first,
				endMs: null,
				end: "open",
				...e.deploy ? { deploy: e.deploy } : {},
				...e.kind === "grant" && e.promotedVia ? { promotedVia: e.promotedVia } : {}
			};
			holds.push(hold);
			open.set(e.leaseId, hold);
			continue;
		}
		const hold = open.get(e.leaseId);
		open.delete(e.leaseId);
		if (hold) Object.assign(hold, {
			endMs: e.tsMs,
			end: e.kind,
			reason: e.reason,
			by: e.by
		});
		else holds.unshift({
			resource: e.resource,
			holder: e.actorDid,
			leaseId: e.leaseId,
			fence: e.fence,
			startMs: first,
			endMs: e.tsMs,
			end: e.kind,
			reason: e.reason,
			by: e.by
		});
	}
	return byResource;
}
// src/cli/history-command.ts
/**
* `lease-gate history`: what the kernel's ledger says happened, in the console's words
* (its history table's), filtered by resource and time: each hold with how it ended,
* each freeze, unfreeze and break-glass. Oldest first, like a log.
*/
const DAY_MS = 864e5;
const SINCE_FORM = "a duration back from now such as '90m', '4h' or '7d', or an ISO 8601 time with a zone such as '2026-12-24T18:00:00Z'";
/** A bundle item: the console's one schema of an entry (every kind, withdrawals too). */
const itemSchema = require_cli.object({ entry: entrySchema });
/** `--since`: a duration back from now (days too), or a time with its zone. */
function parseSince(raw, nowMs) {
	const days = /^(\d+)d$/.exec(raw.trim());
	if (days) return nowMs - Number(days[1]) * DAY_MS;
	const ms = require_cli.parseDuration(raw);
	if (ms !== void 0) return nowMs - ms;
	if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) return void 0;
	const at = Date.parse(raw);
	return Number.isFinite(at) ? at : void 0;
}
/** The rows of `entries` (any order of pages, in ledger order) for `resource` since `sinceMs`. */
function historyOf(entries, nowMs, sinceMs) {
	const rows = [];
	for (const [resource, holds] of holdsFrom(entries)) for (const hold of holds) {
		const end = hold.endMs ?? nowMs;
		if (end < sinceMs) continue;
		rows.push({
			atMs: hold.startMs,
			resource,
			kind: "hold",
			agent: hold.holder,
			fence: hold.fence,
			durationMs: Math.max(0, end - hold.startMs),
			what: require_words.holdEnded(hold)
		});
	}
	for (const e of entries) {
		if (e.tsMs < sinceMs) continue;
		if (e.kind === "freeze" || e.kind === "unfreeze") rows.push({
			atMs: e.tsMs,
			resource: e.resource,
			kind: e.kind,
			what: require_words.freezeWords(e)
		});
		else if (e.kind === "break_glass" || e.kind === "break_glass_withdrawn") rows.push({
			atMs: e.tsMs,
			resource: e.resource,
			kind: "break_glass",
			agent: e.actorDid,
			what: require_words.breakGlassWords(e)
		});
	}
	return rows.sort((a, b) => a.atMs - b.atMs);
}
/** One line of the text output; every plane text escaped for the terminal. */
function describeRow(row) {
	const parts = [require_words.utcStamp(row.atMs), row.resource];
	if (row.kind === "hold") parts.push(row.agent ?? "", `fence ${row.fence}`, `for ${require_words.duration(row.durationMs ?? 0)}`, row.what);
	else if (row.kind === "break_glass") parts.push(`${row.what} (let through ${row.agent})`);
	else parts.push(row.what);
	return require_cli.untrusted(parts.join("  "), 4e3);
}
async function history(args, io, env) {
	const { values } = require_cli.parse(args, require_cli.optionsOf(require_cli.HISTORY.flags));
	const nowMs = Date.now();
	const sinceMs = values.since === void 0 ? 0 : parseSince(values.since, nowMs);
	if (sinceMs === void 0) throw new require_cli.UsageError(`Invalid --since '${require_cli.untrusted(values.since ?? "", 60)}'. Expected ${SINCE_FORM}.`);
	const settings = require_cli.settingsFromFlags(values, env);
	const only = values.resource === void 0 ? void 0 : settings.resource;
	const key = settings.bearer ? await settings.bearer() : settings.key || void 0;
	const entries = [];
	await require_remote.eachLedgerPage(settings.apiUrl, key, (page) => {
		for (const raw of page) {
			const parsed = itemSchema.safeParse(raw);
			if (!parsed.success) continue;
			const e = parsed.data.entry;
			if (e.kind === "renew" || only !== void 0 && e.resource !== only) continue;
			entries.push(e);
		}
	});
	const rows = historyOf(entries, nowMs, sinceMs);
	if (values.json) io.out(JSON.stringify({
		nowMs,
		sinceMs,
		rows
	}));
	else if (rows.length === 0) io.out("Nothing in the ledger matches.");
	else for (const row of rows) io.out(describeRow(row));
	return require_cli.EXIT.done;
}
exports.describeRow = describeRow;
exports.history = history;
exports.historyOf = historyOf;
exports.parseSince = parseSince;

//# sourceMappingURL=history-command-DxRJyh10.js.map