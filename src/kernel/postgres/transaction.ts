import type pg from 'pg';
import * as z from 'zod/mini';
import { entryJson } from '../../ledger/entry.js';
import { numberEntries } from '../../ledger/ledger.js';
import { deploySchema, queueSchema } from '../../plane/deploy.js';
import type { Work } from '../work.js';
import {
  emptyState,
  nextDeadline,
  type Decision,
  type Freeze,
  type ResourceState,
} from '../rules.js';

/** The rules' settings; every replica of one plane must run with the same ones. */
export interface RuleSettings {
  ttlMs: number;
  nextInLineWaitMs: number;
  lockDelayMs: number;
  random: () => number;
  /** Recurring freeze windows (windows.ts), when configured. */
  window?: ((resource: string, now: number) => Freeze | undefined) | undefined;
}

const leaseSchema = z.object({
  id: z.string(),
  resource: z.string(),
  holder: z.string(),
  expiresAtMs: z.number(),
  fence: z.number().check(z.int()),
  grantedAtMs: z.number(),
  deploy: z.optional(deploySchema),
});

/** A row written by another replica (or another release) is checked like any outside input. */
const stateSchema = z.object({
  resource: z.string(),
  lease: z.nullable(leaseSchema),
  queue: z.array(
    z.object({
      actorDid: z.string(),
      keepUntil: z.number(),
      sinceMs: z.optional(z.number()),
      deploy: z.optional(deploySchema),
      queue: z.optional(queueSchema),
    }),
  ),
  reservedUntilMs: z.number(),
  typicalHoldMs: z.nullable(z.number()),
  revoked: z.array(z.object({ actorDid: z.string(), message: z.string(), untilMs: z.number() })),
  lockDelay: z.optional(
    z.object({ actorDid: z.string(), leaseId: z.string(), untilMs: z.number() }),
  ),
  // Deploy order (deploy-order.ts): optional, so rows written before it still read.
  superseded: z.optional(
    z.array(z.object({ actorDid: z.string(), by: z.string(), untilMs: z.number() })),
  ),
  deploys: z.optional(
    z.array(
      z.object({
        repository: z.string(),
        live: deploySchema,
        before: z.optional(deploySchema),
      }),
    ),
  ),
  frozen: z.optional(
    z.object({
      reason: z.string(),
      untilMs: z.nullable(z.number()),
      by: z.string(),
      atMs: z.number(),
    }),
  ),
});

const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

export type { Work };

/**
 * Commands, in order, as one transaction (group commit: one WAL flush for
 * the batch). The rows are locked FOR UPDATE in resource order (so two
 * replicas' batches cannot deadlock), `now` is read from the database's clock
 * once the locks are held, and each command runs the same pure `decide` as
 * every store, on the state the one before it left. The fences come from a
 * sequence and the ledger's next numbers from its head, both under the head's
 * lock; then the rows, the entries, the head and one NOTIFY per resource are
 * written together. COMMIT makes all of it true at once, or none of it.
 */
export async function runCommands(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  channel: string,
): Promise<Decision[]> {
  await client.query('BEGIN');
  let decisions: Decision[];
  try {
    decisions = await decideLocked(client, work, settings, channel);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  try {
    await client.query('COMMIT');
  } catch (error) {
    throw new CommitUnknownError(error);
  }
  return decisions;
}

/** COMMIT was sent and failed or went unanswered: the batch may be durable, so it is never run again. */
export class CommitUnknownError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

async function decideLocked(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  channel: string,
): Promise<Decision[]> {
  const names = [...new Set(work.map((w) => w.resource))].sort();
  // The clock is read in the outer query, so only once every row's lock is held.
  const locked = await client.query<{ resource: string; state: unknown; now_ms: number }>(
    `SELECT locked.resource, locked.state, ${NOW_MS} AS now_ms
       FROM (SELECT resource, state FROM lease_gate_resources WHERE resource = ANY($1::text[])
              ORDER BY resource FOR UPDATE) AS locked`,
    [names],
  );
  const now =
    locked.rows[0]?.now_ms ??
    (await client.query<{ now_ms: number }>(`SELECT ${NOW_MS} AS now_ms`)).rows[0]!.now_ms;
  const stored = new Map(locked.rows.map((r) => [r.resource, parseState(r.state, r.resource)]));

  // First pass: how many fences? Randomness is recorded so the second pass decides the same.
  const drawn: number[] = [];
  let fencesWanted = 0;
  const first = decideAll(work, stored, now, settings, {
    nextFence: () => {
      fencesWanted += 1;
      return 0;
    },
    random: () => {
      const value = settings.random();
      drawn.push(value);
      return value;
    },
  });
  const events = first.decisions.flatMap((d) => d.events);
  if (events.length === 0) {
    if (first.changed.size > 0) {
      // Only queues moved: not part of the durable record (waiters ask again), so no flush.
      await client.query('SET LOCAL synchronous_commit TO OFF');
      await writeStates(client, first.changed, stored);
    }
    return first.decisions;
  }

  // The ledger head's lock orders every change of every resource; fences are taken under it,
  // in the order of the commands, so fences rise in ledger order too.
  const head = await client.query<{ size: string; last_ts: string; fences: string[] | null }>(
    `SELECT h.size, h.last_ts,
            CASE WHEN $1::int > 0 THEN ARRAY(SELECT nextval('lease_gate_fence')
                                               FROM generate_series(1, $1::int) ORDER BY 1) END AS fences
       FROM (SELECT size, last_ts FROM lease_gate_ledger_head WHERE id = 1 FOR UPDATE) AS h`,
    [fencesWanted],
  );
  const { size, last_ts: lastTs, fences } = head.rows[0]!;
  let final = first;
  if (fencesWanted > 0) {
    let replayed = 0;
    let fenced = 0;
    final = decideAll(work, stored, now, settings, {
      nextFence: () => Number(fences![fenced++]),
      random: () => drawn[replayed++] ?? settings.random(),
    });
  }
  const ordered = final.decisions.flatMap((d) => d.events);
  const entries = numberEntries(ordered, Number(size), Number(lastTs));
  const last = entries.at(-1)!;
  // Rows are written in resource order, as they were locked, so two batches' inserts cannot deadlock.
  const states = [...final.changed.values()].sort(byResource);
  const inserted = states.filter((s) => !stored.has(s.resource));
  const updated = states.filter((s) => stored.has(s.resource));
  const notices = [...new Set(ordered.map((e) => e.resource))].map((resource) =>
    JSON.stringify({ resource, events: ordered.filter((e) => e.resource === resource) }),
  );
  const rows = (list: ResourceState[]) => [
    list.map((s) => s.resource),
    list.map((s) => JSON.stringify(s)),
    list.map((s) => nextDeadline(s) ?? null),
  ];
  await client.query(
    `WITH added AS (INSERT INTO lease_gate_resources (resource, state, deadline_ms)
                     SELECT * FROM unnest($1::text[], $2::jsonb[], $3::bigint[])),
          kept AS (UPDATE lease_gate_resources AS r SET state = u.state, deadline_ms = u.deadline_ms
                     FROM unnest($4::text[], $5::jsonb[], $6::bigint[]) AS u(resource, state, deadline_ms)
                    WHERE r.resource = u.resource),
          logged AS (INSERT INTO lease_gate_ledger (seq, line) SELECT * FROM unnest($7::bigint[], $8::text[])),
          moved AS (UPDATE lease_gate_ledger_head SET size = $9, last_ts = $10 WHERE id = 1)
     SELECT pg_notify($11, notice) FROM unnest($12::text[]) AS notice`,
    [
      ...rows(inserted),
      ...rows(updated),
      entries.map((e) => e.seq),
      entries.map(entryJson),
      last.seq + 1,
      last.tsMs,
      channel,
      notices,
    ],
  );
  return final.decisions;
}

/** Each command in order on the state the one before it left; the states that changed. */
function decideAll(
  work: readonly Work[],
  stored: ReadonlyMap<string, ResourceState>,
  now: number,
  settings: RuleSettings,
  draw: { nextFence(): number; random(): number },
): { decisions: Decision[]; changed: Map<string, ResourceState> } {
  const current = new Map(stored);
  const changed = new Map<string, ResourceState>();
  const decisions = work.map((item) => {
    const { resource } = item;
    const before = current.get(resource) ?? emptyState(resource);
    const decision = item.decide(before, {
      now,
      ttlMs: settings.ttlMs,
      nextInLineWaitMs: settings.nextInLineWaitMs,
      lockDelayMs: settings.lockDelayMs,
      window: settings.window?.(resource, now),
      ...draw,
    });
    current.set(resource, decision.state);
    if (decision.events.length > 0 || JSON.stringify(decision.state) !== JSON.stringify(before)) {
      changed.set(resource, decision.state);
    }
    return decision;
  });
  return { decisions, changed };
}

const INSERT_STATE =
  'INSERT INTO lease_gate_resources (resource, state, deadline_ms) VALUES ($1, $2, $3)';
const UPDATE_STATE =
  'UPDATE lease_gate_resources SET state = $2, deadline_ms = $3 WHERE resource = $1';

/**
 * A row that did not exist is inserted, never upserted: a replica that raced
 * us to create it makes this fail (23505) and the whole batch runs again
 * against its row, instead of overwriting it.
 */
async function writeStates(
  client: pg.ClientBase,
  changed: ReadonlyMap<string, ResourceState>,
  stored: ReadonlyMap<string, ResourceState>,
) {
  for (const state of [...changed.values()].sort(byResource)) {
    await client.query(stored.has(state.resource) ? UPDATE_STATE : INSERT_STATE, [
      state.resource,
      JSON.stringify(state),
      nextDeadline(state) ?? null,
    ]);
  }
}

const byResource = (a: ResourceState, b: ResourceState) =>
  a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;

export function parseState(raw: unknown, resource: string): ResourceState {
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success || parsed.data.resource !== resource) {
    throw new Error(`the stored state of ${JSON.stringify(resource)} is not a lease-gate state`);
  }
  const { lockDelay, ...state } = parsed.data;
  return lockDelay ? { ...state, lockDelay } : state;
}

export { NOW_MS };
