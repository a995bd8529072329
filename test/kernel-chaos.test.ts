import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';

const RESTARTS = 20;
/** No retries: a kernel killed under a client ends its round. */
const once = { retryUntilMs: 0 };
const CLIENTS = 12;

describe('the kernel under kill -9', () => {
  it(`keeps one truth across ${RESTARTS} kill -9 restarts with ${CLIENTS} renewing clients`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-chaos-'));
    expect((await runCli(['keygen', '--out', dir])).code).toBe(0);
    const args = [
      '--data-prefix',
      join(dir, 'state.json'),
      '--quiet',
      '--ttl-ms',
      '2000',
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
    const deadline = Date.now() + 60_000;
    let kernel: KernelProcess = await startKernelProcess(args);
    for (let round = 0; round < RESTARTS && Date.now() < deadline; round += 1) {
      const url = kernel.url;
      let stop = false;
      const work = Array.from({ length: CLIENTS }, async (_, i) => {
        const actorDid = `did:web:chaos:c${i}`;
        const resource = `lock:chaos/${i % 3}`;
        const client = createPlaneClient({ apiUrl: url, requestTimeoutMs: 2_000 });
        for (let n = 0; n < 30 && !stop; n += 1) {
          try {
            const answer = await client.lease({ resource, actorDid }, once);
            if (answer.kind !== 'granted') continue;
            const other = holding.get(resource);
            if (other && other !== actorDid) overlaps += 1;
            const seen = fences.get(answer.lease.fence!);
            if (seen === undefined) grants += 1;
            // A renewal of a lease held before a kill keeps its fence; another lease may not.
            else if (seen !== answer.lease.id) reused += 1;
            fences.set(answer.lease.fence!, answer.lease.id);
            holding.set(resource, actorDid);
            await client.lease({ resource, actorDid }, once); // a renewal
            holding.delete(resource);
            await client.release({ resource, actorDid }, once);
          } catch {
            // The kernel died under us: what we held may or may not have been released.
            holding.delete(resource);
            return;
          }
        }
      });
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 250));
      stop = true;
      await kernel.stop('SIGKILL');
      await Promise.all(work);
      holding.clear();
      kernel = await startKernelProcess(args);
    }
    const { bundle } = await fetchLedger(kernel.url);
    await kernel.stop();
    const publicKey = createPublicKey(readFileSync(join(dir, 'ledger.pub'), 'utf8'));
    const verified = verifyBundle(bundle, publicKey);
    expect(verified.count).toBeGreaterThan(0);
    expect(overlaps).toBe(0);
    expect(grants).toBeGreaterThan(RESTARTS);
    // No fence was given with two leases; the ledger's meaning check holds the rest.
    expect(reused).toBe(0);
    console.log(
      `chaos: ${RESTARTS} kill -9 restarts, ${grants} grants seen by clients, ledger of ${verified.size} entries verified`,
    );
  }, 120_000);
});
