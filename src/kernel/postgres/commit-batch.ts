import type pg from 'pg';
import type { Decision } from '../rules/rules.js';
import { StoreUnavailableError } from '../store/store-error.js';
import { describe, isRetryable } from './connect.js';
import type { Optimistic } from './commit.js';
import type { Work } from '../rules/work.js';
import {
  CommitUnknownError,
  runCommands,
  watchSyncCancel,
  type CommitContext,
  type Committed,
  type RuleSettings,
} from './transaction.js';

const ATTEMPTS = 4;
/** Optimistic attempts of a batch before its rows are locked from the read to the write. */
const OPTIMISTIC = 3;

export interface BatchContext extends CommitContext, Optimistic {
  connect(): Promise<pg.PoolClient>;
  settings: RuleSettings;
}

/** Each call's result, and the resources another replica listens for (to be told). */
export interface BatchResult {
  results: Array<PromiseSettledResult<Decision>>;
  listened: Set<string>;
}

/** A batch whose COMMIT went unanswered: answered 503, never run again. */
class OutcomeUnknownError extends StoreUnavailableError {
  override name = 'OutcomeUnknownError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, code: 'store_outcome_unknown' });
  }
}

/**
 * One batch as one transaction, run again whole on a retryable conflict.
 * When a batch of several fails before its COMMIT, each call runs alone, so
 * one bad row answers 503 only to the calls on it.
 */
export async function commitBatch(context: BatchContext, work: Work[]): Promise<BatchResult> {
  try {
    const { decisions, listened } = await transact(context, work);
    return {
      results: decisions.map((value) => ({ status: 'fulfilled', value })),
      listened: new Set(listened),
    };
  } catch (error) {
    // Alone again only when nothing can have been committed: a batch is never applied twice.
    if (work.length === 1 || error instanceof OutcomeUnknownError) throw error;
    const listened = new Set<string>();
    const results = await Promise.allSettled(
      work.map(async (w) => {
        const committed = await transact(context, [w]);
        const [decision] = committed.decisions;
        if (!decision) throw new StoreUnavailableError(`no decision for the call on ${w.resource}`);
        for (const resource of committed.listened) listened.add(resource);
        return decision;
      }),
    );
    return { results, listened };
  }
}

async function transact(context: BatchContext, work: Work[]): Promise<Committed> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await context.connect();
    try {
      const committed = await decideUntilWritten(client, context, work);
      client.release();
      return committed;
    } catch (error) {
      // A connection that failed mid-transaction is not reused; the server rolled it back.
      client.release(true);
      // What the batch left is not known here: its rows are read before the next decision.
      context.rows.forget(work.map((w) => w.resource));
      if (error instanceof CommitUnknownError) {
        throw new OutcomeUnknownError(
          `the kernel's store did not confirm the change: ${describe(error.cause)}`,
          { cause: error.cause },
        );
      }
      if (isRetryable(error) && attempt < ATTEMPTS) continue;
      throw new StoreUnavailableError(`the kernel's store cannot write: ${describe(error)}`, {
        cause: error,
      });
    }
  }
}

/**
 * Decided against the rows kept here, and again against the rows a refusal answers
 * (another replica wrote one meanwhile), OPTIMISTIC times at most; then with the rows
 * locked from the read to the write, so a batch on a resource that keeps changing
 * still gets through (three round trips and a COMMIT, once).
 */
async function decideUntilWritten(
  client: pg.PoolClient,
  context: BatchContext,
  work: Work[],
): Promise<Committed> {
  for (let attempt = 0; attempt < OPTIMISTIC; attempt += 1) {
    const done = await runCommands(client, work, context.settings, context);
    if (!done.conflict) return done;
  }
  await client.query('BEGIN');
  try {
    // The first reads the rows (no version kept matches '') and keeps them locked.
    context.rows.forget(work.map((w) => w.resource));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const done = await runCommands(client, work, context.settings, context);
      if (done.conflict) continue;
      await commit(client);
      return done;
    }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  await client.query('ROLLBACK');
  throw new StoreUnavailableError(
    "the kernel's store refused a batch decided on rows it held locked (the database's clock went back?)",
  );
}

/** COMMIT of the locked form: an ERROR means rolled back; no answer, that it may be durable. */
async function commit(client: pg.PoolClient): Promise<void> {
  const unreplicated = watchSyncCancel(client);
  try {
    await client.query('COMMIT');
  } catch (error) {
    if ((error as { severity?: unknown }).severity === 'ERROR') throw error;
    throw new CommitUnknownError({ cause: error });
  } finally {
    unreplicated.stop();
  }
  const cancelled = unreplicated.seen();
  if (cancelled)
    throw new CommitUnknownError({
      cause: new Error(`the synchronous standby did not confirm the commit: ${cancelled}`),
    });
}
