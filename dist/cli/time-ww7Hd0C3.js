let node_timers_promises = require("node:timers/promises");
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
// src/plane/time.ts
const systemClock = { now: () => performance.now() };
const realSleep = async (ms, signal) => {
	if (signal?.aborted) return;
	try {
		await (0, node_timers_promises.setTimeout)(Math.max(0, ms), void 0, signal ? { signal } : {});
	} catch {}
};
Object.defineProperty(exports, "DEFAULT_RETRY", {
	enumerable: true,
	get: function() {
		return DEFAULT_RETRY;
	}
});
Object.defineProperty(exports, "backoffMs", {
	enumerable: true,
	get: function() {
		return backoffMs;
	}
});
Object.defineProperty(exports, "nextRetryMs", {
	enumerable: true,
	get: function() {
		return nextRetryMs;
	}
});
Object.defineProperty(exports, "parseRetryAfter", {
	enumerable: true,
	get: function() {
		return parseRetryAfter;
	}
});
Object.defineProperty(exports, "realSleep", {
	enumerable: true,
	get: function() {
		return realSleep;
	}
});
Object.defineProperty(exports, "systemClock", {
	enumerable: true,
	get: function() {
		return systemClock;
	}
});

//# sourceMappingURL=time-ww7Hd0C3.js.map