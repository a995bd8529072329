/**
 * What the service tells an onlooker (the metrics, kernel/http/metrics*.ts) of its work: each
 * batch it committed and each decision in it. An interface here, so the service and the rules
 * know nothing of Prometheus; the http layer wires it to a registry. Called on the hot path,
 * synchronously, once per batch: an observer counts and returns, it never does I/O.
 */
import type { Command, Decision } from '../rules/rules.js';

export interface CommittedBatch {
  /** The backend's name as a log line has it ("the PostgreSQL store", a file's path). */
  backend: string;
  /** Whether the backend is shared by several replicas (PostgreSQL). */
  shared: boolean;
  /** How many commands the batch carried. */
  size: number;
  /** How long the backend took to decide and make it durable. */
  seconds: number;
  /** Each command of the batch, in order, with its decision (missing where its commit failed). */
  commands: readonly Command[];
  decisions: ReadonlyArray<Decision | undefined>;
  /** The batch failed as a whole (the store refused the write). */
  failed: boolean;
}

export interface KernelObserver {
  /** One batch through the backend, once it is durable or has failed. */
  committed(batch: CommittedBatch): void;
}
