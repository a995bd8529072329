import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The shell and YAML blocks of README.md and docs/ (issue 55, item 4): found, and the
 * `lease-gate` command lines of a shell block split into words by bash itself, so a word the
 * shell takes (an unquoted `->` is a redirect) is seen as a reader's shell would see it.
 */

/** Only PATH: no SHELL_ENV (a startup file of this machine's) and nothing of the caller's. */
const SHELL_ENV = { PATH: process.env.PATH ?? '' };

export interface Block {
  /** `README.md:201`: the page and the line of the opening fence. */
  where: string;
  lang: 'sh' | 'yaml';
  text: string;
}

/** README.md and every page under docs/, recursively. */
export function docPages(): string[] {
  const pages = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages;
}

const LANGS: Record<string, Block['lang']> = {
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  console: 'sh',
  yaml: 'yaml',
  yml: 'yaml',
};

/** The fenced blocks of a page in those languages, dedented to their fence (a list's blocks). */
export function blocksOf(page: string): Block[] {
  const lines = readFileSync(page, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const indent = open[1]?.length ?? 0;
    const end = lines.findIndex((line, j) => j > i && /^ *```\s*$/.test(line));
    const body = lines.slice(i + 1, end < 0 ? lines.length : end).map((l) => l.slice(indent));
    const lang = LANGS[open[2] ?? ''];
    if (lang) {
      // A console block: its commands are the lines after '$ ' (and their continuations).
      const text = open[2] === 'console' ? consoleCommands(body) : body.join('\n');
      blocks.push({ where: `${page}:${i + 1}`, lang, text: `${text}\n` });
    }
    i = end < 0 ? lines.length : end;
  }
  return blocks;
}

function consoleCommands(lines: string[]): string {
  const out: string[] = [];
  let continued = false;
  for (const line of lines) {
    if (line.startsWith('$ ')) out.push(line.slice(2));
    else if (continued) out.push(line);
    else continue;
    continued = line.endsWith('\\');
  }
  return out.join('\n');
}

/** `bash -n`: undefined when the text parses, else bash's message. */
export function bashSyntaxError(text: string): string | undefined {
  const result = spawnSync('bash', ['--norc', '-n'], {
    input: text,
    encoding: 'utf8',
    env: SHELL_ENV,
  });
  return result.status === 0 ? undefined : result.stderr.trim() || `exit ${result.status}`;
}

/** A `lease-gate …` line: environment assignments, then `lease-gate` (or `npx lease-gate`). */
const COMMAND = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:npx\s+)?lease-gate(?:\s|$)/;

/** The block's logical lines (a trailing `\` joins the next) that run `lease-gate`. */
export function commandLines(text: string): string[] {
  const logical: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    current += line;
    if (current.endsWith('\\')) current = `${current.slice(0, -1)} `;
    else {
      logical.push(current);
      current = '';
    }
  }
  if (current) logical.push(current);
  return logical.filter((line) => COMMAND.test(line));
}

/** What a variable of the docs expands to, so a value built from one is known as a stand-in. */
export const STAND_IN = '@VARIABLE@';

/**
 * Each line's words after `lease-gate`, as bash splits them: the line runs in an empty folder
 * with `lease-gate` a function that writes its arguments out (a redirect makes a file there,
 * nothing else runs). Each variable the line names is set to STAND_IN. A line with a command
 * substitution is not run: undefined for it.
 */
export function wordsOf(lines: readonly string[]): (string[] | undefined)[] {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-docs-blocks-'));
  try {
    return lines.map((line, n) => {
      if (/\$\(|`/.test(line)) return undefined;
      const names = new Set([...line.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
      const script = [
        `lease-gate() { printf '%s\\0' "$@" > ${JSON.stringify(join(dir, `argv-${n}`))}; }`,
        'npx() { "$@"; }',
        ...[...names].map((name) => `${name}=${STAND_IN}`),
        line,
      ].join('\n');
      execFileSync('bash', ['--norc', '-c', script], { cwd: dir, env: SHELL_ENV });
      const words = readFileSync(join(dir, `argv-${n}`), 'utf8').split('\0');
      return words.slice(0, -1);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** For a test of wordsOf itself: the files a line's redirects made. */
export function filesMadeBy(line: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-docs-blocks-'));
  try {
    writeFileSync(join(dir, '.keep'), '');
    execFileSync('bash', ['--norc', '-c', `lease-gate() { :; }\n${line}`], {
      cwd: dir,
      env: SHELL_ENV,
    });
    return readdirSync(dir).filter((f) => f !== '.keep');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The shell a CI's YAML runs, wherever it sits in the file: GitLab's `script`, `before_script`
 * and `after_script`, Buildkite's `command` and `commands`, CircleCI's and GitHub's `run` (a
 * string, or `{ command }`). Each as the CI hands it to the shell: a list's items one by one.
 */
export function ciScriptsOf(doc: unknown): string[] {
  const out: string[] = [];
  const texts = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(texts) : [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (['script', 'before_script', 'after_script', 'commands'].includes(key))
        out.push(...texts(value));
      else if (key === 'command' && typeof value === 'string') out.push(value);
      // `run: { command }` is found by the walk, as `command`.
      else if (key === 'run') out.push(...texts(value));
      walk(value);
    }
  };
  walk(doc);
  return out;
}
