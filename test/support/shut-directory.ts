import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

/**
 * Runs `body` (ES module text after `imports`, with `path` bound to `file`) in a child that is
 * not root (as root every directory opens), where `file`'s directory may be written into but
 * not read: a rename there succeeds, and a sync of the directory, which must open it, fails
 * with EACCES. So a write that succeeds there synced no directory. Returns what `body` logged.
 */
export function inShutDirectory(imports: string, body: string): { stdout: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-shut-'));
  const shut = join(dir, 'shut');
  mkdirSync(shut);
  chmodSync(dir, 0o755);
  chmodSync(shut, 0o333);
  const file = join(shut, 'f.json');
  const script = `${imports}\nconst path = ${JSON.stringify(file)};\n${body}`;
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      ...asNobody,
      cwd: process.cwd(),
      encoding: 'utf8',
    },
  );
  expect(run.stderr).toBe('');
  chmodSync(shut, 0o755);
  return { stdout: run.stdout, file };
}
