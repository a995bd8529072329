import { readSync } from 'node:fs';
import { causeText, LeaseGateError } from '../errors.js';

/**
 * The bundle file's reader (verify-file.ts): a small reader for exactly the
 * bundle's shape, `{"checkpoint": "…", "entries": [ {…}, {…}, … ]}` in any key
 * order and spacing, that hands each value to a Reading as it comes, a chunk of
 * the file in memory at a time.
 */

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;
/** The longest entry, checkpoint or other value (an entry of a long ledger is about 1 KB). */
export const MAX_VALUE_BYTES = 1 << 20;
/** The longest key: the bundle's keys are short words. */
const MAX_KEY_BYTES = 1_024;
/** A file the reader cannot stream is read whole as before, up to this size. */
export const MAX_WHOLE_BYTES = 64 << 20;

/** Inside the reader: what it cannot stream (not JSON, not the bundle's shape, too long). */
export class CannotStream extends LeaseGateError<'bundle_not_streamable'> {
  override name = 'CannotStream';
  constructor(message: string) {
    super(message, { code: 'bundle_not_streamable' });
  }
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The file's bytes from a position, a chunk at a time. JSON's structure is
 * ASCII and no byte of a multi-byte UTF-8 character is, so the reader walks
 * bytes and decodes only the values it keeps.
 */
class Bytes {
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private length = 0;
  pos = 0;
  /** The file offset of buffer[0]. */
  private base = 0;

  constructor(private readonly fd: number) {}

  get offset(): number {
    return this.base + this.pos;
  }

  /** The next byte without taking it; -1 at the end of the file. */
  peek(): number {
    if (this.pos >= this.length && !this.refill()) return -1;
    return this.buffer[this.pos]!;
  }

  take(): number {
    const byte = this.peek();
    if (byte >= 0) this.pos += 1;
    return byte;
  }

  skipSpace(): void {
    while (SPACE.has(this.peek())) this.pos += 1;
  }

  expect(byte: number, what: string): void {
    this.skipSpace();
    if (this.take() !== byte) throw this.cannot(`expected ${what}`);
  }

  cannot(what: string): CannotStream {
    return new CannotStream(`${what} at byte ${this.offset}`);
  }

  /**
   * One JSON value's bytes, from the next non-space byte to its end (strings
   * and nesting followed; its syntax is left to JSON.parse). Kept only when
   * `keep`, and never more than `limit` bytes.
   */
  value(limit: number, what: string, keep: boolean): Buffer | undefined {
    this.skipSpace();
    const pieces: Buffer[] = [];
    let size = 0;
    let start = this.pos;
    const first = this.peek();
    if (first < 0) throw this.cannot(`${what}: the file ends before its value`);
    const scalar = first !== OPEN_OBJECT && first !== OPEN_ARRAY && first !== QUOTE;
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (;;) {
      if (this.pos >= this.length) {
        size += this.length - start;
        if (size > limit) throw this.cannot(`${what} is longer than ${limit} bytes`);
        if (keep) pieces.push(Buffer.from(this.buffer.subarray(start, this.length)));
        start = 0;
        if (!this.refill()) {
          if (scalar) break;
          throw this.cannot(`${what}: the file ends inside it`);
        }
      }
      const byte = this.buffer[this.pos]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (depth === 0) {
            this.pos += 1;
            break;
          }
        }
      } else if (byte === QUOTE) {
        if (scalar) break;
        inString = true;
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (scalar) break;
        depth += 1;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (scalar) break;
        depth -= 1;
        if (depth === 0) {
          this.pos += 1;
          break;
        }
      } else if (scalar && (byte === COMMA || SPACE.has(byte))) break;
      this.pos += 1;
    }
    size += this.pos - start;
    if (size > limit) throw this.cannot(`${what} is longer than ${limit} bytes`);
    if (!keep) return undefined;
    pieces.push(this.buffer.subarray(start, this.pos));
    return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
  }

  /** value() parsed; a syntax error is JSON.parse's, with where it is. */
  parsed(limit: number, what: string): unknown {
    const at = this.offset;
    const bytes = this.value(limit, what, true)!;
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new CannotStream(`${what} at byte ${at}: ${causeText(error)}`);
    }
  }

  private refill(): boolean {
    this.base += this.length;
    this.pos = 0;
    this.length = readSync(this.fd, this.buffer, 0, CHUNK_BYTES, this.base);
    return this.length > 0;
  }
}

export interface Reading {
  checkpoint(value: unknown): void;
  /** Called when the entries begin; false skips them (their bytes still walked). */
  entriesBegin(): boolean;
  /** One entry, parsed; `false` ends the walk there (the rest of the file is not read). */
  entry(value: unknown, i: number): unknown;
  /** The entries' value when it is not an array. */
  entriesValue(value: unknown): void;
}

/** Walks the whole file once, strictly: anything but the bundle's shape cannot be streamed. */
export function read(fd: number, reading: Reading): void {
  const bytes = new Bytes(fd);
  bytes.expect(OPEN_OBJECT, 'a JSON object');
  bytes.skipSpace();
  const seen = new Set<string>();
  if (bytes.peek() === CLOSE_OBJECT) bytes.take();
  else {
    for (;;) {
      bytes.skipSpace();
      if (bytes.peek() !== QUOTE) throw bytes.cannot('expected a key');
      const key = bytes.parsed(MAX_KEY_BYTES, 'a key');
      if (typeof key !== 'string') throw bytes.cannot('expected a key');
      if ((key === 'checkpoint' || key === 'entries') && seen.has(key))
        throw bytes.cannot(`a second "${key}"`);
      seen.add(key);
      bytes.expect(COLON, "':'");
      bytes.skipSpace();
      if (key === 'entries' && bytes.peek() === OPEN_ARRAY) {
        if (!readEntries(bytes, reading)) return;
      } else if (key === 'checkpoint') reading.checkpoint(bytes.parsed(MAX_VALUE_BYTES, key));
      else if (key === 'entries') reading.entriesValue(bytes.parsed(MAX_VALUE_BYTES, key));
      else bytes.parsed(MAX_VALUE_BYTES, JSON.stringify(key).slice(0, 80));
      bytes.skipSpace();
      const next = bytes.take();
      if (next === CLOSE_OBJECT) break;
      if (next !== COMMA) throw bytes.cannot("expected ',' or '}'");
    }
  }
  bytes.skipSpace();
  if (bytes.peek() >= 0) throw bytes.cannot('data after the bundle');
}

/** The entries' array; false when a Reading ended the walk. */
function readEntries(bytes: Bytes, reading: Reading): boolean {
  bytes.take();
  const keep = reading.entriesBegin();
  bytes.skipSpace();
  if (bytes.peek() === CLOSE_ARRAY) {
    bytes.take();
    return true;
  }
  for (let i = 0; ; i += 1) {
    const what = `entries.${i}`;
    if (keep) {
      if (reading.entry(bytes.parsed(MAX_VALUE_BYTES, what), i) === false) return false;
    } else bytes.value(MAX_VALUE_BYTES, what, false);
    bytes.skipSpace();
    const next = bytes.take();
    if (next === CLOSE_ARRAY) return true;
    if (next !== COMMA) throw bytes.cannot(`${what}: expected ',' or ']'`);
  }
}
