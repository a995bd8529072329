import type { ParseArgsConfig } from 'node:util';
import type { KernelEvent } from '../kernel/rules/core.js';
import type { Freeze } from '../kernel/rules/rules.js';
import type { Ledger } from '../ledger/ledger.js';
import { SCHEMA_FORM, SCHEMA_PATTERN, type PostgresOptions } from '../kernel/postgres/settings.js';
import { EXIT, UsageError, parse, type Output } from './options.js';

export const STORE_OPTIONS = {
  store: { type: 'string' },
  schema: { type: 'string' },
  'pool-size': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const STORE_FORM =
  "'memory', 'postgres' (the URL from DATABASE_URL) or a postgres://user@host:5432/db URL";

/**
 * The PostgreSQL settings from `--store`, `--schema` and `--pool-size`, or
 * undefined for the in-process stores. DATABASE_URL is read only when asked
 * for (`--store postgres`), so a job that happens to set it keeps a local kernel.
 */
export function postgresFrom(
  values: { store?: string | undefined; schema?: string | undefined; 'pool-size'?: string },
  env: NodeJS.ProcessEnv,
): PostgresOptions | undefined {
  const store = values.store ?? 'memory';
  if (store === 'memory') {
    if (values.schema !== undefined || values['pool-size'] !== undefined)
      throw new UsageError('--schema and --pool-size go with --store postgres.');
    return undefined;
  }
  let url = store;
  if (store === 'postgres') {
    url = env.DATABASE_URL ?? '';
    if (!url)
      throw new UsageError('--store postgres reads its URL from DATABASE_URL, which is not set.');
  }
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new UsageError(`Invalid --store. Expected ${STORE_FORM}.`);
  const schema = values.schema ?? env.LEASE_GATE_PG_SCHEMA ?? 'public';
  if (!SCHEMA_PATTERN.test(schema))
    throw new UsageError(`Invalid --schema '${schema}'. Expected ${SCHEMA_FORM}.`);
  const size = values['pool-size'] ?? '10';
  if (!/^\d{1,3}$/.test(size) || Number(size) < 2 || Number(size) > 100)
    throw new UsageError(`Invalid --pool-size '${size}'. Expected a whole number from 2 to 100.`);
  return { url, schema, poolSize: Number(size) };
}

/** Opens the PostgreSQL service (loaded only when asked for: `pg` stays off every other path). */
export async function openPostgres(
  options: PostgresOptions,
  rest: {
    ledger: Ledger;
    ttlMs: number;
    lockDelayMs: number;
    window?: ((resource: string, now: number) => Freeze | undefined) | undefined;
    onEvents: (events: KernelEvent[]) => void;
    log: (line: string) => void;
  },
) {
  const { PostgresService } = await import('../kernel/postgres/backend.js');
  return PostgresService.open({ ...options, ...rest });
}

/** `lease-gate kernel migrate --store …`: brings the schema to this version, and nothing else. */
export async function migrateCommand(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values } = parse(args, STORE_OPTIONS);
  const options = postgresFrom(values, env);
  if (!options) throw new UsageError(`kernel migrate needs --store. Expected ${STORE_FORM}.`);
  const { migrateDatabase } = await import('../kernel/postgres/migrate-once.js');
  const applied = await migrateDatabase(options);
  io.out(
    applied.length
      ? `migrated schema ${options.schema} to version ${applied.at(-1)} (applied ${applied.join(', ')})`
      : `schema ${options.schema} is current`,
  );
  return EXIT.done;
}
