import type { KeyObject } from 'node:crypto';
import * as z from 'zod/mini';
import '../zod-en.js';
import { CheckpointError, verifyCheckpoint, type Checkpoint } from './checkpoint.js';
import { entryJson, entrySchema } from './entry.js';
import { MerkleFrontier } from './frontier.js';
import { equalHashes, leafHashBase64, type Hash } from './merkle.js';
import { InclusionVerifier } from './merkle-proof.js';
import { MeaningCheck } from './meaning.js';
import type { FindGrant } from './granted-ids.js';
import { BundleError } from './verify-error.js';

/** One entry of a bundle as it is written: its index, the entry, and its inclusion proof. */
export const bundleEntrySchema = z.object({
  index: z.number().check(z.int(), z.nonnegative()),
  entry: entrySchema,
  inclusionProof: z.array(z.string()),
});
export type CheckedBundleEntry = z.infer<typeof bundleEntrySchema>;

export const bundleSchema = z.object({
  checkpoint: z.string(),
  entries: z.array(bundleEntrySchema),
});

export interface VerifiedBundle extends Checkpoint {
  first: number;
  count: number;
}

export interface VerifyOptions {
  /** An older signed checkpoint that this bundle's tree must extend. */
  previous?: string | undefined;
  /** Accept a bundle that holds only some entries (no --previous then). */
  allowPartial?: boolean | undefined;
  /** The promotion order to check the grants against (ledger/promotion.ts): each resource and the one before it. */
  promote?: Map<string, string> | undefined;
}

/**
 * Checks a ledger bundle with nothing but the public key: the checkpoint's
 * signature and origin, every entry's inclusion proof, their order and
 * timestamps, completeness, consistency with an older checkpoint, and the
 * meaning of the entries (one holder at a time, fences strictly rising).
 * Throws a BundleError naming the first problem.
 */
export function verifyBundle(
  raw: unknown,
  publicKey: KeyObject,
  options: VerifyOptions = {},
): VerifiedBundle {
  const parsed = bundleSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BundleError(`bundle: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  const entries = parsed.data.entries;
  const verifier = new BundleVerifier(parsed.data.checkpoint, publicKey, options, (id, seq) => {
    // The entries checked so far: their indexes rise from the first, each its seq.
    for (const { index, entry } of entries) {
      if (index >= seq) break;
      if (entry.kind === 'grant' && entry.leaseId === id)
        return { seq: entry.seq, resource: entry.resource };
    }
    return undefined;
  });
  for (const item of parsed.data.entries) verifier.add(item);
  return verifier.finish();
}

/**
 * verifyBundle one entry at a time, in the bundle's order, holding only the
 * checkpoint, the entry before, the meaning's state per resource and (for
 * --previous) a Merkle frontier: memory does not grow with the bundle. The
 * verdict and its message are verifyBundle's: `add` throws the first problem
 * of order and proof at once; a problem of meaning waits for `finish`, because
 * a bundle with missing entries is refused as such first.
 */
export class BundleVerifier {
  private readonly checkpoint: Checkpoint;
  private meaning: MeaningCheck | undefined;
  private meaningError: BundleError | undefined;
  private first = 0;
  private count = 0;
  private previousTs: number | undefined;
  private inclusion: InclusionVerifier | undefined;
  /** For --previous: the leaves so far, and the root of the older checkpoint's first `size`. */
  private readonly older: { size: number; frontier: MerkleFrontier; root?: Hash } | undefined;

  constructor(
    checkpointText: string,
    private readonly publicKey: KeyObject,
    private readonly options: VerifyOptions,
    /** Reads an earlier grant back (the bundle in memory, or its file again): granted-ids.ts. */
    private readonly findGrant: FindGrant,
  ) {
    this.checkpoint = guard(() => verifyCheckpoint(checkpointText, publicKey));
    if (options.previous !== undefined) {
      // Its own problems are told in finish(), in verifyBundle's order; here only its size matters.
      let size: number | undefined;
      try {
        size = verifyCheckpoint(options.previous, publicKey).size;
      } catch (error) {
        if (!(error instanceof CheckpointError)) throw error;
      }
      if (size !== undefined) {
        this.older = { size, frontier: new MerkleFrontier() };
        if (size === 0) this.older.root = this.older.frontier.root();
      }
    }
  }

  add({ index, entry, inclusionProof }: CheckedBundleEntry): void {
    const i = this.count;
    const checkpoint = this.checkpoint;
    if (i === 0) this.first = index;
    const first = this.first;
    if (index !== first + i)
      throw new BundleError(`entry ${i}: index ${index} breaks the order (expected ${first + i})`);
    if (entry.seq !== index)
      throw new BundleError(`entry ${index}: seq ${entry.seq} does not match its index`);
    const previousTs = this.previousTs;
    if (previousTs !== undefined && entry.tsMs <= previousTs) {
      throw new BundleError(`entry ${index}: tsMs ${entry.tsMs} is not after ${previousTs}`);
    }
    const leaf = leafHashBase64(entryJson(entry));
    this.inclusion ??= new InclusionVerifier(checkpoint.size, checkpoint.root);
    const included = this.inclusion.verify(index, leaf, inclusionProof);
    if (included === 'length')
      throw new BundleError(`entry ${index}: a proof hash is not 32 bytes`);
    if (!included) {
      throw new BundleError(
        `entry ${index}: the inclusion proof does not lead to the checkpoint's root`,
      );
    }
    this.count = i + 1;
    this.previousTs = entry.tsMs;
    const older = this.older;
    if (older && older.root === undefined) {
      older.frontier.appendHash(new Uint8Array(Buffer.from(leaf, 'base64')));
      if (older.frontier.size === older.size) older.root = older.frontier.root();
    }
    if (this.meaningError) return;
    // A range that starts past 0 cannot know the state before it (checkMeaning's `partial`).
    this.meaning ??= new MeaningCheck(first !== 0, this.options.promote, this.findGrant);
    try {
      this.meaning.check(entry);
    } catch (error) {
      if (!(error instanceof BundleError)) throw error;
      this.meaningError = error;
    }
  }

  /** The verdict once every entry is added: completeness, meaning, --previous. */
  finish(): VerifiedBundle {
    const { checkpoint, first, count, options } = this;
    const complete = first === 0 && count === checkpoint.size;
    if (!complete && !options.allowPartial) {
      throw new BundleError(
        `bundle holds entries ${first}..${first + count - 1} of ${checkpoint.size}: some are missing (use --allow-partial for a range)`,
      );
    }
    if (this.meaningError) throw this.meaningError;
    if (options.previous !== undefined) {
      if (!complete) throw new BundleError('--previous needs a complete bundle');
      const older = guard(() => verifyCheckpoint(options.previous!, this.publicKey));
      if (older.size > checkpoint.size) {
        throw new BundleError(
          `the previous checkpoint (size ${older.size}) is larger than this one (${checkpoint.size})`,
        );
      }
      const root = this.older?.root;
      if (!root || !equalHashes(root, older.root)) {
        throw new BundleError(
          `not consistent with the previous checkpoint: the first ${older.size} entries were rewritten`,
        );
      }
    }
    return { ...checkpoint, first, count };
  }
}

function guard<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof CheckpointError) throw new BundleError(error.message, { cause: error });
    throw error;
  }
}
