import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed Debian's way (/usr/lib/postgresql/<v>/bin), if any. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

export interface Cluster {
  dir: string;
  port: number;
  /** The postmaster's pid, from postmaster.pid. */
  pid(): number;
}

/**
 * Two clusters of our own in one temporary directory, a primary and a streaming
 * standby (pg_basebackup with a replication slot), never the machine's own cluster.
 * As root, the binaries run as `postgres` (initdb refuses root) and the directory is its.
 */
export async function startPair(options: { synchronous: boolean; standbyVia?: number }) {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const root = mkdtempSync(join(tmpdir(), 'lease-gate-failover-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(root, ...ids('postgres'));
  const exec = (cmd: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { cwd: root })
      : run(join(bin, cmd), args, { cwd: root });
  const primary: Cluster = cluster(join(root, 'primary'), await freePort());
  const standby: Cluster = cluster(join(root, 'standby'), await freePort());
  const started: Cluster[] = [];

  await exec('initdb', ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const common = [
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${root}'`,
    // A kill -9 of the whole server is what is tested, not the disk: no fsync saves the shared machine's I/O.
    'fsync = off',
    'wal_level = replica',
    'max_wal_senders = 5',
    'max_replication_slots = 5',
    'hot_standby = on',
    'wal_retrieve_retry_interval = 200ms',
  ];
  const sync = options.synchronous
    ? [`synchronous_standby_names = 'lg_standby'`, 'synchronous_commit = on']
    : [`synchronous_standby_names = ''`, 'synchronous_commit = on'];
  appendFileSync(
    join(primary.dir, 'postgresql.conf'),
    [...common, `port = ${primary.port}`, ...sync, ''].join('\n'),
  );
  const start = async (c: Cluster) => {
    await exec('pg_ctl', ['-D', c.dir, '-l', `${c.dir}.log`, '-w', '-t', '60', 'start']);
    started.push(c);
  };
  await start(primary);
  await exec('pg_basebackup', [
    '-D',
    standby.dir,
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-X',
    'stream',
    '-C',
    '-S',
    'lg_standby',
    '-R',
  ]);
  // The standby's own port, and its name for synchronous_standby_names; the replication
  // connection may go through a proxy of the test's (to hold the standby back).
  const via = options.standbyVia ?? primary.port;
  appendFileSync(
    join(standby.dir, 'postgresql.auto.conf'),
    [
      `port = ${standby.port}`,
      `primary_conninfo = 'host=127.0.0.1 port=${via} user=postgres application_name=lg_standby'`,
      `primary_slot_name = 'lg_standby'`,
      '',
    ].join('\n'),
  );
  await start(standby);

  return {
    root,
    primary,
    standby,
    /** SIGKILL of the postmaster and every process of it: a machine that died. */
    async killPrimary(): Promise<void> {
      const pid = primary.pid();
      const children = await run('pgrep', ['-P', String(pid)]).then(
        (r) => r.stdout.split('\n').filter(Boolean).map(Number),
        () => [] as number[],
      );
      for (const p of [pid, ...children]) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      started.splice(started.indexOf(primary), 1);
    },
    async promoteStandby(): Promise<void> {
      await exec('pg_ctl', ['-D', standby.dir, '-w', '-t', '60', 'promote']);
    },
    /** ALTER SYSTEM on the standby, then a reload. */
    async setOnStandby(name: string, value: string): Promise<void> {
      await queryOne(standby.port, `ALTER SYSTEM SET ${name} = '${value}'`, false);
      await queryOne(standby.port, 'SELECT pg_reload_conf()::text AS v');
    },
    /** Waits until the standby has replayed everything the primary wrote so far. */
    async caughtUp(): Promise<void> {
      const lsn = await queryOne(primary.port, 'SELECT pg_current_wal_lsn()::text AS v');
      for (;;) {
        const replayed = await queryOne(
          standby.port,
          `SELECT (pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn)::text AS v`,
        );
        if (replayed === 'true') return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    /** Both stopped (immediate) and the directory removed: always, whatever happened. */
    async remove(): Promise<void> {
      for (const c of started.splice(0)) {
        await exec('pg_ctl', ['-D', c.dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      }
      for (const c of [primary, standby]) {
        // A postmaster killed or not stopped: no process of ours may outlive the test.
        try {
          process.kill(c.pid(), 'SIGKILL');
        } catch {
          // Not running.
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export const urlOf = (port: number, database = 'postgres') =>
  `postgres://postgres@127.0.0.1:${port}/${database}`;

async function queryOne(port: number, text: string, answers = true): Promise<string> {
  const client = new pg.Client({ connectionString: urlOf(port), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string }>(text);
    return answers ? rows[0]!.v : '';
  } finally {
    await client.end().catch(() => undefined);
  }
}

function cluster(dir: string, port: number): Cluster {
  return {
    dir,
    port,
    pid: () => Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]),
  };
}

/** uid and gid of a local user, from /etc/passwd. */
function ids(user: string): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`no user ${user} to run PostgreSQL as`);
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}
