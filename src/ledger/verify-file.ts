import type { KeyObject } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { causeText, LeaseGateError, type CauseOptions } from '../errors.js';
export { MAX_VALUE_BYTES, MAX_WHOLE_BYTES } from './bundle-reader.js';
import type { EarlierGrant } from './granted-ids.js';
import { CannotStream, MAX_WHOLE_BYTES, read } from './bundle-reader.js';
import { BundleError } from './verify-error.js';
import {
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
      verifier = new BundleVerifier(parsed.data, publicKey, options, (id, seq) =>
        grantInFile(fd, id, seq),
      );
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

/**
 * The first grant of `leaseId` among the entries before `seq`, read from the file again
 * (FindGrant, granted-ids.ts): asked only when a lease id is granted twice, or its
 * fingerprint matches another's, so the walk's cost is paid once at most, on a refusal.
 */
function grantInFile(fd: number, leaseId: string, seq: number): EarlierGrant | undefined {
  let found: EarlierGrant | undefined;
  read(fd, {
    checkpoint: () => undefined,
    entriesBegin: () => true,
    entry: (value) => {
      const item = bundleEntrySchema.safeParse(value);
      // The entries before `seq` were read and checked already: past them, none is.
      if (!item.success || item.data.index >= seq) return false;
      const { entry } = item.data;
      if (entry.kind !== 'grant' || entry.leaseId !== leaseId) return true;
      found = { seq: entry.seq, resource: entry.resource };
      return false;
    },
    entriesValue: () => undefined,
  });
  return found;
}
