import type { HandoverCosts } from './pg-handover.js';
import { HANDOVER_GOAL } from './pg-handover.js';
import type { Row } from './stats.js';

/**
 * Issue #59's PostgreSQL goals as rows with targets, so the summary at the top of the
 * performance page puts each figure beside its goal, from the same run as pgbench and
 * pg_advisory_lock (the pairs they are measured against).
 */

export const PG_GOALS_SECTION = 'PostgreSQL plane against pgbench and pg_advisory_lock (issue #59)';
/** Changes per second at least this share of pgbench's one-row upserts. */
export const PGBENCH_GOAL = 0.5;
/** Issue #59: the replica's CPU per change halved from issue #38's 0.318 ms. */
export const REPLICA_CPU_GOAL_MS = 0.318 / 2;

/** What pg-cost measured for one column (1–3 replicas, or pgbench). */
export interface ColumnCost {
  column: string;
  changesPerSecond: number;
  /** CPU ms per change of the replicas' processes (every thread); 0 for pgbench. */
  planeMs: number;
  databaseMs: number;
}

export function pgGoalRows(costs: ColumnCost[], hand: HandoverCosts | undefined): Row[] {
  const rows: Row[] = [];
  const add = (metric: string, value: number, unit: string, target?: string, ok?: boolean) =>
    rows.push({
      section: PG_GOALS_SECTION,
      metric,
      value,
      unit,
      ...(target ? { target, ok: ok ?? false } : {}),
    });
  const pgbench = costs.find((c) => c.column === 'pgbench');
  if (pgbench) add('pgbench, one-row upserts', pgbench.changesPerSecond, 'tps');
  for (const c of costs.filter((x) => x !== pgbench)) {
    add(`${c.column}: changes`, c.changesPerSecond, '/s');
    if (pgbench) {
      const ratio = c.changesPerSecond / pgbench.changesPerSecond;
      add(
        `${c.column}: changes / pgbench's`,
        ratio,
        '×',
        `≥ ${PGBENCH_GOAL}`,
        ratio >= PGBENCH_GOAL,
      );
    }
  }
  const one = costs.find((c) => c.column === '1 replica');
  if (one) {
    const cpu = one.planeMs;
    const goal = `≤ ${REPLICA_CPU_GOAL_MS.toFixed(3)}`;
    add("1 replica: the replica's CPU per change", cpu, 'ms', goal, cpu <= REPLICA_CPU_GOAL_MS);
    add("1 replica: PostgreSQL's CPU per change", one.databaseMs, 'ms');
  }
  if (hand) {
    add('handover p99, pg_advisory_lock', hand.advisory.p99Ms, 'ms');
    add('handover p99, kernel on 1 replica', hand.oneReplica.p99Ms, 'ms');
    const ratio = hand.oneReplica.p99Ms / hand.advisory.p99Ms;
    const goal = `≤ ${HANDOVER_GOAL}`;
    add('handover p99, 1 replica / pg_advisory_lock', ratio, '×', goal, ratio <= HANDOVER_GOAL);
  }
  return rows;
}
