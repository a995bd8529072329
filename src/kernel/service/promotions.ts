import { causeText } from '../../errors.js';
import type { GitHubCompare } from '../../github/compare.js';
import { PromotionRecord, commitOf, type Promotion } from '../../ledger/promotion.js';
import type { Deploy } from '../../plane/deploy.js';
import type { PlaneService } from './plane-service.js';

/** What the ledger says of a deploy asking for a resource with a step before it. */
export type PromotionCheck =
  /** `promotedVia`: the completed commit GitHub says contains this one (signed on the grant). */
  | { unpromoted?: undefined; promotedVia?: string }
  /** Why it breaks the order, naming the missing step (refused unless a break-glass names it). */
  | { unpromoted: string; promotedVia?: undefined };

/** Completed commits asked about per request, newest first: each is one compare at most. */
export const MAX_ASKED = 20;

/**
 * The promotion order a kernel was started with (`--promote staging->production`), kept
 * from its ledger: before a lease of a resource that has a step before it, the entries
 * recorded since the last look are read (a replica syncs its ledger first), so the answer
 * is what the ledger shows, the one record `verify` checks offline. Reading a little stale
 * only refuses (a commit whose step before finished a moment ago asks again); it never
 * lets one through early, since a hold completes before its release is recorded.
 */
export class Promotions {
  private readonly record: PromotionRecord;
  private readonly inOrder: ReadonlySet<string>;
  private cursor = 0;
  /** One read of the ledger at a time, in order. */
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly service: Pick<PlaneService, 'ledger' | 'syncLedger'>,
    chain: Map<string, string>,
    /** With it, a descendant of a commit that completed the step passes too. */
    private readonly compare?: GitHubCompare,
  ) {
    this.record = new PromotionRecord(chain);
    this.inOrder = new Set([...chain.keys(), ...chain.values()]);
  }

  get steps(): Promotion[] {
    return this.record.steps;
  }

  /** Whether `resource` is in the order, before or after a step (its commits must be vouched for). */
  ordered(resource: string): boolean {
    return this.inOrder.has(resource);
  }

  /**
   * Whether this deploy may take `resource` now. The same commit completed the step before:
   * yes. Otherwise, with GitHub's compare, the newest commits of its repository that
   * completed it are asked whether they contain this one; the first that does is the
   * answer. GitHub not answering refuses (fail closed), saying so, and so does the
   * caller's GitHub budget being spent (`caller`: whose, auth/caller.ts).
   */
  async check(
    resource: string,
    deploy: Deploy | undefined,
    caller?: string,
  ): Promise<PromotionCheck> {
    const from = this.record.stepBefore(resource);
    if (from === undefined) return {};
    const caughtUp = this.reading.then(() => this.catchUp());
    this.reading = caughtUp.catch(() => undefined);
    await caughtUp;
    const unpromoted = this.record.missing(resource, deploy);
    const c = commitOf(deploy);
    if (unpromoted === undefined || !this.compare || !c) return unpromoted ? { unpromoted } : {};
    const candidates = this.record.completedOn(from, c.repository, MAX_ASKED);
    try {
      for (const done of candidates) {
        if (await this.compare.contains(c.repository, c.commit, done, caller))
          return { promotedVia: done };
      }
    } catch (error) {
      return {
        unpromoted: `${unpromoted}; GitHub could not say whether a commit that completed it contains this one (${causeText(error)})`,
      };
    }
    return {
      unpromoted: candidates.length
        ? `${unpromoted}; GitHub's compare finds it in none of the ${candidates.length} newest commits that did`
        : unpromoted,
    };
  }

  private async catchUp(): Promise<void> {
    await this.service.syncLedger();
    const { ledger } = this.service;
    const size = ledger.size;
    if (this.cursor >= size) return;
    const from = this.cursor;
    // `read` may run its callback again after a fresh load: collect, then add once.
    const entries = await ledger.read(from, size, size, () => {
      const read = [];
      for (let i = from; i < size; i += 1) read.push(ledger.entry(i));
      return read;
    });
    for (const entry of entries) if (entry) this.record.add(entry);
    this.cursor = size;
  }
}
