/**
 * Trace validation (docs/model.md): a ledger, with the give-backs its driver saw, is
 * turned into a Quint `run` that applies spec/lease.qnt's own actions in the
 * ledger's order, and `quint test` checks it. An entry the model's transition
 * relation does not allow at that point fails the run: a divergence, and a
 * bisection over the trace's prefixes names the first line the model refused.
 */
import { isRunPass, passCovers } from '../../src/plane/run-pass.js';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LedgerEntry } from '../../src/ledger/entry.js';
import { CLOCK_RACE_MS } from '../../src/ledger/meaning.js';
import { defaultLockDelayMs } from '../../src/kernel/rules/rules.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SPEC = join(ROOT, 'spec/lease.qnt');

/**
 * Quint from the project's devDependencies, or from `.tmp/quint` (a local install
 * before the lockfile carries it); undefined when neither is there.
 */
export function quintBin(): string | undefined {
  for (const bin of [
    join(ROOT, 'node_modules/.bin/quint'),
    join(ROOT, '.tmp/quint/node_modules/.bin/quint'),
  ]) {
    if (existsSync(bin)) return bin;
  }
  return undefined;
}

/** A step the ledger does not record: the revoked holder giving the resource back. */
export interface GiveBack {
  kind: 'giveBack';
  resource: string;
  actorDid: string;
}

export type TraceLine = LedgerEntry | GiveBack;

export interface TraceParams {
  ttlMs: number;
  lockDelayMs: number;
}

/** Quint's string literals have no escapes: names are kept to a plain alphabet. */
function lit(s: string): string {
  if (!/^[A-Za-z0-9:/._@%+=-]*$/.test(s)) {
    throw new Error(`trace check: name ${JSON.stringify(s)} is not in [A-Za-z0-9:/._@%+=-]`);
  }
  return `"${s}"`;
}

const int = (n: number) => {
  if (!Number.isSafeInteger(n)) throw new Error(`trace check: ${n} is not an integer`);
  return String(n);
};

/** The reason src/kernel/store/restart.ts gives the renewals of leases a restart resumes. */
const RESTART_REASON = 'kernel restart';

/**
 * The model's break-glass is keyed by agent; a pass for a run (src/plane/run-pass.ts) lets
 * through any agent of that run. It is fed to the model as the pass of the one agent of the
 * trace it covers (the traces give each agent a run of its own).
 */
function passesAsAgents(lines: readonly TraceLine[]): TraceLine[] {
  const agents = [
    ...new Set(
      lines.filter((l) => l.kind === 'grant' || l.kind === 'giveBack').map((l) => l.actorDid),
    ),
  ];
  return lines.map((l) => {
    if ((l.kind !== 'break_glass' && l.kind !== 'break_glass_withdrawn') || !isRunPass(l.actorDid))
      return l;
    const covered = agents.filter((a) => passCovers(l.actorDid, a));
    if (covered.length > 1)
      throw new Error(`a pass for ${l.actorDid} covers ${covered.length} agents of the trace`);
    return covered.length ? { ...l, actorDid: covered[0]! } : l;
  });
}

/** The model's actions for one trace line, the clock moved to its time first. */
function actionsOf(line: TraceLine, clock: { now: number }): string[] {
  const r = lit(line.resource);
  const a = lit(line.actorDid);
  if (line.kind === 'giveBack') return [`giveBack(${r}, ${a})`];
  // A lapse happened when its clock found it due (clockMs), never later than its stamp.
  // So did a grant a break-glass let through (the clock that decided it, clockMs).
  const at = Math.max(clock.now, line.clockMs ?? line.tsMs);
  clock.now = at;
  const tick = `tickTo(${int(at)})`;
  switch (line.kind) {
    case 'grant':
      return [tick, `grant(${r}, ${a}, ${int(line.fence)}, ${int(line.expiresAtMs ?? at)})`];
    case 'renew':
      // A restarted kernel's renewal runs from the restart, which the ledger does not stamp.
      return line.reason === RESTART_REASON
        ? [tick, `resume(${r}, ${a}, ${int(line.expiresAtMs ?? at)})`]
        : [tick, `renew(${r}, ${a}, ${int(line.expiresAtMs ?? at)})`];
    case 'release':
      return [tick, `release(${r}, ${a})`];
    case 'lapse':
      return [tick, `lapse(${r}, ${a})`];
    case 'revoke':
      return [tick, `revoke(${r}, ${a})`];
    case 'freeze':
      return [
        tick,
        `freeze(${r}, ${line.expiresAtMs === undefined ? 'FOREVER' : int(line.expiresAtMs)})`,
      ];
    case 'unfreeze':
      return [tick, `unfreeze(${r})`];
    case 'break_glass':
      return [tick, `breakGlass(${r}, ${a}, ${int(line.expiresAtMs ?? at)})`];
    case 'break_glass_withdrawn':
      return [tick, `withdrawPass(${r}, ${a})`];
  }
}

export interface Divergence {
  /** The trace line (its index in the trace) the model did not allow. */
  index: number;
  line: TraceLine;
  output: string;
}

export interface TraceResult {
  lines: number;
  steps: number;
  divergence?: Divergence;
}

/** Steps per named action of a run (see quintModule). */
const CHUNK = 50;

/** One `run` of the module: `init`, then the given lines' actions in order. */
interface Replay {
  name: string;
  lines: readonly TraceLine[];
}

/** The Quint module that replays each of `replays` as a `run` of its name. */
export function quintModule(replays: readonly Replay[], params: TraceParams, specFrom: string) {
  const all = passesAsAgents(replays.flatMap((r) => r.lines));
  const resources = new Set(all.map((l) => l.resource));
  const agents = new Set(all.filter((l) => l.actorDid).map((l) => l.actorDid));
  const set = (s: Set<string>) => (s.size ? `Set(${[...s].map(lit).join(', ')})` : 'Set()');
  const map = (s: Set<string>, v: string) =>
    s.size ? `Map(${[...s].map((k) => `${lit(k)} -> ${v}`).join(', ')})` : 'Map()';
  let steps = 0;
  const runs = replays.map(({ name, lines }) => {
    const clock = { now: 0 };
    const actions = passesAsAgents(lines).flatMap((l) => actionsOf(l, clock));
    steps += actions.length;
    // Quint's type check is quadratic in one chain's length (800 steps: 116 s); chains of
    // CHUNK steps, each a named action the run then chains, take it to seconds (9 s).
    const chunks: string[] = [];
    for (let i = 0; i < actions.length; i += CHUNK) {
      const part = actions.slice(i, i + CHUNK);
      chunks.push(
        `  action part${chunks.length}_${name} = ${part[0]}${part
          .slice(1)
          .map((a) => `\n    .then(${a})`)
          .join('')}`,
      );
    }
    const chained = chunks.map((_, i) => `\n    .then(part${i}_${name})`).join('');
    return `${chunks.join('\n')}\n  run ${name} = init${chained}`;
  });
  const text = `// Generated by test/support/trace-check.ts from ledgers: do not edit.
module trace {
  import lease(
    RESOURCES = ${set(resources)},
    AGENTS = ${set(agents)},
    LANE = ${map(agents, '""')},
    RUN = ${map(agents, '0')},
    TTL = ${int(params.ttlMs)},
    LOCK_DELAY = ${int(params.lockDelayMs)},
    SKIP_LOCK_DELAY = false,
    CLOCK_RACE = ${int(CLOCK_RACE_MS)},
  ).* from "${specFrom}"

${runs.join('\n\n')}
}
`;
  return { text, steps };
}

const run = promisify(execFile);
/** Under the 8 MB `ulimit -s` of a Linux main thread, with room for what is not JavaScript. */
const STACK_KB = 7_000;

async function quintTest(file: string, match: string): Promise<{ ok: boolean; output: string }> {
  const bin = quintBin();
  if (!bin) throw new Error('trace check: quint is not installed (npm ci, or .tmp/quint)');
  try {
    // A run is one chain of `then`s that Quint walks recursively: a ledger of a few thousand
    // entries overflows Node's default stack (under 1 MB), so Quint gets most of the 8 MB
    // a Linux main thread has.
    const { stdout, stderr } = await run(
      process.execPath,
      [
        `--stack-size=${STACK_KB}`,
        realpathSync(bin),
        'test',
        '--backend=typescript',
        '--main=trace',
        `--match=${match}`,
        file,
      ],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
    );
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? e.message}` };
  }
}

/** The names of the runs `quint test` reported failed. */
const failedRuns = (output: string) =>
  new Set([...output.matchAll(/(\w+Test) failed after/g)].map((m) => m[1]!));

/**
 * Replays each trace through the model with one `quint test`. For a trace that
 * diverges, the first line the model refuses is found in two more: the prefixes at
 * 32 evenly spaced ends, then every prefix inside the first interval that fails.
 */
export async function checkTraces(
  traces: readonly (readonly TraceLine[])[],
  params: TraceParams,
  workDir: string,
): Promise<TraceResult[]> {
  mkdirSync(workDir, { recursive: true });
  const file = join(workDir, 'trace.qnt');
  const specFrom = relative(workDir, SPEC).replace(/\.qnt$/, '');
  const test = async (replays: Replay[]) => {
    writeFileSync(file, quintModule(replays, params, specFrom).text);
    const result = await quintTest(file, '^r\\d+');
    const failed = failedRuns(result.output);
    if (!result.ok && failed.size === 0) {
      throw new Error(`trace check: quint test failed without naming a run:\n${result.output}`);
    }
    return { failed, output: result.output };
  };
  const whole = traces.map((lines, i) => ({ name: `r${i}Test`, lines }));
  const first = await test(whole);
  const results: TraceResult[] = [];
  for (const [i, lines] of traces.entries()) {
    const steps = quintModule([whole[i]!], params, specFrom).steps;
    if (!first.failed.has(`r${i}Test`)) {
      results.push({ lines: lines.length, steps });
      continue;
    }
    const prefixes = (ends: number[]) =>
      ends.map((end) => ({ name: `r${end}Test`, lines: lines.slice(0, end) }));
    const firstFailing = async (ends: number[]) => {
      const { failed, output } = await test(prefixes(ends));
      const end = ends.find((e) => failed.has(`r${e}Test`));
      return { end, output };
    };
    const stride = Math.max(1, Math.ceil(lines.length / 32));
    const coarse: number[] = [];
    for (let end = stride; end < lines.length; end += stride) coarse.push(end);
    coarse.push(lines.length);
    const upper = (await firstFailing(coarse)).end ?? lines.length;
    const fine: number[] = [];
    for (let end = Math.max(1, upper - stride + 1); end <= upper; end += 1) fine.push(end);
    const found = await firstFailing(fine);
    const end = found.end ?? upper;
    results.push({
      lines: lines.length,
      steps,
      divergence: { index: end - 1, line: lines[end - 1]!, output: found.output },
    });
  }
  return results;
}

export interface LedgerReplay {
  ledgers: number;
  entries: number;
  steps: number;
  divergences: Divergence[];
}

/**
 * Replays whole ledgers (a chaos or replica test's, read back after verifyBundle)
 * through the model. Those tests revoke nobody, so there is no give-back to add; a
 * grant or renewal stamped after a clock reading a replica took before the ledger's
 * order is allowed verify's CLOCK_RACE_MS, and nothing else.
 */
export async function replayLedgers(
  ledgers: readonly (readonly LedgerEntry[])[],
  params: TraceParams,
  workDir: string,
): Promise<LedgerReplay> {
  const results = await checkTraces(ledgers, params, workDir);
  const divergences = results.flatMap((r) => (r.divergence ? [r.divergence] : []));
  return {
    ledgers: ledgers.length,
    entries: results.reduce((n, r) => n + r.lines, 0),
    steps: results.reduce((n, r) => n + r.steps, 0),
    divergences,
  };
}

/** One line for a test's output: what was replayed and how it went. */
export const replaySummary = (what: string, r: LedgerReplay) =>
  `trace check (${what}): ${r.ledgers} ledger(s), ${r.entries} entries, ${r.steps} model steps, ${r.divergences.length} divergences` +
  r.divergences
    .map((d) => `\n  diverges at line ${d.index}: ${JSON.stringify(d.line)}\n${d.output}`)
    .join('');

/**
 * One kernel's whole ledger through the model at its lease time (and the default lock-delay),
 * with the summary printed; undefined where Quint is missing outside CI (CI always has it).
 */
export async function replayKernelLedger(
  what: string,
  entries: readonly LedgerEntry[],
  ttlMs: number,
  workDir: string,
): Promise<LedgerReplay | undefined> {
  if (!quintBin() && !process.env.CI) return undefined;
  const replay = await replayLedgers(
    [entries],
    { ttlMs, lockDelayMs: defaultLockDelayMs(ttlMs) },
    workDir,
  );
  console.info(replaySummary(what, replay));
  return replay;
}
