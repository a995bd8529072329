import * as z from 'zod/mini';
import '../../zod-en.js';
import {
  APPROVE_BREAK_GLASS_PATH,
  BREAK_GLASS_PATH,
  DID_FORM,
  WITHDRAW_BREAK_GLASS_PATH,
  didSchema as actorDid,
  resourceSchema as resource,
} from '../../plane/schema.js';
import { RUN_FORM, runPassDid } from '../../plane/run-pass.js';
import type { Approver } from './admin.js';
import { ApiRefusal, parse, type AppRequest, type AppResponse } from './api.js';
import { operatorBy, operatorOf, reasonGiven } from './freeze-routes.js';
import { DEFAULT_BREAK_GLASS_MS, MAX_BREAK_GLASS_MS } from '../rules/break-glass.js';
import type { BreakGlassReply } from '../rules/rules.js';
import type { BreakGlass } from '../rules/state.js';
import type { PlaneService } from '../service/plane-service.js';

/** The pass's agent, or a GitHub run (`run`: OWNER/REPO/RUN_ID, plane/run-pass.ts) for any job of it. */
const run = z.string().check(z.refine((v) => runPassDid(v) !== undefined, `expected ${RUN_FORM}`));
const breakGlassBody = z.object({
  resource,
  actorDid: z.optional(actorDid),
  run: z.optional(run),
  reason: reasonGiven,
  /** How long the pass stays open, from now. */
  forMs: z.optional(
    z
      .number()
      .check(
        z.int(),
        z.positive(),
        z.lte(MAX_BREAK_GLASS_MS, `expected at most ${MAX_BREAK_GLASS_MS} (one hour)`),
      ),
  ),
  by: operatorBy,
});
const approveBody = z.object({
  resource,
  actorDid: z.optional(actorDid),
  run: z.optional(run),
  by: operatorBy,
});
/** A cancel: the pass on `resource`, only if it is for `actorDid` (or `run`) when that is given. */
const withdrawBody = z.object({
  resource,
  actorDid: z.optional(actorDid),
  run: z.optional(run),
  by: operatorBy,
});

/** The DID a pass is keyed by: `actorDid`, or the run's; one of them, not both. */
function passDid(body: { actorDid?: string | undefined; run?: string | undefined }): string;
function passDid(
  body: { actorDid?: string | undefined; run?: string | undefined },
  optional: true,
): string | undefined;
function passDid(
  body: { actorDid?: string | undefined; run?: string | undefined },
  optional = false,
): string | undefined {
  if (body.actorDid !== undefined && body.run !== undefined) {
    throw new ApiRefusal('actorDid or run: expected one of them, not both', {
      status: 400,
      reason: 'bad_request',
    });
  }
  if (body.run !== undefined) return runPassDid(body.run);
  if (body.actorDid === undefined && !optional) {
    throw new ApiRefusal(`actorDid: expected ${DID_FORM} (or run: ${RUN_FORM})`, {
      status: 400,
      reason: 'bad_request',
    });
  }
  return body.actorDid;
}

/**
 * POST break-glass (the admin key) and its approval (the approver key or an approver OIDC
 * identity, when the kernel has one: then a break-glass waits for it). Approving with the
 * admin key would let one key do both halves, so it is refused; so is a job approving its
 * own repository's pass with a run's token.
 */
export function breakGlassRoutes(
  service: PlaneService,
  requireAdmin: (req: AppRequest) => void,
  requireApprover: ((req: AppRequest) => Promise<Approver>) | undefined,
): Record<string, (req: AppRequest) => Promise<AppResponse>> {
  return {
    [`POST ${BREAK_GLASS_PATH}`]: async (req) => {
      requireAdmin(req);
      const body = parse(breakGlassBody, await req.json());
      const actorDid = passDid(body);
      const untilMs = service.now() + (body.forMs ?? DEFAULT_BREAK_GLASS_MS);
      const reply = await service.breakGlass(body.resource, {
        actorDid,
        reason: body.reason,
        untilMs,
        by: operatorOf(body.by),
        needsApproval: requireApprover !== undefined,
      });
      return answer(reply);
    },
    [`POST ${APPROVE_BREAK_GLASS_PATH}`]: async (req) => {
      if (!requireApprover) {
        throw new ApiRefusal(
          'This kernel has no second approver (LEASE_GATE_APPROVER_KEY or --approver-oidc): a break-glass is open as soon as it is made.',
          { status: 409, reason: 'no_approver' },
        );
      }
      const approver = await requireApprover(req);
      const parsed = parse(approveBody, await req.json());
      const body = { ...parsed, actorDid: passDid(parsed) };
      if (approver.kind === 'oidc') {
        if (body.by) {
          throw new ApiRefusal(
            `by: an OIDC approver is named by its token (${approver.by}): leave by out`,
            { status: 400, reason: 'bad_request' },
          );
        }
        // Any run of the pass's own repository is refused, not only the same run: a re-run or
        // a second workflow there is the same team letting itself through. GitHub names are
        // case-insensitive, so the comparison is too.
        if (body.actorDid.toLowerCase().startsWith(approver.repoPrefix.toLowerCase())) {
          throw new ApiRefusal(
            `${approver.by} is a run of the repository the break-glass lets through (${body.actorDid}): an identity from elsewhere must approve it`,
            { status: 409, reason: 'same_operator' },
          );
        }
        return answer(
          await service.approveBreakGlass(
            body.resource,
            body.actorDid,
            approver.by,
            approver.approval,
          ),
        );
      }
      if (!body.by) {
        throw new ApiRefusal(`by: expected the approver's name, so the ledger names who approved`, {
          status: 400,
          reason: 'bad_request',
        });
      }
      return answer(
        await service.approveBreakGlass(body.resource, body.actorDid, operatorOf(body.by)),
      );
    },
    [`POST ${WITHDRAW_BREAK_GLASS_PATH}`]: async (req) => {
      requireAdmin(req);
      const body = parse(withdrawBody, await req.json());
      const reply = await service.withdrawBreakGlass(
        body.resource,
        operatorOf(body.by),
        passDid(body, true),
      );
      if (!reply.ok) return { status: 409, body: reply };
      return withdrawn(reply.withdrawn);
    },
  };
}

/** A withdrawal's answer: the pass that is gone. */
function withdrawn(pass: BreakGlass): AppResponse {
  const { body } = answer({ ok: true, breakGlass: pass }) as { body: object };
  return { status: 200, body: { ...body, withdrawn: true } };
}

function answer(reply: BreakGlassReply): AppResponse {
  if (!reply.ok) return { status: 409, body: reply };
  const { actorDid: a, reason, by, untilMs, pending, approvedBy, approval } = reply.breakGlass;
  return {
    status: 200,
    body: {
      ok: true,
      actorDid: a,
      reason,
      by,
      until: untilMs,
      pending,
      ...(approvedBy !== undefined ? { approvedBy } : {}),
      ...(approval !== undefined ? { approval } : {}),
    },
  };
}
