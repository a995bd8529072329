import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createHttpClient, type HttpClient } from '../http/client.js';
import { isLoopbackHost } from '../plane/url.js';
import type { PlaneService } from './plane-service.js';
import type { KernelEvent } from './rules.js';
import { LeaseGateError } from '../errors.js';

/**
 * Signed notifications (`lease-gate kernel --notify URL --notify-secret-file FILE`):
 * every grant, release, lapse, revoke, freeze and unfreeze, once durable, is
 * POSTed as JSON to each URL, signed as GitHub signs its webhooks
 * (`X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body, hex>`) with a delivery
 * id (`X-Lease-Gate-Delivery`). The service tells the notifier after its commit,
 * and the notifier only queues there: a lease answer never waits for a delivery.
 * Per URL and resource, deliveries go one at a time in the order they happened; a
 * failed one is retried with back-off (doubling from 250 ms to 30 s) for up to
 * `retryForMs`, then given up, counted and shown in `/readyz` and the console.
 */

export type NotificationKind = 'grant' | 'release' | 'lapse' | 'revoke' | 'freeze' | 'unfreeze';

export interface Notification {
  id: string;
  kind: NotificationKind;
  resource: string;
  /** The holder (grant, release, lapse, revoke) or the operator (freeze, unfreeze). */
  agent: string;
  atMs: number;
  /** One line a Slack- or Teams-style incoming webhook shows as it is. */
  text: string;
  leaseId?: string;
  fence?: number;
  reason?: string;
  /** A freeze's end (epoch ms), when it names one. */
  until?: number;
}

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
}

export interface FailedDelivery {
  id: string;
  url: string;
  kind: NotificationKind;
  resource: string;
  error: string;
  atMs: number;
}

/** A queue this long per URL drops the oldest news (counted) rather than grow without end. */
const MAX_QUEUED = 10_000;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const DEFAULT_RETRY_FOR_MS = 10 * 60_000;
const KEPT_FAILURES = 20;
const KINDS = new Set<string>(['grant', 'release', 'lapse', 'revoke', 'freeze', 'unfreeze']);

export class NotifyError extends LeaseGateError {
  override name = 'NotifyError';
}

/** `--notify` URLs: https:, or plain http: to this machine only (never a secret in clear). */
export function checkNotifyUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NotifyError(`Invalid --notify '${raw.slice(0, 200)}': expected an https: URL.`);
  }
  const secure = url.protocol === 'https:';
  const loopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (!(secure || loopback) || url.username || url.password) {
    throw new NotifyError(
      `Invalid --notify '${url.origin}': expected an https: URL without credentials (plain http: only to loopback).`,
    );
  }
  return url.href;
}

export function readNotifySecret(file: string): string {
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new NotifyError(`Cannot read --notify-secret-file ${file}: ${(error as Error).message}`);
  }
  if (secret.length < 16) {
    throw new NotifyError(
      `--notify-secret-file ${file}: expected a secret of at least 16 characters.`,
    );
  }
  return secret;
}

/** GitHub's webhook signature of a body. */
export const signBody = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The words a chat webhook shows. Plane-supplied text stays on one line. */
export function notificationText(n: Omit<Notification, 'id' | 'text'>): string {
  // eslint-disable-next-line no-control-regex -- control characters never reach a chat message
  const line = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 300);
  const who = line(n.agent);
  const why = n.reason ? `: ${line(n.reason)}` : '';
  switch (n.kind) {
    case 'grant':
      return `${n.resource} granted to ${who} (fence ${n.fence ?? '?'})`;
    case 'release':
      return `${n.resource} released by ${who}`;
    case 'lapse':
      return `${n.resource} lapsed: ${who} stopped renewing it`;
    case 'revoke':
      return `${n.resource} revoked from ${who} by an operator${why}`;
    case 'freeze':
      return `${n.resource} frozen ${n.until ? `until ${new Date(n.until).toISOString()}` : 'until unfrozen'} by ${who}${why}`;
    case 'unfreeze':
      return `${n.resource} unfrozen${why}`;
  }
}

export function notificationOf(event: KernelEvent): Notification | undefined {
  if (!KINDS.has(event.kind)) return undefined;
  const base: Omit<Notification, 'id' | 'text'> = {
    kind: event.kind as NotificationKind,
    resource: event.resource,
    agent: event.actorDid,
    atMs: event.atMs,
  };
  if (event.leaseId) Object.assign(base, { leaseId: event.leaseId, fence: event.fence });
  if (event.reason !== undefined) base.reason = event.reason;
  if (event.kind === 'freeze' && event.expiresAtMs !== undefined) base.until = event.expiresAtMs;
  return { id: randomUUID(), ...base, text: notificationText(base) };
}

interface Queued {
  notification: Notification;
  body: string;
  /** Monotonic ms when it was queued: the latency is measured from here. */
  queuedAt: number;
}

/** One URL's deliveries: a FIFO per resource, each drained by one loop. */
class Target {
  readonly lanes = new Map<string, Queued[]>();
  queued = 0;
  dropped = 0;

  constructor(readonly url: string) {}
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
  private failedCount = 0;
  /** Delivery latencies (ms from queue to 2xx), for the bench. */
  readonly latencies: number[] = [];

  constructor(private readonly options: NotifierOptions) {
    this.targets = options.urls.map((url) => new Target(checkNotifyUrl(url)));
    this.ownHttp = options.http === undefined;
    this.http = options.http ?? createHttpClient({ headersTimeoutMs: 10_000 });
    this.retryForMs = options.retryForMs ?? DEFAULT_RETRY_FOR_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** Subscribes to the service's durable changes; returns what `/readyz` shows. */
  attach(service: Pick<PlaneService, 'onChange'>): { health(): Record<string, unknown> } {
    service.onChange((_resource, event) => this.push(event));
    return { health: () => ({ notifications: this.health() }) };
  }

  /** Queues a change (called after its commit): no I/O here, nothing awaited. */
  push(event: KernelEvent): void {
    const notification = notificationOf(event);
    if (!notification || this.stop.signal.aborted) return;
    const body = JSON.stringify(notification);
    for (const target of this.targets) {
      if (target.queued >= MAX_QUEUED) {
        target.dropped += 1;
        continue;
      }
      const lane = target.lanes.get(notification.resource);
      const item = { notification, body, queuedAt: this.now() };
      target.queued += 1;
      if (lane) {
        lane.push(item);
        continue;
      }
      target.lanes.set(notification.resource, [item]);
      const run = this.drain(target, notification.resource).finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  health() {
    const pending = this.targets.reduce((n, t) => n + t.queued, 0);
    const dropped = this.targets.reduce((n, t) => n + t.dropped, 0);
    return {
      ok: this.failedCount === 0 && dropped === 0,
      delivered: this.delivered,
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

  /** Until a resource's lane is empty, delivers its head (with retries) and moves on. */
  private async drain(target: Target, resource: string): Promise<void> {
    const lane = target.lanes.get(resource)!;
    while (lane.length > 0) {
      const item = lane[0]!;
      await this.deliver(target, item);
      lane.shift();
      target.queued -= 1;
    }
    target.lanes.delete(resource);
  }

  private async deliver(target: Target, item: Queued): Promise<void> {
    const { notification, body } = item;
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'lease-gate-kernel',
      'x-hub-signature-256': signBody(this.options.secret, body),
      'x-lease-gate-delivery': notification.id,
      'x-lease-gate-event': notification.kind,
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
          this.delivered += 1;
          if (this.latencies.length < 100_000) this.latencies.push(this.now() - item.queuedAt);
          return;
        }
        lastError = `HTTP ${answer.status}`;
        // A 4xx other than 408 and 429 will not change by asking again.
        if (answer.status < 500 && answer.status !== 408 && answer.status !== 429) break;
      } catch (error) {
        lastError = (error as Error).message;
      }
      if (this.now() + wait > giveUpAt) break;
      await (this.options.sleep ?? sleep)(wait, this.stop.signal);
      wait = Math.min(MAX_RETRY_MS, wait * 2);
    }
    this.failedCount += 1;
    const failure: FailedDelivery = {
      id: notification.id,
      url: new URL(target.url).origin,
      kind: notification.kind,
      resource: notification.resource,
      error: lastError.slice(0, 300),
      atMs: Date.now(),
    };
    this.failures.push(failure);
    if (this.failures.length > KEPT_FAILURES) this.failures.shift();
    this.options.log?.(
      `kernel: gave up a ${notification.kind} notification on ${notification.resource} to ${failure.url}: ${failure.error}`,
    );
  }
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
