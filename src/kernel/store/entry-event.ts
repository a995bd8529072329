import type { LedgerEntry } from '../../ledger/entry.js';
import { deploySchema } from '../../plane/deploy.js';
import type { KernelEvent } from '../rules/rules.js';

/** A ledger entry as the event the rules replay (a restart, a file kernel's view of its log). */
export function toEvent(entry: LedgerEntry): KernelEvent {
  const { kind, tsMs, resource, actorDid, leaseId, fence, expiresAtMs, reason } = entry;
  const event: KernelEvent = { kind, atMs: tsMs, resource, actorDid, leaseId, fence };
  if (expiresAtMs !== undefined) event.expiresAtMs = expiresAtMs;
  if (reason !== undefined) event.reason = reason;
  if (entry.by !== undefined) event.by = entry.by;
  if (entry.approvedBy !== undefined) event.approvedBy = entry.approvedBy;
  if (entry.approval !== undefined) event.approval = entry.approval;
  if (entry.promotedVia !== undefined) event.promotedVia = entry.promotedVia;
  if (entry.issuer !== undefined) event.issuer = entry.issuer;
  const deploy = entry.deploy && deploySchema.safeParse(entry.deploy);
  if (deploy?.success) event.deploy = deploy.data;
  return event;
}
