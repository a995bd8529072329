import type { CauseOptions } from '../errors.js';
import { LedgerError } from './ledger-error.js';
import type { LineSource } from './lines.js';

/** Lines per chunk: the Merkle tree's chunk (merkle.ts), so a recomputed chunk is one load. */
export const FETCH_CHUNK = 256;
/** Chunks kept at most between loads (about 16,000 lines). */
const KEEP_CHUNKS = 64;

/** A read of a line that no load made readable; Ledger.read loads again and retries. */
export class LinesNotLoadedError extends LedgerError {
  override name = 'LinesNotLoadedError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'ledger_lines_not_loaded' });
  }
}

/**
 * A ledger's lines kept elsewhere and read back asynchronously (the
 * PostgreSQL store's table): memory holds the count and the chunks the last
 * loads asked for, at most KEEP_CHUNKS of them, never the history. `fetch`
 * returns lines [lo, hi) in order; it is the only I/O, and it is the caller's.
 */
export class FetchedLines implements LineSource {
  readonly readsBack = true;
  length = 0;
  /** Chunk start → its lines' bytes, least recently loaded first. */
  private readonly chunks = new Map<number, Buffer[]>();

  constructor(private readonly fetch: (lo: number, hi: number) => Promise<string[]>) {}

  /** Starts an empty source at `length` lines already kept (a tree restored from its frontier). */
  restore(length: number): void {
    if (this.length !== 0) throw new RangeError('only an empty source restores');
    this.length = length;
  }

  /** Counts the line and returns its bytes for hashing; it is read back when asked for. */
  push(line: string): Uint8Array {
    this.length += 1;
    return Buffer.from(line, 'utf8');
  }

  at(i: number): string {
    return this.line(i).toString('utf8');
  }

  bytes(lo: number, hi: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = lo; i < hi; i += 1) out.push(this.line(i));
    return out;
  }

  /** Reads the chunks of lines [lo, hi) that are not kept whole, in one fetch a run of them. */
  async load(lo: number, hi: number): Promise<void> {
    const end = Math.min(hi, this.length);
    const missing: number[] = [];
    for (let start = lo - (lo % FETCH_CHUNK); start < end; start += FETCH_CHUNK) {
      const kept = this.chunks.get(start);
      if (kept && kept.length === Math.min(FETCH_CHUNK, this.length - start)) {
        // Loaded again: kept longest.
        this.chunks.delete(start);
        this.chunks.set(start, kept);
      } else missing.push(start);
    }
    for (let i = 0; i < missing.length;) {
      let j = i + 1;
      while (j < missing.length && missing[j] === missing[j - 1]! + FETCH_CHUNK) j += 1;
      const from = missing[i]!;
      const to = Math.min(missing[j - 1]! + FETCH_CHUNK, this.length);
      const lines = await this.fetch(from, to);
      if (lines.length !== to - from)
        throw new LedgerError(`ledger lines ${from}..${to} could not be read back`);
      for (let start = from; start < to; start += FETCH_CHUNK) {
        const chunk = lines
          .slice(start - from, start - from + FETCH_CHUNK)
          .map((line) => Buffer.from(line, 'utf8'));
        this.chunks.delete(start);
        this.chunks.set(start, chunk);
      }
      i = j;
    }
    for (const start of this.chunks.keys()) {
      if (this.chunks.size <= KEEP_CHUNKS) break;
      this.chunks.delete(start);
    }
  }

  get heldBytes(): number {
    let bytes = 0;
    for (const chunk of this.chunks.values()) for (const line of chunk) bytes += line.length;
    return bytes;
  }

  private line(i: number): Buffer {
    const start = i - (i % FETCH_CHUNK);
    const line = this.chunks.get(start)?.[i - start];
    if (!line) throw new LinesNotLoadedError(`ledger line ${i} is not loaded`);
    return line;
  }
}
