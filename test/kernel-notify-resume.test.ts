import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { NotifierThread } from '../src/kernel/notify/notify-thread.js';
import { cursorFileOf } from '../src/kernel/notify/notify-cursor.js';
import { startKernelServer } from '../src/kernel/http/server.js';
import { fileStore } from '../src/kernel/store/store.js';
import { createPlaneClient } from '../src/plane/client.js';
import { SOURCE_CLI, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { A } from './support/names.js';
import { cleanupsAfterEach, tempDirFor } from './support/cleanup.js';

/**
 * Notifications follow a file kernel's ledger across restarts: what was committed and not
 * yet delivered when the kernel was killed (-9) is sent when it starts again, with the ids
 * it had, and what was delivered is not sent again. The kernels run from source (src/bin/
 * cli.ts under tsx), their notification worker too.
 */

const SECRET = 'a-notify-secret-of-some-length';

const cleanups = cleanupsAfterEach();

const tempDir = () => tempDirFor(cleanups, 'notify-resume-');

interface Body {
  id: string;
  seq: number;
  kind: string;
  leaseId?: string;
  notifications?: Body[];
}

/**
 * A receiver that records each request as it arrives and, while `holding`, never answers
 * (a stalled webhook): the kernel's delivery stays in flight. Told when a request comes.
 */
async function stallingReceiver() {
  const requests: Array<{ body: Body; delivery: string }> = [];
  const held: ServerResponse[] = [];
  let holding = true;
  let wake: () => void = () => undefined;
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      requests.push({
        body: JSON.parse(text) as Body,
        delivery: String(req.headers['x-lease-gate-delivery']),
      });
      if (holding) held.push(res);
      else res.writeHead(204).end();
      wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const flat = (from = 0) =>
    requests
      .slice(from)
      .flatMap(({ body }) => (body.kind === 'batch' ? body.notifications! : [body]));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    flat,
    answer() {
      holding = false;
    },
    /** Waits (bounded, woken by each request) until `done()`. */
    async until(done: () => boolean, what: string) {
      for (let i = 0; !done(); i += 1) {
        if (i >= 300) throw new Error(`the receiver never saw ${what} (30 s)`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
    },
  };
}

async function kernel(args: string[]): Promise<KernelProcess> {
  const k = await startKernelProcess(args, {}, SOURCE_CLI);
  cleanups.push(() => k.stop('SIGKILL'));
  return k;
}

async function delivered(url: string): Promise<number> {
  const ready = (await (await fetch(`${url}/readyz`)).json()) as {
    notifications?: { delivered: number };
  };
  return ready.notifications?.delivered ?? 0;
}

describe('notifications across a kill -9', () => {
  it('sends every committed grant after a restart, with the ids it had, and no delivered one again', async () => {
    const hook = await stallingReceiver();
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), SECRET);
    const args = [
      ...['--quiet', '--ttl-ms', '600000', '--data-prefix', join(dir, 'k')],
      ...['--notify', hook.url, '--notify-secret-file', join(dir, 'secret')],
    ];
    const N = 5;
    const first = await kernel(args);
    const client = createPlaneClient({ apiUrl: first.url });
    cleanups.push(() => client.close());
    const leases: string[] = [];
    for (let i = 0; i < N; i += 1) {
      const granted = await client.lease({ resource: `lock:deploy/r${i}`, actorDid: A });
      if (granted.kind !== 'granted') throw new Error(`not granted: ${granted.kind}`);
      leases.push(granted.lease.id);
    }
    // Every grant is durable (answered); the receiver holds the first delivery unanswered.
    await hook.until(() => hook.requests.length > 0, 'a first delivery');
    const attempted = new Map(hook.flat().map((n) => [n.leaseId, n.id]));
    expect(await first.stop('SIGKILL')).toBe(null);

    hook.answer();
    const before = hook.requests.length;
    const second = await kernel(args);
    await hook.until(
      () => leases.every((id) => hook.flat(before).some((n) => n.leaseId === id)),
      `all ${N} grants after the restart`,
    );
    const resent = hook.flat(before);
    expect(resent.map((n) => n.kind)).toEqual(Array(N).fill('grant'));
    expect(resent.map((n) => n.leaseId)).toEqual(leases);
    // What had been attempted comes again under the id it had: a receiver dedupes by it.
    expect(attempted.size).toBeGreaterThan(0);
    for (const [leaseId, id] of attempted)
      expect(resent.find((n) => n.leaseId === leaseId)?.id).toBe(id);
    expect(new Set(resent.map((n) => n.id)).size).toBe(N);
    expect(second.output()).toMatch(/sending http:\/\/127\.0\.0\.1:\d+ the 5 notifications/);

    // Once the worker says they are delivered, the cursor has moved past them.
    for (let i = 0; i < 300 && (await delivered(second.url)) < N; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await delivered(second.url)).toBe(N);
    // Beside the log; it names the URL by a hash, never by its path (a webhook's secret).
    const cursor = readFileSync(join(dir, 'k.ledger.jsonl.notify.json'), 'utf8');
    expect(cursor).not.toContain('/hook');
    expect(await second.stop('SIGKILL')).toBe(null);

    const after = hook.requests.length;
    const third = await kernel(args);
    const again = createPlaneClient({ apiUrl: third.url });
    cleanups.push(() => again.close());
    const late = await again.lease({ resource: 'lock:deploy/late', actorDid: A });
    if (late.kind !== 'granted') throw new Error(`not granted: ${late.kind}`);
    await hook.until(() => hook.flat(after).length > 0, 'the grant after the second restart');
    // The backlog would come first: what came is the new grant alone.
    expect(hook.flat(after).map((n) => n.leaseId)).toEqual([late.lease.id]);
    // Three kernels from source, each compiled by tsx as it starts, on a busy machine.
  }, 180_000);
});

describe('what a restart sends again, at most', () => {
  const HOUR = 3_600_000;

  /** A file kernel whose receiver never answers: N grants are committed and owed. */
  async function owed(dir: string, n: number) {
    const hook = await stallingReceiver();
    const log = join(dir, 'k.ledger.jsonl');
    /** `laterMs`: how far past the kernel's clock the notifier's is (the age bound reads it). */
    const run = async (laterMs: number, bounds?: { maxEntries: number; maxAgeMs: number }) => {
      const lines: string[] = [];
      const thread = new NotifierThread({
        urls: [hook.url],
        secret: SECRET,
        cursorFile: cursorFileOf(log),
        log: (line) => lines.push(line),
        now: () => Date.now() + laterMs,
        ...(bounds ? { resumeBounds: bounds } : {}),
      });
      const running = await startKernelServer({
        table: new ResourceTable({ ttlMs: 600_000, lockDelayMs: 0 }),
        store: fileStore(log),
        onService: (service) => thread.attach(service),
        log: () => undefined,
      });
      let stopped: Promise<void> | undefined;
      const stop = () =>
        (stopped ??= (async () => {
          await running.close();
          await thread.close(100);
        })());
      cleanups.push(stop);
      return { url: running.url, lines, thread, stop };
    };
    const first = await run(0);
    const client = createPlaneClient({ apiUrl: first.url });
    for (let i = 0; i < n; i += 1) await client.lease({ resource: `lock:r${i}`, actorDid: A });
    await client.close();
    await hook.until(() => hook.requests.length > 0, 'a first delivery');
    await first.stop();
    hook.answer();
    return { hook, run, cursorFile: cursorFileOf(log) };
  }

  it('nothing old when the cursor is not of this ledger, and says so', async () => {
    const { hook, run, cursorFile } = await owed(tempDir(), 3);
    // Another log's cursor under the same name: its entry 0 is not this ledger's entry 0
    // (taken as it is, grants 1 and 2 would be sent).
    const cursor = JSON.parse(readFileSync(cursorFile, 'utf8')) as {
      targets: Record<string, { next: number; id?: string }>;
    };
    for (const point of Object.values(cursor.targets))
      Object.assign(point, { next: 1, id: '00000000-0000-8000-8000-000000000000' });
    writeFileSync(cursorFile, JSON.stringify(cursor));
    const before = hook.requests.length;
    const second = await run(0);
    expect(second.lines).toContainEqual(
      expect.stringMatching(
        /cursor of http:\/\/127\.0\.0\.1:\d+ \(ledger entry 1\) does not match/,
      ),
    );
    const client = createPlaneClient({ apiUrl: second.url });
    cleanups.push(() => client.close());
    const granted = await client.lease({ resource: 'lock:now', actorDid: A });
    if (granted.kind !== 'granted') throw new Error(`not granted: ${granted.kind}`);
    await hook.until(() => hook.flat(before).length > 0, 'the new grant');
    expect(hook.flat(before).map((n) => n.leaseId)).toEqual([granted.lease.id]);
  });

  it('the newest notifications only, past a bound, naming the entries it skips', async () => {
    const { hook, run } = await owed(tempDir(), 5);
    const before = hook.requests.length;
    const second = await run(0, { maxEntries: 2, maxAgeMs: 24 * HOUR });
    await hook.until(() => hook.flat(before).length >= 2, 'the two newest grants');
    expect(hook.flat(before).map((n) => n.seq)).toEqual([3, 4]);
    expect(second.lines).toContainEqual(
      expect.stringMatching(/of ledger entries 0 to 2 are not sent: more than 2 notifications/),
    );
  });

  it('none stamped more than the age bound before now', async () => {
    const { hook, run } = await owed(tempDir(), 3);
    const before = hook.requests.length;
    const second = await run(25 * HOUR);
    expect(second.lines).toContainEqual(
      // 0 to 2 the grants; after them the restart's renewals, stamped at the log's end.
      expect.stringMatching(/of ledger entries 0 to \d+ are not sent: .* or 24 h behind/),
    );
    // What changes from now on is sent (the old leases' lapses, a new grant), nothing older.
    const client = createPlaneClient({ apiUrl: second.url });
    cleanups.push(() => client.close());
    const granted = await client.lease({ resource: 'lock:now', actorDid: A });
    if (granted.kind !== 'granted') throw new Error(`not granted: ${granted.kind}`);
    await hook.until(
      () => hook.flat(before).some((n) => n.leaseId === granted.lease.id),
      'the new grant',
    );
    expect(hook.flat(before).every((n) => n.seq >= 3)).toBe(true);
  });
});
