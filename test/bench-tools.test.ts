import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pollModel } from '../bench/compare.js';
import { handover, loadWhileWaiting } from '../bench/handover.js';
import { load } from '../bench/loadgen.js';
import { blockingLabel, countPrefer, newPreferLog } from '../bench/prefer.js';
import {
  keptNotes,
  NOTES_END,
  NOTES_START,
  SUMMARY_END,
  SUMMARY_START,
  renderPage,
  renderSummaryTable,
  withSummaryTable,
  shortSection,
} from '../bench/report.js';
import {
  etcdGrantBody,
  etcdLeaseId,
  etcdMissing,
  etcdRevokeBody,
  etcdTxnBody,
  etcdTxnSucceeded,
} from '../bench/etcd.js';
import { longRunRows, rssMb, type LongRunResult } from '../bench/long-run.js';
import {
  parsePgbenchTps,
  parsePgbenchTransactions,
  pgbenchEnv,
  UPSERT_SCRIPT,
} from '../bench/pgbench.js';
import { PLANE_SECTION, planeTable, planeTargets, type PlaneCells } from '../bench/plane.js';
import { echoHandler, listen, lockHandler } from '../bench/servers.js';
import { percentile } from '../bench/stats.js';
import { createPlaneClient } from '../src/plane/client.js';
import { R } from './support/names.js';

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

  it("keeps the page's hand-written notes through a new run, and adds none it did not have", () => {
    const notes = `${NOTES_START}\n## Start-up, measured by hand\n\nTried and not kept: …\n${NOTES_END}`;
    const options = { machine: '2 cores', date: '2026-01-01T00:00:00Z', minutes: 1, waits: [] };
    const old = renderPage({ ...options, rows: [], notes });
    const page = renderPage({ ...options, rows: [], notes: keptNotes(old) });
    expect(page.indexOf('## Targets')).toBeLessThan(page.indexOf(NOTES_START));
    expect(keptNotes(page)).toBe(notes);
    expect(keptNotes(renderPage({ ...options, rows: [] }))).toBe('');
  });
});

describe("the performance page's summary table", () => {
  const rows = [
    { section: 'keeper', metric: 'peak RSS', value: 59.2, unit: 'MB', target: '≤ 60', ok: true },
    { section: 'keeper', metric: 'renewals', value: 120, unit: '' },
    { section: 'start-up', metric: 'ratio', value: 4.98, unit: '×', target: '≤ 4', ok: false },
  ];
  const machine = '2 cores (AMD EPYC), 24 GiB, Node v20.20.2; load 1.1';

  it('lists the rows with a target, marked, between the markers and nowhere else', () => {
    const table = renderSummaryTable({ machine, date: '2026-12-01T04:00:00Z', rows });
    expect(table).toContain('2026-12-01, 2 cores, Node v20.20.2');
    expect(table).toContain('| keeper: peak RSS | 59.2 MB | ≤ 60 ✓ |');
    expect(table).toContain('| start-up: ratio | 4.98 × | ≤ 4 ✗ |');
    expect(table).not.toContain('renewals');
    const readme = `# A\n\n${SUMMARY_START}\nold\n${SUMMARY_END}\n\n# B\n`;
    expect(withSummaryTable(readme, table)).toBe(
      `# A\n\n${SUMMARY_START}\n\n${table}\n\n${SUMMARY_END}\n\n# B\n`,
    );
    expect(() => withSummaryTable('# A\n', table)).toThrow(/no <!-- bench:start -->/);
    expect(
      renderPage({ machine, date: '2026-12-01T04:00:00Z', minutes: 1, waits: [], rows }),
    ).toContain(`## Summary\n\n${SUMMARY_START}\n${SUMMARY_END}`);
  });
});

describe('the plane table (issue #23)', () => {
  const cycle = (cyclesPerSecond: number, p99Ms = 5) => ({
    cycles: cyclesPerSecond * 5,
    cyclesPerSecond,
    p50Ms: 1,
    p99Ms,
    errors: 0,
  });

  it("reads pgbench's tps without the connection time, and refuses an output without one", () => {
    const out = [
      'pgbench (15.20 (Debian 15.20-0+deb12u1))',
      'number of transactions actually processed: 37285',
      'latency average = 2.145 ms',
      'initial connection time = 12.071 ms',
      'tps = 7457.123456 (without initial connection time)',
    ].join('\n');
    expect(parsePgbenchTps(out)).toBe(7457.123456);
    expect(parsePgbenchTransactions(out)).toBe(37285);
    expect(() => parsePgbenchTransactions('tps = 1 (without initial connection time)')).toThrow(
      /no "number of transactions actually processed" line/,
    );
    const old =
      'tps = 90.5 (including connections establishing)\ntps = 91.25 (excluding connections establishing)\n';
    expect(parsePgbenchTps(old)).toBe(91.25);
    expect(() => parsePgbenchTps('number of transactions actually processed: 0\n')).toThrow(
      /no "tps = …" line in pgbench's output: number of transactions actually processed: 0/,
    );
  });

  it('gives pgbench the database of the URL, the bench schema, and an upsert of its own row', () => {
    expect(
      pgbenchEnv('postgres://bench:s%40cret@127.0.0.1:5433/test', 'lease_gate_bench_1a'),
    ).toEqual({
      PGHOST: '127.0.0.1',
      PGPORT: '5433',
      PGDATABASE: 'test',
      PGUSER: 'bench',
      PGPASSWORD: 's@cret',
      PGOPTIONS: '-c search_path=lease_gate_bench_1a',
    });
    expect(() => pgbenchEnv('postgres://127.0.0.1/test', 'x; DROP')).toThrow(/unsafe schema name/);
    expect(() => pgbenchEnv('http://127.0.0.1/test', 's')).toThrow(/not a postgres:\/\/ URL/);
    expect(UPSERT_SCRIPT).toMatch(/VALUES \(:client_id, 1\) ON CONFLICT \(id\) DO UPDATE/);
  });

  it("encodes etcd's lease grant, the put-if-absent transaction and the revoke as its gateway reads them", () => {
    expect(JSON.parse(etcdGrantBody(30))).toEqual({ TTL: 30 });
    const txn = JSON.parse(etcdTxnBody('lock/bench/3', 'c3', '7587869386617372421')) as {
      compare: { key: string; target: string; result: string; create_revision: string }[];
      success: { request_put: { key: string; value: string; lease: string } }[];
    };
    const text = (b64: string) => Buffer.from(b64, 'base64').toString();
    expect(txn.compare).toEqual([
      {
        key: txn.success[0]!.request_put.key,
        target: 'CREATE',
        result: 'EQUAL',
        create_revision: '0',
      },
    ]);
    expect(text(txn.compare[0]!.key)).toBe('lock/bench/3');
    expect(text(txn.success[0]!.request_put.value)).toBe('c3');
    expect(txn.success[0]!.request_put.lease).toBe('7587869386617372421');
    expect(() => etcdTxnBody('k', 'v', '12; x')).toThrow(/not a decimal id/);
    expect(JSON.parse(etcdRevokeBody('42'))).toEqual({ ID: '42' });
    expect(etcdLeaseId({ ID: '7587869386617372421', TTL: '30' })).toBe('7587869386617372421');
    expect(etcdLeaseId({ ID: 42 })).toBe('42');
    expect(() => etcdLeaseId({ error: 'etcdserver: too many requests' })).toThrow(/no lease id/);
    expect(etcdTxnSucceeded({ succeeded: true })).toBe(true);
    expect(etcdTxnSucceeded({ header: {} })).toBe(false);
    // CI machines have no etcd: the bench skips its column with this line.
    expect(etcdMissing('/nonexistent/etcd')).toMatch(
      /^no \/nonexistent\/etcd binary \(Debian package etcd-server\): .*ENOENT/,
    );
  });

  it('renders a row per client count, p99 where resources are shared, and why a column is missing', () => {
    const cells: PlaneCells = {
      'kernel, memory': [cycle(4000), cycle(9588.4), cycle(10141), cycle(4421, 12.34)],
      'etcd 3.4 (lease grant + txn put + lease revoke)': Array.from({ length: 4 }, () => ({
        skipped: 'no etcd binary (Debian package etcd-server)',
      })),
      'pgbench, one-row upsert per transaction': [
        { tps: 4014 },
        { tps: 7457 },
        { tps: 5455 },
        undefined,
      ],
    };
    const table = planeTable(cells);
    expect(table).toContain('| 16 | 9,588 /s | — | — | — | — | skipped | 7,457 tps |');
    expect(table).toContain('| 64, 8 shared resources | 4,421 /s (p99 12 ms) |');
    expect(table).toContain('| skipped | — |');
    expect(table).toContain(
      'Skipped (etcd 3.4 (lease grant + txn put + lease revoke)): no etcd binary (Debian package etcd-server).',
    );
  });

  it("states issue #23's targets at 16 clients, and the handover across replicas", () => {
    const rows = planeTargets(
      {
        'PostgreSQL, 1 replica': [cycle(100), cycle(1000), cycle(1200), cycle(300)],
        '2 replicas': [cycle(100), cycle(950), cycle(1200), cycle(300)],
        '3 replicas': [cycle(100), cycle(800), cycle(1200), cycle(300)],
        'etcd 3.4 (lease grant + txn put + lease revoke)': [
          cycle(1),
          cycle(1100),
          cycle(1),
          cycle(1),
        ],
        'pgbench, one-row upsert per transaction': [
          { tps: 1 },
          { tps: 3000 },
          { tps: 1 },
          undefined,
        ],
      },
      [{ replicas: 2, rounds: 100, p50Ms: 4, p99Ms: 25 }],
    );
    const by = (m: string) => rows.find((r) => r.metric.startsWith(m));
    expect(by('1 replica, 16 clients: changes/s')).toMatchObject({
      value: 0.67,
      ok: true,
      pageOnly: true,
    });
    expect(by('1 replica, 16 clients: cycles / etcd')).toMatchObject({ value: 0.91, ok: false });
    expect(by('2 replicas / 1 replica')).toMatchObject({ value: 0.95, ok: true });
    expect(by('3 replicas / 1 replica')).toMatchObject({ value: 0.8, ok: false });
    expect(by('handover across replicas')?.metric).toMatch(/p50$/);
    expect(rows.find((r) => r.metric.endsWith('p99'))).toMatchObject({
      value: 25,
      target: '≤ 20',
      ok: false,
    });
    expect(rows.every((r) => r.section === PLANE_SECTION)).toBe(true);
    const skipped = Array.from({ length: 4 }, () => ({ skipped: 'no PostgreSQL' }));
    const none = planeTargets({ 'PostgreSQL, 1 replica': skipped }, []);
    expect(none).toMatchObject([
      { metric: '1 replica, 16 clients', value: 'skipped: no PostgreSQL' },
    ]);
    expect(none[0]!.target).toBeUndefined();
  });

  it("reads a kernel's RSS from /proc, and states the long run against its targets", () => {
    expect(rssMb(1, 'Name:\tnode\nVmRSS:\t  51200 kB\nVmData:\t1 kB\n')).toBeCloseTo(52.43, 2);
    expect(rssMb(1, 'Name:\tnode\n')).toBeNaN();
    const result: LongRunResult = {
      changes: 1_000_000,
      changesPerSecond: 4000,
      rssStartMb: 50,
      rssFirstMb: 60,
      rssAfterMb: 130,
      emptyStartMs: 150,
      restartMs: 900,
      logMb: 400,
      exportEntries: 200_000,
      bundleMb: 211,
      exportPeakRssMb: 1480,
      verifyPeakRssMb: 200,
    };
    const rows = longRunRows(result);
    const by = (m: string) => rows.find((r) => r.metric.startsWith(m));
    expect(by('RSS after 1,000,000 / after 10,000')).toMatchObject({
      value: 2.17,
      target: '≤ 2',
      ok: false,
    });
    expect(by('restart on 1,000,000 changes')).toMatchObject({ value: 900, ok: true });
    expect(by('ledger export of 200,000 entries (211 MB bundle)')).toMatchObject({ ok: false });
    expect(by('verify of the 200,000 entries')).toMatchObject({ value: 200, ok: true });
  });

  it("keeps page-only rows out of README's table and puts the plane table on the page", () => {
    const rows = [
      { section: 'keeper', metric: 'peak RSS', value: 59.2, unit: 'MB', target: '≤ 60', ok: true },
      {
        section: PLANE_SECTION,
        metric: 'ratio',
        value: 0.2,
        unit: '×',
        target: '≥ 0.5',
        ok: false,
        pageOnly: true,
      },
    ];
    const table = renderSummaryTable({ machine: '2 cores', date: '2026-12-01T04:00:00Z', rows });
    expect(table).toContain('keeper: peak RSS');
    expect(table).not.toContain(PLANE_SECTION);
    const page = renderPage({
      machine: '2 cores',
      date: '2026-12-01T04:00:00Z',
      minutes: 1,
      waits: [],
      rows: rows.slice(0, 1),
      extra: { markdown: '## The plane side by side (issue #23)', rows: rows.slice(1) },
    });
    expect(page).toContain(
      `\n## The plane side by side (issue #23)\n\n### ${PLANE_SECTION}\n\n| metric | value | unit | target |`,
    );
    expect(page).toContain(`- ${PLANE_SECTION}: ratio = 0.2 × (target ≥ 0.5)`);
  });
});

describe("the README table's section names", () => {
  it('drop their conditions but keep the Node version', () => {
    expect(shortSection('ledger export of 200000 entries beside 12 renewing clients')).toBe(
      'ledger export of 200000 entries',
    );
    expect(shortSection('kernel throughput, 16 keep-alive clients')).toBe('kernel throughput');
    expect(shortSection('notifications (--notify to a receiver on loopback)')).toBe(
      'notifications',
    );
    expect(shortSection('start-up (Node v24.22.3)')).toBe('start-up (Node v24.22.3)');
    expect(shortSection('start-up (Node v24.22.3, 30 pairs)')).toBe(
      'start-up (Node v24.22.3, 30 pairs)',
    );
    expect(shortSection('PostgreSQL plane (issue #59), against pgbench')).toBe(
      'PostgreSQL plane (issue #59)',
    );
  });
});
