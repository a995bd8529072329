const require_cli = require("./cli.js");
const require_session = require("./session-CtAguDwo.js");
const require_session$1 = require("./session-OsT2W7LK.js");
const require_time = require("./time-ww7Hd0C3.js");
const require_deploy_flags = require("./deploy-flags-BvakNXK6.js");
const require_processes = require("./processes-DeLsQMUX.js");
let node_util = require("node:util");
let node_child_process = require("node:child_process");
let node_fs = require("node:fs");
let node_crypto = require("node:crypto");
let node_path = require("node:path");
// src/cli/cgroup-fs.ts
/**
* Where `run`'s cgroup (containment.ts) lives in the cgroup v2 filesystem: run's own cgroup
* found through /proc, a new one made under it and tried, and those a killed run left.
*/
const CGROUP_PREFIX = "lease-gate-run-";
/** A process's cgroup v2 path ("0::/a/b" in /proc/<pid>/cgroup), as its namespace shows it. */
function cgroupPath(pid) {
	try {
		return /^0::(\/.*)$/m.exec((0, node_fs.readFileSync)(`/proc/${pid}/cgroup`, "utf8"))?.[1];
	} catch {
		return;
	}
}
/** Where run's own cgroup is: its directory in the cgroup2 mount and its path; undefined when none. */
function ownCgroup() {
	let mountinfo;
	try {
		mountinfo = (0, node_fs.readFileSync)("/proc/self/mountinfo", "utf8");
	} catch {
		return;
	}
	const own = cgroupPath("self");
	if (!own || own.split("/").includes("..")) return void 0;
	for (const line of mountinfo.split("\n")) {
		const [before, after] = line.split(" - ");
		if (!before || !after?.startsWith("cgroup2 ")) continue;
		const [, , , root, point] = before.split(" ").map(unescapeMount);
		if (!root || !point) continue;
		if (root === "/" || own === root || own.startsWith(`${root}/`)) return {
			dir: (0, node_path.join)(point, root === "/" ? own : own.slice(root.length)),
			path: own
		};
	}
}
/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMount(text) {
	return text.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)));
}
/** A new cgroup under run's own, or undefined (no cgroup2, not allowed, read-only). */
function makeCgroup() {
	const own = ownCgroup();
	if (!own) return void 0;
	const parent = own.dir;
	removeStale(parent);
	const name = `${CGROUP_PREFIX}${process.pid}-${(0, node_crypto.randomBytes)(4).toString("hex")}`;
	const dir = (0, node_path.join)(parent, name);
	try {
		(0, node_fs.mkdirSync)(dir);
	} catch {
		return;
	}
	try {
		(0, node_fs.writeFileSync)((0, node_path.join)(dir, "cgroup.procs"), String(process.pid));
	} catch {
		tryRmdir(dir);
		return;
	}
	try {
		(0, node_fs.writeFileSync)((0, node_path.join)(parent, "cgroup.procs"), String(process.pid));
	} catch {
		return;
	}
	return {
		dir,
		parent,
		path: (0, node_path.join)(own.path, name)
	};
}
const STALE = new RegExp(`^${CGROUP_PREFIX}(\\d+)-[0-9a-f]{8}$`);
/** Empty cgroups a killed `run` left behind (its pid gone); a busy one refuses rmdir. */
function removeStale(parent) {
	let names;
	try {
		names = (0, node_fs.readdirSync)(parent);
	} catch {
		return;
	}
	for (const name of names) {
		const pid = STALE.exec(name)?.[1];
		if (pid && !require_processes.isAlive(Number(pid))) tryRmdir((0, node_path.join)(parent, name));
	}
}
function tryRmdir(dir) {
	try {
		(0, node_fs.rmdirSync)(dir);
		return true;
	} catch {
		return false;
	}
}
const POLL_MS = 50;
/**
* The command's environment gets `LEASE_GATE_RUN_ID=<128-bit hex>`, one per run: the lease id
* (also given) names the lease, which a later run of the same holder may share.
*/
const RUN_ID_ENV = "LEASE_GATE_RUN_ID";
/**
* A cgroup when `cgroup` and Linux allow one (`LEASE_GATE_RUN_CGROUP=0` says no), else the
* tree; `trackEveryMs` is the tree's interval between looks (tests look only when they ask).
*/
function contain(options) {
	const cgroup = options.cgroup ? makeCgroup() : void 0;
	return cgroup ? new CgroupContainment(cgroup) : new TreeContainment(options.trackEveryMs ?? 250);
}
function kill(pid, signal) {
	try {
		process.kill(pid, signal);
	} catch {}
}
var Base = class {
	root;
	/** This run's mark, in the command's environment (see {@link RUN_ID_ENV}). */
	runId = (0, node_crypto.randomBytes)(16).toString("hex");
	spawn(file, args, options) {
		const env = {
			...options.env ?? process.env,
			[RUN_ID_ENV]: this.runId
		};
		const child = (0, node_child_process.spawn)(file, args, {
			...options,
			env,
			detached: true
		});
		this.root = child.pid;
		return child;
	}
	signalGroup(signal) {
		if (this.root !== void 0) kill(-this.root, signal);
	}
	groupAlive() {
		return this.root !== void 0 && require_processes.groupAlive(this.root);
	}
	async stop(graceMs, sleep) {
		this.signalAll("SIGTERM");
		for (let waited = 0; waited < graceMs && this.alive(); waited += POLL_MS) await sleep(POLL_MS);
		for (let waited = 0; waited <= 5e3 && this.alive(); waited += POLL_MS) {
			this.signalAll("SIGKILL");
			await sleep(POLL_MS);
		}
	}
};
var CgroupContainment = class extends Base {
	cgroup;
	kind = "cgroup";
	/** Whether run is (still) inside: then cgroup.kill would kill run too. */
	selfInside = false;
	constructor(cgroup) {
		super();
		this.cgroup = cgroup;
	}
	spawn(file, args, options) {
		const procs = (0, node_path.join)(this.cgroup.dir, "cgroup.procs");
		try {
			(0, node_fs.writeFileSync)(procs, String(process.pid));
			this.selfInside = true;
		} catch {}
		try {
			const child = super.spawn(file, args, options);
			if (child.pid !== void 0 && cgroupPath(child.pid) !== this.cgroup.path) try {
				(0, node_fs.writeFileSync)(procs, String(child.pid));
			} catch {}
			return child;
		} finally {
			try {
				(0, node_fs.writeFileSync)((0, node_path.join)(this.cgroup.parent, "cgroup.procs"), String(process.pid));
				this.selfInside = false;
			} catch {}
		}
	}
	members() {
		try {
			return (0, node_fs.readFileSync)((0, node_path.join)(this.cgroup.dir, "cgroup.procs"), "utf8").split("\n").filter((line) => /^\d+$/.test(line)).map(Number).filter((pid) => pid !== process.pid);
		} catch {
			return [];
		}
	}
	/**
	* The kernel's own word (cgroup.events): cgroup.procs drops a process once its last thread
	* starts to exit, but rmdir is refused (EBUSY) until every thread has left, a window that
	* widens on a loaded machine. While run itself is inside, the flag says nothing of the command.
	*/
	populated() {
		if (this.selfInside) return false;
		try {
			return /^populated 1$/m.test((0, node_fs.readFileSync)((0, node_path.join)(this.cgroup.dir, "cgroup.events"), "utf8"));
		} catch {
			return false;
		}
	}
	alive() {
		return this.members().length > 0 || this.groupAlive() || this.populated();
	}
	signalAll(signal) {
		if (signal === "SIGKILL" && !this.selfInside) try {
			(0, node_fs.writeFileSync)((0, node_path.join)(this.cgroup.dir, "cgroup.kill"), "1");
		} catch {}
		for (const pid of this.members()) kill(pid, signal);
		this.signalGroup(signal);
	}
	dispose() {
		if (this.selfInside) try {
			(0, node_fs.writeFileSync)((0, node_path.join)(this.cgroup.parent, "cgroup.procs"), String(process.pid));
			this.selfInside = false;
		} catch {
			return;
		}
		if ((0, node_fs.existsSync)(this.cgroup.dir)) tryRmdir(this.cgroup.dir);
	}
};
/** The command's descendants, followed in /proc by parent, by session and by the run's mark. */
var TreeContainment = class extends Base {
	trackEveryMs;
	kind;
	/** pid \u2192 start time of each process known to be the command's. */
	known = /* @__PURE__ */ new Map();
	/** The command's start time: nothing that started before can carry its mark. */
	rootStart;
	uid = process.getuid?.();
	/** Sessions the known processes were in at the last look. */
	sessions = /* @__PURE__ */ new Set();
	own = ownSession();
	tracker;
	constructor(trackEveryMs) {
		super();
		this.trackEveryMs = trackEveryMs;
		this.kind = require_processes.listProcesses() ? "tree" : "group";
	}
	spawn(file, args, options) {
		const child = super.spawn(file, args, options);
		if (this.kind === "tree" && child.pid !== void 0) {
			this.sessions.add(child.pid);
			this.look();
			this.tracker = setInterval(() => this.look(), this.trackEveryMs);
			this.tracker.unref();
		}
		return child;
	}
	/** The command's running processes now, adding what descends from the known ones. */
	look() {
		const list = require_processes.listProcesses() ?? [];
		const byPid = new Map(list.map((entry) => [entry.pid, entry]));
		const found = /* @__PURE__ */ new Map();
		for (const [pid, start] of this.known) {
			const entry = byPid.get(pid);
			if (entry && entry.startTicks === start && entry.state !== "Z") found.set(pid, entry);
		}
		const root = this.root;
		if (root !== void 0) this.rootStart ??= byPid.get(root)?.startTicks;
		const sessions = new Set(this.sessions);
		for (const entry of list) if (this.marked(entry, found)) {
			found.set(entry.pid, entry);
			sessions.add(entry.session);
		}
		for (let grew = true; grew;) {
			grew = false;
			for (const entry of list) {
				if (found.has(entry.pid) || entry.state === "Z" || !this.mayHold(entry)) continue;
				if (!(entry.pid === root || entry.pgrp === root || sessions.has(entry.session) || found.has(entry.ppid))) continue;
				found.set(entry.pid, entry);
				sessions.add(entry.session);
				grew = true;
			}
		}
		this.known = new Map([...found.values()].map((entry) => [entry.pid, entry.startTicks]));
		this.sessions = new Set([...found.values()].map((entry) => entry.session));
		if (root !== void 0) this.sessions.add(root);
		return [...found.values()];
	}
	/** A process of run's uid, not yet found, whose environment carries this run's mark. */
	marked(entry, found) {
		if (this.uid === void 0 || found.has(entry.pid) || entry.state === "Z") return false;
		if (!this.mayHold(entry)) return false;
		if (this.rootStart !== void 0 && entry.startTicks < this.rootStart) return false;
		return require_processes.hasEnvEntry(entry.pid, this.uid, RUN_ID_ENV, this.runId);
	}
	/** Never run itself, init, or anything of run's own session. */
	mayHold(entry) {
		return entry.pid !== process.pid && entry.pid !== 1 && entry.session !== this.own;
	}
	alive() {
		if (this.kind === "group") return this.groupAlive();
		return this.look().length > 0 || this.groupAlive();
	}
	signalAll(signal) {
		if (this.kind === "tree") {
			const stopped = /* @__PURE__ */ new Set();
			for (let fresh = this.look(); fresh.length > 0;) {
				for (const entry of fresh) kill(entry.pid, "SIGSTOP");
				fresh.forEach((entry) => stopped.add(entry.pid));
				fresh = this.look().filter((entry) => !stopped.has(entry.pid));
			}
			for (const pid of stopped) kill(pid, signal);
			if (signal !== "SIGKILL") for (const pid of stopped) kill(pid, "SIGCONT");
		}
		this.signalGroup(signal);
	}
	dispose() {
		clearInterval(this.tracker);
	}
};
/** run's own session, which the command never shares (it leads its own). */
function ownSession() {
	try {
		return require_processes.parseStat(process.pid, (0, node_fs.readFileSync)("/proc/self/stat", "utf8"))?.session;
	} catch {
		return;
	}
}
// src/cli/run-command.ts
const FORWARDED = [
	"SIGINT",
	"SIGTERM",
	"SIGHUP",
	"SIGQUIT",
	"SIGUSR1",
	"SIGUSR2"
];
/**
* `lease-gate run -- <command>`: hold the lease for exactly as long as the
* command runs, renewing it in-process, and exit with the command's code. The
* command runs in its own process group, and on Linux in a cgroup of its own
* (or, without one, its tree followed in /proc: containment.ts), which owns
* everything it starts: signals go to the group, a loss stops all of it
* (SIGTERM, then SIGKILL after the grace); on a kernel a revoke is heard at
* once through a watch, and the next holder is granted only after all of it is
* gone and the lease given back.
*/
async function runCommand(args, io, env) {
	const split = args.indexOf("--");
	const command = split < 0 ? [] : args.slice(split + 1);
	const { values } = require_cli.parse(split < 0 ? withoutCommand(args) : args.slice(0, split), RUN_OPTIONS);
	if (command.length === 0) throw new require_cli.UsageError(missingCommand(args));
	const onLost = values["on-lost"];
	if (onLost !== "terminate" && onLost !== "warn") throw new require_cli.UsageError(`Invalid --on-lost '${onLost}'. Expected 'terminate' or 'warn'.`);
	const cgroup = cgroupFromEnv(env);
	const settings = await require_cli.holderSettings(values, env);
	const session = require_session$1.cliSession({
		...settings,
		...require_deploy_flags.deployFor(values, settings, env)
	}, io, env);
	try {
		const { result: waited, stoppedBy } = await require_session$1.waitForLease(session, settings, io, { signals: FORWARDED });
		if (waited.outcome === "superseded") {
			io.err(`lease-gate: superseded by ${require_cli.untrusted(waited.by, 2048)}; the command did not run.`);
			return require_cli.EXIT.done;
		}
		if (waited.outcome !== "granted") {
			io.err(waited.outcome === "timeout" && settings.waitTimeoutMs === 0 ? `lease-gate: ${settings.resource} is ${require_session$1.describeWaitState(waited)}; ${require_session$1.ASKED_ONCE}. The command did not run.` : waited.outcome === "timeout" ? `lease-gate: timed out after ${require_cli.formatDuration(waited.waitedMs)}; ${settings.resource} is ${require_session$1.describeWaitState(waited)}. The command did not run.` : `lease-gate: stopped${stoppedBy ? ` by ${stoppedBy}` : ""} while waiting; the command did not run.`);
			return stoppedBy ? require_cli.signalExitCode(stoppedBy) : require_cli.EXIT.refused;
		}
		const { held } = waited;
		io.err(`lease-gate: holding ${settings.resource} (${require_session$1.describeLease(held.lease)}); running ${command.join(" ")}`);
		return await runHolding(command, held, {
			io,
			env,
			onLost,
			resource: settings.resource,
			cgroup
		});
	} finally {
		await session.close();
	}
}
const RUN_OPTIONS = require_cli.optionsOf(require_cli.RUN.flags);
/** `LEASE_GATE_RUN_CGROUP=0` keeps the command out of a cgroup (its tree is followed in /proc). */
function cgroupFromEnv(env) {
	const value = env.LEASE_GATE_RUN_CGROUP;
	if (value === void 0 || value === "" || value === "1") return true;
	if (value === "0") return false;
	throw new require_cli.UsageError(`Invalid LEASE_GATE_RUN_CGROUP '${require_cli.untrusted(value, 40)}'. Expected 0 (no cgroup) or 1 (a cgroup where Linux allows one, the default).`);
}
/** The flags before a command given without `--`, so the usage error can point at `--`. */
function withoutCommand(args) {
	const { tokens } = (0, node_util.parseArgs)({
		args,
		options: RUN_OPTIONS,
		strict: false,
		tokens: true
	});
	const first = tokens.find((t) => t.kind === "positional");
	return first ? args.slice(0, first.index) : args;
}
/** `run echo hi` means `run -- echo hi`: say so, with the user's own words. */
function missingCommand(args) {
	const flags = withoutCommand(args);
	const rest = args.slice(flags.length);
	if (rest.length === 0 || args.includes("--")) return "run needs a command after --, as in: lease-gate run -- ./deploy.sh";
	const shown = (words) => require_cli.untrusted(words.join(" "), 200);
	return `run takes its command after --: lease-gate run ${flags.length ? `${shown(flags)} ` : ""}-- ${shown(rest)}`;
}
async function runHolding(command, held, o) {
	const contained = contain({ cgroup: o.cgroup });
	try {
		return await runContained(command, held, contained, o);
	} finally {
		contained.dispose();
	}
}
async function runContained(command, held, contained, o) {
	const { lease } = held;
	const child = contained.spawn(command[0], command.slice(1), {
		stdio: "inherit",
		env: {
			...o.env,
			...lease.fence === void 0 ? {} : { LEASE_GATE_FENCE: String(lease.fence) },
			LEASE_GATE_LEASE_ID: lease.id
		}
	});
	const exited = new Promise((resolve) => {
		child.on("error", (error) => {
			o.io.err(`lease-gate: could not start ${command[0]}: ${error.message}`);
			resolve(127);
		});
		child.on("exit", (code, signal) => resolve(code ?? require_cli.signalExitCode(signal)));
	});
	const forward = (signal) => contained.signalGroup(signal);
	for (const signal of FORWARDED) process.on(signal, forward);
	let stopping;
	const stop = () => contained.stop(require_session.LIMITS.terminateGraceMs, require_time.realSleep);
	const stopKeeping = new AbortController();
	let lost;
	let noted = false;
	const keeping = held.keep({
		signal: stopKeeping.signal,
		onChange: (status) => {
			if (status.note && !noted) {
				noted = true;
				o.io.err(`lease-gate: ${status.note}`);
			}
			if (!status.lost || lost) return;
			lost = status.lost;
			o.io.err(`lease-gate: ${require_session$1.describeLoss(o.resource, lost)}${o.onLost === "terminate" ? " Stopping the command." : ""}`);
			if (o.onLost === "terminate") stopping ??= stop();
		}
	});
	const code = await exited;
	for (const signal of FORWARDED) process.off(signal, forward);
	await stopping;
	if (contained.alive()) await stop();
	stopKeeping.abort();
	await keeping;
	const outcome = await held.release();
	if (outcome.kind === "released") o.io.err(`lease-gate: released ${o.resource}.`);
	else if (outcome.kind === "failed") o.io.err(`lease-gate: could not release ${o.resource} (${outcome.message}); it lapses on its own.`);
	if (lost) return code === 0 ? require_cli.EXIT.refused : code;
	return code;
}
exports.runCommand = runCommand;

//# sourceMappingURL=run-command-CTrZY_-2.js.map