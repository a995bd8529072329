import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { replayKernelLedger } from './support/trace-check.js';

const RESTARTS = 20;
const TTL_MS = 2_000;
/** No retries: a kernel killed under a client ends its round. */
const once = { retryUntilMs: 0 };
const CLIENTS = 12;
/**
 * How long a round waits for its first grant after the restart: generous, for
 * a machine busy with other work; a kernel that grants nothing in it fails the test.
 */
const FIRST_GRANT_MS = 20_000;
/** After the round's first grant, the kill comes this much later at most (at a random point). */
const KILL_WITHIN_MS = 250;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True once `event` settles, false after `ms` (its timer cleared either way). */
async function within(event: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([event.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the kernel under kill -9', () => {
  it(`keeps one truth across ${RESTARTS} kill -9 restarts with ${CLIENTS} renewing clients`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-chaos-'));
    expect((await runCli(['keygen', '--out', dir])).code).toBe(0);
    const args = [
      '--data-prefix',
      join(dir, 'state.json'),
      '--quiet',
      '--ttl-ms',
      String(TTL_MS),
      '--signing-key',
      join(dir, 'ledger.key'),
    ];
    /** Every fence the clients were given, and the lease it came with. */
    const fences = new Map<number, string>();
    let reused = 0;
    /** Per resource, the client holding it now as the clients saw it. */
    const holding = new Map<string, string>();
    let overlaps = 0;
    let grants = 0;
    let kernel: KernelProcess = await startKernelProcess(args);
    // Each round reacts to what the clients see, not to the wall clock: the kill comes only
    // after the round's first new grant (bounded), so a slow machine gets as many rounds of
    // work as a fast one.
    for (let round = 0; round < RESTARTS; round += 1) {
      const url = kernel.url;
      let stop = false;
      let firstGrant!: () => void;
      const granted = new Promise<void>((resolve) => (firstGrant = resolve));
      const work = Array.from({ length: CLIENTS }, async (_, i) => {
        const actorDid = `did:web:chaos:c${i}`;
        const resource = `lock:chaos/${i % 3}`;
        const client = createPlaneClient({ apiUrl: url, requestTimeoutMs: 2_000 });
        while (!stop) {
          try {
            const answer = await client.lease({ resource, actorDid }, once);
            if (answer.kind !== 'granted') {
              await pause(5); // held: ask again soon, without spinning the machine
              continue;
            }
            const other = holding.get(resource);
            if (other && other !== actorDid) overlaps += 1;
            const seen = fences.get(answer.lease.fence!);
            if (seen === undefined) {
              grants += 1;
              firstGrant();
            }
            // A renewal of a lease held before a kill keeps its fence; another lease may not.
            else if (seen !== answer.lease.id) reused += 1;
            fences.set(answer.lease.fence!, answer.lease.id);
            holding.set(resource, actorDid);
            await client.lease({ resource, actorDid }, once); // a renewal
            holding.delete(resource);
            await client.release({ resource, actorDid }, once);
          } catch {
            // What we held may or may not have been released: the kernel holds that truth.
            holding.delete(resource);
            // The kernel died under us: the round is over. Else a slow answer: ask again.
            if (stop) break;
            await pause(50);
          }
        }
        await client.close();
      });
      const sawGrant = await within(granted, FIRST_GRANT_MS);
      await pause(sawGrant ? Math.random() * KILL_WITHIN_MS : 0);
      stop = true;
      await kernel.stop('SIGKILL');
      await Promise.all(work);
      holding.clear();
      if (!sawGrant) {
        throw new Error(
          `round ${round}: no new grant within ${FIRST_GRANT_MS} ms of the kernel's restart`,
        );
      }
      kernel = await startKernelProcess(args);
    }
    const { bundle } = await fetchLedger(kernel.url);
    await kernel.stop();
    const publicKey = createPublicKey(readFileSync(join(dir, 'ledger.pub'), 'utf8'));
    const verified = verifyBundle(bundle, publicKey);
    expect(verified.count).toBeGreaterThan(0);
    expect(overlaps).toBe(0);
    // Every round saw at least one new grant before its kill.
    expect(grants).toBeGreaterThanOrEqual(RESTARTS);
    // No fence was given with two leases; the ledger's meaning check holds the rest.
    expect(reused).toBe(0);
    console.log(
      `chaos: ${RESTARTS} kill -9 restarts, ${grants} grants seen by clients, ledger of ${verified.size} entries verified`,
    );
    // The ledger, through every restart, replayed through spec/lease.qnt (docs/model.md).
    const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries.map(
      (e) => e.entry,
    );
    const replay = await replayKernelLedger('chaos', entries, TTL_MS, join(dir, 'trace'));
    if (replay) expect(replay.divergences).toEqual([]);
    // Bounded by its rounds' own bounds: a start (10 s), a first grant, a stop (15 s) each.
  }, 300_000);
});
