/**
 * The ledger's lines as UTF-8 bytes in large chunks, with a small index: a
 * ledger of millions of entries stays off the JavaScript heap, so the garbage
 * collector never copies or scans it while the kernel serves requests.
 */

/**
 * Where a ledger keeps its accepted lines (the Merkle leaves): in memory
 * (LineStore) or read back from the log file they were written to
 * (file-lines.ts), so a file kernel's memory does not grow with its history.
 */
export interface LineSource {
  readonly length: number;
  /** Keeps the next line (`length`); returns its bytes, for hashing now. */
  push(line: string): Uint8Array;
  /** The line at `i` (0 ≤ i < length). */
  at(i: number): string;
  /** The bytes of lines [lo, hi), to recompute a part of the tree. */
  bytes(lo: number, hi: number): Uint8Array[];
  /** Whether the lines live elsewhere, so the tree need not keep every node. */
  readonly readsBack: boolean;
  /** Bytes this source keeps in memory. */
  readonly heldBytes: number;
  /**
   * For a source read back asynchronously (a database): makes lines [lo, hi)
   * readable by `at` and `bytes` until the next call. Without it every line is
   * readable at once.
   */
  load?(lo: number, hi: number): Promise<void>;
}

const CHUNK_BYTES = 4 * 1024 * 1024;
/** Per line: its chunk, its offset in the chunk, its length in bytes. */
const SLOTS = 3;

export class LineStore implements LineSource {
  readonly readsBack = false;
  private readonly chunks: Buffer[] = [];
  private used = CHUNK_BYTES;
  private index = new Uint32Array(SLOTS * 1024);
  length = 0;

  /** Keeps one line; returns its bytes (a view that stays valid, for hashing). */
  push(line: string): Buffer {
    const most = line.length * 3;
    if (this.chunks.length === 0 || this.used + most > this.chunks.at(-1)!.length) {
      this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, most)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    const bytes = this.chunks[chunk]!.write(line, this.used, 'utf8');
    if ((this.length + 1) * SLOTS > this.index.length) {
      const bigger = new Uint32Array(this.index.length * 2);
      bigger.set(this.index);
      this.index = bigger;
    }
    const at = this.length * SLOTS;
    this.index[at] = chunk;
    this.index[at + 1] = this.used;
    this.index[at + 2] = bytes;
    this.length += 1;
    const view = this.chunks[chunk]!.subarray(this.used, this.used + bytes);
    this.used += bytes;
    return view;
  }

  /** The line at `i` (0 ≤ i < length). */
  at(i: number): string {
    const at = i * SLOTS;
    const start = this.index[at + 1]!;
    return this.chunks[this.index[at]!]!.toString('utf8', start, start + this.index[at + 2]!);
  }

  bytes(lo: number, hi: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = lo; i < hi; i += 1) {
      const at = i * SLOTS;
      const start = this.index[at + 1]!;
      out.push(this.chunks[this.index[at]!]!.subarray(start, start + this.index[at + 2]!));
    }
    return out;
  }

  get heldBytes(): number {
    return this.chunks.length * CHUNK_BYTES + this.index.byteLength;
  }
}
