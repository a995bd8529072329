import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createHttpClient, type HttpClient } from '../../http/client.js';
import { urlForDisplay } from '../../http/url-display.js';
import { entryJson, type LedgerEntry } from '../../ledger/entry.js';
import { ENTRY_KINDS } from '../../plane/entry-kinds.js';
import { CONTROL_CHAR, CONTROL_CHARS } from '../../control-chars.js';
import { isLoopbackHost } from '../../plane/url.js';
import { HEALTH_HOLD_BY } from '../rules/freeze.js';
import type { PlaneService } from '../service/plane-service.js';
import { LeaseGateError, type CauseOptions } from '../../errors.js';

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

/** Every change but a renewal. */
export type NotificationKind = Exclude<(typeof ENTRY_KINDS)[number], 'renew'>;

/** The red a chat shows a break-glass in (GitHub's danger red), and its severity. */
export const BREAK_GLASS_COLOR = '#cf222e';

export interface Notification {
  /** Derived from its ledger entry (notificationId): the same for the same change, across restarts. */
  id: string;
  /** The index of its entry in the kernel's ledger (`lease-gate ledger export` shows it). */
  seq: number;
  kind: NotificationKind;
  resource: string;
  /** The holder (grant, release, lapse, revoke), the operator (freeze, unfreeze), the job let through (break_glass). */
  agent: string;
  atMs: number;
  /** One line a Slack- or Teams-style incoming webhook shows as it is. */
  text: string;
  leaseId?: string;
  fence?: number;
  reason?: string;
  /** A freeze's end (epoch ms), when it names one; a break-glass's end. */
  until?: number;
  /** Who revoked it (`operator:NAME`), when the operator gave a name; who opened a break-glass. */
  by?: string;
  /** The second operator who approved a break-glass. */
  approvedBy?: string;
  /** A break-glass only: `critical`, and the red a chat shows it in (an attachment's color). */
  severity?: 'critical';
  color?: string;
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

/** A queue this long per URL drops new news (counted) rather than grow without end. */
const MAX_QUEUED = 10_000;
/** At most this many changes in one POST (a few hundred KB of JSON). */
const MAX_BATCH = 1_000;
/** The shortest time between two POSTs to one URL (the first after a quiet spell goes at once). */
const PACE_MS = 50;
/** At most this many lines in a batch's `text`: a chat message, not a log (Slack cuts at 40,000 characters). */
const TEXT_LINES = 20;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const DEFAULT_RETRY_FOR_MS = 10 * 60_000;
const KEPT_FAILURES = 20;
const KINDS = new Set<string>(ENTRY_KINDS.filter((k) => k !== 'renew'));

/** Whether a change is notified (renewals are not). */
export const isNotified = (entry: { kind: string }): boolean => KINDS.has(entry.kind);

/**
 * A notification's id: the first 128 bits of the SHA-256 of its ledger entry's canonical
 * line, as a UUID (version 8, RFC 9562). The same change has the same id whenever it is
 * sent, before or after a restart; anyone with the ledger can tell which entry it names.
 */
export function notificationId(entry: LedgerEntry): string {
  return uuidOf(createHash('sha256').update(entryJson(entry)).digest());
}

function uuidOf(digest: Buffer): string {
  const b = Buffer.from(digest.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class NotifyError extends LeaseGateError<'notify'> {
  override name = 'NotifyError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'notify' });
  }
}

/** `--notify` URLs: https:, or plain http: to this machine only (never a secret in clear). */
export function checkNotifyUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NotifyError(`Invalid --notify '${urlForDisplay(raw)}': expected an https: URL.`);
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

/**
 * `--notify-file FILE`: the same settings as a config entry,
 * `{"notify": {"urls": ["https://…"], "secretFile": "/path"}}`; the flags add to its URLs
 * and `--notify-secret-file` wins over its secret file. Checked whole at start.
 */
export function readNotifyFile(file: string): { urls: string[]; secretFile?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new NotifyError(`Cannot read --notify-file ${file}: ${(error as Error).message}`);
  }
  const form = `expected {"notify": {"urls": ["https://…"], "secretFile": "FILE"}}`;
  const notify = (raw as { notify?: unknown } | null)?.notify as
    { urls?: unknown; secretFile?: unknown } | undefined;
  if (typeof notify !== 'object' || notify === null || Array.isArray(notify))
    throw new NotifyError(`--notify-file ${file}: ${form}.`);
  const { urls, secretFile } = notify;
  if (
    !Array.isArray(urls) ||
    urls.length === 0 ||
    urls.length > 20 ||
    !urls.every((u) => typeof u === 'string')
  )
    throw new NotifyError(`--notify-file ${file}: notify.urls: expected 1 to 20 URLs as strings.`);
  if (secretFile !== undefined && (typeof secretFile !== 'string' || secretFile === ''))
    throw new NotifyError(`--notify-file ${file}: notify.secretFile: expected a file path.`);
  for (const url of urls) checkNotifyUrl(url);
  return { urls, ...(secretFile ? { secretFile } : {}) };
}

/** GitHub's webhook signature of a body. */
export const signBody = (secret: string, body: string | Uint8Array) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The words a chat webhook shows. Plane-supplied text stays on one line. */
export function notificationText(n: Omit<Notification, 'id' | 'seq' | 'text'>): string {
  // Control characters never reach a chat message.
  const line = (s: string) =>
    CONTROL_CHAR.test(s) || s.length > 300 ? s.replace(CONTROL_CHARS, ' ').slice(0, 300) : s;
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
      return `${n.resource} revoked from ${who} by ${n.by ? line(n.by) : 'an operator'}${why}`;
    case 'freeze':
      if (n.agent === HEALTH_HOLD_BY)
        return `${n.resource} held while its health check fails${why}`;
      return `${n.resource} frozen ${n.until ? `until ${new Date(n.until).toISOString()}` : 'until unfrozen'} by ${who}${why}`;
    case 'unfreeze':
      return `${n.resource} unfrozen${why}`;
    case 'break_glass':
      return `🔴 BREAK-GLASS on ${n.resource}: ${who} may be granted it once past any freeze${n.until ? ` until ${new Date(n.until).toISOString()}` : ''}, opened by ${n.by ? line(n.by) : 'an operator'}${n.approvedBy ? `, approved by ${line(n.approvedBy)}` : ''}${why}`;
    case 'break_glass_withdrawn':
      return `${n.resource}: the break-glass for ${who} withdrawn by ${n.by ? line(n.by) : 'an operator'}${why}`;
  }
}

/** The notification of a ledger entry; `atMs` is the entry's stamp. */
export function notificationOf(entry: LedgerEntry): Notification | undefined {
  if (!KINDS.has(entry.kind)) return undefined;
  // One literal, fields added in place: this runs for every change a busy kernel makes.
  const n: Notification = {
    id: notificationId(entry),
    seq: entry.seq,
    kind: entry.kind as NotificationKind,
    resource: entry.resource,
    agent: entry.actorDid,
    atMs: entry.tsMs,
    text: '',
  };
  if (entry.leaseId) {
    n.leaseId = entry.leaseId;
    n.fence = entry.fence;
  }
  if (entry.reason !== undefined) n.reason = entry.reason;
  if (entry.kind === 'freeze' && entry.expiresAtMs !== undefined) n.until = entry.expiresAtMs;
  if ((entry.kind === 'revoke' || entry.kind === 'break_glass_withdrawn') && entry.by !== undefined)
    n.by = entry.by;
  if (entry.kind === 'break_glass') {
    if (entry.expiresAtMs !== undefined) n.until = entry.expiresAtMs;
    if (entry.by !== undefined) n.by = entry.by;
    if (entry.approvedBy !== undefined) n.approvedBy = entry.approvedBy;
    n.severity = 'critical';
    n.color = BREAK_GLASS_COLOR;
  }
  n.text = notificationText(n);
  return n;
}

interface Queued {
  /** The change as the ledger has it; its notification is made when it is sent. */
  entry: LedgerEntry;
}

/** One delivery: one notification as it is, or several in a batch. Its body never changes on a retry. */
interface Delivery {
  items: Notification[];
  id: string;
  kind: NotificationKind | 'batch';
  /** Encoded once: signed and sent as these bytes (a batch is a few hundred KB). */
  body: Buffer;
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
    if (!KINDS.has(entry.kind) || this.stop.signal.aborted) return;
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
        lastError = withoutUrl((error as Error).message, target.url);
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
 * One notification is sent as it is; several as `{id, kind: "batch", count, notifications,
 * text}` in the order they happened, `text` their lines one under the other (a chat webhook
 * shows them as they are), the first 19 and "… and N more changes" past 20. A batch's id is
 * derived from its first and last notifications' (the same run of changes, the same id).
 */
function deliveryOf(notifications: Notification[]): Delivery {
  const items = notifications;
  if (items.length === 1) {
    const n = items[0]!;
    return { items, id: n.id, kind: n.kind, body: Buffer.from(JSON.stringify(n)) };
  }
  const id = uuidOf(
    createHash('sha256')
      .update(`batch ${items[0]!.id} ${items.at(-1)!.id} ${items.length}`)
      .digest(),
  );
  // A chat shows the first lines; the rest are in `notifications` (and the console).
  const shown = items.length > TEXT_LINES ? items.slice(0, TEXT_LINES - 1) : items;
  const more = items.length - shown.length;
  const text = shown.map((n) => n.text).join('\n') + (more ? `\n… and ${more} more changes` : '');
  const body = JSON.stringify({ id, kind: 'batch', count: items.length, notifications, text });
  return { items, id, kind: 'batch', body: Buffer.from(body) };
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
