/**
 * What `decide` (rules.ts) is asked and answers: the context, the commands, and each
 * command's reply. Types only, so lease.ts and rules.ts share them without a circle.
 */
import type { Deploy, QueueMode } from '../../plane/deploy.js';
import type { KernelEvent } from './event.js';
import type { FreezeCommand, UnfreezeCommand, FreezeReply, FrozenReply } from './freeze.js';
import type {
  ApproveBreakGlassCommand,
  BreakGlassCommand,
  BreakGlassReply,
  WithdrawBreakGlassCommand,
  WithdrawBreakGlassReply,
} from './break-glass.js';
import type { Freeze, LeaseRecord, ResourceState } from './state.js';

export interface RuleContext {
  now: number;
  ttlMs: number;
  /** After a revoke (0: none); `defaultLockDelayMs(ttlMs)` when not given. */
  lockDelayMs?: number | undefined;
  nextInLineWaitMs: number;
  /** Takes the next fence; called only for a grant. */
  nextFence(): number;
  random(): number;
  /** A recurring freeze window in force now for this resource, if any (windows.ts). */
  window?: Freeze | undefined;
  /**
   * The hold after the database failed over (failover.ts): no lease call succeeds, not even a
   * holder's renewal, since the state it would renew may be older than what its holder was told.
   */
  failover?: Freeze | undefined;
}

export type Command =
  | {
      kind: 'lease';
      actorDid: string;
      deploy?: Deploy | undefined;
      queue?: QueueMode | undefined;
      /** Why this deploy breaks the promotion order (the service looked in the ledger). */
      unpromoted?: string | undefined;
      /** The commit that completed the step before and contains this deploy's (GitHub's compare). */
      promotedVia?: string | undefined;
      /** The OIDC issuer (URL) of the asker's token, recorded on its grant. */
      issuer?: string | undefined;
    }
  /** `outdated`: the holder did not deploy (an older commit), so its grant is undone for `previous`. */
  | { kind: 'release'; actorDid: string; outdated?: boolean | undefined }
  /** `by`: who revoked (`operator:NAME`), recorded on the entry when given. */
  | { kind: 'revoke'; reason: string; by?: string | undefined }
  | FreezeCommand
  | UnfreezeCommand
  | BreakGlassCommand
  | ApproveBreakGlassCommand
  | WithdrawBreakGlassCommand
  | { kind: 'status' }
  | { kind: 'expire' }
  /** A waiter that stopped waiting (a held request whose client went away). */
  | { kind: 'leave'; actorDid: string };

export type LeaseReply =
  | { ok: true; lease: LeaseRecord; renewed: boolean; previous?: Deploy }
  | {
      ok: false;
      reason: 'lease_held';
      holder: string;
      reserved?: true;
      stampede: { waitMs: number };
      position: number;
      etaMs?: number;
      /** How far the holder runs past a typical hold (overdueMs), when it does. */
      overdueMs?: number;
    }
  | FrozenReply
  | { ok: false; reason: 'revoked'; holder: string; message: string; by?: string }
  | { ok: false; reason: 'superseded'; by: string }
  /** The commit has not completed the step before this resource (ledger/promotion.ts). */
  | { ok: false; reason: 'not_promoted'; message: string };

export interface ReleaseReply {
  ok: true;
  released: boolean;
  releasedIds: string[];
}

export interface RevokeReply {
  revoked: boolean;
  lease: LeaseRecord | null;
}

export interface StatusReply {
  lease: LeaseRecord | null;
  /** The operator's freeze or the recurring window in force now, so `status` can say why nobody is granted it. */
  frozen: Freeze | null;
}

/** What each command is answered: `decide` is typed by it, so no caller casts a reply. */
export interface ReplyOf {
  lease: LeaseReply;
  release: ReleaseReply;
  revoke: RevokeReply;
  freeze: FreezeReply;
  unfreeze: FreezeReply;
  break_glass: BreakGlassReply;
  approve_break_glass: BreakGlassReply;
  withdraw_break_glass: WithdrawBreakGlassReply;
  status: StatusReply;
  expire: null;
  leave: null;
}

export type ReplyFor<C extends Command> = ReplyOf[C['kind']];
export type Reply = ReplyOf[keyof ReplyOf];

export interface Decision<R = Reply> {
  state: ResourceState;
  reply: R;
  events: KernelEvent[];
}
