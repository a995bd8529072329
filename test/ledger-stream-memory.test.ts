import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GrantedIds } from '../src/ledger/granted-ids.js';
import { Ledger, type NewEntry } from '../src/ledger/ledger.js';
import { MerkleTree, leafHash } from '../src/ledger/merkle.js';
import { InclusionVerifier, verifyInclusion } from '../src/ledger/merkle-proof.js';
import { verifyBundleFile } from '../src/ledger/verify-file.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { DIST_CLI, runCli, startKernelProcess } from './support/kernel-process.js';

/**
 * `verify` and `ledger export` in memory that does not grow with the ledger (#59): the
 * remembered proof walk gives verifyInclusion's answers, granted lease ids as fingerprints
 * give the exact set's verdicts, and both commands run a 200,000-entry ledger in a heap
 * far smaller than the ledger (which the earlier verify, keeping every lease id, did not).
 */

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-stream-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const b64 = (hash: Uint8Array) => Buffer.from(hash).toString('base64');

function treeOf(size: number) {
  const tree = new MerkleTree();
  const leaves: Uint8Array[] = [];
  for (let i = 0; i < size; i += 1) {
    const leaf = leafHash(Buffer.from(`leaf ${i}`));
    leaves.push(leaf);
    tree.appendHash(leaf);
  }
  return { tree, leaves, root: tree.root() };
}

describe('InclusionVerifier', () => {
  it.each([1, 2, 3, 5, 8, 13, 100, 257])(
    'gives verifyInclusion answers for every leaf of a tree of %i, in order and not',
    (size) => {
      const { tree, leaves, root } = treeOf(size);
      const check = new InclusionVerifier(size, root);
      const order = [...leaves.keys(), ...[...leaves.keys()].reverse(), 0, size - 1];
      for (const i of order) {
        const proof = tree.inclusionProof(i);
        expect(verifyInclusion(i, size, leaves[i]!, proof, root)).toBe(true);
        expect(check.verify(i, b64(leaves[i]!), proof.map(b64)), `leaf ${i}`).toBe(true);
      }
    },
  );

  it('refuses what verifyInclusion refuses, also right after a leaf it accepted', () => {
    const size = 100;
    const { tree, leaves, root } = treeOf(size);
    const check = new InclusionVerifier(size, root);
    for (let i = 0; i < size; i += 1) {
      const proof = tree.inclusionProof(i);
      const good = proof.map(b64);
      // Each hash of the proof changed in turn, the leaf changed, the index moved, one hash more.
      for (let k = 0; k < proof.length; k += 1) {
        const bad = proof.map((h) => new Uint8Array(h));
        const changed = bad[k]!;
        changed[0] = changed[0]! ^ 1;
        expect(verifyInclusion(i, size, leaves[i]!, bad, root)).toBe(false);
        expect(check.verify(i, b64(leaves[i]!), bad.map(b64))).toBe(false);
      }
      expect(check.verify(i, b64(leaves[(i + 1) % size]!), good)).toBe(false);
      if (i + 1 < size) expect(check.verify(i + 1, b64(leaves[i]!), good)).toBe(false);
      expect(check.verify(i, b64(leaves[i]!), [...good, good[0]!])).toBe(false);
      expect(check.verify(size, b64(leaves[i]!), good)).toBe(false);
      expect(check.verify(i, b64(leaves[i]!), good)).toBe(true);
    }
  });

  it("says 'length' for a proof hash that is not 32 bytes, before anything else", () => {
    const { tree, leaves, root } = treeOf(9);
    const check = new InclusionVerifier(9, root);
    const proof = tree.inclusionProof(4).map(b64);
    expect(check.verify(4, b64(leaves[4]!), proof)).toBe(true);
    const short = [...proof];
    short[proof.length - 1] = Buffer.alloc(31).toString('base64');
    expect(check.verify(4, b64(leaves[4]!), short)).toBe('length');
    const long = [...proof];
    long[0] = Buffer.alloc(33).toString('base64');
    expect(check.verify(99, b64(leaves[4]!), long)).toBe('length');
  });
});

describe('GrantedIds', () => {
  it('finds a lease id granted again, and asks find only then', () => {
    const asked: string[] = [];
    const ids = new GrantedIds((id, seq) => {
      asked.push(`${id}@${seq}`);
      return { seq: Number(id.slice(6)), resource: `r/${id}` };
    });
    for (let i = 0; i < 50_000; i += 1) expect(ids.grant(`lease_${i}`, i)).toBeUndefined();
    expect(asked).toEqual([]);
    expect(ids.grant('lease_123', 50_000)).toEqual({ seq: 123, resource: 'r/lease_123' });
    expect(asked).toEqual(['lease_123@50000']);
    // 50,000 ids in 2^17 slots of 8 bytes: about 21 bytes an id, off the heap.
    expect(ids.heldBytes).toBe(2 ** 17 * 8);
  });

  it('keeps an id whose fingerprint matched but which find did not confirm', () => {
    let confirm = false;
    const ids = new GrantedIds(() => (confirm ? { seq: 0, resource: 'r' } : undefined));
    expect(ids.grant('a', 0)).toBeUndefined();
    expect(ids.grant('a', 1)).toBeUndefined();
    confirm = true;
    expect(ids.grant('a', 2)).toEqual({ seq: 0, resource: 'r' });
  });
});

describe('verify, streamed, a lease id granted twice', () => {
  it('names the earlier grant, read back from the file, as the whole bundle does', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const ledger = new Ledger(privateKey);
    const events: NewEntry[] = [];
    for (let n = 0; n < 300; n += 1) {
      const common = { resource: `lock:twice/${n}`, actorDid: 'did:web:a', fence: n + 1 };
      const leaseId = n === 250 ? 'lease_7' : `lease_${n}`;
      events.push({ ...common, leaseId, kind: 'grant', atMs: 1_000 + 10 * n, expiresAtMs: 9e12 });
      events.push({ ...common, leaseId, kind: 'release', atMs: 1_001 + 10 * n });
    }
    const prepared = ledger.prepare(events);
    ledger.accept(prepared.entries, prepared.lines);
    const bundle = ledger.bundle();
    const file = join(dir, 'twice.json');
    writeFileSync(file, JSON.stringify(bundle));
    const said =
      /entry 500 \(grant of lease_7 on lock:twice\/250\): lease id lease_7 was already granted at entry 14 \(grant on lock:twice\/7\)/;
    expect(() => verifyBundle(bundle, publicKey)).toThrow(said);
    expect(() => verifyBundleFile(file, publicKey, {}, 0)).toThrow(said);
  });
});

/** A valid history of `entries` grants and releases, each lease on a resource of its own. */
function ledgerText(entries: number, ledger: Ledger): string {
  let text = '';
  for (let i = 0; i < entries / 2; i += 1_000) {
    const events: NewEntry[] = [];
    for (let j = i; j < Math.min(entries / 2, i + 1_000); j += 1) {
      const common = {
        resource: `lock:fill/${j}`,
        actorDid: `did:web:fill${j % 64}`,
        leaseId: `lease_fill_${j}`,
        fence: j + 1,
      };
      events.push({ ...common, kind: 'grant', atMs: 1_000 + 2 * j, expiresAtMs: 9e12 });
      events.push({ ...common, kind: 'release', atMs: 1_001 + 2 * j });
    }
    const prepared = ledger.prepare(events);
    ledger.accept(prepared.entries, prepared.lines);
    text += prepared.text;
  }
  return text;
}

describe('export and verify of a large ledger in a small heap', () => {
  it('export and verify 200,000 entries with the old generation capped at 12 MB', async () => {
    const entries = 200_000;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyFile = join(dir, 'big.key');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const pub = join(dir, 'big.pub');
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
    const logFile = join(dir, 'big.ledger.jsonl');
    writeFileSync(logFile, '');
    appendFileSync(logFile, ledgerText(entries, new Ledger(privateKey)));
    // A copy of DIST_CLI: the committed CLI with the longer start bound, for a kernel that
    // reads 200,000 entries before it listens.
    const kernel = await startKernelProcess(
      ['--quiet', '--ledger', logFile, '--signing-key', keyFile],
      {},
      [...DIST_CLI],
    );
    // About 210 MB of bundle: the earlier verify, holding every lease id, ran out of this heap.
    const small = ['--max-old-space-size=12', ...DIST_CLI];
    const bundle = join(dir, 'big.json');
    let exported;
    try {
      exported = await runCli(
        ['ledger', 'export', '--url', kernel.url, '--out', bundle],
        {},
        small,
      );
    } finally {
      await kernel.stop();
    }
    expect(exported.code, exported.stderr.slice(-500)).toBe(0);
    const verified = await runCli(['verify', bundle, '--public-key', pub], {}, small);
    expect(verified.code, verified.stderr.slice(-500)).toBe(0);
    expect(verified.stdout).toContain(`size ${entries}`);
    expect(verified.stdout).toContain(`${entries} entries verified`);
  }, 300_000);
});
