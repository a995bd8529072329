import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPlaneClient } from '../src/plane/client.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { runCli, startKernelProcess } from './support/kernel-process.js';
import { A, B } from './support/names.js';

describe('the kernel with a file store', () => {
  it('keeps held leases and never moves fences back across kill -9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-store-'));
    const state = join(dir, 'state.json');
    expect((await runCli(['keygen', '--out', dir])).code).toBe(0);
    // The same state file and signing key each time: one kernel, restarted.
    const start = () =>
      startKernelProcess([
        '--data-prefix',
        state,
        '--quiet',
        '--signing-key',
        join(dir, 'ledger.key'),
      ]);
    const fences: number[] = [];
    const held = new Map<string, string>();
    for (let round = 0; round < 4; round += 1) {
      const kernel = await start();
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
    const kernel = await start();
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

  it('takes --state, the old name of --data-prefix, and says so once on stderr', async () => {
    const prefix = join(mkdtempSync(join(tmpdir(), 'lease-gate-store-')), 'kernel');
    const child = spawn(
      process.execPath,
      ['dist/cli/index.js', 'kernel', '--port', '0', '--quiet', '--state', prefix],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise((resolve) => child.on('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const match = /listening on (http:\/\/\S+)\n/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('close', (code) => reject(new Error(`kernel exited ${code}: ${stderr}`)));
    });
    const answer = await createPlaneClient({ apiUrl: url }).lease({
      resource: 'lock:alias',
      actorDid: A,
    });
    child.kill('SIGTERM');
    await exited;
    expect(answer.kind).toBe('granted');
    expect(readFileSync(`${prefix}.ledger.jsonl`, 'utf8')).toContain('lock:alias');
    expect(existsSync(prefix)).toBe(false);
    const warnings = stderr.split('\n').filter((line) => line.includes('--state'));
    expect(warnings).toEqual([
      `lease-gate kernel: --state is now --data-prefix (the log is ${prefix}.ledger.jsonl); the old name will go in a later major release.`,
    ]);
  });

  it('refuses --state beside --data-prefix, naming the one to keep', async () => {
    const result = await runCli(['kernel', '--port', '0', '--state', 'a', '--data-prefix', 'b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Give --data-prefix only: --state is its old name.');
  });
});
