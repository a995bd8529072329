import type { LeaseKernel } from '../../src/kernel/rules/core.js';
import type { PlaneClient } from '../../src/plane/client.js';
import type { LeaseAnswer } from '../../src/plane/schema.js';
import type { Clock } from '../../src/plane/time.js';

/** The real kernel core behind the client interface, on the test's clock: no HTTP, no mocks. */
export function kernelClient(
  kernel: LeaseKernel,
  clock: Clock,
): Pick<PlaneClient, 'lease' | 'release'> {
  return {
    lease: async ({ resource, actorDid }): Promise<LeaseAnswer> => {
      const reply = kernel.lease(resource, actorDid, clock.now());
      // The lease time told as the kernel's HTTP answer tells it (app.ts publicLease).
      if (reply.ok) return { kind: 'granted', lease: { ...reply.lease, ttlMs: kernel.ttlMs } };
      if (reply.reason === 'revoked') {
        return { kind: 'revoked', holder: reply.holder, message: reply.message };
      }
      if (reply.reason === 'superseded') return { kind: 'superseded', by: reply.by };
      if (reply.reason === 'not_promoted')
        return { kind: 'refused', reason: reply.reason, message: reply.message };
      if (reply.reason === 'frozen') {
        const untilMs = reply.until ?? undefined;
        return { kind: 'frozen', message: reply.message, untilMs, waitMs: reply.stampede.waitMs };
      }
      return {
        kind: 'held',
        holder: reply.holder,
        waitMs: reply.stampede.waitMs,
        reserved: reply.reserved === true,
        preferenceApplied: false,
      };
    },
    release: async ({ resource, actorDid }) => kernel.release(resource, actorDid, clock.now()),
  };
}
