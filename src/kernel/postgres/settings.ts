import { StoreError } from '../store/store-error.js';

/** A schema name we put in search_path and in a NOTIFY channel: plain, short, unquoted. */
export const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/;
export const SCHEMA_FORM = 'a lower-case SQL name of at most 40 letters, digits and _';

export interface PostgresOptions {
  /** postgres:// or postgresql:// connection string (user, password, host, database, sslmode). */
  url: string;
  /** Where the kernel's tables live; `public` by default. */
  schema?: string | undefined;
  /** Connections at most, per replica. */
  poolSize?: number | undefined;
  /** How long a call waits for a connection before it is answered 503. */
  connectTimeoutMs?: number | undefined;
  /** How long one statement (a lock wait included) may take before it is answered 503. */
  statementTimeoutMs?: number | undefined;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

export function schemaOf(options: PostgresOptions): string {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_PATTERN.test(schema)) throw new StoreError(`schema: expected ${SCHEMA_FORM}`);
  return schema;
}

/** Hides the password of a connection string that is shown to a person. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL URL';
  }
}
