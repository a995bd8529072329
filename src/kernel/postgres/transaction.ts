import type pg from 'pg';
import * as z from 'zod/mini';
import { deploySchema, queueSchema } from '../../plane/deploy.js';
import type { Work } from '../work.js';
import type { KernelEvent } from '../event.js';
import type { PlaneLocks } from './locks.js';
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
 * the batch). It first takes the plane's writers lock shared (the sequencer's
 * watermark waits for it; no two commits wait on each other for it), then
 * locks the rows FOR UPDATE in resource order (so two replicas' batches cannot
 * deadlock) and reads `now` from the database's clock once every lock is held.
 * Each command runs the same pure `decide` as every store, on the state the one
 * before it left. Fences and ordering keys are drawn from sequences after the
 * row locks, so a resource's later change always draws larger ones; the rows,
 * the entries (pending, numbered later by the sequencer) and one NOTIFY per
 * resource are written together. Nothing here locks anything every change needs:
 * COMMIT makes all of it true at once, or none of it. See docs/architecture.md.
 */
export async function runCommands(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  context: { channel: string; locks: PlaneLocks },
): Promise<Decision[]> {
  // One round trip: a simple query of literals only.
  await client.query(`BEGIN; SELECT pg_advisory_xact_lock_shared(${context.locks.writers})`);
  let decisions: Decision[];
  try {
    decisions = await decideLocked(client, work, settings, context.channel);
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

/**
 * The rows locked, then the clock: the aggregate takes in every locked row
 * before its one row is projected, so the clock is read after the last lock
 * (a clock beside FOR UPDATE rows would be read as each row comes out).
 */
const LOCK_ROWS = {
  name: 'lease-gate lock rows',
  text: `SELECT l.rows, ${NOW_MS} AS now_ms
           FROM (SELECT json_agg(json_build_object('resource', t.resource, 'state', t.state)) AS rows
                   FROM (SELECT resource, state FROM lease_gate_resources
                          WHERE resource = ANY($1::text[]) ORDER BY resource FOR UPDATE) AS t) AS l`,
};

/**
 * Fences for the grants, keys for every entry, and the fence sequence's value
 * before them (the `major` of entries that are not grants). After the row locks.
 */
const DRAW = {
  name: 'lease-gate draw',
  text: `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM lease_gate_fence) AS base,
                ARRAY(SELECT nextval('lease_gate_fence') FROM generate_series(1, $1::int) ORDER BY 1) AS fences,
                ARRAY(SELECT nextval('lease_gate_key') FROM generate_series(1, $2::int) ORDER BY 1) AS keys`,
};

const WRITE = {
  name: 'lease-gate write',
  text: `WITH added AS (INSERT INTO lease_gate_resources (resource, state, deadline_ms)
                     SELECT * FROM unnest($1::text[], $2::jsonb[], $3::bigint[])),
          kept AS (UPDATE lease_gate_resources AS r SET state = u.state, deadline_ms = u.deadline_ms
                     FROM unnest($4::text[], $5::jsonb[], $6::bigint[]) AS u(resource, state, deadline_ms)
                    WHERE r.resource = u.resource),
          pending AS (INSERT INTO lease_gate_pending (key, major, event)
                     SELECT coalesce(e.key, nextval('lease_gate_key')),
                            coalesce(e.major, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END
                                                 FROM lease_gate_fence)),
                            e.event
                       FROM unnest($7::bigint[], $8::bigint[], $9::text[]) WITH ORDINALITY AS e(key, major, event, n)
                      ORDER BY e.n)
     SELECT pg_notify($10, notice) FROM unnest($11::text[]) AS notice`,
};

async function decideLocked(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  channel: string,
): Promise<Decision[]> {
  const names = [...new Set(work.map((w) => w.resource))].sort();
  const locked = await client.query<{
    rows: Array<{ resource: string; state: unknown }> | null;
    now_ms: number;
  }>({ ...LOCK_ROWS, values: [names] });
  const { rows: found, now_ms: now } = locked.rows[0]!;
  const stored = new Map((found ?? []).map((r) => [r.resource, parseState(r.state, r.resource)]));

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

  const draw = async (fences: number, keys: number) => {
    const { rows } = await client.query<{ base: string; fences: string[]; keys: string[] }>({
      ...DRAW,
      values: [fences, keys],
    });
    const row = rows[0]!;
    return { base: Number(row.base), fences: row.fences.map(Number), keys: row.keys.map(Number) };
  };
  let final = first;
  // Without grants the write draws the keys itself, and every major is the fence
  // sequence's value then (still after the row locks): one round trip fewer.
  let keys: number[] | null = null;
  let majors: number[] | null = null;
  if (fencesWanted > 0) {
    const taken = await draw(fencesWanted, events.length);
    const { base, fences } = taken;
    let replayed = 0;
    let fenced = 0;
    final = decideAll(work, stored, now, settings, {
      nextFence: () => fences[fenced++]!,
      random: () => drawn[replayed++] ?? settings.random(),
    });
    const decided = final.decisions.flatMap((d) => d.events);
    // The second pass decides as the first did; should it ever make more entries, their keys follow.
    keys = taken.keys;
    if (keys.length < decided.length)
      keys.push(...(await draw(0, decided.length - keys.length)).keys);
    majors = majorsOf(decided, Math.min(base, fences[0] ?? base));
  }
  const ordered = final.decisions.flatMap((d) => d.events);
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
  await client.query({
    ...WRITE,
    values: [
      ...rows(inserted),
      ...rows(updated),
      keys?.slice(0, ordered.length) ?? null,
      majors,
      ordered.map((e) => JSON.stringify(e)),
      channel,
      notices,
    ],
  });
  return final.decisions;
}

/**
 * Each entry's place before its key: a grant's is its fence; any other's is
 * the fence sequence's value once the rows were locked (`base`, never above
 * the batch's first fence), or the batch's last grant before it. So within a
 * batch they never fall, a resource's later change never has a smaller one,
 * and grants are ordered by their fences. See sequencer.ts.
 */
export function majorsOf(events: readonly KernelEvent[], base: number): number[] {
  let running = base;
  return events.map((e) => {
    if (e.kind === 'grant') running = Math.max(running, e.fence);
    return running;
  });
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
