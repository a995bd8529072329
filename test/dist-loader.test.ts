import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * dist/<entry>/index.js (scripts/dist-loader.cjs) loads the bundle without Node's source
 * maps and names src/ lines in a crash's stack. Run here as built, beside a stand-in bundle
 * with a map as build.mjs writes them (sources under ../../src/).
 */
let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function crash(bundle: string): string {
  dir = mkdtempSync(join(tmpdir(), 'lease-gate-loader-'));
  copyFileSync('dist/main/index.js', join(dir, 'index.js'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }');
  writeFileSync(join(dir, 'main.js'), bundle);
  // Line 1 of main.js from src/action/one.ts line 1, lines 2–3 from src/action/two.ts
  // lines 10–11, line 4 from a bundled package.
  const map = {
    version: 3,
    file: 'main.js',
    sources: ['../../src/action/one.ts', '../../src/action/two.ts', '../../node_modules/x/i.js'],
    names: [],
    mappings: 'AAAA;ACSA;AACA;ACDA',
  };
  writeFileSync(join(dir, 'main.js.map'), JSON.stringify(map));
  const result = spawnSync(process.execPath, [join(dir, 'index.js')], { encoding: 'utf8' });
  expect(result.status).toBe(1);
  return result.stderr;
}

describe('the dist loader', () => {
  it('names the src/ line of each of our frames in an uncaught exception', () => {
    const stderr = crash(
      'function boom() {\n  throw new Error("boom");\n}\nsetTimeout(() => boom(), 1);\n',
    );
    expect(stderr).toMatch(
      /Error: boom\n\s+at boom \(\/\S+\/main\.js:2:9 \[src\/action\/two\.ts:10:1\]\)/,
    );
    // A bundled package's frame keeps its bundle line only.
    expect(stderr).toMatch(/main\.js:4:\d+\)?\n/);
  });

  it('maps the stack of a rejection nobody handled (a step whose run() threw)', () => {
    const stderr = crash(
      'const fail = async () => {\n  throw new Error("late");\n};\nvoid fail();\n',
    );
    expect(stderr).toMatch(
      /Error: late\n\s+at fail \(\S+main\.js:2:9 \[src\/action\/two\.ts:10:1\]\)/,
    );
  });
});
