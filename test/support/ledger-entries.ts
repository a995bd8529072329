import type { LedgerEntry } from '../../src/ledger/entry.js';
import { R } from './names.js';

/**
 * Ledger entries made by hand, for checks that read a ledger (verify, promotion): each
 * call numbers the next entry (seq 0, 1, …, 10 ms apart from 1 s), a grant of `actorDid`
 * on the production resource unless `fields` say otherwise. `restart()` numbers from 0
 * again, for the next ledger of the test.
 */
export function entryMaker(actorDid: string) {
  let seq = 0;
  const entry = (fields: Partial<LedgerEntry>): LedgerEntry => ({
    seq,
    tsMs: 1_000 + 10 * seq++,
    kind: 'grant',
    resource: R,
    actorDid,
    leaseId: '',
    fence: 0,
    ...fields,
  });
  return Object.assign(entry, { restart: () => void (seq = 0) });
}
