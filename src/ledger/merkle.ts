import * as nodeCrypto from 'node:crypto';
import { createHash } from 'node:crypto';

/**
 * An RFC 9162 §2.1 (RFC 6962) Merkle tree over an append-only list of leaves.
 * Every complete subtree's hash is kept per level, so appending costs O(log n)
 * at worst (O(1) amortised) and a proof costs O(log n) hashes.
 */

export type Hash = Uint8Array;
const HASH_BYTES = 32;

export const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return new Uint8Array(h.digest());
};
const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);

/**
 * One-shot SHA-256 (Node ≥ 20.12): no Hash object per digest. Those objects
 * hold native handles that survive the young generation's collections, which
 * made the collector the largest cost of an append. Older Nodes use createHash.
 */
const oneShot = (
  nodeCrypto as { hash?: (algorithm: string, data: Uint8Array, as: 'buffer') => Buffer }
).hash;
let scratch = Buffer.allocUnsafeSlow(1024);

/** SHA-256 of one prefix byte and the parts; the digest is a fresh buffer. */
function prefixedDigest(prefix: Uint8Array, a: Uint8Array, b?: Uint8Array): Buffer {
  if (!oneShot) {
    const h = createHash('sha256').update(prefix).update(a);
    return (b ? h.update(b) : h).digest();
  }
  const size = 1 + a.length + (b?.length ?? 0);
  if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(size * 2);
  scratch[0] = prefix[0]!;
  scratch.set(a, 1);
  if (b) scratch.set(b, 1 + a.length);
  return oneShot('sha256', scratch.subarray(0, size), 'buffer');
}
/**
 * SHA-256 of scratch[0, size) as base64 text. The digest is a string on the JavaScript heap,
 * not a buffer: a verifier makes millions, and a buffer each (memory outside the heap, freed
 * only after a collection) made its resident memory grow with the bundle.
 */
function base64Digest(size: number): string {
  const bytes = scratch.subarray(0, size);
  return oneShot
    ? (oneShot as unknown as (a: string, d: Uint8Array, as: 'base64') => string)(
        'sha256',
        bytes,
        'base64',
      )
    : createHash('sha256').update(bytes).digest('base64');
}

/** leafHash of `text`'s UTF-8 bytes, in base64. */
export function leafHashBase64(text: string): string {
  const size = 1 + Buffer.byteLength(text, 'utf8');
  if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(size * 2);
  scratch[0] = LEAF_PREFIX[0]!;
  scratch.write(text, 1, 'utf8');
  return base64Digest(size);
}

/** nodeHash of two hashes given in base64 (each 32 bytes: the caller has checked). */
export function nodeHashBase64(left: string, right: string): string {
  scratch[0] = NODE_PREFIX[0]!;
  scratch.write(left, 1, HASH_BYTES, 'base64');
  scratch.write(right, 1 + HASH_BYTES, HASH_BYTES, 'base64');
  return base64Digest(1 + 2 * HASH_BYTES);
}

/** A digest as a plain Uint8Array view (no copy): what the tree and its proofs hold. */
const view = (digest: Buffer): Hash =>
  new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
// One-shot too: a verifier hashes every leaf and its path, and a Hash object per digest (or a
// copy of each) made its memory grow with the bundle (docs/performance.md, export and verify).
export const leafHash = (data: Uint8Array): Hash => view(prefixedDigest(LEAF_PREFIX, data));
export const nodeHash = (left: Hash, right: Hash): Hash =>
  view(prefixedDigest(NODE_PREFIX, left, right));
export const EMPTY_ROOT: Hash = sha256();

/** The largest power of two strictly below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A growable array of 32-byte hashes in one buffer (millions of leaves stay compact). */
class HashList {
  private buffer = new Uint8Array(HASH_BYTES * 64);
  length = 0;
  push(hash: Hash): void {
    if ((this.length + 1) * HASH_BYTES > this.buffer.length) {
      const bigger = new Uint8Array(this.buffer.length * 2);
      bigger.set(this.buffer);
      this.buffer = bigger;
    }
    this.buffer.set(hash, this.length * HASH_BYTES);
    this.length += 1;
  }
  at(index: number): Hash {
    return this.buffer.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES);
  }
  /** The first `count` hashes as one buffer (a copy). */
  slice(count: number): Uint8Array {
    return this.buffer.slice(0, count * HASH_BYTES);
  }
  get bytes(): number {
    return this.buffer.length;
  }
}

/** Reads leaves [lo, hi) back (their data, not their hashes), for a bounded tree. */
export type LeafReader = (lo: number, hi: number) => Uint8Array[];

export interface MerkleOptions {
  /**
   * Keep only the hashes of subtrees of 2^chunkBits leaves and above, and the
   * last incomplete chunk's lower nodes; a proof that needs a lower node of an
   * older chunk recomputes that chunk from its leaves, read back with `leaves`.
   * Without it every node is kept (a tree whose leaves live nowhere else).
   */
  leaves?: LeafReader;
  chunkBits?: number;
}

/** Recomputed chunks kept for the next proofs: an export page walks one chunk after another. */
const CHUNK_CACHE = 4;

export class MerkleTree {
  /**
   * low[k][i] is the hash of leaves [base + i·2^k, base + (i+1)·2^k) for the
   * chunk starting at `base`, k < chunkBits; high[k][i] of leaves
   * [i·2^(k+chunkBits), (i+1)·2^(k+chunkBits)). Without a leaf reader the
   * chunk never closes, so `low` holds the whole tree.
   */
  private readonly low: HashList[] = [new HashList()];
  private readonly high: HashList[] = [];
  private readonly chunkBits: number;
  private readonly leaves: LeafReader | undefined;
  private base = 0;
  private count = 0;
  private readonly recomputed = new Map<number, Hash[][]>();

  constructor(options: MerkleOptions = {}) {
    this.leaves = options.leaves;
    // 2^52 leaves is more than any ledger: a tree without a reader keeps all it has.
    this.chunkBits = options.leaves ? (options.chunkBits ?? 8) : 52;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes of hashes this tree keeps (what a bounded tree bounds). */
  get heldBytes(): number {
    let bytes = 0;
    for (const list of [...this.low, ...this.high]) bytes += list.bytes;
    return bytes;
  }

  /** The size of one chunk, 2^chunkBits leaves. */
  get chunkSize(): number {
    return 2 ** this.chunkBits;
  }

  /** Appends a leaf's data; returns its index. */
  append(data: Uint8Array): number {
    // The list copies what it keeps, so the digests need no copy of their own.
    return this.appendHash(prefixedDigest(LEAF_PREFIX, data));
  }

  appendHash(hash: Hash): number {
    const index = this.count;
    let node = hash;
    let level = 0;
    for (let i = index - this.base; level < this.chunkBits; level += 1, i >>= 1) {
      const list = (this.low[level] ??= new HashList());
      list.push(node);
      if (i % 2 === 0) {
        this.count += 1;
        return index;
      }
      node = prefixedDigest(NODE_PREFIX, list.at(i - 1), node);
    }
    // A chunk is complete: its lower nodes go (they can be recomputed), its root stays.
    for (const list of this.low) list.length = 0;
    this.base += this.chunkSize;
    this.count += 1;
    this.pushChunk(node);
    return index;
  }

  /** The roots of the complete chunks, in order (a bounded tree's whole memory but its last chunk). */
  chunkRoots(): Uint8Array {
    return this.high[0]?.slice(this.base / this.chunkSize) ?? new Uint8Array(0);
  }

  /**
   * Starts an empty bounded tree from the roots of its first complete chunks
   * (as `chunkRoots` gave them); the leaves after them are appended.
   */
  restoreChunks(roots: Uint8Array): void {
    if (this.count !== 0 || !this.leaves)
      throw new RangeError('only an empty bounded tree restores');
    if (roots.length % HASH_BYTES !== 0) throw new RangeError('chunk roots are not whole hashes');
    for (let at = 0; at < roots.length; at += HASH_BYTES) {
      this.base += this.chunkSize;
      this.count += this.chunkSize;
      this.pushChunk(roots.subarray(at, at + HASH_BYTES));
    }
  }

  private pushChunk(root: Hash): void {
    let node = root;
    for (let level = 0, i = this.base / this.chunkSize - 1; ; level += 1, i = Math.floor(i / 2)) {
      const list = (this.high[level] ??= new HashList());
      list.push(node);
      if (i % 2 === 0) break;
      node = prefixedDigest(NODE_PREFIX, list.at(i - 1), node);
    }
  }

  leafHashAt(index: number): Hash {
    return this.node(0, index);
  }

  /** The root of the first `size` leaves (the whole tree by default). */
  root(size = this.size): Hash {
    this.checkSize(size);
    return size === 0 ? EMPTY_ROOT : this.range(0, size);
  }

  /** RFC 9162 §2.1.3.1 PATH(m, D[n]). */
  inclusionProof(index: number, size = this.size): Hash[] {
    return this.pathOf(index, size, (lo, hi) => this.range(lo, hi));
  }

  /**
   * Inclusion proofs of leaves [from, to) in the tree of `size`. The hashes of
   * incomplete subtrees are shared by neighbouring proofs, so they are
   * computed once for the whole run.
   */
  inclusionProofs(from: number, to: number, size = this.size): Hash[][] {
    const memo = new Map<number, Hash>();
    const cached = (lo: number, hi: number) => {
      const n = hi - lo;
      if ((n & (n - 1)) === 0 && lo % n === 0) return this.range(lo, hi);
      const key = lo * 2 ** 26 + n;
      let hash = memo.get(key);
      if (!hash) memo.set(key, (hash = this.range(lo, hi)));
      return hash;
    };
    const proofs: Hash[][] = [];
    for (let index = from; index < to; index += 1) proofs.push(this.pathOf(index, size, cached));
    return proofs;
  }

  private pathOf(index: number, size: number, range: (lo: number, hi: number) => Hash): Hash[] {
    this.checkSize(size);
    if (!(index >= 0 && index < size))
      throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
    const stack: Hash[] = [];
    let lo = 0;
    let hi = size;
    let m = index;
    while (hi - lo > 1) {
      const k = splitPoint(hi - lo);
      if (m < k) {
        stack.push(range(lo + k, hi));
        hi = lo + k;
      } else {
        stack.push(range(lo, lo + k));
        lo += k;
        m -= k;
      }
    }
    return stack.reverse();
  }

  /** RFC 9162 §2.1.4.1 PROOF(m, D[n]). */
  consistencyProof(first: number, second = this.size): Hash[] {
    this.checkSize(second);
    if (!(first >= 0 && first <= second)) throw new RangeError(`cannot prove ${first} → ${second}`);
    if (first === 0 || first === second) return [];
    const stack: Hash[] = [];
    let lo = 0;
    let hi = second;
    let m = first;
    let whole = true;
    for (;;) {
      const n = hi - lo;
      if (m === n) {
        if (!whole) stack.push(this.range(lo, hi));
        break;
      }
      const k = splitPoint(n);
      if (m <= k) {
        stack.push(this.range(lo + k, hi));
        hi = lo + k;
      } else {
        stack.push(this.range(lo, lo + k));
        lo += k;
        m -= k;
        whole = false;
      }
    }
    return stack.reverse();
  }

  /** MTH(D[lo:hi]) from the stored complete subtrees. */
  private range(lo: number, hi: number): Hash {
    const n = hi - lo;
    if ((n & (n - 1)) === 0 && lo % n === 0) return this.node(Math.log2(n), lo / n);
    const k = splitPoint(n);
    return nodeHash(this.range(lo, lo + k), this.range(lo + k, hi));
  }

  /** The complete subtree `i` of 2^level leaves. */
  private node(level: number, i: number): Hash {
    if (level >= this.chunkBits) return this.high[level - this.chunkBits]!.at(i);
    const first = i * 2 ** level;
    if (first >= this.base) return this.low[level]!.at(i - this.base / 2 ** level);
    const chunk = Math.floor(first / this.chunkSize);
    return this.chunk(chunk)[level]![i - chunk * 2 ** (this.chunkBits - level)]!;
  }

  /** Every node of an older chunk, from its leaves read back (a few kept for the next proofs). */
  private chunk(c: number): Hash[][] {
    const kept = this.recomputed.get(c);
    if (kept) return kept;
    const lo = c * this.chunkSize;
    const data = this.leaves!(lo, lo + this.chunkSize);
    if (data.length !== this.chunkSize)
      throw new RangeError(`leaves ${lo}..${lo + this.chunkSize} could not be read back`);
    const levels: Hash[][] = [data.map((d) => new Uint8Array(prefixedDigest(LEAF_PREFIX, d)))];
    for (let level = 1; level < this.chunkBits; level += 1) {
      const below = levels[level - 1]!;
      const nodes: Hash[] = [];
      for (let j = 0; j < below.length; j += 2)
        nodes.push(new Uint8Array(prefixedDigest(NODE_PREFIX, below[j]!, below[j + 1])));
      levels.push(nodes);
    }
    const top = levels.at(-1)!;
    const root = prefixedDigest(NODE_PREFIX, top[0]!, top[1]);
    if (!equalHashes(root, this.high[0]!.at(c))) {
      throw new RangeError(
        `leaves ${lo}..${lo + this.chunkSize} read back do not hash to the tree's`,
      );
    }
    if (this.recomputed.size >= CHUNK_CACHE)
      this.recomputed.delete(this.recomputed.keys().next().value!);
    this.recomputed.set(c, levels);
    return levels;
  }

  private checkSize(size: number): void {
    if (!(Number.isInteger(size) && size >= 0 && size <= this.size)) {
      throw new RangeError(`tree size ${size} is not between 0 and ${this.size}`);
    }
  }
}

export const equalHashes = (a: Hash, b: Hash) =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);
