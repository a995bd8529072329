/**
 * The keeper's status file (src/lease/keeper-status.ts), on real files: replaced whole at
 * every change, so main and post never read half a record while the keeper writes, and not
 * synced (neither the file nor its directory), which was most of a renewal's CPU.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createStatusFile,
  readStatusFile,
  writeStatusFile,
  type KeeperRecord,
} from '../src/lease/keeper-status.js';
import { inShutDirectory } from './support/shut-directory.js';
import { pause } from './support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-keeper-status-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MODULE = JSON.stringify(resolve('src/lease/keeper-status.ts'));

const record = (renewals: number): KeeperRecord => ({
  pid: 4242,
  resource: 'lock:keeper/status',
  actorDid: 'did:web:acme.example:keeper',
  leaseId: 'lease-1',
  expiresAtMs: 1_800_000_000_000 + renewals,
  renewals,
  failures: 0,
  // Records of different lengths: a write in place would show a reader a short one.
  ...(renewals % 3 ? { lastError: 'e'.repeat(renewals % 500) } : {}),
});

describe("the keeper's status file", () => {
  it('is never half a record to a reader while another process rewrites it', async () => {
    const file = join(dir, 'status.json');
    createStatusFile(file);
    writeStatusFile(file, record(0));
    const writes = 2_000;
    const script = `
      import { writeStatusFile } from ${MODULE};
      const record = ${record.toString()};
      for (let i = 1; i <= ${writes}; i++) writeStatusFile(${JSON.stringify(file)}, record(i));
    `;
    const writer = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    writer.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => writer.on('close', done));
    let ended = false;
    void exited.then(() => (ended = true));
    let last = 0;
    // Reads as main and post do, in batches between which the writer's exit can be heard.
    for (let reads = 0; last < writes; await pause(1)) {
      // The writer gone before its last record: its exit code says why, below.
      if (ended && readStatusFile(file)?.renewals !== writes) break;
      for (let i = 0; i < 50; i++, reads++) {
        const seen = readStatusFile(file);
        expect(seen, `read ${reads} after renewal ${last}`).toBeDefined();
        expect(seen!.renewals).toBeGreaterThanOrEqual(last);
        last = seen!.renewals;
      }
    }
    expect(await exited, stderr).toBe(0);
    expect(readStatusFile(file)).toEqual(record(writes));
  });

  it('syncs nothing: it is written where a directory cannot be opened to sync', () => {
    const { stdout } = inShutDirectory(
      `import { createStatusFile, readStatusFile, writeStatusFile } from ${MODULE};`,
      `createStatusFile(path);
      const written = writeStatusFile(path, ${JSON.stringify(record(1))});
      console.log(JSON.stringify({ written, read: readStatusFile(path) }));`,
    );
    expect(JSON.parse(stdout)).toEqual({ written: true, read: record(1) });
  });
});
