import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPlaneClient } from '../src/plane/client.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { runCli, startKernelProcess } from './support/kernel-process.js';

const A = 'did:web:acme.example:agent:a';
const B = 'did:web:acme.example:agent:b';

describe('the kernel with a file store', () => {
  it('keeps held leases and never moves fences back across kill -9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-store-'));
    const state = join(dir, 'state.json');
    expect((await runCli(['keygen', '--out', dir])).code).toBe(0);
    const fences: number[] = [];
    const held = new Map<string, string>();
    for (let round = 0; round < 4; round += 1) {
      const kernel = await startKernelProcess([
        '--state',
        state,
        '--quiet',
        '--signing-key',
        join(dir, 'ledger.key'),
      ]);
      const client = createPlaneClient({ apiUrl: kernel.url });
      for (const [resource, id] of held) {
        expect((await client.status(resource))?.id).toBe(id);
        expect(await client.lease({ resource, actorDid: B })).toMatchObject({
          kind: 'held',
          holder: A,
        });
      }
      const resource = `lock:round${round}`;
      const answer = await client.lease({ resource, actorDid: A });
      if (answer.kind !== 'granted') throw new Error('expected a grant');
      fences.push(answer.lease.fence!);
      held.set(resource, answer.lease.id);
      if (round === 2) {
        const [first] = held.keys();
        await client.release({ resource: first!, actorDid: A });
        held.delete(first!);
      }
      expect(await kernel.stop('SIGKILL')).toBeNull();
    }
    expect(fences).toEqual([...fences].sort((x, y) => x - y));
    expect(new Set(fences).size).toBe(fences.length);

    // The ledger came back with every grant and the release, and still verifies.
    const kernel = await startKernelProcess([
      '--state',
      state,
      '--quiet',
      '--signing-key',
      join(dir, 'ledger.key'),
    ]);
    const { bundle } = await fetchLedger(kernel.url);
    await kernel.stop();
    const publicKey = createPublicKey(readFileSync(join(dir, 'ledger.pub'), 'utf8'));
    const verified = verifyBundle(bundle, publicKey);
    const kinds = (bundle as { entries: Array<{ entry: { kind: string } }> }).entries.map(
      (e) => e.entry.kind,
    );
    expect(verified.count).toBe(kinds.length);
    // Each restart renews the leases it finds open (the restart rule): renewals between.
    expect(kinds.filter((k) => k !== 'renew')).toEqual([
      'grant',
      'grant',
      'grant',
      'release',
      'grant',
    ]);
    expect(kinds.filter((k) => k === 'renew').length).toBeGreaterThan(0);
  });

  it('refuses to start on an unreadable state file instead of forgetting it', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'lease-gate-store-')), 'state.json');
    writeFileSync(state, '{"version":1,"fence":3,"leases":[{"id":');
    const result = await runCli(['kernel', '--port', '0', '--state', state]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/state file .* is not valid JSON; refusing to start/);
  });
});
