const require_cli = require("./cli.js");
// src/ledger/remote.ts
/**
* Reads a kernel's ledger over HTTP through the one HTTP client (src/http/):
* its proxies, timeouts and answer cap, and its errors, which every face
* already prints as one line.
*/
/** A page may take this long: a large ledger's pages carry long proofs. */
const TIMEOUT_MS = 3e4;
/**
* Entries asked per page: a page of a large ledger costs about 1 KB an entry
* (the proofs grow with the log). 100 keep a page's text, its parsed entries
* and the text written near 1 MB in all, so an export's memory is bounded by
* far less than the 4 MiB the client accepts in one answer (500 a page held
* several MB at once); the kernel serves each page sooner, too.
*/
const PAGE = 100;
/** An export stops after this many pages (10 million entries). */
const MAX_PAGES = 1e5;
/** A ledger answer that is not what the kernel serves: a broken or foreign server. */
var LedgerFetchError = class extends require_cli.LeaseGateError {
	name = "LedgerFetchError";
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: "ledger_fetch"
		});
	}
};
const pageSchema = require_cli.object({
	checkpoint: require_cli.string(),
	entries: require_cli.array(require_cli.unknown()),
	next: require_cli.optional(require_cli.nullable(require_cli.string()))
});
async function get(http, url, key) {
	const answer = await http.send({
		method: "GET",
		url,
		headers: key ? { authorization: `Bearer ${key}` } : {},
		timeoutMs: TIMEOUT_MS
	});
	if (answer.status !== 200) {
		const text = answer.text.replace(/[\r\n]+/g, " ").slice(0, 200);
		throw new LedgerFetchError(`[GET] "${url}": ${answer.status} ${text}`);
	}
	return answer.text;
}
function readPage(text, where) {
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		throw new LedgerFetchError(`${where}: not a ledger bundle page (not JSON)`);
	}
	const page = pageSchema.safeParse(json);
	if (!page.success) throw new LedgerFetchError(`${where}: not a ledger bundle page`);
	return page.data;
}
/**
* The pages of one export, in order, each checked against the first one's
* checkpoint (the kernel pins an export to its size when it starts): only one
* page is held at a time.
*/
async function* pagesOf(http, apiUrl, key) {
	let path = `${require_cli.LEDGER_PATHS.bundle}?limit=${PAGE}`;
	let checkpoint;
	for (let pages = 0;; pages += 1) {
		if (pages >= MAX_PAGES) throw new LedgerFetchError(`the ledger export did not end within ${MAX_PAGES} pages`);
		const page = readPage(await get(http, apiUrl + path, key), apiUrl + path);
		if (checkpoint !== void 0 && page.checkpoint !== checkpoint) throw new LedgerFetchError("the kernel changed the checkpoint in the middle of one export");
		checkpoint = page.checkpoint;
		yield {
			checkpoint,
			entries: page.entries,
			size: Number(checkpoint.split("\n")[1])
		};
		if (page.next === null || page.next === void 0) return;
		path = `${require_cli.LEDGER_PATHS.bundle}?cursor=${encodeURIComponent(page.next)}&limit=${PAGE}`;
	}
}
/**
* fetchLedger's bundle text, written to `write` a page at a time as the pages
* arrive: the same bytes as `bundleText` (JSON.stringify of the whole bundle,
* whose checkpoint comes first), with memory bounded by one page. Returns the
* public key and how many entries were written.
*/
async function exportLedger(apiUrl, key, write, progress) {
	const http = require_cli.createHttpClient({ bodyTimeoutMs: TIMEOUT_MS });
	try {
		const publicKey = await get(http, apiUrl + require_cli.LEDGER_PATHS.publicKey, key);
		let count = 0;
		let begun = false;
		for await (const page of pagesOf(http, apiUrl, key)) {
			let text = begun ? "" : `{"checkpoint":${JSON.stringify(page.checkpoint)},"entries":[`;
			begun = true;
			for (const entry of page.entries) {
				text += `${count === 0 ? "" : ","}${JSON.stringify(entry)}`;
				count += 1;
			}
			await write(text);
			progress?.(count, page.size);
		}
		await write("]}");
		return {
			publicKey,
			count
		};
	} finally {
		await http.close();
	}
}
/**
* Each page's entries of one export, as they arrive (`lease-gate history`): memory
* bounded by a page and what `each` keeps. The entries are `{ index, entry, inclusionProof }`.
*/
async function eachLedgerPage(apiUrl, key, each) {
	const http = require_cli.createHttpClient({ bodyTimeoutMs: TIMEOUT_MS });
	try {
		for await (const page of pagesOf(http, apiUrl, key)) each(page.entries);
	} finally {
		await http.close();
	}
}
Object.defineProperty(exports, "eachLedgerPage", {
	enumerable: true,
	get: function() {
		return eachLedgerPage;
	}
});
Object.defineProperty(exports, "exportLedger", {
	enumerable: true,
	get: function() {
		return exportLedger;
	}
});

//# sourceMappingURL=remote-BeUzwwFI.js.map