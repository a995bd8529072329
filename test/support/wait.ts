/** A pause of `ms` milliseconds on the real clock. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface UntilOptions {
  /** How long the condition may take before the wait fails (milliseconds). */
  timeoutMs?: number;
  /** How long between two looks at the condition (milliseconds). */
  everyMs?: number;
  /** What else the failure tells (a log of the processes under test, say), read when it fails. */
  context?: () => string;
}

/**
 * Waits until `check` holds, looking every `everyMs`; fails with `timed out waiting for
 * <what>` (and the context) after `timeoutMs`. Bounded: a condition that never comes
 * fails the test with its name rather than hanging it until vitest's own timeout.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 30_000, everyMs = 20, context }: UntilOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const more = context?.();
      throw new Error(`timed out waiting for ${what}${more ? `\n${more}` : ''}`);
    }
    await pause(everyMs);
  }
}

/**
 * Looks at `check` until it holds or `timeoutMs` has passed, and says whether it held:
 * for tests that assert on the outcome themselves (the wait must not be the failure).
 */
export async function settles(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 30_000, everyMs = 20 }: Omit<UntilOptions, 'context'> = {},
): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await pause(everyMs)) {
    if (await check()) return true;
  }
  return check();
}
