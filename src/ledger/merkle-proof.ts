/**
 * Checking RFC 9162 proofs against roots, apart from the tree that makes them (merkle.ts):
 * a verifier needs these few functions and the hashes, never a tree.
 */
import { equalHashes, nodeHash, nodeHashBase64, type Hash } from './merkle.js';

const half = (n: number) => Math.floor(n / 2);

/**
 * The proof walk that RFC 9162 §2.1.3.2 and §2.1.4.2 share: `left(p)` when the
 * proof hash sits to the left of the running hash, `right(p)` otherwise.
 * Returns the final `sn` (0 for a proof of the right length), or -1 when the
 * proof is too long.
 */
function walk(
  fn: number,
  sn: number,
  proof: Hash[],
  left: (p: Hash) => void,
  right: (p: Hash) => void,
): number {
  for (const p of proof) {
    if (sn === 0) return -1;
    if (fn % 2 === 1 || fn === sn) {
      left(p);
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      right(p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn;
}

/** RFC 9162 §2.1.3.2: does `proof` put `leaf` at `index` in the tree of `size` with `root`? */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Hash,
  proof: Hash[],
  root: Hash,
): boolean {
  if (!(index >= 0 && index < size)) return false;
  let r = leaf;
  const sn = walk(
    index,
    size - 1,
    proof,
    (p) => (r = nodeHash(p, r)),
    (p) => (r = nodeHash(r, p)),
  );
  return sn === 0 && equalHashes(r, root);
}

/** RFC 9162 §2.1.4.2: is the tree of `second` with `secondRoot` an extension of `first`? */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Hash,
  secondRoot: Hash,
  proof: Hash[],
): boolean {
  if (first > second || first < 0) return false;
  if (first === second) return proof.length === 0 && equalHashes(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  const end = walk(
    fn,
    sn,
    path.slice(1),
    (c) => {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
    },
    (c) => (sr = nodeHash(sr, c)),
  );
  return end === 0 && equalHashes(fr, firstRoot) && equalHashes(sr, secondRoot);
}

/** One step of an inclusion proof's walk: the running hash (base64) after it, and where it stands. */
interface Step {
  fn: number;
  sn: number;
  hash: string;
}

/** Where a proof hash is decoded to learn its length: one byte more than a hash. */
const probe = Buffer.alloc(33);

/**
 * verifyInclusion for many leaves of one tree, in any order, with the same
 * answers: the walk of each proof is kept until the next, and a walk that
 * reaches the same node with the same hash as the walk before it (same `fn`,
 * `sn` and running hash) and has the same proof hashes left gives that walk's
 * answer without hashing them again. Consecutive leaves share all but a few
 * steps, so a bundle's proofs cost about two hashes an entry, not one per level.
 * Hashes stay the bundle's base64 text (merkle.ts hashes them from a scratch
 * buffer), so checking an entry allocates no buffer.
 */
export class InclusionVerifier {
  private previous: { proof: readonly string[]; steps: Step[] } | undefined;
  private readonly root: string;

  constructor(
    private readonly size: number,
    root: Hash,
  ) {
    this.root = Buffer.from(root).toString('base64');
  }

  /**
   * verifyInclusion(index, size, leaf, decoded proof, root) for a leaf hash in
   * base64; 'length' when a proof hash is not 32 bytes (checked for every hash,
   * as the bundle's check does).
   */
  verify(index: number, leaf: string, proof: readonly string[]): boolean | 'length' {
    const previous = this.previous;
    // From `same` on, this proof's hashes are the previous one's, which were all 32 bytes.
    let same = proof.length;
    if (previous && previous.proof.length === proof.length)
      while (same > 0 && previous.proof[same - 1] === proof[same - 1]) same -= 1;
    for (let k = 0; k < same; k += 1)
      if (probe.write(proof[k]!, 0, probe.length, 'base64') !== 32) return 'length';
    if (!(index >= 0 && index < this.size)) return false;
    const steps: Step[] = [];
    let fn = index;
    let sn = this.size - 1;
    let r = leaf;
    for (let k = 0; k < proof.length; k += 1) {
      const before = previous?.steps[k - 1];
      if (k >= same && k > 0 && before?.fn === fn && before.sn === sn && before.hash === r) {
        // The rest of this walk is the previous one's, which led to the root.
        for (let j = k; j < previous!.steps.length; j += 1) steps[j] = previous!.steps[j]!;
        this.previous = { proof, steps };
        return true;
      }
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        r = nodeHashBase64(proof[k]!, r);
        while (fn % 2 === 0 && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      } else r = nodeHashBase64(r, proof[k]!);
      fn = half(fn);
      sn = half(sn);
      steps.push({ fn, sn, hash: r });
    }
    const ok = sn === 0 && r === this.root;
    if (ok) this.previous = { proof, steps };
    return ok;
  }
}
