import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { BREAK_GLASS_PATH, FREEZE_PATH, REVOKE_PATH } from '../src/plane/schema.js';
import { R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/** An operator's reason is one line of text: NUL and ESC never reach the signed ledger (#54). */

const ADMIN = 'reason-text-admin-key';
const HOTFIX = 'did:web:acme.example:agent:hotfix';

let kernel: RunningKernel | undefined;
closeAfterEach(() => [kernel]);

async function start() {
  kernel = await startKernelServer({
    table: new ResourceTable({ ttlMs: 30_000 }),
    ledger: new Ledger(generateKeyPairSync('ed25519').privateKey),
    adminKey: ADMIN,
    port: 0,
    log: () => undefined,
  });
  const post = async (path: string, body: object) => {
    const res = await fetch(`${kernel!.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { message?: string } };
  };
  return { post, url: kernel.url };
}

describe('an operator reason with a control character', () => {
  for (const [name, text] of [
    ['NUL', 'hotfix\u0000'],
    ['ESC', 'hotfix \u001b[2J'],
    ['a line break', 'hotfix\nforged line'],
  ] as const) {
    it(`is refused with 400 naming reason on break-glass, freeze and revoke (${name})`, async () => {
      const { post, url } = await start();
      for (const [path, body] of [
        [BREAK_GLASS_PATH, { resource: R, actorDid: HOTFIX, reason: text }],
        [FREEZE_PATH, { resource: R, reason: text }],
        [REVOKE_PATH, { resource: R, reason: text }],
      ] as const) {
        const answer = await post(path, body);
        expect(answer.status, path).toBe(400);
        expect(answer.body.message, path).toMatch(/^reason: expected text without control/);
      }
      // Nothing was recorded: the ledger holds no entry at all.
      const { bundle } = (await fetchLedger(url)) as unknown as { bundle: { entries: unknown[] } };
      expect(bundle.entries).toEqual([]);
    });
  }

  it('still takes a printable reason', async () => {
    const { post, url } = await start();
    expect(
      (await post(BREAK_GLASS_PATH, { resource: R, actorDid: HOTFIX, reason: 'CVE-2026-1 fix' }))
        .status,
    ).toBe(200);
    const { bundle } = (await fetchLedger(url)) as unknown as { bundle: { entries: unknown[] } };
    expect(JSON.stringify(bundle.entries)).toContain('CVE-2026-1 fix');
  });
});
