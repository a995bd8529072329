import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../src/ledger/ledger.js';
import { MerkleTree, leafHash } from '../src/ledger/merkle.js';
import { verifyInclusion as nodeVerifyInclusion } from '../src/ledger/merkle-proof.js';
import { canonicalJson } from '../src/plane/canonical-json.js';
import { fromBase64, verifyInclusion, verifyLedger } from '../src/console/page/verify.js';

// The page's WebCrypto copy of the ledger checks, held to the node:crypto originals.

function ledgerWith(count: number) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const ledger = new Ledger(privateKey);
  for (let i = 0; i < count; i += 1) {
    ledger.append({
      atMs: 1_700_000_000_000 + i * 1000,
      kind: i % 2 ? 'release' : 'grant',
      resource: 'lock:deploy/production',
      actorDid: `did:web:acme.example:agent:${i >> 1}`,
      leaseId: `lease_${i >> 1}`,
      fence: (i >> 1) + 1,
      ...(i === 3 ? { reason: 'a "quoted" reason <b>' } : {}),
    });
  }
  const pem = String(ledger.publicKey!.export({ type: 'spki', format: 'pem' }));
  return { ledger, pem };
}

describe('the page verifies the ledger as lease-gate verify does', () => {
  it('verifies a signed checkpoint and every entry of a bundle', async () => {
    const { ledger, pem } = ledgerWith(13);
    const { checkpoint, entries } = ledger.bundle();
    const verdict = await verifyLedger(checkpoint, pem, entries);
    expect(verdict).toEqual({ verified: true, origin: ledger.origin, size: 13, entries: 13 });
  });

  it('refuses an entry altered after signing, naming it', async () => {
    const { ledger, pem } = ledgerWith(5);
    const { checkpoint, entries } = ledger.bundle();
    const altered = entries.map((e) =>
      e.index === 2 ? { ...e, entry: { ...e.entry, fence: 9 } } : e,
    );
    expect(await verifyLedger(checkpoint, pem, altered)).toEqual({
      verified: false,
      origin: ledger.origin,
      reason: 'entry 2 is not in the signed tree',
    });
  });

  it('refuses a checkpoint signed by another key, and an altered signature', async () => {
    const { ledger } = ledgerWith(3);
    const other = ledgerWith(1).pem;
    const { checkpoint, entries } = ledger.bundle();
    expect((await verifyLedger(checkpoint, other, entries)).verified).toBe(false);
    const { pem } = { pem: String(ledger.publicKey!.export({ type: 'spki', format: 'pem' })) };
    const flipped = checkpoint.replace(
      / (\S)(\S+)\n$/,
      (_m, c: string, rest: string) => ` ${c === 'A' ? 'B' : 'A'}${rest}\n`,
    );
    expect(await verifyLedger(flipped, pem, entries)).toMatchObject({ verified: false });
    const resized = checkpoint.replace(/\n3\n/, '\n4\n');
    expect(await verifyLedger(resized, pem, entries)).toEqual({
      verified: false,
      origin: ledger.origin,
      reason: 'the signature does not verify with the public key',
    });
  });

  it('agrees with the node:crypto inclusion check for every leaf of trees up to 33', async () => {
    for (let size = 1; size <= 33; size += 1) {
      const tree = new MerkleTree();
      for (let i = 0; i < size; i += 1) tree.append(Uint8Array.of(i));
      for (let index = 0; index < size; index += 1) {
        const proof = tree.inclusionProof(index);
        const leaf = leafHash(Uint8Array.of(index));
        const expected = nodeVerifyInclusion(index, size, leaf, proof, tree.root());
        expect(await verifyInclusion(index, size, leaf, proof, tree.root())).toBe(expected);
        expect(expected).toBe(true);
        if (proof.length > 0) {
          const wrong = proof.map((p, i) => (i === 0 ? Uint8Array.from(p, (b) => b ^ 1) : p));
          expect(await verifyInclusion(index, size, leaf, wrong, tree.root())).toBe(false);
        }
      }
    }
  });

  it('writes canonical JSON (one function for the ledger and the page), reads only canonical base64', () => {
    const value = { b: [1, { d: 'x', c: null }], a: 'é"<', u: undefined };
    expect(canonicalJson(value)).toBe('{"a":"é\\"<","b":[1,{"c":null,"d":"x"}]}');
    expect(fromBase64('AAEC')).toEqual(Uint8Array.of(0, 1, 2));
    expect(fromBase64('AAE=')).toEqual(Uint8Array.of(0, 1));
    expect(fromBase64('AAF=')).toBeUndefined();
    expect(fromBase64('not base64!')).toBeUndefined();
  });
});
