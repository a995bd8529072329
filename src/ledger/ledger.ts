import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  closeSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { canonicalJson, entrySchema, leafBytes, type LedgerEntry } from './entry.js';
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

export class LedgerError extends Error {
  override name = 'LedgerError';
}

/**
 * The append-only, Merkle-sealed record of every grant, release, lapse and
 * revocation. With a file, every entry is one canonical JSON line, appended and
 * synced before the next; a torn last line is cut off and reported on open.
 */
export class Ledger {
  readonly origin: string;
  readonly publicKey: KeyObject;
  private readonly tree = new MerkleTree();
  private readonly entries: LedgerEntry[] = [];
  private signed?: { size: number; root: Hash; text: string };
  private readonly fd: number | undefined;
  /** Set when opening found and cut a torn last record. */
  readonly repaired: string | undefined;

  constructor(
    private readonly signingKey: KeyObject,
    file?: string,
  ) {
    this.publicKey = createPublicKey(signingKey);
    this.origin = originFor(this.publicKey);
    if (file === undefined) return;
    this.fd = openSync(file, 'a+', 0o600);
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // new file
    }
    const lines = text.split('\n');
    const tail = lines.pop() ?? '';
    try {
      lines.forEach((line, i) => this.load(line, `${file} line ${i + 1}`));
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
    if (tail) {
      const keep = Buffer.byteLength(text) - Buffer.byteLength(tail);
      ftruncateSync(this.fd, keep);
      this.repaired = `${file}: the last record was torn (${Buffer.byteLength(tail)} bytes without an end); it was cut off and the ${this.entries.length} records before it kept`;
    }
  }

  get size(): number {
    return this.tree.size;
  }

  append(event: NewEntry): LedgerEntry {
    const last = this.entries.at(-1);
    const { atMs, ...rest } = event;
    const entry: LedgerEntry = entrySchema.parse({
      ...rest,
      seq: this.entries.length,
      // The plane's clock, made strictly increasing for the ledger.
      tsMs: Math.max(Math.round(atMs), (last?.tsMs ?? -1) + 1),
    });
    if (this.fd !== undefined) {
      writeSync(this.fd, `${canonicalJson(entry)}\n`);
      fdatasyncSync(this.fd);
    }
    this.push(entry);
    return entry;
  }

  /** The signed checkpoint of the current tree; never one inconsistent with the last signed. */
  checkpoint(): string {
    const size = this.tree.size;
    if (this.signed?.size === size) return this.signed.text;
    const root = this.tree.root();
    if (this.signed) {
      const proof = this.tree.consistencyProof(this.signed.size, size);
      if (!verifyConsistency(this.signed.size, size, this.signed.root, root, proof)) {
        throw new LedgerError(
          'refusing to sign a checkpoint inconsistent with the last one signed',
        );
      }
    }
    const text = signCheckpoint({ origin: this.origin, size, root }, this.signingKey);
    this.signed = { size, root, text };
    return text;
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
    const size = this.signed!.size;
    const entries: BundleEntry[] = [];
    for (let index = from; index < to; index += 1) {
      entries.push({
        index,
        entry: this.entries[index]!,
        inclusionProof: this.tree
          .inclusionProof(index, size)
          .map((h) => Buffer.from(h).toString('base64')),
      });
    }
    return { checkpoint, entries };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }

  private load(line: string, where: string): void {
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
    this.push(entry.data);
  }

  private push(entry: LedgerEntry): void {
    this.entries.push(entry);
    this.tree.append(leafBytes(entry));
  }
}
