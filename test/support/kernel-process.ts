import { spawn, type ChildProcess } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';

/** The committed bundle, as a user runs it. */
export const DIST_CLI = ['dist/cli/index.js'];
/** The CLI from source under tsx: for a change dist/ does not carry yet (it compiles first, so it starts slower). */
export const SOURCE_CLI = [
  '--import',
  resolvePath('node_modules/tsx/dist/loader.mjs'),
  'src/bin/cli.ts',
];

export interface KernelProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the committed CLI's `kernel` and waits for its first line; `cli`: SOURCE_CLI for
 * src/bin/cli.ts under tsx instead (its notification worker from source too), which compiles as it starts.
 */
export function startKernelProcess(
  args: string[],
  env: Record<string, string> = {},
  cli = DIST_CLI,
): Promise<KernelProcess> {
  const child = spawn(process.execPath, [...cli, 'kernel', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    const startMs = cli === DIST_CLI ? 10_000 : 60_000;
    const timer = setTimeout(() => reject(new Error(`kernel did not start: ${output}`)), startMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^lease-gate kernel listening on (http:\/\/\S+)\n/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            child.kill(signal);
            // Bounded, and saying so: a kernel that does not go is a failure of its own, not a
            // test's timeout with no word of where it hung.
            let timer: NodeJS.Timeout | undefined;
            const late = new Promise<never>((_, fail) => {
              timer = setTimeout(
                () => fail(new Error(`kernel still running 15 s after ${signal}: ${output}`)),
                15_000,
              );
            });
            try {
              return await Promise.race([exited, late]);
            } finally {
              clearTimeout(timer);
            }
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`kernel exited with ${code}: ${output}`));
    });
  });
}

/**
 * Runs a CLI command to completion; with `killAfterMs`, one still running then is
 * killed (SIGKILL), so a command that stays up (a kernel) gives `code` null.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  cli = DIST_CLI,
  killAfterMs?: number,
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...cli, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
