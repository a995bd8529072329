import type { LedgerEntry } from '../../ledger/entry.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { BreakGlassReply } from '../rules/break-glass.js';

/** How many ledger entries one read of the local ledger looks at. */
const WINDOW = 4_096;

interface LedgerReader {
  readonly ledger: Ledger;
  searchLedger?(needle: string, from: number, limit: number): Promise<number[]>;
}

/**
 * One OIDC approval (a run's attempt) approves one break-glass, across resources and
 * restarts: a token of a team that may approve would otherwise let any number of jobs past
 * any number of freezes. The rules see one resource at a time, so the service asks here
 * first, one approval at a time in this process: an approval already recorded on the
 * ledger (`approval` of a `break_glass` entry), or approved here since, is refused.
 *
 * The ledger is the memory: a restart forgets nothing. With PostgreSQL replicas, two
 * replicas approving with one token in the same moment could both pass the search (the
 * entry of the first is not sequenced yet); `verify` refuses such a ledger.
 */
export class PassApprovals {
  private readonly used = new Map<string, string>();
  /** Local ledgers: entries below this index have been read into `used`. */
  private scanned = 0;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly reader: LedgerReader) {}

  /** Runs `approve` unless `approval` approved a pass before; one at a time. */
  once(
    approval: string,
    resource: string,
    approve: () => Promise<BreakGlassReply>,
  ): Promise<BreakGlassReply> {
    const next = this.turn.then(async (): Promise<BreakGlassReply> => {
      const where = this.used.get(approval) ?? (await this.recorded(approval));
      if (where !== undefined) {
        return {
          ok: false,
          reason: 'approval_used',
          message: `${approval} already approved a break-glass (${where}): one approval approves one pass; approve this one from another run`,
        };
      }
      const reply = await approve();
      if (reply.ok) this.used.set(approval, `on ${resource}`);
      return reply;
    });
    this.turn = next.catch(() => undefined);
    return next;
  }

  /** Where the ledger records `approval` on a pass, if it does. */
  private async recorded(approval: string): Promise<string | undefined> {
    const { ledger, searchLedger } = this.reader;
    if (searchLedger) {
      // Lines in canonical JSON: a string's quotes are escaped, so only the field itself matches.
      const needle = `"approval":${JSON.stringify(approval)}`;
      const [seq] = await searchLedger.call(this.reader, needle, 0, 1);
      return seq === undefined ? undefined : `ledger entry ${seq}`;
    }
    const size = ledger.size;
    for (let lo = this.scanned; lo < size; lo += WINDOW) {
      const hi = Math.min(size, lo + WINDOW);
      await ledger.read(lo, hi, size, () => {
        for (let i = lo; i < hi; i += 1) this.note(ledger.entry(i));
      });
      this.scanned = hi;
    }
    return this.used.get(approval);
  }

  private note(e: LedgerEntry | undefined): void {
    if (e?.kind === 'break_glass' && e.approval !== undefined && !this.used.has(e.approval))
      this.used.set(e.approval, `ledger entry ${e.seq}`);
  }
}
