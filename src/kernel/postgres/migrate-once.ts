import pg from 'pg';
import { StoreError } from '../store/store.js';
import { connectionConfig, describe } from './connect.js';
import { redactUrl, schemaOf, type PostgresOptions } from './settings.js';
import { migrate } from './migrations.js';

/** One connection, the migrations under their advisory lock, then gone. */
export async function migrateDatabase(options: PostgresOptions): Promise<number[]> {
  const client = new pg.Client(connectionConfig(options));
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new StoreError(`cannot reach ${redactUrl(options.url)}: ${describe(error)}`, {
      cause: error,
    });
  }
  try {
    return await migrate(client, schemaOf(options));
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`migrating ${redactUrl(options.url)} failed: ${describe(error)}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}
