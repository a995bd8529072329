// npm run demo: two emulated jobs contend for lock:deploy/production on a local
// kernel, each running the committed dist/ main → deploy → post as a runner would.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const KEY = 'demo-key-not-a-secret';
const DEPLOY_MS = 4_000;
const colors = { kernel: 90, 'job A': 36, 'job B': 35 };
const started = Date.now();

function say(who, line) {
  const t = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  process.stdout.write(`\x1b[${colors[who] ?? 0}m${t}s [${who}]\x1b[0m ${line}\n`);
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
    const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

async function job(who, runId, apiUrl) {
  const dir = mkdtempSync(join(tmpdir(), `lease-gate-demo-${runId}-`));
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
    INTRAMEDIAL_KEY: KEY,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/shop',
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

const kernel = spawn(
  process.execPath,
  ['dist/cli/index.js', 'kernel', '--port', '0', '--ttl-ms', '3000'],
  {
    env: { PATH: process.env.PATH, LEASE_GATE_KERNEL_KEY: KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
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

say('kernel', 'leases last 3 s here (30 s on the plane), so the keeper renews them visibly often');
const a = job('job A', '1001', url);
await sleep(1_000);
const b = job('job B', '1002', url);
const codes = await Promise.all([a, b]);

// The kernel's ledger: every grant and release, sealed and checkable offline.
const bundleFile = join(mkdtempSync(join(tmpdir(), 'lease-gate-demo-ledger-')), 'ledger.json');
const cli = (args, env = {}) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/cli/index.js', ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => resolve({ code, out: out.trim() }));
  });
await cli(['ledger', 'export', '--url', url, '--out', bundleFile], { LEASE_GATE_KERNEL_KEY: KEY });
const verified = await cli(['verify', bundleFile, '--public-key', `${bundleFile}.pub`]);
say('kernel', `lease-gate verify ${bundleFile} → ${verified.out}`);
kernel.kill('SIGTERM');

const release = events.find((e) => e.kind === 'release' && e.actor.includes(':runs:1001:'));
const grant = events.find((e) => e.kind === 'grant' && e.actor.includes(':runs:1002:'));
if (codes.some((code) => code !== 0) || !release || !grant || verified.code !== 0) {
  console.error('demo failed: both jobs should have deployed one after the other');
  process.exit(1);
}
console.log(
  `\nhandover: ${grant.atMs - release.atMs} ms from job A's release to job B's grant (total ${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
