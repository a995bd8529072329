import type pg from 'pg';
import { InternalError } from '../../errors.js';
import type { KernelEvent } from '../rules/event.js';
import { emptyState, nextDeadline, type Decision } from '../rules/rules.js';
import { decideBatch, ruleContext, type RuleSettings, type Work } from '../rules/work.js';
import type { DbClock, Row, RowCache } from './rows.js';
import { StoreUnavailableError } from '../store/store-error.js';
import { CommitUnknownError, parseState, type CommitContext } from './commit-context.js';

/** What a batch decides against: the replica's rows and its view of the database's clock. */
export interface Optimistic {
  rows: RowCache;
  clock: DbClock;
}

/** One attempt's outcome: committed, or refused because a row or the clock moved. */
export type Attempt =
  { conflict: false; decisions: Decision[]; listened: string[] } | { conflict: true };

/** lease_gate_commit (migration 4, its body migration 5's), prepared once per connection by its name. */
const COMMIT: pg.QueryConfig = {
  name: 'lease_gate_commit',
  text: 'SELECT * FROM lease_gate_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
};

interface Answer {
  o_conflict: boolean;
  o_clock: number;
  o_version: string | null;
  o_fences: string[] | null;
  o_listened: string[] | null;
  o_rows: Array<{ resource: string; state: unknown; version: string }> | null;
}

/**
 * One round trip: the batch decided against the rows kept here at the projected
 * clock, sent with the versions it read; lease_gate_commit writes it only if every row
 * is still at that version (and the clock not behind the decision), in the statement's
 * own transaction, so an answer means committed. A refusal writes nothing and answers
 * the rows as they are, kept here for the next attempt. A grant's fence is a
 * placeholder until the database draws it (commit-sql.ts); the answer's fences fill in
 * the decisions. Before its first answer a replica has no clock: it only reads the rows.
 */
export async function commitOnce(
  client: pg.ClientBase,
  work: readonly Work[],
  settings: RuleSettings,
  context: CommitContext & Optimistic,
): Promise<Attempt> {
  const { rows, clock } = context;
  const names = [...new Set(work.map((w) => w.resource))].sort();
  const now = clock.now();
  const loaded = new Map<string, Row>(names.map((r) => [r, rows.get(r)]));
  let values: unknown[];
  let decided: ReturnType<typeof decideBatch> | undefined;
  let drawn = 0;
  if (now === undefined) {
    values = params(context, Number.MAX_VALUE, names, loaded, undefined, 0);
  } else {
    const hold = context.hold?.(now);
    decided = decideBatch(
      work,
      (resource) => loaded.get(resource)!.state,
      (resource) => ruleContext(settings, resource, now, () => -++drawn, hold),
    );
    values = params(context, now, names, loaded, decided, drawn);
  }
  const answer = (await client.query<Answer>({ ...COMMIT, values })).rows[0];
  if (!answer || answer.o_conflict || !decided) {
    // Nothing was written: a row that is not a lease-gate state is the store's fault.
    try {
      clock.reset(answer!.o_clock);
      keepRead(rows, names, answer!.o_rows ?? []);
    } catch (error) {
      throw new StoreUnavailableError(`the kernel's store answered rows it cannot read`, {
        cause: error,
      });
    }
    return { conflict: true };
  }
  try {
    clock.saw(answer.o_clock);
    const fences = (answer.o_fences ?? []).map(Number);
    if (fences.length !== drawn) throw new InternalError('lease_gate_commit drew other fences');
    if (drawn > 0) fillFences(decided.decisions, fences);
    for (const resource of decided.changed)
      rows.set(resource, { state: decided.states.get(resource)!, version: answer.o_version });
  } catch (error) {
    // Committed, but not answerable as written: never run again.
    throw new CommitUnknownError({ cause: error });
  }
  return { conflict: false, decisions: decided.decisions, listened: answer.o_listened ?? [] };
}

/** The rows a refused commit read: kept, and the ones it did not find kept as absent. */
function keepRead(rows: RowCache, names: readonly string[], read: NonNullable<Answer['o_rows']>) {
  const found = new Map(read.map((r) => [r.resource, r]));
  for (const resource of names) {
    const row = found.get(resource);
    rows.set(
      resource,
      row
        ? { state: parseState(row.state, resource), version: row.version }
        : { state: emptyState(resource), version: null },
    );
  }
}

/** lease_gate_commit's parameters, in its order. */
function params(
  context: CommitContext,
  now: number,
  names: readonly string[],
  loaded: ReadonlyMap<string, Row>,
  decided: ReturnType<typeof decideBatch> | undefined,
  drawn: number,
): unknown[] {
  const events = decided ? decided.decisions.flatMap((d) => d.events) : [];
  const ids = drawn > 0 ? placeholderIds(events) : undefined;
  const text = (value: unknown) => {
    const json = JSON.stringify(value);
    return ids ? templated(json, ids) : json;
  };
  const changed = decided?.changed;
  return [
    context.locks.stripes,
    context.locks.plane,
    now,
    names,
    names.map((r) => loaded.get(r)!.version),
    names.map((r) => (changed?.has(r) ? text(decided!.states.get(r)) : null)),
    names.map((r) => (changed?.has(r) ? (nextDeadline(decided!.states.get(r)!) ?? null) : null)),
    events.map(text),
    grantsBefore(events),
    drawn,
    context.replica,
    events.length > 0,
  ];
}

/**
 * For each entry, which of the batch's fences its major is (sequencer.ts): the last
 * grant's at or before it, or 0 for the fence sequence's value before the batch's draws.
 */
export function grantsBefore(events: readonly KernelEvent[]): number[] {
  let last = 0;
  return events.map((e) => {
    if (e.kind === 'grant' && e.fence < 0) last = Math.max(last, -e.fence);
    return last;
  });
}

/** The lease ids a batch made before its fences were drawn, by their placeholder's number. */
function placeholderIds(events: readonly KernelEvent[]): Map<string, number> {
  const ids = new Map<string, number>();
  for (const e of events)
    if (e.kind === 'grant' && e.fence < 0) {
      if (!e.leaseId.startsWith(`lease_${e.fence.toString(36)}_`))
        throw new InternalError(`a lease id not made by lease.ts: ${e.leaseId}`);
      ids.set(e.leaseId, -e.fence);
    }
  return ids;
}

const MARK = '\u0001';
/** A `fence` key's negative value, or a string that may be a placeholder lease id. */
const PLACEHOLDER = /"fence":-(\d+)(?=[,}])|"(lease_-[0-9a-z]+_[^"\\]*)"/g;

/**
 * The JSON with each placeholder marked for lease_gate_filled (migration 5): a `fence`
 * key's negative value (only a placeholder is negative; `"fence":` is always a key, as a
 * quote inside a string is escaped), and a string that is exactly a placeholder lease
 * id (lease.ts: `lease_<fence in base 36>_<random hex>`). One pass over the text,
 * however many grants the batch made.
 */
export function templated(json: string, ids: ReadonlyMap<string, number>): string {
  return json.replace(PLACEHOLDER, (match, fence?: string, id?: string) => {
    if (fence !== undefined) return `"fence":${MARK}${fence}${MARK}`;
    const k = ids.get(id!);
    if (k === undefined) return match;
    return `"lease_${MARK}b${k}${MARK}${id!.slice(`lease_${(-k).toString(36)}`.length)}"`;
  });
}

/** The decisions as written: each placeholder fence, and lease id, made the drawn one. */
export function fillFences(decisions: readonly Decision[], fences: readonly number[]): void {
  const ids = new Map<string, string>();
  for (const d of decisions)
    for (const e of d.events)
      if (e.kind === 'grant' && e.fence < 0) {
        const fence = fences[-e.fence - 1]!;
        const prefix = `lease_${e.fence.toString(36)}`;
        ids.set(e.leaseId, `lease_${fence.toString(36)}${e.leaseId.slice(prefix.length)}`);
      }
  const fill = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) fill(item);
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const [key, item] of Object.entries(record)) {
        if (key === 'fence' && typeof item === 'number' && item < 0)
          record[key] = fences[-item - 1];
        else if (typeof item === 'string') {
          const id = ids.get(item);
          if (id !== undefined) record[key] = id;
        } else fill(item);
      }
    }
  };
  for (const d of decisions) fill([d.state, d.reply, d.events]);
}
