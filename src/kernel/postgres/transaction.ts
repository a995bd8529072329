import type pg from 'pg';
import { LeaseGateError } from '../../errors.js';
import type { RuleSettings, Work } from '../rules/work.js';
import type { Decision } from '../rules/rules.js';
import { commitOnce, type Attempt, type Optimistic } from './commit.js';
import { CommitUnknownError, type CommitContext } from './commit-context.js';

const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

export type { RuleSettings, Work };
// Their own module, so commit.ts can use them without importing this file back.
export { CommitUnknownError, parseState, type CommitContext } from './commit-context.js';

/**
 * One attempt at a batch (commit.ts: one round trip, its own transaction unless the
 * caller opened one). Not committed when it throws an ERROR (the statement's transaction
 * rolled back) or answers a conflict; committed when it answers decisions. No answer, or
 * FATAL/PANIC, may come after the commit record: CommitUnknownError, never run again.
 */
export async function runCommands(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  context: CommitContext & Optimistic,
): Promise<Attempt> {
  const unreplicated = watchSyncCancel(client);
  let attempt: Attempt;
  try {
    attempt = await commitOnce(client, work, settings, context);
  } catch (error) {
    if (!sent(error) || (error as { severity?: unknown }).severity === 'ERROR') throw error;
    throw new CommitUnknownError({ cause: error });
  } finally {
    unreplicated.stop();
  }
  // Committed on the primary, but its wait for the synchronous standby was cancelled (our
  // statement_timeout, or an operator): a failover now would lose it, so it is not answered.
  if (unreplicated.seen())
    throw new CommitUnknownError({
      cause: new Error(
        `the synchronous standby did not confirm the commit: ${unreplicated.seen()}`,
      ),
    });
  return attempt;
}

/** Whether an error came from the database or the connection (ours are thrown before sending). */
const sent = (error: unknown) => !(error instanceof LeaseGateError);

/**
 * PostgreSQL answers a COMMIT whose wait for synchronous replication was cancelled with
 * success and a WARNING ("canceling wait for synchronous replication …; the transaction
 * has already committed locally, but might not have been replicated to the standby").
 * The text is the server's in English (lc_messages); its SQLSTATE is only 01000.
 */
export function watchSyncCancel(client: pg.ClientBase): {
  seen(): string | undefined;
  stop(): void;
} {
  let seen: string | undefined;
  const onNotice = (notice: { message?: string | undefined }) => {
    const message = notice.message ?? '';
    if (/synchronous replication/i.test(message)) seen = message.slice(0, 200);
  };
  client.on('notice', onNotice);
  return { seen: () => seen, stop: () => void client.off('notice', onNotice) };
}

/** A committed batch: its decisions, and the resources another replica listens for. */
export interface Committed {
  decisions: Decision[];
  listened: string[];
}

export { NOW_MS };
