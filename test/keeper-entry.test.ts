import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KEEPER_NODE_FLAGS } from '../src/lease/background.js';
import { createStatusFile, readStatusFile } from '../src/lease/keeper-status.js';
import { closeAfterEach } from './support/cleanup.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { until } from './support/wait.js';

/**
 * The keeper's own entry (dist/keeper), as main spawns it: it renews, and it holds only
 * what renewing needs. Its memory is measured by `npm run bench -- startup`; here, what
 * the measurement rests on: Node's HTTP/2, TLS and crypto modules never load for a plain
 * http plane (they cost 11 MiB of RSS, docs/performance.md, keeper).
 */

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-keeper-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let plane: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;
closeAfterEach(() => [plane]);

/** Writes the names of the Node modules the process loaded when it exits. */
const preload = join(dir, 'modules.cjs');
const loaded = join(dir, 'modules.txt');
writeFileSync(
  preload,
  `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));\n`,
);

function startKeeper(args: string[]) {
  const child = spawn(
    process.execPath,
    [...KEEPER_NODE_FLAGS, '--require', preload, 'dist/keeper/index.js', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, ended, output: () => output };
}

describe('the keeper entry (dist/keeper)', () => {
  it('renews, stops on SIGTERM with 0, and loads no HTTP/2, TLS or crypto for an http plane', async () => {
    plane = await startLoggedKernel({ ttlMs: 3_000 });
    const actor = 'did:web:acme.example:keeper';
    const answer = (await plane.kernel.lease('lock:keeper/entry', actor)) as { lease: unknown };
    const status = join(dir, 'status.json');
    createStatusFile(status);
    const keeper = startKeeper([
      ...['--api-url', plane.url, '--resource', 'lock:keeper/entry', '--actor-did', actor],
      ...['--lease', JSON.stringify(answer.lease), '--status', status],
    ]);
    await until('a renewal', () => (readStatusFile(status)?.renewals ?? 0) > 0, {
      context: keeper.output,
    });
    keeper.child.kill('SIGTERM');
    expect(await keeper.ended).toBe(0);
    expect(readStatusFile(status)).toMatchObject({ pid: keeper.child.pid, failures: 0 });
    const modules = readFileSync(loaded, 'utf8').split('\n');
    expect(modules).toContain('NativeModule http');
    for (const heavy of ['http2', 'tls', 'crypto']) {
      expect(modules).not.toContain(`NativeModule ${heavy}`);
    }
  });

  it('refuses a bad --lease with exit 2, naming it and the accepted form', async () => {
    const status = join(dir, 'bad.json');
    createStatusFile(status);
    const keeper = startKeeper([
      ...['--api-url', 'http://127.0.0.1:9', '--resource', 'lock:keeper/bad'],
      ...['--actor-did', 'did:web:acme.example:keeper', '--lease', '{', '--status', status],
    ]);
    expect(await keeper.ended).toBe(2);
    expect(keeper.output()).toContain('Invalid --lease: expected the granted lease as JSON.');
    expect(readFileSync(status, 'utf8')).toBe('{"starting":true}');
  });
});
