import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { memoryContext, type Annotation, type MemoryContext } from '../../src/action/context.js';
import { run as runMain, type MainOptions } from '../../src/action/main.js';
import { run as runPost } from '../../src/action/post.js';
import { helperCommand } from '../../src/lease/helpers.js';
import { RUN_ENV, actionYml } from './runner.js';

/**
 * main and post in-process (src/, through the memory context): what a runner
 * gives a step, without a process per step. The black-box runs of dist/ are
 * in runner.ts.
 */

/** Every input as a runner passes it: action.yml's defaults (`${{ … }}` ones empty), then `extra`. */
export function actionInputs(extra: Record<string, string> = {}): Record<string, string> {
  const all: Record<string, string> = {};
  for (const [name, spec] of Object.entries(actionYml.inputs)) {
    all[name] = spec.default?.includes('${{') ? '' : (spec.default ?? '');
  }
  return { ...all, ...extra };
}

/** The committed CLI as the keeper, as dist/main would find it (no tsx compile on each start). */
export const distHelper = () => helperCommand(pathToFileURL(resolve('dist/main/index.js')).href);

export interface StepOptions {
  inputs?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Call `run` once, the first time a log line contains `when` (the event a test reacts to). */
  onLog?: { when: string; run: () => void };
  main?: MainOptions;
}

/** The run context a runner gives every step, with a RUNNER_TEMP of its own. */
function stepEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const temp = mkdtempSync(join(tmpdir(), 'lease-gate-inproc-'));
  return { PATH: process.env.PATH ?? '', RUNNER_TEMP: temp, ...RUN_ENV, ...env };
}

function context(
  options: StepOptions,
  env: NodeJS.ProcessEnv,
  state?: Record<string, string>,
): MemoryContext {
  const ctx = memoryContext({
    inputs: actionInputs(options.inputs),
    env,
    ...(state ? { state } : {}),
  });
  const onLog = options.onLog;
  if (!onLog) return ctx;
  let reacted = false;
  const react = (message: string) => {
    if (reacted || !message.includes(onLog.when)) return;
    reacted = true;
    onLog.run();
  };
  const { info, notice, warning } = ctx;
  ctx.info = (line) => (info(line), react(line));
  ctx.notice = (message, title) => (notice(message, title), react(message));
  ctx.warning = (message, title) => (warning(message, title), react(message));
  return ctx;
}

/** Main in-process; `env` is added to the run context of a fresh RUNNER_TEMP. */
export async function mainStep(options: StepOptions = {}, env = stepEnv(options.env)) {
  const ctx = context(options, env);
  await runMain(ctx, options.main);
  return ctx;
}

/** Post in-process with the state main left. */
export async function postStep(
  state: Record<string, string>,
  options: StepOptions = {},
  env = stepEnv(options.env),
) {
  const ctx = context(options, env, state);
  await runPost(ctx);
  return ctx;
}

/** Main, then post with main's state, in one run context (one RUNNER_TEMP), as a job runs them. */
export async function jobSteps(options: StepOptions = {}) {
  const env = stepEnv(options.env);
  const main = await mainStep(options, env);
  const postOptions = { ...options };
  delete postOptions.onLog; // the event a test reacts to is main's
  const post = await postStep(main.state, postOptions, env);
  return { main, post };
}

/** The log as text, one `kind: message` a line. */
export const logText = (ctx: MemoryContext) =>
  ctx.log.map((l) => `${l.kind}: ${l.message}`).join('\n');

export const annotations = (ctx: MemoryContext, kind: Annotation['kind']) =>
  ctx.log.filter((l) => l.kind === kind);

/** A row of the last summary that has one by that label. */
export function summaryRow(ctx: MemoryContext, label: string): string | undefined {
  for (const summary of [...ctx.summaries].reverse()) {
    const row = summary.rows.find(([name]) => name === label);
    if (row) return row[1];
  }
  return undefined;
}
