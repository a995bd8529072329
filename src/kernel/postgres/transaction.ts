import type pg from 'pg';
import { z } from 'zod';
import { entryJson, type LedgerEntry } from '../../ledger/entry.js';
import {
  decide,
  emptyState,
  nextDeadline,
  type Command,
  type Decision,
  type KernelEvent,
  type ResourceState,
} from '../rules.js';

/** The rules' settings; every replica of one plane must run with the same ones. */
export interface RuleSettings {
  ttlMs: number;
  nextInLineWaitMs: number;
  random: () => number;
}

const leaseSchema = z.object({
  id: z.string(),
  resource: z.string(),
  holder: z.string(),
  expiresAtMs: z.number(),
  fence: z.number().int(),
  grantedAtMs: z.number(),
});

/** A row written by another replica (or another release) is checked like any outside input. */
const stateSchema = z.object({
  resource: z.string(),
  lease: leaseSchema.nullable(),
  queue: z.array(z.object({ actorDid: z.string(), keepUntil: z.number() })),
  reservedUntilMs: z.number(),
  typicalHoldMs: z.number().nullable(),
  revoked: z.array(z.object({ actorDid: z.string(), message: z.string(), untilMs: z.number() })),
});

const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

/**
 * One command on one resource as one transaction: the row locked FOR UPDATE,
 * `now` from the database's clock once the lock is held, the same pure
 * `decide` as every store, the fence from a sequence and the ledger's next
 * numbers under the ledger head's lock, then the row, the entries, the head
 * and a NOTIFY written together. COMMIT makes all of it true at once, or none.
 */
export async function runCommand(
  client: pg.ClientBase,
  resource: string,
  command: Command,
  settings: RuleSettings,
  channel: string,
): Promise<Decision> {
  await client.query('BEGIN');
  try {
    const decision = await decideLocked(client, resource, command, settings, channel);
    await client.query('COMMIT');
    return decision;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function decideLocked(
  client: pg.ClientBase,
  resource: string,
  command: Command,
  settings: RuleSettings,
  channel: string,
): Promise<Decision> {
  // The clock is read in the outer query, so only once the row's lock is held.
  const locked = await client.query<{ state: unknown; now_ms: number }>(
    `SELECT locked.state, ${NOW_MS} AS now_ms
       FROM (SELECT state FROM lease_gate_resources WHERE resource = $1 FOR UPDATE) AS locked`,
    [resource],
  );
  const row = locked.rows[0];
  const now = row
    ? row.now_ms
    : (await client.query<{ now_ms: number }>(`SELECT ${NOW_MS} AS now_ms`)).rows[0]!.now_ms;
  const before = row ? parseState(row.state, resource) : emptyState(resource);

  // First pass: is a fence needed? Randomness is recorded so the second pass decides the same.
  const drawn: number[] = [];
  let wantsFence = false;
  const first = decide(before, command, {
    now,
    ttlMs: settings.ttlMs,
    nextInLineWaitMs: settings.nextInLineWaitMs,
    nextFence: () => {
      wantsFence = true;
      return 0;
    },
    random: () => {
      const value = settings.random();
      drawn.push(value);
      return value;
    },
  });
  if (first.events.length === 0) {
    if (JSON.stringify(first.state) !== JSON.stringify(before)) {
      // Only the queue moved: not part of the durable record (waiters ask again), so no flush.
      await client.query('SET LOCAL synchronous_commit TO OFF');
      await writeState(client, first.state, row !== undefined);
    }
    return first;
  }

  // The ledger head's lock orders every change of every resource; the fence is taken under it,
  // so fences rise in ledger order too.
  const head = await client.query<{ size: string; last_ts: string; fence: string | null }>(
    `SELECT h.size, h.last_ts, CASE WHEN $1::boolean THEN nextval('lease_gate_fence') END AS fence
       FROM (SELECT size, last_ts FROM lease_gate_ledger_head WHERE id = 1 FOR UPDATE) AS h`,
    [wantsFence],
  );
  const { size, last_ts: lastTs, fence } = head.rows[0]!;
  let decision = first;
  if (wantsFence) {
    let replayed = 0;
    decision = decide(before, command, {
      now,
      ttlMs: settings.ttlMs,
      nextInLineWaitMs: settings.nextInLineWaitMs,
      nextFence: () => Number(fence),
      random: () => drawn[replayed++] ?? settings.random(),
    });
  }
  const entries = numberEntries(decision.events, Number(size), Number(lastTs));
  const last = entries.at(-1)!;
  await client.query(
    `WITH kept AS (${row ? UPDATE_STATE : INSERT_STATE}),
          logged AS (INSERT INTO lease_gate_ledger (seq, line) SELECT * FROM unnest($4::bigint[], $5::text[])),
          moved AS (UPDATE lease_gate_ledger_head SET size = $6, last_ts = $7 WHERE id = 1)
     SELECT pg_notify($8, $9)`,
    [
      resource,
      JSON.stringify(decision.state),
      nextDeadline(decision.state) ?? null,
      entries.map((e) => e.seq),
      entries.map(entryJson),
      last.seq + 1,
      last.tsMs,
      channel,
      JSON.stringify({ resource, events: decision.events }),
    ],
  );
  return decision;
}

const INSERT_STATE =
  'INSERT INTO lease_gate_resources (resource, state, deadline_ms) VALUES ($1, $2, $3)';
const UPDATE_STATE =
  'UPDATE lease_gate_resources SET state = $2, deadline_ms = $3 WHERE resource = $1';

/**
 * A row that did not exist is inserted, never upserted: a replica that raced
 * us to create it makes this fail (23505) and the whole command runs again
 * against its row, instead of overwriting it.
 */
async function writeState(client: pg.ClientBase, state: ResourceState, exists: boolean) {
  await client.query(exists ? UPDATE_STATE : INSERT_STATE, [
    state.resource,
    JSON.stringify(state),
    nextDeadline(state) ?? null,
  ]);
}

/** Numbers and times entries after the head, as `Ledger.prepare` does in memory. */
function numberEntries(events: KernelEvent[], size: number, lastTs: number): LedgerEntry[] {
  let ts = lastTs;
  return events.map(({ atMs, ...rest }, i) => {
    ts = Math.max(Math.round(atMs), ts + 1);
    return { ...rest, seq: size + i, tsMs: ts };
  });
}

export function parseState(raw: unknown, resource: string): ResourceState {
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success || parsed.data.resource !== resource) {
    throw new Error(`the stored state of ${JSON.stringify(resource)} is not a lease-gate state`);
  }
  return parsed.data;
}

export { NOW_MS };
