import { describe, expect, it } from 'vitest';
import { failoverHold, fenceFloor, MAX_TIMELINE } from '../src/kernel/rules/failover.js';
import { decide, emptyState, type RuleContext } from '../src/kernel/rules/rules.js';

const TTL = 30_000;
const ctx = (now: number, failover?: RuleContext['failover']): RuleContext => {
  let fence = 100;
  return {
    now,
    ttlMs: TTL,
    nextInLineWaitMs: 500,
    nextFence: () => (fence += 1),
    random: () => 0.5,
    failover,
  };
};

describe('the rules after a failover (pure)', () => {
  it('fences of timeline t start at (t - 1) · 2^40, and stay exact numbers', () => {
    expect(fenceFloor(1)).toBe(0);
    expect(fenceFloor(2)).toBe(2 ** 40);
    expect(fenceFloor(MAX_TIMELINE)! + 2 ** 40 - 1).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    expect(fenceFloor(MAX_TIMELINE + 1)).toBeUndefined();
    expect(fenceFloor(0)).toBeUndefined();
  });

  it('hold one lease time from the change, then nothing', () => {
    expect(failoverHold(1_000, TTL, 1_000 + TTL - 1, 2)?.untilMs).toBe(1_000 + TTL);
    expect(failoverHold(1_000, TTL, 1_000 + TTL, 2)).toBeUndefined();
    expect(failoverHold(0, TTL, 5, 2)).toBeUndefined();
  });

  it('refuse a grant and a renewal during the hold, and change nothing', () => {
    const held = decide(emptyState('r'), { kind: 'lease', actorDid: 'did:web:a' }, ctx(0));
    expect(held.reply.ok).toBe(true);
    const hold = failoverHold(1_000, TTL, 2_000, 2);
    for (const actorDid of ['did:web:a', 'did:web:b']) {
      const refused = decide(held.state, { kind: 'lease', actorDid }, ctx(2_000, hold));
      expect(refused.reply).toMatchObject({ ok: false, reason: 'frozen', until: 1_000 + TTL });
      expect(
        refused.reply.ok === false && 'message' in refused.reply && refused.reply.message,
      ).toMatch(/by the kernel: the database failed over to timeline 2/);
      expect(refused.events).toEqual([]);
      expect(refused.state).toEqual(held.state);
    }
    // A release is never held back.
    const released = decide(
      held.state,
      { kind: 'release', actorDid: 'did:web:a' },
      ctx(2_000, hold),
    );
    expect(released.reply.released).toBe(true);
  });
});
