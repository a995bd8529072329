import { checkAnswer, readRevoke } from './answers.js';
import { unheld, type Caller } from './caller.js';
import {
  REVOKE_PATH,
  FREEZE_PATH,
  UNFREEZE_PATH,
  BREAK_GLASS_PATH,
  APPROVE_BREAK_GLASS_PATH,
  WITHDRAW_BREAK_GLASS_PATH,
  breakGlassAnswerSchema,
  freezeAnswerSchema,
  type BreakGlassAnswer,
} from './schema.js';
import type { CallOptions } from './send.js';

/** An operator's calls, each with the key it names (admin or approver), not the job's. */
export interface OperatorCalls {
  revoke(
    resource: string,
    reason: string,
    adminKey: string,
    options?: CallOptions,
    /** The operator's name, recorded on the revoke's ledger entry as `operator:NAME`. */
    by?: string,
  ): Promise<{ revoked: boolean; leaseId?: string | undefined; holder?: string | undefined }>;
  /** The bundled kernel's freeze (admin key): `until` or `for` milliseconds, or neither. */
  freeze(
    request: { resource: string; reason: string; untilMs?: number; forMs?: number; by?: string },
    adminKey: string,
    options?: CallOptions,
  ): Promise<{ until: number | null; changed: boolean }>;
  /** `by`: the operator's name, for the ledger (OPERATOR_NAME_PATTERN). */
  unfreeze(
    resource: string,
    adminKey: string,
    options?: CallOptions,
    by?: string,
  ): Promise<{ changed: boolean }>;
  /** The bundled kernel's break-glass (admin key): `actorDid` may pass a freeze once. */
  breakGlass(
    request: { resource: string; actorDid: string; reason: string; forMs?: number; by?: string },
    adminKey: string,
    options?: CallOptions,
  ): Promise<BreakGlassAnswer>;
  /**
   * A second operator approves it: the kernel's approver key with `by`, or an approver's
   * OIDC ID token without it (the kernel names it from the token).
   */
  approveBreakGlass(
    request: { resource: string; actorDid: string; by?: string },
    approverKey: string,
    options?: CallOptions,
  ): Promise<BreakGlassAnswer>;
  /** An operator withdraws the unused break-glass (admin key); only `actorDid`'s, when given. */
  withdrawBreakGlass(
    request: { resource: string; actorDid?: string; by?: string },
    adminKey: string,
    options?: CallOptions,
  ): Promise<BreakGlassAnswer>;
}

export function operatorCalls(caller: Caller): OperatorCalls {
  const { post, name } = caller;
  return {
    async revoke(resource, reason, adminKey, call = {}, by) {
      const payload = by ? { resource, reason, by } : { resource, reason };
      const raw = await post(REVOKE_PATH, payload, unheld(call), adminKey);
      return readRevoke(raw, name('POST', REVOKE_PATH));
    },

    async freeze(request, adminKey, call = {}) {
      const raw = await post(FREEZE_PATH, request, unheld(call), adminKey);
      const answer = checkAnswer(freezeAnswerSchema, raw, name('POST', FREEZE_PATH));
      return { until: answer.until ?? null, changed: answer.changed };
    },

    async unfreeze(resource, adminKey, call = {}, by) {
      const payload = by ? { resource, by } : { resource };
      const raw = await post(UNFREEZE_PATH, payload, unheld(call), adminKey);
      return { changed: checkAnswer(freezeAnswerSchema, raw, name('POST', UNFREEZE_PATH)).changed };
    },

    async breakGlass(request, adminKey, call = {}) {
      const raw = await post(BREAK_GLASS_PATH, request, unheld(call), adminKey);
      return checkAnswer(breakGlassAnswerSchema, raw, name('POST', BREAK_GLASS_PATH));
    },

    async approveBreakGlass(request, approverKey, call = {}) {
      const raw = await post(APPROVE_BREAK_GLASS_PATH, request, unheld(call), approverKey);
      return checkAnswer(breakGlassAnswerSchema, raw, name('POST', APPROVE_BREAK_GLASS_PATH));
    },

    async withdrawBreakGlass(request, adminKey, call = {}) {
      const raw = await post(WITHDRAW_BREAK_GLASS_PATH, request, unheld(call), adminKey);
      return checkAnswer(breakGlassAnswerSchema, raw, name('POST', WITHDRAW_BREAK_GLASS_PATH));
    },
  };
}
