/**
 * The ledger's entry kinds, once: the ledger's schema (ledger/entry.ts), the kernel's events
 * (kernel/rules/event.ts), its notifications and the console page all read this list. Plain
 * data with no imports, so the page bundles it.
 */
export const ENTRY_KINDS = [
  'grant',
  'renew',
  'release',
  'lapse',
  'revoke',
  // An operator's freeze of a resource and its end: `actorDid` names the operator, `leaseId` is
  // empty and `fence` 0; a freeze's `expiresAtMs` is the end it named (none: until unfrozen).
  'freeze',
  'unfreeze',
  // An operator's break-glass: `actorDid` is the agent it lets through a freeze once, `by` who
  // opened it, `approvedBy` who approved it (when a second operator had to), `expiresAtMs` its
  // end; no lease (empty id, fence 0). See kernel/rules/break-glass.ts.
  'break_glass',
  // A usable break-glass withdrawn before it was used (an operator's cancel, or replaced by a
  // new one): `actorDid` the agent it named, `by` who withdrew it; no lease. From here on the
  // pass is gone, for the kernel's replay and for verify alike.
  'break_glass_withdrawn',
] as const;

export type EntryKind = (typeof ENTRY_KINDS)[number];

/** The kinds that name no lease (empty id, fence 0): an operator's freezes and break-glasses. */
const NO_LEASE = ['freeze', 'unfreeze', 'break_glass', 'break_glass_withdrawn'] as const;
export type NoLeaseKind = (typeof NO_LEASE)[number];

/** Whether an entry of this kind names no lease (and is no holder's grant, renewal or end). */
export const namesNoLease = (kind: EntryKind): kind is NoLeaseKind =>
  (NO_LEASE as readonly string[]).includes(kind);
