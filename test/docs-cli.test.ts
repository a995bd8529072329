import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** docs/cli.md held to what the built CLI says of itself, so a new flag cannot go undocumented. */

const docs = readFileSync('docs/cli.md', 'utf8');
const help = (...args: string[]) =>
  execFileSync(process.execPath, ['dist/cli/index.js', ...args, '--help'], {
    encoding: 'utf8',
    timeout: 20_000,
  });

/** The commands `lease-gate --help` lists, each with the words that name it (`ledger export`). */
function commands(top: string): string[][] {
  const names = new Set<string>();
  for (const line of top.split('\n')) {
    if (!line.startsWith('lease-gate ')) continue;
    const words = line.split(' ').slice(1);
    const end = words.findIndex((word) => !/^[a-z]+$/.test(word));
    const name = words.slice(0, end < 0 ? words.length : end).join(' ');
    if (name) names.add(name); // `lease-gate --version` names no command
  }
  return [...names].map((name) => name.split(' '));
}

/** Long flags in a help text; `--` alone (the end of options) is not a flag. */
const flagsIn = (text: string) => [...new Set(text.match(/--[a-z][a-z0-9-]*/g) ?? [])];

const documented = (flag: string) => new RegExp(`${flag}(?![a-z0-9-])`).test(docs);

describe('docs/cli.md', () => {
  const top = help();
  const listed = commands(top);
  const helps = new Map(listed.map((words) => [words[0] ?? '', help(words[0] ?? '')]));

  it('sees the commands of the built CLI', () => {
    expect(listed.map((words) => words[0])).toEqual(
      expect.arrayContaining(['kernel', 'acquire', 'release', 'run', 'status', 'verify']),
    );
  });

  it('has a section for every command', () => {
    for (const words of listed) {
      expect(docs, words.join(' ')).toContain(`## \`lease-gate ${words.join(' ')}\``);
    }
  });

  it("documents every flag each command's --help prints", () => {
    const missing: string[] = [];
    for (const words of listed) {
      const text = helps.get(words[0] ?? '') ?? '';
      for (const flag of flagsIn(text)) if (!documented(flag)) missing.push(`${words[0]} ${flag}`);
    }
    for (const flag of flagsIn(top)) if (!documented(flag)) missing.push(`(top level) ${flag}`);
    expect(missing).toEqual([]);
  });

  it('documents every environment variable the help names', () => {
    const variables = new Set(top.match(/\b(?:LEASE_GATE|INTRAMEDIAL)_[A-Z_]+\b/g) ?? []);
    for (const words of listed) {
      for (const v of (helps.get(words[0] ?? '') ?? '').match(
        /\b(?:LEASE_GATE|INTRAMEDIAL)_[A-Z_]+\b/g,
      ) ?? [])
        variables.add(v);
    }
    expect(variables.size).toBeGreaterThan(0);
    expect([...variables].filter((v) => !docs.includes(v))).toEqual([]);
  });
});
