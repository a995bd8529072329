import { createHash } from 'node:crypto';
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartRefusedError } from './store-error.js';
import { causeText, type CauseOptions } from '../../errors.js';

/**
 * One kernel at a time on one log. Two file kernels on one `--data-prefix`
 * would each take fences from their own count and write the one log over each
 * other: two holders of one resource, and a log that keeps one of them.
 *
 * The lock is a listening socket named after the log file itself, its device
 * and inode hashed, so every name of the file (a symlink to it, a hard link,
 * another path to its folder) is one lock: on Linux in the abstract namespace,
 * on Windows a named pipe. Both belong to the
 * process, so the system frees them when it ends, kill -9 too, and there is no
 * file left behind to be stale. Elsewhere (macOS, the BSDs) it is a socket file
 * in the temporary folder: one whose owner is gone refuses connections and is
 * removed and taken (two starts racing over a stale one may both remove it;
 * docs/failure-modes.md says so). A kernel that asks the socket is told who
 * holds it.
 */
export interface StateLock {
  close(): Promise<void>;
}

/** Another kernel holds the log; the message names it, in one line. */
export class StateLockedError extends StartRefusedError {
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'state_locked' });
  }
}

/** What the holder tells whoever asks. */
interface Holder {
  pid: number;
  startedAt: string;
}

export interface LockOptions {
  /** How long a start waits for the holder to go (an overlapping restart) before it refuses. */
  waitMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Who this process is, as the next one is told. */
  holder?: Holder;
  /** The platform whose kind of socket is used (tests: the fallback on Linux). */
  platform?: NodeJS.Platform;
}

/** How long a start waits by default: a restart whose old process is still on its way out. */
export const LOCK_WAIT_MS = 5_000;
const RETRY_MS = 100;
const ASK_TIMEOUT_MS = 1_000;
const ANSWER_BYTES = 512;

/**
 * The lock's socket name for a log: the same for every path that names that
 * file. The log is created first when missing (the store would create it, with
 * the same mode), so a file exists to have an identity; a log that cannot be
 * created refuses the start (StateLockedError, naming it).
 */
export function lockAddress(logFile: string, platform: NodeJS.Platform = process.platform): string {
  let identity: string;
  try {
    // 'a' creates without truncating, through a symlink to its target; nothing is written.
    closeSync(openSync(logFile, 'a', 0o600));
    const { dev, ino } = statSync(logFile, { bigint: true });
    identity = `${dev}:${ino}`;
  } catch (error) {
    throw new StateLockedError(
      `Cannot open the kernel's log ${logFile} (${(error as NodeJS.ErrnoException).code ?? causeText(error)}): its folder must exist and be writable.`,
      { cause: error },
    );
  }
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 40);
  if (platform === 'linux') return `\0lease-gate:${hash}`;
  if (platform === 'win32') return `\\\\?\\pipe\\lease-gate-${hash}`;
  return join(tmpdir(), `lease-gate-${hash}.sock`);
}

/**
 * Takes the lock of `logFile`, waiting up to `waitMs` while another process
 * holds it, then refusing with a StateLockedError naming that process.
 */
export async function lockState(logFile: string, options: LockOptions): Promise<StateLock> {
  const platform = options.platform ?? process.platform;
  const address = lockAddress(logFile, platform);
  const holder = options.holder ?? { pid: process.pid, startedAt: new Date().toISOString() };
  const answer = `${JSON.stringify(holder)}\n`;
  const deadline = options.now() + options.waitMs;
  let removedStale = false;
  for (;;) {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(answer);
    });
    const error = await listen(server, address);
    if (!error) {
      // The lock is held by the process, not by the event loop: it must not keep a stopping kernel up.
      server.unref();
      return { close: () => new Promise<void>((done) => server.close(() => done())) };
    }
    if (error.code !== 'EADDRINUSE') {
      throw new StateLockedError(
        `Cannot lock the kernel's log ${logFile} (${error.code ?? error.message}): a second kernel on it could not be kept out.`,
      );
    }
    const other = await ask(address);
    if (other === 'gone' && platform !== 'linux' && platform !== 'win32' && !removedStale) {
      // A socket file its process left behind (it was killed): nothing listens, so it is taken over.
      removedStale = true;
      try {
        unlinkSync(address);
      } catch {
        // Someone else removed it first: try again.
      }
      continue;
    }
    if (options.now() >= deadline)
      throw new StateLockedError(lockedMessage(logFile, other, options.waitMs));
    await options.sleep(RETRY_MS);
  }
}

function listen(server: Server, address: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((done) => {
    server.once('error', (error: NodeJS.ErrnoException) => done(error));
    server.listen(address, () => done(undefined));
  });
}

/** The holder, as it says (checked: it is another process's word), or why not. */
function ask(address: string): Promise<Holder | 'silent' | 'gone'> {
  return new Promise((done) => {
    let text = '';
    const socket = createConnection(address);
    const finish = (result: Holder | 'silent' | 'gone') => {
      socket.destroy();
      clearTimeout(timer);
      done(result);
    };
    const timer = setTimeout(() => finish('silent'), ASK_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.length > ANSWER_BYTES) finish('silent');
    });
    socket.on('end', () => finish(parseHolder(text)));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'gone' : 'silent'),
    );
  });
}

function parseHolder(text: string): Holder | 'silent' {
  try {
    const value = JSON.parse(text) as { pid?: unknown; startedAt?: unknown };
    if (
      Number.isInteger(value.pid) &&
      (value.pid as number) > 0 &&
      (value.pid as number) < 2 ** 32 &&
      typeof value.startedAt === 'string' &&
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(value.startedAt)
    )
      return { pid: value.pid as number, startedAt: value.startedAt };
  } catch {
    // Not an answer of ours.
  }
  return 'silent';
}

function lockedMessage(logFile: string, other: Holder | 'silent' | 'gone', waitMs: number): string {
  const who =
    typeof other === 'object'
      ? `another kernel (pid ${other.pid}, started ${other.startedAt})`
      : 'another process';
  return `Refusing to start: ${who} holds the kernel's log ${logFile}. One kernel at a time keeps a log: stop that one first (this one waited ${waitMs / 1000} s for it to go), or give this one another --data-prefix.`;
}
