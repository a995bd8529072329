import { describe, expect, it } from 'vitest';
import { holdsFrom, type TimelineEntry } from '../src/console/page/holds.js';
import { R } from './support/names.js';

const e = (
  tsMs: number,
  kind: TimelineEntry['kind'],
  actorDid: string,
  leaseId: string,
  fence: number,
  reason?: string,
): TimelineEntry => ({
  tsMs,
  kind,
  resource: R,
  actorDid,
  leaseId,
  fence,
  ...(reason ? { reason } : {}),
});

describe('holds drawn from ledger entries', () => {
  it('pairs each grant with its own end and leaves the last hold open', () => {
    const holds = holdsFrom([
      e(100, 'grant', 'did:web:a', 'l1', 1),
      e(400, 'release', 'did:web:a', 'l1', 1),
      e(410, 'grant', 'did:web:b', 'l2', 2),
      e(900, 'lapse', 'did:web:b', 'l2', 2),
      e(950, 'grant', 'did:web:c', 'l3', 3),
      e(990, 'revoke', 'did:web:c', 'l3', 3, 'incident'),
      e(1000, 'grant', 'did:web:a', 'l4', 4),
      { ...e(1001, 'grant', 'did:web:z', 'l5', 1), resource: 'lock:other' },
    ]);
    expect(holds.get(R)).toEqual([
      {
        resource: R,
        holder: 'did:web:a',
        leaseId: 'l1',
        fence: 1,
        startMs: 100,
        endMs: 400,
        end: 'release',
        reason: undefined,
      },
      {
        resource: R,
        holder: 'did:web:b',
        leaseId: 'l2',
        fence: 2,
        startMs: 410,
        endMs: 900,
        end: 'lapse',
        reason: undefined,
      },
      {
        resource: R,
        holder: 'did:web:c',
        leaseId: 'l3',
        fence: 3,
        startMs: 950,
        endMs: 990,
        end: 'revoke',
        reason: 'incident',
      },
      {
        resource: R,
        holder: 'did:web:a',
        leaseId: 'l4',
        fence: 4,
        startMs: 1000,
        endMs: null,
        end: 'open',
      },
    ]);
    expect(holds.get('lock:other')?.map((h) => h.end)).toEqual(['open']);
  });

  it('starts a hold whose grant is before the window at the first entry shown', () => {
    const holds = holdsFrom([
      e(500, 'grant', 'did:web:b', 'l2', 2),
      e(700, 'lapse', 'did:web:a', 'l1', 1),
    ]);
    expect(
      holds.get(R)?.map(({ holder, startMs, endMs, end }) => [holder, startMs, endMs, end]),
    ).toEqual([
      ['did:web:a', 500, 700, 'lapse'],
      ['did:web:b', 500, null, 'open'],
    ]);
  });

  it("keeps the commit a grant was promoted via (by descent), and only a grant's", () => {
    const via = 'ab'.repeat(20);
    const holds = holdsFrom([
      { ...e(100, 'grant', 'did:web:a', 'l1', 1), promotedVia: via },
      e(200, 'release', 'did:web:a', 'l1', 1),
      e(300, 'grant', 'did:web:b', 'l2', 2),
    ]);
    expect(holds.get(R)?.map((hold) => hold.promotedVia)).toEqual([via, undefined]);
  });
});
