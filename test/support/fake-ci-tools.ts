import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Fake `buildkite-agent` and `circleci` executables in a temp dir, for a PATH that finds
 * them first: each call is recorded (its argv and whether the agent's token was in its
 * environment), then prints the next of the tokens the test gave (the last one again once
 * they run out), or fails with the code and stderr the test set. Real processes, run by
 * the CLI as it runs the real tools.
 */

export interface FakeCiTools {
  dir: string;
  /** PATH with the fakes first. */
  path: string;
  /** The tokens the calls print, in order. */
  setTokens(...tokens: string[]): void;
  /** Every later call exits `code` after writing `stderr`. */
  fail(code: number, stderr: string): void;
  /** Each call: the tool's name and arguments. */
  calls(): string[][];
}

const SCRIPT = (node: string) => `#!${node}
const fs = require('node:fs');
const path = require('node:path');
const dir = __dirname;
const calls = path.join(dir, 'calls.jsonl');
fs.appendFileSync(calls, JSON.stringify([path.basename(__filename), ...process.argv.slice(2)]) + '\\n');
const fail = path.join(dir, 'fail.json');
if (fs.existsSync(fail)) {
  const f = JSON.parse(fs.readFileSync(fail, 'utf8'));
  process.stderr.write(f.stderr);
  process.exit(f.code);
}
const tokens = fs.readFileSync(path.join(dir, 'tokens'), 'utf8').split('\\n').filter(Boolean);
const n = fs.readFileSync(calls, 'utf8').split('\\n').filter(Boolean).length;
process.stdout.write(tokens[Math.min(n, tokens.length) - 1] + '\\n');
`;

export function fakeCiTools(): FakeCiTools {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-ci-tools-'));
  for (const name of ['buildkite-agent', 'circleci']) {
    const file = join(dir, name);
    writeFileSync(file, SCRIPT(process.execPath));
    chmodSync(file, 0o755);
  }
  writeFileSync(join(dir, 'tokens'), '');
  return {
    dir,
    path: `${dir}${delimiter}${process.env.PATH ?? ''}`,
    setTokens: (...tokens) => writeFileSync(join(dir, 'tokens'), tokens.join('\n')),
    fail: (code, stderr) => writeFileSync(join(dir, 'fail.json'), JSON.stringify({ code, stderr })),
    calls: () => {
      const file = join(dir, 'calls.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]);
    },
  };
}
