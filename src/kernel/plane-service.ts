import type { Ledger } from '../ledger/ledger.js';
import type { Overview } from './overview.js';
import type { KernelEvent, LeaseRecord, LeaseReply, ReleaseReply, RevokeReply } from './rules.js';

export type ChangeListener = (resource: string, event: KernelEvent) => void;

/**
 * What the HTTP app needs of a kernel, whatever keeps its state: the
 * in-process service (memory and file stores) and the PostgreSQL service both
 * answer through the same pure rules.
 */
export interface PlaneService {
  /** The ledger the routes read; `syncLedger` brings it up to date first when set. */
  readonly ledger: Ledger;
  syncLedger?(): Promise<void>;
  lease(resource: string, actorDid: string): Promise<LeaseReply>;
  release(resource: string, actorDid: string): Promise<ReleaseReply>;
  revoke(resource: string, reason: string): Promise<RevokeReply>;
  status(resource: string): Promise<LeaseRecord | null>;
  overview(): Overview | Promise<Overview>;
  /** Told after each durable change (on every replica, for a shared store). */
  onChange(listener: ChangeListener): () => void;
  /** Throws when the store cannot take a write now. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
