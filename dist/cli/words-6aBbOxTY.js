// src/console/page/words.ts
/**
* The console's words for a queue and a history, pure (no DOM): the page draws them and
* `lease-gate status` / `lease-gate history` print them, so a terminal and the console
* say the same thing of the same ledger entry or waiter.
*/
/** "1 h 4 min", "12.3 s": a duration for people. */
function duration(ms) {
	if (!Number.isFinite(ms) || ms < 0) return "0 s";
	if (ms < 6e4) return `${(ms / 1e3).toFixed(ms < 1e4 ? 1 : 0)} s`;
	const minutes = Math.floor(ms / 6e4);
	const rest = (n, unit) => n ? ` ${n} ${unit}` : "";
	if (minutes < 60) return `${minutes} min${rest(Math.floor(ms % 6e4 / 1e3), "s")}`;
	return `${Math.floor(minutes / 60)} h${rest(minutes % 60, "min")}`;
}
/** "2026-12-03 14:05:09 UTC": the exact time. */
const utcStamp = (ms) => `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;
/** 1 \u2192 "1st", 2 \u2192 "2nd", 3 \u2192 "3rd", 11 \u2192 "11th". */
function ordinal(n) {
	const tens = n % 100;
	return `${n}${tens >= 11 && tens <= 13 ? "th" : [
		"th",
		"st",
		"nd",
		"rd"
	][n % 10] ?? "th"}`;
}
/** A waiter's place, 0 being next: "1st in line". */
const placeInLine = (position) => `${ordinal(position + 1)} in line`;
/** "waiting 3 min 2 s": how long a waiter has waited. */
const waitingFor = (ms) => `waiting ${duration(ms)}`;
/** The kernel's estimate of a waiter's wait: "about 6 min at recent hold times". */
function etaWords(etaMs) {
	return etaMs <= 0 ? "any moment now at recent hold times" : `about ${duration(etaMs)} at recent hold times`;
}
const ENDED = {
	release: "released",
	lapse: "lapsed (stopped renewing)",
	revoke: "revoked by an operator",
	open: "still held"
};
/** How a hold ended: "released", "revoked by operator:ana: incident 42". */
function holdEnded(hold) {
	return `${hold.end === "revoke" && hold.by ? `revoked by ${hold.by}` : ENDED[hold.end]}${hold.reason ? `: ${hold.reason}` : ""}`;
}
/** A freeze or an unfreeze: "frozen by operator:ana: release week", "unfrozen (window ended)". */
function freezeWords(e) {
	return `${e.kind === "freeze" ? `frozen by ${e.actorDid}` : e.reason === "unfrozen by an operator" ? `unfrozen by ${e.actorDid}` : `unfrozen (${e.reason ?? ""})`}${e.kind === "freeze" && e.reason ? `: ${e.reason}` : ""}`;
}
/** A break-glass: who let a job through once, who approved it, why. */
function breakGlassWords(e) {
	if (e.kind === "break_glass_withdrawn") return `break-glass withdrawn by ${e.by ?? "an operator"}: ${e.reason ?? ""}`;
	const approved = e.approvedBy ? `, approved by ${e.approvedBy}` : "";
	return `BREAK-GLASS by ${e.by ?? "an operator"}${approved}: ${e.reason ?? ""}`;
}
Object.defineProperty(exports, "breakGlassWords", {
	enumerable: true,
	get: function() {
		return breakGlassWords;
	}
});
Object.defineProperty(exports, "duration", {
	enumerable: true,
	get: function() {
		return duration;
	}
});
Object.defineProperty(exports, "etaWords", {
	enumerable: true,
	get: function() {
		return etaWords;
	}
});
Object.defineProperty(exports, "freezeWords", {
	enumerable: true,
	get: function() {
		return freezeWords;
	}
});
Object.defineProperty(exports, "holdEnded", {
	enumerable: true,
	get: function() {
		return holdEnded;
	}
});
Object.defineProperty(exports, "placeInLine", {
	enumerable: true,
	get: function() {
		return placeInLine;
	}
});
Object.defineProperty(exports, "utcStamp", {
	enumerable: true,
	get: function() {
		return utcStamp;
	}
});
Object.defineProperty(exports, "waitingFor", {
	enumerable: true,
	get: function() {
		return waitingFor;
	}
});

//# sourceMappingURL=words-6aBbOxTY.js.map