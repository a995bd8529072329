import { closeSync, openSync, readSync } from 'node:fs';
import type { LineSource } from './lines.js';

/** Lines per indexed run: the byte offset of every 256th line is all that is kept. */
export const RUN_LINES = 256;

/**
 * A ledger's lines read back from the log file they were written to: memory
 * holds one byte offset per run of RUN_LINES lines (8 bytes per 256 entries)
 * and the last run read, never the lines themselves. Line i+1 starts one byte
 * (its newline) after line i ends, which is how the file store writes them.
 */
export class FileLines implements LineSource {
  readonly readsBack = true;
  length = 0;
  /** Where the next line starts (just past the last line's newline). */
  end = 0;
  private starts = new Float64Array(64);
  private fd: number | undefined;
  private run: { index: number; count: number; bytes: Buffer; offsets: number[] } | undefined;

  constructor(private readonly path: string) {}

  /** Takes the index a snapshot kept: `length` lines, run starts, and the end of the last line. */
  restore(length: number, starts: readonly number[], end: number): void {
    if (this.length !== 0) throw new RangeError('only an empty source restores');
    if (starts.length !== Math.ceil(length / RUN_LINES))
      throw new RangeError(`${starts.length} run starts do not index ${length} lines`);
    this.grow(starts.length);
    this.starts.set(starts);
    this.length = length;
    this.end = end;
  }

  /** The byte offsets of each run's first line (for a snapshot). */
  runStarts(): number[] {
    return Array.from(this.starts.subarray(0, Math.ceil(this.length / RUN_LINES)));
  }

  push(line: string): Uint8Array {
    if (this.length % RUN_LINES === 0) {
      const run = this.length / RUN_LINES;
      this.grow(run + 1);
      this.starts[run] = this.end;
    }
    const bytes = Buffer.from(line, 'utf8');
    this.end += bytes.length + 1;
    this.length += 1;
    return bytes;
  }

  at(i: number): string {
    const { bytes, offsets } = this.read(Math.floor(i / RUN_LINES));
    const j = i % RUN_LINES;
    return bytes.toString('utf8', offsets[j], offsets[j + 1]! - 1);
  }

  bytes(lo: number, hi: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = lo; i < hi;) {
      const { bytes, offsets, count } = this.read(Math.floor(i / RUN_LINES));
      const first = i % RUN_LINES;
      const last = Math.min(count, first + (hi - i));
      for (let j = first; j < last; j += 1)
        out.push(bytes.subarray(offsets[j], offsets[j + 1]! - 1));
      i += last - first;
    }
    return out;
  }

  get heldBytes(): number {
    return this.starts.byteLength + (this.run?.bytes.length ?? 0);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.run = undefined;
  }

  private grow(runs: number): void {
    if (runs <= this.starts.length) return;
    const bigger = new Float64Array(Math.max(runs, this.starts.length * 2));
    bigger.set(this.starts);
    this.starts = bigger;
  }

  /** One run's bytes and where each of its lines starts (offsets[count] is one past the last newline). */
  private read(index: number) {
    const count = Math.min(RUN_LINES, this.length - index * RUN_LINES);
    if (!(count > 0)) throw new RangeError(`line ${index * RUN_LINES} is not in the ledger`);
    if (this.run?.index === index && this.run.count === count) return this.run;
    const from = this.starts[index]!;
    const to = (index + 1) * RUN_LINES < this.length ? this.starts[index + 1]! : this.end;
    const bytes = Buffer.allocUnsafe(to - from);
    this.fd ??= openSync(this.path, 'r');
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(this.fd, bytes, got, bytes.length - got, from + got);
      if (n <= 0) break;
      got += n;
    }
    // The last line may still lack its newline (the store writes it before the next line).
    if (got === bytes.length - 1) bytes[got++] = 0x0a;
    const offsets = [0];
    for (let at = 0; offsets.length <= count;) {
      const nl = bytes.indexOf(0x0a, at);
      if (nl < 0 || nl >= got) {
        throw new RangeError(
          `${this.path}: lines ${index * RUN_LINES}..${index * RUN_LINES + count} could not be read back at byte ${from}`,
        );
      }
      at = nl + 1;
      offsets.push(at);
    }
    this.run = { index, count, bytes, offsets };
    return this.run;
  }
}
