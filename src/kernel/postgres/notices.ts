import type pg from 'pg';
import type { ChangeNotice } from '../backend.js';
import type { KernelEvent } from '../event.js';
import { describe } from './connect.js';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; ours stay below this. */
const MAX_PAYLOAD = 7_000;
/** Notices per NOTIFY statement at most. */
const MAX_PER_SEND = 1_000;

/**
 * One replica's change notices, sent after their commits rather than inside
 * them. A NOTIFY in a transaction takes a lock that every notifying commit in
 * the database waits for from before its WAL flush to its end, so commits with
 * a NOTIFY cannot share a flush; sent after, each change commits on its own.
 * Notices go out in the order their commits were answered here, coalesced (one
 * statement for all that queued while the last one was out), on a connection
 * of their own. A notice lost to a crash or a broken connection only delays a
 * wake-up: a held request asks again when its told wait runs out, and a watch
 * looks again when its wait ends (docs/self-hosting.md).
 */
export class NoticeSender {
  private queue: string[] = [];
  private sending: Promise<void> | undefined;
  private failing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Queues a batch's events (in commit order), one notice per resource, each small enough. */
  changed(events: readonly KernelEvent[]): void {
    const byResource = new Map<string, KernelEvent[]>();
    for (const e of events) {
      const list = byResource.get(e.resource);
      if (list) list.push(e);
      else byResource.set(e.resource, [e]);
    }
    for (const [resource, list] of byResource) this.queue.push(...payloads(resource, list));
    this.drain();
  }

  /** A change with no ledger entry that may free the resource (a revoked holder gave back). */
  freed(resource: string): void {
    this.queue.push(freedNotice(resource));
    this.drain();
  }

  /** Resolves once everything queued has been sent (or given up). */
  async idle(): Promise<void> {
    while (this.sending) await this.sending;
  }

  /** Sends what is queued, then closes its connection. */
  async close(): Promise<void> {
    await this.idle();
    await this.pool.end().catch(() => undefined);
  }

  private drain(): void {
    if (this.sending) return;
    this.sending = this.sendAll().finally(() => {
      this.sending = undefined;
    });
  }

  private async sendAll(): Promise<void> {
    while (this.queue.length > 0) {
      const notices = this.queue.splice(0, MAX_PER_SEND);
      try {
        await this.pool.query('SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n', [
          this.channel,
          notices,
        ]);
        if (this.failing) this.log('kernel: change notices are sent again');
        this.failing = false;
      } catch (error) {
        if (!this.failing)
          this.log(
            `kernel: could not tell the other replicas of ${notices.length} change(s); their waiters ask again when their wait runs out: ${describe(error)}`,
          );
        this.failing = true;
      }
    }
  }
}

/** "Changed, may be free": wakes the waiters, who ask again. */
const freedNotice = (resource: string) =>
  JSON.stringify({ resource, events: [], freed: true } satisfies ChangeNotice);

/**
 * A resource's events as notices under the payload limit, in order; an event
 * too large on its own is told as "changed, may be free", which wakes the
 * waiters (they ask again) though a watch then learns the end from the ledger.
 */
function payloads(resource: string, events: readonly KernelEvent[]): string[] {
  const out: string[] = [];
  let part: KernelEvent[] = [];
  let size = 0;
  const flush = () => {
    if (part.length) out.push(JSON.stringify({ resource, events: part } satisfies ChangeNotice));
    part = [];
    size = 0;
  };
  for (const event of events) {
    const length = Buffer.byteLength(JSON.stringify(event)) + 1;
    if (length + 100 + resource.length > MAX_PAYLOAD) {
      flush();
      out.push(freedNotice(resource));
      continue;
    }
    if (size + length + 100 + resource.length > MAX_PAYLOAD) flush();
    part.push(event);
    size += length;
  }
  flush();
  return out;
}
