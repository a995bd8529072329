import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages } from './support/docs-blocks.js';

/**
 * The docs as a map that stays true (issue 56, item 8): every relative link of README.md and
 * docs/ reaches a file, and a heading when it names one; every `src/…` path a page cites
 * exists; docs/architecture.md reads in an editor (no line over 120 characters) and every
 * source file it names, by whatever tail of its path, is still there after a split.
 */

const pages = docPages();

/** The page's text without its fenced blocks (a block's `[x](y)` is code, not a link). */
function prose(page: string): string[] {
  let fenced = false;
  return readFileSync(page, 'utf8')
    .split('\n')
    .map((line) => {
      if (/^ *```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(page)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

interface Link {
  where: string;
  target: string;
}

function linksOf(page: string): Link[] {
  const links: Link[] = [];
  prose(page).forEach((line, i) => {
    // Inline code is not a link either.
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ where: `${page}:${i + 1}`, target });
    }
  });
  return links;
}

/** What is wrong with a relative link, or undefined when it reaches its file and heading. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
  if (!existsSync(file)) return `no file ${file}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  return anchorsOf(file).has(anchor) ? undefined : `no heading #${anchor} in ${file}`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : [path];
  });
}

describe('links in README.md and docs/', () => {
  it('finds the links it checks', () => {
    expect(pages.flatMap(linksOf).length).toBeGreaterThan(50);
  });

  it('reach a file, and the heading they name', () => {
    const broken = pages.flatMap((page) =>
      linksOf(page).flatMap(({ where, target }) => {
        const why = brokenLink(page, target);
        return why ? [`${where}: ${target} (${why})`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('knows a broken one when it sees it', () => {
    expect(brokenLink('docs/architecture.md', 'performance.md#no-such-heading')).toMatch(
      /no heading/,
    );
    expect(brokenLink('docs/architecture.md', 'no-such-page.md')).toMatch(/no file/);
    expect(brokenLink('docs/architecture.md', 'performance.md')).toBeUndefined();
  });
});

describe('source paths the docs cite', () => {
  it('every `src/…` path of README.md and docs/ exists', () => {
    const missing = pages.flatMap((page) =>
      prose(page).flatMap((line, i) =>
        [...line.matchAll(/`(src\/[\w./-]+)`/g)]
          .map((m) => (m[1] ?? '').replace(/\/$/, ''))
          .filter((path) => !existsSync(path))
          .map((path) => `${page}:${i + 1}: ${path}`),
      ),
    );
    expect(missing).toEqual([]);
  });
});

describe('docs/architecture.md, the map', () => {
  const lines = readFileSync('docs/architecture.md', 'utf8').split('\n');
  const files = sourceFiles('src').map((f) => `/${f}`);

  it('has no line over 120 characters', () => {
    const long = lines.flatMap((line, i) => (line.length > 120 ? [`line ${i + 1}`] : []));
    expect(long).toEqual([]);
  });

  it('names only source files that exist, by any tail of their path', () => {
    const cited = lines.flatMap((line, i) =>
      [...line.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => ({ at: i + 1, path: m[1] ?? '' })),
    );
    expect(cited.length).toBeGreaterThan(80);
    const exists = (path: string) =>
      /^(test|bench|scripts)\//.test(path)
        ? existsSync(path)
        : files.some((f) => f.endsWith(`/${path.replace(/^src\//, '')}`));
    const missing = cited
      .filter(({ path }) => !exists(path))
      .map(({ at, path }) => `line ${at}: ${path}`);
    expect(missing).toEqual([]);
  });
});
