import { generateKeyPairSync } from 'node:crypto';
import { verifyCheckpoint } from '../src/ledger/checkpoint.js';
import { leafBytes } from '../src/ledger/entry.js';
import { Ledger } from '../src/ledger/ledger.js';
import { MerkleTree, leafHash } from '../src/ledger/merkle.js';
import { verifyInclusion } from '../src/ledger/merkle-proof.js';

const seconds = (since: number) => (performance.now() - since) / 1000;

/** Appends, signing, and verifying on a tree of `size` entries. */
export function ledgerBench(size: number) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const ledger = new Ledger(privateKey);
  const entries = [];
  let t = performance.now();
  for (let i = 0; i < size; i += 1) {
    entries[i] = ledger.append({
      atMs: i,
      kind: i % 2 ? 'release' : 'grant',
      resource: 'lock:deploy/production',
      actorDid: `did:web:bench:a${i % 8}`,
      leaseId: `lease_${i >> 1}`,
      fence: (i >> 1) + 1,
    });
  }
  const appendsPerSecond = size / seconds(t);

  const signs = 2_000;
  t = performance.now();
  for (let i = 0; i < signs; i += 1) {
    entries[size + i] = ledger.append({
      atMs: size + i,
      kind: 'grant',
      resource: 'r',
      actorDid: 'did:web:bench:s',
      leaseId: `s${i}`,
      fence: i,
    });
    ledger.checkpoint();
  }
  const checkpointsPerSecond = signs / seconds(t);

  const text = ledger.checkpoint();
  t = performance.now();
  const checkpoint = verifyCheckpoint(text, publicKey);
  const verifyCheckpointMs = seconds(t) * 1000;

  const bundle = ledger.bundle(0, 1);
  const tree = new MerkleTree();
  // Rebuild the same tree outside the ledger to time proofs alone.
  for (let i = 0; i < ledger.size; i += 1)
    tree.appendHash(leafHash(leafBytes(ledger.bundle(i, i + 1).entries[0]!.entry)));
  const proofs = 1_000;
  const indexes = Array.from({ length: proofs }, (_, i) => Math.floor((i * ledger.size) / proofs));
  const made = indexes.map((i) => tree.inclusionProof(i));
  t = performance.now();
  let ok = 0;
  indexes.forEach((index, i) => {
    if (verifyInclusion(index, checkpoint.size, tree.leafHashAt(index), made[i]!, checkpoint.root))
      ok += 1;
  });
  const verify1000ProofsMs = seconds(t) * 1000;
  if (ok !== proofs || bundle.entries.length !== 1) throw new Error('ledger bench: a proof failed');
  return {
    entries: ledger.size,
    appendsPerSecond,
    checkpointsPerSecond,
    verifyCheckpointMs,
    verify1000ProofsMs,
  };
}
