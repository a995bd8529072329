import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { defaultLockDelayMs } from '../../src/kernel/rules/rules.js';
import type { LedgerEntry } from '../../src/ledger/entry.js';
import { fetchLedger } from '../../src/ledger/remote.js';
import { verifyBundle } from '../../src/ledger/verify.js';
import { openSession } from '../../src/lease/session.js';
import { staleCount, type Write } from './fenced-store.js';
import { meaningBreach } from './pg-kernel.js';

/** The fault suite's lease time: short, so 2× of it is a bounded test (3 s held with both cores busy). */
export const TTL_MS = 3_000;
/** After a fault heals, the next grant comes within this (the bound). */
export const RECOVER_BOUND_MS = TTL_MS + defaultLockDelayMs(TTL_MS) + 1_000;

export interface Grant {
  who: string;
  fence: number;
  atMs: number;
}

/**
 * Holders in this process as `run` holds (the same session: wait, keep with its watch,
 * release), each doing fenced read-modify-writes on the store while it believes it holds,
 * until told to stop. A holder whose keeper reports the loss stops writing; until then it
 * writes with its fence, as a real deploy does.
 */
export function startHolders(o: {
  urls: string[];
  resource: string;
  /** One fenced read-modify-write as `who` with `fence`. */
  op: (fence: number, who: string) => Promise<unknown>;
  /** How long holder `who` (h0, h1, …) holds before it gives back (300 ms unless said). */
  holdMs?: (who: string) => number;
}) {
  const grants: Grant[] = [];
  const holding = new Set<string>();
  let stop = false;
  let failures = 0;
  const work = o.urls.map(async (apiUrl, i) => {
    const who = `h${i}`;
    const session = openSession({
      apiUrl,
      key: '',
      resource: o.resource,
      actorDid: `did:web:faults.example:agent:${who}`,
      requestTimeoutMs: 3_000,
    });
    while (!stop) {
      const got = await session
        .acquire({ timeoutMs: 60_000, retryWindowMs: 60_000 })
        .catch(() => undefined);
      if (got?.outcome !== 'granted') {
        failures += 1;
        await sleep(50);
        continue;
      }
      const fence = got.held.lease.fence!;
      grants.push({ who, fence, atMs: Date.now() });
      holding.add(who);
      let lost = false;
      const stopKeeping = new AbortController();
      const keeping = got.held.keep({
        signal: stopKeeping.signal,
        onChange: (status) => void (status.lost && (lost = true)),
      });
      const until = Date.now() + (o.holdMs?.(who) ?? 300);
      while (Date.now() < until && !lost && !stop) {
        await o.op(fence, who).catch(() => undefined);
        await sleep(15);
      }
      holding.delete(who);
      stopKeeping.abort();
      await keeping;
      await got.held.release();
    }
    await session.close();
  });
  return {
    grants,
    holding,
    failures: () => failures,
    /** The first grant (to `who`, if named) at or after `sinceMs`, waited for up to `limitMs`. */
    async nextGrant(sinceMs: number, limitMs = 30_000, who?: string): Promise<Grant> {
      const end = Date.now() + limitMs;
      for (;;) {
        const g = grants.find((x) => x.atMs >= sinceMs && (who === undefined || x.who === who));
        if (g) return g;
        if (Date.now() > end) throw new Error(`no grant within ${limitMs} ms of ${sinceMs}`);
        await sleep(10);
      }
    },
    async stop() {
      stop = true;
      await Promise.all(work);
    },
  };
}

/** The kernel's ledger, fetched, its signatures checked and its meaning checked. */
export async function verifiedLedger(url: string, keyDir: string) {
  const { bundle } = await fetchLedger(url);
  const publicKey = createPublicKey(readFileSync(join(keyDir, 'ledger.pub'), 'utf8'));
  const checked = verifyBundle(bundle, publicKey);
  const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries.map(
    (e) => e.entry,
  );
  expect(checked.size).toBe(entries.length);
  expect(meaningBreach(entries)).toBeUndefined();
  return entries;
}

/** The figures a scenario prints and checks: with fences nothing stale, nothing lost. */
export function figures(
  store: {
    attempts: readonly Write[];
    accepted: readonly Write[];
    refused(): number;
    value(resource: string): number;
  },
  resource: string,
) {
  return {
    ops: store.accepted.length,
    stale: staleCount(store.accepted),
    refused: store.refused(),
    lost: store.accepted.length - store.value(resource),
    overlaps: staleCount(store.attempts),
  };
}
