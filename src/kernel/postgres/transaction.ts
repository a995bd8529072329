import type pg from 'pg';
import { causeText, InternalError, LeaseGateError } from '../../errors.js';
import { decideBatch, ruleContext, type RuleSettings, type Work } from '../rules/work.js';
import type { KernelEvent } from '../rules/event.js';
import type { PlaneLocks } from './locks.js';
import { arrayLiteral, integerLiteral, textLiteral } from './literals.js';
import { emptyState, nextDeadline, type Decision, type Freeze } from '../rules/rules.js';
import { readResourceState, type ResourceState } from '../rules/state.js';

const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

export type { RuleSettings, Work };

/**
 * Commands, in order, as one transaction of two round trips (group commit:
 * one WAL flush for the batch). The first takes a writers stripe shared
 * (locks.ts: the sequencer's watermark waits for it; no two commits wait on
 * each other for it), locks the rows FOR UPDATE in resource order (so two
 * replicas' batches cannot deadlock), reads `now` from the database's clock
 * once every lock is held, and draws the fences the batch's leases may need
 * (fencesWanted).
 * Each command runs the same pure `decide` as every store, on the state the
 * one before it left. The second writes the rows and the entries (pending,
 * numbered later by the sequencer), and commits:
 * COMMIT makes all of it true at once, or none of it. Nothing here locks
 * anything every change needs. See docs/architecture.md.
 */
export async function runCommands(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  context: CommitContext,
): Promise<Committed> {
  let write: string | undefined;
  let decisions: Decision[];
  let listened: string[];
  try {
    ({ decisions, write, listened } = await decideLocked(client, work, settings, context));
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  const unreplicated = watchSyncCancel(client);
  try {
    await client.query(write === undefined ? 'COMMIT' : `${write}; COMMIT`);
  } catch (error) {
    // An ERROR means the transaction did not commit (a failed statement skips the COMMIT after
    // it; a failed COMMIT rolls back). No answer, or FATAL/PANIC, may come after the commit record.
    if ((error as { severity?: unknown }).severity === 'ERROR') throw error;
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
  return { decisions, listened };
}

/**
 * PostgreSQL answers a COMMIT whose wait for synchronous replication was cancelled with
 * success and a WARNING ("canceling wait for synchronous replication …; the transaction
 * has already committed locally, but might not have been replicated to the standby").
 * The text is the server's in English (lc_messages); its SQLSTATE is only 01000.
 */
function watchSyncCancel(client: pg.ClientBase): { seen(): string | undefined; stop(): void } {
  let seen: string | undefined;
  const onNotice = (notice: { message?: string | undefined }) => {
    const message = notice.message ?? '';
    if (/synchronous replication/i.test(message)) seen = message.slice(0, 200);
  };
  client.on('notice', onNotice);
  return { seen: () => seen, stop: () => void client.off('notice', onNotice) };
}

/** Who commits: the plane's locks, and this replica's name in lease_gate_listening. */
export interface CommitContext {
  locks: PlaneLocks;
  replica: string;
  /** The hold after a failover (failover.ts) in force at `now`, if any: no new holder meanwhile. */
  hold?: ((now: number) => Freeze | undefined) | undefined;
}

/** A committed batch: its decisions, and the resources another replica listens for. */
export interface Committed {
  decisions: Decision[];
  listened: string[];
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

/**
 * The statements of a change, prepared once per connection (so planned once,
 * not per batch) and run by EXECUTE inside the simple queries below.
 * - lg_lock: the rows locked, then the clock (the aggregate takes in every
 *   locked row before its one row is projected, so the clock is read after
 *   the last lock);
 * - lg_draw: the fence sequence's value (`base`, the `major` of entries that
 *   are not grants), the resources another replica listens for (`listened`:
 *   its snapshot is taken after every row lock is held, so a replica that
 *   registered before its own change on one of them committed is seen), and
 *   then the batch's fences (fencesWanted);
 * - lg_write: new rows inserted (never upserted: a replica that raced us to
 *   create one makes this fail, 23505, and the batch runs again against its
 *   row), changed rows updated, the entries pending with keys drawn in the
 *   batch's order. The other replicas are told after the commit (notices.ts).
 */
const PREPARE = `
PREPARE lg_lock(text[]) AS
  SELECT l.rows, ${NOW_MS} AS now_ms
    FROM (SELECT json_agg(json_build_object('resource', t.resource, 'state', t.state)) AS rows
            FROM (SELECT resource, state FROM lease_gate_resources
                   WHERE resource = ANY($1) ORDER BY resource FOR UPDATE) AS t) AS l;
PREPARE lg_draw(text[], int[], int, text[], text) AS
  SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM lease_gate_fence) AS base,
         ARRAY(SELECT DISTINCT resource FROM lease_gate_listening
                WHERE resource = ANY($4) AND replica <> $5) AS listened,
         ARRAY(SELECT nextval('lease_gate_fence')
                 FROM generate_series(1, $3 + (
                   SELECT coalesce(sum(x.leases), 0)::int
                     FROM unnest($1, $2) AS x(resource, leases)
                     LEFT JOIN lease_gate_resources AS t ON t.resource = x.resource
                    WHERE jsonb_typeof(t.state->'lease') IS DISTINCT FROM 'object'
                       OR (t.state->'lease'->>'expiresAtMs')::float8 <= ${NOW_MS}))
                ORDER BY 1) AS fences;
PREPARE lg_write(text[], jsonb[], bigint[], text[], jsonb[], bigint[], bigint[], text[]) AS
  WITH added AS (INSERT INTO lease_gate_resources (resource, state, deadline_ms)
                   SELECT * FROM unnest($1, $2, $3)),
       kept AS (UPDATE lease_gate_resources AS r SET state = u.state, deadline_ms = u.deadline_ms
                  FROM unnest($4, $5, $6) AS u(resource, state, deadline_ms)
                 WHERE r.resource = u.resource)
  INSERT INTO lease_gate_pending (key, major, event)
    SELECT nextval('lease_gate_key'), e.major, e.event
      FROM unnest($7, $8) WITH ORDINALITY AS e(major, event, n) ORDER BY e.n;
`;
/** Connections whose session has the statements (a failed connection is closed, never reused). */
const prepared = new WeakSet<pg.ClientBase>();

/**
 * The first round trip: the writers stripe, then lg_lock, then, in a statement
 * after them, lg_draw (preceded by the PREPAREs on a connection's first batch).
 */
function openSql(
  client: pg.ClientBase,
  context: CommitContext,
  names: readonly string[],
  work: readonly Work[],
): string {
  const { ifFree, always } = fencesWanted(work);
  const locked = arrayLiteral(names, 'text');
  return `${prepared.has(client) ? '' : PREPARE}BEGIN;
SELECT pg_advisory_xact_lock_shared(${context.locks.writer});
EXECUTE lg_lock(${locked});
EXECUTE lg_draw(${arrayLiteral([...ifFree.keys()], 'text')}, ${arrayLiteral(
    [...ifFree.values()],
    'int',
  )}, ${integerLiteral(always)}, ${locked}, ${textLiteral(context.replica)})`;
}

/**
 * How many fences a batch may need, so fences stay 1, 2, 3… as the grants go
 * (at most a few are left unused, a gap as a rolled-back grant leaves): only a
 * lease grants, once at most, and only on a resource without a live lease when
 * its rows were locked (`ifFree`, counted by lg_draw on the locked rows, whose
 * clock is read after this batch's `now`, so a lease live then was live at
 * `now`), unless another command of the batch on it may end that lease
 * first (`always`). A batch that still runs short fails before its COMMIT and
 * runs again one call at a time, where the count is exact.
 */
export function fencesWanted(work: readonly Work[]): {
  ifFree: Map<string, number>;
  always: number;
} {
  const ifFree = new Map<string, number>();
  const ending = new Set<string>();
  let always = 0;
  for (const { resource, command } of work) {
    if (command.kind === 'lease') {
      if (ending.has(resource)) always += 1;
      else ifFree.set(resource, (ifFree.get(resource) ?? 0) + 1);
    } else if (command.kind !== 'status') ending.add(resource);
  }
  return { ifFree, always };
}

async function decideLocked(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  context: CommitContext,
): Promise<{ decisions: Decision[]; write?: string; listened: string[] }> {
  const names = [...new Set(work.map((w) => w.resource))].sort();
  const results = (await client.query(
    openSql(client, context, names, work),
  )) as unknown as pg.QueryResult[];
  prepared.add(client);
  const locked = results.at(-2)!.rows[0] as {
    rows: Array<{ resource: string; state: unknown }> | null;
    now_ms: number;
  };
  const drawn = results.at(-1)!.rows[0] as { base: string; fences: string[]; listened: string[] };
  const { listened } = drawn;
  const now = locked.now_ms;
  const stored = new Map(
    (locked.rows ?? []).map((r) => [r.resource, parseState(r.state, r.resource)]),
  );
  const fences = drawn.fences.map(Number);
  let fenced = 0;
  const hold = context.hold?.(now);
  const nextFence = () => {
    const fence = fences[fenced++];
    // Rolled back, and run again call by call (commit-batch.ts), where fencesWanted is exact.
    if (fence === undefined)
      throw new InternalError('a batch granted more leases than it drew fences');
    return fence;
  };
  const final = decideBatch(
    work,
    (resource) => stored.get(resource) ?? emptyState(resource),
    (resource) => ruleContext(settings, resource, now, nextFence, hold),
  );
  if (final.changed.size === 0) return { decisions: final.decisions, listened };
  const ordered = final.decisions.flatMap((d) => d.events);
  // Rows are written in resource order, as they were locked, so two batches' inserts cannot deadlock.
  const states = [...final.changed].map((r) => final.states.get(r)!).sort(byResource);
  const inserted = states.filter((s) => !stored.has(s.resource));
  const updated = states.filter((s) => stored.has(s.resource));
  const rows = (list: ResourceState[]) => [
    arrayLiteral(
      list.map((s) => s.resource),
      'text',
    ),
    arrayLiteral(
      list.map((s) => JSON.stringify(s)),
      'jsonb',
    ),
    arrayLiteral(
      list.map((s) => nextDeadline(s) ?? null),
      'bigint',
    ),
  ];
  const args = [
    ...rows(inserted),
    ...rows(updated),
    arrayLiteral(majorsOf(ordered, Number(drawn.base)), 'bigint'),
    arrayLiteral(
      ordered.map((e) => JSON.stringify(e)),
      'text',
    ),
  ];
  const write = `EXECUTE lg_write(${args.join(', ')})`;
  // Only queues moved: not part of the durable record (waiters ask again), so no flush.
  if (ordered.length === 0)
    return {
      decisions: final.decisions,
      write: `SET LOCAL synchronous_commit TO OFF; ${write}`,
      listened,
    };
  return { decisions: final.decisions, write, listened };
}

/**
 * Each entry's place before its key: a grant's is its fence; any other's is
 * the fence sequence's value once the rows were locked (`base`, below the
 * batch's fences), or the batch's last grant before it. So within a batch
 * they never fall, a resource's later change never has a smaller one, and
 * grants are ordered by their fences. Keys are drawn in the write, in the
 * batch's order, after the row locks. See sequencer.ts.
 */
export function majorsOf(events: readonly KernelEvent[], base: number): number[] {
  let running = base;
  return events.map((e) => {
    if (e.kind === 'grant') running = Math.max(running, e.fence);
    return running;
  });
}

const byResource = (a: ResourceState, b: ResourceState) =>
  a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;

export function parseState(raw: unknown, resource: string): ResourceState {
  const state = readResourceState(raw, resource);
  if (!state)
    throw new Error(`the stored state of ${JSON.stringify(resource)} is not a lease-gate state`);
  return state;
}

export { NOW_MS };
