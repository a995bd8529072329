import type { LedgerEntry } from '../../src/ledger/entry.js';
import { fetchLedger } from '../../src/ledger/remote.js';

/** A kernel's whole ledger over its routes: the bundle, its public key, and the entries in order. */
export async function exportLedger(url: string, key?: string) {
  const { bundle, publicKey } = (await fetchLedger(url, key)) as unknown as {
    bundle: { checkpoint: string; entries: Array<{ entry: LedgerEntry }> };
    publicKey: string;
  };
  return { bundle, publicKey, entries: bundle.entries.map((e) => e.entry) };
}
