export const id = 612;
export const ids = [612];
export const modules = {

/***/ 1749:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   nB: () => (/* binding */ deployFor),
/* harmony export */   ze: () => (/* binding */ describeDeploy)
/* harmony export */ });
/* unused harmony export deployFromFlags */
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1223);
/* harmony import */ var _plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6115);
/* harmony import */ var _ci_auth_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(8943);
/* harmony import */ var _options_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(776);




const FLAG_OF = {
    repository: 'repository',
    workflow: 'workflow',
    ref: 'ref',
    commit: 'commit',
    runNumber: 'run-number',
    runAttempt: 'run-attempt',
    runUrl: 'run-url',
};
const shown = (value) => (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(value, 80);
/**
 * The deploy a holding command sends: its flags', and on a job's own OIDC token (`ci`) the
 * kernel's to complete from the token's claims (ci-auth.ts jobDeploy).
 */
function deployFor(values, settings, env) {
    const { deploy, queue } = deployFromFlags(values, settings.ci !== undefined);
    if (!settings.ci)
        return { ...(deploy ? { deploy } : {}), ...(queue ? { queue } : {}) };
    return { deploy: (0,_ci_auth_js__WEBPACK_IMPORTED_MODULE_2__/* .jobDeploy */ .pn)(settings.ci, deploy, env), ...(queue ? { queue } : {}) };
}
/**
 * The flags \u2192 the lease request's extension fields; throws a UsageError naming the flag.
 * `fromToken`: the kernel fills the lane (repository, workflow, ref, run) from the job's token.
 */
function deployFromFlags(values, fromToken = false) {
    const candidate = {};
    for (const [key, flag] of Object.entries(FLAG_OF)) {
        const raw = values[flag];
        if (raw === undefined)
            continue;
        const value = parseField(key, flag, raw);
        if (!_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .deploySchema */ .zR.safeParse({ [key]: value }).success) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`Invalid --${flag} '${shown(raw)}'. Expected ${_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .DEPLOY_FORMS */ .sq[key]}.`);
        }
        candidate[key] = value;
    }
    const deploy = (0,_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanDeploy */ .ZE)(_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .deploySchema */ .zR.parse(candidate));
    const queue = values.queue;
    if (queue === undefined)
        return deploy ? { deploy } : {};
    if (!_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .QUEUE_MODES */ .xZ.includes(queue)) {
        throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`Invalid --queue '${shown(queue)}'. Expected 'fifo' or 'newest'.`);
    }
    if (queue === 'newest' && !fromToken) {
        const missing = ['repository', 'workflow', 'ref', 'runNumber']
            .filter((key) => deploy?.[key] === undefined)
            .map((key) => `--${FLAG_OF[key]}`);
        if (missing.length) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`--queue newest needs ${missing.join(', ')}: a run is superseded only by a newer run (a higher --run-number) of the same repository, workflow and ref.`);
        }
    }
    return { ...(deploy ? { deploy } : {}), queue: queue };
}
function parseField(key, flag, raw) {
    if (key === 'runNumber' || key === 'runAttempt') {
        if (!/^\d{1,13}$/.test(raw)) {
            throw new _options_js__WEBPACK_IMPORTED_MODULE_3__/* .UsageError */ .eb(`Invalid --${flag} '${shown(raw)}'. Expected ${_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .DEPLOY_FORMS */ .sq[key]}.`);
        }
        return Number(raw);
    }
    // Git prints commits in lowercase; one pasted from elsewhere may not be.
    return key === 'commit' ? raw.toLowerCase() : raw;
}
/** "commit abc\u2026 of acme/shop on refs/heads/main, run 12 attempt 1: https://\u2026", escaped for a terminal. */
function describeDeploy(deploy) {
    const fields = new Map((0,_plane_deploy_js__WEBPACK_IMPORTED_MODULE_1__/* .deployEntries */ ._j)(deploy));
    const parts = [];
    const commit = fields.get('commit');
    if (commit !== undefined)
        parts.push(`commit ${commit}`);
    const repository = fields.get('repository');
    if (repository !== undefined)
        parts.push(`${parts.length ? 'of ' : ''}${repository}`);
    const workflow = fields.get('workflow');
    if (workflow !== undefined)
        parts.push(`workflow ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(String(workflow), 256)}`);
    const ref = fields.get('ref');
    if (ref !== undefined)
        parts.push(`on ${ref}`);
    const run = fields.get('runNumber');
    const attempt = fields.get('runAttempt');
    if (run !== undefined)
        parts.push(`run ${run}${attempt !== undefined ? ` attempt ${attempt}` : ''}`);
    else if (attempt !== undefined)
        parts.push(`attempt ${attempt}`);
    const url = fields.get('runUrl');
    return `${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(parts.join(' '), 600)}${url !== undefined ? `: ${(0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_0__/* .untrusted */ .bp)(String(url), 2048)}` : ''}`;
}


/***/ }),

/***/ 612:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  runCommand: () => (/* binding */ runCommand)
});

// EXTERNAL MODULE: external "node:util"
var external_node_util_ = __webpack_require__(7975);
// EXTERNAL MODULE: ./src/lease/escape.ts
var lease_escape = __webpack_require__(1223);
// EXTERNAL MODULE: ./src/gate/duration.ts
var duration = __webpack_require__(9731);
// EXTERNAL MODULE: ./src/lease/session.ts + 2 modules
var session = __webpack_require__(6267);
// EXTERNAL MODULE: ./src/lease/texts.ts
var texts = __webpack_require__(1782);
// EXTERNAL MODULE: ./src/plane/time.ts
var time = __webpack_require__(7513);
// EXTERNAL MODULE: ./src/cli/options.ts
var options = __webpack_require__(776);
// EXTERNAL MODULE: ./src/cli/session.ts
var cli_session = __webpack_require__(2594);
// EXTERNAL MODULE: ./src/cli/deploy-flags.ts
var deploy_flags = __webpack_require__(1749);
// EXTERNAL MODULE: ./src/cli/flags/plane.ts
var plane = __webpack_require__(4100);
// EXTERNAL MODULE: ./src/cli/flags/table.ts
var table = __webpack_require__(9406);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(1421);
// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: ./src/fs/processes.ts
var processes = __webpack_require__(5810);
;// CONCATENATED MODULE: ./src/cli/cgroup-fs.ts




/**
 * Where `run`'s cgroup (containment.ts) lives in the cgroup v2 filesystem: run's own cgroup
 * found through /proc, a new one made under it and tried, and those a killed run left.
 */
const CGROUP_PREFIX = 'lease-gate-run-';
/** A process's cgroup v2 path ("0::/a/b" in /proc/<pid>/cgroup), as its namespace shows it. */
function cgroupPath(pid) {
    try {
        return /^0::(\/.*)$/m.exec((0,external_node_fs_.readFileSync)(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
    }
    catch {
        return undefined;
    }
}
/** Where run's own cgroup is: its directory in the cgroup2 mount and its path; undefined when none. */
function ownCgroup() {
    let mountinfo;
    try {
        mountinfo = (0,external_node_fs_.readFileSync)('/proc/self/mountinfo', 'utf8');
    }
    catch {
        return undefined;
    }
    const own = cgroupPath('self');
    // Outside run's cgroup namespace ("/../..") there is nothing of ours to write to.
    if (!own || own.split('/').includes('..'))
        return undefined;
    for (const line of mountinfo.split('\n')) {
        // "id parent major:minor root mountpoint opts [optional\u2026] - fstype source superopts"
        const [before, after] = line.split(' - ');
        if (!before || !after?.startsWith('cgroup2 '))
            continue;
        const [, , , root, point] = before.split(' ').map(unescapeMount);
        if (!root || !point)
            continue;
        if (root === '/' || own === root || own.startsWith(`${root}/`)) {
            return { dir: (0,external_node_path_.join)(point, root === '/' ? own : own.slice(root.length)), path: own };
        }
    }
    return undefined;
}
/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMount(text) {
    return text.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)));
}
/** A new cgroup under run's own, or undefined (no cgroup2, not allowed, read-only). */
function makeCgroup() {
    const own = ownCgroup();
    if (!own)
        return undefined;
    const parent = own.dir;
    removeStale(parent);
    const name = `${CGROUP_PREFIX}${process.pid}-${(0,external_node_crypto_.randomBytes)(4).toString('hex')}`;
    const dir = (0,external_node_path_.join)(parent, name);
    try {
        (0,external_node_fs_.mkdirSync)(dir);
    }
    catch {
        return undefined;
    }
    // Moving a process in needs write access to the common ancestor's cgroup.procs: try it now,
    // with no command yet, by moving run itself in and back.
    try {
        (0,external_node_fs_.writeFileSync)((0,external_node_path_.join)(dir, 'cgroup.procs'), String(process.pid));
    }
    catch {
        tryRmdir(dir);
        return undefined;
    }
    try {
        (0,external_node_fs_.writeFileSync)((0,external_node_path_.join)(parent, 'cgroup.procs'), String(process.pid));
    }
    catch {
        // Could not go back, so the cgroup holds run itself: not usable (cgroup.kill would kill run).
        return undefined;
    }
    return { dir, parent, path: (0,external_node_path_.join)(own.path, name) };
}
const STALE = new RegExp(`^${CGROUP_PREFIX}(\\d+)-[0-9a-f]{8}$`);
/** Empty cgroups a killed `run` left behind (its pid gone); a busy one refuses rmdir. */
function removeStale(parent) {
    let names;
    try {
        names = (0,external_node_fs_.readdirSync)(parent);
    }
    catch {
        return;
    }
    for (const name of names) {
        const pid = STALE.exec(name)?.[1];
        if (pid && !(0,processes/* isAlive */._n)(Number(pid)))
            tryRmdir((0,external_node_path_.join)(parent, name));
    }
}
function tryRmdir(dir) {
    try {
        (0,external_node_fs_.rmdirSync)(dir);
        return true;
    }
    catch {
        return false;
    }
}

;// CONCATENATED MODULE: ./src/cli/containment.ts






/** How often the `tree` containment looks for new descendants in /proc (about 2 ms a look for 100 processes). */
const TRACK_EVERY_MS = 250;
/** After SIGKILL, how long a stop waits for the processes to be gone. */
const KILL_WAIT_MS = 5_000;
const POLL_MS = 50;
/**
 * The command's environment gets `LEASE_GATE_RUN_ID=<128-bit hex>`, one per run: the lease id
 * (also given) names the lease, which a later run of the same holder may share.
 */
const RUN_ID_ENV = 'LEASE_GATE_RUN_ID';
/**
 * A cgroup when `cgroup` and Linux allow one (`LEASE_GATE_RUN_CGROUP=0` says no), else the
 * tree; `trackEveryMs` is the tree's interval between looks (tests look only when they ask).
 */
function contain(options) {
    const cgroup = options.cgroup ? makeCgroup() : undefined;
    return cgroup
        ? new CgroupContainment(cgroup)
        : new TreeContainment(options.trackEveryMs ?? TRACK_EVERY_MS);
}
function kill(pid, signal) {
    try {
        process.kill(pid, signal);
    }
    catch {
        // gone, or not ours
    }
}
class Base {
    root;
    /** This run's mark, in the command's environment (see {@link RUN_ID_ENV}). */
    runId = (0,external_node_crypto_.randomBytes)(16).toString('hex');
    spawn(file, args, options) {
        const env = { ...(options.env ?? process.env), [RUN_ID_ENV]: this.runId };
        const child = (0,external_node_child_process_.spawn)(file, args, { ...options, env, detached: true });
        this.root = child.pid;
        return child;
    }
    signalGroup(signal) {
        if (this.root !== undefined)
            kill(-this.root, signal);
    }
    groupAlive() {
        return this.root !== undefined && (0,processes/* groupAlive */.xq)(this.root);
    }
    async stop(graceMs, sleep) {
        this.signalAll('SIGTERM');
        for (let waited = 0; waited < graceMs && this.alive(); waited += POLL_MS)
            await sleep(POLL_MS);
        for (let waited = 0; waited <= KILL_WAIT_MS && this.alive(); waited += POLL_MS) {
            this.signalAll('SIGKILL');
            await sleep(POLL_MS);
        }
    }
}
class CgroupContainment extends Base {
    cgroup;
    kind = 'cgroup';
    /** Whether run is (still) inside: then cgroup.kill would kill run too. */
    selfInside = false;
    constructor(cgroup) {
        super();
        this.cgroup = cgroup;
    }
    spawn(file, args, options) {
        // The child is forked from run while run is in the cgroup, so it is inside before it runs a
        // single instruction of the command: no fork of it can happen outside.
        const procs = (0,external_node_path_.join)(this.cgroup.dir, 'cgroup.procs');
        try {
            (0,external_node_fs_.writeFileSync)(procs, String(process.pid));
            this.selfInside = true;
        }
        catch {
            // the child is moved right after the spawn instead
        }
        try {
            const child = super.spawn(file, args, options);
            // Another thread of run's process may have moved it meanwhile (tests run several in one).
            if (child.pid !== undefined && cgroupPath(child.pid) !== this.cgroup.path) {
                try {
                    (0,external_node_fs_.writeFileSync)(procs, String(child.pid));
                }
                catch {
                    // it exited already
                }
            }
            return child;
        }
        finally {
            try {
                (0,external_node_fs_.writeFileSync)((0,external_node_path_.join)(this.cgroup.parent, 'cgroup.procs'), String(process.pid));
                this.selfInside = false;
            }
            catch {
                // stays inside: signalAll skips run's own pid, and dispose tries again
            }
        }
    }
    members() {
        try {
            return (0,external_node_fs_.readFileSync)((0,external_node_path_.join)(this.cgroup.dir, 'cgroup.procs'), 'utf8')
                .split('\n')
                .filter((line) => /^\d+$/.test(line))
                .map(Number)
                .filter((pid) => pid !== process.pid);
        }
        catch {
            return [];
        }
    }
    /**
     * The kernel's own word (cgroup.events): cgroup.procs drops a process once its last thread
     * starts to exit, but rmdir is refused (EBUSY) until every thread has left, a window that
     * widens on a loaded machine. While run itself is inside, the flag says nothing of the command.
     */
    populated() {
        if (this.selfInside)
            return false;
        try {
            return /^populated 1$/m.test((0,external_node_fs_.readFileSync)((0,external_node_path_.join)(this.cgroup.dir, 'cgroup.events'), 'utf8'));
        }
        catch {
            return false;
        }
    }
    alive() {
        // cgroup.procs lists no zombies; the group is asked too, for a member that moved out.
        return this.members().length > 0 || this.groupAlive() || this.populated();
    }
    signalAll(signal) {
        if (signal === 'SIGKILL' && !this.selfInside) {
            try {
                // Atomic: the kernel kills every process in it, and any it forks meanwhile.
                (0,external_node_fs_.writeFileSync)((0,external_node_path_.join)(this.cgroup.dir, 'cgroup.kill'), '1');
            }
            catch {
                // Linux < 5.14: one by one below, again on each poll until none is left
            }
        }
        for (const pid of this.members())
            kill(pid, signal);
        this.signalGroup(signal);
    }
    dispose() {
        if (this.selfInside) {
            try {
                (0,external_node_fs_.writeFileSync)((0,external_node_path_.join)(this.cgroup.parent, 'cgroup.procs'), String(process.pid));
                this.selfInside = false;
            }
            catch {
                return;
            }
        }
        // Busy only if something survived the stop; a later run's removeStale takes it then.
        if ((0,external_node_fs_.existsSync)(this.cgroup.dir))
            tryRmdir(this.cgroup.dir);
    }
}
/** The command's descendants, followed in /proc by parent, by session and by the run's mark. */
class TreeContainment extends Base {
    trackEveryMs;
    kind;
    /** pid \u2192 start time of each process known to be the command's. */
    known = new Map();
    /** The command's start time: nothing that started before can carry its mark. */
    rootStart;
    uid = process.getuid?.();
    /** Sessions the known processes were in at the last look. */
    sessions = new Set();
    own = ownSession();
    tracker;
    constructor(trackEveryMs) {
        super();
        this.trackEveryMs = trackEveryMs;
        this.kind = (0,processes/* listProcesses */.O3)() ? 'tree' : 'group';
    }
    spawn(file, args, options) {
        const child = super.spawn(file, args, options);
        if (this.kind === 'tree' && child.pid !== undefined) {
            this.sessions.add(child.pid); // detached: the child leads a session of its own
            this.look();
            this.tracker = setInterval(() => this.look(), this.trackEveryMs);
            this.tracker.unref();
        }
        return child;
    }
    /** The command's running processes now, adding what descends from the known ones. */
    look() {
        const list = (0,processes/* listProcesses */.O3)() ?? [];
        const byPid = new Map(list.map((entry) => [entry.pid, entry]));
        const found = new Map();
        for (const [pid, start] of this.known) {
            const entry = byPid.get(pid);
            if (entry && entry.startTicks === start && entry.state !== 'Z')
                found.set(pid, entry);
        }
        const root = this.root;
        if (root !== undefined)
            this.rootStart ??= byPid.get(root)?.startTicks;
        const sessions = new Set(this.sessions);
        for (const entry of list) {
            if (this.marked(entry, found)) {
                found.set(entry.pid, entry);
                sessions.add(entry.session);
            }
        }
        for (let grew = true; grew;) {
            grew = false;
            for (const entry of list) {
                if (found.has(entry.pid) || entry.state === 'Z' || !this.mayHold(entry))
                    continue;
                const ours = entry.pid === root ||
                    entry.pgrp === root ||
                    sessions.has(entry.session) ||
                    found.has(entry.ppid);
                if (!ours)
                    continue;
                found.set(entry.pid, entry);
                sessions.add(entry.session);
                grew = true;
            }
        }
        this.known = new Map([...found.values()].map((entry) => [entry.pid, entry.startTicks]));
        // A session is followed while it had a known member at the last look: a setsid() child
        // that exits leaves its own children (parent now init) in its session.
        this.sessions = new Set([...found.values()].map((entry) => entry.session));
        if (root !== undefined)
            this.sessions.add(root);
        return [...found.values()];
    }
    /** A process of run's uid, not yet found, whose environment carries this run's mark. */
    marked(entry, found) {
        if (this.uid === undefined || found.has(entry.pid) || entry.state === 'Z')
            return false;
        if (!this.mayHold(entry))
            return false;
        if (this.rootStart !== undefined && entry.startTicks < this.rootStart)
            return false;
        return (0,processes/* hasEnvEntry */.Yu)(entry.pid, this.uid, RUN_ID_ENV, this.runId);
    }
    /** Never run itself, init, or anything of run's own session. */
    mayHold(entry) {
        return entry.pid !== process.pid && entry.pid !== 1 && entry.session !== this.own;
    }
    alive() {
        if (this.kind === 'group')
            return this.groupAlive();
        return this.look().length > 0 || this.groupAlive();
    }
    signalAll(signal) {
        if (this.kind === 'tree') {
            // Stopped processes cannot fork: stop them until a look finds no new one, then signal.
            const stopped = new Set();
            for (let fresh = this.look(); fresh.length > 0;) {
                for (const entry of fresh)
                    kill(entry.pid, 'SIGSTOP');
                fresh.forEach((entry) => stopped.add(entry.pid));
                fresh = this.look().filter((entry) => !stopped.has(entry.pid));
            }
            for (const pid of stopped)
                kill(pid, signal);
            if (signal !== 'SIGKILL')
                for (const pid of stopped)
                    kill(pid, 'SIGCONT');
        }
        this.signalGroup(signal);
    }
    dispose() {
        clearInterval(this.tracker);
    }
}
/** run's own session, which the command never shares (it leads its own). */
function ownSession() {
    try {
        return (0,processes/* parseStat */.ky)(process.pid, (0,external_node_fs_.readFileSync)('/proc/self/stat', 'utf8'))?.session;
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/cli/run-command.ts












const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
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
    const split = args.indexOf('--');
    const command = split < 0 ? [] : args.slice(split + 1);
    const { values } = (0,options/* parse */.qg)(split < 0 ? withoutCommand(args) : args.slice(0, split), RUN_OPTIONS);
    if (command.length === 0)
        throw new options/* UsageError */.eb(missingCommand(args));
    const onLost = values['on-lost'];
    if (onLost !== 'terminate' && onLost !== 'warn') {
        throw new options/* UsageError */.eb(`Invalid --on-lost '${onLost}'. Expected 'terminate' or 'warn'.`);
    }
    const cgroup = cgroupFromEnv(env);
    const settings = await (0,options/* holderSettings */.qP)(values, env);
    const session = (0,cli_session/* cliSession */.ri)({ ...settings, ...(0,deploy_flags/* deployFor */.nB)(values, settings, env) }, io, env);
    try {
        const { result: waited, stoppedBy } = await (0,cli_session/* waitForLease */.tH)(session, settings, io, {
            signals: FORWARDED,
        });
        if (waited.outcome === 'superseded') {
            // As the action: a newer run of the lane deploys instead; nothing ran, nothing failed.
            io.err(`lease-gate: superseded by ${(0,lease_escape/* untrusted */.bp)(waited.by, 2048)}; the command did not run.`);
            return options/* EXIT */.dc.done;
        }
        if (waited.outcome !== 'granted') {
            io.err(waited.outcome === 'timeout' && settings.waitTimeoutMs === 0
                ? `lease-gate: ${settings.resource} is ${(0,texts/* describeWaitState */.wS)(waited)}; ${texts/* ASKED_ONCE */.rX}. The command did not run.`
                : waited.outcome === 'timeout'
                    ? `lease-gate: timed out after ${(0,duration/* formatDuration */.a3)(waited.waitedMs)}; ${settings.resource} is ${(0,texts/* describeWaitState */.wS)(waited)}. The command did not run.`
                    : `lease-gate: stopped${stoppedBy ? ` by ${stoppedBy}` : ''} while waiting; the command did not run.`);
            // 128+N for signal N, as --help promises.
            return stoppedBy ? (0,options/* signalExitCode */.cf)(stoppedBy) : options/* EXIT */.dc.refused;
        }
        const { held } = waited;
        io.err(`lease-gate: holding ${settings.resource} (${(0,texts/* describeLease */.un)(held.lease)}); running ${command.join(' ')}`);
        return await runHolding(command, held, {
            io,
            env,
            onLost,
            resource: settings.resource,
            cgroup,
        });
    }
    finally {
        await session.close();
    }
}
const RUN_OPTIONS = (0,table/* optionsOf */.cz)(plane/* RUN */.oq.flags);
/** `LEASE_GATE_RUN_CGROUP=0` keeps the command out of a cgroup (its tree is followed in /proc). */
function cgroupFromEnv(env) {
    const value = env.LEASE_GATE_RUN_CGROUP;
    if (value === undefined || value === '' || value === '1')
        return true;
    if (value === '0')
        return false;
    throw new options/* UsageError */.eb(`Invalid LEASE_GATE_RUN_CGROUP '${(0,lease_escape/* untrusted */.bp)(value, 40)}'. Expected 0 (no cgroup) or 1 (a cgroup where Linux allows one, the default).`);
}
/** The flags before a command given without `--`, so the usage error can point at `--`. */
function withoutCommand(args) {
    const { tokens } = (0,external_node_util_.parseArgs)({ args, options: RUN_OPTIONS, strict: false, tokens: true });
    const first = tokens.find((t) => t.kind === 'positional');
    return first ? args.slice(0, first.index) : args;
}
/** `run echo hi` means `run -- echo hi`: say so, with the user's own words. */
function missingCommand(args) {
    const flags = withoutCommand(args);
    const rest = args.slice(flags.length);
    if (rest.length === 0 || args.includes('--'))
        return 'run needs a command after --, as in: lease-gate run -- ./deploy.sh';
    const shown = (words) => (0,lease_escape/* untrusted */.bp)(words.join(' '), 200);
    return `run takes its command after --: lease-gate run ${flags.length ? `${shown(flags)} ` : ''}-- ${shown(rest)}`;
}
async function runHolding(command, held, o) {
    const contained = contain({ cgroup: o.cgroup });
    try {
        return await runContained(command, held, contained, o);
    }
    finally {
        contained.dispose();
    }
}
async function runContained(command, held, contained, o) {
    const { lease } = held;
    const child = contained.spawn(command[0], command.slice(1), {
        stdio: 'inherit',
        env: {
            ...o.env,
            ...(lease.fence === undefined ? {} : { LEASE_GATE_FENCE: String(lease.fence) }),
            LEASE_GATE_LEASE_ID: lease.id,
        },
    });
    const exited = new Promise((resolve) => {
        child.on('error', (error) => {
            o.io.err(`lease-gate: could not start ${command[0]}: ${error.message}`);
            resolve(127);
        });
        child.on('exit', (code, signal) => resolve(code ?? (0,options/* signalExitCode */.cf)(signal)));
    });
    const forward = (signal) => contained.signalGroup(signal);
    for (const signal of FORWARDED)
        process.on(signal, forward);
    let stopping;
    const stop = () => contained.stop(session/* LIMITS */.b.terminateGraceMs, time/* realSleep */.u);
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
            if (!status.lost || lost)
                return;
            lost = status.lost;
            o.io.err(`lease-gate: ${(0,texts/* describeLoss */.$4)(o.resource, lost)}${o.onLost === 'terminate' ? ' Stopping the command.' : ''}`);
            if (o.onLost === 'terminate')
                stopping ??= stop();
        },
    });
    const code = await exited;
    for (const signal of FORWARDED)
        process.off(signal, forward);
    // Whatever the command left running (a setsid() child too) goes before the lease does.
    await stopping;
    if (contained.alive())
        await stop();
    stopKeeping.abort();
    await keeping;
    const outcome = await held.release();
    if (outcome.kind === 'released')
        o.io.err(`lease-gate: released ${o.resource}.`);
    else if (outcome.kind === 'failed')
        o.io.err(`lease-gate: could not release ${o.resource} (${outcome.message}); it lapses on its own.`);
    if (lost)
        return code === 0 ? options/* EXIT */.dc.refused : code;
    return code;
}


/***/ }),

/***/ 2594:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   fQ: () => (/* binding */ withSession),
/* harmony export */   ri: () => (/* binding */ cliSession),
/* harmony export */   tH: () => (/* binding */ waitForLease)
/* harmony export */ });
/* unused harmony exports STILL_FAILING_EVERY_MS, retryLines, ASK_ONCE_RETRY_MS, retryWindowMs */
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _lease_escape_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1223);
/* harmony import */ var _lease_session_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6267);
/* harmony import */ var _lease_texts_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1782);
/* harmony import */ var _plane_url_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8252);





/** After the first line, a plane still failing is said at most this often. */
const STILL_FAILING_EVERY_MS = 60_000;
/**
 * The CLI's lease session. An unreachable plane is said at once, once: which URL,
 * where it came from and whether a kernel runs there; then retried quietly, with
 * at most a line a minute, never silent for long.
 */
function cliSession(settings, io, env) {
    return (0,_lease_session_js__WEBPACK_IMPORTED_MODULE_2__/* .openSession */ .f)({
        ...settings,
        env,
        onRetry: retryLines(settings.apiUrl, settings.apiUrlFrom, io.err, Date.now),
    });
}
/** A command's one session, closed when `use` settles, whatever it does. */
async function withSession(settings, io, env, use) {
    const session = cliSession(settings, io, env);
    try {
        return await use(session);
    }
    finally {
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
    for (const signal of options.signals)
        process.once(signal, stop);
    const notices = (0,_lease_texts_js__WEBPACK_IMPORTED_MODULE_3__/* .waitNotices */ .lY)(settings.resource);
    try {
        const result = await session.acquire({
            timeoutMs: settings.waitTimeoutMs,
            signal: cancel.signal,
            retryWindowMs: retryWindowMs(settings.waitTimeoutMs),
            onHeld: (event) => {
                const line = notices(event);
                if (line && !options.quiet)
                    io.err(`lease-gate: ${line}`);
            },
        });
        return { result, stoppedBy };
    }
    finally {
        for (const signal of options.signals)
            process.off(signal, stop);
    }
}
/** The lines of a retried plane: the first failure in full, then one a minute. */
function retryLines(apiUrl, from, say, now, everyMs = STILL_FAILING_EVERY_MS) {
    let lastLineAt;
    return (event) => {
        const at = now();
        const left = (0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(event.retryForMs);
        if (lastLineAt === undefined) {
            lastLineAt = at;
            say(`lease-gate: ${describeFirstFailure(apiUrl, from, event)} Retrying quietly for up to ${left}.`);
            return;
        }
        if (at - lastLineAt < everyMs)
            return;
        lastLineAt = at;
        const what = event.status === undefined ? 'cannot reach' : 'still no answer from';
        say(`lease-gate: ${what} the plane at ${apiUrl} after ${event.attempt} attempts; retrying for ${left} more.`);
    };
}
function describeFirstFailure(apiUrl, from, event) {
    // The call's own name ([GET] "url": \u2026) is dropped: the URL is said once, with its source.
    const cause = (0,_lease_escape_js__WEBPACK_IMPORTED_MODULE_1__/* .untrusted */ .bp)(event.error.replace(/^\[[A-Z]+\] "[^"]*": /, ''), 200);
    const source = from ? ` (${from})` : '';
    // The hosted plane asked only because nothing named another: say how to name one.
    const hosted = from === _plane_url_js__WEBPACK_IMPORTED_MODULE_4__/* .HOSTED_SOURCE */ .G7 ? ` ${_plane_url_js__WEBPACK_IMPORTED_MODULE_4__/* .HOSTED_HINT */ .AY}` : '';
    return event.status === undefined
        ? `cannot reach the plane at ${apiUrl}${source}: ${cause}.${hosted || " Is the kernel running there ('lease-gate kernel'), and is that the right URL?"}`
        : `the plane at ${apiUrl}${source} answered ${cause}.${hosted}`;
}
/** With --wait-timeout 0 the CLI asks once and retries an unreachable plane this long at most. */
const ASK_ONCE_RETRY_MS = 10_000;
/** How long a waiting command retries an unreachable plane: within --wait-timeout. */
function retryWindowMs(waitTimeoutMs) {
    return waitTimeoutMs === 0 ? ASK_ONCE_RETRY_MS : waitTimeoutMs;
}


/***/ }),

/***/ 5810:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   O3: () => (/* binding */ listProcesses),
/* harmony export */   Yu: () => (/* binding */ hasEnvEntry),
/* harmony export */   _n: () => (/* binding */ isAlive),
/* harmony export */   ky: () => (/* binding */ parseStat),
/* harmony export */   xq: () => (/* binding */ groupAlive)
/* harmony export */ });
/* unused harmony export ENVIRON_READ_LIMIT */
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
function isAlive(pid) {
    try {
        process.kill(pid, 0);
    }
    catch (error) {
        return error.code === 'EPERM';
    }
    try {
        return !/^\d+ \(.*\) Z/.test((0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(`/proc/${pid}/stat`, 'utf8'));
    }
    catch {
        return true;
    }
}
/**
 * True while any process of the group runs; zombies count as gone (an
 * orphan's zombie waits for an init that may reap it seconds later, and it
 * runs no code). Where /proc cannot be read, any member counts.
 */
function groupAlive(group) {
    try {
        process.kill(-group, 0);
    }
    catch (error) {
        return error.code === 'EPERM';
    }
    const list = listProcesses();
    if (!list)
        return true;
    return list.some((entry) => entry.pgrp === group && entry.state !== 'Z');
}
/** Parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session \u2026 starttime(22) \u2026". */
function parseStat(pid, stat) {
    // comm may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, ppid, pgrp, session] = [fields[0], ...fields.slice(1, 4).map(Number)];
    const startTicks = Number(fields[19]);
    if (!state || ![ppid, pgrp, session, startTicks].every(Number.isSafeInteger))
        return undefined;
    return { pid, state, ppid: ppid, pgrp: pgrp, session: session, startTicks };
}
/** Every process /proc shows now, or undefined where there is no /proc (macOS). */
function listProcesses() {
    let names;
    try {
        names = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readdirSync)('/proc').filter((name) => /^\d+$/.test(name));
    }
    catch {
        return undefined;
    }
    const list = [];
    for (const name of names) {
        let stat;
        try {
            stat = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync)(`/proc/${name}/stat`, 'utf8');
        }
        catch {
            continue; // gone meanwhile
        }
        const entry = parseStat(Number(name), stat);
        if (entry)
            list.push(entry);
    }
    return list;
}
/** How much of a process's environment {@link hasEnvEntry} reads (Linux caps it near 2 MiB). */
const ENVIRON_READ_LIMIT = 1024 * 1024;
let environBuffer;
/**
 * True when `pid` runs as `uid` and its environment (/proc/<pid>/environ, as
 * it was at its execve, read up to {@link ENVIRON_READ_LIMIT}) holds exactly
 * the entry `name=value`. Any error (gone meanwhile, not ours) answers false.
 */
function hasEnvEntry(pid, uid, name, value) {
    const entry = Buffer.from(`${name}=${value}\0`);
    let fd;
    try {
        if ((0,node_fs__WEBPACK_IMPORTED_MODULE_0__.statSync)(`/proc/${pid}`).uid !== uid)
            return false;
        fd = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync)(`/proc/${pid}/environ`, 'r');
        // One buffer for every read: the looks are synchronous, and most environments are small.
        environBuffer ??= Buffer.alloc(ENVIRON_READ_LIMIT);
        let length = 0;
        while (length < environBuffer.length) {
            const read = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.readSync)(fd, environBuffer, length, environBuffer.length - length, null);
            if (read === 0)
                break;
            length += read;
        }
        const environ = environBuffer.subarray(0, length);
        // Entries are NUL-terminated: a match starts the buffer or follows a NUL.
        for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
            if (at === 0 || environ[at - 1] === 0)
                return true;
        }
        return false;
    }
    catch {
        return false;
    }
    finally {
        if (fd !== undefined)
            (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.closeSync)(fd);
    }
}


/***/ }),

/***/ 1782:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $4: () => (/* binding */ describeLoss),
/* harmony export */   $x: () => (/* binding */ describeLapse),
/* harmony export */   ay: () => (/* binding */ formatUtc),
/* harmony export */   dX: () => (/* binding */ HEALTH_HOLD_WORDS),
/* harmony export */   lY: () => (/* binding */ waitNotices),
/* harmony export */   rX: () => (/* binding */ ASKED_ONCE),
/* harmony export */   un: () => (/* binding */ describeLease),
/* harmony export */   wS: () => (/* binding */ describeWaitState)
/* harmony export */ });
/* unused harmony exports formatEpoch, describeHeldBy, describePlace, healthHold, WAIT_PROGRESS_EVERY_MS */
/* harmony import */ var _gate_duration_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9731);
/* harmony import */ var _gate_wait_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4146);
/* harmony import */ var _did_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(623);
/* harmony import */ var _escape_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(1223);




/** The texts both faces print: leases, holders, losses. Plane text is escaped here. */
function formatEpoch(ms) {
    return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
        ? `${new Date(ms).toISOString()} (${ms})`
        : 'unknown';
}
/** "2026-12-07 04:00:00 UTC": the one time format of an output that names more than one time. */
function formatUtc(ms) {
    return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
        ? `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
        : 'unknown';
}
/** `at`: how the expiry is written, so an output keeps one time format (status: formatUtc). */
function describeLease(lease, at = formatEpoch) {
    const fence = lease.fence === undefined ? '' : `, fence ${lease.fence}`;
    return `lease ${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(lease.id, 256)}${fence}, expires ${at(lease.expiresAtMs)}`;
}
/** When a lease lapses unless renewed, from the plane's own answer (its expiry), never a fixed TTL. */
function describeLapse(lease, nowMs) {
    const at = formatEpoch(lease.expiresAtMs).split(' ')[0];
    const left = lease.expiresAtMs - nowMs;
    return left > 0 ? `lapses at ${at} (in about ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(left)})` : `lapses at ${at}`;
}
/** "held by X" \u2014 or, for a reservation, "reserved for X (next in line)", never "held by". */
function describeHeldBy(holder, reserved) {
    return reserved
        ? `reserved for ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(holder)} (next in line)`
        : `held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(holder)}`;
}
/**
 * "next in line", "3rd in line; about 6m at recent hold times", from a refusal's place and
 * estimate; a holder past the typical hold is "overdue by 2m" (never "about 0ms").
 */
function describePlace(position, etaMs, overdueMs) {
    const place = position === undefined
        ? ''
        : position === 0
            ? 'next in line'
            : `${ordinal(position + 1)} in line`;
    const overdue = overdueMs !== undefined && overdueMs > 0
        ? `the holder is overdue by ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(overdueMs)} at recent hold times`
        : '';
    const eta = etaMs === undefined || (overdue && etaMs === 0)
        ? ''
        : etaMs === 0
            ? 'any moment now at recent hold times'
            : `about ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(etaMs)} at recent hold times`;
    return [place, overdue, eta].filter(Boolean).join('; ');
}
function ordinal(n) {
    const tens = n % 100;
    const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
    return `${n}${suffix}`;
}
/**
 * What a waiter is waiting for: "held by X (2nd in line; about 6 min at recent hold times)",
 * "frozen until \u2026 by an operator: <reason>" or "held while its health check fails: <url>
 * answered 503". Plane text is escaped here.
 */
function describeWaitState(e) {
    if (e.frozen) {
        const message = (0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(e.frozen.message);
        // The kernel's message starts "frozen until \u2026", or "held while its health check fails: \u2026"
        // (the health gate's hold, no operator's); another plane's may not.
        return message.startsWith('frozen') || healthHold(message)
            ? message
            : `frozen by an operator: ${message}`;
    }
    const place = describePlace(e.position, e.etaMs, e.overdueMs);
    return `${describeHeldBy(e.holder, e.reserved)}${place ? ` (${place})` : ''}`;
}
/** A wait of --wait-timeout 0 did not time out: it asked once, as told. */
const ASKED_ONCE = 'asked once (--wait-timeout 0)';
/** The kernel's words for the health gate's hold (kernel/rules/freeze.ts, frozenReply). */
const HEALTH_HOLD_WORDS = 'held while its health check fails';
const healthHold = (message) => message.startsWith(HEALTH_HOLD_WORDS);
function describeLoss(resource, loss) {
    // The plane's own time of the end when it said (a watch), else when we learned of it.
    const at = loss.endedAtMs === undefined
        ? formatEpoch(loss.atMs).split(' ')[0]
        : `${formatEpoch(loss.endedAtMs).split(' ')[0]} (plane's clock)`;
    const message = loss.message ? `: ${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.message)}` : '';
    const now = loss.holder ? ` It is now held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(loss.holder)}.` : '';
    switch (loss.reason) {
        case 'revoked':
            return `Lost ${resource} at ${at}: ${loss.by ? `the lease was revoked ${(0,_gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .revokedBy */ .m4)((0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.by, 200))}` : 'an operator revoked the lease'}${(0,_gate_wait_js__WEBPACK_IMPORTED_MODULE_1__/* .operatorReason */ .FU)(loss.message && (0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.message))}.${now}`;
        case 'lapsed':
            return `Lost ${resource} at ${at}: the lease lapsed (not renewed in time).${now}`;
        case 'released':
            return `Lost ${resource} at ${at}: the lease was released by someone acting as this agent.${now}`;
        case 'unknown':
            return `Lost ${resource} at ${at}: the plane says the lease ended, not how.${now}`;
        case 'lease_held':
            return `Lost ${resource} at ${at}: it is now held by ${(0,_did_js__WEBPACK_IMPORTED_MODULE_2__/* .describeHolder */ .sG)(loss.holder ?? 'another agent')}.`;
        case 'replaced':
            return `Lost ${resource} at ${at}: the lease had ended (lapsed, revoked or released) and the plane granted a new one (${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.newLeaseId ?? '?')}), which was ${loss.gaveBack ? 'given back at once' : 'not confirmed given back; it lapses on its own'}.`;
        case 'broken_plane':
            return `Lost ${resource} at ${at}: a renewal was not ours to believe${message}.`;
        default:
            return `Lost ${resource} at ${at}: the plane refused the renewal (${(0,_escape_js__WEBPACK_IMPORTED_MODULE_3__/* .untrusted */ .bp)(loss.reason, 100)})${message}.${now}`;
    }
}
/** How often a wait whose holder and place stay the same says it is still waiting. */
const WAIT_PROGRESS_EVERY_MS = 60_000;
/**
 * The wait's lines, for both faces: one at once on the first answer, one
 * whenever the holder or our place changes, and otherwise at most one a
 * minute saying how long it has waited. Undefined: say nothing now.
 */
function waitNotices(resource, everyMs = WAIT_PROGRESS_EVERY_MS) {
    let lastLineAt = -Infinity;
    return (event) => {
        const changed = event.first || event.holderChanged || event.positionChanged;
        if (!changed && event.elapsedMs - lastLineAt < everyMs)
            return undefined;
        lastLineAt = event.elapsedMs;
        const place = event.frozen ? '' : describePlace(event.position, event.etaMs, event.overdueMs);
        const waited = event.first ? '' : `; waited ${(0,_gate_duration_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(event.elapsedMs)}`;
        const still = changed ? '' : 'still ';
        return `${resource} is ${still}${describeWaitState({ ...event, position: undefined, etaMs: undefined })}${place ? `; ${place}` : ''}${waited}`;
    };
}


/***/ })

};

//# sourceMappingURL=612.index.js.map