const require_cli = require("./cli.js");
// src/cli/deploy-flags.ts
const FLAG_OF = {
	repository: "repository",
	workflow: "workflow",
	ref: "ref",
	commit: "commit",
	runNumber: "run-number",
	runAttempt: "run-attempt",
	runUrl: "run-url"
};
const shown = (value) => require_cli.untrusted(value, 80);
/**
* The deploy a holding command sends: its flags', and on a job's own OIDC token (`ci`) the
* kernel's to complete from the token's claims (ci-auth.ts jobDeploy).
*/
function deployFor(values, settings, env) {
	const { deploy, queue } = deployFromFlags(values, settings.ci !== void 0);
	if (!settings.ci) return {
		...deploy ? { deploy } : {},
		...queue ? { queue } : {}
	};
	return {
		deploy: require_cli.jobDeploy(settings.ci, deploy, env),
		...queue ? { queue } : {}
	};
}
/**
* The flags \u2192 the lease request's extension fields; throws a UsageError naming the flag.
* `fromToken`: the kernel fills the lane (repository, workflow, ref, run) from the job's token.
*/
function deployFromFlags(values, fromToken = false) {
	const candidate = {};
	for (const [key, flag] of Object.entries(FLAG_OF)) {
		const raw = values[flag];
		if (raw === void 0) continue;
		const value = parseField(key, flag, raw);
		if (!require_cli.deploySchema.safeParse({ [key]: value }).success) throw new require_cli.UsageError(`Invalid --${flag} '${shown(raw)}'. Expected ${require_cli.DEPLOY_FORMS[key]}.`);
		candidate[key] = value;
	}
	const deploy = require_cli.cleanDeploy(require_cli.deploySchema.parse(candidate));
	const queue = values.queue;
	if (queue === void 0) return deploy ? { deploy } : {};
	if (!require_cli.QUEUE_MODES.includes(queue)) throw new require_cli.UsageError(`Invalid --queue '${shown(queue)}'. Expected 'fifo' or 'newest'.`);
	if (queue === "newest" && !fromToken) {
		const missing = [
			"repository",
			"workflow",
			"ref",
			"runNumber"
		].filter((key) => deploy?.[key] === void 0).map((key) => `--${FLAG_OF[key]}`);
		if (missing.length) throw new require_cli.UsageError(`--queue newest needs ${missing.join(", ")}: a run is superseded only by a newer run (a higher --run-number) of the same repository, workflow and ref.`);
	}
	return {
		...deploy ? { deploy } : {},
		queue
	};
}
function parseField(key, flag, raw) {
	if (key === "runNumber" || key === "runAttempt") {
		if (!/^\d{1,13}$/.test(raw)) throw new require_cli.UsageError(`Invalid --${flag} '${shown(raw)}'. Expected ${require_cli.DEPLOY_FORMS[key]}.`);
		return Number(raw);
	}
	return key === "commit" ? raw.toLowerCase() : raw;
}
/** "commit abc\u2026 of acme/shop on refs/heads/main, run 12 attempt 1: https://\u2026", escaped for a terminal. */
function describeDeploy(deploy) {
	const fields = new Map(require_cli.deployEntries(deploy));
	const parts = [];
	const commit = fields.get("commit");
	if (commit !== void 0) parts.push(`commit ${commit}`);
	const repository = fields.get("repository");
	if (repository !== void 0) parts.push(`${parts.length ? "of " : ""}${repository}`);
	const workflow = fields.get("workflow");
	if (workflow !== void 0) parts.push(`workflow ${require_cli.untrusted(String(workflow), 256)}`);
	const ref = fields.get("ref");
	if (ref !== void 0) parts.push(`on ${ref}`);
	const run = fields.get("runNumber");
	const attempt = fields.get("runAttempt");
	if (run !== void 0) parts.push(`run ${run}${attempt !== void 0 ? ` attempt ${attempt}` : ""}`);
	else if (attempt !== void 0) parts.push(`attempt ${attempt}`);
	const url = fields.get("runUrl");
	return `${require_cli.untrusted(parts.join(" "), 600)}${url !== void 0 ? `: ${require_cli.untrusted(String(url), 2048)}` : ""}`;
}
Object.defineProperty(exports, "deployFor", {
	enumerable: true,
	get: function() {
		return deployFor;
	}
});
Object.defineProperty(exports, "describeDeploy", {
	enumerable: true,
	get: function() {
		return describeDeploy;
	}
});

//# sourceMappingURL=deploy-flags-BvakNXK6.js.map