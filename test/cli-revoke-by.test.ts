import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import { SOURCE_CLI, runCli, startKernelProcess } from './support/kernel-process.js';
import { POSTGRES_URL, testSchema } from './support/postgres.js';
import { A } from './support/names.js';

/**
 * `lease-gate revoke --by NAME` (from source) against a real kernel, on each backend: the
 * revoke's ledger entry records `by: "operator:NAME"`, the signed ledger still verifies, a
 * revoke without a name records none (the entry as before), and a name not of the form is
 * refused in one line before any request, the lease still held.
 */

const ADMIN = 'admin-key-for-the-revoke-by-test';
const R = 'lock:deploy/revoke-by';

async function revokeBy(store: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-revoke-by-'));
  expect((await runCli(['keygen', '--out', dir], {}, SOURCE_CLI)).code).toBe(0);
  const kernel = await startKernelProcess(
    ['--quiet', ...store, '--signing-key', join(dir, 'ledger.key')],
    { LEASE_GATE_ADMIN_KEY: ADMIN, ...env },
    SOURCE_CLI,
  );
  const client = createPlaneClient({ apiUrl: kernel.url });
  const cli = (...args: string[]) =>
    runCli(
      ['revoke', '--api-url', kernel.url, '--resource', R, ...args],
      { LEASE_GATE_ADMIN_KEY: ADMIN },
      SOURCE_CLI,
    );
  try {
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
    const bad = await cli('--by', 'alice; rm -rf');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')[0]).toMatch(
      /^.*Invalid --by 'alice; rm -rf'\. Expected a name of 1 to 64 letters, digits/,
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    // Refused before any request: the lease is still A's.
    expect((await client.status(R))?.holder).toBe(A);

    const named = await cli('--by', 'alice', '--reason', 'incident 7');
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`revoked ${R}`);

    // An unnamed revoke records no operator: its entry is written as before this field.
    await client.release({ resource: R, actorDid: A });
    const B = 'did:web:acme.example:agent:b';
    expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'granted' });
    expect((await cli()).code).toBe(0);

    const { bundle } = await fetchLedger(kernel.url);
    const publicKey = createPublicKey(readFileSync(join(dir, 'ledger.pub'), 'utf8'));
    const entries = (bundle as { entries: Array<{ entry: LedgerEntry }> }).entries.map(
      (e) => e.entry,
    );
    expect(verifyBundle(bundle, publicKey).count).toBe(entries.length);
    const revokes = entries.filter((e) => e.kind === 'revoke');
    expect(revokes).toHaveLength(2);
    expect(revokes[0]).toMatchObject({
      actorDid: A,
      by: 'operator:alice',
      reason: 'incident 7',
    });
    expect(revokes[1]).not.toHaveProperty('by');
  } finally {
    await client.close();
    await kernel.stop();
  }
}

describe('lease-gate revoke --by', () => {
  it('records the name with the file store, and refuses a bad one', async () => {
    const prefix = join(mkdtempSync(join(tmpdir(), 'lease-gate-revoke-by-')), 'state');
    await revokeBy(['--data-prefix', prefix]);
  }, 120_000);

  it('records the name with the PostgreSQL store', async () => {
    const { schema, drop } = await testSchema();
    try {
      const migrated = await runCli(
        ['kernel', 'migrate', '--store', POSTGRES_URL, '--schema', schema],
        {},
        SOURCE_CLI,
      );
      expect(migrated.code, migrated.stderr).toBe(0);
      await revokeBy(['--store', POSTGRES_URL, '--schema', schema]);
    } finally {
      await drop();
    }
  }, 120_000);
});
