import { PromotionRecord, type Promotion } from '../../ledger/promotion.js';
import type { Deploy } from '../../plane/deploy.js';
import type { PlaneService } from './plane-service.js';

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
  private cursor = 0;
  /** One read of the ledger at a time, in order. */
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly service: Pick<PlaneService, 'ledger' | 'syncLedger'>,
    chain: Map<string, string>,
  ) {
    this.record = new PromotionRecord(chain);
  }

  get steps(): Promotion[] {
    return this.record.steps;
  }

  /** Why this deploy may not take `resource` now (naming the missing step), or undefined. */
  async missing(resource: string, deploy: Deploy | undefined): Promise<string | undefined> {
    if (this.record.stepBefore(resource) === undefined) return undefined;
    const caughtUp = this.reading.then(() => this.catchUp());
    this.reading = caughtUp.catch(() => undefined);
    await caughtUp;
    return this.record.missing(resource, deploy);
  }

  private async catchUp(): Promise<void> {
    await this.service.syncLedger?.();
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
