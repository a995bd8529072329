const require_cli = require("./cli.js");
// src/plane/run-pass.ts
/**
* A break-glass pass for a GitHub run (the hotfix path): the action's DID ends in a nonce
* drawn as the job starts, and a rerun asks under another attempt, so a pass opened before
* the job cannot name its DID. A pass may name the run instead, as the DID the action's
* DIDs for that run all begin with:
*   did:web:<host>:<owner>:<repo>:actions:runs:<run id>
* It covers every DID the action derives for that run (any attempt, job and nonce), and is
* still used up by one grant. Under OIDC the token vouches for the asking DID's run; with a
* shared key the DID is believed, as every DID is.
*/
const RUN_FORM = "OWNER/REPO/RUN_ID (or HOST/OWNER/REPO/RUN_ID), e.g. acme/shop/12345";
/** The run of a DID the action derives (`\u2026:runs:<id>:attempts:<n>:jobs:<job>:<nonce>`), read strictly. */
function runOf(did) {
	if (!did.startsWith("did:web:")) return void 0;
	const parts = did.slice(8).split(":");
	const [rawHost = "", owner = "", repo = "", actions, runs, runId = "", attempts, attempt = ""] = parts;
	const host = rawHost.replace(/%3A/gi, ":");
	const labelsOk = actions === "actions" && runs === "runs" && attempts === "attempts" && parts[8] === "jobs";
	if (parts.length !== 11 || !labelsOk || !/^\d{1,6}$/.test(attempt)) return void 0;
	if (!require_cli.HOST_PATTERN.test(host) || !require_cli.OWNER_PATTERN.test(owner) || !require_cli.REPO_PATTERN.test(repo) || !require_cli.RUN_ID_PATTERN.test(runId)) return void 0;
	return {
		host,
		owner,
		repo,
		runId
	};
}
/** The host as a DID segment: a port's colon percent-encoded, as did.ts's didSegment encodes it. */
const hostSegment = (host) => host.replace(":", "%3A");
/** The run's DID for `acme/shop/12345` or `ghe.example/acme/shop/12345`; undefined for any other text. */
function runPassDid(run) {
	const parts = run.split("/");
	const [host, owner, repo, runId] = parts.length === 3 ? ["github.com", ...parts] : parts;
	if (parts.length !== 3 && parts.length !== 4) return void 0;
	if (!host || !require_cli.HOST_PATTERN.test(host) || !owner || !require_cli.OWNER_PATTERN.test(owner)) return void 0;
	if (!repo || !require_cli.REPO_PATTERN.test(repo) || !runId || !require_cli.RUN_ID_PATTERN.test(runId)) return void 0;
	return `did:web:${[
		hostSegment(host),
		owner,
		repo,
		"actions",
		"runs",
		runId
	].join(":")}`;
}
/** `host:owner:repo:runId` (names without case) of a run pass's DID; undefined for any other DID. */
function runKeyOfPass(did) {
	if (!did.startsWith("did:web:")) return void 0;
	const parts = did.slice(8).split(":");
	const [host, owner, repo, actions, runs, runId = ""] = parts;
	if (parts.length !== 6 || actions !== "actions" || runs !== "runs" || !require_cli.RUN_ID_PATTERN.test(runId)) return void 0;
	return `${[
		host,
		owner,
		repo
	].join(":").toLowerCase()}:${runId}`;
}
/** Whether this pass DID names a run rather than one agent. */
const isRunPass = (did) => runKeyOfPass(did) !== void 0;
/**
* Whether a pass for `passDid` lets `actorDid` through: the same DID, or a DID the action
* derives for the run the pass names (read strictly, as did.ts's parseRunDid reads it).
*/
function passCovers(passDid, actorDid) {
	if (passDid === actorDid) return true;
	const key = runKeyOfPass(passDid);
	if (key === void 0) return false;
	const run = runOf(actorDid);
	if (!run) return false;
	return key === `${[
		hostSegment(run.host),
		run.owner,
		run.repo
	].join(":").toLowerCase()}:${run.runId}`;
}
/** The run an action's DID belongs to, as `--run` takes it; undefined for any other DID. */
function runOfDid(actorDid) {
	const run = runOf(actorDid);
	if (!run) return void 0;
	return `${run.host.toLowerCase() === "github.com" ? "" : `${run.host}/`}${run.owner}/${run.repo}/${run.runId}`;
}
/** A not_promoted refusal says what an operator may do for this run (the hotfix path). */
function unpromotedMessage(message, resource, actorDid) {
	const run = runOfDid(actorDid);
	if (run === void 0) return message;
	return `${message}. For a hotfix, an operator may let this run through once: lease-gate break-glass --run ${run} --resource ${resource} --reason TEXT, then re-run the job`;
}
Object.defineProperty(exports, "RUN_FORM", {
	enumerable: true,
	get: function() {
		return RUN_FORM;
	}
});
Object.defineProperty(exports, "isRunPass", {
	enumerable: true,
	get: function() {
		return isRunPass;
	}
});
Object.defineProperty(exports, "passCovers", {
	enumerable: true,
	get: function() {
		return passCovers;
	}
});
Object.defineProperty(exports, "runPassDid", {
	enumerable: true,
	get: function() {
		return runPassDid;
	}
});
Object.defineProperty(exports, "unpromotedMessage", {
	enumerable: true,
	get: function() {
		return unpromotedMessage;
	}
});

//# sourceMappingURL=run-pass-B7n0Po02.js.map