import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's layer map is eslint.config.js's (issue 56, item 8): for each folder
 * the "Never" list of the page is the set of folders its `layer(...)` rule refuses, and for
 * each room of the kernel the rooms the page says it imports are the ones KERNEL_ROOMS lets
 * through. A rule changed without the map, or the map without the rule, fails here.
 */

interface ConfigEntry {
  files?: string[];
  rules?: Record<string, unknown>;
}

type Refusals = Map<string, Set<string>>;

const config = (
  (await import(pathToFileURL(resolve('eslint.config.js')).href)) as { default: ConfigEntry[] }
).default;

/** The messages of an entry's no-restricted-imports patterns. */
function messagesOf(entry: ConfigEntry): string[] {
  const rule = entry.rules?.['no-restricted-imports'];
  if (!Array.isArray(rule)) return [];
  const options = rule[1] as { patterns?: Array<{ message?: string }> } | undefined;
  return (options?.patterns ?? []).map((p) => p.message ?? '');
}

/** What eslint refuses: folder → folders (src/x/), and room → rooms (src/kernel/x/). */
function eslintRefusals(): { folders: Refusals; rooms: Refusals } {
  const folders: Refusals = new Map();
  const rooms: Refusals = new Map();
  for (const entry of config) {
    const glob = entry.files?.[0] ?? '';
    const folder = /^src\/(\w+)\/\*\*\/\*\.ts$/.exec(glob)?.[1];
    const room = /^src\/kernel\/(\w+)\/\*\*\/\*\.ts$/.exec(glob)?.[1];
    for (const message of messagesOf(entry)) {
      const refused = / may not import src\/(\w+)\//.exec(message)?.[1];
      if (folder && refused) add(folders, folder, [refused]);
      const siblings = / may not import src\/kernel\/\{([\w,]+)\}\//.exec(message)?.[1];
      if (room && siblings) add(rooms, room, siblings.split(','));
    }
    if (room && !rooms.has(room)) rooms.set(room, new Set());
  }
  return { folders, rooms };
}

function add(map: Refusals, key: string, values: string[]): void {
  const set = map.get(key) ?? new Set<string>();
  for (const value of values) set.add(value);
  map.set(key, set);
}

/** The list items of one section of the page, each joined into one line. */
function itemsOf(page: string, heading: string): string[] {
  const text = readFileSync(page, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${page} has no section "${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return section
    .split(/\n(?=- )/)
    .filter((item) => item.startsWith('- '))
    .map((item) => item.split('\n\n')[0]!.replace(/\s*\n\s*/g, ' '));
}

const names = (text: string) => [...text.matchAll(/`(\w+)\/`/g)].map((m) => m[1]!);

/** The page's map: folder → what its "Never" says; room → the rooms it does not import. */
function pageRefusals(
  all: Set<string>,
  allRooms: Set<string>,
): { folders: Refusals; rooms: Refusals } {
  const folders: Refusals = new Map();
  for (const item of itemsOf('docs/architecture.md', 'Layers')) {
    const folder = /^- \*\*`src\/(\w+)\/`\*\*/.exec(item)?.[1];
    if (!folder) continue;
    const never = item.slice(item.indexOf('Never:') + 'Never:'.length);
    const but = /everything but (.*)$/.exec(item)?.[1];
    if (/^ any other folder of ours/.test(never)) {
      folders.set(folder, new Set([...all].filter((f) => f !== folder)));
    } else if (but !== undefined) {
      folders.set(folder, new Set(names(but)));
    } else if (item.includes('Never:')) {
      folders.set(folder, new Set(names(never)));
    }
  }
  const rooms: Refusals = new Map();
  for (const item of itemsOf('docs/architecture.md', 'The kernel in seven rooms')) {
    const room = /^- \*\*`(\w+)\/`\*\*/.exec(item)?.[1];
    if (!room) continue;
    const imports = item.slice(item.lastIndexOf('Imports '));
    const others = [...allRooms].filter((r) => r !== room);
    const but = /every room but (.*)$/.exec(imports)?.[1];
    const allowed = /no other room/.test(imports)
      ? []
      : but
        ? others.filter((r) => !names(but).includes(r))
        : names(imports);
    rooms.set(room, new Set(others.filter((r) => !allowed.includes(r))));
  }
  return { folders, rooms };
}

const sorted = (map: Refusals) =>
  Object.fromEntries(
    [...map].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]),
  );

describe('docs/architecture.md, the layer map', () => {
  const eslint = eslintRefusals();
  const page = pageRefusals(new Set(eslint.folders.keys()), new Set(eslint.rooms.keys()));

  it('reads a rule for every folder and room', () => {
    expect([...eslint.folders.keys()].sort()).toEqual([
      'action',
      'app',
      'cli',
      'console',
      'fs',
      'gate',
      'github',
      'http',
      'kernel',
      'lease',
      'ledger',
      'metrics',
      'plane',
    ]);
    expect([...eslint.rooms.keys()].sort()).toEqual([
      'auth',
      'http',
      'notify',
      'postgres',
      'rules',
      'service',
      'store',
    ]);
  });

  it("says for each folder what eslint.config.js's layer rules refuse", () => {
    expect(sorted(page.folders)).toEqual(sorted(eslint.folders));
  });

  it('says for each room of the kernel what KERNEL_ROOMS lets it import', () => {
    expect(sorted(page.rooms)).toEqual(sorted(eslint.rooms));
  });
});
