import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { FreezeWindows } from '../src/kernel/service/windows.js';
import { createPlaneClient } from '../src/plane/client.js';
import { startScriptedPlane, type ScriptedPlane } from './support/scripted-plane.js';
import { runMain } from './support/cli-main.js';
import { A, R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * `lease-gate status` on a frozen resource says who froze it, why and until when
 * (text and --json), with the operator's words escaped; a plane that names no freeze
 * (the hosted one) gets the answer it always got. `revoke` names whose lease it ended.
 * In-process (src/), against the real kernel over HTTP. Issue 37, items 4 and 8.
 */

const ADMIN = 'admin-key-for-the-status-test';
let kernel: RunningKernel | undefined;
let scripted: ScriptedPlane | undefined;

closeAfterEach(() => [kernel, scripted]);

const cli = (args: string[], env: Record<string, string> = {}) => runMain(args, env);

async function start() {
  kernel = await startKernelServer({ adminKey: ADMIN, log: () => undefined });
  return { url: kernel.url, client: createPlaneClient({ apiUrl: kernel.url }) };
}

describe('lease-gate status on a frozen resource', () => {
  it('names who froze it, why and until when, escaped, in text and JSON', async () => {
    const { url, client } = await start();
    // A control character is refused by the kernel (kernel-reason-text); a workflow command
    // and markup are text, shown as sent.
    const reason = 'release freeze ::error::x <b>red</b>';
    const untilMs = Date.now() + 3_600_000;
    await client.freeze({ resource: R, reason, untilMs }, ADMIN);

    const text = await cli(['status', '--api-url', url]);
    expect(text.code).toBe(0);
    expect(text.out).toBe(
      `${R} is frozen by operator:admin-key until ${new Date(untilMs).toISOString().slice(0, 19).replace('T', ' ')} UTC: release freeze ::error::x <b>red</b>; nobody new is granted it`,
    );
    expect(text.out).not.toMatch(/is free/);

    const json = await cli(['status', '--api-url', url, '--json']);
    expect(JSON.parse(json.out)).toEqual({
      resource: R,
      lease: null,
      freeze: { by: 'operator:admin-key', reason, untilMs },
      queue: [],
    });

    // A holder keeps its lease through a freeze: both lines, the freeze first.
    await client.unfreeze(R, ADMIN);
    expect((await client.lease({ resource: R, actorDid: A })).kind).toBe('granted');
    await client.freeze({ resource: R, reason: 'incident 42' }, ADMIN);
    const both = await cli(['status', '--api-url', url]);
    expect(both.out.split('\n')).toEqual([
      `${R} is frozen by operator:admin-key until unfrozen: incident 42; nobody new is granted it`,
      expect.stringMatching(new RegExp(`^${R} is held by ${A}: lease `)),
    ]);
    const bothJson = JSON.parse((await cli(['status', '--api-url', url, '--json'])).out);
    expect(bothJson).toMatchObject({
      lease: { holder: A },
      freeze: { by: 'operator:admin-key', reason: 'incident 42', untilMs: null },
    });
    await client.close();
  });

  it('names a recurring window in force as the freeze', async () => {
    const windows = FreezeWindows.parse(
      JSON.stringify({
        windows: [
          {
            name: 'always',
            schedule: '* * * * *',
            duration: '1d',
            timeZone: 'UTC',
            resources: [R],
            reason: 'change freeze',
          },
        ],
      }),
    );
    kernel = await startKernelServer({
      table: new ResourceTable({ window: (r, now) => windows.activeFor(r, now) }),
      windows,
      log: () => undefined,
    });
    const json = JSON.parse((await cli(['status', '--api-url', kernel.url, '--json'])).out);
    expect(json).toMatchObject({
      lease: null,
      freeze: { by: 'window:always', reason: 'change freeze (window always)' },
    });
    expect(json.freeze.untilMs).toBeGreaterThan(Date.now());
    expect((await cli(['status', '--api-url', kernel.url])).out).toMatch(
      new RegExp(
        `^${R} is frozen by window:always until \\S+ \\S+ UTC: change freeze \\(window always\\)`,
      ),
    );
  });

  it('says free, with no freeze, when nothing is frozen or the plane names no freeze', async () => {
    const { url, client } = await start();
    expect(await cli(['status', '--api-url', url])).toMatchObject({ code: 0, out: `${R} is free` });
    expect(JSON.parse((await cli(['status', '--api-url', url, '--json'])).out)).toEqual({
      resource: R,
      lease: null,
      queue: [],
    });
    await client.close();

    // The hosted plane's answer carries no `frozen` field: nothing extra.
    scripted = await startScriptedPlane(() => ({ status: 200, body: { ok: true, lease: null } }));
    const hosted = await cli(['status', '--api-url', scripted.url]);
    expect(hosted).toMatchObject({ code: 0, out: `${R} is free` });
  });
});

describe('lease-gate revoke', () => {
  it('names whose lease it ended', async () => {
    const { url, client } = await start();
    const granted = await client.lease({ resource: R, actorDid: A });
    if (granted.kind !== 'granted') throw new Error('not granted');
    const revoked = await cli(['revoke', '--api-url', url, '--reason', 'incident'], {
      LEASE_GATE_ADMIN_KEY: ADMIN,
    });
    expect(revoked).toMatchObject({
      code: 0,
      out: `revoked ${R}: ended lease ${granted.lease.id} of ${A}`,
    });
    await client.close();
  });
});
