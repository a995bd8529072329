import { EMPTY_ROOT, nodeHash, type Hash } from './merkle.js';

/**
 * The right edge of an RFC 9162 Merkle tree: one hash per complete subtree
 * (at most one per bit of the size), enough to give the root of the leaves
 * appended so far without keeping them. A verifier that streams a bundle
 * holds this instead of the tree.
 */
export class MerkleFrontier {
  /** Hashes of the complete subtrees, largest (leftmost) first. */
  private readonly nodes: Hash[] = [];
  size = 0;

  appendHash(leaf: Hash): void {
    let node = leaf;
    // Each trailing 1 bit of the old size is a subtree of the new one's size that now pairs up.
    for (let n = this.size; n % 2 === 1; n = Math.floor(n / 2))
      node = nodeHash(this.nodes.pop()!, node);
    this.nodes.push(node);
    this.size += 1;
  }

  /** MTH of the leaves so far: the subtrees folded from the right, as the split rule nests them. */
  root(): Hash {
    if (this.nodes.length === 0) return EMPTY_ROOT;
    let root = this.nodes[this.nodes.length - 1]!;
    for (let i = this.nodes.length - 2; i >= 0; i -= 1) root = nodeHash(this.nodes[i]!, root);
    return root;
  }
}
