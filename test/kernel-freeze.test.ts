import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitForLease } from '../src/gate/wait.js';
import { LeaseKernel } from '../src/kernel/rules/core.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { canonicalJson } from '../src/plane/canonical-json.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { describeWaitState } from '../src/lease/texts.js';
import { createPlaneClient } from '../src/plane/client.js';
import { kernelClient } from './support/kernel-client.js';
import { exportLedger } from './support/ledger-export.js';
import { describeEachStore } from './support/store-kernels.js';
import { A, B, R } from './support/names.js';

/** The operator's freeze: over HTTP on every store, in the gate's wait, and in the ledger's meaning. */

const ADMIN = 'freeze-admin-key';

describeEachStore('freeze over HTTP', (start) => {
  it('keeps the holder, refuses everyone else with frozen, and hands over after unfreeze', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    try {
      expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
      const frozen = await client.freeze({ resource: R, reason: 'incident 42' }, ADMIN);
      expect(frozen).toEqual({ until: null, changed: true });
      // The holder's renewals go on.
      expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
      const refused = await client.lease({ resource: R, actorDid: B });
      expect(refused).toMatchObject({ kind: 'frozen', untilMs: undefined, position: 0 });
      expect(refused.kind === 'frozen' && refused.message).toBe(
        'frozen until an operator unfreezes it: incident 42',
      );
      // Free, but still frozen: nobody new.
      await client.release({ resource: R, actorDid: A });
      expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'frozen' });
      expect(await client.unfreeze(R, ADMIN)).toEqual({ changed: true });
      expect(await client.unfreeze(R, ADMIN)).toEqual({ changed: false });
      expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'granted' });

      const { bundle, publicKey: served, entries } = await exportLedger(url);
      expect(served).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString());
      const kinds = entries.map((e) => e.kind);
      expect(kinds).toEqual(['grant', 'freeze', 'renew', 'release', 'unfreeze', 'grant']);
      const freeze = entries[1]!;
      expect(freeze).toMatchObject({ reason: 'incident 42', leaseId: '', fence: 0 });
      expect(verifyBundle(bundle, createPublicKey(served))).toMatchObject({ count: 6 });
    } finally {
      await client.close();
    }
  });

  it('refuses a freeze without the admin key or with bad input, changing nothing', async () => {
    const { url } = await start({ adminKey: ADMIN });
    const client = createPlaneClient({ apiUrl: url });
    try {
      await expect(client.freeze({ resource: R, reason: 'x' }, 'wrong')).rejects.toThrow();
      await expect(
        client.freeze({ resource: R, reason: 'x', untilMs: 1_000 }, ADMIN),
      ).rejects.toThrow(/untilMs: expected a time after now/);
      await expect(client.freeze({ resource: R, reason: '' }, ADMIN)).rejects.toThrow(/reason/);
      expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
    } finally {
      await client.close();
    }
  });

  it("records the operator's name (by) in the ledger, and refuses a bad one changing nothing", async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    try {
      for (const bad of ['', 'alice smith', 'alice\nrevoked', '<b>x</b>', 'a'.repeat(65), '-x']) {
        await expect(
          client.freeze({ resource: R, reason: 'incident 9', by: bad }, ADMIN),
        ).rejects.toThrow(/by: expected a name of 1 to 64 letters/);
      }
      expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
      await client.freeze({ resource: R, reason: 'incident 9', by: 'alice@ops' }, ADMIN);
      const refused = await client.lease({ resource: R, actorDid: B });
      expect(refused.kind === 'frozen' && refused.message).toBe(
        'frozen by operator alice@ops until unfrozen: incident 9',
      );
      await expect(client.unfreeze(R, ADMIN, {}, 'bob smith')).rejects.toThrow(/by: expected/);
      expect(await client.unfreeze(R, ADMIN, {}, 'bob.o')).toEqual({ changed: true });
      const { entries } = await exportLedger(url);
      expect(entries.map((e) => [e.kind, e.actorDid])).toEqual([
        ['grant', A],
        ['freeze', 'operator:alice@ops'],
        ['unfreeze', 'operator:bob.o'],
      ]);
    } finally {
      await client.close();
    }
  });

  it('ends a timed freeze by itself, and records its end', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    try {
      const { until } = await client.freeze({ resource: R, reason: 'short', forMs: 300 }, ADMIN);
      const refused = await client.lease({ resource: R, actorDid: A });
      expect(refused).toMatchObject({ kind: 'frozen', untilMs: until });
      expect(refused.kind === 'frozen' && refused.waitMs).toBeLessThanOrEqual(300);
      // Generous: the alarm at the freeze's end, on two busy cores.
      for (let i = 0; i < 100; i += 1) {
        const answer = await client.lease({ resource: R, actorDid: A });
        if (answer.kind === 'granted') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const { entries } = await exportLedger(url);
      expect(entries.map((e) => e.kind)).toEqual(['freeze', 'unfreeze', 'grant']);
      expect(entries[1]!.reason).toBe('the freeze ended');
      expect(entries[2]!.tsMs).toBeGreaterThanOrEqual(until!);
    } finally {
      await client.close();
    }
  });
});

describe('a frozen resource in the gate', () => {
  it('waits through a freeze within the budget, says why, and is granted after unfreeze', async () => {
    const kernel = new LeaseKernel();
    let now = 1_000_000;
    const clock = { now: () => now };
    kernel.lease(R, A, now);
    kernel.freeze(R, 'release freeze', now + 60_000, now);
    const notices: string[] = [];
    const result = await waitForLease({
      client: kernelClient(kernel, clock),
      resource: R,
      actorDid: B,
      timeoutMs: 120_000,
      clock,
      sleep: async (ms) => {
        now += ms;
        if (now > 1_030_000) kernel.release(R, A, now);
      },
      random: () => 0,
      onHeld: (e) => void notices.push(describeWaitState(e)),
    });
    expect(result).toMatchObject({ outcome: 'granted' });
    expect(now).toBeGreaterThanOrEqual(1_060_000);
    expect(notices[0]).toBe('frozen until 1970-01-01T00:17:40Z by an operator: release freeze');
  });

  it('times out on a freeze with what it was waiting for', async () => {
    const kernel = new LeaseKernel();
    let now = 5_000;
    const clock = { now: () => now };
    kernel.freeze(R, 'incident', null, now);
    const result = await waitForLease({
      client: kernelClient(kernel, clock),
      resource: R,
      actorDid: B,
      timeoutMs: 20_000,
      clock,
      sleep: async (ms) => void (now += ms),
      random: () => 0,
    });
    expect(result).toMatchObject({ outcome: 'timeout', frozen: { untilMs: undefined } });
    if (result.outcome !== 'timeout') throw new Error('expected a timeout');
    expect(describeWaitState(result)).toBe('frozen until an operator unfreezes it: incident');
  });
});

describe("a freeze's meaning in the ledger", () => {
  const base = { actorDid: A, resource: R, fence: 1, leaseId: 'lease_1' };
  const entries = (...list: Array<Partial<LedgerEntry>>): LedgerEntry[] =>
    list.map((e, i) => ({ ...base, seq: i, tsMs: 100 + i * 10, kind: 'grant', ...e }));

  it('refuses a grant inside a freeze, and a freeze that names a lease', () => {
    const freeze = {
      kind: 'freeze' as const,
      actorDid: 'operator',
      leaseId: '',
      fence: 0,
      reason: 'x',
    };
    expect(() => checkMeaning(entries(freeze, { fence: 1 }), false)).toThrow(
      /grants lease_1 on lock:deploy\/production while it is frozen \(entry 0\)/,
    );
    expect(() => checkMeaning(entries({ ...freeze, leaseId: 'lease_1' }), false)).toThrow(
      /a freeze names no lease/,
    );
    // After its unfreeze, or past the end it named, a grant is fine.
    const unfreeze = { ...freeze, kind: 'unfreeze' as const };
    expect(() => checkMeaning(entries(freeze, unfreeze, {}), false)).not.toThrow();
    expect(() => checkMeaning(entries({ ...freeze, expiresAtMs: 105 }, {}), false)).not.toThrow();
    // A freeze does not touch the open lease: its renewals and end still match.
    const held = entries({}, freeze, { kind: 'renew' }, { kind: 'release' });
    expect(() => checkMeaning(held, false)).not.toThrow();
    expect(canonicalJson(held[1])).toContain('"kind":"freeze"');
  });
});
