import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer } from '../src/kernel/http/server.js';
import { decide, emptyState, type RuleContext } from '../src/kernel/rules/rules.js';
import { replay } from '../src/kernel/rules/replay.js';
import { fileStore } from '../src/kernel/store/store.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { Ledger } from '../src/ledger/ledger.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { createPlaneClient } from '../src/plane/client.js';
import { WITHDRAW_BREAK_GLASS_PATH } from '../src/plane/schema.js';
import { HOTFIX, openPass, passEntry } from './support/break-glass.js';
import { exportLedger } from './support/ledger-export.js';
import { describeEachStore } from './support/store-kernels.js';
import { B, R } from './support/names.js';

/**
 * A break-glass withdrawn (an operator's cancel, or replaced by a new pass, pending or not)
 * is a signed `break_glass_withdrawn` entry: the live rules, a restart's replay and verify
 * all read the old pass as gone, so a restart never brings it back.
 */

const ADMIN = 'withdraw-admin-key';
const APPROVER = 'withdraw-approver-key';

const ctx = (now: number): RuleContext => ({
  now,
  ttlMs: 30_000,
  nextInLineWaitMs: 500,
  nextFence: () => now,
  random: () => 0.5,
});
const open = (actorDid: string, needsApproval: boolean) =>
  openPass(actorDid, { untilMs: 600_000, needsApproval });

describe('withdrawing a break-glass in the rules', () => {
  it('a pending pass that replaces a usable one withdraws it on the ledger; replay agrees', () => {
    let s = decide(emptyState(R), open(HOTFIX, false), ctx(1_000)).state;
    const replaced = decide(s, open(B, true), ctx(2_000));
    expect(replaced.events).toEqual([
      {
        kind: 'break_glass_withdrawn',
        atMs: 2_000,
        resource: R,
        actorDid: HOTFIX,
        leaseId: '',
        fence: 0,
        reason: 'replaced by a new break-glass',
        by: 'operator:alice',
      },
    ]);
    s = replaced.state;
    expect(s.breakGlass).toMatchObject({ actorDid: B, pending: true });
    // A restart replays the entries: the withdrawn pass is not brought back.
    const pass = passEntry({ atMs: 1_000, expiresAtMs: 600_000 });
    const replayed = replay(replay(emptyState(R), pass, 30_000), replaced.events[0]!, 30_000);
    expect(replayed.breakGlass).toBeUndefined();
  });

  it('a cancel withdraws a usable pass with an entry, a pending one without, nothing else', () => {
    const usable = decide(emptyState(R), open(HOTFIX, false), ctx(1_000)).state;
    const cancel = { kind: 'withdraw_break_glass', by: 'operator:bob' } as const;
    const done = decide(usable, cancel, ctx(2_000));
    expect(done.reply).toMatchObject({ ok: true, withdrawn: { actorDid: HOTFIX } });
    expect(done.events).toMatchObject([
      { kind: 'break_glass_withdrawn', actorDid: HOTFIX, by: 'operator:bob' },
    ]);
    expect(done.state.breakGlass).toBeUndefined();
    const pending = decide(emptyState(R), open(HOTFIX, true), ctx(1_000)).state;
    const forgotten = decide(pending, cancel, ctx(2_000));
    expect(forgotten.events).toEqual([]);
    expect(forgotten.state.breakGlass).toBeUndefined();
    // Another agent's pass, or none: refused, nothing changed.
    const other = decide(usable, { ...cancel, actorDid: B }, ctx(2_000));
    expect(other.reply).toMatchObject({ ok: false, reason: 'no_break_glass' });
    expect(other.state.breakGlass).toMatchObject({ actorDid: HOTFIX });
    expect(decide(emptyState(R), cancel, ctx(2_000)).reply).toMatchObject({
      ok: false,
      reason: 'no_break_glass',
    });
  });
});

describe('a withdrawn break-glass in the ledger', () => {
  const base = { resource: R, fence: 0, leaseId: '' };
  const entries = (...list: Array<Partial<LedgerEntry>>): LedgerEntry[] =>
    list.map((e, i) => ({ ...base, actorDid: B, seq: i, tsMs: 100 + i * 10, kind: 'grant', ...e }));
  const freeze = { kind: 'freeze', actorDid: 'operator:alice', reason: 'x' } as const;
  const pass = {
    kind: 'break_glass',
    actorDid: HOTFIX,
    reason: 'CVE',
    by: 'operator:alice',
    expiresAtMs: 10_000,
  } as const;
  const withdrawn = {
    kind: 'break_glass_withdrawn',
    actorDid: HOTFIX,
    by: 'operator:bob',
  } as const;
  const grant = { kind: 'grant', actorDid: HOTFIX, leaseId: 'lease_1', fence: 1 } as const;

  it('refuses a grant its withdrawn pass would have let through a freeze', () => {
    expect(() => checkMeaning(entries(freeze, pass, grant), false)).not.toThrow();
    expect(() => checkMeaning(entries(freeze, pass, withdrawn, grant), false)).toThrow(
      /entry 3: grants lease_1 on lock:deploy\/production while it is frozen \(entry 0\) and no break-glass names did:web:acme.example:agent:hotfix/,
    );
    expect(() => checkMeaning(entries({ ...withdrawn, by: undefined }), false)).toThrow(
      /a break_glass_withdrawn must name who withdrew it/,
    );
    expect(() => checkMeaning(entries({ ...withdrawn, leaseId: 'lease_9' }), false)).toThrow(
      /a break_glass_withdrawn names no lease/,
    );
  });
});

describeEachStore('withdrawing a break-glass over HTTP', (start) => {
  it('cancels with the admin key, signed; the job is held by the freeze again', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    try {
      await client.freeze({ resource: R, reason: 'incident 7' }, ADMIN);
      // Nothing to withdraw: 409, and the wrong key 403; nothing recorded.
      await expect(client.withdrawBreakGlass({ resource: R }, ADMIN)).rejects.toThrow(
        /no unused break-glass/,
      );
      await client.breakGlass({ resource: R, actorDid: HOTFIX, reason: 'rollback' }, ADMIN);
      const denied = await fetch(`${url}${WITHDRAW_BREAK_GLASS_PATH}`, {
        method: 'POST',
        headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
        body: JSON.stringify({ resource: R }),
      });
      expect(denied.status).toBe(403);
      const answer = await client.withdrawBreakGlass(
        { resource: R, actorDid: HOTFIX, by: 'bob' },
        ADMIN,
      );
      expect(answer).toMatchObject({ withdrawn: true, actorDid: HOTFIX, by: 'operator:admin-key' });
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });
      const { entries } = await exportLedger(url);
      expect(entries.map((e) => [e.kind, e.actorDid, e.by])).toEqual([
        ['freeze', 'operator:admin-key', undefined],
        ['break_glass', HOTFIX, 'operator:admin-key'],
        ['break_glass_withdrawn', HOTFIX, 'operator:bob'],
      ]);
      checkMeaning(entries, false);
    } finally {
      await client.close();
    }
  });
});

describe('a withdrawn break-glass across a restart', () => {
  it('does not come back: replaced by a pending pass, or cancelled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-withdraw-'));
    const { privateKey } = generateKeyPairSync('ed25519');
    const start = () =>
      startKernelServer({
        table: new ResourceTable({ ttlMs: 30_000 }),
        store: fileStore(join(dir, 'kernel.log')),
        adminKey: ADMIN,
        approverKey: APPROVER,
        ledger: new Ledger(privateKey),
        log: () => undefined,
      });
    let kernel = await start();
    let client = createPlaneClient({ apiUrl: kernel.url });
    const restart = async () => {
      await client.close();
      await kernel.close();
      kernel = await start();
      client = createPlaneClient({ apiUrl: kernel.url });
    };
    try {
      await client.freeze({ resource: R, reason: 'freeze' }, ADMIN);
      const hotfix = { resource: R, actorDid: HOTFIX, reason: 'hotfix', by: 'alice' };
      await client.breakGlass(hotfix, ADMIN);
      await client.approveBreakGlass({ resource: R, actorDid: HOTFIX, by: 'bob' }, APPROVER);
      // A replacing pass for B waits for approval; the hotfix's is withdrawn now, durably.
      await client.breakGlass({ ...hotfix, actorDid: B }, ADMIN);
      await restart();
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });
      // The same with a cancel.
      await client.breakGlass(hotfix, ADMIN);
      await client.approveBreakGlass({ resource: R, actorDid: HOTFIX, by: 'bob' }, APPROVER);
      await client.withdrawBreakGlass({ resource: R, by: 'carol' }, ADMIN);
      await restart();
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });
      const { entries } = await exportLedger(kernel.url);
      expect(entries.map((e) => e.kind)).toEqual([
        'freeze',
        'break_glass',
        'break_glass_withdrawn',
        'break_glass',
        'break_glass_withdrawn',
      ]);
      checkMeaning(entries, false);
    } finally {
      await client.close();
      await kernel.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
