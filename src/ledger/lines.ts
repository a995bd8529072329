/**
 * The ledger's lines as UTF-8 bytes in large chunks, with a small index: a
 * ledger of millions of entries stays off the JavaScript heap, so the garbage
 * collector never copies or scans it while the kernel serves requests.
 */

const CHUNK_BYTES = 4 * 1024 * 1024;
/** Per line: its chunk, its offset in the chunk, its length in bytes. */
const SLOTS = 3;

export class LineStore {
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
}
