import { randomInt } from 'node:crypto';

/** Where a lease id was first granted, for verify's message. */
export interface EarlierGrant {
  seq: number;
  resource: string;
}

/**
 * Finds the grant of `leaseId` among the entries checked before `seq`, by reading them
 * again (the bundle in memory, or the file from its start): asked only when a fingerprint
 * matches, which is a lease id granted twice or, about once in 2^64 pairs, two ids alike.
 */
export type FindGrant = (leaseId: string, seq: number) => EarlierGrant | undefined;

/** Slots at first; the table doubles when it is half full. */
const FIRST_SLOTS = 1 << 10;

/**
 * The lease ids granted so far, for verify's rule that no id is granted twice,
 * as 64-bit fingerprints in typed arrays: 8 to 16 bytes a grant off the
 * JavaScript heap, instead of each id and where it was granted in a Map (about
 * 100 bytes a grant on the heap, where every one is a copy the young
 * generation's collections make and grow for). A match is confirmed by
 * `find`, so the verdict and message are those of an exact set. The hash is
 * seeded per run, so no bundle can be made to match often.
 */
export class GrantedIds {
  private hi = new Uint32Array(FIRST_SLOTS);
  private lo = new Uint32Array(FIRST_SLOTS);
  private count = 0;
  private readonly seedHi = randomInt(2 ** 32 - 1);
  private readonly seedLo = randomInt(2 ** 32 - 1);

  constructor(private readonly find: FindGrant) {}

  /** Where `leaseId` was granted before `seq`, or undefined (and it is recorded as granted now). */
  grant(leaseId: string, seq: number): EarlierGrant | undefined {
    const [hi, lo] = this.fingerprint(leaseId);
    const mask = this.hi.length - 1;
    let slot = lo & mask;
    for (; this.hi[slot] !== 0 || this.lo[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.hi[slot] !== hi || this.lo[slot] !== lo) continue;
      const earlier = this.find(leaseId, seq);
      if (earlier) return earlier;
      // Two ids alike: this one is kept beside it, and matches ask `find` again.
    }
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    this.count += 1;
    if (this.count * 2 > this.hi.length) this.grow();
    return undefined;
  }

  /** Bytes the table holds. */
  get heldBytes(): number {
    return this.hi.byteLength + this.lo.byteLength;
  }

  /** Two 32-bit FNV-1a style hashes of the UTF-16 code units, finished as murmur3's; never 0 and 0. */
  private fingerprint(id: string): [number, number] {
    let a = this.seedHi ^ 0x811c9dc5;
    let b = this.seedLo ^ 0x9747b28c;
    for (let i = 0; i < id.length; i += 1) {
      const c = id.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    const hi = mix(a ^ id.length) >>> 0;
    const lo = mix(b ^ id.length) >>> 0;
    return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
  }

  private grow(): void {
    const { hi, lo } = this;
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(hi.length * 2);
    const mask = this.hi.length - 1;
    for (let i = 0; i < hi.length; i += 1) {
      if (hi[i] === 0 && lo[i] === 0) continue;
      let slot = lo[i]! & mask;
      while (this.hi[slot] !== 0 || this.lo[slot] !== 0) slot = (slot + 1) & mask;
      this.hi[slot] = hi[i]!;
      this.lo[slot] = lo[i]!;
    }
  }
}

/** murmur3's 32-bit finish: every input bit moves every output bit. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
