import { execFile, type ExecFileException } from 'node:child_process';
import { LeaseGateError, type CauseOptions } from '../errors.js';
import { untrusted } from './escape.js';

/**
 * A CI's own command that prints the job's OIDC token (`buildkite-agent oidc request-token`,
 * `circleci run oidc get`), run as a child process: no shell (the audience is an argument, never
 * a piece of a command line), bounded in time and output. What it prints is a credential: it is
 * never put in an error, and what it says on stderr is clipped with anything shaped like a
 * token taken out, since a CI tool may echo what it was given.
 */

/** A command that prints a token: its program and arguments, and the job's environment. */
export interface TokenCommand {
  program: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** The job's token could not be had: a CI tool missing, failing, or printing no token. */
export class CiTokenError extends LeaseGateError<'helper'> {
  override name = 'CiTokenError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'helper' });
  }
}

/** A CI tool asks its agent over the network: long enough for a slow agent, short for a wait. */
export const TOKEN_COMMAND_TIMEOUT_MS = 30_000;
/** A JWT is a few kilobytes; anything much longer is not one. */
const MAX_OUTPUT_BYTES = 64 * 1024;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Anything in a tool's words that looks like a JWT or a long secret. */
const SECRETISH = /[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{40,}/g;

/** A tool's stderr, as a clause: first line, clipped, nothing token-shaped left in it. */
export function toolWords(stderr: string): string {
  const line = stderr.trim().split('\n')[0] ?? '';
  // Control characters escaped: the words end up in log lines printed as they are.
  return untrusted(line.replace(SECRETISH, '[redacted]'), 200);
}

/** `buildkite-agent oidc request-token`, as its error messages name it. */
const shown = (command: TokenCommand) =>
  [command.program, ...command.args.filter((arg) => !arg.startsWith('{'))].slice(0, 4).join(' ');

/** Runs the command and answers the token it printed; throws CiTokenError naming the command. */
export function tokenFromCommand(
  command: TokenCommand,
  timeoutMs = TOKEN_COMMAND_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command.program,
      [...command.args],
      {
        env: command.env,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        windowsHide: true,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const name = `\`${shown(command)}\``;
        if (error) {
          reject(new CiTokenError(failure(name, command.program, error, stderr, timeoutMs)));
          return;
        }
        const token = stdout.trim();
        if (!JWT.test(token)) {
          reject(new CiTokenError(`${name} printed no token (expected one compact JWT).`));
          return;
        }
        resolve(token);
      },
    );
  });
}

/** Why the command failed, in words without its output. */
function failure(
  name: string,
  program: string,
  error: ExecFileException,
  stderr: string,
  timeoutMs: number,
): string {
  if (error.code === 'ENOENT') return `${program} is not on PATH: ${name} cannot run.`;
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    return `${name} printed more than ${MAX_OUTPUT_BYTES} bytes: not a token.`;
  }
  if (error.killed) return `${name} did not answer within ${timeoutMs / 1000} s.`;
  const words = toolWords(stderr);
  const code = typeof error.code === 'number' ? ` with code ${error.code}` : '';
  return `${name} failed${code}${words ? `: ${words}` : ''}.`;
}
