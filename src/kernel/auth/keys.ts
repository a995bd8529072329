import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import '../../zod-en.js';
import { anyOf, type Matcher } from './glob.js';
import { AuthFileError, entryPath, readJsonFile } from './file.js';

/**
 * The scoped keys file (`--keys FILE`, JSON), for callers that are not GitHub
 * jobs (other CI systems, people): each key, stored as the SHA-256 of its text
 * (never the key), may act only as DIDs matching `actors` and lease only
 * resources matching `resources` (globs: `*`, `?`).
 *
 *   { "keys": [ { "name": "jenkins", "sha256": "<64 hex digits>",
 *                 "actors": ["did:web:ci.example.com:jenkins:*"],
 *                 "resources": ["lock:deploy/staging"] } ] }
 */

const pattern = z.string().check(z.minLength(1), z.maxLength(500));
const patterns = z.array(pattern).check(z.minLength(1), z.maxLength(100));
const keySchema = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  sha256: z
    .string()
    .check(z.regex(/^[0-9a-fA-F]{64}$/, 'expected the SHA-256 of the key as 64 hex digits')),
  actors: patterns,
  resources: patterns,
});
const keysSchema = z.strictObject({
  keys: z.array(keySchema).check(z.minLength(1), z.maxLength(10_000)),
});

export interface ScopedKey {
  name: string;
  actors: Matcher;
  resources: Matcher;
  actorPatterns: readonly string[];
  resourcePatterns: readonly string[];
}

export interface ScopedKeys {
  readonly size: number;
  /** The entry for a presented key, or undefined. */
  find(key: string): ScopedKey | undefined;
}

/** The hash a keys file stores: `printf %s "$KEY" | sha256sum`. */
export const keyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export function readScopedKeys(file: string): ScopedKeys {
  const data = readJsonFile(file, keysSchema, (path, raw) =>
    entryPath('keys', (raw as { keys?: unknown } | null)?.keys, path),
  );
  const byHash = new Map<string, ScopedKey>();
  data.keys.forEach((entry, index) => {
    const hash = entry.sha256.toLowerCase();
    const earlier = byHash.get(hash);
    if (earlier) {
      throw new AuthFileError(
        `${file}: keys[${index}] ("${entry.name}") has the same key as "${earlier.name}".`,
      );
    }
    byHash.set(hash, {
      name: entry.name,
      actors: anyOf(entry.actors),
      resources: anyOf(entry.resources),
      actorPatterns: entry.actors,
      resourcePatterns: entry.resources,
    });
  });
  return {
    size: byHash.size,
    // A lookup by the key's hash: what the timing of a Map lookup could reveal is about the hash, not the key.
    find: (key) => (key ? byHash.get(keyHash(key)) : undefined),
  };
}
