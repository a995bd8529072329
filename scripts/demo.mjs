// npm run demo: two emulated jobs contend for lock:deploy/production on a local
// kernel, each running the committed dist/ main → deploy → post as a runner would,
// with a fake GitHub API on loopback (the holder's run, commit statuses, compare).
// Colours only on a terminal without NO_COLOR; every file goes in one temporary
// folder, removed at exit, on failure too.
import { spawn } from 'node:child_process';
import { createServer, get } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

const KEY = 'demo-key-not-a-secret';
const DEPLOY_MS = 4_000;
const RESOURCE = 'lock:deploy/production';
const COMMITS = { 1001: 'a1'.repeat(20), 1002: 'b2'.repeat(20) };
const colors = { kernel: 90, 'job A': 36, 'job B': 35 };
const useColor = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const started = Date.now();
const root = mkdtempSync(join(tmpdir(), 'lease-gate-demo-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

function say(who, line) {
  const t = `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s [${who}]`;
  const tag = useColor ? `\x1b[${colors[who] ?? 0}m${t}\x1b[0m` : t;
  process.stdout.write(`${tag} ${line}\n`);
}

function track(child) {
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** Shows a runner's workflow commands the way the log and annotations show them. */
function render(line) {
  if (/^::(add-mask|save-state|set-output)/.test(line)) return undefined;
  const annotation = /^::(notice|warning|error)(?: [^:]*)?::(.*)$/.exec(line);
  if (annotation) return `${annotation[1].toUpperCase()}: ${annotation[2].replace(/%0A/g, ' ')}`;
  return line;
}

function inputsEnv() {
  const yml = readFileSync('action.yml', 'utf8');
  const env = {};
  for (const [, name, value] of yml.matchAll(
    /^ {2}([a-z-]+):\n(?: {4}.*\n)*? {4}default: '?([^'\n]*)'?$/gm,
  )) {
    env[`INPUT_${name.toUpperCase()}`] = value;
  }
  return env;
}

function parseFileCommands(text) {
  const values = {};
  const pattern = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const [, name, , value] of text.matchAll(pattern)) values[name] = value;
  return values;
}

function step(who, entry, env) {
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        const shown = render(line);
        if (shown !== undefined) say(who, shown);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', resolve);
  });
}

async function job(who, runId, apiUrl, githubUrl) {
  const dir = mkdtempSync(join(root, `job-${runId}-`));
  const files = {
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  const env = {
    PATH: process.env.PATH,
    ...inputsEnv(),
    'INPUT_API-URL': apiUrl,
    'INPUT_GITHUB-TOKEN': 'demo-github-token',
    INTRAMEDIAL_KEY: KEY,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: githubUrl,
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: COMMITS[runId],
    GITHUB_WORKFLOW: 'Deploy',
    GITHUB_RUN_NUMBER: String(runId - 1000 + 40),
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'deploy',
    RUNNER_TEMP: dir,
    ...files,
  };
  say(who, '▶ Run lease-gate (main)');
  const mainCode = await step(who, 'dist/main/index.js', env);
  const state = parseFileCommands(readFileSync(files.GITHUB_STATE, 'utf8'));
  const outputs = parseFileCommands(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
  if (mainCode === 0 && outputs.acquired === 'true') {
    say(who, `▶ Deploy (fence ${outputs.fence}) … ${DEPLOY_MS / 1000}s`);
    await sleep(DEPLOY_MS);
  }
  say(who, '▶ Post Run lease-gate');
  const postEnv = { ...env };
  for (const [name, value] of Object.entries(state)) postEnv[`STATE_${name}`] = value;
  writeFileSync(files.GITHUB_STATE, '');
  await step(who, 'dist/post/index.js', postEnv);
  return mainCode;
}

/** GitHub's API as the jobs use it: the holder's run, commit statuses and the compare API. */
async function fakeGitHub() {
  const server = createServer((req, res) => {
    const answer = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const run = /^\/repos\/acme\/shop\/actions\/runs\/(\d+)$/.exec(req.url ?? '');
    if (run)
      return answer(200, {
        name: 'Deploy',
        run_number: Number(run[1]) - 1000 + 40,
        status: 'in_progress',
        run_started_at: new Date(started).toISOString(),
        html_url: `https://github.com/acme/shop/actions/runs/${run[1]}`,
        triggering_actor: { login: 'alice' },
      });
    if (req.url?.startsWith('/repos/acme/shop/statuses/')) return answer(201, { id: 1 });
    if (req.url?.startsWith('/repos/acme/shop/compare/')) return answer(200, { status: 'ahead' });
    return answer(404, { message: 'Not Found' });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${server.address().port}`;
}

const kernel = track(
  spawn(process.execPath, ['dist/cli/index.js', 'kernel', '--port', '0', '--ttl-ms', '3000'], {
    env: { PATH: process.env.PATH, LEASE_GATE_KERNEL_KEY: KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);
const events = [];
const url = await new Promise((resolve, reject) => {
  let text = '';
  kernel.on('close', () => reject(new Error('the kernel stopped')));
  kernel.stdout.on('data', (chunk) => {
    text += chunk.toString();
    const lines = text.split('\n');
    text = lines.pop();
    for (const line of lines) {
      const listening = /^lease-gate kernel listening on (\S+)$/.exec(line);
      if (listening) resolve(listening[1]);
      const event = /^(\S+) (grant|release|lapse|revoke) (\S+) (\S+)/.exec(line);
      if (event) events.push({ atMs: Date.parse(event[1]), kind: event[2], actor: event[4] });
      say('kernel', line);
    }
  });
});

/** GET a kernel route as JSON (node:http: the demo needs nothing else). */
function getJson(path) {
  return new Promise((resolve, reject) => {
    const req = get(`${url}${path}`, { headers: { authorization: `Bearer ${KEY}` } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
  });
}

/**
 * The kernel logs grants and releases, not renewals: the demo looks at the lease
 * twice a second and shows each lease's first renewal by its keeper (same lease,
 * same fence, a later expiry), then counts the others.
 */
function showRenewals() {
  let last;
  const renewals = new Map();
  const at = (ms) => new Date(ms).toISOString().slice(11, 23);
  const timer = setInterval(async () => {
    try {
      const { lease } = await getJson(
        `/api/v1/acp/coordination/lease?resource=${encodeURIComponent(RESOURCE)}`,
      );
      if (lease && last && lease.id === last.id && lease.expiresAtMs > last.expiresAtMs) {
        const job = lease.holder.includes(':runs:1001:') ? 'job A' : 'job B';
        const n = (renewals.get(lease.id)?.n ?? 0) + 1;
        renewals.set(lease.id, { job, n });
        if (n === 1)
          say(
            'kernel',
            `renewed by ${job}'s keeper: ${lease.id}, fence ${lease.fence}, expires ${at(last.expiresAtMs)} → ${at(lease.expiresAtMs)} (it renews about every second; counted from here on)`,
          );
      }
      last = lease ?? undefined;
    } catch {
      // the kernel is stopping
    }
  }, 500);
  return () => {
    clearInterval(timer);
    return [...renewals.values()];
  };
}

const githubUrl = await fakeGitHub();
say(
  'kernel',
  'leases last 3 s here (30 s on a default kernel), so the keeper renews them visibly often',
);
const stopRenewals = showRenewals();
const a = job('job A', '1001', url, githubUrl);
await sleep(1_000);
const bStarted = Date.now();
const b = job('job B', '1002', url, githubUrl);
const codes = await Promise.all([a, b]);
for (const { job, n } of stopRenewals())
  say('kernel', `${job}'s keeper renewed its lease ${n} times`);

// The kernel's ledger: every grant, renewal and release, sealed and checkable offline.
const bundleFile = join(root, 'ledger.json');
const cli = (args, env = {}) =>
  new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, ['dist/cli/index.js', ...args], {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => resolve({ code, out: out.trim() }));
  });
await cli(['ledger', 'export', '--url', url, '--out', bundleFile], { LEASE_GATE_KERNEL_KEY: KEY });
const verified = await cli(['verify', bundleFile, '--public-key', `${bundleFile}.pub`]);
say('kernel', `lease-gate verify ledger.json --public-key ledger.json.pub → ${verified.out}`);
kernel.kill('SIGTERM');

const release = events.find((e) => e.kind === 'release' && e.actor.includes(':runs:1001:'));
const grant = events.find((e) => e.kind === 'grant' && e.actor.includes(':runs:1002:'));
if (codes.some((code) => code !== 0) || !release || !grant || verified.code !== 0) {
  console.error('demo failed: both jobs should have deployed one after the other');
  process.exit(1);
}
const waited = grant.atMs - bStarted;
console.log(
  `\njob B waited ${(waited / 1000).toFixed(1)} s behind job A; handover: ${grant.atMs - release.atMs} ms from job A's release to job B's grant (total ${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
