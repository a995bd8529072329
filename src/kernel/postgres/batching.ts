import type { GroupCommitOptions } from '../store/group-commit.js';
import { StoreUnavailableError } from '../store/store-error.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_POOL_SIZE, type PostgresOptions } from './settings.js';

/** Calls committed together at most (group commit). */
const MAX_BATCH = 64;
/**
 * Batches in flight per replica: the second only once the first has taken
 * SPARE_AFTER_MS (see GroupCommit). One at a time gathers the most calls, and
 * on two cores 16 clients on one replica did 15% more cycles so than with two
 * always open (and 5% more than starting the next as soon as the first holds
 * its rows); the second keeps a batch stuck on a locked row from holding back the rest.
 */
const BATCH_SLOTS = 2;
const SPARE_AFTER_MS = 10;
/** How the service batches a replica's calls (GroupCommit): bounded by its connections. */
export function batchingOf(options: PostgresOptions): GroupCommitOptions {
  return {
    maxBatch: MAX_BATCH,
    slots: Math.min(BATCH_SLOTS, options.poolSize ?? DEFAULT_POOL_SIZE),
    waitMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    spareAfterMs: SPARE_AFTER_MS,
    busy: () => new StoreUnavailableError("the kernel's store is busy: every connection is in use"),
  };
}
