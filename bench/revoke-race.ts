import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';

/**
 * A revoke between two `lease-gate run`s, with real processes: a kernel, A's
 * and B's `run` (from source under tsx), each running a command tree (a node
 * process and a child of it, and with `escape` a third that left the group by
 * setsid()) that appends "<who> <epoch ms> <pid>" to one file every 10 ms, and
 * once "<who>-cgroup <path> <pid>" (its cgroup v2 path). Used by the
 * end-to-end test and by the bench.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CLI = [
  '--import',
  join(ROOT, 'node_modules/tsx/dist/loader.mjs'),
  join(ROOT, 'src/bin/cli.ts'),
];
export const RACE_RESOURCE = 'lock:deploy/production';
const ADMIN = 'race-admin-key';

/**
 * The command tree: a parent that starts one child (and, with ESCAPE, a `detached` one: a
 * session and group of its own, as setsid(1) makes); all write until killed.
 */
const LOOP = `const fs = require('fs');
const { spawn } = require('child_process');
const role = process.env.ROLE;
const who = process.env.WHO + (role ? '-' + role : '');
const start = (ROLE, detached) => spawn(process.execPath, [__filename],
  { env: { ...process.env, ROLE }, stdio: 'ignore', detached }).unref();
if (!role) {
  start('child', false);
  if (process.env.ESCAPE) start('escaped', true);
}
let cgroup = '-';
try { cgroup = /^0::(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))[1]; } catch {}
fs.appendFileSync(process.env.OUT, who + '-cgroup ' + cgroup + ' ' + process.pid + '\\n');
setInterval(() => fs.appendFileSync(process.env.OUT, who + ' ' + Date.now() + ' ' + process.pid + '\\n'), 10);`;

export interface Race {
  url: string;
  dir: string;
  out: string;
  /** The command tree's script (`node <script>` is the default command). */
  script: string;
  /**
   * Starts `lease-gate run` as `who` (a DID of its own) on the race's resource; `escape`
   * adds a process that left the command's group, `env` goes to run (and the command),
   * `command` replaces `node <script>` (a writer it starts should name `out` in its command
   * line, so that close() finds it).
   */
  run(
    who: string,
    options?: { escape?: boolean; env?: NodeJS.ProcessEnv; command?: string[] },
  ): RunProcess;
  revoke(reason: string): Promise<void>;
  /** The file's lines, per writer: epoch ms of each. */
  lines(): Map<string, number[]>;
  /** Each writer's cgroup v2 path ('-' where there is none). */
  cgroups(): Map<string, string>;
  close(): Promise<void>;
}

export interface RunProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
  /** Epoch ms when the process exited. */
  exitedAtMs(): number | undefined;
}

const did = (who: string) => `did:web:race.example:agent:${who}`;

function spawnCli(args: string[], env: NodeJS.ProcessEnv) {
  return spawn(process.execPath, [...CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

export async function startRace(kernelArgs: string[] = []): Promise<Race> {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-race-'));
  const out = join(dir, 'out');
  const script = join(dir, 'loop.cjs');
  writeFileSync(script, LOOP);
  writeFileSync(out, '');
  const kernel = spawn(
    process.execPath,
    [...CLI, 'kernel', '--port', '0', '--quiet', ...kernelArgs],
    {
      env: { PATH: process.env.PATH ?? '', LEASE_GATE_ADMIN_KEY: ADMIN },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`kernel did not start: ${text}`)), 60_000);
    kernel.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /lease-gate kernel listening on (http:\/\/\S+)\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    kernel.on('close', () => reject(new Error(`kernel exited: ${text}`)));
  });
  const runs: RunProcess[] = [];
  return {
    url,
    dir,
    out,
    script,
    run(who, options = {}) {
      const child = spawnCli(
        [
          'run',
          '--resource',
          RACE_RESOURCE,
          '--actor-did',
          did(who),
          '--api-url',
          url,
          '--',
          ...(options.command ?? [process.execPath, script]),
        ],
        { OUT: out, WHO: who, ...(options.escape ? { ESCAPE: '1' } : {}), ...options.env },
      );
      let stderr = '';
      let exitedAt: number | undefined;
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((done) =>
        child.on('close', (code) => {
          exitedAt = Date.now();
          done(code);
        }),
      );
      const handle = { child, stderr: () => stderr, exited, exitedAtMs: () => exitedAt };
      runs.push(handle);
      return handle;
    },
    async revoke(reason) {
      // As the console does: the admin key as the Bearer token.
      const res = await request(`${url}/api/v1/acp/coordination/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ resource: RACE_RESOURCE, reason }),
      });
      const body = (await res.body.json()) as { revoked?: boolean };
      if (!body.revoked) throw new Error(`nothing revoked: ${JSON.stringify(body)}`);
    },
    lines() {
      const byWho = new Map<string, number[]>();
      for (const [who, at] of records(out)) {
        if (who.endsWith('-cgroup')) continue;
        const list = byWho.get(who) ?? [];
        list.push(Number(at));
        byWho.set(who, list);
      }
      return byWho;
    },
    cgroups() {
      const byWho = new Map<string, string>();
      for (const [who, path] of records(out))
        if (who.endsWith('-cgroup')) byWho.set(who.slice(0, -'-cgroup'.length), path);
      return byWho;
    },
    async close() {
      for (const run of runs) {
        if (run.exitedAtMs() === undefined) run.child.kill('SIGTERM');
        await run.exited;
      }
      // A writer that outlived its run (the bug the race looks for) goes too; the pid is
      // checked to still run this script (or name the file), as pids are reused.
      for (const [, , pid] of records(out)) {
        const cmdline = existsSync(`/proc/${pid}/cmdline`)
          ? readFileSync(`/proc/${pid}/cmdline`, 'utf8')
          : '';
        if (cmdline.includes(script) || cmdline.includes(out)) process.kill(Number(pid), 'SIGKILL');
      }
      kernel.kill('SIGTERM');
      await new Promise((done) => kernel.once('close', done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The file's lines, split: [who, epoch ms or cgroup path, pid]. */
function records(out: string): Array<[string, string, string]> {
  const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields): fields is [string, string, string] => fields.length === 3);
}

/** The kernel's ledger entries, oldest first: kind, time (the kernel's clock) and DID. */
export async function ledgerEntries(
  url: string,
): Promise<Array<{ kind: string; tsMs: number; actorDid: string }>> {
  interface Entry {
    kind: string;
    tsMs: number;
    actorDid: string;
  }
  const res = await request(`${url}/api/v1/acp/ledger/bundle?limit=1000`);
  const body = (await res.body.json()) as { entries: Array<{ entry: Entry } | Entry> };
  return body.entries.map((e) => ('entry' in e ? e.entry : e));
}

/** Polls (bounded) until `ready()` says so. */
export async function until(
  ready: () => boolean | Promise<boolean>,
  limitMs: number,
  what: string,
) {
  const end = Date.now() + limitMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

/** The kernel's overview shows `who` waiting on the race's resource. */
export async function queued(url: string, who: string): Promise<boolean> {
  const res = await request(`${url}/api/v1/kernel/resources`);
  const body = (await res.body.json()) as {
    resources: Array<{ queue: Array<{ actorDid: string }> }>;
  };
  return body.resources.some((r) => r.queue.some((w) => w.actorDid === did(who)));
}
