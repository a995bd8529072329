import { createPublicKey, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../plane/canonical-json.js';
import { entryJson, entryOf, entrySchema, type LedgerEntry } from './entry.js';
import { MerkleTree, equalHashes, leafHash, type Hash } from './merkle.js';
import { verifyConsistency } from './merkle-proof.js';
import { originFor, signCheckpoint } from './checkpoint.js';
import { LedgerError } from './ledger-error.js';
import { LinesNotLoadedError } from './fetched-lines.js';
import { LineStore, type LineSource } from './lines.js';

export { LedgerError };

/** Loads and tries of one Ledger.read whose lines other reads keep pushing out. */
const READ_ATTEMPTS = 3;

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

export interface LedgerSnapshot {
  size: number;
  lastTs: number;
  /** The tree's root at `size`, base64. */
  root: string;
  /** The roots of the tree's complete chunks, concatenated, base64. */
  chunkRoots: string;
}

/** A checkpoint as a record keeps it: the tree's size and its root there, base64. */
export interface SignedCheckpoint {
  size: number;
  root: string;
}

/**
 * Where a file kernel keeps, durably, the largest checkpoint it handed out (beside
 * its log), so that a restart over a log that does not extend that history refuses
 * to start. `keep` resolves once the record is durable, and is called only with
 * growing sizes.
 */
export interface SignedRecord {
  keep(signed: SignedCheckpoint): Promise<void>;
}

/** `clocked`: a grant that must carry its clock when stamped in a run (a break-glass let it through). */
export type NewEntry = Omit<LedgerEntry, 'seq' | 'tsMs' | 'clockMs'> & {
  atMs: number;
  clocked?: boolean | undefined;
};

/** Entries numbered and timed, with their lines, not yet part of the ledger. */
export interface PreparedEntries {
  entries: LedgerEntry[];
  /** One canonical JSON line per entry, each ending in a newline. */
  text: string;
  /** The same lines without their newlines: the Merkle leaves. */
  lines: string[];
}

/**
 * The ledger's numbering, the one place it is written: entries follow the
 * `size` already recorded, and each is stamped with the plane's clock made
 * strictly increasing after `lastTs` (the last recorded stamp; -1 for none).
 * A lapse stamped one after the stamp before it carries the clock that found
 * it due (`clockMs`): a run of +1 stamps may run ahead of the clock, so its
 * stamp alone does not show it came no earlier than the lease's expiry. So
 * does a grant a break-glass let through (`clocked`): its stamp alone does not
 * show it came before the pass ended.
 * The in-memory ledger and the PostgreSQL sequencer both use it; the sequencer numbers after
 * lease_gate_sequenced's size and last stamp, one replica at a time under its advisory lock
 * (kernel/postgres/sequencer.ts): no row lock is shared by every commit.
 */
export function numberEntries(
  events: readonly NewEntry[],
  size: number,
  lastTs: number,
): LedgerEntry[] {
  let ts = lastTs;
  return events.map((event, i) => {
    const clock = Math.round(event.atMs);
    const before = ts;
    ts = Math.max(clock, before + 1);
    const inRun = (event.kind === 'lapse' || event.clocked === true) && ts === before + 1;
    return entryOf(event, size + i, ts, inRun ? clock : undefined);
  });
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
  private tree = new MerkleTree();
  /** The accepted entries as their canonical lines (the Merkle leaves): off the heap, or in the log file. */
  private lines: LineSource = new LineStore();
  private lastTs = -1;
  private signed?: { size: number; root: Hash; text: string };
  private record?: SignedRecord;
  /** The largest size the record holds. */
  private keptSize = 0;
  private keeping: Promise<void> = Promise.resolve();

  constructor(private readonly signingKey?: KeyObject) {
    this.publicKey = signingKey && createPublicKey(signingKey);
    this.origin = this.publicKey && originFor(this.publicKey);
  }

  get size(): number {
    return this.tree.size;
  }

  /**
   * Keeps the lines in `source` from now on (a file kernel's log, read back on
   * demand): then the tree keeps only its chunks' hashes and recomputes the
   * rest from the lines. Only before the first entry.
   */
  readFrom(source: LineSource): void {
    if (this.size !== 0 || this.lines.length !== 0)
      throw new LedgerError('a ledger changes where it keeps its lines only while empty');
    this.lines = source;
    this.tree = new MerkleTree(
      source.readsBack ? { leaves: (lo, hi) => source.bytes(lo, hi) } : {},
    );
  }

  /** What a snapshot keeps of the ledger: its size, last stamp, root and the tree's chunk roots. */
  snapshot(): LedgerSnapshot {
    return {
      size: this.size,
      lastTs: this.lastTs,
      root: Buffer.from(this.tree.root()).toString('base64'),
      chunkRoots: Buffer.from(this.tree.chunkRoots()).toString('base64'),
    };
  }

  /**
   * Takes a snapshot's ledger in over `source`, whose lines are already
   * restored to the snapshot's size: the tree from its chunk roots and the
   * leaves after them read back, kept only when it has the root the snapshot
   * names (else this throws and the ledger is still empty). The caller checks
   * the snapshot against the log.
   */
  restoreFrom(source: LineSource, snapshot: LedgerSnapshot): void {
    if (this.size !== 0 || this.lines.length !== 0 || source.length !== snapshot.size)
      throw new LedgerError('a snapshot restores only an empty ledger over its own lines');
    const tree = new MerkleTree({ leaves: (lo, hi) => source.bytes(lo, hi) });
    tree.restoreChunks(new Uint8Array(Buffer.from(snapshot.chunkRoots, 'base64')));
    if (tree.size > snapshot.size)
      throw new LedgerError('the snapshot has more chunks than entries');
    for (const bytes of source.bytes(tree.size, snapshot.size)) tree.append(bytes);
    if (Buffer.from(tree.root()).toString('base64') !== snapshot.root)
      throw new LedgerError("the snapshot's tree does not have the root it names");
    this.lines = source;
    this.tree = tree;
    this.lastTs = snapshot.lastTs;
  }

  /** The tree's root at `size` (all by default), base64, as a snapshot names it. */
  rootAt(size = this.size): string {
    return Buffer.from(this.tree.root(size)).toString('base64');
  }

  /** Bytes this ledger keeps in memory for its lines and its tree. */
  get heldBytes(): number {
    return this.lines.heldBytes + this.tree.heldBytes;
  }

  get signs(): boolean {
    return this.signingKey !== undefined;
  }

  /** Numbers and times new entries after the accepted ones; changes nothing. */
  prepare(events: NewEntry[]): PreparedEntries {
    const entries = numberEntries(events, this.lines.length, this.lastTs);
    const lines = entries.map(entryJson);
    let text = '';
    for (const line of lines) text += `${line}\n`;
    return { entries, text, lines };
  }

  /** Takes prepared entries in once they are durable; `lines` are their canonical JSON when known. */
  accept(entries: LedgerEntry[], lines?: readonly string[]): void {
    entries.forEach((entry, i) => {
      if (entry.seq !== this.lines.length)
        throw new LedgerError(`entry ${entry.seq} accepted out of order`);
      this.tree.append(this.lines.push(lines?.[i] ?? entryJson(entry)));
      this.lastTs = entry.tsMs;
    });
  }

  /** Prepares and accepts one entry at once (an in-memory ledger). */
  append(event: NewEntry): LedgerEntry {
    const { entries, lines } = this.prepare([event]);
    this.accept(entries, lines);
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
      entry.data.seq !== this.lines.length ||
      canonicalJson(entry.data) !== line
    ) {
      throw new LedgerError(
        `${where} is not the ledger entry ${this.lines.length} in canonical form`,
      );
    }
    this.accept([entry.data], [line]);
    return entry.data;
  }

  /**
   * Runs `use` (entry, page, pageJson, checkpoint: synchronous) once what it
   * reads of entries [from, to) and their proofs in the tree of `size` is
   * readable. Lines kept in memory or in a file always are; lines read back
   * asynchronously (a database, FetchedLines) are loaded first: those lines,
   * and the chunks at the tree's right edge at `size` and at the last signed
   * size, which proofs and checkpoints recompute. Another read may push them
   * out while this one waits, so `use` runs again after a fresh load (bounded).
   */
  async read<T>(from: number, to: number, size: number, use: () => T): Promise<T> {
    const { load } = this.lines;
    if (!load) return use();
    const chunk = this.tree.chunkSize;
    // The tree keeps its last, incomplete chunk's nodes: only older chunks are read back.
    const open = this.size - (this.size % chunk);
    const edge = (n: number) => {
      const start = n - 1 - ((n - 1) % chunk);
      return n > 0 && start < open ? [start] : [];
    };
    for (let attempt = 1; ; attempt += 1) {
      if (from < to) await load.call(this.lines, from, to);
      for (const start of new Set([...edge(size), ...edge(this.signed?.size ?? 0)]))
        await load.call(this.lines, start, start + chunk);
      try {
        return use();
      } catch (error) {
        if (!(error instanceof LinesNotLoadedError) || attempt >= READ_ATTEMPTS) throw error;
      }
    }
  }

  entry(index: number): LedgerEntry | undefined {
    if (!(Number.isInteger(index) && index >= 0 && index < this.lines.length)) return undefined;
    return JSON.parse(this.lineAt(index)) as LedgerEntry;
  }

  /**
   * The line at `index`. One read back from where it is kept (a file, a
   * database) is checked against the tree's leaf first: a line changed after
   * it was hashed is refused here, never served beside a proof it fails.
   */
  private lineAt(index: number): string {
    const line = this.lines.at(index);
    if (
      this.lines.readsBack &&
      !equalHashes(leafHash(Buffer.from(line, 'utf8')), this.tree.leafHashAt(index))
    )
      throw new LedgerError(`ledger line ${index} read back is not the line the tree holds`);
    return line;
  }

  /**
   * Keeps every larger checkpoint in `record` before it goes out (see
   * `signedCheckpoint`); `kept` is the one the record holds now, which the
   * caller has checked against this ledger.
   */
  keepSignedIn(record: SignedRecord, kept?: SignedCheckpoint): void {
    this.record = record;
    this.keptSize = kept?.size ?? 0;
  }

  /**
   * The signed checkpoint of the first `size` entries, read as `read` reads,
   * and, when it is the largest signed yet, made durable in the record first:
   * what is handed out is what a restart holds the log to.
   */
  async signedCheckpoint(size = this.size): Promise<string> {
    const text = await this.read(size, size, size, () => this.checkpoint(size));
    const keep = this.keeping
      .catch(() => undefined)
      .then(async () => {
        const signed = this.signed;
        if (!this.record || !signed || signed.size <= this.keptSize) return;
        await this.record.keep({
          size: signed.size,
          root: Buffer.from(signed.root).toString('base64'),
        });
        this.keptSize = Math.max(this.keptSize, signed.size);
      });
    this.keeping = keep;
    await keep;
    return text;
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
    return this.pageJson(from, to, size).map((json) => JSON.parse(json) as BundleEntry);
  }

  /**
   * The same page, each bundle entry already as JSON: the entry's canonical
   * line is spliced in as it is kept, never parsed and written again.
   */
  pageJson(from: number, to: number, size = this.size): string[] {
    if (!(0 <= from && from <= to && to <= size && size <= this.size)) {
      throw new LedgerError(`range ${from}..${to} is not within 0..${size}`);
    }
    const proofs = this.tree.inclusionProofs(from, to, size);
    const json: string[] = [];
    for (let index = from; index < to; index += 1) {
      const proof = proofs[index - from]!.map((h) => Buffer.from(h).toString('base64'));
      json.push(
        `{"index":${index},"entry":${this.lineAt(index)},"inclusionProof":${JSON.stringify(proof)}}`,
      );
    }
    return json;
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
