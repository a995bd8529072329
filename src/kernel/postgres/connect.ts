import pg from 'pg';
import { causeText } from '../../errors.js';
import { countRoundTrips } from '../store/round-trips.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  schemaOf,
  type PostgresOptions,
} from './settings.js';

/** What every connection of this kernel is set to: its schema, and bounds on waiting. */
export function connectionConfig(options: PostgresOptions): pg.ClientConfig {
  const statement = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  return {
    connectionString: options.url,
    options: `-c search_path=${schemaOf(options)}`,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    statement_timeout: statement,
    lock_timeout: statement,
    // A replica that stalls inside a transaction must not keep a resource locked.
    idle_in_transaction_session_timeout: 2 * statement,
    query_timeout: statement + 1_000,
    keepAlive: true,
    application_name: 'lease-gate kernel',
  };
}

/**
 * A bounded pool. An idle connection that breaks (the database restarted)
 * is dropped and reported, never thrown: the next call opens a fresh one.
 */
export function createPool(options: PostgresOptions, log: (line: string) => void): pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(options),
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (error) => log(`kernel: a PostgreSQL connection broke: ${describe(error)}`));
  pool.on('connect', (client) => countRoundTrips(client));
  return pool;
}

/** A one-line account of a driver or server error, without the connection string. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return causeText(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${causeText(error)} (${code})` : causeText(error);
}

const RETRYABLE = new Set([
  '23505', // another replica created the resource's row first
  '40001', // serialization failure
  '40P01', // deadlock detected
]);

/** Worth running the whole transaction again (the answer is then decided afresh). */
export const isRetryable = (error: unknown) =>
  typeof (error as { code?: unknown })?.code === 'string' &&
  RETRYABLE.has((error as { code: string }).code);
