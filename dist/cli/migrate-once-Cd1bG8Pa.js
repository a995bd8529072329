const require_migrations = require("./migrations-DEqxXIlL.js");
const require_round_trips = require("./round-trips-B-VRNRTe.js");
// src/kernel/postgres/migrate-once.ts
/** One connection, the migrations under their advisory lock, then gone. */
async function migrateDatabase(options) {
	const client = new require_migrations.esm_default.Client(require_migrations.connectionConfig(options));
	client.on("error", () => void 0);
	try {
		await client.connect();
	} catch (error) {
		throw new require_round_trips.StoreError(`cannot reach ${require_round_trips.redactUrl(options.url)}: ${require_migrations.describe(error)}`, { cause: error });
	}
	try {
		return await require_migrations.migrate(client, require_round_trips.schemaOf(options));
	} catch (error) {
		if (error instanceof require_round_trips.StoreError) throw error;
		throw new require_round_trips.StoreError(`migrating ${require_round_trips.redactUrl(options.url)} failed: ${require_migrations.describe(error)}`, { cause: error });
	} finally {
		await client.end().catch(() => void 0);
	}
}
exports.migrateDatabase = migrateDatabase;

//# sourceMappingURL=migrate-once-Cd1bG8Pa.js.map