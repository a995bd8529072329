import type { KeyObject } from 'node:crypto';
import * as z from 'zod/mini';
import '../zod-en.js';
import { CheckpointError, verifyCheckpoint, type Checkpoint } from './checkpoint.js';
import { entrySchema, leafBytes } from './entry.js';
import { MerkleTree, equalHashes, leafHash, verifyInclusion } from './merkle.js';
import { checkMeaning } from './meaning.js';
import { BundleError } from './verify-error.js';

export { BundleError };

const bundleSchema = z.object({
  checkpoint: z.string(),
  entries: z.array(
    z.object({
      index: z.number().check(z.int(), z.nonnegative()),
      entry: entrySchema,
      inclusionProof: z.array(z.string()),
    }),
  ),
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
  const { checkpoint: text, entries } = parsed.data;
  const checkpoint = guard(() => verifyCheckpoint(text, publicKey));
  const first = entries[0]?.index ?? 0;
  entries.forEach(({ index, entry, inclusionProof }, i) => {
    if (index !== first + i)
      throw new BundleError(`entry ${i}: index ${index} breaks the order (expected ${first + i})`);
    if (entry.seq !== index)
      throw new BundleError(`entry ${index}: seq ${entry.seq} does not match its index`);
    const previous = entries[i - 1]?.entry;
    if (previous && entry.tsMs <= previous.tsMs) {
      throw new BundleError(`entry ${index}: tsMs ${entry.tsMs} is not after ${previous.tsMs}`);
    }
    const proof = inclusionProof.map((h) => new Uint8Array(Buffer.from(h, 'base64')));
    if (proof.some((h) => h.length !== 32))
      throw new BundleError(`entry ${index}: a proof hash is not 32 bytes`);
    if (
      !verifyInclusion(index, checkpoint.size, leafHash(leafBytes(entry)), proof, checkpoint.root)
    ) {
      throw new BundleError(
        `entry ${index}: the inclusion proof does not lead to the checkpoint's root`,
      );
    }
  });
  const complete = first === 0 && entries.length === checkpoint.size;
  if (!complete && !options.allowPartial) {
    throw new BundleError(
      `bundle holds entries ${first}..${first + entries.length - 1} of ${checkpoint.size}: some are missing (use --allow-partial for a range)`,
    );
  }
  checkMeaning(
    entries.map((e) => e.entry),
    first !== 0,
  );
  if (options.previous !== undefined) {
    if (!complete) throw new BundleError('--previous needs a complete bundle');
    const older = guard(() => verifyCheckpoint(options.previous!, publicKey));
    if (older.size > checkpoint.size) {
      throw new BundleError(
        `the previous checkpoint (size ${older.size}) is larger than this one (${checkpoint.size})`,
      );
    }
    const tree = new MerkleTree();
    for (const { entry } of entries) tree.append(leafBytes(entry));
    if (!equalHashes(tree.root(older.size), older.root)) {
      throw new BundleError(
        `not consistent with the previous checkpoint: the first ${older.size} entries were rewritten`,
      );
    }
  }
  return { ...checkpoint, first, count: entries.length };
}

function guard<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof CheckpointError) throw new BundleError(error.message);
    throw error;
  }
}
