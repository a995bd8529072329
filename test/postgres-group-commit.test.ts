import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../src/kernel/store/group-commit.js';
import { createPlaneClient } from '../src/plane/client.js';
import { fetchLedger } from '../src/ledger/remote.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { meaningBreach, startReplica } from './support/pg-kernel.js';
import { describePostgres } from './support/postgres.js';
import { pgReplicas } from './support/pg-replicas.js';

/** A commit the test finishes by hand; it records each batch it was given. */
function heldCommits() {
  const batches: number[][] = [];
  const finish: Array<() => void> = [];
  const commit = (items: number[]) => {
    batches.push(items);
    return new Promise<Array<PromiseSettledResult<number>>>((resolve) =>
      finish.push(() =>
        resolve(
          items.map((n) =>
            n < 0
              ? { status: 'rejected', reason: new Error(`bad ${n}`) }
              : { status: 'fulfilled', value: n * 10 },
          ),
        ),
      ),
    );
  };
  return { batches, finish, commit };
}

/** Lets every promise callback that is ready run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const options = { maxBatch: 3, slots: 1, waitMs: 1_000, busy: () => new Error('busy') };

describe('group commit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends calls that arrive while a batch commits together in the next, up to the cap', async () => {
    const { batches, finish, commit } = heldCommits();
    const group = new GroupCommit(commit, options);
    const answers = [1, 2, 3, 4, 5, -6].map((n) => group.submit(n));
    expect(batches).toEqual([[1]]);
    finish.shift()!();
    await settle();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    finish.shift()!();
    await settle();
    expect(batches).toEqual([[1], [2, 3, 4], [5, -6]]);
    finish.shift()!();
    const settled = await Promise.allSettled(answers);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      10,
      20,
      30,
      40,
      50,
      'Error: bad -6',
    ]);
  });

  it('fails every call of a batch whose commit throws, and goes on with the next', async () => {
    let calls = 0;
    const group = new GroupCommit(async (items: number[]) => {
      calls += 1;
      if (calls === 1) throw new Error('store away');
      return items.map((value) => ({ status: 'fulfilled' as const, value }));
    }, options);
    const first = group.submit(1);
    const second = group.submit(2);
    await expect(first).rejects.toThrow('store away');
    await expect(second).resolves.toBe(2);
  });

  it('opens a second slot only once the batch in flight is late, or a whole batch waits', async () => {
    vi.useFakeTimers();
    const { batches, finish, commit } = heldCommits();
    const group = new GroupCommit(commit, { ...options, slots: 2, spareAfterMs: 10 });
    const answers = [1, 2, 3].map((n) => group.submit(n));
    // One batch at a time while it is on time: the calls behind it gather.
    expect(batches).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(9);
    expect(batches).toEqual([[1]]);
    // Late: the waiting calls go beside it.
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[1], [2, 3]]);
    // Both slots in use: the next waits for one to end, then for the other to be late.
    answers.push(group.submit(4));
    expect(batches).toHaveLength(2);
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10);
    expect(batches).toEqual([[1], [2, 3], [4]]);
    // A whole batch waiting does not wait for lateness.
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    answers.push(...[5, 6, 7].map((n) => group.submit(n)));
    expect(batches).toEqual([[1], [2, 3], [4], [5, 6, 7]]);
    finish.shift()!();
    finish.shift()!();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it('sends the calls submitted together in one batch, in order, even with a slot free', async () => {
    const { batches, finish, commit } = heldCommits();
    const group = new GroupCommit(commit, options);
    const answers = group.submitTogether(() => [group.submit(1), group.submit(2)]);
    expect(batches).toEqual([[1, 2]]);
    // While a batch is in flight they wait, together, for the next.
    answers.push(...group.submitTogether(() => [group.submit(3), group.submit(4)]));
    expect(batches).toEqual([[1, 2]]);
    finish.shift()!();
    await settle();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    finish.shift()!();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30, 40]);
  });

  it('gathers the calls submitted together with those of the turn, for an in-process store', async () => {
    const { batches, finish, commit } = heldCommits();
    const group = new GroupCommit(commit, { ...options, gatherTurn: true });
    const answers = group.submitTogether(() => [group.submit(1), group.submit(2)]);
    answers.push(group.submit(3));
    expect(batches).toEqual([]);
    await settle();
    expect(batches).toEqual([[1, 2, 3]]);
    finish.shift()!();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30]);
  });

  it('refuses a call that waits longer than its bound while every slot is stuck', async () => {
    vi.useFakeTimers();
    const { batches, finish, commit } = heldCommits();
    const group = new GroupCommit(commit, options);
    const stuck = group.submit(1);
    const waiting = group.submit(2);
    const refused = expect(waiting).rejects.toThrow('busy');
    await vi.advanceTimersByTimeAsync(1_000);
    await refused;
    finish.shift()!();
    await expect(stuck).resolves.toBe(10);
    expect(batches).toEqual([[1]]);
  });
});

describePostgres('group commit on PostgreSQL', () => {
  const kit = pgReplicas();

  it('keeps one holder and rising fences when many calls share batches', async () => {
    const replica = await startReplica(kit.schema, { poolSize: 4 });
    try {
      const client = createPlaneClient({ apiUrl: replica.url });
      const agents = Array.from({ length: 24 }, (_, i) => `did:web:batch:agent${i}`);
      // All at once on one resource: exactly one grant.
      const one = await Promise.all(
        agents.map((actorDid) => client.lease({ resource: 'lock:batch/one', actorDid })),
      );
      expect(one.filter((a) => a.kind === 'granted')).toHaveLength(1);
      // All at once on a resource each: every one granted, each with its own fence.
      const many = await Promise.all(
        agents.map((actorDid, i) => client.lease({ resource: `lock:batch/${i}`, actorDid })),
      );
      const fences = many.map((a) => (a.kind === 'granted' ? a.lease.fence : undefined));
      expect(new Set(fences).size).toBe(agents.length);
      await Promise.all(
        agents.map((actorDid, i) => client.release({ resource: `lock:batch/${i}`, actorDid })),
      );
      const { bundle } = await fetchLedger(replica.url);
      const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries.map(
        (e) => e.entry,
      );
      expect(entries.filter((e) => e.kind === 'grant')).toHaveLength(agents.length + 1);
      expect(meaningBreach(entries)).toBeUndefined();
    } finally {
      await replica.close();
    }
  });
});
