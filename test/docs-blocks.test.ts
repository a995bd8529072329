import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { main } from '../src/cli/main.js';
import { promoteFlag } from '../src/cli/promote-flag.js';
import { parseFreezeFor } from '../src/plane/freeze-for.js';
import { parseDuration } from '../src/gate/duration.js';
import { parsePublicUrl } from '../src/kernel/http/names.js';
import { parseHealthCheck } from '../src/kernel/service/health-checks.js';
import { parsePlaneUrl } from '../src/plane/url.js';
import { readIssuersFile } from '../src/kernel/auth/issuer-config.js';
import { readPolicy } from '../src/kernel/auth/policy.js';
import { errorMessage } from '../src/errors.js';
import type * as Options from '../src/cli/options.js';
import { memoryContext } from '../src/action/context.js';
import { readSettings } from '../src/action/settings.js';
import { RUN_ENV } from './support/runner.js';
import {
  STAND_IN,
  bashSyntaxError,
  blocksOf,
  ciScriptsOf,
  commandLines,
  docPages,
  filesMadeBy,
  wordsOf,
} from './support/docs-blocks.js';

/**
 * Every shell and YAML block of README.md and docs/ pastes (issue 55, item 4): shell parses
 * (`bash -n`); each `lease-gate` line, split into words by bash, parses against the CLI's own
 * flag tables (main() runs the command up to its flags, and no further) with its values checked
 * by the CLI's own parsers; YAML parses, and a lease-gate step's `with:` names action.yml's inputs.
 */

/** The command's flags as its own parse() read them; it stops there (nothing is served or sent). */
const parsed = vi.hoisted(() => ({
  last: undefined as { values: Record<string, unknown> } | undefined,
  Stop: class Stop extends Error {},
}));
vi.mock('../src/cli/options.js', async (importOriginal) => {
  const real = await importOriginal<typeof Options>();
  const parse: typeof real.parse = (...args) => {
    const result = real.parse(...args);
    parsed.last = { values: result.values };
    throw new parsed.Stop('parsed');
  };
  return { ...real, parse };
});

/** Read through a call: main() sets it, which the type checker cannot see. */
const lastParsed = () => parsed.last;

const action = parseYaml(readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};
const major = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
).version.split('.')[0];
const blocks = docPages().flatMap(blocksOf);
const shell = blocks.filter((b) => b.lang === 'sh');
const yaml = blocks.filter((b) => b.lang === 'yaml');

const isNumber = (v: string) => /^\d+$/.test(v);
/** Each value a flag takes, checked by the parser the command itself uses. */
const VALUES: Record<string, (value: string) => boolean> = {
  'wait-timeout': (v) => parseDuration(v) !== undefined,
  for: (v) => parseFreezeFor(v) !== undefined,
  'api-url': (v) => parsePlaneUrl(v).ok,
  url: (v) => parsePlaneUrl(v).ok,
  'github-api-url': (v) => parsePlaneUrl(v).ok,
  'public-url': (v) => parsePublicUrl(v) !== undefined,
  'health-check': (v) => (parseHealthCheck(v), true),
  port: (v) => isNumber(v) && Number(v) <= 65_535,
  'ttl-ms': isNumber,
  'lock-delay-ms': isNumber,
  'health-interval-ms': isNumber,
  'pool-size': isNumber,
  queue: (v) => ['fifo', 'newest'].includes(v),
  'on-lost': (v) => ['terminate', 'warn'].includes(v),
  resource: (v) => /^[\x21-\x7e]{1,256}$/.test(v),
};

/** What is wrong with `lease-gate ARGS` as the CLI reads it; [] when nothing. */
async function problemsOf(words: string[]): Promise<string[]> {
  const errors: string[] = [];
  parsed.last = undefined;
  const code = await main(words, { out: () => {}, err: (line) => errors.push(line) }, {});
  if (words.includes('--help') || words.includes('--version')) {
    return code === 0 ? [] : errors;
  }
  const last = lastParsed();
  if (!last) return errors.length ? errors : [`exit ${code} before its flags were read`];
  const problems: string[] = [];
  for (const [flag, value] of Object.entries(last.values)) {
    const given = (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string');
    for (const one of given) {
      if (one.includes(STAND_IN)) continue; // a variable's: the reader's value
      try {
        if (!(VALUES[flag]?.(one) ?? true)) problems.push(`--${flag} '${one}' is not valid`);
      } catch (error) {
        problems.push(errorMessage(error));
      }
    }
  }
  const promote = last.values.promote;
  if (Array.isArray(promote) && promote.length) {
    try {
      promoteFlag(promote as string[]);
    } catch (error) {
      problems.push(errorMessage(error));
    }
  }
  return problems;
}

describe('shell blocks of README.md and docs/', () => {
  it('are found (and the lease-gate lines in them)', () => {
    expect(shell.length).toBeGreaterThan(15);
    expect(shell.flatMap((b) => commandLines(b.text)).length).toBeGreaterThan(15);
  });

  it('parse with bash -n', () => {
    const broken = shell.flatMap((b) => {
      const error = bashSyntaxError(b.text);
      return error ? [`${b.where}: ${error}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('each lease-gate command parses against the CLI: its flags exist, their values are valid', async () => {
    const problems: string[] = [];
    for (const block of shell) {
      const lines = commandLines(block.text);
      const words = wordsOf(lines);
      for (const [i, line] of lines.entries()) {
        const argv = words[i];
        if (!argv) {
          problems.push(`${block.where}: ${line.trim()}: a command substitution, not checked`);
          continue;
        }
        for (const p of await problemsOf(argv))
          problems.push(`${block.where}: ${line.trim()}: ${p}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the check itself', () => {
  it('reads an unquoted -> as bash does, and the CLI says to quote it', async () => {
    const line = 'lease-gate kernel --promote dev->staging';
    expect(filesMadeBy(line)).toEqual(['staging']);
    const [argv] = wordsOf([line]);
    expect(argv).toEqual(['kernel', '--promote', 'dev-']);
    expect((await problemsOf(argv!)).join('\n')).toMatch(/Quote it: --promote 'dev->TO'/);
    expect(await problemsOf(wordsOf(["lease-gate kernel --promote 'dev->staging'"])[0]!)).toEqual(
      [],
    );
  });

  it('finds an unknown flag, a bad value and a command that is not one', async () => {
    const [unknown, bad, typo, good] = wordsOf([
      'lease-gate kernel --prot 8787',
      'LEASE_GATE_KEY=k lease-gate acquire --wait-timeout soon',
      'lease-gate stauts',
      'lease-gate run --resource "lock:deploy/$ENV" --wait-timeout 5m -- ./deploy.sh',
    ]);
    expect(await problemsOf(unknown!)).toEqual([expect.stringMatching(/Unknown flag '--prot'/)]);
    expect(await problemsOf(bad!)).toEqual(["--wait-timeout 'soon' is not valid"]);
    expect(await problemsOf(typo!)).toEqual([expect.stringMatching(/Unknown command 'stauts'/)]);
    expect(await problemsOf(good!)).toEqual([]);
    expect(bashSyntaxError('if true; then echo')).toMatch(/syntax error/);
  });

  it("reads a step's inputs as the action does", () => {
    expect(settingsRefusal({ 'on-timeout': 'maybe' })).toMatch(/'on-timeout'/);
    expect(settingsRefusal({ 'wait-timeout': '${{ inputs.wait }}', queue: 'newest' })).toBe(
      undefined,
    );
  });
});

describe('YAML blocks of README.md and docs/', () => {
  it('parse', () => {
    const broken = yaml.flatMap((b) =>
      parseAllDocuments(b.text).flatMap((d) => d.errors.map((e) => `${b.where}: ${e.message}`)),
    );
    expect(yaml.length).toBeGreaterThan(4);
    expect(broken).toEqual([]);
  });

  it("a lease-gate step's with: names only action.yml's inputs; each run: parses with bash -n", () => {
    const problems: string[] = [];
    let uses = 0;
    for (const block of yaml) {
      for (const step of stepsOf(parseYaml(block.text))) {
        if (typeof step.uses === 'string' && /\/lease-gate@/.test(step.uses)) {
          uses++;
          if (!step.uses.endsWith(`@v${major}`)) problems.push(`${block.where}: ${step.uses}`);
          for (const name of Object.keys(step.with ?? {}))
            if (!(name in action.inputs)) problems.push(`${block.where}: no input '${name}'`);
          const refused = settingsRefusal(step.with ?? {});
          if (refused) problems.push(`${block.where}: ${refused}`);
        }
        if (typeof step.run === 'string') {
          // An expression is the runner's: a word to bash.
          const error = bashSyntaxError(step.run.replace(/\$\{\{[^}]*\}\}/g, 'EXPR'));
          if (error) problems.push(`${block.where}: run: ${error}`);
        }
      }
    }
    expect(uses).toBeGreaterThan(3);
    expect(problems).toEqual([]);
  });
});

describe("a CI job's YAML in docs/ (GitLab, CircleCI, Buildkite: issue 58)", () => {
  it('each script parses with bash -n, and each lease-gate line against the CLI', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const block of yaml) {
      for (const doc of parseAllDocuments(block.text)) {
        for (const script of ciScriptsOf(doc.toJS())) {
          // An expression is the runner's, and `$$` Buildkite's escape of `$`: words to bash.
          const text = script.replace(/\$\{\{[^}]*\}\}/g, 'EXPR').replace(/\$\$/g, '$');
          const error = bashSyntaxError(text);
          if (error) problems.push(`${block.where}: ${error}`);
          const lines = commandLines(text);
          for (const [i, argv] of wordsOf(lines).entries()) {
            checked++;
            for (const p of argv ? await problemsOf(argv) : ['a command substitution, not checked'])
              problems.push(`${block.where}: ${lines[i]!.trim()}: ${p}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
    expect(problems).toEqual([]);
  });

  it('each CI page has a job to copy that runs lease-gate with the job’s own token', () => {
    for (const page of ['docs/ci/gitlab.md', 'docs/ci/circleci.md', 'docs/ci/buildkite.md']) {
      const scripts = blocksOf(page)
        .filter((b) => b.lang === 'yaml')
        .flatMap((b) => ciScriptsOf(parseYaml(b.text)));
      expect(scripts.flatMap(commandLines).join('\n'), page).toMatch(/lease-gate run --auth oidc /);
    }
    const gitlab = blocksOf('docs/ci/gitlab.md').find((b) => b.lang === 'yaml')!;
    expect(parseYaml(gitlab.text)).toMatchObject({
      deploy: { id_tokens: { LEASE_GATE_ID_TOKEN: { aud: 'lease-gate' } } },
    });
  });

  it("each CI page's issuers file and policy are read by the kernel's own readers", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-docs-ci-'));
    try {
      for (const page of ['docs/ci/gitlab.md', 'docs/ci/circleci.md', 'docs/ci/buildkite.md']) {
        const json = [...readFileSync(page, 'utf8').matchAll(/^```json\n([\s\S]*?)^```$/gm)];
        const [issuers, policy] = ['issuers', 'rules'].map((key) => {
          const block = json.find((m) => key in (JSON.parse(m[1]!) as object));
          expect(block, `${page}: a JSON block with "${key}"`).toBeDefined();
          const file = join(dir, `${key}.json`);
          writeFileSync(file, block![1]!);
          return file;
        });
        // As the kernel reads them at start: a typo of a claim or an issuer fails here.
        const specs = readIssuersFile(issuers!, undefined);
        expect(readPolicy(policy!, specs).rules, page).toBeGreaterThan(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the scripts of each CI', () => {
    const scripts = ciScriptsOf(
      parseYaml(`
deploy:
  script: [lease-gate run -- a]
steps:
  - command: lease-gate run -- b
  - commands: [lease-gate run -- c]
jobs:
  j:
    steps:
      - run: { name: x, command: lease-gate run -- d }
      - run: lease-gate run -- e
`),
    );
    expect(scripts.sort()).toEqual(['a', 'b', 'c', 'd', 'e'].map((x) => `lease-gate run -- ${x}`));
  });
});

/**
 * The action's own reading of the step's inputs (action.yml's defaults for those not given, and
 * for an expression, which only the runner knows); undefined when it accepts them.
 */
function settingsRefusal(given: Record<string, unknown>): string | undefined {
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) {
    const value = given[name] === undefined ? undefined : String(given[name]);
    inputs[name] = value === undefined || value.includes('${{') ? (input.default ?? '') : value;
  }
  if (inputs['github-token']?.includes('${{')) inputs['github-token'] = 'ghs_job_token';
  try {
    readSettings(memoryContext({ inputs, env: { ...RUN_ENV, INTRAMEDIAL_KEY: 'k' } }), 'nonce');
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

describe('docs/deploy: the compose file and the systemd unit run the installed lease-gate', () => {
  it('their lease-gate commands parse against the CLI', async () => {
    const compose = parseYaml(readFileSync('docs/deploy/compose.yaml', 'utf8')) as {
      services: Record<string, { command?: string | string[] }>;
    };
    const scripts = Object.values(compose.services).flatMap((s) =>
      [s.command ?? []].flat().map((part) => part.replace(/\$\$/g, '$')),
    );
    // `exec lease-gate …` ends each service's script: from there to its end is the command.
    // kernel-2 is kernel-1 (a YAML alias): each command once.
    const fromCompose = unique(scripts).flatMap((text) => {
      const at = text.indexOf('exec lease-gate ');
      return at < 0 ? [] : [text.slice(at + 'exec '.length).replace(/\s+/g, ' ')];
    });
    const unit = readFileSync('docs/deploy/lease-gate-kernel@.service', 'utf8');
    const fromUnit = commandLines(
      unit.replace(/^ExecStart(?:Pre)?=\/usr\/local\/bin\/lease-gate/gm, 'lease-gate'),
    );
    expect(fromCompose).toHaveLength(2);
    expect(fromUnit).toHaveLength(2);
    const lines = [...fromCompose, ...fromUnit.map((l) => l.replace(/%i/g, '1'))];
    const problems: string[] = [];
    for (const [i, argv] of wordsOf(lines).entries()) {
      for (const p of argv ? await problemsOf(argv) : ['not checked'])
        problems.push(`${lines[i]}: ${p}`);
    }
    expect(problems).toEqual([]);
  });
});

const unique = (items: string[]) => [...new Set(items)];

type Step = { uses?: unknown; run?: unknown; with?: Record<string, unknown> };

/** The steps of a block: a list of steps, or a workflow's jobs' steps. */
function stepsOf(doc: unknown): Step[] {
  if (Array.isArray(doc)) return doc.filter((s): s is Step => typeof s === 'object' && s !== null);
  const jobs = (doc as { jobs?: Record<string, { steps?: unknown }> } | null)?.jobs ?? {};
  return Object.values(jobs).flatMap((job) => stepsOf(job.steps ?? []));
}
