import { createPublicKey, type KeyObject } from 'node:crypto';
import { canonicalJson, entryJson, entrySchema, type LedgerEntry } from './entry.js';
import { MerkleTree, verifyConsistency, type Hash } from './merkle.js';
import { originFor, signCheckpoint } from './checkpoint.js';

export interface BundleEntry {
  index: number;
  entry: LedgerEntry;
  inclusionProof: string[];
}

/** What anyone can check offline with nothing but the public key. */
export interface LedgerBundle {
  checkpoint: string;
  entries: BundleEntry[];
}

export type NewEntry = Omit<LedgerEntry, 'seq' | 'tsMs'> & { atMs: number };

/** Entries numbered and timed, with their lines, not yet part of the ledger. */
export interface PreparedEntries {
  entries: LedgerEntry[];
  /** One canonical JSON line per entry, each ending in a newline. */
  text: string;
}

export class LedgerError extends Error {
  override name = 'LedgerError';
}

/**
 * The append-only, Merkle-sealed record of every grant, renewal, release,
 * lapse and revocation, in memory. Whoever keeps it durable (the kernel's
 * store) prepares entries, writes their lines, and only then accepts them.
 * Without a signing key it is still a log and a tree, but signs no checkpoint.
 */
export class Ledger {
  readonly origin: string | undefined;
  readonly publicKey: KeyObject | undefined;
  private readonly tree = new MerkleTree();
  private readonly entries: LedgerEntry[] = [];
  private signed?: { size: number; root: Hash; text: string };

  constructor(private readonly signingKey?: KeyObject) {
    this.publicKey = signingKey && createPublicKey(signingKey);
    this.origin = this.publicKey && originFor(this.publicKey);
  }

  get size(): number {
    return this.tree.size;
  }

  get signs(): boolean {
    return this.signingKey !== undefined;
  }

  /** Numbers and times new entries after the accepted ones; changes nothing. */
  prepare(events: NewEntry[]): PreparedEntries {
    let seq = this.entries.length;
    let lastTs = this.entries.at(-1)?.tsMs ?? -1;
    const entries: LedgerEntry[] = [];
    let text = '';
    for (const { atMs, ...rest } of events) {
      // The plane's clock, made strictly increasing for the ledger.
      lastTs = Math.max(Math.round(atMs), lastTs + 1);
      const entry: LedgerEntry = { ...rest, seq, tsMs: lastTs };
      seq += 1;
      entries.push(entry);
      text += `${entryJson(entry)}\n`;
    }
    return { entries, text };
  }

  /** Takes prepared entries in once they are durable. */
  accept(entries: LedgerEntry[]): void {
    for (const entry of entries) {
      if (entry.seq !== this.entries.length)
        throw new LedgerError(`entry ${entry.seq} accepted out of order`);
      this.entries.push(entry);
      this.tree.append(Buffer.from(entryJson(entry), 'utf8'));
    }
  }

  /** Prepares and accepts one entry at once (an in-memory ledger). */
  append(event: NewEntry): LedgerEntry {
    const { entries } = this.prepare([event]);
    this.accept(entries);
    return entries[0]!;
  }

  /** Takes in one line read back from durable storage, checked as untrusted. */
  load(line: string, where: string): LedgerEntry {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new LedgerError(`${where} is not JSON; the ledger is damaged before its last record`);
    }
    const entry = entrySchema.safeParse(parsed);
    if (
      !entry.success ||
      entry.data.seq !== this.entries.length ||
      canonicalJson(entry.data) !== line
    ) {
      throw new LedgerError(
        `${where} is not the ledger entry ${this.entries.length} in canonical form`,
      );
    }
    this.accept([entry.data]);
    return entry.data;
  }

  entry(index: number): LedgerEntry | undefined {
    return this.entries[index];
  }

  /** The signed checkpoint of the first `size` entries (all by default). */
  checkpoint(size = this.tree.size): string {
    if (!this.signingKey || !this.origin)
      throw new LedgerError('this kernel has no signing key, so it signs no checkpoint');
    if (this.signed?.size === size) return this.signed.text;
    const root = this.tree.root(size);
    if (this.signed && size > this.signed.size) {
      const proof = this.tree.consistencyProof(this.signed.size, size);
      if (!verifyConsistency(this.signed.size, size, this.signed.root, root, proof)) {
        throw new LedgerError(
          'refusing to sign a checkpoint inconsistent with the last one signed',
        );
      }
    }
    // Ed25519 is deterministic: an older size signs to the same note it had.
    const text = signCheckpoint({ origin: this.origin, size, root }, this.signingKey);
    if (!this.signed || size > this.signed.size) this.signed = { size, root, text };
    return text;
  }

  /** Entries [from, to) with inclusion proofs against the tree of `size` (a page of an export). */
  page(from: number, to: number, size = this.size): BundleEntry[] {
    if (!(0 <= from && from <= to && to <= size && size <= this.size)) {
      throw new LedgerError(`range ${from}..${to} is not within 0..${size}`);
    }
    const proofs = this.tree.inclusionProofs(from, to, size);
    const entries: BundleEntry[] = [];
    for (let index = from; index < to; index += 1) {
      entries.push({
        index,
        entry: this.entries[index]!,
        inclusionProof: proofs[index - from]!.map((h) => Buffer.from(h).toString('base64')),
      });
    }
    return entries;
  }

  /** Entries [from, to) with inclusion proofs against the current checkpoint. */
  bundle(from = 0, to = this.size): LedgerBundle {
    if (!(
      Number.isInteger(from) &&
      Number.isInteger(to) &&
      0 <= from &&
      from <= to &&
      to <= this.size
    )) {
      throw new LedgerError(`range ${from}..${to} is not within 0..${this.size}`);
    }
    const checkpoint = this.checkpoint();
    return { checkpoint, entries: this.page(from, to) };
  }
}
