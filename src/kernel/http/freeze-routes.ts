import * as z from 'zod/mini';
import '../../zod-en.js';
import { controlFree } from '../../control-chars.js';
import {
  FREEZE_PATH,
  OPERATOR_NAME_FORM,
  OPERATOR_NAME_PATTERN,
  UNFREEZE_PATH,
  resourceSchema as resource,
} from '../../plane/schema.js';
import { ApiRefusal, parse, type AppRequest, type AppResponse } from './api.js';
import type { PlaneService } from '../service/plane-service.js';

/** The longest freeze one command may name: a year (longer is a typo; unfreeze ends any). */
export const MAX_FREEZE_MS = 366 * 86_400_000;
/** Who the ledger names for a freeze made with the admin key. */
export const ADMIN_OPERATOR = 'operator:admin-key';

/** The operator's name (freeze, unfreeze and revoke bodies): one schema for the shape. */
export const operatorBy = z.optional(
  z.string().check(z.regex(OPERATOR_NAME_PATTERN, `expected ${OPERATOR_NAME_FORM}`)),
);
/**
 * An operator's reason (freeze, break-glass, revoke): text of one line. The ledger signs
 * it for good and terminals, the console and notifications show it, so a control
 * character (NUL, ESC, a line break) is refused, as in the plane's other texts.
 */
export const reasonText = (max = 1_000) =>
  z
    .string()
    .check(z.maxLength(max), z.regex(controlFree(), 'expected text without control characters'));
/** A reason that must be given. */
export const reasonGiven = reasonText().check(z.minLength(1, 'expected a reason'));

/** Who the ledger names: the operator's own name when it gave one. */
export const operatorOf = (name: string | undefined) =>
  name ? `operator:${name}` : ADMIN_OPERATOR;

const freezeBody = z
  .object({
    resource,
    reason: reasonGiven,
    /** The end, as epoch milliseconds. */
    untilMs: z.optional(z.number().check(z.int(), z.positive())),
    /** Or the length, from now. */
    forMs: z.optional(z.number().check(z.int(), z.positive(), z.lte(MAX_FREEZE_MS))),
    by: operatorBy,
  })
  .check(
    z.refine((b) => b.untilMs === undefined || b.forMs === undefined, {
      message: 'give untilMs or forMs, not both',
      path: ['untilMs'],
    }),
  );
const unfreezeBody = z.object({ resource, by: operatorBy });

/** POST freeze and unfreeze, with the admin key (`requireAdmin` throws without it). */
export function freezeRoutes(
  service: PlaneService,
  requireAdmin: (req: AppRequest) => void,
): Record<string, (req: AppRequest) => Promise<AppResponse>> {
  return {
    [`POST ${FREEZE_PATH}`]: async (req) => {
      requireAdmin(req);
      const body = parse(freezeBody, await req.json());
      const now = service.now();
      const untilMs = body.forMs !== undefined ? now + body.forMs : (body.untilMs ?? null);
      if (untilMs !== null && (untilMs <= now || untilMs > now + MAX_FREEZE_MS)) {
        throw new ApiRefusal(
          `untilMs: expected a time after now (${new Date(now).toISOString()}) and within a year`,
          { status: 400, reason: 'bad_request' },
        );
      }
      const reply = await service.freeze(body.resource, body.reason, untilMs, operatorOf(body.by));
      return {
        status: 200,
        body: { ok: true, frozen: true, until: untilMs, changed: reply.changed },
      };
    },
    [`POST ${UNFREEZE_PATH}`]: async (req) => {
      requireAdmin(req);
      const { resource: r, by: name } = parse(unfreezeBody, await req.json());
      const reply = await service.unfreeze(r, operatorOf(name));
      return { status: 200, body: { ok: true, frozen: false, changed: reply.changed } };
    },
  };
}
