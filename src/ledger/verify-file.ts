import type { KeyObject } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import * as z from 'zod/mini';
import { causeText, LeaseGateError, type CauseOptions } from '../errors.js';
import {
  BundleError,
  BundleVerifier,
  bundleEntrySchema,
  bundleSchema,
  verifyBundle,
  type VerifiedBundle,
  type VerifyOptions,
} from './verify.js';

/**
 * `verify FILE` without the file in memory: a small reader for exactly the
 * bundle's shape, `{"checkpoint": "…", "entries": [ {…}, {…}, … ]}` in any key
 * order and spacing, hands the entries one at a time (each parsed on its own
 * by JSON.parse) to the streaming BundleVerifier. The verdict is the one
 * verifyBundle gives the parsed file, with its message: a file that is not
 * JSON is refused as such even when an entry before the bad byte is wrong, and
 * a shape problem of any entry comes before a problem of meaning.
 */

/** A bundle file that is not readable JSON; the message says why (and where). */
export class BundleReadError extends LeaseGateError<'bundle_read'> {
  override name = 'BundleReadError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'bundle_read' });
  }
}

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;
/** The longest entry, checkpoint or other value (an entry of a long ledger is about 1 KB). */
export const MAX_VALUE_BYTES = 1 << 20;
/** The longest key: the bundle's keys are short words. */
const MAX_KEY_BYTES = 1_024;
/** A file the reader cannot stream is read whole as before, up to this size. */
export const MAX_WHOLE_BYTES = 64 << 20;

/** Inside the reader: what it cannot stream (not JSON, not the bundle's shape, too long). */
class CannotStream extends LeaseGateError<'bundle_not_streamable'> {
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

interface Reading {
  checkpoint(value: unknown): void;
  /** Called when the entries begin; false skips them (their bytes still walked). */
  entriesBegin(): boolean;
  entry(value: unknown, i: number): void;
  /** The entries' value when it is not an array. */
  entriesValue(value: unknown): void;
}

/** Walks the whole file once, strictly: anything but the bundle's shape cannot be streamed. */
function read(fd: number, reading: Reading): void {
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
      if (key === 'entries' && bytes.peek() === OPEN_ARRAY) readEntries(bytes, reading);
      else if (key === 'checkpoint') reading.checkpoint(bytes.parsed(MAX_VALUE_BYTES, key));
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

function readEntries(bytes: Bytes, reading: Reading): void {
  bytes.take();
  const keep = reading.entriesBegin();
  bytes.skipSpace();
  if (bytes.peek() === CLOSE_ARRAY) {
    bytes.take();
    return;
  }
  for (let i = 0; ; i += 1) {
    const what = `entries.${i}`;
    if (keep) reading.entry(bytes.parsed(MAX_VALUE_BYTES, what), i);
    else bytes.value(MAX_VALUE_BYTES, what, false);
    bytes.skipSpace();
    const next = bytes.take();
    if (next === CLOSE_ARRAY) return;
    if (next !== COMMA) throw bytes.cannot(`${what}: expected ',' or ']'`);
  }
}

const ABSENT = Symbol('absent');
const entriesSchema = z.array(bundleEntrySchema);
const issueOf = (error: z.core.$ZodError, prefix: (string | number)[]) => {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])].join('.');
  return new BundleError(`bundle: ${path || '(root)'}: ${issue?.message}`);
};

/**
 * verifyBundle on a file, streamed: memory holds one chunk, one entry and the
 * verifier's state, whatever the file's size. A checkpoint written after the
 * entries is found first by a walk that skips them. Throws BundleReadError
 * for a file that is not readable JSON, BundleError for one that does not verify.
 */
export function verifyBundleFile(
  file: string,
  publicKey: KeyObject,
  options: VerifyOptions = {},
  /** Up to this size a file that cannot be streamed is read whole (tests pass 0). */
  wholeBytes = MAX_WHOLE_BYTES,
): VerifiedBundle {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new BundleReadError(causeText(error), { cause: error });
  }
  try {
    return streamed(fd, publicKey, options);
  } catch (error) {
    if (!(error instanceof CannotStream)) throw readError(error);
    return whole(fd, file, error, publicKey, options, wholeBytes);
  } finally {
    closeSync(fd);
  }
}

function readError(error: unknown): unknown {
  // A read that fails (a directory, an I/O error) is an unreadable bundle, as readFileSync's was.
  return error instanceof LeaseGateError || !(error instanceof Error && 'code' in error)
    ? error
    : new BundleReadError(causeText(error), { cause: error });
}

/** What cannot be streamed is read whole, as verify always did, when it is small enough. */
function whole(
  fd: number,
  file: string,
  cannot: CannotStream,
  publicKey: KeyObject,
  options: VerifyOptions,
  wholeBytes: number,
): VerifiedBundle {
  const size = fstatSync(fd).size;
  if (size > wholeBytes) {
    throw new BundleReadError(
      `${cannot.message}; a bundle of ${Math.round(size / 2 ** 20)} MiB is read only as {"checkpoint": …, "entries": […]}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new BundleReadError(causeText(error), { cause: error });
  }
  return verifyBundle(raw, publicKey, options);
}

function streamed(fd: number, publicKey: KeyObject, options: VerifyOptions): VerifiedBundle {
  // verifyBundle's order: the schema's first issue (the checkpoint's, then the entries' in
  // order), then the first problem the verifier finds. Every entry is still read to its end,
  // because a later byte that is not JSON makes the whole file unreadable.
  let checkpointIssue: BundleError | undefined;
  let entriesIssue: BundleError | undefined;
  let problem: BundleError | undefined;
  let verifier: BundleVerifier | undefined;
  let checkpoint: unknown = ABSENT;
  let hasEntries = false;
  const takeCheckpoint = (value: unknown) => {
    if (checkpoint !== ABSENT) return; // found first by the walk that skipped the entries
    checkpoint = value;
    const parsed = bundleSchema.shape.checkpoint.safeParse(value);
    if (!parsed.success) {
      checkpointIssue = issueOf(parsed.error, ['checkpoint']);
      return;
    }
    try {
      verifier = new BundleVerifier(parsed.data, publicKey, options);
    } catch (error) {
      if (!(error instanceof BundleError)) throw error;
      problem = error;
    }
  };
  read(fd, {
    checkpoint: takeCheckpoint,
    entriesBegin: () => {
      hasEntries = true;
      if (checkpoint === ABSENT) {
        let found: unknown = undefined;
        read(fd, {
          checkpoint: (value) => (found = value),
          entriesBegin: () => false,
          entry: () => undefined,
          entriesValue: () => undefined,
        });
        takeCheckpoint(found);
      }
      return true;
    },
    entry: (value, i) => {
      if (entriesIssue) return;
      const item = bundleEntrySchema.safeParse(value);
      if (!item.success) {
        entriesIssue = issueOf(item.error, ['entries', i]);
        return;
      }
      if (!verifier || problem || checkpointIssue) return;
      try {
        verifier.add(item.data);
      } catch (error) {
        if (!(error instanceof BundleError)) throw error;
        problem = error;
      }
    },
    entriesValue: (value) => {
      hasEntries = true;
      const parsed = entriesSchema.safeParse(value);
      if (!parsed.success) entriesIssue = issueOf(parsed.error, ['entries']);
    },
  });
  if (checkpoint === ABSENT) takeCheckpoint(undefined);
  if (!hasEntries) {
    const parsed = entriesSchema.safeParse(undefined);
    if (!parsed.success) entriesIssue = issueOf(parsed.error, ['entries']);
  }
  const first = checkpointIssue ?? entriesIssue ?? problem;
  if (first) throw first;
  return verifier!.finish();
}
