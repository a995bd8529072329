import * as z from 'zod/mini';
import { controlFree } from '../control-chars.js';

/**
 * What a lease request may say of the deploy it gates: extension fields of
 * the lease body (`deploy: {...}`, `queue: 'newest'`). The hosted plane does
 * not document them and ignores unknown fields; the bundled kernel validates
 * them (a bad field is a 400 naming it), records them in the grant's ledger
 * entry, supersedes waiting runs by them and answers the last grant's deploy
 * of the same repository (`previous`) with a grant. Every field is optional:
 * a CI system that knows no run number still names its commit.
 */

export const REPOSITORY_PATTERN = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
/** A full commit id: SHA-1 (40) or SHA-256 (64) hex; the compare API needs it whole. */
export const COMMIT_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Printable ASCII without spaces, as git refs are. */
const REF_PATTERN = /^[\x21-\x7e]{1,256}$/;
/** A workflow name is one line of text. */
const ONE_LINE = controlFree(1, 256);

export const DEPLOY_FORMS = {
  repository: 'owner/repo',
  workflow: 'one line of 1 to 256 characters',
  ref: '1 to 256 printable characters without spaces, such as refs/heads/main',
  commit: 'a full commit SHA: 40 (or 64) lowercase hex digits',
  runNumber: 'a whole number from 1 to 10^12',
  runAttempt: 'a whole number from 1 to 10^6',
  runUrl: 'an https:// URL of at most 2048 characters',
} as const;

const text = (pattern: RegExp, form: string) =>
  z.string().check(z.regex(pattern, `expected ${form}`));
const whole = (max: number, form: string) =>
  z.number().check(z.refine((n) => Number.isInteger(n) && n >= 1 && n <= max, `expected ${form}`));

export const isRunUrl = (value: string): boolean => {
  if (value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
};

/** Unknown keys are dropped, not refused: a newer gate may say more than this kernel knows. */
export const deploySchema = z.object({
  repository: z.optional(text(REPOSITORY_PATTERN, DEPLOY_FORMS.repository)),
  workflow: z.optional(text(ONE_LINE, DEPLOY_FORMS.workflow)),
  ref: z.optional(text(REF_PATTERN, DEPLOY_FORMS.ref)),
  commit: z.optional(text(COMMIT_PATTERN, DEPLOY_FORMS.commit)),
  runNumber: z.optional(whole(1e12, DEPLOY_FORMS.runNumber)),
  runAttempt: z.optional(whole(1e6, DEPLOY_FORMS.runAttempt)),
  runUrl: z.optional(z.string().check(z.refine(isRunUrl, `expected ${DEPLOY_FORMS.runUrl}`))),
});
export type Deploy = z.infer<typeof deploySchema>;

/** The deploy's fields in one fixed order (ledger lines, console rows, the kernel's check). */
export const DEPLOY_FIELDS: readonly (keyof Deploy)[] = [
  'repository',
  'workflow',
  'ref',
  'commit',
  'runNumber',
  'runAttempt',
  'runUrl',
];

/** How a waiting run treats newer runs of its lane: `fifo` waits its turn; `newest` steps aside. */
export const QUEUE_MODES = ['fifo', 'newest'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];
export const queueSchema = z.enum(QUEUE_MODES);

/** The extension fields of a lease request body, as the kernel reads them. */
export const leaseExtensionSchema = z.object({
  deploy: z.optional(deploySchema),
  queue: z.optional(queueSchema),
});

/** A kernel's answer to a waiter a newer run of its lane took the place of. */
export const supersededSchema = z.object({
  ok: z.literal(false),
  reason: z.literal('superseded'),
  by: z.string().check(z.minLength(1), z.maxLength(2048)),
});

/** The commit list in a fixed order, so a ledger line and a console row read the same. */
export function deployEntries(deploy: Deploy): Array<[keyof Deploy, string | number]> {
  const out: Array<[keyof Deploy, string | number]> = [];
  for (const key of DEPLOY_FIELDS) {
    const value = deploy[key];
    if (value !== undefined) out.push([key, value]);
  }
  return out;
}

/** A plain copy with only the known fields (what the kernel keeps and records). */
export function cleanDeploy(deploy: Deploy): Deploy | undefined {
  const out: Record<string, string | number> = {};
  for (const [key, value] of deployEntries(deploy)) out[key] = value;
  return Object.keys(out).length ? out : undefined;
}
