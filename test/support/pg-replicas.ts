import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { getJson } from './http.js';
import { runCli } from './kernel-process.js';
import { startReplica } from './pg-kernel.js';
import { POSTGRES_URL, testSchema } from './postgres.js';
import { pause } from './wait.js';

type Cleanup = () => Promise<void>;

/**
 * Replicas on a schema of their own, for the describe (a describePostgres) it is
 * called in: the schema is created before its tests and dropped after them; what a
 * test started (`replica`, `closeAfter`, `cleanup`) is closed after that test, in the
 * order it was given, or the reverse with `lifo` (a sender before the listener it needs).
 */
export function pgReplicas({ lifo = false }: { lifo?: boolean } = {}) {
  let schema: string | undefined;
  let drop: Cleanup = async () => undefined;
  const cleanups: Cleanup[] = [];
  beforeAll(async () => {
    ({ schema, drop } = await testSchema());
  });
  afterEach(async () => {
    const due = cleanups.splice(0);
    for (const c of lifo ? due.reverse() : due) await c();
  });
  afterAll(() => drop());
  const kit = {
    /** The schema of this describe (`lease_gate_test_<random>`), once its tests run. */
    get schema(): string {
      if (!schema) throw new Error('pgReplicas: the schema exists only inside its tests');
      return schema;
    },
    /** One replica in this process on the schema, closed after the test. */
    async replica(options: Parameters<typeof startReplica>[1] = {}) {
      const r = await startReplica(kit.schema, options);
      cleanups.push(() => r.close());
      return r;
    },
    /** Two replicas with the same options (two processes behind one load balancer, say). */
    async pair(options: Parameters<typeof startReplica>[1] = {}) {
      return [await kit.replica(options), await kit.replica(options)] as const;
    },
    /** Things with a close(), closed after the test. */
    closeAfter(...things: Array<{ close(): Promise<unknown> }>) {
      for (const t of things) cleanups.push(async () => void (await t.close()));
    },
    /** Any clean-up, run after the test. */
    cleanup(fn: Cleanup) {
      cleanups.push(fn);
    },
  };
  return kit;
}

/** Until `actorDid` waits on `resource` as the kernel at `url` lists it; polled a bounded number of times. */
export async function waitsInQueue(url: string, resource: string, actorDid: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    const { body } = await getJson(url, '/api/v1/kernel/resources');
    const { resources } = body as {
      resources: Array<{ resource: string; queue: Array<{ actorDid: string }> }>;
    };
    if (resources.find((r) => r.resource === resource)?.queue.some((w) => w.actorDid === actorDid))
      return;
    await pause(10);
  }
  throw new Error(`${actorDid} never appeared in the queue of ${resource}`);
}

/**
 * What kernel processes (`--store postgres --schema <schema>`) start from: a signing key
 * made by `lease-gate keygen` in a directory of its own, and the schema migrated by
 * `lease-gate kernel migrate`, whose result the test asserts on.
 */
export async function migrateWithCli(schema: string, dirPrefix: string) {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  expect((await runCli(['keygen', '--out', dir])).code).toBe(0);
  const migrated = await runCli(['kernel', 'migrate', '--store', POSTGRES_URL, '--schema', schema]);
  return { dir, migrated };
}
