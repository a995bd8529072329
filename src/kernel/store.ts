import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../fs/atomic.js';
import type { KernelSnapshot } from './core.js';

/** Where a kernel keeps what must outlive its process. */
export interface KernelStore {
  readonly describe: string;
  load(): KernelSnapshot | undefined;
  save(snapshot: KernelSnapshot): void;
}

export class StoreError extends Error {
  override name = 'StoreError';
}

export function memoryStore(): KernelStore {
  let kept: KernelSnapshot | undefined;
  return {
    describe: 'memory',
    load: () => kept,
    save: (snapshot) => {
      kept = snapshot;
    },
  };
}

const snapshotSchema = z.object({
  version: z.literal(1),
  fence: z.number().int().nonnegative(),
  leases: z.array(
    z.object({
      id: z.string(),
      resource: z.string(),
      holder: z.string(),
      expiresAtMs: z.number(),
      fence: z.number().int(),
      grantedAtMs: z.number(),
    }),
  ),
});

/**
 * A JSON file replaced atomically (temp file, fsync, rename) after every change,
 * so a crash leaves either the old state or the new one, never half of each.
 */
export function fileStore(path: string): KernelStore {
  return {
    describe: path,
    load() {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new StoreError(`Cannot read the state file ${path}: ${(error as Error).message}`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new StoreError(
          `The state file ${path} is not valid JSON; refusing to start rather than forget its leases. Move it away to start afresh.`,
        );
      }
      const result = snapshotSchema.safeParse(parsed);
      if (!result.success) {
        throw new StoreError(
          `The state file ${path} is not a lease-gate kernel state (${result.error.issues[0]?.path.join('.')}: ${result.error.issues[0]?.message}); refusing to start rather than forget its leases.`,
        );
      }
      return { fence: result.data.fence, leases: result.data.leases };
    },
    save(snapshot) {
      writeFileAtomic(path, JSON.stringify({ version: 1, ...snapshot }));
    },
  };
}
