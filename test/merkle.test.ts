import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMPTY_ROOT, MerkleTree, leafHash, nodeHash } from '../src/ledger/merkle.js';
import { verifyConsistency, verifyInclusion } from '../src/ledger/merkle-proof.js';

interface Vectors {
  leafHashes: Array<{ dataHex?: string; dataUtf8?: string; hash: string }>;
  nodeHashes: Array<{ leftUtf8: string; rightUtf8: string; hash: string }>;
  emptyRoot: string;
  leavesHex: string[];
  roots: Array<{ treeSize: number; root: string }>;
  inclusion: Array<{ leafIndex: number; treeSize: number; proof: string[] }>;
  consistency: Array<{ size1: number; size2: number; proof: string[] }>;
}

const vectors = JSON.parse(readFileSync('test/vectors/rfc6962.json', 'utf8')) as Vectors;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

function vectorTree(): MerkleTree {
  const tree = new MerkleTree();
  for (const leaf of vectors.leavesHex) tree.append(bytes(leaf));
  return tree;
}

describe('RFC 6962 known answers', () => {
  it('hashes leaves and nodes with the domain prefixes', () => {
    for (const v of vectors.leafHashes) {
      expect(hex(leafHash(v.dataHex !== undefined ? bytes(v.dataHex) : utf8(v.dataUtf8!)))).toBe(
        v.hash,
      );
    }
    for (const v of vectors.nodeHashes)
      expect(hex(nodeHash(utf8(v.leftUtf8), utf8(v.rightUtf8)))).toBe(v.hash);
    expect(hex(EMPTY_ROOT)).toBe(vectors.emptyRoot);
    expect(hex(new MerkleTree().root())).toBe(vectors.emptyRoot);
  });

  it('computes every published root, appending one leaf at a time', () => {
    const tree = new MerkleTree();
    vectors.leavesHex.forEach((leaf, i) => {
      tree.append(bytes(leaf));
      expect(hex(tree.root())).toBe(vectors.roots[i]!.root);
    });
    for (const { treeSize, root } of vectors.roots) expect(hex(tree.root(treeSize))).toBe(root);
  });

  it('produces and verifies every inclusion proof', () => {
    const tree = vectorTree();
    expect(vectors.inclusion.length).toBeGreaterThan(10);
    for (const { leafIndex, treeSize, proof } of vectors.inclusion) {
      expect(tree.inclusionProof(leafIndex, treeSize).map(hex)).toEqual(proof);
      const root = tree.root(treeSize);
      expect(
        verifyInclusion(leafIndex, treeSize, tree.leafHashAt(leafIndex), proof.map(bytes), root),
      ).toBe(true);
    }
  });

  it('produces and verifies every consistency proof', () => {
    const tree = vectorTree();
    expect(vectors.consistency.length).toBeGreaterThan(10);
    for (const { size1, size2, proof } of vectors.consistency) {
      expect(tree.consistencyProof(size1, size2).map(hex)).toEqual(proof);
      expect(
        verifyConsistency(size1, size2, tree.root(size1), tree.root(size2), proof.map(bytes)),
      ).toBe(true);
    }
  });
});

describe('tampered proofs are rejected', () => {
  const tree = vectorTree();
  const root = tree.root(8);
  const proof = tree.inclusionProof(5, 8);
  const leaf = tree.leafHashAt(5);

  it('rejects any flipped bit in any proof hash', () => {
    for (let h = 0; h < proof.length; h += 1) {
      for (let bit = 0; bit < 256; bit += 37) {
        const bad = proof.map((p) => new Uint8Array(p));
        bad[h]![bit >> 3]! ^= 1 << (bit & 7);
        expect(verifyInclusion(5, 8, leaf, bad, root)).toBe(false);
      }
    }
  });

  it('rejects a wrong index or size, and a proof one hash short or long', () => {
    expect(verifyInclusion(4, 8, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(5, 7, leaf, proof, tree.root(7))).toBe(false);
    expect(verifyInclusion(5, 6, leaf, proof, tree.root(6))).toBe(false);
    expect(verifyInclusion(5, 8, leaf, proof.slice(0, -1), root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, [...proof, root], root)).toBe(false);
    expect(verifyInclusion(8, 8, leaf, proof, root)).toBe(false);
  });

  it('rejects a tampered consistency proof', () => {
    const c = tree.consistencyProof(3, 7);
    expect(verifyConsistency(3, 7, tree.root(3), tree.root(7), c)).toBe(true);
    expect(verifyConsistency(3, 7, tree.root(4), tree.root(7), c)).toBe(false);
    expect(verifyConsistency(3, 7, tree.root(3), tree.root(7), c.slice(1))).toBe(false);
    expect(verifyConsistency(3, 6, tree.root(3), tree.root(6), c)).toBe(false);
    expect(verifyConsistency(2, 7, tree.root(2), tree.root(7), c)).toBe(false);
  });
});

describe('random trees', () => {
  it('verify every inclusion proof and consistency proofs between any two sizes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (size, seed) => {
          const tree = new MerkleTree();
          for (let i = 0; i < size; i += 1) tree.append(utf8(`${seed}:${i}`));
          const root = tree.root();
          for (let i = 0; i < size; i += Math.max(1, Math.floor(size / 64))) {
            expect(verifyInclusion(i, size, tree.leafHashAt(i), tree.inclusionProof(i), root)).toBe(
              true,
            );
          }
          for (let m = 1; m <= size; m += Math.max(1, Math.floor(size / 16))) {
            expect(verifyConsistency(m, size, tree.root(m), root, tree.consistencyProof(m))).toBe(
              true,
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('agrees with a naive recursive MTH', () => {
    const mth = (leaves: Uint8Array[]): Uint8Array => {
      if (leaves.length === 0) return EMPTY_ROOT;
      if (leaves.length === 1) return leafHash(leaves[0]!);
      let k = 1;
      while (k * 2 < leaves.length) k *= 2;
      return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
    };
    const leaves: Uint8Array[] = [];
    const tree = new MerkleTree();
    for (let n = 1; n <= 70; n += 1) {
      leaves.push(utf8(`leaf ${n}`));
      tree.append(leaves.at(-1)!);
      expect(hex(tree.root())).toBe(hex(mth(leaves)));
    }
  });
});
