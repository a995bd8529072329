import { describe, expect, it } from 'vitest';
import { waitForLease } from '../src/gate/wait.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer } from '../src/kernel/http/server.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { createPlaneClient } from '../src/plane/client.js';
import { realSleep, systemClock } from '../src/plane/time.js';

describe('the kernel under contention', () => {
  it('never lets two of 12 clients hold at once over 360 acquire/release cycles', async () => {
    const running = await startKernelServer({
      table: new ResourceTable({ nextInLineWaitMs: 5 }),
      store: memoryStore(),
    });
    const clients = 12;
    const cycles = 30;
    let inside = 0;
    let overlaps = 0;
    let grants = 0;
    try {
      await Promise.all(
        Array.from({ length: clients }, async (_, i) => {
          const actorDid = `did:web:stress:agent${i}`;
          const client = createPlaneClient({ apiUrl: running.url });
          for (let c = 0; c < cycles; c += 1) {
            const result = await waitForLease({
              client,
              resource: 'lock:deploy/production',
              actorDid,
              timeoutMs: 60_000,
              clock: systemClock,
              sleep: (ms, signal) => realSleep(Math.min(ms, 20), signal),
              random: Math.random,
            });
            expect(result.outcome).toBe('granted');
            inside += 1;
            grants += 1;
            if (inside !== 1) overlaps += 1;
            await realSleep(Math.random() * 2);
            inside -= 1;
            const released = await client.release({ resource: 'lock:deploy/production', actorDid });
            expect(released.released).toBe(true);
          }
        }),
      );
    } finally {
      await running.close();
    }
    expect(grants).toBe(clients * cycles);
    expect(overlaps).toBe(0);
  });
});
