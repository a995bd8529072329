import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';

/**
 * A revoke between two `lease-gate run`s, with real processes: a kernel, A's
 * and B's `run` (from source under tsx), each running a command tree (a node
 * process and a child of it) that appends "<who> <epoch ms>" to one file every
 * 10 ms. Used by the end-to-end test and by the bench.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CLI = [
  '--import',
  join(ROOT, 'node_modules/tsx/dist/loader.mjs'),
  join(ROOT, 'src/bin/cli.ts'),
];
export const RACE_RESOURCE = 'lock:deploy/production';
const ADMIN = 'race-admin-key';

/** The command tree: a parent that starts one child; both write until killed. */
const LOOP = `const fs = require('fs');
const who = process.env.WHO + (process.env.CHILD ? '-child' : '');
if (!process.env.CHILD) require('child_process').spawn(process.execPath, [__filename],
  { env: { ...process.env, CHILD: '1' }, stdio: 'ignore' });
setInterval(() => fs.appendFileSync(process.env.OUT, who + ' ' + Date.now() + '\\n'), 10);`;

export interface Race {
  url: string;
  dir: string;
  out: string;
  /** Starts `lease-gate run` as `who` (a DID of its own) on the race's resource. */
  run(who: string): RunProcess;
  revoke(reason: string): Promise<void>;
  /** The file's lines, per writer: epoch ms of each. */
  lines(): Map<string, number[]>;
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
    run(who) {
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
          process.execPath,
          script,
        ],
        { OUT: out, WHO: who },
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
      const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
      for (const line of text.split('\n')) {
        const [who, at] = line.split(' ');
        if (!who || !at) continue;
        const list = byWho.get(who) ?? [];
        list.push(Number(at));
        byWho.set(who, list);
      }
      return byWho;
    },
    async close() {
      for (const run of runs) {
        if (run.exitedAtMs() === undefined) run.child.kill('SIGTERM');
        await run.exited;
      }
      kernel.kill('SIGTERM');
      await new Promise((done) => kernel.once('close', done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
