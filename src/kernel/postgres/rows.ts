import { performance } from 'node:perf_hooks';
import { emptyState, type ResourceState } from '../rules/rules.js';

/**
 * A resource's row as this replica last read or wrote it: its state and version
 * (migration 4), `null` when the row did not exist, '' when unknown (a batch on it
 * failed, so what it left is not known): '' matches no version, so the next commit on
 * it reads the row instead of writing.
 */
export interface Row {
  state: ResourceState;
  version: string | null;
}

/** Rows kept at most; the least recently used go first (a miss costs one round trip). */
const KEPT = 10_000;

/**
 * The rows this replica decides against without reading them (commit.ts). Never the
 * truth: lease_gate_commit writes only if the row is still at the version kept here.
 */
export class RowCache {
  private readonly rows = new Map<string, Row>();

  constructor(private readonly limit = KEPT) {}

  /** The row as last seen; a resource never seen is guessed absent (new resources are). */
  get(resource: string): Row {
    const row = this.rows.get(resource);
    if (!row) return { state: emptyState(resource), version: null };
    this.rows.delete(resource);
    this.rows.set(resource, row);
    return row;
  }

  set(resource: string, row: Row): void {
    this.rows.delete(resource);
    this.rows.set(resource, row);
    if (this.rows.size > this.limit) this.rows.delete(this.rows.keys().next().value!);
  }

  /** What a failed batch left is not known: read before deciding on these again. */
  forget(resources: Iterable<string>): void {
    for (const resource of resources)
      this.set(resource, { state: emptyState(resource), version: '' });
  }
}

/**
 * The database's clock as seen from here: the last value a commit read, plus the time
 * elapsed on this process's monotonic clock since its answer arrived. That value was
 * read before the answer left the database, so the projection is at most the
 * database's clock now (clocks that run at one rate); lease_gate_commit refuses a
 * decision ahead of it, and `reset` then starts again from the value it answers.
 */
export class DbClock {
  private base: number | undefined;
  private at = 0;

  /** The projected clock, or undefined before the first answer. */
  now(): number | undefined {
    if (this.base === undefined) return undefined;
    return this.base + Math.floor(performance.now() - this.at);
  }

  /** A commit read `clockMs`: the projection never goes back for it. */
  saw(clockMs: number): void {
    const projected = this.now();
    if (projected !== undefined && projected >= clockMs) return;
    this.base = clockMs;
    this.at = performance.now();
  }

  /** The projection was ahead of the database's clock: start again from `clockMs`. */
  reset(clockMs: number): void {
    this.base = clockMs;
    this.at = performance.now();
  }
}
