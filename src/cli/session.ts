import { untrusted } from '../lease/escape.js';
import { openSession, type Session, type SessionOptions } from '../lease/session.js';
import type { Settings } from '../lease/settings.js';
import type { Output } from './options.js';

/** The CLI's lease session: retries of an unreachable plane are said on stderr, never silent. */
export function cliSession(
  settings: Settings & Pick<SessionOptions, 'deploy' | 'queue'>,
  io: Output,
  env: NodeJS.ProcessEnv,
): Session {
  let lastLineAt = 0;
  return openSession({
    ...settings,
    env,
    onRetry: (event) => {
      const now = Date.now();
      if (now - lastLineAt < 4_000 && event.attempt > 1) return;
      lastLineAt = now;
      io.err(
        `lease-gate: plane unreachable (${untrusted(event.error, 200)}), retrying for ${Math.ceil(event.retryForMs / 1_000)} s more`,
      );
    },
  });
}

/** With --wait-timeout 0 the CLI asks once and retries an unreachable plane this long at most. */
export const ASK_ONCE_RETRY_MS = 10_000;
