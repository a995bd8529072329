import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { memoryContext } from '../src/action/context.js';
import { readSettings, type ActionSettings } from '../src/action/settings.js';
import { RUN_ENV } from './support/runner.js';

/** The README's Usage block and outputs table, held to action.yml so they cannot drift. */

const readme = readFileSync('README.md', 'utf8');
const action = parse(readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, { default?: string; description: string }>;
  outputs: Record<string, unknown>;
};
const githubDocs = readFileSync('docs/github.md', 'utf8');
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
  });

  it("sets each input to action.yml's default, so pasting it changes nothing", () => {
    const step = parse(blocks[0] ?? '') as [{ with: Record<string, unknown> }];
    for (const [name, value] of Object.entries(step[0].with)) {
      expect(String(value), name).toBe(action.inputs[name]?.default ?? '');
    }
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
  it('runs: every value is its default (with a dry run and a job summary)', async () => {
    const { runJob } = await import('./support/runner.js');
    const step = parse(blocks[0] ?? '') as [{ with: Record<string, unknown> }];
    // No GitHub to call here: the job's token is the one thing the runner would add.
    const inputs = { ...runnerInputs(step[0].with), 'github-token': '', 'dry-run': 'true' };
    const { main, post } = await runJob({ inputs });
    expect(main.stdout + main.stderr).not.toMatch(/Invalid input/);
    expect(main.code, main.stdout).toBe(0);
    expect(main.outputs.acquired).toBe('true');
    expect(post.code).toBe(0);
  }, 60_000);
});

/** The runner's view of a step: `${{ github.token }}` evaluated, every other value as written. */
function runnerInputs(given: Record<string, unknown>): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    inputs[name] = String(value).replace('${{ github.token }}', 'ghs_job_token');
  }
  return inputs;
}

/** The settings main would act on (the Bearer is a function: whether there is one). */
function settingsOf(inputs: Record<string, string>, env: Record<string, string> = {}) {
  const ctx = memoryContext({ inputs, env: { ...RUN_ENV, INTRAMEDIAL_KEY: 'k', ...env } });
  const { bearer, ...rest }: ActionSettings = readSettings(ctx, 'nonce');
  return { ...rest, bearer: bearer !== undefined };
}

/** Left out, an input is action.yml's default as the runner fills it in. */
const leftOut = () =>
  runnerInputs(
    Object.fromEntries(Object.entries(action.inputs).map(([n, i]) => [n, i.default ?? ''])),
  );

describe('the Usage block, action.yml, docs/github.md and the code agree', () => {
  const step = parse(blocks[0] ?? '') as [{ with: Record<string, unknown> }];
  const pasted = runnerInputs(step[0].with);

  it('the block pasted as it is acts as the defaults do', () => {
    expect(settingsOf(pasted)).toEqual(settingsOf(leftOut()));
    expect(settingsOf(pasted).statusContext).toBe('lease-gate/lock:deploy/production');
    expect(settingsOf(pasted).githubToken).toBe('ghs_job_token');
  });

  it("an input given as '' is its default, except github-token (only the runner knows that one)", () => {
    const empty = Object.fromEntries(Object.keys(action.inputs).map((n) => [n, '']));
    expect(settingsOf({ ...empty, 'github-token': 'ghs_job_token' })).toEqual(
      settingsOf(leftOut()),
    );
    expect(settingsOf(empty).githubToken).toBe('');
  });

  it("no text says '' turns a feature off; 'off' is the one off switch for statuses", () => {
    const comments = documentedInputs(blocks[0] ?? '').flatMap((i) => i.comments);
    const texts = [
      comments.join(' '),
      ...Object.values(action.inputs).map((i) => i.description),
      githubDocs,
    ];
    for (const text of texts) {
      expect(text).not.toMatch(/\bempty\b[^.;]*\b(turns?|means?)\b[^.;]*\boff\b/i);
      expect(text).not.toMatch(/Empty: no GitHub API call/);
    }
    const context = documentedInputs(blocks[0] ?? '').find((i) => i.name === 'status-context');
    expect(context?.comments.join(' ')).toMatch(/'off' turns\s+commit statuses off/);
    expect(action.inputs['status-context']?.description).toMatch(/'off' turns commit statuses off/);
    expect(githubDocs).toContain('`status-context: off` turns the commit statuses off');

    const off = settingsOf({ ...pasted, 'status-context': 'off' });
    expect(off).toEqual({ ...settingsOf(pasted), statusContext: '' });
    expect(off.githubToken).toBe('ghs_job_token'); // the outdated check and the holder's run keep it
    expect(() => settingsOf({ ...pasted, 'status-context': 'false' })).toThrow(
      /Invalid input 'status-context': 'false'\. Expected a commit status context .* or 'off' to turn commit statuses off/,
    );
  });

  it('names both key variables where the key is described, and the default context docs/github.md gives', () => {
    const key = documentedInputs(blocks[0] ?? '').find((i) => i.name === 'key');
    for (const text of [key?.comments.join(' ') ?? '', action.inputs.key?.description ?? '']) {
      expect(text).toMatch(/LEASE_GATE_KEY[^.]*then\s+INTRAMEDIAL_KEY/);
    }
    expect(
      settingsOf({ ...pasted }, { LEASE_GATE_KEY: 'ours', INTRAMEDIAL_KEY: 'hosted' }).key,
    ).toBe('ours');
    const resource = action.inputs.resource?.default ?? '';
    const context = (action.inputs['status-context']?.default ?? '').replace(
      '{resource}',
      resource,
    );
    expect(githubDocs).toContain(`(default\n\`${context}\``);
  });
});
