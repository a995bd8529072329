import { createHmac } from 'node:crypto';
import { createHttpClient, type HttpClient } from '../../http/client.js';
import { urlForDisplay } from '../../http/url-display.js';
import type { LedgerEntry } from '../../ledger/entry.js';
import type { PlaneService } from '../service/plane-service.js';
import {
  deliveryOf,
  isNotified,
  notificationOf,
  type Delivery,
  type Notification,
  type NotificationKind,
} from './notification.js';
import { checkNotifyUrl } from './notify-config.js';
import { causeText } from '../../errors.js';

/**
 * Signed notifications (`lease-gate kernel --notify URL --notify-secret-file FILE`):
 * every grant, release, lapse, revoke, freeze and unfreeze, once durable, is
 * POSTed as JSON to each URL, signed as GitHub signs its webhooks
 * (`X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body, hex>`) with a delivery
 * id (`X-Lease-Gate-Delivery`). The service tells the notifier after its commit,
 * and the notifier only queues there: a lease answer never waits for a delivery.
 * Per URL, deliveries go one at a time in the order the changes happened (so in
 * order per resource); what queued while one was out goes together in the next
 * (a batch), so a busy kernel sends one POST per round trip, not one per change.
 * A failed delivery is retried, same body and id, with back-off (doubling from
 * 250 ms to 30 s) for up to `retryForMs`, then given up, counted and shown in
 * `/readyz` and the console. A URL more than MAX_QUEUED behind drops new changes,
 * counted too, so a dead receiver costs bounded memory.
 *
 * Notifications follow the ledger: each is made from a ledger entry, and its id is derived
 * from that entry (`notificationId`), so a notification sent again after a restart has the
 * id it had (a receiver dedupes by it). `onDelivered` is told when a URL's delivery has
 * ended, which is where a file kernel's cursor moves (notify-cursor.ts); `resumeAt` skips
 * what a URL already had.
 */

/** A queue this long per URL drops new news (counted) rather than grow without end. */
const MAX_QUEUED = 10_000;
/** At most this many changes in one POST (a few hundred KB of JSON). */
const MAX_BATCH = 1_000;
/** The shortest time between two POSTs to one URL (the first after a quiet spell goes at once). */
const PACE_MS = 50;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const DEFAULT_RETRY_FOR_MS = 10 * 60_000;
const KEPT_FAILURES = 20;

/** GitHub's webhook signature of a body. */
export const signBody = (secret: string, body: string | Uint8Array) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export interface NotifierOptions {
  urls: string[];
  secret: string;
  http?: HttpClient | undefined;
  /** How long one delivery is retried before it is given up. */
  retryForMs?: number | undefined;
  now?: () => number;
  /** Waits between attempts; resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  log?: (line: string) => void;
  /** Told after each delivery ends (sent or given up) and when drops begin: `health()` changed. */
  onChange?: () => void;
  /**
   * Told when a delivery to `url` has ended, answered 2xx or given up (counted, logged,
   * shown), with its last notification: everything of the ledger up to it is done for `url`.
   * Not told of a delivery cut short by `close()`: that one is still owed.
   */
  onDelivered?: (url: string, last: Notification) => void;
}

export interface FailedDelivery {
  id: string;
  url: string;
  kind: NotificationKind;
  resource: string;
  error: string;
  atMs: number;
}

/** What `/readyz` and the console show of notifications. */
export interface NotifierHealth {
  ok: boolean;
  /** Notifications received by a URL (a batch counts each of its own). */
  delivered: number;
  /** POSTs answered 2xx. */
  requests: number;
  /** Queued, summed over the URLs. */
  pending: number;
  /** Notifications given up after their retry time. */
  failed: number;
  /** Notifications never queued: their URL was too far behind (or the thread had stopped). */
  dropped: number;
  recentFailures: FailedDelivery[];
  /** Set when notifications have stopped altogether (the thread that sends them is gone). */
  stopped?: string;
}

interface Queued {
  /** The change as the ledger has it; its notification is made when it is sent. */
  entry: LedgerEntry;
}

/**
 * One URL's news: a single FIFO (so in order per resource too) drained by one loop with
 * one request in flight. Whatever queued while a request was out goes in the next one as a
 * batch, so under load the kernel sends one POST per round trip, not one per change.
 */
class Target {
  private items: Queued[] = [];
  private head = 0;
  dropped = 0;
  draining = false;
  /** When the last POST to this URL began (performance.now()). */
  sentAt = -Infinity;
  /** The first ledger index this URL is sent: it had what came before (resumeAt). */
  from = 0;

  constructor(readonly url: string) {}

  get queued(): number {
    return this.items.length - this.head;
  }

  add(item: Queued): void {
    this.items.push(item);
  }

  /** Up to `max` of the oldest, left in place until `done`. */
  peek(max: number): Queued[] {
    return this.items.slice(this.head, this.head + max);
  }

  done(count: number): void {
    this.head += count;
    // Compacts now and then: O(1) a change, memory bounded by what is queued.
    if (this.head > 1_024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

export class Notifier {
  private readonly targets: Target[];
  private readonly http: HttpClient;
  private readonly ownHttp: boolean;
  private readonly retryForMs: number;
  private readonly now: () => number;
  private readonly failures: FailedDelivery[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private delivered = 0;
  private deliveries = 0;
  private failedCount = 0;

  constructor(private readonly options: NotifierOptions) {
    this.targets = options.urls.map((url) => new Target(checkNotifyUrl(url)));
    this.ownHttp = options.http === undefined;
    this.http = options.http ?? createHttpClient({ headersTimeoutMs: 10_000 });
    this.retryForMs = options.retryForMs ?? DEFAULT_RETRY_FOR_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Subscribes to the service's changes as the ledger records them (once, in order, across
   * replicas too); returns what `/readyz` shows.
   */
  attach(service: Pick<PlaneService, 'onRecorded'>): { health(): Record<string, unknown> } {
    service.onRecorded((entries) => {
      for (const entry of entries) this.push(entry);
    });
    return { health: () => ({ notifications: this.health() }) };
  }

  /** Entries before `seq` are not sent to `url` (it had them before a restart); by URL as given. */
  resumeAt(from: Readonly<Record<string, number>>): void {
    for (const target of this.targets) target.from = from[target.url] ?? target.from;
  }

  /**
   * Queues a change (called after its commit, on the answer's path): no I/O, no
   * serialising, nothing awaited; the body is made when it is sent.
   */
  push(entry: LedgerEntry): void {
    if (!isNotified(entry) || this.stop.signal.aborted) return;
    for (const target of this.targets) {
      if (entry.seq < target.from) continue;
      if (target.queued >= MAX_QUEUED) {
        // The newest is dropped, so what a receiver gets stays a gapless prefix; counted.
        target.dropped += 1;
        if (target.dropped === 1) {
          this.options.log?.(
            `kernel: notifications to ${new URL(target.url).origin} are ${MAX_QUEUED} behind; dropping new ones (counted in /readyz)`,
          );
          this.options.onChange?.();
        }
        continue;
      }
      target.add({ entry });
      if (target.draining) continue;
      target.draining = true;
      // Started on the next turn, after the answer that caused it has been written.
      const run = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.drain(target))
        .finally(() => {
          target.draining = false;
          this.running.delete(run);
        });
      this.running.add(run);
    }
  }

  health(): NotifierHealth {
    const pending = this.targets.reduce((n, t) => n + t.queued, 0);
    const dropped = this.targets.reduce((n, t) => n + t.dropped, 0);
    return {
      ok: this.failedCount === 0 && dropped === 0,
      delivered: this.delivered,
      requests: this.deliveries,
      pending,
      failed: this.failedCount,
      dropped,
      recentFailures: [...this.failures],
    };
  }

  /** Stops retrying, lets deliveries in flight end (or waits `graceMs`), closes the client. */
  async close(graceMs = 2_000): Promise<void> {
    const idle = Promise.all([...this.running]);
    await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    this.stop.abort();
    await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    if (this.ownHttp) await this.http.close();
  }

  /** Until the URL's queue is empty: sends the oldest (as a batch when several wait), then the next. */
  private async drain(target: Target): Promise<void> {
    while (target.queued > 0 && !this.stop.signal.aborted) {
      // At most one POST per PACE_MS per URL, counted from the last one even when the queue
      // ran dry in between: a busy kernel's news go in a few large batches instead of many
      // small ones that each cost a request on both sides.
      const rest = target.sentAt + PACE_MS - performance.now();
      if (rest > 0) await sleep(rest, this.stop.signal);
      target.sentAt = performance.now();
      const items = target.peek(MAX_BATCH);
      const delivery = deliveryOf(items.map((i) => notificationOf(i.entry)!));
      const ended = await this.deliver(target, delivery);
      target.done(items.length);
      if (ended) this.options.onDelivered?.(target.url, delivery.items.at(-1)!);
      this.options.onChange?.();
    }
  }

  /** Sends until answered 2xx or given up (true), or cut short by `close()` (false: still owed). */
  private async deliver(target: Target, delivery: Delivery): Promise<boolean> {
    const { body } = delivery;
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'lease-gate-kernel',
      'x-hub-signature-256': signBody(this.options.secret, body),
      'x-lease-gate-delivery': delivery.id,
      'x-lease-gate-event': delivery.kind,
    };
    const giveUpAt = this.now() + this.retryForMs;
    let wait = FIRST_RETRY_MS;
    let lastError = '';
    for (let attempt = 1; attempt <= 1_000; attempt += 1) {
      if (this.stop.signal.aborted) break;
      try {
        const answer = await this.http.send({
          method: 'POST',
          url: target.url,
          headers,
          body,
          signal: this.stop.signal,
        });
        if (answer.status >= 200 && answer.status < 300) {
          this.deliveries += 1;
          this.delivered += delivery.items.length;
          return true;
        }
        lastError = `HTTP ${answer.status}`;
        // A 4xx other than 408 and 429 will not change by asking again.
        if (answer.status < 500 && answer.status !== 408 && answer.status !== 429) break;
      } catch (error) {
        if (this.stop.signal.aborted) break;
        lastError = withoutUrl(causeText(error), target.url);
      }
      if (this.now() + wait > giveUpAt) break;
      await (this.options.sleep ?? sleep)(wait, this.stop.signal);
      wait = Math.min(MAX_RETRY_MS, wait * 2);
    }
    // Stopping is not giving up: what was not answered is sent at the next start (a file kernel).
    if (this.stop.signal.aborted) return false;
    this.failedCount += delivery.items.length;
    const first = delivery.items[0]!;
    const failure: FailedDelivery = {
      id: delivery.id,
      url: new URL(target.url).origin,
      kind: first.kind,
      resource: first.resource,
      error: lastError.slice(0, 300),
      atMs: Date.now(),
    };
    this.failures.push(failure);
    if (this.failures.length > KEPT_FAILURES) this.failures.shift();
    const what =
      delivery.items.length === 1
        ? `a ${first.kind} notification on ${first.resource}`
        : `a batch of ${delivery.items.length} notifications (from a ${first.kind} on ${first.resource})`;
    this.options.log?.(`kernel: gave up ${what} to ${failure.url}: ${failure.error}`);
    return true;
  }
}

/**
 * An error's words without the URL's path and query: a chat webhook's URL is its credential
 * (Slack's and Teams' carry the secret in the path), and failures reach `/readyz`, the
 * console and the log. The origin stays, to say which receiver failed.
 */
function withoutUrl(message: string, url: string): string {
  const origin = new URL(url).origin;
  // The HTTP client's messages name the URL as shown (urlForDisplay), which still has the path.
  return message.split(url).join(`${origin}/…`).split(urlForDisplay(url)).join(`${origin}/…`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
