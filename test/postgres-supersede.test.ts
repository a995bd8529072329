import { expect, it } from 'vitest';
import type { Deploy } from '../src/plane/deploy.js';
import { getJson, post as send } from './support/http.js';
import { pgReplicas, waitsInQueue } from './support/pg-replicas.js';
import { describePostgres } from './support/postgres.js';
import { LEASE } from './support/names.js';

/**
 * Superseding across PostgreSQL replicas: a run held (`Prefer: wait`) on one
 * replica is answered `superseded` soon after a newer run of its lane starts
 * waiting on the other, not at its next told wait (20 s here).
 */

const R = 'lock:deploy/supersede-replicas';

const post = (url: string, body: unknown, prefer?: string) =>
  send(url, LEASE, body, { prefer, timeoutMs: 30_000 });
const queued = (url: string, actorDid: string) => waitsInQueue(url, R, actorDid);

const run = (n: number): Deploy => ({
  repository: 'acme/shop',
  workflow: '.github/workflows/deploy.yml',
  ref: 'refs/heads/main',
  commit: n.toString(16).padStart(40, '0'),
  runNumber: n,
  runAttempt: 1,
  runUrl: `https://github.com/acme/shop/actions/runs/${9000 + n}`,
});
const did = (n: number) => `did:web:github.com:acme:shop:runs:${9000 + n}`;

describePostgres('superseding across PostgreSQL replicas', () => {
  const replicas = pgReplicas();

  it('answers a run held on one replica superseded soon after a newer run waits on the other', async () => {
    // The next in line is told to ask again only after 20 s: a prompt answer can only come from a wake.
    const [a, b] = await replicas.pair({ nextInLineWaitMs: 20_000 });
    expect(
      (await post(a.url, { resource: R, actorDid: 'did:web:acme.example:other' })).body,
    ).toMatchObject({
      ok: true,
    });
    const older = post(
      a.url,
      { resource: R, actorDid: did(5), deploy: run(5), queue: 'newest' },
      'wait=25',
    );
    await queued(a.url, did(5));
    const newer = post(
      b.url,
      { resource: R, actorDid: did(6), deploy: run(6), queue: 'newest' },
      'wait=25',
    );
    await queued(b.url, did(6));
    const joinedAt = performance.now();
    const answer = await older;
    expect(answer.body).toEqual({ ok: false, reason: 'superseded', by: run(6).runUrl });
    expect(answer.at - joinedAt).toBeLessThan(10_000); // not its next ask, 20 s on
    // The newer run keeps its place (behind the holder), and nobody else was superseded.
    const { resources } = (await getJson(b.url, '/api/v1/kernel/resources')).body as {
      resources: Array<{ resource: string; queue: Array<{ actorDid: string }> }>;
    };
    expect(resources.find((r) => r.resource === R)?.queue.map((w) => w.actorDid)).toEqual([did(6)]);
    // And it is granted once the holder gives back.
    await send(a.url, '/api/v1/acp/coordination/release', {
      resource: R,
      actorDid: 'did:web:acme.example:other',
    });
    expect((await newer).body).toMatchObject({ ok: true, lease: { holder: did(6) } });
  }, 60_000);
});
