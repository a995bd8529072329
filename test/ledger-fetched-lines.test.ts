import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { entryJson } from '../src/ledger/entry.js';
import { FETCH_CHUNK, FetchedLines, LinesNotLoadedError } from '../src/ledger/fetched-lines.js';
import { Ledger } from '../src/ledger/ledger.js';
import { verifyBundle } from '../src/ledger/verify.js';

/**
 * A ledger whose lines are read back asynchronously (the PostgreSQL store's
 * FetchedLines): it answers exactly as a ledger that keeps every line, and
 * keeps a bounded part of its history in memory.
 */

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const SIZE = 20_000;

/** The same history in a ledger that keeps its lines and one that reads them back from `table`. */
function twins() {
  const memory = new Ledger(privateKey);
  const table: string[] = [];
  const fetches: Array<[number, number]> = [];
  const fetched = new Ledger(privateKey);
  fetched.readFrom(
    new FetchedLines(async (lo, hi) => {
      fetches.push([lo, hi]);
      return table.slice(lo, hi);
    }),
  );
  for (let i = 0; i < SIZE; i += 1) {
    const n = i >> 1;
    const [entry] = memory.prepare([
      {
        atMs: 1_000 + i,
        kind: i % 2 === 0 ? 'grant' : 'release',
        resource: `lock:r/${n % 7}`,
        actorDid: `did:web:agent${n % 5}`,
        leaseId: `lease_${n}`,
        fence: n + 1,
      },
    ]).entries;
    memory.accept([entry!]);
    table.push(entryJson(entry!));
    fetched.load(table[i]!, `line ${i}`);
  }
  return { memory, fetched, fetches, table };
}

describe('a ledger whose lines are fetched', () => {
  const { memory, fetched, fetches } = twins();

  it('answers pages, proofs and checkpoints as the ledger that keeps its lines', async () => {
    expect(fetched.size).toBe(SIZE);
    const checkpoint = await fetched.read(SIZE, SIZE, SIZE, () => fetched.checkpoint());
    expect(checkpoint).toBe(memory.checkpoint());
    // Ranges that start and end inside chunks, against older sizes that cut a chunk.
    for (const [from, to, size] of [
      [0, 3, SIZE],
      [255, 770, SIZE],
      [12_345, 12_600, 13_001],
      [SIZE - 300, SIZE, SIZE],
      [100, 101, 257],
    ] as const) {
      const page = await fetched.read(from, to, size, () => fetched.pageJson(from, to, size));
      expect(page).toEqual(memory.pageJson(from, to, size));
      const older = await fetched.read(from, from, size, () => fetched.checkpoint(size));
      expect(older).toBe(memory.checkpoint(size));
    }
    const part = await fetched.read(4_000, 4_250, SIZE, () => fetched.bundle(4_000, 4_250));
    expect(verifyBundle(part, publicKey, { allowPartial: true }).size).toBe(SIZE);
    expect(await fetched.read(777, 778, SIZE, () => fetched.entry(777))).toEqual(memory.entry(777));
  });

  it('keeps at most 64 chunks of lines, never the history, and fetches whole chunks', async () => {
    for (let from = 0; from < SIZE; from += 250) {
      const to = Math.min(SIZE, from + 250);
      await fetched.read(from, to, SIZE, () => fetched.pageJson(from, to, SIZE));
    }
    const lineBytes = Buffer.byteLength(entryJson(memory.entry(SIZE - 1)!));
    expect(fetched.heldBytes).toBeLessThan(memory.heldBytes / 2);
    expect(fetched.heldBytes).toBeLessThan(64 * FETCH_CHUNK * (lineBytes + 16) + 200_000);
    for (const [lo, hi] of fetches) {
      expect(lo % FETCH_CHUNK).toBe(0);
      expect(hi % FETCH_CHUNK === 0 || hi === SIZE).toBe(true);
    }
  });

  it('refuses a line that changed where it is kept after it was hashed, in any chunk', async () => {
    const { fetched: spoiled, table } = twins();
    // One in a complete chunk (recomputed against its root), one in the last, open chunk.
    for (const index of [777, SIZE - 5]) {
      table[index] = table[index]!.replace('did:web:agent', 'did:web:agenT');
      await expect(
        spoiled.read(index, index + 1, SIZE, () => spoiled.pageJson(index, index + 1, SIZE)),
      ).rejects.toThrow(index === 777 ? 'do not hash' : `ledger line ${index} read back is not`);
    }
  });

  it('refuses a read of a line no load asked for, by name', () => {
    const lines = new FetchedLines(async () => []);
    lines.push('{}');
    expect(() => lines.at(0)).toThrow(LinesNotLoadedError);
    expect(() => lines.at(0)).toThrow('ledger line 0 is not loaded');
  });

  it('fails a fetch that comes back short rather than serve a gap', async () => {
    const lines = new FetchedLines(async (lo, hi) => ['{}'].slice(0, Math.max(0, hi - lo - 1)));
    lines.push('{}');
    lines.push('{}');
    await expect(lines.load(0, 2)).rejects.toThrow('ledger lines 0..2 could not be read back');
  });

  it('loads again when another read pushed its lines out meanwhile', async () => {
    let pushOut = true;
    const lines = new FetchedLines(async (lo, hi) => {
      const out = Array.from({ length: hi - lo }, (_, i) => `line ${lo + i}`);
      return out;
    });
    const ledger = new Ledger();
    ledger.readFrom(lines);
    for (let i = 0; i < 3; i += 1) lines.push(`line ${i}`);
    let uses = 0;
    const read = await ledger.read(0, 3, 3, () => {
      uses += 1;
      if (pushOut) {
        pushOut = false;
        throw new LinesNotLoadedError('pushed out');
      }
      return lines.at(2);
    });
    expect(read).toBe('line 2');
    expect(uses).toBe(2);
  });
});
