/** Types of scripts/source-hash.mjs, for the tests' globalSetup. */
export const SOURCES: readonly string[];
export const STAMP: string;
export function sourceHash(root?: string): string;
