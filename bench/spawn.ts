import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** This bundle's own file: the bench starts its servers and load from it (`role …`). */
const SELF = fileURLToPath(import.meta.url);

export interface Spawned {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * Starts `node <args>` and waits (at most `limitMs`, 20 s unless told) for its
 * "listening on <url>" line; `env`, the bench's own when not given.
 */
export function spawnServer(
  args: string[],
  env?: NodeJS.ProcessEnv,
  limitMs = 20_000,
): Promise<Spawned> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no "listening on" line within ${limitMs / 1000} s`));
    }, limitMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code} before listening`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (\S+)\n/.exec(text);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.resume();
      resolve({
        url: match[1]!,
        pid: child.pid!,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

/** The committed CLI's kernel, in its own process (`nodeArgs` go before the script). */
export const startKernel = (
  args: string[] = [],
  nodeArgs: string[] = [],
  { limitMs }: { limitMs?: number } = {},
) =>
  spawnServer(
    [...nodeArgs, 'dist/cli/index.js', 'kernel', '--port', '0', '--quiet', ...args],
    undefined,
    limitMs,
  );

/** One of the bench's own servers (`echo`, `lock`), in its own process. */
export const startRole = (role: string, args: string[] = []) =>
  spawnServer([SELF, 'role', role, ...args]);

/** Runs a bench role to completion in its own process and returns the JSON it prints. */
export function runRole<T>(role: string, args: string[], limitMs: number): Promise<T> {
  const child = spawn(process.execPath, [SELF, 'role', role, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`role ${role} exited ${code}`));
      resolve(JSON.parse(text) as T);
    });
  });
}
