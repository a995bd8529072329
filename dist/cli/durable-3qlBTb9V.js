let node_fs = require("node:fs");
let node_path = require("node:path");
let node_fs_promises = require("node:fs/promises");
// src/fs/write-all.ts
/** A file handle's writes, as writeAll takes them. */
const handleWriter = (handle) => async (bytes, offset, length, position) => (await handle.write(bytes, offset, length, position)).bytesWritten;
/** A descriptor's writes, as writeAllSync takes them. */
const fdWriter = (fd) => (bytes, offset, length, position) => (0, node_fs.writeSync)(fd, bytes, offset, length, position);
/**
* Writes every byte of `bytes` at `position` (null: where the descriptor
* stands). A write may take fewer bytes than asked (a full disk, a signal, a
* pipe): the next goes on from there. One that takes none fails, rather than
* loop for ever or let a caller count bytes that are not there.
*/
async function writeAll(write, bytes, position = null) {
	for (let written = 0; written < bytes.length;) {
		const at = position === null ? null : position + written;
		written += took(await write(bytes, written, bytes.length - written, at), written, bytes);
	}
}
/** writeAll's synchronous twin (see writeFileDurableSync for who needs it). */
function writeAllSync(write, bytes, position = null) {
	for (let written = 0; written < bytes.length;) {
		const at = position === null ? null : position + written;
		written += took(write(bytes, written, bytes.length - written, at), written, bytes);
	}
}
/** What one write took, or the error that says how far the whole got. */
function took(n, written, bytes) {
	if (!(n > 0)) throw new Error(`a write took ${written} of ${bytes.length} bytes`);
	return n;
}
// src/fs/durable.ts
const bytesOf = (piece) => typeof piece === "string" ? Buffer.from(piece, "utf8") : piece;
const tempOf = (path, options) => options.temp ?? `${path}.${process.pid}.tmp`;
/**
* Replaces `path` with `content` so that a reader, or a crash, finds the old file or
* the new one whole, never half of it; once this resolves the new one survives a
* crash. The content goes to a temporary file, every byte (writeAll), which is synced,
* renamed over `path`, and then the directory is synced so the rename itself is on
* disk. On a failure before the rename the temporary file is removed (a full disk
* must not keep the space the next write needs) and `path` is untouched.
*/
async function writeFileDurable(path, content, options = {}) {
	const temp = tempOf(path, options);
	try {
		const handle = await (0, node_fs_promises.open)(temp, "w", options.mode ?? 384);
		try {
			const write = handleWriter(handle);
			let size = 0;
			const append = async (piece) => {
				const bytes = bytesOf(piece);
				await writeAll(write, bytes, size);
				size += bytes.length;
			};
			await (typeof content === "function" ? content(append) : append(content));
			await handle.sync();
		} finally {
			await handle.close();
		}
		await (0, node_fs_promises.rename)(temp, path);
	} catch (error) {
		await (0, node_fs_promises.unlink)(temp).catch(() => void 0);
		throw error;
	}
	await syncDirectory((0, node_path.dirname)(path));
}
/**
* writeFileDurable for callers that cannot wait: the notification worker's cursor saved
* between two deliveries (an asynchronous save could finish after a later one and put an
* older cursor back), and the kernel's signing key made during its synchronous start.
*/
function writeFileDurableSync(path, text, options = {}) {
	replaceSync(path, text, options, true);
}
/**
* Replaces `path` with `text` so that a reader finds the old file or the new one whole,
* never half of it, as writeFileDurableSync does, but NOT durably: neither the file nor its
* directory is synced, so after a crash the old file, the new one, or (file systems that
* allocate late) an empty one may be found. Only for a file that nobody reads after a crash
* of the machine, and that is written often enough for two fsyncs a write to be most of its
* writer's work: the keeper's status file (lease/keeper-status.ts says why).
*/
function writeFileAtomicSync(path, text, options = {}) {
	replaceSync(path, text, options, false);
}
/** A temporary file, renamed over `path`; with `durable`, both synced (writeFileDurable's steps). */
function replaceSync(path, text, options, durable) {
	const temp = tempOf(path, options);
	writeTempSync(temp, text, "w", options.mode ?? 384, durable);
	try {
		(0, node_fs.renameSync)(temp, path);
	} catch (error) {
		(0, node_fs.rmSync)(temp, { force: true });
		throw error;
	}
	if (durable) syncDirectorySync((0, node_path.dirname)(path));
}
/**
* Writes every byte of `text` to the file `temp` (opened with `flags`) and, unless told
* `sync` false, syncs it; a file it opened and could not fill is removed.
*/
function writeTempSync(temp, text, flags, mode, sync = true) {
	const fd = (0, node_fs.openSync)(temp, flags, mode);
	try {
		try {
			writeAllSync(fdWriter(fd), bytesOf(text), 0);
			if (sync) (0, node_fs.fsyncSync)(fd);
		} finally {
			(0, node_fs.closeSync)(fd);
		}
	} catch (error) {
		(0, node_fs.rmSync)(temp, { force: true });
		throw error;
	}
}
/**
* The one directory-sync policy. A rename or a new name is durable only once its
* directory is synced, so a write whose directory sync fails was NOT made durable and
* fails too \u2014 except where the platform cannot sync a directory at all: Windows cannot
* open one (EISDIR, EPERM), and some file systems (network, FUSE) refuse fsync on one
* (EINVAL). There a rename is as durable as that file system makes it, and refusing
* every write would leave the kernel unable to run there.
*/
const NO_DIRECTORY_SYNC = /* @__PURE__ */ new Set([
	"EISDIR",
	"EINVAL",
	"EPERM"
]);
const unsupported = (error) => NO_DIRECTORY_SYNC.has(error?.code ?? "");
/** Makes the directory's entries (a rename, a new name) durable; see NO_DIRECTORY_SYNC. */
async function syncDirectory(dir) {
	let handle;
	try {
		handle = await (0, node_fs_promises.open)(dir, "r");
	} catch (error) {
		if (unsupported(error)) return;
		throw error;
	}
	try {
		await handle.sync();
	} catch (error) {
		if (!unsupported(error)) throw error;
	} finally {
		await handle.close();
	}
}
/** syncDirectory's synchronous twin, for writeFileDurableSync and createFileOnce. */
function syncDirectorySync(dir) {
	let fd;
	try {
		fd = (0, node_fs.openSync)(dir, "r");
	} catch (error) {
		if (unsupported(error)) return;
		throw error;
	}
	try {
		(0, node_fs.fsyncSync)(fd);
	} catch (error) {
		if (!unsupported(error)) throw error;
	} finally {
		(0, node_fs.closeSync)(fd);
	}
}
Object.defineProperty(exports, "handleWriter", {
	enumerable: true,
	get: function() {
		return handleWriter;
	}
});
Object.defineProperty(exports, "syncDirectory", {
	enumerable: true,
	get: function() {
		return syncDirectory;
	}
});
Object.defineProperty(exports, "syncDirectorySync", {
	enumerable: true,
	get: function() {
		return syncDirectorySync;
	}
});
Object.defineProperty(exports, "writeAll", {
	enumerable: true,
	get: function() {
		return writeAll;
	}
});
Object.defineProperty(exports, "writeFileAtomicSync", {
	enumerable: true,
	get: function() {
		return writeFileAtomicSync;
	}
});
Object.defineProperty(exports, "writeFileDurable", {
	enumerable: true,
	get: function() {
		return writeFileDurable;
	}
});
Object.defineProperty(exports, "writeFileDurableSync", {
	enumerable: true,
	get: function() {
		return writeFileDurableSync;
	}
});
Object.defineProperty(exports, "writeTempSync", {
	enumerable: true,
	get: function() {
		return writeTempSync;
	}
});

//# sourceMappingURL=durable-3qlBTb9V.js.map