import type { KernelEvent } from '../../src/kernel/rules/rules.js';
import { R } from './names.js';

/** The agent a break-glass lets through a freeze, in the tests of the rules and the ledger. */
export const HOTFIX = 'did:web:acme.example:agent:hotfix';

/** An operator's break-glass as the rules take it (`decide`): alice's pass for `actorDid`. */
export const openPass = (
  actorDid: string,
  o: { reason?: string; untilMs?: number; needsApproval?: boolean } = {},
) =>
  ({
    kind: 'break_glass',
    actorDid,
    reason: o.reason ?? 'CVE',
    by: 'operator:alice',
    untilMs: o.untilMs ?? 60_000,
    needsApproval: o.needsApproval ?? false,
  }) as const;

/**
 * The pass alice opened for HOTFIX on R as its entry says it, without the entry's times
 * (`over` adds `atMs` for an event): it names no lease (empty id, fence 0).
 */
export const passEntry = <O extends Partial<KernelEvent>>(over: O) => ({
  kind: 'break_glass' as const,
  resource: R,
  actorDid: HOTFIX,
  leaseId: '',
  fence: 0,
  reason: 'CVE',
  by: 'operator:alice',
  expiresAtMs: 60_000,
  ...over,
});
