import { causeText, LeaseGateError } from '../../errors.js';
import type { Freeze } from '../rules/rules.js';
import { readResourceState, type ResourceState } from '../rules/state.js';
import type { PlaneLocks } from './locks.js';

/**
 * What both the batch's transaction (transaction.ts) and its one-round-trip commit
 * (commit.ts) name: who commits, the error of a commit whose outcome is unknown, and a
 * stored state read back. Apart, so that neither of those two imports the other back.
 */

/** Who commits: the plane's locks, and this replica's name in lease_gate_listening. */
export interface CommitContext {
  locks: PlaneLocks;
  replica: string;
  /** The hold after a failover (failover.ts) in force at `now`, if any: no new holder meanwhile. */
  hold?: ((now: number) => Freeze | undefined) | undefined;
}

/** COMMIT was sent and failed or went unanswered: the batch may be durable, so it is never run again. */
export class CommitUnknownError extends LeaseGateError<'store_commit_unknown'> {
  override name = 'CommitUnknownError';
  /** What the COMMIT met: the driver's error, or the standby's cancelled wait. */
  declare readonly cause: unknown;
  constructor(options: { cause: unknown }) {
    const { cause } = options;
    super(causeText(cause), {
      cause,
      code: 'store_commit_unknown',
    });
  }
}

export function parseState(raw: unknown, resource: string): ResourceState {
  const state = readResourceState(raw, resource);
  if (!state)
    throw new Error(`the stored state of ${JSON.stringify(resource)} is not a lease-gate state`);
  return state;
}
