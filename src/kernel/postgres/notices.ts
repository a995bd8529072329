import type pg from 'pg';
import type { ChangeNotice } from '../store/backend.js';
import type { KernelEvent } from '../rules/event.js';
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
 * statement for all that queued while the last one was out, as few payloads
 * as fit, each naming this replica so it skips its own), on a connection of
 * their own, without waiting for a WAL flush: a notice is no record. A notice
 * lost to a crash or a broken connection only delays a wake-up: a held request
 * asks again when its told wait runs out, and a watch looks again when its
 * wait ends (docs/self-hosting.md).
 */
export class NoticeSender {
  /** Each queued notice as JSON, under the payload limit. */
  private queue: string[] = [];
  private sending: Promise<void> | undefined;
  private failing = false;
  private readonly head: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly log: (line: string) => void,
    /** This replica's name in its payloads (noticePrefix). */
    from: string,
  ) {
    this.head = noticePrefix(from);
  }

  /** Queues one batch's notices (changesOf), each split small enough. */
  changed(notices: readonly ChangeNotice[]): void {
    for (const notice of notices) this.queue.push(...payloads(notice.resource, notice.events));
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
        await this.pool.query(
          `SELECT pg_notify($1, n) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS s,
                  unnest($2::text[]) AS n`,
          [this.channel, packed(this.head, notices)],
        );
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

/** How a replica's payloads begin: another replica parses them, this one skips them. */
export const noticePrefix = (from: string) => `{"from":${JSON.stringify(from)},"changes":[`;

/** A batch's events as one notice per resource, in the order each resource first changed. */
export function changesOf(events: readonly KernelEvent[]): ChangeNotice[] {
  const byResource = new Map<string, KernelEvent[]>();
  for (const e of events) {
    const list = byResource.get(e.resource);
    if (list) list.push(e);
    else byResource.set(e.resource, [e]);
  }
  return [...byResource].map(([resource, list]) => ({ resource, events: list }));
}

/** Notices, in order, joined into as few payloads as stay under the limit. */
function packed(head: string, notices: readonly string[]): string[] {
  const out: string[] = [];
  let part = '';
  let bytes = Buffer.byteLength(head) + 2;
  for (const notice of notices) {
    const length = Buffer.byteLength(notice) + 1;
    if (part && bytes + length > MAX_PAYLOAD) {
      out.push(`${head}${part}]}`);
      part = '';
      bytes = Buffer.byteLength(head) + 2;
    }
    part += part ? `,${notice}` : notice;
    bytes += length;
  }
  if (part) out.push(`${head}${part}]}`);
  return out;
}

/** "Changed, may be free": wakes the waiters, who ask again. */
const freedNotice = (resource: string) =>
  JSON.stringify({ resource, events: [], freed: true } satisfies ChangeNotice);

/**
 * A resource's events as notices under the payload limit (with room for a
 * replica's name), in order; an event too large on its own is told as
 * "changed, may be free", which wakes the waiters (they ask again) though a
 * watch then learns the end from the ledger.
 */
function payloads(resource: string, events: readonly KernelEvent[]): string[] {
  const out: string[] = [];
  let part: KernelEvent[] = [];
  let size = 0;
  // The notice's own words, its resource's JSON and a replica's name, with room to spare.
  const overhead = 200 + Buffer.byteLength(JSON.stringify(resource));
  const flush = () => {
    if (part.length) out.push(JSON.stringify({ resource, events: part } satisfies ChangeNotice));
    part = [];
    size = 0;
  };
  for (const event of events) {
    const length = Buffer.byteLength(JSON.stringify(event)) + 1;
    if (length + overhead > MAX_PAYLOAD) {
      flush();
      out.push(freedNotice(resource));
      continue;
    }
    if (size + length + overhead > MAX_PAYLOAD) flush();
    part.push(event);
    size += length;
  }
  flush();
  return out;
}
