import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * scripts/build.mjs writes each bundle in ASCII (`\uXXXX` for every other character): Node
 * then reads it without decoding UTF-8 and V8 compiles it as one-byte text, which each step's
 * start pays for otherwise (docs/performance.md). Checked on dist/ as built.
 */
const bundles = ['main', 'post', 'cli', 'notify'].flatMap((entry) =>
  readdirSync(join('dist', entry))
    .filter((file) => file.endsWith('.js'))
    .map((file) => join('dist', entry, file)),
);

describe('the built bundles', () => {
  it.each(bundles)('%s is ASCII', (file) => {
    const first = /[\u0080-\uffff]/.exec(readFileSync(file, 'utf8'));
    expect(first?.[0]).toBeUndefined();
  });

  it('still prints what the source says beyond ASCII', () => {
    // A message of src/ with a dash: escaped in the bundle, the same text when it runs.
    const main = readFileSync('dist/main/main.js', 'utf8');
    expect(main).toContain('\\u2014');
  });
});
