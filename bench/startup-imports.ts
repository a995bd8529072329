import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { median } from './stats.js';

/**
 * What each import of the built main step costs on its way to the first ask: a copy of
 * dist/main whose bundle times each module it evaluates (instrument(): a module's own code,
 * without the modules it requires, which are timed on their own; a builtin a package requires
 * counts in that package's time) and marks the phases of the run (the HTTP diagnostics
 * channels: the first request sent, the first answer received). The copy is a measuring tool only: it is run with the
 * same inputs as the timed steps, and its figures are medians over its runs.
 */

export interface ImportCost {
  /** A package (`undici`), a Node builtin (`node:http`), or our src/. */
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
/** The entry's one call, as rolldown writes `void run();` of src/bin/main.ts. */
const ENTRY = '\nrun();\n';
const CJS = '= /* @__PURE__ */ __commonJSMin(';
/** A builtin the bundle requires at its top: `let node_http = require("node:http");`. */
const BUILTIN = /^let \w+ = require\("(?:node:)?([\w/]+)"\);$/;
/** Where a top-level statement of rolldown's output begins: at column 0, a declaration. */
const STATEMENT = /^(?:var|let|const|function|async function|class) /;

/** `../../node_modules/undici/lib/x.js` → `undici`; `../../src/…` → `src/`. */
function packageOf(source: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (pkg) return pkg;
  if (source.includes('/src/')) return 'src/';
  return source.replace(/^(\.\.\/)+/, '');
}

/** The package of a generated line, by its first mapped column (after the indent). */
function sourceOf(map: SourceMap, lines: string[], line: number): string | undefined {
  const entry = map.findEntry(line, /^\s*/.exec(lines[line] ?? '')![0].length);
  return 'originalSource' in entry && entry.generatedLine === line
    ? packageOf(entry.originalSource)
    : undefined;
}

/**
 * The timing put into a rolldown CommonJS bundle, line by line: each `__commonJSMin` module (a
 * CommonJS package's file, run at its first require) timed as it runs, without the modules it
 * requires; each run of top-level statements from one package (the ES modules rolldown hoists:
 * our src/, zod, @actions/core) and each builtin required at the top, timed as a segment; the
 * entry's `run();` as the last segment.
 */
function instrument(code: string, map: SourceMap): { code: string; names: string[] } {
  const names: string[] = [];
  const nameId = (name: string) => {
    const at = names.indexOf(name);
    return at >= 0 ? at : names.push(name) - 1;
  };
  let current: string | undefined;
  const lines = code.split('\n');
  const out = lines.map((line, i) => {
    if (line.includes(CJS)) {
      const id = nameId(sourceOf(map, lines, i + 1) ?? 'a CommonJS module');
      return line.replace(CJS, `= /* @__PURE__ */ __lgCjs(${id}, `);
    }
    if (!STATEMENT.test(line)) return line;
    const builtin = BUILTIN.exec(line)?.[1];
    const name = builtin ? `node:${builtin}` : sourceOf(map, lines, i);
    if (!name || name === current) return line;
    current = name;
    return `__lgSegment(${nameId(name)});\n${line}`;
  });
  return { code: out.join('\n'), names };
}

const PRELUDE = `const __lg = { bundle: performance.now(), marks: {}, self: [], stack: [], segment: undefined };
function __lgAdd(id, ms) { __lg.self.push([id, ms]); }
function __lgSegment(id) {
  const now = performance.now(), s = __lg.segment;
  if (s) __lgAdd(s.id, now - s.at - s.inner);
  __lg.segment = id === undefined ? undefined : { id, at: now, inner: 0 };
}
function __lgCjs(id, cb) {
  return __commonJSMin((exports, module) => {
    const at = performance.now(); __lg.stack.push(0);
    try { cb(exports, module); } finally {
      const all = performance.now() - at, inner = __lg.stack.pop();
      if (__lg.stack.length) __lg.stack[__lg.stack.length - 1] += all;
      else if (__lg.segment) __lg.segment.inner += all;
      __lgAdd(id, all - inner);
    }
  });
}
{ const dc = require('node:diagnostics_channel');
  const ask = () => { __lg.marks.ask ??= performance.now(); };
  const answer = () => { __lg.marks.answer ??= performance.now(); };
  dc.subscribe('undici:client:sendHeaders', ask); dc.subscribe('undici:request:headers', answer);
  dc.subscribe('http.client.request.start', ask); dc.subscribe('http.client.response.finish', answer); }
`;

/** Copies `dist/main` to `dir/main` with the timing put in; `LEASE_GATE_IMPORT_COSTS` names the JSON it writes. */
export function instrumentMain(dist: string, root: string): string {
  const out = join(mkdtempSync(join(root, 'imports-')), 'main');
  cpSync(join(dist, 'main'), out, { recursive: true });
  const file = join(out, 'main.js');
  const code = readFileSync(file, 'utf8');
  if (!code.includes(ENTRY))
    throw new Error(`startup-imports: ${file} is not the rolldown bundle this reads`);
  const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as never);
  const timed = instrument(code, map);
  const entryId = timed.names.push(ENTRY_NAME) - 1;
  const exit = `process.on('exit', () => { const names = ${JSON.stringify(timed.names)};
  require('node:fs').writeFileSync(process.env.LEASE_GATE_IMPORT_COSTS, JSON.stringify({
    bundle: __lg.bundle, ...__lg.marks, exit: performance.now(),
    modules: __lg.self.map(([id, ms]) => ({ name: names[id], ms })) })); });
`;
  // The prelude goes after rolldown's runtime (its __commonJSMin), before the first builtin.
  const runtimeEnd = timed.code.indexOf('\n__lgSegment(');
  const body =
    timed.code.slice(0, runtimeEnd + 1) +
    PRELUDE +
    exit +
    timed.code
      .slice(runtimeEnd + 1)
      .replace(
        ENTRY,
        `\n__lgSegment(); __lg.marks.entry = performance.now(); __lgSegment(${entryId});\nrun();\n__lgSegment();\n`,
      );
  writeFileSync(file, body);
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
 * package's modules, a builtin, or our src/).
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
 * A copy of dist/main whose loader compiles the bundle as Node's CommonJS loader does (one
 * function around the file) and runs nothing of it: beside bare node, what compiling costs.
 */
export function compileOnlyMain(dist: string, root: string): string {
  const out = join(mkdtempSync(join(root, 'compile-')), 'main');
  cpSync(join(dist, 'main'), out, { recursive: true });
  const file = join(out, 'index.js');
  writeFileSync(
    file,
    `const { readFileSync } = require('node:fs');
const { compileFunction } = require('node:vm');
const file = require('node:path').join(__dirname, 'main.js');
compileFunction(readFileSync(file, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });
`,
  );
  return file;
}
