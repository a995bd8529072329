/**
 * The ledger's checks in the page, with WebCrypto only: the C2SP signed note
 * (Ed25519), the origin bound to the key, and each entry's RFC 9162 inclusion
 * proof. A small copy of src/ledger/ (checkpoint.ts, merkle.ts, entry.ts),
 * because those use node:crypto; test/console-verify.test.ts holds the two
 * to the same answers.
 */

import { canonicalJson } from '../../plane/canonical-json.js';

export interface ProvedEntry {
  index: number;
  /** The entry exactly as served: its canonical JSON is the Merkle leaf. */
  entry: unknown;
  inclusionProof: string[];
}

export type Verdict =
  | { verified: true; origin: string; size: number; entries: number }
  | { verified: false; origin: string; reason: string };

const encoder = new TextEncoder();
type Bytes = Uint8Array<ArrayBuffer>;

async function sha256(...parts: Uint8Array[]): Promise<Bytes> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', all));
}

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Strict base64: undefined unless the text is the canonical encoding of its bytes. */
export function fromBase64(text: string): Bytes | undefined {
  try {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return btoa(String.fromCharCode(...bytes)) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 9162 §2.1.3.2, hashing with WebCrypto. */
export async function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  if (!(Number.isInteger(index) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(Uint8Array.of(1), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await sha256(Uint8Array.of(1), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && hex(r) === hex(root);
}

/** The 32 raw key bytes from a PEM SPKI Ed25519 public key. */
function rawKeyFromPem(pem: string): Bytes | undefined {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  const der = fromBase64(body);
  return der && der.length === 44 ? der.subarray(12) : undefined;
}

/**
 * Checks the checkpoint's signature with `publicKeyPem`, that its origin is
 * the one bound to that key, and every entry's inclusion proof against it.
 */
export async function verifyLedger(
  checkpoint: string,
  publicKeyPem: string,
  entries: readonly ProvedEntry[],
): Promise<Verdict> {
  const split = checkpoint.indexOf('\n\n');
  const body = split < 0 ? checkpoint : checkpoint.slice(0, split + 1);
  const [origin = '', sizeText = '', rootText = ''] = body.split('\n');
  const refuse = (reason: string): Verdict => ({ verified: false, origin, reason });
  if (split < 0) return refuse('the checkpoint has no signature block');
  if (!/^(0|[1-9]\d{0,15})$/.test(sizeText)) return refuse('the tree size is not a number');
  const size = Number(sizeText);
  const root = fromBase64(rootText);
  if (root?.length !== 32) return refuse('the root is not a base64 SHA-256 hash');
  const raw = rawKeyFromPem(publicKeyPem);
  if (!raw) return refuse('the public key is not an Ed25519 key');
  const expected = `lease-gate.kernel/${hex(await sha256(raw)).slice(0, 16)}`;
  if (origin !== expected) return refuse(`the origin is not this key's log (${expected})`);
  const id = (await sha256(encoder.encode(origin), Uint8Array.of(0x0a, 0x01), raw)).subarray(0, 4);
  const key = await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
  const lines = checkpoint
    .slice(split + 2)
    .split('\n')
    .filter(Boolean);
  let signed = false;
  for (const line of lines) {
    const [dash, name, blob = ''] = line.split(' ');
    const bytes = fromBase64(blob);
    if (dash !== '—' || name !== origin || bytes?.length !== 68) continue;
    if (hex(bytes.subarray(0, 4)) !== hex(id)) continue;
    const signature = bytes.subarray(4);
    signed = await crypto.subtle.verify('Ed25519', key, signature, encoder.encode(body));
    if (signed) break;
  }
  if (!signed) return refuse('the signature does not verify with the public key');
  const checks = entries.map(async ({ index, entry, inclusionProof }) => {
    const proof = inclusionProof.map(fromBase64);
    if (proof.some((p) => p?.length !== 32)) return false;
    const leaf = await sha256(Uint8Array.of(0), encoder.encode(canonicalJson(entry)));
    return verifyInclusion(index, size, leaf, proof as Uint8Array[], root);
  });
  const results = await Promise.all(checks);
  const bad = results.indexOf(false);
  if (bad >= 0) return refuse(`entry ${entries[bad]?.index} is not in the signed tree`);
  return { verified: true, origin, size, entries: entries.length };
}
