import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitForLease } from '../src/gate/wait.js';
import { SCHEMA_VERSION } from '../src/kernel/postgres/migrations.js';
import { DEFAULT_TTL_MS } from '../src/kernel/rules/rules.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import type { LeaseRequest } from '../src/plane/schema.js';
import { realSleep, systemClock } from '../src/plane/time.js';
import { startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { verifiedLedger } from './support/fault-holders.js';
import { migrateWithCli, pgReplicas } from './support/pg-replicas.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { replayKernelLedger } from './support/trace-check.js';
import { RESOURCE } from './support/names.js';

const CLIENTS = 12;
const CYCLES = 30;

/** A client that moves to the next replica when its own stops answering (a load balancer's job). */
function failoverClient(urls: string[], start: number): Pick<PlaneClient, 'lease' | 'release'> {
  const clients = urls.map((apiUrl) =>
    createPlaneClient({
      apiUrl,
      requestTimeoutMs: 5_000,
      retry: { baseMs: 5, capMs: 5, maxAttempts: 1 },
    }),
  );
  let at = start;
  const call = async <T>(ask: (c: PlaneClient) => Promise<T>): Promise<T> => {
    for (let tries = 0; ; tries += 1) {
      try {
        return await ask(clients[at]!);
      } catch (error) {
        if (tries >= 2 * urls.length) throw error;
        at = (at + 1) % urls.length;
      }
    }
  };
  return {
    lease: (req: LeaseRequest) => call((c) => c.lease(req)),
    release: (req: LeaseRequest) => call((c) => c.release(req)),
  };
}

describePostgres('three kernel processes on one database', () => {
  const kit = pgReplicas();
  let schema: string;
  let dir: string;
  const replicas: KernelProcess[] = [];
  beforeAll(async () => {
    schema = kit.schema;
    let migrated;
    ({ dir, migrated } = await migrateWithCli(schema, 'lease-gate-pg-'));
    expect(migrated.stdout).toMatch(new RegExp(`migrated schema .* to version ${SCHEMA_VERSION}`));
  });
  // Before the schema is dropped (vitest runs after-hooks as a stack).
  afterAll(async () => {
    for (const r of replicas) if (r.child.exitCode === null && !r.child.killed) await r.stop();
  });

  it(`never lets two of ${CLIENTS} clients hold at once over ${CLIENTS * CYCLES} cycles, through a kill -9`, async () => {
    const args = [
      '--store',
      'postgres',
      '--schema',
      schema,
      '--signing-key',
      join(dir, 'ledger.key'),
      '--quiet',
    ];
    for (let i = 0; i < 3; i += 1) {
      replicas.push(await startKernelProcess(args, { DATABASE_URL: POSTGRES_URL }));
    }
    const urls = replicas.map((r) => r.url);
    let inside = 0;
    let overlaps = 0;
    let grants = 0;
    let lastFence = 0;
    let fencesRising = true;
    let killed = false;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const actorDid = `did:web:stress:agent${i}`;
        const client = failoverClient(urls, i % urls.length);
        for (let c = 0; c < CYCLES; c += 1) {
          const result = await waitForLease({
            client,
            resource: RESOURCE,
            actorDid,
            timeoutMs: 120_000,
            clock: systemClock,
            sleep: (ms, signal) => realSleep(Math.min(ms, 25), signal),
            random: Math.random,
          });
          if (result.outcome !== 'granted') throw new Error(`not granted: ${result.outcome}`);
          inside += 1;
          grants += 1;
          if (inside !== 1) overlaps += 1;
          const fence = result.lease.fence ?? 0;
          if (fence <= lastFence) fencesRising = false;
          lastFence = fence;
          if (grants === Math.floor((CLIENTS * CYCLES) / 3) && !killed) {
            killed = true;
            expect(await replicas[0]!.stop('SIGKILL')).toBeNull();
          }
          await realSleep(Math.random() * 2);
          inside -= 1;
          await client.release({ resource: RESOURCE, actorDid });
        }
      }),
    );
    const elapsedMs = Date.now() - started;
    expect({ grants, overlaps, fencesRising, killed }).toEqual({
      grants: CLIENTS * CYCLES,
      overlaps: 0,
      fencesRising: true,
      killed: true,
    });

    const entries = await verifiedLedger(urls[1]!, dir);
    expect(entries.filter((e) => e.kind === 'grant').length).toBeGreaterThanOrEqual(
      CLIENTS * CYCLES,
    );
    // The replicas' one ledger replayed through spec/lease.qnt (the kernels run the default TTL).
    const replay = await replayKernelLedger(
      'postgres replicas',
      entries,
      DEFAULT_TTL_MS,
      join(dir, 'trace'),
    );
    if (replay) expect(replay.divergences).toEqual([]);
    console.info(
      `postgres replicas: ${grants} grants by ${CLIENTS} clients on 3 replicas (one killed) in ${elapsedMs} ms, 0 overlaps, ledger of ${entries.length} entries verified`,
    );
  }, 180_000);
});
