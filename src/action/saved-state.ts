import * as z from 'zod/mini';
import type { ActionContext } from './context.js';
import { STATE } from './io.js';

/**
 * What main hands post through the step state (`STATE` names each field), as one schema:
 * post reads every field through it, never with its own Number() or comparison. State is
 * text the runner stores; a field that does not parse (absent, empty, edited, from another
 * version) reads as absent and leaves the others alone, so post still releases what it can.
 */
const text = (max: number) =>
  z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(max))), undefined);
const count = z.catch(
  z.optional(z.pipe(z.string().check(z.regex(/^\d{1,16}$/)), z.transform(Number))),
  undefined,
);

export const savedStateSchema = z.object({
  resource: text(512),
  actorDid: text(512),
  apiUrl: text(2_048),
  leaseId: text(128),
  expiresAtMs: count,
  grantedAtMs: count,
  waitedMs: count,
  /** Shown as main saved it: a fence may pass 2^53 in text, never in a number. */
  fence: z.catch(z.optional(z.string().check(z.regex(/^\d{1,20}$/))), undefined),
  dryRun: z.catch(
    z.optional(
      z.pipe(
        z.literal('true'),
        z.transform(() => true),
      ),
    ),
    undefined,
  ),
  kernelPid: count,
  kernelDir: text(4_096),
  keeperPid: count,
  keeperStatus: text(4_096),
  outcome: z.catch(z.optional(z.enum(['none', 'granted'])), undefined),
} satisfies Record<keyof typeof STATE, z.ZodMiniType>);

export type SavedState = z.output<typeof savedStateSchema>;

/** Every field main saved, read through `savedStateSchema`. */
export function readSavedState(ctx: Pick<ActionContext, 'getState'>): SavedState {
  const raw: Record<string, string | undefined> = {};
  for (const [field, name] of Object.entries(STATE)) raw[field] = ctx.getState(name) || undefined;
  return savedStateSchema.parse(raw);
}
