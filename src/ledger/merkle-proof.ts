/**
 * Checking RFC 9162 proofs against roots, apart from the tree that makes them (merkle.ts):
 * a verifier needs these few functions and the hashes, never a tree.
 */
import { equalHashes, nodeHash, type Hash } from './merkle.js';

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
