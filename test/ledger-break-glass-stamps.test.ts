import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { KernelService } from '../src/kernel/service/service.js';
import { memoryStore } from '../src/kernel/store/store.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { Ledger } from '../src/ledger/ledger.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { A, R } from './support/names.js';

/**
 * verify judges a grant inside a run of +1 ms stamps (which may run ahead of the clock) at
 * the reading that would show a violation: "inside a timed freeze" at the earliest it can
 * have been (the run's first stamp), "after its break-glass ended" at the clock the grant
 * carries (clockMs), else its own stamp. The kernel writes that clock on a grant a pass let
 * through, so its own ledgers still verify.
 */

const HOTFIX = 'did:web:acme.example:agent:hotfix';
const T = 1_800_000_000_000;

/** Entries stamped T+1, T+2, …: every one after the first in one run of +1 stamps. */
function run(...list: Array<Partial<LedgerEntry>>): LedgerEntry[] {
  return list.map((e, i) => ({
    resource: 'lock:other',
    actorDid: 'operator:bob',
    leaseId: '',
    fence: 0,
    kind: 'unfreeze',
    seq: i,
    tsMs: T + 1 + i,
    ...e,
  }));
}
/** `n` entries on another resource that fill a run. */
const filler = (n: number): Array<Partial<LedgerEntry>> =>
  Array.from({ length: n }, () => ({ kind: 'unfreeze' }));
const grant = (actorDid: string, extra: Partial<LedgerEntry> = {}): Partial<LedgerEntry> => ({
  kind: 'grant',
  resource: R,
  actorDid,
  leaseId: 'lease_1',
  fence: 1,
  expiresAtMs: T + 60_000,
  ...extra,
});

describe('a grant in a run of +1 stamps', () => {
  it('is refused when it may fall inside a timed freeze (judged at the run’s first stamp)', () => {
    // Freeze until T+150; entries T+1…T+200; the grant at T+201, in the same run.
    const freeze = { kind: 'freeze', resource: R, reason: 'x', expiresAtMs: T + 150 } as const;
    const entries = run(freeze, ...filler(199), grant(A));
    expect(entries.at(-1)!.tsMs).toBe(T + 201);
    expect(() => checkMeaning(entries, false)).toThrow(
      /entry 200: grants lease_1 on lock:deploy\/production stamped 1800000000201 in a run of \+1 stamps from 1800000000001, so maybe before the freeze's end 1800000000150/,
    );
    // A grant that carries the clock that decided it, at or after the end, is judged by it.
    const clocked = run(freeze, ...filler(199), grant(A, { clockMs: T + 150 }));
    expect(() => checkMeaning(clocked, false)).not.toThrow();
    const early = run(freeze, ...filler(199), grant(A, { clockMs: T + 149 }));
    expect(() => checkMeaning(early, false)).toThrow(
      /entry 200: grants lease_1 .* while it is frozen/,
    );
    // Not in a run (a gap before it): its own stamp is its time, as before.
    const alone = run(freeze, ...filler(199), grant(A)).map((e, i) =>
      i === 200 ? { ...e, tsMs: T + 300 } : e,
    );
    expect(() => checkMeaning(alone, false)).not.toThrow();
  });

  it('is refused when its stamp is past the pass’s end and it carries no earlier clock', () => {
    // A pass ending at T+50 inside an untimed freeze; the grant stamped T+3001 in the run.
    const freeze = { kind: 'freeze', resource: R, reason: 'x' } as const;
    const pass = {
      kind: 'break_glass',
      resource: R,
      actorDid: HOTFIX,
      reason: 'CVE',
      by: 'operator:alice',
      expiresAtMs: T + 50,
    } as const;
    const entries = run(freeze, pass, ...filler(2_998), grant(HOTFIX));
    expect(entries.at(-1)!.tsMs).toBe(T + 3_001);
    expect(() => checkMeaning(entries, false)).toThrow(
      /entry 3000: grants lease_1 .* the break-glass of entry 1 ended at 1800000000050, and the grant is stamped 1800000003001 with no clock of its own \(clockMs\)/,
    );
    // The clock the grant carries says the pass was open: accepted (with the race's margin).
    const clocked = run(freeze, pass, ...filler(2_998), grant(HOTFIX, { clockMs: T + 40 }));
    expect(() => checkMeaning(clocked, false)).not.toThrow();
    const late = run(freeze, pass, ...filler(2_998), grant(HOTFIX, { clockMs: T + 1_050 }));
    expect(() => checkMeaning(late, false)).toThrow(/ended at 1800000000050/);
    // A clock above its own stamp is refused, as a lapse's is.
    const ahead = run(freeze, pass, grant(HOTFIX, { clockMs: T + 9_000 }));
    expect(() => checkMeaning(ahead, false)).toThrow(/clockMs 1800000009000 is after its stamp/);
  });

  it('is written by the kernel with the clock that let it through, and verifies', async () => {
    let clock = T;
    const { service } = await KernelService.open({
      table: new ResourceTable({ ttlMs: 30_000 }),
      store: memoryStore(),
      ledger: new Ledger(),
      now: () => clock,
    });
    try {
      await service.freeze(R, 'release freeze', null, 'operator:alice');
      clock += 10;
      await service.breakGlass(R, {
        actorDid: HOTFIX,
        reason: 'CVE',
        untilMs: clock + 500,
        by: 'operator:alice',
        needsApproval: false,
      });
      // A burst in this one millisecond: 2 000 entries stamped one apart, ahead of the clock.
      await Promise.all(
        Array.from({ length: 1_000 }, (_, i) =>
          service.freeze(`lock:burst/${i}`, 'x', null, 'operator:bob'),
        ),
      );
      await Promise.all(
        Array.from({ length: 1_000 }, (_, i) =>
          service.unfreeze(`lock:burst/${i}`, 'operator:bob'),
        ),
      );
      expect(await service.lease(R, HOTFIX)).toMatchObject({ ok: true });
      const entries = await service.ledger.read(0, service.ledger.size, service.ledger.size, () =>
        Array.from({ length: service.ledger.size }, (_, i) => service.ledger.entry(i)!),
      );
      const granted = entries.at(-1)!;
      expect(granted).toMatchObject({ kind: 'grant', actorDid: HOTFIX, clockMs: clock });
      // Its stamp ran 2 000 ms ahead of the clock, past the pass's end and the race's margin.
      expect(granted.tsMs).toBeGreaterThan(clock + 500 + 1_000);
      expect(() => checkMeaning(entries, false)).not.toThrow();
      // The other grants in the run carry none: only a pass's grant needs it.
      expect(await service.lease('lock:burst/1', A)).toMatchObject({ ok: true });
      expect(service.ledger.entry(service.ledger.size - 1)!.clockMs).toBeUndefined();
    } finally {
      await service.close();
    }
  });
});
