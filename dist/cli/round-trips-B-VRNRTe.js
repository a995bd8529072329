const require_cli = require("./cli.js");
// src/kernel/store/store-error.ts
/** A store that cannot read or persist: the kernel answers 503 and leaves memory unchanged. */
var StoreError = class extends require_cli.LeaseGateError {
	name = "StoreError";
	/** `code`: only for its subclasses (store_schema_too_new). */
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: options.code ?? "store"
		});
	}
};
/** A change could not be made durable; nothing changed. Answered 503 store_unavailable. */
var StoreUnavailableError = class extends require_cli.LeaseGateError {
	name = "StoreUnavailableError";
	/** `code`: only for its subclasses (store_outcome_unknown). */
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: options.code ?? "store_unavailable"
		});
	}
};
/**
* The kernel must not serve on this state: another kernel holds it, or its log
* is not the history it signed. One line for the operator (the CLI exits 2).
*/
var StartRefusedError = class extends require_cli.LeaseGateError {
	name = "StartRefusedError";
	/** `code`: only for its subclasses (state_locked). */
	constructor(message, options = {}) {
		super(message, {
			...options,
			code: options.code ?? "start_refused"
		});
	}
};
// src/kernel/postgres/settings.ts
/** A schema name we put in search_path and in a NOTIFY channel: plain, short, unquoted. */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;
const SCHEMA_FORM = "a lower-case SQL name of at most 40 letters, digits and _";
const DEFAULT_CONNECT_TIMEOUT_MS = 2e3;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5e3;
function schemaOf(options) {
	const schema = options.schema ?? "public";
	if (!SCHEMA_PATTERN.test(schema)) throw new StoreError(`schema: expected ${SCHEMA_FORM}`);
	return schema;
}
/** Hides the password of a connection string that is shown to a person. */
function redactUrl(url) {
	try {
		const parsed = new URL(url);
		if (parsed.password) parsed.password = "***";
		return parsed.toString();
	} catch {
		return "the PostgreSQL URL";
	}
}
// src/kernel/store/round-trips.ts
/**
* Round trips to a shared store (PostgreSQL), counted for the metrics (lease_gate_postgres_
* round_trips_total): one per query sent, whatever it carries. A process-wide count, as the
* pools it counts are; the metrics read it at each scrape.
*/
const storeRoundTrips = { count: 0 };
/** Counts each query `client` sends from now on (a pool's `connect` hands each new one here). */
function countRoundTrips(client) {
	const query = client.query;
	client.query = function(...args) {
		storeRoundTrips.count += 1;
		return query.apply(this, args);
	};
	return client;
}
Object.defineProperty(exports, "DEFAULT_CONNECT_TIMEOUT_MS", {
	enumerable: true,
	get: function() {
		return DEFAULT_CONNECT_TIMEOUT_MS;
	}
});
Object.defineProperty(exports, "DEFAULT_STATEMENT_TIMEOUT_MS", {
	enumerable: true,
	get: function() {
		return DEFAULT_STATEMENT_TIMEOUT_MS;
	}
});
Object.defineProperty(exports, "SCHEMA_FORM", {
	enumerable: true,
	get: function() {
		return SCHEMA_FORM;
	}
});
Object.defineProperty(exports, "SCHEMA_PATTERN", {
	enumerable: true,
	get: function() {
		return SCHEMA_PATTERN;
	}
});
Object.defineProperty(exports, "StartRefusedError", {
	enumerable: true,
	get: function() {
		return StartRefusedError;
	}
});
Object.defineProperty(exports, "StoreError", {
	enumerable: true,
	get: function() {
		return StoreError;
	}
});
Object.defineProperty(exports, "StoreUnavailableError", {
	enumerable: true,
	get: function() {
		return StoreUnavailableError;
	}
});
Object.defineProperty(exports, "countRoundTrips", {
	enumerable: true,
	get: function() {
		return countRoundTrips;
	}
});
Object.defineProperty(exports, "redactUrl", {
	enumerable: true,
	get: function() {
		return redactUrl;
	}
});
Object.defineProperty(exports, "schemaOf", {
	enumerable: true,
	get: function() {
		return schemaOf;
	}
});
Object.defineProperty(exports, "storeRoundTrips", {
	enumerable: true,
	get: function() {
		return storeRoundTrips;
	}
});

//# sourceMappingURL=round-trips-B-VRNRTe.js.map