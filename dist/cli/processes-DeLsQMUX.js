let node_fs = require("node:fs");
// src/fs/processes.ts
/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
function isAlive(pid) {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return error.code === "EPERM";
	}
	try {
		return !/^\d+ \(.*\) Z/.test((0, node_fs.readFileSync)(`/proc/${pid}/stat`, "utf8"));
	} catch {
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
	} catch (error) {
		return error.code === "EPERM";
	}
	const list = listProcesses();
	if (!list) return true;
	return list.some((entry) => entry.pgrp === group && entry.state !== "Z");
}
/** Parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session \u2026 starttime(22) \u2026". */
function parseStat(pid, stat) {
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	const [state, ppid, pgrp, session] = [fields[0], ...fields.slice(1, 4).map(Number)];
	const startTicks = Number(fields[19]);
	if (!state || ![
		ppid,
		pgrp,
		session,
		startTicks
	].every(Number.isSafeInteger)) return void 0;
	return {
		pid,
		state,
		ppid,
		pgrp,
		session,
		startTicks
	};
}
/** Every process /proc shows now, or undefined where there is no /proc (macOS). */
function listProcesses() {
	let names;
	try {
		names = (0, node_fs.readdirSync)("/proc").filter((name) => /^\d+$/.test(name));
	} catch {
		return;
	}
	const list = [];
	for (const name of names) {
		let stat;
		try {
			stat = (0, node_fs.readFileSync)(`/proc/${name}/stat`, "utf8");
		} catch {
			continue;
		}
		const entry = parseStat(Number(name), stat);
		if (entry) list.push(entry);
	}
	return list;
}
/** How much of a process's environment {@link hasEnvEntry} reads (Linux caps it near 2 MiB). */
const ENVIRON_READ_LIMIT = 1048576;
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
		if ((0, node_fs.statSync)(`/proc/${pid}`).uid !== uid) return false;
		fd = (0, node_fs.openSync)(`/proc/${pid}/environ`, "r");
		environBuffer ??= Buffer.alloc(ENVIRON_READ_LIMIT);
		let length = 0;
		while (length < environBuffer.length) {
			const read = (0, node_fs.readSync)(fd, environBuffer, length, environBuffer.length - length, null);
			if (read === 0) break;
			length += read;
		}
		const environ = environBuffer.subarray(0, length);
		for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) if (at === 0 || environ[at - 1] === 0) return true;
		return false;
	} catch {
		return false;
	} finally {
		if (fd !== void 0) (0, node_fs.closeSync)(fd);
	}
}
Object.defineProperty(exports, "groupAlive", {
	enumerable: true,
	get: function() {
		return groupAlive;
	}
});
Object.defineProperty(exports, "hasEnvEntry", {
	enumerable: true,
	get: function() {
		return hasEnvEntry;
	}
});
Object.defineProperty(exports, "isAlive", {
	enumerable: true,
	get: function() {
		return isAlive;
	}
});
Object.defineProperty(exports, "listProcesses", {
	enumerable: true,
	get: function() {
		return listProcesses;
	}
});
Object.defineProperty(exports, "parseStat", {
	enumerable: true,
	get: function() {
		return parseStat;
	}
});

//# sourceMappingURL=processes-DeLsQMUX.js.map