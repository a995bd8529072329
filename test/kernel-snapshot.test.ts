import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer } from '../src/kernel/http/server.js';
import { KernelService } from '../src/kernel/service/service.js';
import { fileStore } from '../src/kernel/store/store.js';
import { FileLines } from '../src/ledger/file-lines.js';
import { Ledger } from '../src/ledger/ledger.js';
import { MerkleTree } from '../src/ledger/merkle.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { A, B } from './support/names.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const TTL = 10_000;
const fresh = () => join(mkdtempSync(join(tmpdir(), 'lease-gate-snapshot-')), 'k.ledger.jsonl');

function open(log: string, clock: { now: number }) {
  return KernelService.open({
    table: new ResourceTable({ ttlMs: TTL }),
    store: fileStore(log),
    ledger: new Ledger(privateKey),
    now: () => clock.now,
  });
}

/** Grants, renewals, releases, a revoke and held leases: several runs of the ledger's index. */
async function busy(service: KernelService, clock: { now: number }, rounds: number) {
  for (let i = 0; i < rounds; i += 1) {
    clock.now += 7;
    await service.lease(`r${i % 37}`, A);
    await service.lease(`r${i % 37}`, A);
    if (i % 3 !== 0) await service.release(`r${i % 37}`, A);
    if (i % 50 === 7) await service.revoke(`r${i % 37}`, `incident ${i}`);
  }
  await service.lease('held', B);
}

/** A new lease's answer but for its id, which is random. */
const withoutId = (reply: unknown) =>
  JSON.parse(JSON.stringify(reply).replace(/"id":"[^"]*"/g, '"id":"…"')) as unknown;

/** Everything a restarted kernel answers, to compare two starts. */
async function answers(service: KernelService) {
  const statuses = [];
  for (let i = 0; i < 37; i += 1) statuses.push(await service.status(`r${i}`));
  statuses.push(await service.status('held'));
  const { ledger } = service;
  return {
    statuses,
    size: ledger.size,
    checkpoint: ledger.checkpoint(),
    older: ledger.checkpoint(Math.floor(ledger.size / 3)),
    bundle: JSON.stringify(ledger.bundle()),
    next: withoutId(await service.lease('next', B)),
    nextA: withoutId(await service.lease('r5', A)),
  };
}

/** A log and a copy of it without the snapshot: what a start makes of each. */
async function startBoth(log: string, clock: { now: number }) {
  const bare = join(mkdtempSync(join(tmpdir(), 'lease-gate-snapshot-')), 'k.ledger.jsonl');
  copyFileSync(log, bare);
  const withSnapshot = await open(log, clock);
  const got = await answers(withSnapshot.service);
  await withSnapshot.service.close();
  const without = await open(bare, clock);
  const expected = await answers(without.service);
  await without.service.close();
  return { got, expected, warning: withSnapshot.warning };
}

describe('a file kernel restarts from a snapshot the log confirms', () => {
  it('a clean close leaves one; the start it saves answers as a whole replay does', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const first = (await open(log, clock)).service;
    await busy(first, clock, 300);
    await first.close();
    expect(existsSync(`${log}.snapshot.json`)).toBe(true);
    clock.now += 3_000;
    const { got, expected, warning } = await startBoth(log, clock);
    expect(warning).toBeUndefined();
    expect(got).toEqual(expected);
    expect(got.size).toBeGreaterThan(700);
    expect(verifyBundle(JSON.parse(got.bundle), publicKey).size).toBe(got.size);
  });

  it('an older snapshot still stands: only the log after it is replayed', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const first = (await open(log, clock)).service;
    await busy(first, clock, 120);
    await first.close();
    const older = readFileSync(`${log}.snapshot.json`);
    const second = (await open(log, clock)).service;
    await busy(second, clock, 150);
    await second.close();
    writeFileSync(`${log}.snapshot.json`, older);
    const { got, expected, warning } = await startBoth(log, clock);
    expect(warning).toBeUndefined();
    expect(got).toEqual(expected);
  });

  it.each([
    ['damaged', (snapshot: Buffer) => snapshot.fill(0x31, 200, 203), /damaged/],
    ['cut short', (snapshot: Buffer) => snapshot.subarray(0, snapshot.length / 2), /damaged/],
    ['not JSON', () => Buffer.from('{"sha256":"x"}\nnope'), /damaged/],
  ])('a %s snapshot is ignored with a note, and the start is the same', async (_, spoil, note) => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const first = (await open(log, clock)).service;
    await busy(first, clock, 100);
    await first.close();
    const path = `${log}.snapshot.json`;
    writeFileSync(path, spoil(readFileSync(path)));
    const { got, expected, warning } = await startBoth(log, clock);
    expect(warning).toMatch(note);
    expect(warning).toMatch(/snapshot\.json was ignored: .*; the whole log was read$/);
    expect(got).toEqual(expected);
  });

  it('a snapshot taken with another lease lifetime is ignored: the replay depends on it', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const first = await KernelService.open({
      table: new ResourceTable({ ttlMs: TTL * 2 }),
      store: fileStore(log),
      ledger: new Ledger(privateKey),
      now: () => clock.now,
    });
    await busy(first.service, clock, 60);
    await first.service.close();
    const { got, expected, warning } = await startBoth(log, clock);
    expect(warning).toMatch(/another lease lifetime or lock-delay/);
    expect(got).toEqual(expected);
  });

  it("another log's snapshot, or one ahead of a log cut back, refuses the start", async () => {
    const clock = { now: 1_000_000 };
    const log = fresh();
    const other = fresh();
    for (const [file, rounds] of [
      [log, 90],
      [other, 91],
    ] as const) {
      const service = (await open(file, clock)).service;
      await busy(service, clock, rounds);
      await service.close();
    }
    copyFileSync(`${other}.snapshot.json`, `${log}.snapshot.json`);
    await expect(open(log, clock)).rejects.toThrow(
      /^Refusing to start: .*snapshot\.json was taken of \d+ entries of .*, and the log no longer holds them: it was cut short or rewritten since\..* move .*snapshot\.json aside/,
    );

    // The log loses its last lines (restored from an older copy): the snapshot is ahead of it.
    const service = (await open(other, clock)).service;
    await service.close();
    const lines = readFileSync(other, 'utf8').split('\n');
    truncateSync(other, Buffer.byteLength(lines.slice(0, 100).join('\n') + '\n'));
    // Refused by the record of the log its first start wrote, or by the snapshot without one.
    await expect(open(other, clock)).rejects.toThrow(/^Refusing to start: .*entries were removed/);
    rmSync(`${other}.signed.json`);
    await expect(open(other, clock)).rejects.toThrow(/no longer holds them/);
    // Kept on purpose: with the snapshot moved aside too, the log as it is starts, read whole.
    rmSync(`${other}.snapshot.json`);
    const kept = await startBoth(other, clock);
    expect(kept.got).toEqual(kept.expected);
    expect(kept.got.size).toBeGreaterThanOrEqual(100);
  });

  it('never shortens a lease: a snapshot start renews what the log leaves open, as a replay does', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const first = (await open(log, clock)).service;
    const granted = await first.lease('held', B);
    await first.close();
    clock.now += 4_000;
    const { service } = await open(log, clock);
    const status = await service.status('held');
    expect(status).toMatchObject({ holder: B, fence: granted.ok ? granted.lease.fence : -1 });
    expect(status!.expiresAtMs).toBeGreaterThanOrEqual(clock.now + TTL - 4_000 - 7);
    await service.close();
  });

  it('the export route of a restarted file kernel verifies, page after page', async () => {
    const log = fresh();
    const first = await startKernelServer({
      store: fileStore(log),
      ledger: new Ledger(privateKey),
    });
    const clock = { now: Date.now() };
    await busy(first.service as KernelService, clock, 200);
    await first.close();
    const again = await startKernelServer({
      store: fileStore(log),
      ledger: new Ledger(privateKey),
    });
    try {
      const { bundle } = await fetchLedger(again.url);
      const verified = verifyBundle(bundle, publicKey);
      expect(verified.count).toBe(verified.size);
      expect(verified.size).toBeGreaterThan(500);
    } finally {
      await again.close();
    }
  });
});

describe('a kernel killed while it loads', () => {
  it('never loses an acknowledged change, with its snapshot or without', async () => {
    const log = fresh();
    const first = await KernelService.open({
      table: new ResourceTable(),
      store: fileStore(log),
      ledger: new Ledger(privateKey),
      now: () => Date.now(),
    });
    const granted: number[] = [];
    for (let i = 0; i < 3_000; i += 1) {
      const reply = await first.service.lease(`r${i}`, A);
      if (reply.ok) granted.push(reply.lease.fence);
    }
    await first.service.close();
    expect(granted).toHaveLength(3_000);
    // Killed at several points of its start: loading the snapshot, replaying, renewing.
    for (const [attempt, delayMs] of [0, 30, 80, 150, 300, 0].entries()) {
      if (attempt === 5) writeFileSync(`${log}.snapshot.json`, 'gone');
      // The built CLI, as an operator runs it; killed -9 whether or not it is listening yet.
      const child = spawn(
        process.execPath,
        ['dist/cli/index.js', 'kernel', '--port', '0', '--ledger', log, '--quiet'],
        {
          stdio: 'ignore',
        },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      child.kill('SIGKILL');
      await exited;
    }
    const again = await KernelService.open({
      table: new ResourceTable(),
      store: fileStore(log),
      ledger: new Ledger(privateKey),
      now: () => Date.now(),
    });
    for (let i = 0; i < 3_000; i += 1)
      expect(await again.service.status(`r${i}`)).toMatchObject({ holder: A, fence: granted[i] });
    expect(verifyBundle(again.service.ledger.bundle(), publicKey).size).toBeGreaterThanOrEqual(
      3_000,
    );
    await again.service.close();
  });
});

describe('a file ledger keeps its index, not its lines', () => {
  it('holds a few bytes per run of entries, and reads every line and proof back', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const { service } = await open(log, clock);
    for (let i = 0; i < 3_000; i += 1) await service.lease(`r${i}`, A);
    const lineBytes = readFileSync(log).length;
    // The index and the tree's chunk roots: bounded by a few bytes per entry, not the lines' hundreds.
    expect(service.ledger.heldBytes).toBeLessThan(lineBytes / 4);
    const memory = new Ledger(privateKey);
    for (const line of readFileSync(log, 'utf8').trim().split('\n')) memory.load(line, 'line');
    expect(service.ledger.checkpoint()).toBe(memory.checkpoint());
    expect(service.ledger.pageJson(0, 2_999, 2_999)).toEqual(memory.pageJson(0, 2_999, 2_999));
    expect(service.ledger.entry(1_234)).toEqual(memory.entry(1_234));
    await service.close();
  });

  it('FileLines reads back what was pushed, across runs', () => {
    const log = fresh();
    const lines = Array.from({ length: 700 }, (_, i) => `{"n":${i},"pad":"${'é'.repeat(i % 9)}"}`);
    writeFileSync(log, lines.join('\n') + '\n');
    const source = new FileLines(log);
    for (const line of lines) source.push(line);
    expect(source.at(0)).toBe(lines[0]);
    expect(source.at(699)).toBe(lines[699]);
    expect(source.bytes(250, 520).map((b) => Buffer.from(b).toString())).toEqual(
      lines.slice(250, 520),
    );
    const restored = new FileLines(log);
    restored.restore(700, source.runStarts(), source.end);
    expect(restored.at(513)).toBe(lines[513]);
    source.close();
    restored.close();
  });

  it('a bounded tree gives the same roots and proofs as a whole one, and restores from its chunk roots', () => {
    const data = Array.from({ length: 600 }, (_, i) => Buffer.from(`leaf ${i}`));
    const whole = new MerkleTree();
    const bounded = new MerkleTree({ leaves: (lo, hi) => data.slice(lo, hi), chunkBits: 4 });
    const hex = (hashes: Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString('hex'));
    for (const [n, leaf] of data.entries()) {
      whole.append(leaf);
      bounded.append(leaf);
      const size = n + 1;
      for (const m of [1, Math.floor(size / 3), size - 1]) {
        expect(hex([bounded.root(m)])).toEqual(hex([whole.root(m)]));
        expect(hex(bounded.consistencyProof(m, size))).toEqual(
          hex(whole.consistencyProof(m, size)),
        );
        if (m < size)
          expect(hex(bounded.inclusionProof(m, size))).toEqual(hex(whole.inclusionProof(m, size)));
      }
    }
    const restored = new MerkleTree({ leaves: (lo, hi) => data.slice(lo, hi), chunkBits: 4 });
    restored.restoreChunks(bounded.chunkRoots());
    for (const leaf of data.slice(restored.size)) restored.append(leaf);
    expect(hex(restored.inclusionProofs(100, 400).flat())).toEqual(
      hex(whole.inclusionProofs(100, 400).flat()),
    );
    expect(bounded.heldBytes).toBeLessThan(whole.heldBytes);
  });
});

describe('a snapshot of many resources', () => {
  it('is written a slice at a time and reads back to the same kernel as a whole replay', async () => {
    const log = fresh();
    const clock = { now: 1_000_000 };
    const first = (await open(log, clock)).service;
    // More resources than one slice of the snapshot's states (1,000), each held.
    for (let i = 0; i < 2_500; i += 1) await first.lease(`many/${i}`, A);
    await first.close();
    const text = readFileSync(`${log}.snapshot.json`, 'utf8');
    const newline = text.indexOf('\n');
    const body = text.slice(newline + 1, -1);
    expect(JSON.parse(text.slice(0, newline))).toEqual({
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    const parsed = JSON.parse(body) as { size: number; state: { states: unknown[] } };
    expect(parsed.size).toBe(2_500);
    expect(parsed.state.states).toHaveLength(2_500);

    const bare = join(mkdtempSync(join(tmpdir(), 'lease-gate-snapshot-')), 'k.ledger.jsonl');
    copyFileSync(log, bare);
    const fromSnapshot = await open(log, clock);
    const replayed = await open(bare, clock);
    expect(fromSnapshot.warning).toBeUndefined();
    for (const i of [0, 999, 1_000, 1_001, 2_499]) {
      expect(await fromSnapshot.service.status(`many/${i}`)).toEqual(
        await replayed.service.status(`many/${i}`),
      );
    }
    expect(fromSnapshot.service.ledger.checkpoint()).toBe(replayed.service.ledger.checkpoint());
    await fromSnapshot.service.close();
    await replayed.service.close();
  });
});
