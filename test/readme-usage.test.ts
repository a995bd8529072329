import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/** The README's Usage block and outputs table, held to action.yml so they cannot drift. */

const readme = readFileSync('README.md', 'utf8');
const action = parse(readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
};
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no '${heading}' heading`);
  const rest = markdown.slice(start + heading.length + 2);
  const next = rest.search(/^# /m);
  return next < 0 ? rest : rest.slice(0, next);
}

const usage = section(readme, '# Usage');
const blocks = [...usage.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

/** Each input of the block: its name and the comment lines just above it. */
function documentedInputs(block: string): { name: string; comments: string[] }[] {
  const found: { name: string; comments: string[] }[] = [];
  let comments: string[] = [];
  for (const line of block.split('\n')) {
    const comment = /^ {4}# ?(.*)$/.exec(line);
    const input = /^ {4}([a-z][a-z-]*):/.exec(line);
    if (comment) comments.push(comment[1] ?? '');
    else if (input) {
      found.push({ name: input[1] ?? '', comments });
      comments = [];
    } else if (line.trim() === '') comments = [];
  }
  return found;
}

describe('README Usage block', () => {
  it('is one YAML block that parses, using the major-version tag', () => {
    expect(blocks).toHaveLength(1);
    const step = parse(blocks[0] ?? '') as [{ uses: string; with: Record<string, unknown> }];
    const major = version.split('.')[0];
    expect(step[0].uses).toMatch(new RegExp(`^[\\w.-]+/lease-gate@v${major}$`));
    expect(Object.values(step[0].with).every((value) => value === '')).toBe(true);
  });

  it("lists every input of action.yml, in action.yml's order", () => {
    const names = documentedInputs(blocks[0] ?? '').map((input) => input.name);
    expect(names).toEqual(Object.keys(action.inputs));
    expect(names).toHaveLength(14);
  });

  it("gives each input's default from action.yml as a comment, after a description", () => {
    for (const { name, comments } of documentedInputs(blocks[0] ?? '')) {
      const declared = action.inputs[name]?.default ?? '';
      const defaults = comments.filter((c) => c.startsWith('Default:'));
      expect(defaults, name).toEqual([`Default: ${declared === '' ? "''" : declared}`]);
      expect(comments.length, `${name} has a description`).toBeGreaterThan(1);
    }
  });
});

describe('README', () => {
  it('names every output of action.yml in its Outputs table', () => {
    const outputs = section(readme, '# Usage');
    const rows = [...outputs.matchAll(/^\| `([a-z-]+)` +\|/gm)].map((m) => m[1]);
    expect(rows).toEqual(Object.keys(action.outputs));
  });

  it('stays short and keeps the two development commands', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(13 * 1024);
    const development = section(readme, '# Development');
    expect(development).toContain('npm ci && npm run demo');
    expect(development).toMatch(/^npm test\b/m);
  });
});

describe('the README Usage block, run as written', () => {
  it('runs: every empty input means its default (with a dry run and a job summary)', async () => {
    const { runJob } = await import('./support/runner.js');
    const step = parse(blocks[0] ?? '') as [{ with: Record<string, string> }];
    const inputs = { ...step[0].with, 'dry-run': 'true' };
    const { main, post } = await runJob({ inputs });
    expect(main.stdout + main.stderr).not.toMatch(/Invalid input/);
    expect(main.code, main.stdout).toBe(0);
    expect(main.outputs.acquired).toBe('true');
    expect(post.code).toBe(0);
  }, 60_000);
});
