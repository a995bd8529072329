import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The shape docs/architecture.md promises: src/ has no import circle (type-only imports
 * count: a circle of types is still two files that cannot be read apart), and src/kernel/ is
 * rooms only, at most seven, no file loose beside them. Which room may import which is
 * eslint.config.js's (KERNEL_ROOMS).
 */

const root = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's relative imports (static, type-only and `import()`), resolved to files. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((f) => f.fileName)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
        .filter((target) => known.has(target));
      return [file, targets];
    }),
  );
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(root, w));
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph', () => {
  const files = sources(join(root, 'src'));

  it('has no circle anywhere in src/', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(circles(importGraph(files))).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    // The check itself: two files of the kernel's rooms made to import each other.
    const a = join(root, 'src/kernel/rules/rules.ts');
    const b = join(root, 'src/kernel/rules/freeze.ts');
    const graph = importGraph(files);
    graph.set(b, [...(graph.get(b) ?? []), a]);
    expect(graph.get(a)).toContain(b);
    expect(circles(graph)).toContainEqual(
      expect.arrayContaining(['src/kernel/rules/freeze.ts', 'src/kernel/rules/rules.ts']),
    );
  });

  it('keeps src/kernel/ in at most seven rooms, with no file loose beside them', () => {
    const kernel = join(root, 'src/kernel');
    const entries = readdirSync(kernel);
    const rooms = entries.filter((name) => statSync(join(kernel, name)).isDirectory());
    expect(entries.filter((name) => !rooms.includes(name))).toEqual([]);
    expect(rooms.length).toBeLessThanOrEqual(7);
    const config = readFileSync(join(root, 'eslint.config.js'), 'utf8');
    for (const room of rooms) expect(config).toMatch(new RegExp(`^  ${room}: \\[`, 'm'));
  });
});
