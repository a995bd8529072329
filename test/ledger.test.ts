import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { KernelService } from '../src/kernel/service/service.js';
import { fileStore, memoryStore } from '../src/kernel/store/store.js';
import { entryJson, entryOf } from '../src/ledger/entry.js';
import { canonicalJson } from '../src/plane/canonical-json.js';
import { ENTRY_KINDS } from '../src/plane/entry-kinds.js';
import { signCheckpoint, verifyCheckpoint } from '../src/ledger/checkpoint.js';
import { Ledger, type LedgerBundle } from '../src/ledger/ledger.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { runCli } from './support/kernel-process.js';

const keys = () => generateKeyPairSync('ed25519');
const ends = ['release', 'lapse', 'revoke'] as const;

/** A valid history: grants and their ends alternate, fences rise. */
function filled(privateKey: KeyObject, count = 6): Ledger {
  const ledger = new Ledger(privateKey);
  for (let i = 0; i < count; i += 1) {
    const n = i >> 1;
    const kind = i % 2 === 0 ? 'grant' : ends[n % ends.length]!;
    ledger.append({
      atMs: 1_000 + i * 10,
      kind,
      resource: 'lock:deploy/production',
      actorDid: `did:web:agent${n % 3}`,
      leaseId: `lease_${n}`,
      fence: n + 1,
      ...(kind === 'revoke' ? { reason: 'incident' } : {}),
    });
  }
  return ledger;
}

const clone = (bundle: LedgerBundle) => structuredClone(bundle);

describe('the ledger', () => {
  const { privateKey, publicKey } = keys();
  const ledger = filled(privateKey);
  const bundle = ledger.bundle();

  it('signs checkpoints in the C2SP signed-note form', () => {
    const text = ledger.checkpoint();
    const [origin, size, root, blank, signature] = text.split('\n');
    expect(origin).toMatch(/^lease-gate\.kernel\/[0-9a-f]{16}$/);
    expect(size).toBe('6');
    expect(Buffer.from(root!, 'base64')).toHaveLength(32);
    expect(blank).toBe('');
    expect(signature).toMatch(new RegExp(`^— ${origin!.replace('.', '\\.')} [A-Za-z0-9+/]+=*$`));
    expect(Buffer.from(signature!.split(' ')[2]!, 'base64')).toHaveLength(68);
    expect(verifyCheckpoint(text, publicKey).size).toBe(6);
  });

  it('stamps strictly increasing times, even when events share a millisecond', () => {
    const l = new Ledger(privateKey);
    for (const kind of ['grant', 'release'] as const) {
      l.append({ atMs: 5, kind, resource: 'r', actorDid: 'did:web:a', leaseId: 'x', fence: 1 });
    }
    expect(l.bundle().entries.map((e) => e.entry.tsMs)).toEqual([5, 6]);
  });

  it('verifies a whole bundle with nothing but the public key', () => {
    expect(verifyBundle(JSON.parse(JSON.stringify(bundle)), publicKey)).toMatchObject({
      size: 6,
      count: 6,
      first: 0,
    });
  });

  const tampered: Array<[string, (b: LedgerBundle) => void, RegExp]> = [
    [
      'a flipped bit in a proof hash',
      (b) => {
        const proof = Buffer.from(b.entries[2]!.inclusionProof[0]!, 'base64');
        proof[7]! ^= 0x10;
        b.entries[2]!.inclusionProof[0] = proof.toString('base64');
      },
      /entry 2: the inclusion proof/,
    ],
    [
      'a proof one hash short',
      (b) => void b.entries[1]!.inclusionProof.pop(),
      /entry 1: the inclusion proof/,
    ],
    [
      'a proof one hash long',
      (b) => void b.entries[1]!.inclusionProof.push(b.entries[0]!.inclusionProof[0]!),
      /entry 1: the inclusion proof/,
    ],
    [
      'a wrong index',
      (b) => {
        b.entries[3]!.index = 4;
      },
      /index 4 breaks the order/,
    ],
    [
      'a changed field',
      (b) => {
        b.entries[4]!.entry.actorDid = 'did:web:mallory';
      },
      /entry 4: the inclusion proof/,
    ],
    [
      'a changed fence',
      (b) => {
        b.entries[0]!.entry.fence = 99;
      },
      /entry 0: the inclusion proof/,
    ],
    ['reordered entries', (b) => b.entries.reverse(), /breaks the order/],
    ['a dropped entry', (b) => void b.entries.splice(2, 1), /index 3 breaks the order/],
    ['a dropped last entry', (b) => void b.entries.pop(), /some are missing/],
    [
      'a timestamp moved backwards',
      (b) => {
        b.entries[3]!.entry.tsMs = b.entries[2]!.entry.tsMs - 1;
      },
      /entry 3: tsMs .* is not after/,
    ],
    [
      'a wrong tree size',
      (b) => {
        b.checkpoint = b.checkpoint.replace(/\n6\n/, '\n7\n');
      },
      /signature does not verify/,
    ],
    [
      'a changed origin',
      (b) => {
        b.checkpoint = b.checkpoint.replace(/^lease-gate\.kernel\//, 'evil.example/');
      },
      /origin 'evil\.example\/.*' is not this key's log/,
    ],
    [
      'a checkpoint re-signed by another key',
      (b) => {
        const [origin, size, root] = b.checkpoint.split('\n');
        b.checkpoint = signCheckpoint(
          { origin: origin!, size: Number(size), root: Buffer.from(root!, 'base64') },
          keys().privateKey,
        );
      },
      /no signature by this public key/,
    ],
    [
      'an unknown field in an entry',
      (b) => {
        (b.entries[0]!.entry as Record<string, unknown>).note = 'x';
      },
      /bundle: entries\.0\.entry/,
    ],
  ];

  it.each(tampered)('rejects %s, with a reason', (_what, tamper, reason) => {
    const bad = clone(bundle);
    tamper(bad);
    expect(() => verifyBundle(bad, publicKey)).toThrow(reason);
  });

  const history = (steps: Array<[string, string, string, number]>) => {
    const l = new Ledger(privateKey);
    steps.forEach(([kind, resource, leaseId, fence], i) =>
      l.append({
        atMs: i,
        kind: kind as 'grant',
        resource,
        actorDid: `did:web:${leaseId}`,
        leaseId,
        fence,
      }),
    );
    return l;
  };

  it.each([
    [
      'two open grants on one resource',
      [
        ['grant', 'r', 'a', 1],
        ['grant', 'r', 'b', 2],
      ],
      /entry 1: grants b on r while a \(entry 0\) is still open/,
    ],
    [
      'a fence issued twice',
      [
        ['grant', 'r', 'a', 1],
        ['grant', 's', 'b', 1],
      ],
      /entry 1: fence 1 was already issued at entry 0/,
    ],
    [
      'an end of a lease that is not open',
      [
        ['grant', 'r', 'a', 1],
        ['release', 'r', 'b', 1],
      ],
      /entry 1: release names b .* the open lease on r is a \(fence 1, entry 0\)/,
    ],
    [
      'an end twice',
      [
        ['grant', 'r', 'a', 1],
        ['release', 'r', 'a', 1],
        ['lapse', 'r', 'a', 1],
      ],
      /entry 2: lapse of a on r, which has no open lease/,
    ],
  ] as Array<[string, Array<[string, string, string, number]>, RegExp]>)(
    'rejects a signed ledger whose history is invalid: %s',
    (_what, steps, reason) => {
      expect(() => verifyBundle(history(steps).bundle(), publicKey)).toThrow(reason);
    },
  );

  it('checks the meaning of a partial range within the range', () => {
    const l = history([
      ['grant', 'r', 'a', 1],
      ['renew', 'r', 'a', 1],
      ['release', 'r', 'a', 1],
      ['grant', 'r', 'b', 2],
      ['grant', 'r', 'c', 3],
    ]);
    expect(verifyBundle(l.bundle(1, 4), publicKey, { allowPartial: true }).count).toBe(3);
    expect(() => verifyBundle(l.bundle(2, 5), publicKey, { allowPartial: true })).toThrow(
      /entry 4: grants c on r while b \(entry 3\) is still open/,
    );
  });

  it('checks a partial range only when asked to', () => {
    const part = ledger.bundle(2, 5);
    expect(() => verifyBundle(part, publicKey)).toThrow(/some are missing/);
    expect(verifyBundle(part, publicKey, { allowPartial: true })).toMatchObject({
      first: 2,
      count: 3,
    });
  });

  it('checks consistency with an older checkpoint, and catches rewritten history', () => {
    const { privateKey: k, publicKey: p } = keys();
    const growing = filled(k, 4);
    const older = growing.checkpoint();
    growing.append({
      atMs: 9_999,
      kind: 'grant',
      resource: 'r',
      actorDid: 'did:web:a',
      leaseId: 'z',
      fence: 9,
    });
    expect(verifyBundle(growing.bundle(), p, { previous: older }).size).toBe(5);
    const rewritten = filled(k, 5);
    const forged = new Ledger(k);
    rewritten.bundle().entries.forEach(({ entry }, i) =>
      forged.append({
        ...entry,
        // A quietly moved time: still a valid history, but not the one signed before.
        atMs: i === 1 ? entry.tsMs + 1 : entry.tsMs,
      }),
    );
    expect(() => verifyBundle(forged.bundle(), p, { previous: older })).toThrow(
      /first 4 entries were rewritten/,
    );
  });
});

describe('verify checks time as well as order', () => {
  const { privateKey, publicKey } = keys();
  type Step = [kind: string, resource: string, leaseId: string, atMs: number, expiresAtMs?: number];
  const ledgerOf = (steps: Step[]) => {
    const l = new Ledger(privateKey);
    const fences = new Map<string, number>();
    let fence = 0;
    for (const [kind, resource, leaseId, atMs, expiresAtMs] of steps) {
      // Every grant a new fence (rising), so a forged reused lease id is caught by its id alone.
      if (kind === 'grant') fences.set(leaseId, ++fence);
      l.append({
        atMs,
        kind: kind as 'grant',
        resource,
        actorDid: `did:web:${leaseId}`,
        leaseId,
        fence: fences.get(leaseId)!,
        ...(expiresAtMs === undefined ? {} : { expiresAtMs }),
      });
    }
    return l;
  };
  const verifies = (steps: Step[]) => verifyBundle(ledgerOf(steps).bundle(), publicKey);

  it('accepts honest ends: a release or revoke before the expiry, a lapse at it', () => {
    expect(
      verifies([
        ['grant', 'r', 'a', 1_000, 31_000],
        ['renew', 'r', 'a', 11_000, 41_000],
        ['release', 'r', 'a', 12_000],
        ['grant', 'r', 'b', 13_000, 43_000],
        ['revoke', 'r', 'b', 14_000],
        ['grant', 'r', 'c', 15_000, 45_000],
        ['lapse', 'r', 'c', 45_000],
      ]).count,
    ).toBe(7);
  });

  it('accepts a burst stamped one apart, ahead of the clock (the kernel under load)', () => {
    // 3 000 changes in one millisecond: stamps run 3 s ahead, the renewals are still in time.
    const steps: Step[] = [];
    for (let i = 0; i < 1_500; i += 1) steps.push(['grant', `r${i}`, `l${i}`, 5_000, 7_000]);
    for (let i = 0; i < 1_500; i += 1) steps.push(['renew', `r${i}`, `l${i}`, 5_000, 7_000]);
    expect(verifies(steps).count).toBe(3_000);
  });

  it.each([
    [
      'a lapse 29 s before the told expiry, then a grant to another agent',
      [
        ['grant', 'r', 'a', 1_000, 31_000],
        ['lapse', 'r', 'a', 2_000],
        ['grant', 'r', 'b', 2_001, 32_001],
      ],
      /entry 1 \(lapse of a on r\): lapses at 2000, 29000 ms before the expiry 31000 told at entry 0 \(grant\)/,
    ],
    [
      'a lapse before a renewed expiry',
      [
        ['grant', 'r', 'a', 1_000, 31_000],
        ['renew', 'r', 'a', 20_000, 50_000],
        ['lapse', 'r', 'a', 31_000],
      ],
      /entry 2 \(lapse of a on r\): lapses at 31000, 19000 ms before the expiry 50000 told at entry 1 \(renew\)/,
    ],
    [
      'a renewal after the lease expired',
      [
        ['grant', 'r', 'a', 1_000, 31_000],
        ['renew', 'r', 'a', 40_000, 70_000],
      ],
      /entry 1 \(renew of a on r\): renews at 40000 or later, after the lease expired at 31000 \(told at entry 0 \(grant\)\)/,
    ],
    [
      'a grant already expired when issued',
      [['grant', 'r', 'a', 40_000, 31_000]],
      /entry 0 \(grant of a on r\): expires at 31000, already past when it was granted/,
    ],
    [
      'one lease id granted on two resources',
      [
        ['grant', 'r', 'a', 1_000, 31_000],
        ['grant', 's', 'a', 2_000, 32_000],
      ],
      /entry 1 \(grant of a on s\): lease id a was already granted at entry 0 \(grant on r\)/,
    ],
  ] as Array<[string, Step[], RegExp]>)(
    'rejects %s, naming the entries',
    (_what, steps, reason) => {
      const bundle = ledgerOf(steps).bundle();
      expect(() => verifyBundle(bundle, publicKey)).toThrow(reason);
    },
  );

  /**
   * Issue #35 item 7: a grant, then 200 entries stamped one apart whose run
   * begins 199 ms before the grant's expiry, the last of them its lapse (no
   * clockMs), then a grant to another agent. Read as one burst in the run's
   * first millisecond, the lapse came 199 ms early and the two leases overlap;
   * the lapse's own stamp (31 000) hid it.
   */
  const forgedRun = () => {
    const line = (seq: number, tsMs: number, kind: string, resource: string, lease: string) => {
      const fence = resource === 'r' ? (lease === 'a' ? 1 : 201) : seq + 1;
      const expiresAtMs = kind === 'grant' ? tsMs + 30_000 : undefined;
      const event = {
        kind: kind as 'grant',
        resource,
        actorDid: `did:web:${lease}`,
        leaseId: lease,
        fence,
      };
      return entryJson(
        entryOf(expiresAtMs === undefined ? event : { ...event, expiresAtMs }, seq, tsMs),
      );
    };
    const lines = [line(0, 1_000, 'grant', 'r', 'a')];
    for (let i = 1; i < 200; i += 1) lines.push(line(i, 30_800 + i, 'grant', `s${i}`, `x${i}`));
    lines.push(line(200, 31_000, 'lapse', 'r', 'a'), line(201, 31_001, 'grant', 'r', 'b'));
    const forged = new Ledger(privateKey);
    lines.forEach((text, i) => forged.load(text, `line ${i + 1}`));
    return forged;
  };

  it('refuses a lapse hidden in a run of +1 stamps that began before its expiry, naming it', () => {
    const bundle = forgedRun().bundle();
    expect(bundle.entries[200]!.entry).toMatchObject({ kind: 'lapse', tsMs: 31_000 });
    expect(() => verifyBundle(bundle, publicKey)).toThrow(
      /^entry 200 \(lapse of a on r\): stamped 31000 in a run of \+1 stamps from 30801 \(entry 1\), so it may have lapsed 199 ms before the expiry 31000 told at entry 0 \(grant\); a lapse in a run must carry the clock that found it due \(clockMs\)$/,
    );
  });

  it('judges a lapse by the clock it carries: not above its stamp, not before the expiry', () => {
    const withClock = (clockMs: number) => {
      const l = new Ledger(privateKey);
      for (const text of [
        entryJson(
          entryOf(
            {
              kind: 'grant',
              resource: 'r',
              actorDid: 'did:web:a',
              leaseId: 'a',
              fence: 1,
              expiresAtMs: 31_000,
            },
            0,
            1_000,
          ),
        ),
        entryJson(
          entryOf(
            {
              kind: 'grant',
              resource: 's',
              actorDid: 'did:web:x',
              leaseId: 'x',
              fence: 2,
              expiresAtMs: 61_000,
            },
            1,
            30_999,
          ),
        ),
        entryJson(
          entryOf(
            { kind: 'lapse', resource: 'r', actorDid: 'did:web:a', leaseId: 'a', fence: 1 },
            2,
            31_000,
            clockMs,
          ),
        ),
      ])
        l.load(text, 'line');
      return l.bundle();
    };
    expect(verifyBundle(withClock(31_000), publicKey).count).toBe(3);
    expect(() => verifyBundle(withClock(30_990), publicKey)).toThrow(
      /^entry 2 \(lapse of a on r\): lapses at 30990, 10 ms before the expiry 31000 told at entry 0 \(grant\)$/,
    );
    expect(() => verifyBundle(withClock(31_001), publicKey)).toThrow(
      /^entry 2 \(lapse of a on r\): clockMs 31001 is after its stamp 31000/,
    );
  });

  it("accepts a kernel's own ledger with lapses inside a burst stamped ahead of the clock", async () => {
    let now = 1_000;
    const { service } = await KernelService.open({
      table: new ResourceTable({ ttlMs: 1_000 }),
      store: memoryStore(),
      ledger: new Ledger(privateKey),
      now: () => now,
    });
    const A = 'did:web:a.example';
    const B = 'did:web:b.example';
    // 2 000 grants in one millisecond: stamps 1000..2999, running 2 s ahead of the clock.
    const first = await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => service.lease(`r${i}`, A)),
    );
    expect(first.every((r) => r.ok)).toBe(true);
    // At the expiry, B's asks end A's leases: each a lapse inside the same run, then a grant.
    now = 2_000;
    const second = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => service.lease(`r${i}`, B)),
    );
    expect(second.every((r) => r.ok)).toBe(true);
    const bundle = service.ledger.bundle();
    const lapse = bundle.entries.find(({ entry }) => entry.kind === 'lapse')!.entry;
    expect(lapse).toMatchObject({ clockMs: 2_000 });
    expect(lapse.tsMs).toBeGreaterThan(2_000);
    expect(verifyBundle(bundle, publicKey).count).toBe(4_000);
    await service.close();
  });

  it.each([
    ['a signature line without its blob', (c: string) => c.replace(/ (\S+)\n$/, '\n')],
    ['a signature line with bad base64', (c: string) => c.replace(/ (\S+)\n$/, ' @@@$1\n')],
    ['a stray line among the signatures', (c: string) => `${c}junk\n`],
    ['an extra line in the note', (c: string) => c.replace('\n\n', '\nextra\n\n')],
  ])('refuses a checkpoint with %s', (_what, forge) => {
    const bundle = ledgerOf([['grant', 'r', 'a', 1_000, 31_000]]).bundle();
    expect(verifyBundle(bundle, publicKey).count).toBe(1);
    bundle.checkpoint = forge(bundle.checkpoint);
    expect(() => verifyBundle(bundle, publicKey)).toThrow(
      /checkpoint: (signature line \d+ is malformed|the note has 4 lines)/,
    );
  });
});

/** Arbitrary values of the fields an event and its ledger entry share. */
const EVENT_FIELDS = {
  kind: fc.constantFrom(...ENTRY_KINDS),
  resource: fc.string(),
  actorDid: fc.string(),
  leaseId: fc.string(),
  fence: fc.integer(),
  expiresAtMs: fc.nat(),
  reason: fc.string(),
  by: fc.string(),
};

describe('the kernel log file', () => {
  async function writeLog(file: string, ledger: Ledger) {
    const store = fileStore(file);
    await store.open();
    const { entries, text } = new Ledger().prepare(
      ledger
        .bundle()
        .entries.map(({ entry: { seq: _seq, tsMs, ...rest } }) => ({ ...rest, atMs: tsMs })),
    );
    await store.append(text, entries);
    await store.close();
  }

  it('comes back after a restart, and a torn last record is cut off and reported', async () => {
    const { privateKey, publicKey } = keys();
    const file = join(mkdtempSync(join(tmpdir(), 'lease-gate-ledger-')), 'ledger.jsonl');
    const first = filled(privateKey, 5);
    await writeLog(file, first);
    appendFileSync(file, '{"actorDid":"did:web:half","fen');

    const store = fileStore(file);
    const recovered = await store.open();
    expect(recovered.warning).toMatch(/last record was torn .* the 5 records before it kept/);
    const again = new Ledger(privateKey);
    recovered.lines.forEach((line, i) => again.load(line, `line ${i + 1}`));
    expect(again.size).toBe(5);
    expect(again.checkpoint()).toBe(first.checkpoint());
    const next = again.prepare([
      { atMs: 1, kind: 'grant', resource: 'r', actorDid: 'did:web:a', leaseId: 'n', fence: 9 },
    ]);
    await store.append(next.text, next.entries);
    again.accept(next.entries);
    expect(verifyBundle(again.bundle(), publicKey).size).toBe(6);
    await store.close();
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(6);
    expect((await fileStore(file).open()).warning).toBeUndefined();
  });

  it('refuses a ledger damaged before its last record', async () => {
    const { privateKey } = keys();
    const file = join(mkdtempSync(join(tmpdir(), 'lease-gate-ledger-')), 'ledger.jsonl');
    await writeLog(file, filled(privateKey, 3));
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1]!.slice(0, 20);
    writeFileSync(file, lines.join('\n'));
    const { lines: read } = await fileStore(file).open();
    const ledger = new Ledger(privateKey);
    expect(() => read.forEach((line, i) => ledger.load(line, `line ${i + 1}`))).toThrow(
      /line 2 is not JSON; the ledger is damaged before its last record/,
    );
  });

  it('writes each entry in canonical form without sorting (the hot path)', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            seq: fc.nat(),
            tsMs: fc.nat(),
            clockMs: fc.nat(),
            ...EVENT_FIELDS,
            approvedBy: fc.string(),
            approval: fc.string(),
            deploy: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
          },
          { requiredKeys: ['seq', 'tsMs', 'kind', 'resource', 'actorDid', 'leaseId', 'fence'] },
        ),
        (entry) => {
          expect(entryJson(entry)).toBe(canonicalJson(entry));
        },
      ),
    );
  });

  it('builds an entry from an event with exactly its fields (no atMs, no unset optional)', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            atMs: fc.nat(),
            ...EVENT_FIELDS,
          },
          { requiredKeys: ['atMs', 'kind', 'resource', 'actorDid', 'leaseId', 'fence'] },
        ),
        fc.nat(),
        fc.nat(),
        (event, seq, tsMs) => {
          const kept = Object.entries(event).filter(([key]) => key !== 'atMs');
          const expected = { ...Object.fromEntries(kept), seq, tsMs };
          const entry = entryOf(event, seq, tsMs);
          expect(entry).toStrictEqual(expected);
          expect(Object.keys(entry).sort()).toEqual(Object.keys(expected).sort());
        },
      ),
    );
  });
});

describe('keygen and verify on the command line', () => {
  it('writes a private key only its owner can read, and verifies an exported bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-keys-'));
    const made = await runCli(['keygen', '--out', dir]);
    expect(made.code).toBe(0);
    expect(made.stdout).not.toContain('PRIVATE KEY');
    expect(statSync(join(dir, 'ledger.key')).mode & 0o777).toBe(0o600);
    expect((await runCli(['keygen', '--out', dir])).code).toBe(2);
  });
});
