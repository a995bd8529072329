import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { LEASE, RELEASE } from './support/names.js';

/**
 * The kernel on a real, small file system (a tmpfs this test mounts; tests run
 * as root): driven over HTTP until the disk is full, killed with -9 and
 * restarted while it is still full, then given space back while it runs.
 */
const ROUNDS = 3;
const root = mkdtempSync(join(tmpdir(), 'lease-gate-full-disk-'));
const disk = join(root, 'disk');
let mounted = false;
let kernel: KernelProcess | undefined;
let why = '';

beforeAll(() => {
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', disk], { stdio: 'pipe' });
    mounted = true;
  } catch (error) {
    why = String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
});

afterAll(async () => {
  await kernel?.stop('SIGKILL');
  if (mounted) execFileSync('umount', [disk]);
  rmSync(root, { recursive: true, force: true });
});

/** Fills the disk with 16 KiB files until it is full; returns them, to free one at a time. */
function fill(): string[] {
  const files: string[] = [];
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  for (let i = 0; i < 1_000; i += 1) {
    const file = join(disk, `filler-${i}`);
    const fd = openSync(file, 'w');
    try {
      const n = writeSync(fd, chunk);
      files.push(file);
      if (n < chunk.length) break;
    } catch {
      unlinkSync(file);
      break;
    } finally {
      closeSync(fd);
    }
  }
  return files;
}

async function call(url: string, path: string, body: unknown) {
  const res = await request(url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return {
    status: res.statusCode,
    body: (await res.body.json()) as {
      lease?: { id: string; fence: number; holder: string };
      released?: boolean;
    },
  };
}

describe('the kernel on a full disk', () => {
  it('acknowledges only what is on disk, survives kill -9 while full, and heals when space returns', async (ctx) => {
    if (!mounted) {
      ctx.skip(`cannot mount a tmpfs here (${why}): the full-disk test needs root`);
      return;
    }
    const keys = join(root, 'keys');
    expect((await runCli(['keygen', '--out', keys])).code).toBe(0);
    const args = [
      '--ledger',
      join(disk, 'kernel.log'),
      '--quiet',
      '--ttl-ms',
      '600000',
      '--signing-key',
      join(keys, 'ledger.key'),
    ];
    kernel = await startKernelProcess(args);
    const fillers = fill();
    expect(fillers.length).toBeGreaterThan(4);

    const acked: Array<{ resource: string; id: string; fence: number; holder: string }> = [];
    /** Per resource, the holder whose grant was acknowledged and whose release was not. */
    const holding = new Map<string, string>();
    const counts = { grants: 0, releases: 0, unavailable: 0, held: 0, restarts: 0 };
    let overlaps = 0;
    let n = 0;
    /** Asks until `want` 503s were answered (or a bound): one agent and resource after another. */
    const drive = async (want: number, most = 3_000) => {
      let seen = 0;
      for (let i = 0; i < most && seen < want; i += 1, n += 1) {
        const resource = `lock:disk/${n % 8}`;
        const actorDid = `did:web:disk:agent${n % 5}`;
        const answer = await call(kernel!.url, LEASE, { resource, actorDid });
        if (answer.status === 503) {
          counts.unavailable += 1;
          seen += 1;
          continue;
        }
        if (answer.status === 409) {
          counts.held += 1;
          continue;
        }
        expect(answer.status).toBe(200);
        const { lease } = answer.body;
        const other = holding.get(resource);
        if (other && other !== actorDid) overlaps += 1;
        if (!acked.some((a) => a.id === lease!.id)) {
          acked.push({ resource, id: lease!.id, fence: lease!.fence, holder: actorDid });
          counts.grants += 1;
        }
        holding.set(resource, actorDid);
        const gave = await call(kernel!.url, RELEASE, { resource, actorDid });
        if (gave.status === 503) {
          counts.unavailable += 1;
          seen += 1;
        } else if (gave.body.released) {
          counts.releases += 1;
          holding.delete(resource);
        }
      }
      return seen;
    };

    for (let round = 0; round < ROUNDS; round += 1) {
      unlinkSync(fillers.pop()!); // 16 KiB back, while the kernel runs: it heals by itself
      expect(await drive(5)).toBe(5);
      expect(await kernel.stop('SIGKILL')).toBeNull();
      kernel = await startKernelProcess(args); // the disk is still full
      counts.restarts += 1;
      await drive(3);
    }
    for (const file of fillers) unlinkSync(file);
    // Space is back: the running kernel writes again by itself, with nothing refused.
    expect(await drive(1, 200)).toBe(0);
    expect(await kernel.stop('SIGKILL')).toBeNull();
    kernel = await startKernelProcess(args);
    counts.restarts += 1;

    const bundle = join(root, 'bundle.json');
    const exported = await runCli(['ledger', 'export', '--url', kernel.url, '--out', bundle]);
    await kernel.stop();
    expect(exported.code).toBe(0);
    const verified = await runCli(['verify', bundle, '--public-key', join(keys, 'ledger.pub')]);
    expect(verified.code).toBe(0);

    const entries = (
      JSON.parse(readFileSync(bundle, 'utf8')) as {
        entries: Array<{ entry: { kind: string; leaseId: string; fence: number } }>;
      }
    ).entries.map((e) => e.entry);
    const grants = new Map(entries.filter((e) => e.kind === 'grant').map((e) => [e.leaseId, e]));
    const missing = acked.filter((a) => grants.get(a.id)?.fence !== a.fence);
    expect(missing).toEqual([]);
    expect(new Set(acked.map((a) => a.fence)).size).toBe(acked.length);
    expect(overlaps).toBe(0);
    expect(counts.unavailable).toBeGreaterThanOrEqual(ROUNDS * 5);
    expect(readFileSync(join(disk, 'kernel.log'), 'utf8')).not.toContain('\0');
    console.log(
      `full disk: ${counts.grants} grants acknowledged (${counts.releases} releases, ${counts.held} refusals while held), ${counts.unavailable} answers 503 store_unavailable, ${counts.restarts} kill -9 restarts, ledger of ${entries.length} entries; verify: ${verified.stdout.trim()}`,
    );
  }, 240_000);
});
