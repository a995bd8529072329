import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

type Closable = { close(): unknown } | { stop(): unknown };

/**
 * After each test, closes what `open()` names (servers, kernels, clients a test kept in
 * variables of its file), in that order: `close()`, or `stop()` for a process. Each thing
 * is closed once, so a variable that a later test does not set again is not closed twice.
 */
export function closeAfterEach(open: () => Array<Closable | undefined>): void {
  const closed = new WeakSet<object>();
  afterEach(async () => {
    for (const thing of open()) {
      if (!thing || closed.has(thing)) continue;
      closed.add(thing);
      await ('close' in thing ? thing.close() : thing.stop());
    }
  });
}

/**
 * A list a test pushes its clean-ups on (a server's close, a directory's removal); after
 * each test they run last first, what was started last going first.
 */
export function cleanupsAfterEach(): Array<() => unknown> {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return cleanups;
}

/** A temporary directory of its own (`<prefix>…`), removed by the clean-ups given. */
export function tempDirFor(cleanups: Array<() => unknown>, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
