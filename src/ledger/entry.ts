import * as z from 'zod/mini';
import '../zod-en.js';
import { canonicalJson } from '../plane/canonical-json.js';
import { ENTRY_KINDS } from '../plane/entry-kinds.js';

/** One ledger entry; its canonical JSON is the Merkle leaf. */
export const entrySchema = z.strictObject({
  seq: z.number().check(z.int(), z.nonnegative()),
  tsMs: z.number().check(z.int(), z.nonnegative()),
  /**
   * A lapse, or a grant a break-glass let through, stamped one after the entry
   * before it (in a run of +1 stamps, which may run ahead of the clock): the
   * kernel's clock when it decided it, so its time is known (never above
   * `tsMs`). Without it a lapse's time is the first stamp of its run, and a
   * grant's, for its break-glass, its own stamp.
   */
  clockMs: z.optional(z.number().check(z.int(), z.nonnegative())),
  kind: z.enum(ENTRY_KINDS),
  resource: z.string(),
  actorDid: z.string(),
  leaseId: z.string(),
  fence: z.number().check(z.int()),
  /** The end the holder was told (grants and renewals), so a replay never shortens a lease. */
  expiresAtMs: z.optional(z.number().check(z.int())),
  reason: z.optional(z.string()),
  /**
   * Who revoked (revokes): `operator:NAME` when the operator gave a name,
   * as a freeze's `actorDid` does (a revoke's `actorDid` is the holder it
   * ended); who opened a break-glass (break_glass). Optional, so ledgers
   * written before it verify as they are.
   */
  by: z.optional(z.string()),
  /** The second operator who approved a break-glass (break_glass entries that needed one). */
  approvedBy: z.optional(z.string()),
  /**
   * The one approval an OIDC approver gave (break_glass): its run and attempt, as a DID
   * prefix without the last colon. One approval approves one pass; verify refuses a second.
   */
  approval: z.optional(z.string()),
  /**
   * What the holder said it deploys (grants; repository, commit, run...):
   * recorded as the kernel validated it, a small flat object. Optional, so
   * ledgers written before it verify as they are.
   */
  deploy: z.optional(
    z
      .record(
        z.string().check(z.maxLength(64)),
        // undefined never comes from JSON; it lets a kernel event's optional fields through.
        z.union([z.string().check(z.maxLength(2048)), z.number(), z.undefined()]),
      )
      .check(z.refine((d) => Object.keys(d).length <= 16, 'expected at most 16 fields')),
  ),
  /**
   * A grant let past a promotion step by a descendant: the commit (same repository) that
   * completed the step before and, by GitHub's compare when the kernel asked, contains the
   * one deployed. `verify --promote` checks the ledger shows it completed; the containing it
   * is the kernel's signed word. Optional, so ledgers written before it verify as they are.
   */
  promotedVia: z.optional(z.string().check(z.regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/))),
  /**
   * The OIDC issuer (its URL) whose token the grant's holder proved itself with, on a kernel
   * of several CIs' issuers; `verify` checks the holder's DID lies in that issuer's namespace
   * (ledger/issuer-check.ts). Optional, so ledgers written before it verify as they are.
   */
  issuer: z.optional(z.string().check(z.maxLength(500))),
});
export type LedgerEntry = z.infer<typeof entrySchema>;

/**
 * The entry for an event, field by field. Not `{ ...rest, seq, tsMs }` after
 * `{ atMs, ...rest }`: V8 gave every object built that way a hidden class of
 * its own, in the old generation, and the kernel's entries then outlived the
 * young collections (three times the bytes promoted under load).
 */
export function entryOf(
  event: Omit<LedgerEntry, 'seq' | 'tsMs' | 'clockMs'>,
  seq: number,
  tsMs: number,
  clockMs?: number,
): LedgerEntry {
  const { kind, resource, actorDid, leaseId, fence, expiresAtMs, reason, by, deploy } = event;
  const { approvedBy, approval, promotedVia, issuer } = event;
  const entry: LedgerEntry = { kind, resource, actorDid, leaseId, fence, seq, tsMs };
  if (clockMs !== undefined) entry.clockMs = clockMs;
  if (expiresAtMs !== undefined) entry.expiresAtMs = expiresAtMs;
  if (reason !== undefined) entry.reason = reason;
  if (by !== undefined) entry.by = by;
  if (approvedBy !== undefined) entry.approvedBy = approvedBy;
  if (approval !== undefined) entry.approval = approval;
  if (deploy !== undefined) entry.deploy = deploy;
  if (promotedVia !== undefined) entry.promotedVia = promotedVia;
  if (issuer !== undefined) entry.issuer = issuer;
  return entry;
}

/**
 * The canonical JSON of an entry the kernel built itself, written with its keys
 * already in sorted order (no sort, no schema check on the hot path). Equal to
 * `canonicalJson(entry)`; a test holds the two together.
 */
export function entryJson(e: LedgerEntry): string {
  const s = JSON.stringify;
  let text = `{"actorDid":${s(e.actorDid)}`;
  if (e.approval !== undefined) text += `,"approval":${s(e.approval)}`;
  if (e.approvedBy !== undefined) text += `,"approvedBy":${s(e.approvedBy)}`;
  if (e.by !== undefined) text += `,"by":${s(e.by)}`;
  if (e.clockMs !== undefined) text += `,"clockMs":${e.clockMs}`;
  // Rare (grants that name a deploy) and nested: the general form sorts its keys.
  if (e.deploy !== undefined) text += `,"deploy":${canonicalJson(e.deploy)}`;
  if (e.expiresAtMs !== undefined) text += `,"expiresAtMs":${e.expiresAtMs}`;
  text += `,"fence":${e.fence}`;
  if (e.issuer !== undefined) text += `,"issuer":${s(e.issuer)}`;
  text += `,"kind":"${e.kind}","leaseId":${s(e.leaseId)}`;
  if (e.promotedVia !== undefined) text += `,"promotedVia":${s(e.promotedVia)}`;
  if (e.reason !== undefined) text += `,"reason":${s(e.reason)}`;
  return `${text},"resource":${s(e.resource)},"seq":${e.seq},"tsMs":${e.tsMs}}`;
}

/**
 * One line read back from storage, checked as untrusted: the entry `seq` in
 * canonical form, or undefined.
 */
export function readEntry(line: string, seq: number): LedgerEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const entry = entrySchema.safeParse(parsed);
  if (!entry.success || entry.data.seq !== seq || canonicalJson(entry.data) !== line)
    return undefined;
  return entry.data;
}

export const leafBytes = (entry: LedgerEntry) =>
  new Uint8Array(Buffer.from(entryJson(entry), 'utf8'));
