import { formatDuration } from '../gate/duration.js';
import { untrusted } from '../lease/escape.js';
import { openSession, type Acquired, type Session, type SessionOptions } from '../lease/session.js';
import { waitNotices } from '../lease/texts.js';
import type { Settings } from '../lease/settings.js';
import type { RetryEvent } from '../plane/client.js';
import type { Output } from './options.js';
import { HOSTED_HINT, HOSTED_SOURCE } from './plane-url.js';

/** After the first line, a plane still failing is said at most this often. */
export const STILL_FAILING_EVERY_MS = 60_000;

/**
 * The CLI's lease session. An unreachable plane is said at once, once: which URL,
 * where it came from and whether a kernel runs there; then retried quietly, with
 * at most a line a minute, never silent for long.
 */
export function cliSession(
  settings: Settings & { apiUrlFrom?: string } & Pick<SessionOptions, 'deploy' | 'queue'>,
  io: Output,
  env: NodeJS.ProcessEnv,
): Session {
  return openSession({
    ...settings,
    env,
    onRetry: retryLines(settings.apiUrl, settings.apiUrlFrom, io.err, Date.now),
  });
}

/** A command's one session, closed when `use` settles, whatever it does. */
export async function withSession<T>(
  settings: Parameters<typeof cliSession>[0],
  io: Output,
  env: NodeJS.ProcessEnv,
  use: (session: Session) => Promise<T>,
): Promise<T> {
  const session = cliSession(settings, io, env);
  try {
    return await use(session);
  } finally {
    await session.close();
  }
}

/**
 * Waits for the lease as the action does (the plane's back-off, a line on stderr as the
 * holder changes, unless `quiet`), until granted, timed out, superseded or one of
 * `signals` stops it: acquire's wait and run's are this one.
 */
export async function waitForLease(
  session: Session,
  settings: Pick<Settings, 'resource' | 'waitTimeoutMs'>,
  io: Output,
  options: { signals: readonly NodeJS.Signals[]; quiet?: boolean },
): Promise<{ result: Acquired; stoppedBy: NodeJS.Signals | undefined }> {
  const cancel = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stoppedBy ??= signal;
    cancel.abort();
  };
  for (const signal of options.signals) process.once(signal, stop);
  const notices = waitNotices(settings.resource);
  try {
    const result = await session.acquire({
      timeoutMs: settings.waitTimeoutMs,
      signal: cancel.signal,
      retryWindowMs: retryWindowMs(settings.waitTimeoutMs),
      onHeld: (event) => {
        const line = notices(event);
        if (line && !options.quiet) io.err(`lease-gate: ${line}`);
      },
    });
    return { result, stoppedBy };
  } finally {
    for (const signal of options.signals) process.off(signal, stop);
  }
}

/** The lines of a retried plane: the first failure in full, then one a minute. */
export function retryLines(
  apiUrl: string,
  from: string | undefined,
  say: (line: string) => void,
  now: () => number,
  everyMs = STILL_FAILING_EVERY_MS,
): (event: RetryEvent) => void {
  let lastLineAt: number | undefined;
  return (event) => {
    const at = now();
    const left = formatDuration(event.retryForMs);
    if (lastLineAt === undefined) {
      lastLineAt = at;
      say(
        `lease-gate: ${describeFirstFailure(apiUrl, from, event)} Retrying quietly for up to ${left}.`,
      );
      return;
    }
    if (at - lastLineAt < everyMs) return;
    lastLineAt = at;
    const what = event.status === undefined ? 'cannot reach' : 'still no answer from';
    say(
      `lease-gate: ${what} the plane at ${apiUrl} after ${event.attempt} attempts; retrying for ${left} more.`,
    );
  };
}

function describeFirstFailure(apiUrl: string, from: string | undefined, event: RetryEvent): string {
  // The call's own name ([GET] "url": …) is dropped: the URL is said once, with its source.
  const cause = untrusted(event.error.replace(/^\[[A-Z]+\] "[^"]*": /, ''), 200);
  const source = from ? ` (${from})` : '';
  // The hosted plane asked only because nothing named another: say how to name one.
  const hosted = from === HOSTED_SOURCE ? ` ${HOSTED_HINT}` : '';
  return event.status === undefined
    ? `cannot reach the plane at ${apiUrl}${source}: ${cause}.${hosted || " Is the kernel running there ('lease-gate kernel'), and is that the right URL?"}`
    : `the plane at ${apiUrl}${source} answered ${cause}.${hosted}`;
}

/** With --wait-timeout 0 the CLI asks once and retries an unreachable plane this long at most. */
export const ASK_ONCE_RETRY_MS = 10_000;

/** How long a waiting command retries an unreachable plane: within --wait-timeout. */
export function retryWindowMs(waitTimeoutMs: number): number {
  return waitTimeoutMs === 0 ? ASK_ONCE_RETRY_MS : waitTimeoutMs;
}
