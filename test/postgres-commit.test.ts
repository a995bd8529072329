import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { commitOnce, type Optimistic } from '../src/kernel/postgres/commit.js';
import { planeLocks } from '../src/kernel/postgres/locks.js';
import { migrate } from '../src/kernel/postgres/migrations.js';
import { DbClock, RowCache } from '../src/kernel/postgres/rows.js';
import type { CommitContext, RuleSettings } from '../src/kernel/postgres/transaction.js';
import { workFor, type Work } from '../src/kernel/rules/work.js';
import { createPlaneClient } from '../src/plane/client.js';
import { describePostgres, POSTGRES_URL, testSchema } from './support/postgres.js';
import { pgReplicas } from './support/pg-replicas.js';
import { A, B, C, R } from './support/names.js';

const settings: RuleSettings = {
  ttlMs: 30_000,
  nextInLineWaitMs: 20,
  lockDelayMs: 30_000,
  random: () => 0.5,
};

describePostgres('the one-round-trip commit against a real PostgreSQL', () => {
  let schema: string;
  let drop: () => Promise<void>;
  let db: pg.Client;
  beforeAll(async () => {
    ({ schema, drop } = await testSchema());
    db = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema }));
    await db.connect();
    await migrate(db, schema);
  });
  afterAll(async () => {
    await db.end();
    await drop();
  });

  /** A replica's side of a commit: its own kept rows and clock, on a connection of its own. */
  async function replica(name: string) {
    const client = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema }));
    await client.connect();
    const context: CommitContext & Optimistic = {
      locks: planeLocks(schema),
      replica: name,
      rows: new RowCache(),
      clock: new DbClock(),
    };
    const commit = async (work: Work[]) => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const done = await commitOnce(client, work, settings, context);
        if (!done.conflict) return done;
      }
      throw new Error('three conflicts in a row');
    };
    return {
      client,
      context,
      commit,
      once: (work: Work[]) => commitOnce(client, work, settings, context),
    };
  }
  const row = async (resource: string) =>
    (
      await db.query<{ state: { lease: { holder: string; fence: number; id: string } | null } }>(
        'SELECT state FROM lease_gate_resources WHERE resource = $1',
        [resource],
      )
    ).rows[0]?.state;
  const pending = async () =>
    (
      await db.query<{ event: string }>('SELECT event FROM lease_gate_pending ORDER BY key')
    ).rows.map(
      (r) =>
        JSON.parse(r.event) as { kind: string; actorDid: string; fence: number; leaseId: string },
    );

  it('refuses a write decided on a row version another replica has moved, and writes nothing', async () => {
    const [one, two] = [await replica('one'), await replica('two')];
    const resource = `${R}/stale`;
    // Both know the clock and the row (free, version kept).
    await one.commit([workFor(resource, { kind: 'lease', actorDid: A })]);
    await one.commit([workFor(resource, { kind: 'release', actorDid: A })]);
    await two.commit([workFor(resource, { kind: 'status' })]);
    // One grants again: two's kept row (free) is now stale.
    await one.commit([workFor(resource, { kind: 'lease', actorDid: A })]);
    const before = await pending();

    const stale = await two.once([workFor(resource, { kind: 'lease', actorDid: B })]);
    expect(stale).toEqual({ conflict: true });
    expect((await row(resource))?.lease?.holder).toBe(A);
    expect(await pending()).toEqual(before);

    // Decided again on the row the refusal answered: held by A, nothing granted to B.
    const again = await two.once([workFor(resource, { kind: 'lease', actorDid: B })]);
    expect(again.conflict).toBe(false);
    if (again.conflict) return;
    expect(again.decisions[0]!.reply).toMatchObject({ ok: false, reason: 'lease_held', holder: A });
    expect((await pending()).filter((e) => e.kind === 'grant' && e.actorDid === B)).toEqual([]);
    await Promise.all([one.client.end(), two.client.end()]);
  });

  it('refuses a row made meanwhile, and a decision ahead of the database clock', async () => {
    const [one, two] = [await replica('one'), await replica('two')];
    const resource = `${R}/new`;
    await two.commit([workFor(`${R}/clock`, { kind: 'status' })]);
    await one.commit([workFor(resource, { kind: 'lease', actorDid: A })]);
    // Two never saw the row: it guesses the resource is new, and is refused.
    expect(await two.once([workFor(resource, { kind: 'lease', actorDid: B })])).toEqual({
      conflict: true,
    });
    expect((await row(resource))?.lease?.holder).toBe(A);

    // A clock projected ahead of the database's: refused, and started again from the database's.
    const clock = new DbClock();
    clock.saw(Date.now() + 60_000);
    const ahead = { ...two.context, clock, rows: new RowCache() };
    const refused = await commitOnce(
      two.client,
      [workFor(`${R}/ahead`, { kind: 'lease', actorDid: C })],
      settings,
      ahead,
    );
    expect(refused).toEqual({ conflict: true });
    expect(await row(`${R}/ahead`)).toBeUndefined();
    expect(clock.now()!).toBeLessThan(Date.now() + 30_000);
    await Promise.all([one.client.end(), two.client.end()]);
  });

  it("gives a new version to a write by an older replica's statements (a rolling upgrade)", async () => {
    const one = await replica('one');
    const resource = `${R}/older`;
    await one.commit([workFor(resource, { kind: 'status' })]);
    await one.commit([workFor(resource, { kind: 'lease', actorDid: A })]);
    // The statement of schema version 3's lg_write: the state, never the version.
    await db.query(
      `UPDATE lease_gate_resources SET state = jsonb_set(state, '{lease}', 'null') WHERE resource = $1`,
      [resource],
    );
    expect(await one.once([workFor(resource, { kind: 'release', actorDid: A })])).toEqual({
      conflict: true,
    });
    await one.client.end();
  });

  it('fills the fences the database drew into the answers, the rows and the entries', async () => {
    const one = await replica('one');
    await one.commit([workFor(`${R}/warm`, { kind: 'status' })]);
    const names = [`${R}/f1`, `${R}/f2`, `${R}/f3`];
    const done = await one.commit([
      ...names.map((r) => workFor(r, { kind: 'lease', actorDid: A })),
      workFor(names[0]!, { kind: 'release', actorDid: A }),
      workFor(names[0]!, { kind: 'lease', actorDid: B }),
    ]);
    const leases = done.decisions
      .map((d) => d.reply as { ok?: boolean; lease?: { id: string; fence: number } })
      .filter((r) => r?.lease)
      .map((r) => r.lease!);
    const fences = leases.map((l) => l.fence);
    expect(fences.every((f) => f > 0)).toBe(true);
    expect([...fences].sort((a, b) => a - b)).toEqual(fences);
    for (const l of leases)
      expect(l.id).toMatch(new RegExp(`^lease_${l.fence.toString(36)}_[0-9a-f]{8}$`));
    const last = leases.at(-1)!;
    expect((await row(names[0]!))?.lease).toMatchObject({
      holder: B,
      fence: last.fence,
      id: last.id,
    });
    const entries = (await pending()).filter((e) =>
      names.includes((e as { resource?: string }).resource ?? ''),
    );
    expect(entries.map((e) => e.fence)).toEqual([
      fences[0],
      fences[1],
      fences[2],
      fences[0],
      fences[3],
    ]);
    expect(entries.every((e) => !e.leaseId.includes('-') && !e.leaseId.includes('\u0001'))).toBe(
      true,
    );
    await one.client.end();
  });
});

describePostgres('two replicas racing on one resource through HTTP', () => {
  const replicas = pgReplicas();

  it('refuses the grant a replica decided on a row the other had moved', async () => {
    const [one, two] = await replicas.pair();
    const a = createPlaneClient({ apiUrl: one.url });
    const b = createPlaneClient({ apiUrl: two.url });
    const resource = `${R}/race`;
    // Replica two reads the resource free, then replica one grants it: two's row is stale.
    expect(await b.status(resource)).toBeNull();
    const granted = await a.lease({ resource, actorDid: A });
    expect(granted.kind).toBe('granted');
    expect(await b.lease({ resource, actorDid: B })).toMatchObject({ kind: 'held', holder: A });

    // Many at once on both replicas, each having read it free: one holder, fences rising.
    const burst = `${R}/burst`;
    expect([await a.status(burst), await b.status(burst)]).toEqual([null, null]);
    const agents = Array.from({ length: 12 }, (_, i) => `did:web:acme.example:agent:r${i}`);
    const answers = await Promise.all(
      agents.map((actorDid, i) => (i % 2 ? b : a).lease({ resource: burst, actorDid })),
    );
    const winners = answers.filter((x) => x.kind === 'granted');
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    if (winner.kind !== 'granted' || granted.kind !== 'granted') throw new Error('expected grants');
    expect(winner.lease.fence).toBeGreaterThan(granted.lease.fence!);
    const holder = { holder: winner.lease.holder, id: winner.lease.id };
    expect([await a.status(burst), await b.status(burst)]).toMatchObject([holder, holder]);
  });
});
