import type pg from 'pg';
import type { Decision } from '../rules.js';
import { StoreUnavailableError } from '../store-error.js';
import { describe, isRetryable } from './connect.js';
import type { Work } from '../work.js';
import type { PlaneLocks } from './locks.js';
import { CommitUnknownError, runCommands, type RuleSettings } from './transaction.js';

const ATTEMPTS = 4;

export interface BatchContext {
  connect(): Promise<pg.PoolClient>;
  settings: RuleSettings;
  locks: PlaneLocks;
}

/** A batch whose COMMIT went unanswered: answered 503, never run again. */
class OutcomeUnknownError extends StoreUnavailableError {}

/**
 * One batch as one transaction, run again whole on a retryable conflict.
 * When a batch of several fails before its COMMIT, each call runs alone, so
 * one bad row answers 503 only to the calls on it.
 */
export async function commitBatch(
  context: BatchContext,
  work: Work[],
): Promise<Array<PromiseSettledResult<Decision>>> {
  try {
    const decisions = await transact(context, work);
    return decisions.map((value) => ({ status: 'fulfilled', value }));
  } catch (error) {
    // Alone again only when nothing can have been committed: a batch is never applied twice.
    if (work.length === 1 || error instanceof OutcomeUnknownError) throw error;
    return Promise.allSettled(
      work.map(async (w) => {
        const [decision] = await transact(context, [w]);
        if (!decision) throw new StoreUnavailableError(`no decision for the call on ${w.resource}`);
        return decision;
      }),
    );
  }
}

async function transact(context: BatchContext, work: Work[]): Promise<Decision[]> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await context.connect();
    try {
      const decisions = await runCommands(client, work, context.settings, context);
      client.release();
      return decisions;
    } catch (error) {
      // A connection that failed mid-transaction is not reused; the server rolled it back.
      client.release(true);
      if (error instanceof CommitUnknownError) {
        throw new OutcomeUnknownError(
          `the kernel's store did not confirm the change: ${describe(error.cause)}`,
        );
      }
      if (isRetryable(error) && attempt < ATTEMPTS) continue;
      throw new StoreUnavailableError(`the kernel's store cannot write: ${describe(error)}`);
    }
  }
}
