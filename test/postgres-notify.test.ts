import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { expect, it } from 'vitest';
import { Notifier } from '../src/kernel/notify/notify.js';
import { fetchLedger } from '../src/ledger/remote.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { createPlaneClient } from '../src/plane/client.js';
import { pgReplicas } from './support/pg-replicas.js';
import { describePostgres } from './support/postgres.js';
import { startReplica } from './support/pg-kernel.js';

const SECRET = 'a-notify-secret-of-some-length';
const agent = (n: number) => `did:web:acme.example:agent:${n}`;

describePostgres('notifications from two PostgreSQL replicas', () => {
  const kit = pgReplicas({ lifo: true });
  const cleanups = { push: kit.cleanup };

  it('tells each change once, whichever replica made it, each delivery in the ledger order', async () => {
    // One receiver behind both replicas' notifiers: each body is checked and flattened in arrival order.
    const bodies: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        void verify(SECRET, body, String(req.headers['x-hub-signature-256'])).then((ok) => {
          if (ok) bodies.push(body);
          res.writeHead(ok ? 204 : 401).end();
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const replicas = [];
    for (let i = 0; i < 2; i += 1) {
      const replica = await startReplica(kit.schema);
      const notifier = new Notifier({ urls: [url], secret: SECRET });
      notifier.attach(replica.pg);
      cleanups.push(async () => {
        await replica.close();
        await notifier.close(2_000);
      });
      replicas.push(replica);
    }
    const clients = replicas.map((r) => createPlaneClient({ apiUrl: r.url }));
    cleanups.push(async () => clients.forEach((c) => c.close()));

    // Each resource is taken on one replica and given back on the other, several times over.
    await Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        const resource = `lock:notify/${n}`;
        for (let round = 0; round < 3; round += 1) {
          const granted = await clients[(n + round) % 2]!.lease({ resource, actorDid: agent(n) });
          expect(granted.kind).toBe('granted');
          await clients[(n + round + 1) % 2]!.release({ resource, actorDid: agent(n) });
        }
      }),
    );
    // A ledger read sequences everything committed; the sequencing replica tells it.
    const { bundle } = await fetchLedger(replicas[1]!.url);
    const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries
      .map((e) => e.entry)
      .filter((e) => e.resource.startsWith('lock:notify/'));
    expect(entries).toHaveLength(4 * 3 * 2);
    const told = () =>
      bodies.map((body) => {
        const parsed = JSON.parse(body) as { kind: string; notifications?: unknown[] };
        return (parsed.kind === 'batch' ? parsed.notifications! : [parsed]) as Array<{
          kind: string;
          resource: string;
          leaseId: string;
        }>;
      });
    const key = (n: { resource: string; kind: string; leaseId?: string | undefined }) =>
      `${n.resource} ${n.kind} ${n.leaseId}`;
    for (let i = 0; i < 100 && told().flat().length < entries.length; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Once each, not once per replica: the replica that sequenced a change tells it.
    expect(told().flat().map(key).sort()).toEqual(entries.map(key).sort());
    // Each delivery in the ledger's order (across replicas a receiver may order by time or fence).
    const at = new Map(entries.map((e, i) => [key(e), i]));
    for (const delivery of told()) {
      const places = delivery.map((n) => at.get(key(n))!);
      expect(places).toEqual([...places].sort((a, b) => a - b));
    }
  });
});
