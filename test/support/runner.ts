import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string; post: string; 'post-if': string };
}

export const actionYml = parse(readFileSync('action.yml', 'utf8')) as ActionYml;

export interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  state: Record<string, string>;
  summary: string;
  /** Milliseconds from the signal (if any) to the exit. */
  exitAfterSignalMs?: number;
  /** Milliseconds from the spawn to the first stdout holding each of `options.mark`. */
  marks: Record<string, number>;
}

export interface StepOptions {
  inputs?: Record<string, string>;
  env?: Record<string, string>;
  state?: Record<string, string>;
  /** Send this signal once stdout contains `signalWhen`. */
  signal?: { name: NodeJS.Signals; when: string };
  /** Call `run` once, the first time stdout contains `when` (the event a test reacts to). */
  onStdout?: { when: string; run: () => void };
  tempDir?: string;
  /** Texts whose first appearance on stdout is timed from the spawn (see `marks`). */
  mark?: string[];
}

/** The run context a GitHub runner gives every step. */
export const RUN_ENV = {
  GITHUB_ACTIONS: 'true',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'acme/shop',
  GITHUB_RUN_ID: '4242',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'deploy',
};

/** Reads a runner file command file (`name<<delimiter` blocks). */
export function parseFileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!match) continue;
    const [, name, delimiter] = match;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== delimiter; i += 1) value.push(lines[i] ?? '');
    values[name!] = value.join('\n');
  }
  return values;
}

/** Runs dist/<step>/index.js the way a runner does. */
export function runStep(step: 'main' | 'post', options: StepOptions = {}): Promise<StepResult> {
  const dir = options.tempDir ?? mkdtempSync(join(tmpdir(), 'lease-gate-step-'));
  const files = {
    GITHUB_OUTPUT: join(dir, `${step}-output`),
    GITHUB_STATE: join(dir, `${step}-state`),
    GITHUB_STEP_SUMMARY: join(dir, `${step}-summary`),
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    RUNNER_TEMP: dir,
    ...RUN_ENV,
    ...files,
    ...options.env,
  };
  for (const [name, spec] of Object.entries(actionYml.inputs)) {
    // A runner expands ${{ … }} in defaults; here they expand to nothing unless given.
    const fallback = spec.default?.includes('${{') ? '' : (spec.default ?? '');
    env[`INPUT_${name.toUpperCase()}`] = options.inputs?.[name] ?? fallback;
  }
  for (const [name, value] of Object.entries(options.state ?? {})) env[`STATE_${name}`] = value;
  const entry = step === 'main' ? actionYml.runs.main : actionYml.runs.post;

  return new Promise((resolve, reject) => {
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const marks: Record<string, number> = {};
    let stdout = '';
    let stderr = '';
    let signalledAt: number | undefined;
    let reacted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const text of options.mark ?? []) {
        if (!(text in marks) && stdout.includes(text)) marks[text] = Date.now() - spawnedAt;
      }
      if (options.onStdout && !reacted && stdout.includes(options.onStdout.when)) {
        reacted = true;
        options.onStdout.run();
      }
      if (options.signal && signalledAt === undefined && stdout.includes(options.signal.when)) {
        signalledAt = Date.now();
        child.kill(options.signal.name);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseFileCommands(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
        state: parseFileCommands(readFileSync(files.GITHUB_STATE, 'utf8')),
        summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
        marks,
        ...(signalledAt === undefined ? {} : { exitAfterSignalMs: Date.now() - signalledAt }),
      }),
    );
  });
}

/** Main, then post with main's state, sharing one RUNNER_TEMP. */
export async function runJob(options: Omit<StepOptions, 'state' | 'tempDir' | 'signal'> = {}) {
  const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-job-'));
  const main = await runStep('main', { ...options, tempDir });
  const post = await runStep('post', { ...options, tempDir, state: main.state });
  return { main, post, tempDir };
}

/** A job's inputs and environment against the plane at `url`: `key` as the runner's, no keeper. */
export const jobAgainst = (
  url: string,
  key: string,
  inputs: Record<string, string> = {},
  env: Record<string, string> = {},
) => ({
  inputs: { 'api-url': url, 'keep-alive': 'false', ...inputs },
  env: { INTRAMEDIAL_KEY: key, ...env },
});
