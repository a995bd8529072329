import { createHash } from 'node:crypto';
import { CONTROL_CHAR, CONTROL_CHARS } from '../../control-chars.js';
import { entryJson, type LedgerEntry } from '../../ledger/entry.js';
import { ENTRY_KINDS } from '../../plane/entry-kinds.js';
import { HEALTH_HOLD_BY } from '../rules/freeze.js';

/**
 * What a notification says, and how it goes on the wire: made from a ledger entry (its id
 * derived from the entry, its one line of text for a chat webhook, plane-supplied text kept
 * on one line), and one or several of them as one delivery's body (a batch). No I/O: the
 * Notifier (notify.ts) queues, sends and retries them.
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

/** At most this many lines in a batch's `text`: a chat message, not a log (Slack cuts at 40,000 characters). */
const TEXT_LINES = 20;
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

/** One delivery: one notification as it is, or several in a batch. Its body never changes on a retry. */
export interface Delivery {
  items: Notification[];
  id: string;
  kind: NotificationKind | 'batch';
  /** Encoded once: signed and sent as these bytes (a batch is a few hundred KB). */
  body: Buffer;
}

/**
 * One notification is sent as it is; several as `{id, kind: "batch", count, notifications,
 * text}` in the order they happened, `text` their lines one under the other (a chat webhook
 * shows them as they are), the first 19 and "… and N more changes" past 20. A batch's id is
 * derived from its first and last notifications' (the same run of changes, the same id).
 */
export function deliveryOf(notifications: Notification[]): Delivery {
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
