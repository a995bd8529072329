import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { median } from './stats.js';

/**
 * What each import of the built main step costs on its way to the first ask: a copy of
 * dist/main whose bundle times each module it evaluates (ncc's `__nccwpck_require__`: the
 * module's own top-level code, without the modules it requires, which are timed on their own)
 * and marks the phases of the run (undici's diagnostics channels: the first request's headers
 * sent, the answer's headers received). The copy is a measuring tool only: it is run with the
 * same inputs as the timed steps, and its figures are medians over its runs.
 */

export interface ImportCost {
  /** A package (`undici`), a Node builtin (`node:http`), or our src/ (with what ncc joined to it). */
  name: string;
  ms: number;
}

export interface Phases {
  /** From the process's start to the bundle's first line: Node's start, the loader, reading and compiling. */
  toBundleMs: number;
  /** Evaluating every module of the bundle but the entry (its imports). */
  importsMs: number;
  /** The entry's own time: run() up to its first await (V8 compiles each function at its first call). */
  runToFirstAwaitMs: number;
  /** From the process's start to the first request's headers written to the socket. */
  toFirstAskMs: number;
  /** To the answer's headers. */
  toAnswerMs: number;
  /** To 'exit'. */
  toExitMs: number;
}

/** The entry module's own time: run() up to its first await. */
const ENTRY_NAME = 'src/bin/main.ts: run() to its first await';
const PRELUDE_AFTER =
  'import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";\n';
const EVAL_START = '/******/ \tvar threw = true;';
const EVAL_END = '/******/ \t\tif(threw) delete __webpack_module_cache__[moduleId];\n/******/ \t}';
// Split: ncc renames its own require's name where it meets it in the bench's source.
const ENTRY = `/******/ var __webpack_exports__ = ${'__nccwpck'}_require__(`;

/** The package, builtin or src/ file of each module id of an ncc bundle, from its source map. */
function moduleNames(code: string, map: SourceMap): Map<string, string> {
  const lines = code.split('\n');
  const starts: Array<[string, number]> = [];
  lines.forEach((line, i) => {
    const id = /^\/\*\*\*\/ (\d+):\s*$/.exec(line)?.[1];
    if (id) starts.push([id, i]);
  });
  const names = new Map<string, string>();
  starts.forEach(([id, from], k) => {
    const to = starts[k + 1]?.[1] ?? lines.length;
    const found = new Set<string>();
    for (let line = from; line < to; line += 1) {
      const source = map.findEntry(line, 0);
      if ('originalSource' in source && source.generatedLine === line)
        found.add(packageOf(source.originalSource));
    }
    names.set(id, moduleName(found, id));
  });
  return names;
}

/**
 * ncc joins ES modules into one (our src/ with @actions/core, …): named by what it joined. The
 * builtins it requires are modules of their own (their `require` lines map there too).
 */
function moduleName(found: Set<string>, id: string): string {
  const parts = [...found].filter((p) => !p.startsWith('node:') || found.size === 1);
  if (parts.every((p) => p.startsWith('webpack/'))) return 'webpack runtime';
  const joined = parts.filter((p) => !p.startsWith('webpack/')).sort();
  if (joined.length <= 1) return joined[0] ?? `module ${id}`;
  return `${joined.join(' + ')} (joined by ncc)`;
}

/** `../node_modules/undici/lib/x.js` → `undici`; `../external node-commonjs "node:http"` → `node:http`. */
function packageOf(source: string): string {
  const builtin = /^\.\.\/external [\w-]+ "(?:node:)?([^"]+)"$/.exec(source)?.[1];
  if (builtin) return `node:${builtin}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (pkg) return pkg;
  if (source.includes('/src/')) return 'src/';
  return source.replace(/^(\.\.\/)+/, '');
}

/** Copies `dist/main` to `dir/main` with the timing put in; `LEASE_GATE_IMPORT_COSTS` names the JSON it writes. */
export function instrumentMain(dist: string, root: string): string {
  const out = join(mkdtempSync(join(root, 'imports-')), 'main');
  cpSync(join(dist, 'main'), out, { recursive: true });
  const file = join(out, 'main.js');
  let code = readFileSync(file, 'utf8');
  for (const needle of [PRELUDE_AFTER, EVAL_START, EVAL_END, ENTRY]) {
    if (!code.includes(needle))
      throw new Error(
        `startup-imports: ${file} has no ${JSON.stringify(needle)}; ncc's runtime changed`,
      );
  }
  const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as never);
  const names = Object.fromEntries(moduleNames(code, map));
  const entry = new RegExp(`${ENTRY.replace(/[$()*/\\[\]]/g, '\\$&')}(\\d+)\\)`).exec(code)?.[1];
  if (entry) names[entry] = ENTRY_NAME;
  const prelude = `const __lgRequire = __WEBPACK_EXTERNAL_createRequire(import.meta.url);
const __lg = { bundle: performance.now(), marks: {}, self: new Map(), stack: [] };
{ const dc = __lgRequire('node:diagnostics_channel');
  dc.subscribe('undici:client:sendHeaders', () => { __lg.marks.ask ??= performance.now(); });
  dc.subscribe('undici:request:headers', () => { __lg.marks.answer ??= performance.now(); }); }
process.on('exit', () => { const names = ${JSON.stringify(names)};
  __lgRequire('node:fs').writeFileSync(process.env.LEASE_GATE_IMPORT_COSTS, JSON.stringify({
    bundle: __lg.bundle, ...__lg.marks, exit: performance.now(),
    modules: [...__lg.self].map(([id, ms]) => ({ name: names[id] ?? 'module ' + id, ms })) })); });
`;
  code = code
    .replace(PRELUDE_AFTER, `${PRELUDE_AFTER}${prelude}`)
    .replace(EVAL_START, `const __lgAt = performance.now(); __lg.stack.push(0);\n${EVAL_START}`)
    .replace(
      EVAL_END,
      `${EVAL_END}\nconst __lgAll = performance.now() - __lgAt; const __lgInner = __lg.stack.pop();
if (__lg.stack.length) __lg.stack[__lg.stack.length - 1] += __lgAll;
__lg.self.set(moduleId, __lgAll - __lgInner);`,
    )
    .replace(ENTRY, `__lg.marks.entry = performance.now();\n${ENTRY}`);
  writeFileSync(file, code);
  return join(out, 'index.js');
}

interface Record_ {
  bundle: number;
  ask: number;
  answer: number;
  exit: number;
  modules: ImportCost[];
}

/** Reads one instrumented run's JSON and removes it. */
export function readRun(file: string): Record_ {
  const run = JSON.parse(readFileSync(file, 'utf8')) as Record_;
  rmSync(file, { force: true });
  return run;
}

const sumOf = (modules: ImportCost[]) => modules.reduce((sum, m) => sum + m.ms, 0);

/**
 * Medians over the runs: the phases, and each import's own time summed by package (a
 * package's modules, a builtin, or our src/ with the ESM packages ncc joined into its module).
 * The entry module's own time (src/bin/main.ts) is `run()` up to its first await: settings.
 */
export function summarize(runs: Record_[]): { phases: Phases; imports: ImportCost[] } {
  const phases: Phases = {
    toBundleMs: median(runs.map((r) => r.bundle)),
    importsMs: median(runs.map((r) => sumOf(r.modules.filter((m) => m.name !== ENTRY_NAME)))),
    runToFirstAwaitMs: median(
      runs.map((r) => sumOf(r.modules.filter((m) => m.name === ENTRY_NAME))),
    ),
    toFirstAskMs: median(runs.map((r) => r.ask)),
    toAnswerMs: median(runs.map((r) => r.answer)),
    toExitMs: median(runs.map((r) => r.exit)),
  };
  const byName = new Map<string, number[]>();
  runs.forEach((run, i) => {
    const sums = new Map<string, number>();
    for (const m of run.modules) sums.set(m.name, (sums.get(m.name) ?? 0) + m.ms);
    for (const [name, ms] of sums) {
      const list = byName.get(name) ?? Array<number>(i).fill(0);
      list.push(ms);
      byName.set(name, list);
    }
  });
  const imports = [...byName]
    .filter(([name]) => name !== ENTRY_NAME)
    .map(([name, list]) => ({ name, ms: median(list) }))
    .sort((a, b) => b.ms - a.ms);
  return { phases, imports };
}

/**
 * A copy of dist/main that reads and compiles its bundle and evaluates nothing (its entry
 * module is not required): beside bare node, what compiling the bundle costs.
 */
export function compileOnlyMain(dist: string, root: string): string {
  const out = join(mkdtempSync(join(root, 'compile-')), 'main');
  cpSync(join(dist, 'main'), out, { recursive: true });
  const file = join(out, 'main.js');
  const code = readFileSync(file, 'utf8');
  if (!code.includes(ENTRY)) throw new Error(`startup-imports: ${file} has no entry line`);
  writeFileSync(file, code.replace(ENTRY, '/******/ var __webpack_exports__ = (() => undefined)('));
  return join(out, 'index.js');
}
