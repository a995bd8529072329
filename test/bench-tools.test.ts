import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pollModel } from '../bench/compare.js';
import { handover, loadWhileWaiting } from '../bench/handover.js';
import { load } from '../bench/loadgen.js';
import { blockingLabel, countPrefer, newPreferLog } from '../bench/prefer.js';
import {
  README_END,
  README_START,
  renderPage,
  renderReadmeTable,
  withReadmeTable,
} from '../bench/report.js';
import { echoHandler, listen, lockHandler } from '../bench/servers.js';
import { percentile } from '../bench/stats.js';
import { createPlaneClient } from '../src/plane/client.js';

/** The bench's own instruments, checked against real servers on 127.0.0.1:0. */

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});
const urlOf = (server: Server) => {
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const R = 'lock:deploy/production';
const did = (name: string) => `did:web:bench.example:${name}`;

describe('the bench lock plane', () => {
  it('first in, first out: a later asker cannot take a freed lock before the next in line', async () => {
    const t = { now: 1_000 };
    const client = createPlaneClient({
      apiUrl: urlOf(await listen(lockHandler(30_000, true, () => t.now))),
      wallNow: () => t.now,
    });
    const ask = (who: string) => client.lease({ resource: R, actorDid: did(who) });
    expect((await ask('a')).kind).toBe('granted');
    t.now += 10_000;
    expect(await ask('b')).toMatchObject({ kind: 'held', holder: did('a'), waitMs: 20_000 });
    expect((await ask('c')).kind).toBe('held');
    await client.release({ resource: R, actorDid: did('a') });
    expect(await ask('c')).toMatchObject({ kind: 'held', holder: did('b'), waitMs: 1 });
    expect((await ask('b')).kind).toBe('granted');
  });

  it('plain: whoever asks first after the release takes it; a lapsed lease is free', async () => {
    const t = { now: 0 };
    const client = createPlaneClient({
      apiUrl: urlOf(await listen(lockHandler(5_000, false, () => t.now))),
      wallNow: () => t.now,
    });
    const ask = (who: string) => client.lease({ resource: R, actorDid: did(who) });
    await ask('a');
    await ask('b');
    await client.release({ resource: R, actorDid: did('a') });
    expect((await ask('c')).kind).toBe('granted');
    t.now += 5_000;
    expect((await ask('b')).kind).toBe('granted');
  });
});

describe('the Prefer log', () => {
  async function preferEcho() {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      req.resume();
      const prefer = typeof req.headers.prefer === 'string' ? req.headers.prefer : undefined;
      seen.push(prefer);
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(prefer ? { 'preference-applied': prefer } : {}),
      });
      res.end(
        JSON.stringify({
          ok: true,
          lease: { id: 'l', resource: R, holder: did('a'), expiresAtMs: Date.now() + 30_000 },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: urlOf(server), seen };
  }

  it('counts an ask the plane held, from the gate client answer', async () => {
    const plane = await preferEcho();
    const client = createPlaneClient({ apiUrl: plane.url });
    const log = newPreferLog();
    countPrefer(log, await client.lease({ resource: R, actorDid: did('a') }, { waitSeconds: 8 }));
    await client.close();
    expect(plane.seen).toEqual(['wait=8']);
    expect(log).toEqual({ leaseRequests: 1, applied: 1 });
    expect(blockingLabel(log)).toContain('applied to 1 of 1 asks');
  });

  it('names the fallback when no ask was held', async () => {
    const plane = await preferEcho();
    const client = createPlaneClient({ apiUrl: plane.url });
    const log = newPreferLog();
    countPrefer(log, await client.lease({ resource: R, actorDid: did('a') }));
    await client.close();
    expect(plane.seen).toEqual([undefined]);
    expect(log).toEqual({ leaseRequests: 1, applied: 0 });
    expect(blockingLabel(log)).toBe(
      'gate, Prefer: wait sent; kernel ignored it, so this is the waitMs fallback',
    );
  });
});

describe('the load generator', () => {
  it('preloads distinct leases, then alternates lease and release on every connection', async () => {
    const url = urlOf(await listen(lockHandler(60_000, false)));
    const result = await load({
      url,
      connections: 4,
      seconds: 0.2,
      preload: 50,
      preloadLimitSeconds: 10,
      warmupSeconds: 0,
    });
    expect(result.preloaded).toBe(50);
    expect(result.errors).toBe(0);
    expect(result.requests).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
  });

  it('counts answers that are not 200 as errors', async () => {
    const url = urlOf(
      await listen((req, res, body) =>
        req.url?.endsWith('/release') ? echoHandler(req, res, '{') : echoHandler(req, res, body),
      ),
    );
    const result = await load({
      url,
      connections: 2,
      seconds: 0.2,
      preload: 0,
      preloadLimitSeconds: 1,
      warmupSeconds: 0,
    });
    expect(result.errors).toBeGreaterThan(0);
    expect(result.errors).toBeLessThan(result.requests);
  });
});

describe('handover and load scenarios', () => {
  it('counts a handover only for a release that found someone waiting', async () => {
    const url = urlOf(await listen(lockHandler(30_000, true)));
    const mode = { kind: 'poll' as const, url, intervalMs: 20 };
    const run = await handover(mode, {
      lanes: 2,
      waves: 1,
      agents: 3,
      tag: 't',
      arrivalJitterMs: 0,
    });
    // All ask in one turn; two releases find a waiter, the last one none.
    expect(run.samplesMs).toHaveLength(4);
    for (const ms of run.samplesMs) expect(ms).toBeGreaterThan(0);
  });

  it('counts every ask of the waiters, then cancels them and frees the lock', async () => {
    const url = urlOf(await listen(lockHandler(30_000, true)));
    const mode = { kind: 'poll' as const, url, intervalMs: 50 };
    const result = await loadWhileWaiting(mode, { waiters: 2, seconds: 0.3, tag: 'l' });
    expect(result.requests).toBeGreaterThanOrEqual(2);
    expect(result.requestsPerWaiterPerSecond).toBe(result.requests / 0.6);
    const client = createPlaneClient({ apiUrl: url });
    const after = await client.lease({ resource: 'lock:bench/l/load', actorDid: did('z') });
    expect(after.kind).toBe('granted');
  });
});

describe('figures', () => {
  it('percentile takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(values, 50), percentile(values, 99), percentile(values, 100)]).toEqual([
      50, 99, 100,
    ]);
    expect(percentile([], 50)).toBeNaN();
  });

  it('states a poller from its uniform model', () => {
    expect(pollModel(60_000)).toMatchObject({
      p50Ms: 30_000,
      p99Ms: 59_400,
      requestsPerWaiterPerSecond: 1 / 60,
    });
  });

  it('renders the page with the comparison and every missed target', () => {
    const page = renderPage({
      machine: '2 cores, Node v20',
      date: '2026-01-01T00:00:00Z',
      minutes: 5,
      waits: [pollModel(1_000)],
      rows: [
        {
          section: 'start-up',
          metric: 'main / bare node',
          value: 5,
          unit: '×',
          target: '≤ 4',
          ok: false,
        },
      ],
    });
    expect(page).toContain(
      '| poll every 1 s (model, not run) | model | 500 | 950 | 990 | 1,000 | 1 |',
    );
    expect(page).toContain('- start-up: main / bare node = 5 × (target ≤ 4)');
  });
});

describe("the README's table", () => {
  const rows = [
    { section: 'keeper', metric: 'peak RSS', value: 59.2, unit: 'MB', target: '≤ 60', ok: true },
    { section: 'keeper', metric: 'renewals', value: 120, unit: '' },
    { section: 'start-up', metric: 'ratio', value: 4.98, unit: '×', target: '≤ 4', ok: false },
  ];
  const machine = '2 cores (AMD EPYC), 24 GiB, Node v20.20.2; load 1.1';

  it('lists the rows with a target, marked, between the markers and nowhere else', () => {
    const table = renderReadmeTable({ machine, date: '2026-12-01T04:00:00Z', rows });
    expect(table).toContain('2026-12-01, 2 cores, Node v20.20.2');
    expect(table).toContain('| keeper: peak RSS | 59.2 MB | ≤ 60 ✓ |');
    expect(table).toContain('| start-up: ratio | 4.98 × | ≤ 4 ✗ |');
    expect(table).not.toContain('renewals');
    const readme = `# A\n\n${README_START}\nold\n${README_END}\n\n# B\n`;
    expect(withReadmeTable(readme, table)).toBe(
      `# A\n\n${README_START}\n\n${table}\n\n${README_END}\n\n# B\n`,
    );
    expect(() => withReadmeTable('# A\n', table)).toThrow(/no <!-- bench:start -->/);
  });
});
