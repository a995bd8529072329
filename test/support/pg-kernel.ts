import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { LedgerEntry } from '../../src/ledger/entry.js';
import type { GitHubCompare } from '../../src/github/compare.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { PostgresService, type PostgresBackendOptions } from '../../src/kernel/postgres/backend.js';
import { startKernelServer } from '../../src/kernel/http/server.js';
import { POSTGRES_URL } from './postgres.js';

export const signingKey: KeyObject = generateKeyPairSync('ed25519').privateKey;

/** One replica in this process: a PostgresService behind the real HTTP adapter on port 0. */
export async function startReplica(
  schema: string,
  options: Partial<PostgresBackendOptions> & {
    key?: string | undefined;
    adminKey?: string | undefined;
    approverKey?: string | undefined;
    promote?: Map<string, string> | undefined;
    compare?: GitHubCompare | undefined;
  } = {},
) {
  const { key, adminKey, approverKey, promote, compare, ...connection } = options;
  const service = await PostgresService.open({
    url: POSTGRES_URL,
    schema,
    ledger: new Ledger(signingKey),
    ttlMs: 30_000,
    nextInLineWaitMs: 20,
    log: () => undefined,
    ...connection,
  });
  const running = await startKernelServer({
    service,
    key,
    adminKey,
    approverKey,
    promote,
    compare,
    log: () => undefined,
  });
  return Object.assign(running, { pg: service });
}

/**
 * What the ledger means, checked entry by entry: per resource one lease at a
 * time (a grant only when none is live; renewals and ends only of the live
 * one), and fences strictly rising over all grants. Returns the first breach.
 */
export function meaningBreach(entries: readonly LedgerEntry[]): string | undefined {
  const live = new Map<string, string>();
  let fence = 0;
  for (const e of entries) {
    const current = live.get(e.resource);
    if (e.kind === 'grant') {
      if (current) return `entry ${e.seq}: a grant while ${current} is live on ${e.resource}`;
      if (e.fence <= fence) return `entry ${e.seq}: fence ${e.fence} after ${fence}`;
      fence = e.fence;
      live.set(e.resource, e.leaseId);
    } else if (current !== e.leaseId) {
      return `entry ${e.seq}: ${e.kind} of ${e.leaseId}, but ${current ?? 'none'} is live`;
    } else if (e.kind !== 'renew') {
      live.delete(e.resource);
    }
  }
  return undefined;
}
