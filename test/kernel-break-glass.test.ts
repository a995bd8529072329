import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { decide, emptyState, type RuleContext } from '../src/kernel/rules/rules.js';
import { replay } from '../src/kernel/rules/replay.js';
import type { ResourceState } from '../src/kernel/rules/state.js';
import { entryJson, entryOf, type LedgerEntry } from '../src/ledger/entry.js';
import { canonicalJson } from '../src/plane/canonical-json.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import { APPROVE_BREAK_GLASS_PATH, BREAK_GLASS_PATH } from '../src/plane/schema.js';
import { HOTFIX, openPass, passEntry } from './support/break-glass.js';
import { exportLedger } from './support/ledger-export.js';
import { describeEachStore } from './support/store-kernels.js';
import { A, B, R } from './support/names.js';

/**
 * Break-glass: one named job let through a freeze (or a window) once, with a reason, for
 * a bounded time, optionally only after a second operator approved it; its own ledger
 * entry, which verify requires before a grant inside a freeze.
 */

const ADMIN = 'break-glass-admin-key';
const APPROVER = 'break-glass-approver-key';

function ctx(now: number, extra: Partial<RuleContext> = {}): RuleContext {
  let fence = 0;
  return {
    now,
    ttlMs: 30_000,
    nextInLineWaitMs: 500,
    nextFence: () => ++fence + now,
    random: () => 0.5,
    ...extra,
  };
}

describe('break-glass in the rules', () => {
  const frozen = (): ResourceState => {
    const { state } = decide(
      emptyState(R),
      { kind: 'freeze', reason: 'release freeze', untilMs: null, by: 'operator:alice' },
      ctx(1_000),
    );
    return state;
  };

  it('lets its agent past a freeze and the queue once, never past a holder', () => {
    let s = frozen();
    // B waits in the freeze, first in line.
    s = decide(s, { kind: 'lease', actorDid: B }, ctx(2_000)).state;
    expect(s.queue.map((w) => w.actorDid)).toEqual([B]);
    const opened = decide(s, openPass(HOTFIX, { reason: 'CVE-2026-1234' }), ctx(3_000));
    expect(opened.reply).toMatchObject({ ok: true, breakGlass: { pending: false } });
    expect(opened.events).toEqual([passEntry({ atMs: 3_000, reason: 'CVE-2026-1234' })]);
    s = opened.state;
    // B is still held by the freeze; the hotfix is granted ahead of it.
    expect(decide(s, { kind: 'lease', actorDid: B }, ctx(3_500)).reply).toMatchObject({
      ok: false,
      reason: 'frozen',
    });
    const granted = decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(4_000));
    expect(granted.reply).toMatchObject({ ok: true, lease: { holder: HOTFIX } });
    s = granted.state;
    expect(s.breakGlass).toBeUndefined();
    // Once: after its release, the freeze holds it again too.
    s = decide(s, { kind: 'release', actorDid: HOTFIX }, ctx(5_000)).state;
    expect(decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(5_500)).reply).toMatchObject({
      reason: 'frozen',
    });
    // Never past a holder: a pass for someone else while A holds waits like anyone.
    let held = decide(emptyState(R), { kind: 'lease', actorDid: A }, ctx(1_000)).state;
    held = decide(held, openPass(HOTFIX, { reason: 'x' }), ctx(1_100)).state;
    expect(decide(held, { kind: 'lease', actorDid: HOTFIX }, ctx(1_200)).reply).toMatchObject({
      ok: false,
      reason: 'lease_held',
      holder: A,
    });
  });

  it('passes a recurring window, never the failover hold, and ends at its time unused', () => {
    const window = { reason: 'weekend', untilMs: 900_000, by: 'window:weekend', atMs: 0 };
    let s = decide(
      emptyState(R),
      openPass(HOTFIX, { reason: 'x', untilMs: 10_000 }),
      ctx(1_000),
    ).state;
    const failover = { reason: 'failover', untilMs: 5_000, by: 'kernel:failover', atMs: 0 };
    expect(
      decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(2_000, { window, failover })).reply,
    ).toMatchObject({ ok: false, reason: 'frozen' });
    expect(decide(s, { kind: 'lease', actorDid: A }, ctx(2_000, { window })).reply).toMatchObject({
      ok: false,
      reason: 'frozen',
    });
    // At its end it is gone, unused: the window holds the hotfix too.
    expect(decide(s, { kind: 'expire' }, ctx(10_000)).state.breakGlass).toBeUndefined();
    expect(
      decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(10_000, { window })).reply,
    ).toMatchObject({ reason: 'frozen' });
    s = decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(2_000, { window })).state;
    expect(s.lease?.holder).toBe(HOTFIX);
  });

  it('waits for a second operator when it needs one, who must be someone else', () => {
    let s = frozen();
    const open = decide(s, openPass(HOTFIX, { reason: 'outage', needsApproval: true }), ctx(2_000));
    // Pending: nothing on the ledger, and not usable.
    expect(open.events).toEqual([]);
    s = open.state;
    expect(decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(2_100)).reply).toMatchObject({
      reason: 'frozen',
    });
    const same = decide(
      s,
      { kind: 'approve_break_glass', actorDid: HOTFIX, by: 'operator:alice' },
      ctx(2_200),
    );
    expect(same.reply).toMatchObject({ ok: false, reason: 'same_operator' });
    expect(same.events).toEqual([]);
    const other = decide(
      s,
      { kind: 'approve_break_glass', actorDid: A, by: 'operator:bob' },
      ctx(2_200),
    );
    expect(other.reply).toMatchObject({ ok: false, reason: 'no_break_glass' });
    const approved = decide(
      s,
      { kind: 'approve_break_glass', actorDid: HOTFIX, by: 'operator:bob' },
      ctx(2_300),
    );
    expect(approved.events).toMatchObject([
      {
        kind: 'break_glass',
        by: 'operator:alice',
        approvedBy: 'operator:bob',
        expiresAtMs: 60_000,
      },
    ]);
    s = approved.state;
    expect(decide(s, { kind: 'lease', actorDid: HOTFIX }, ctx(2_400)).reply).toMatchObject({
      ok: true,
    });
  });

  it('is rebuilt by a replay of its entry, and used up by the grant after it', () => {
    const event = passEntry({ atMs: 2_000, reason: 'outage', approvedBy: 'operator:bob' });
    const s = replay(frozen(), event, 30_000);
    expect(s.breakGlass).toMatchObject({ actorDid: HOTFIX, approvedBy: 'operator:bob' });
    const grant = {
      kind: 'grant' as const,
      atMs: 3_000,
      resource: R,
      actorDid: HOTFIX,
      leaseId: 'lease_1',
      fence: 1,
      expiresAtMs: 33_000,
    };
    expect(replay(s, grant, 30_000).breakGlass).toBeUndefined();
  });
});

describe('break-glass in the ledger', () => {
  const base = { resource: R, fence: 0, leaseId: '' };
  const entries = (...list: Array<Partial<LedgerEntry>>): LedgerEntry[] =>
    list.map((e, i) => ({ ...base, actorDid: A, seq: i, tsMs: 100 + i * 10, kind: 'grant', ...e }));
  const freeze: Partial<LedgerEntry> = { kind: 'freeze', actorDid: 'operator:alice', reason: 'x' };
  const pass: Partial<LedgerEntry> = passEntry({ expiresAtMs: 1_000 });
  const grant = (actorDid: string, n = 1): Partial<LedgerEntry> => ({
    kind: 'grant',
    actorDid,
    leaseId: `lease_${n}`,
    fence: n,
    expiresAtMs: 30_000,
  });
  const release = (actorDid: string, n = 1): Partial<LedgerEntry> => ({
    kind: 'release',
    actorDid,
    leaseId: `lease_${n}`,
    fence: n,
  });

  it('accepts a grant inside a freeze only right after a break-glass for that agent', () => {
    expect(() => checkMeaning(entries(freeze, pass, grant(HOTFIX)), false)).not.toThrow();
    expect(() => checkMeaning(entries(freeze, pass, grant(B)), false)).toThrow(
      /entry 2: grants lease_1 on lock:deploy\/production while it is frozen \(entry 0\) and no break-glass names did:web:acme.example:agent:b/,
    );
    // Once: the second grant to the same agent inside the freeze is refused.
    const twice = entries(freeze, pass, grant(HOTFIX, 1), release(HOTFIX, 1), grant(HOTFIX, 2));
    expect(() => checkMeaning(twice, false)).toThrow(/entry 4: grants lease_2 .* no break-glass/);
    // Past its end (judged with the clock race's margin), it lets nobody in.
    const late = entries(freeze, pass, { ...grant(HOTFIX), tsMs: 2_000 });
    expect(() =>
      checkMeaning(entries(freeze, pass, { ...grant(HOTFIX), tsMs: 1_999 }), false),
    ).not.toThrow();
    expect(() => checkMeaning(late, false)).toThrow(/the break-glass of entry 1 ended at/);
  });

  it('refuses a break-glass that names a lease, no reason, or its own opener as approver', () => {
    expect(() => checkMeaning(entries({ ...pass, leaseId: 'lease_9' }), false)).toThrow(
      /a break_glass names no lease/,
    );
    expect(() => checkMeaning(entries({ ...pass, reason: '' }), false)).toThrow(
      /must name its reason, who opened it \(by\) and its end/,
    );
    expect(() => checkMeaning(entries({ ...pass, by: undefined }), false)).toThrow(
      /who opened it \(by\)/,
    );
    expect(() => checkMeaning(entries({ ...pass, approvedBy: 'operator:alice' }), false)).toThrow(
      /approved by operator:alice, who opened it/,
    );
    expect(() =>
      checkMeaning(entries(freeze, { ...pass, approvedBy: 'operator:bob' }, grant(HOTFIX)), false),
    ).not.toThrow();
  });

  it('writes approvedBy in canonical order', () => {
    // approvedBy last: the entry puts it where canonical JSON's order does.
    const e = entryOf(passEntry({ expiresAtMs: 1_000, approvedBy: 'operator:bob' }), 3, 100);
    expect(entryJson(e)).toBe(canonicalJson(e));
    expect(entryJson(e)).toContain('"actorDid":"did:web:acme.example:agent:hotfix","approvedBy"');
  });
});

describeEachStore('break-glass over HTTP', (start) => {
  it('lets the named job through a freeze once, recorded and verified', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    try {
      await client.freeze({ resource: R, reason: 'release freeze', by: 'alice' }, ADMIN);
      expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'frozen' });
      const opened = await client.breakGlass(
        {
          resource: R,
          actorDid: HOTFIX,
          reason: 'CVE-2026-1234 hotfix',
          forMs: 600_000,
          by: 'alice',
        },
        ADMIN,
      );
      expect(opened).toMatchObject({
        ok: true,
        actorDid: HOTFIX,
        pending: false,
        by: 'operator:alice',
      });
      expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'frozen' });
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'granted',
      });
      await client.release({ resource: R, actorDid: HOTFIX });
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });
      const { bundle, publicKey: served, entries } = await exportLedger(url);
      expect(served).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString());
      expect(entries.map((e) => e.kind)).toEqual(['freeze', 'break_glass', 'grant', 'release']);
      expect(entries[1]).toMatchObject({
        actorDid: HOTFIX,
        by: 'operator:alice',
        reason: 'CVE-2026-1234 hotfix',
        leaseId: '',
        fence: 0,
      });
      expect(verifyBundle(bundle, createPublicKey(served))).toMatchObject({ count: 4 });
    } finally {
      await client.close();
    }
  });

  it('waits for the approver key and a second name when the kernel has one', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, approverKey: APPROVER, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    try {
      await client.freeze({ resource: R, reason: 'incident 7' }, ADMIN);
      const pending = await client.breakGlass(
        { resource: R, actorDid: HOTFIX, reason: 'rollback', by: 'alice' },
        ADMIN,
      );
      expect(pending).toMatchObject({ pending: true });
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });
      // The admin key cannot approve what it opened; the approver cannot approve as alice.
      await expect(
        client.approveBreakGlass({ resource: R, actorDid: HOTFIX, by: 'bob' }, ADMIN),
      ).rejects.toThrow();
      await expect(
        client.approveBreakGlass({ resource: R, actorDid: HOTFIX, by: 'alice' }, APPROVER),
      ).rejects.toThrow(/another operator must approve it/);
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });
      const approved = await client.approveBreakGlass(
        { resource: R, actorDid: HOTFIX, by: 'bob' },
        APPROVER,
      );
      expect(approved).toMatchObject({ pending: false, approvedBy: 'operator:bob' });
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'granted',
      });
      const { entries } = await exportLedger(url);
      expect(entries.map((e) => [e.kind, e.by, e.approvedBy])).toEqual([
        ['freeze', undefined, undefined],
        ['break_glass', 'operator:alice', 'operator:bob'],
        ['grant', undefined, undefined],
      ]);
      checkMeaning(entries, false);
    } finally {
      await client.close();
    }
  });

  it('refuses bad input and the wrong key, changing nothing', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    const post = (path: string, body: unknown, key = ADMIN) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      }));
    try {
      const good = { resource: R, actorDid: HOTFIX, reason: 'x' };
      expect((await post(BREAK_GLASS_PATH, good, 'wrong')).status).toBe(403);
      expect(await post(BREAK_GLASS_PATH, { ...good, reason: '' })).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(/reason: expected a reason/) },
      });
      expect(await post(BREAK_GLASS_PATH, { ...good, actorDid: 'not a did' })).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(/actorDid: expected a DID/) },
      });
      expect(await post(BREAK_GLASS_PATH, { ...good, forMs: 3_600_001 })).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(/forMs: expected at most 3600000 \(one hour\)/) },
      });
      // Without an approver, there is nothing to approve.
      expect(
        await post(APPROVE_BREAK_GLASS_PATH, { resource: R, actorDid: HOTFIX, by: 'bob' }),
      ).toMatchObject({ status: 409, body: { reason: 'no_approver' } });
      const { entries } = await exportLedger(url);
      expect(entries).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('break-glass across a restart', () => {
  it('a file kernel replays an open pass, and its grant uses it up', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startKernelServer } = await import('../src/kernel/http/server.js');
    const { fileStore } = await import('../src/kernel/store/store.js');
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-break-glass-'));
    const open = () =>
      startKernelServer({
        table: new ResourceTable({ ttlMs: 30_000 }),
        store: fileStore(join(dir, 'kernel.log')),
        adminKey: ADMIN,
        log: () => undefined,
      });
    try {
      let kernel = await open();
      let client = createPlaneClient({ apiUrl: kernel.url });
      await client.freeze({ resource: R, reason: 'freeze' }, ADMIN);
      await client.breakGlass({ resource: R, actorDid: HOTFIX, reason: 'hotfix' }, ADMIN);
      await client.close();
      await kernel.close();
      kernel = await open();
      client = createPlaneClient({ apiUrl: kernel.url });
      expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'frozen' });
      expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
        kind: 'granted',
      });
      await client.close();
      await kernel.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
