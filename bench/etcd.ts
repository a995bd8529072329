import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';

/**
 * etcd 3.4 as a lock service, through its v3 HTTP/JSON gateway (the same
 * keep-alive HTTP client as the kernel's rows, so the comparison is HTTP to
 * HTTP). A cycle is what an etcd lock client does: grant a lease
 * (`/v3/lease/grant`, TTL 30 s), a transaction that puts the key with that
 * lease only if the key does not exist (`/v3/kv/txn`, compare create_revision
 * = 0), and giving it back by revoking the lease (`/v3/lease/revoke`, which
 * deletes the key and leaves no lease behind).
 */

export const ETCD_BINARY = process.env.LEASE_GATE_BENCH_ETCD ?? 'etcd';
export const ETCD_TTL_S = 30;

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** The body of `/v3/lease/grant`. */
export const etcdGrantBody = (ttlSeconds = ETCD_TTL_S) => JSON.stringify({ TTL: ttlSeconds });

/**
 * The body of `/v3/kv/txn`: put `key` = `value` attached to `leaseId` if and
 * only if the key has never been created since it was last deleted. The
 * gateway takes bytes as base64 and 64-bit integers as decimal strings.
 */
export function etcdTxnBody(key: string, value: string, leaseId: string): string {
  if (!/^\d+$/.test(leaseId))
    throw new Error(`etcd lease id ${JSON.stringify(leaseId)} is not a decimal id`);
  return JSON.stringify({
    compare: [{ key: b64(key), target: 'CREATE', result: 'EQUAL', create_revision: '0' }],
    success: [{ request_put: { key: b64(key), value: b64(value), lease: leaseId } }],
  });
}

/** The body of `/v3/lease/revoke`. */
export const etcdRevokeBody = (leaseId: string) => JSON.stringify({ ID: leaseId });

/** The lease id in a `/v3/lease/grant` answer (the gateway writes int64 as a string). */
export function etcdLeaseId(answer: unknown): string {
  const id = (answer as { ID?: unknown } | null)?.ID;
  if (
    (typeof id === 'string' && /^\d+$/.test(id)) ||
    (typeof id === 'number' && Number.isSafeInteger(id))
  )
    return String(id);
  throw new Error(`etcd lease grant answered no lease id: ${JSON.stringify(answer)}`);
}

/** Whether a `/v3/kv/txn` answer took the success branch (the gateway omits false). */
export const etcdTxnSucceeded = (answer: unknown) =>
  (answer as { succeeded?: unknown } | null)?.succeeded === true;

export interface Etcd {
  url: string;
  stop: () => Promise<void>;
}

/** Why etcd cannot be measured here, or undefined when its binary runs. */
export function etcdMissing(binary = ETCD_BINARY): string | undefined {
  const which = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0)
    return `no ${binary} binary (Debian package etcd-server): ${which.error?.message ?? which.stderr.trim()}`;
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A one-member etcd on loopback, its data in a temporary directory on the
 * same disk as the kernel's file log (etcd fsyncs its WAL as the kernel does),
 * ready when `/health` says so (at most 20 s). `stop` kills it and removes the
 * directory.
 */
export async function startEtcd(): Promise<Etcd> {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  const child = spawn(
    ETCD_BINARY,
    [
      ...['--name', 'bench', '--data-dir', join(dir, 'data')],
      ...['--listen-client-urls', url, '--advertise-client-urls', url],
      ...['--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl],
      ...['--initial-cluster', `bench=${peerUrl}`, '--log-level', 'error'],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-2_000)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 200; i += 1) {
      if (child.exitCode !== null) throw new Error(`etcd exited ${child.exitCode}: ${said}`);
      const healthy = await request(`${url}/health`)
        .then(async (res) => res.statusCode === 200 && (await res.body.text()).includes('true'))
        .catch(() => false);
      if (healthy) return { url, stop };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`etcd on ${url} not healthy within 20 s: ${said}`);
  } catch (error) {
    await stop();
    throw error;
  }
}
