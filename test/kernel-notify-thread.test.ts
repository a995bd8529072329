import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotifierThread } from '../src/kernel/notify/notify-thread.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { createPlaneClient } from '../src/plane/client.js';
import { startKernelProcess } from './support/kernel-process.js';
import { startReceiver } from './support/notify-receiver.js';
import { A, R } from './support/names.js';
import { cleanupsAfterEach, tempDirFor } from './support/cleanup.js';

/**
 * Notifications made and sent off the kernel's thread: the built CLI's kernel (its worker is
 * dist/notify/) to a receiver on loopback, and the thread's own edges (a worker that dies,
 * a close that hands over what is left).
 */

const SECRET = 'a-notify-secret-of-some-length';
const ADMIN = 'notify-thread-admin';

const cleanups = cleanupsAfterEach();

const tempDir = () => tempDirFor(cleanups, 'notify-thread-');

async function receiver(failFirst = 0) {
  const hook = await startReceiver(failFirst);
  cleanups.push(hook.close);
  return hook;
}

const grant = (i: number): LedgerEntry => ({
  kind: 'grant',
  seq: i,
  tsMs: 1_700_000_000_000 + i,
  resource: `lock:r${i}`,
  actorDid: A,
  leaseId: `lease-${i}`,
  fence: i,
});

describe('notifications off the kernel thread', () => {
  it('the built kernel sends signed deliveries in order after two failures, and exits cleanly', async () => {
    const hook = await receiver(2);
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), SECRET);
    const kernel = await startKernelProcess(
      ['--quiet', '--notify', hook.url, '--notify-secret-file', join(dir, 'secret')],
      { LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    cleanups.push(() => kernel.stop('SIGKILL'));
    const client = createPlaneClient({ apiUrl: kernel.url });
    cleanups.push(() => client.close());
    await client.lease({ resource: R, actorDid: A });
    await client.freeze({ resource: R, reason: 'incident 9' }, ADMIN);
    await client.unfreeze(R, ADMIN);
    await client.release({ resource: R, actorDid: A });
    const bodies = await hook.notifications(4);
    expect(bodies.map((b) => b.kind)).toEqual(['grant', 'freeze', 'unfreeze', 'release']);
    expect(bodies[1]).toMatchObject({ resource: R, reason: 'incident 9' });
    // The first delivery failed twice and was sent again: same body, same id.
    expect(hook.seen()).toBe(2 + hook.received.length);
    for (const r of hook.received) {
      const expected = createHmac('sha256', SECRET).update(r.body).digest('hex');
      expect(r.headers['x-hub-signature-256']).toBe(`sha256=${expected}`);
    }
    // The worker reports back what it delivered; /readyz shows it.
    let ready: { notifications?: { delivered: number; pending: number } } = {};
    for (let i = 0; i < 100 && ready.notifications?.delivered !== 4; i += 1) {
      ready = (await (await fetch(`${kernel.url}/readyz`)).json()) as typeof ready;
      if (ready.notifications?.delivered !== 4) await new Promise((r) => setTimeout(r, 20));
    }
    expect(ready.notifications).toMatchObject({ delivered: 4, pending: 0, failed: 0 });
    expect(await kernel.stop('SIGTERM')).toBe(0);
    expect(kernel.output()).not.toContain(SECRET);
  });

  it("sends to every URL of --notify-file and of each --notify, the flag's secret file winning", async () => {
    const [one, two, three] = [await receiver(), await receiver(), await receiver()];
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), SECRET);
    writeFileSync(join(dir, 'unread-secret'), 'the-file-entry-secret-not-used');
    writeFileSync(
      join(dir, 'notify.json'),
      JSON.stringify({ notify: { urls: [one.url], secretFile: join(dir, 'unread-secret') } }),
    );
    const kernel = await startKernelProcess([
      ...['--quiet', '--notify-file', join(dir, 'notify.json')],
      ...['--notify', two.url, '--notify', three.url, '--notify-secret-file', join(dir, 'secret')],
    ]);
    cleanups.push(() => kernel.stop('SIGKILL'));
    const client = createPlaneClient({ apiUrl: kernel.url });
    cleanups.push(() => client.close());
    await client.lease({ resource: R, actorDid: A });
    for (const hook of [one, two, three]) {
      const [body] = await hook.notifications(1);
      expect(body).toMatchObject({ kind: 'grant', resource: R, agent: A });
      const r = hook.received[0]!;
      const expected = createHmac('sha256', SECRET).update(r.body).digest('hex');
      expect(r.headers['x-hub-signature-256']).toBe(`sha256=${expected}`);
    }
  });

  it('hands over what is left on close, and its deliveries end before close does', async () => {
    const hook = await receiver();
    const thread = new NotifierThread({ urls: [hook.url], secret: SECRET });
    cleanups.push(() => thread.close(100));
    // Pushed in one turn and closed at once: nothing has reached the worker yet.
    thread.push([grant(1), { ...grant(2), kind: 'renew' }, grant(3)]);
    await thread.close();
    const bodies = (await hook.notifications(2)).map((b) => b.leaseId);
    expect(bodies).toEqual(['lease-1', 'lease-3']);
    expect(thread.health()).toMatchObject({ ok: true, delivered: 2, pending: 0 });
  });

  it('says so, in /readyz terms, when its worker dies, and counts what it loses', async () => {
    const hook = await receiver();
    const dir = tempDir();
    const broken = join(dir, 'broken-worker.mjs');
    writeFileSync(broken, "throw new Error('the worker broke');\n");
    const lines: string[] = [];
    const thread = new NotifierThread({
      urls: [hook.url],
      secret: SECRET,
      log: (line) => lines.push(line),
      workerFile: broken,
    });
    cleanups.push(() => thread.close(100));
    for (let i = 0; i < 100 && lines.length === 0; i += 1)
      await new Promise((r) => setTimeout(r, 20));
    expect(lines).toEqual([expect.stringMatching(/notification thread stopped: the worker broke/)]);
    thread.push([grant(1), grant(2)]);
    await new Promise((r) => setImmediate(r));
    expect(thread.health()).toMatchObject({
      ok: false,
      pending: 0,
      dropped: 2,
      stopped: expect.stringMatching(/the worker broke/),
    });
    expect(hook.seen()).toBe(0);
  });

  it('refuses a URL in clear beyond loopback before it starts a worker', () => {
    expect(
      () => new NotifierThread({ urls: ['http://hooks.example.com/x'], secret: SECRET }),
    ).toThrow(/https/);
  });
});
