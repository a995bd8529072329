import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';
import { causeText } from '../../src/errors.js';

/** The project's machines run PostgreSQL here (trust authentication, database `test`). */
export const POSTGRES_URL =
  process.env.LEASE_GATE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REQUIRED = process.env.LEASE_GATE_REQUIRE_POSTGRES === '1';

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL at ${POSTGRES_URL.replace(/:[^:@/]*@/, ':***@')}: ${causeText(error)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await probe();

/**
 * A describe that runs against the real PostgreSQL; where none is reachable
 * it is skipped with one line saying why, unless LEASE_GATE_REQUIRE_POSTGRES=1
 * (CI), where it fails instead.
 */
export function describePostgres(name: string, body: () => void): void {
  if (!unreachable) {
    describe(name, body);
  } else if (REQUIRED) {
    describe(name, () => {
      it('needs PostgreSQL (LEASE_GATE_REQUIRE_POSTGRES=1)', () => {
        throw new Error(unreachable);
      });
    });
  } else {
    console.warn(`skipped "${name}": ${unreachable}`);
    describe.skip(name, body);
  }
}

/** A schema of its own for one test run (`lease_gate_test_<random>`), and its removal. */
export async function testSchema(): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `lease_gate_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}
