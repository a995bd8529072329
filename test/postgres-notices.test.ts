import pg from 'pg';
import { expect, it } from 'vitest';
import type { KernelEvent } from '../src/kernel/rules/event.js';
import { connectionConfig } from '../src/kernel/postgres/connect.js';
import { noticesSchema } from '../src/kernel/postgres/listen.js';
import { NoticeSender, changesOf, noticePrefix } from '../src/kernel/postgres/notices.js';
import { createPlaneClient } from '../src/plane/client.js';
import { startReplica } from './support/pg-kernel.js';
import { pgReplicas } from './support/pg-replicas.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';

/**
 * What one replica sends on NOTIFY (src/kernel/postgres/notices.ts), read by a
 * plain LISTEN connection: every change in its order, in as few payloads as
 * fit, each naming its replica, none over PostgreSQL's limit.
 */

const event = (resource: string, kind: KernelEvent['kind'], n: number, reason?: string) =>
  ({
    kind,
    atMs: 1_700_000_000_000 + n,
    resource,
    actorDid: 'did:web:acme.example:agent:1',
    leaseId: `lease-${n}`,
    fence: n,
    ...(reason ? { reason } : {}),
  }) satisfies KernelEvent;

describePostgres('change notices on PostgreSQL', () => {
  const kit = pgReplicas({ lifo: true });
  const cleanups = { push: kit.cleanup };

  /** A sender named `from` and a LISTEN connection that keeps every payload. */
  const setUp = async (from: string) => {
    const channel = `lease_gate_${kit.schema}`;
    const heard: string[] = [];
    const listener = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema: kit.schema }));
    listener.on('error', () => undefined);
    await listener.connect();
    listener.on('notification', (m) => {
      if (m.channel === channel && m.payload !== undefined) heard.push(m.payload);
    });
    await listener.query(`LISTEN ${channel}`);
    const logged: string[] = [];
    const sender = new NoticeSender(
      new pg.Pool({ ...connectionConfig({ url: POSTGRES_URL, schema: kit.schema }), max: 1 }),
      channel,
      (line) => logged.push(line),
      from,
    );
    cleanups.push(async () => {
      await sender.close();
      await listener.end();
    });
    /** Payloads heard until one names `resource` (bounded: PostgreSQL delivers within milliseconds). */
    const until = async (resource: string) => {
      const named = JSON.stringify(resource);
      for (let i = 0; i < 200 && !heard.some((p) => p.includes(named)); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return heard;
    };
    return { sender, heard, until, logged };
  };

  it('sends a batch of changes to several resources as one payload naming its replica', async () => {
    const { sender, until, heard } = await setUp('replica-a');
    const events = [
      event('lock:a', 'grant', 1),
      event('lock:b', 'grant', 2),
      event('lock:a', 'release', 3),
      event('lock:c', 'revoke', 4, 'incident'),
    ];
    sender.changed(changesOf(events));
    sender.freed('lock:d');
    await sender.idle();
    await until('lock:d');
    // The freed notice queued while the first statement was out may come in a payload of its own.
    const changes = heard.flatMap((payload) => {
      expect(payload.startsWith(noticePrefix('replica-a'))).toBe(true);
      const parsed = noticesSchema.parse(JSON.parse(payload));
      expect(parsed.from).toBe('replica-a');
      return parsed.changes;
    });
    expect(heard.length).toBeLessThanOrEqual(2);
    expect(changes).toEqual([
      { resource: 'lock:a', events: [events[0], events[2]] },
      { resource: 'lock:b', events: [events[1]] },
      { resource: 'lock:c', events: [events[3]] },
      { resource: 'lock:d', events: [], freed: true },
    ]);
  });

  it('keeps every payload under the limit, splits what does not fit, and tells an oversized event as freed', async () => {
    const { sender, until, heard, logged } = await setUp('replica-b');
    // 60 resources with events of about 400 bytes: more than one payload's worth.
    const reason = 'r'.repeat(300);
    const many = Array.from({ length: 60 }, (_, i) => event(`lock:many/${i}`, 'revoke', i, reason));
    const huge = event('lock:huge', 'revoke', 99, 'x'.repeat(8_000));
    sender.changed(changesOf([...many, huge, event('lock:after', 'grant', 100)]));
    await sender.idle();
    await until('lock:after');
    expect(heard.length).toBeGreaterThan(1);
    for (const payload of heard) expect(Buffer.byteLength(payload)).toBeLessThan(8_000);
    const changes = heard.flatMap((p) => noticesSchema.parse(JSON.parse(p)).changes);
    expect(changes.map((c) => c.resource)).toEqual([
      ...many.map((e) => e.resource),
      'lock:huge',
      'lock:after',
    ]);
    expect(changes.slice(0, 60).map((c) => c.events)).toEqual(many.map((e) => [e]));
    expect(changes[60]).toEqual({ resource: 'lock:huge', events: [], freed: true });
    expect(logged).toEqual([]);
  });

  it("tells a replica's listeners its own changes at once, another's by NOTIFY where it listens, and nothing else", async () => {
    const replicas = [await startReplica(kit.schema), await startReplica(kit.schema)];
    cleanups.push(async () => {
      for (const r of replicas) await r.close();
    });
    const told = replicas.map(() => [] as string[]);
    replicas.forEach((r, i) =>
      r.pg.onChange((resource, e) => {
        if (resource.startsWith('lock:told/')) told[i]!.push(`${e.kind} ${resource}`);
      }),
    );
    // The second replica listens for lock:told/1 only.
    await replicas[1]!.pg.listen('lock:told/1');
    const admin = new pg.Client(connectionConfig({ url: POSTGRES_URL, schema: kit.schema }));
    await admin.connect();
    cleanups.push(() => admin.end());
    const rows = async () =>
      (await admin.query('SELECT resource FROM lease_gate_listening ORDER BY resource')).rows;
    expect(await rows()).toEqual([{ resource: 'lock:told/1' }]);
    const client = createPlaneClient({ apiUrl: replicas[0]!.url });
    cleanups.push(async () => client.close());
    const actorDid = 'did:web:acme.example:agent:7';
    // told/2 between two rounds on told/1: had its notices been sent, they would come before the last.
    for (const n of [1, 2, 1]) {
      const resource = `lock:told/${n}`;
      expect((await client.lease({ resource, actorDid })).kind).toBe('granted');
      // Told on the replica that made it by the time it answered.
      expect(told[0]!.at(-1)).toBe(`grant ${resource}`);
      await client.release({ resource, actorDid });
    }
    const round = (n: number) => [`grant lock:told/${n}`, `release lock:told/${n}`];
    const want = [...round(1), ...round(1)];
    for (let i = 0; i < 200 && told[1]!.length < want.length; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // Its own payloads came back to the first replica too; a little longer shows they were skipped.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(told).toEqual([[...round(1), ...round(2), ...round(1)], want]);
    // A replica that stops takes its registrations with it.
    await replicas[1]!.close();
    expect(await rows()).toEqual([]);
  });
});
