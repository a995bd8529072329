import { z } from 'zod';

/** One ledger entry; its canonical JSON is the Merkle leaf. */
export const entrySchema = z
  .object({
    seq: z.number().int().nonnegative(),
    tsMs: z.number().int().nonnegative(),
    kind: z.enum(['grant', 'release', 'lapse', 'revoke']),
    resource: z.string(),
    actorDid: z.string(),
    leaseId: z.string(),
    fence: z.number().int(),
    reason: z.string().optional(),
  })
  .strict();
export type LedgerEntry = z.infer<typeof entrySchema>;

/** JSON with sorted keys and no whitespace, so the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const leafBytes = (entry: LedgerEntry) =>
  new Uint8Array(Buffer.from(canonicalJson(entry), 'utf8'));
