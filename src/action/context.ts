import { errorMessage } from '../errors.js';
import { askRunnerForToken } from '../lease/oidc-token.js';
import type { InputName, OutputName, StateName } from './io.js';

/**
 * The action's port to its runner: inputs, state, outputs, annotations,
 * summary. `@actions/core` implements it for real runs (core-context.ts);
 * `memoryContext` runs main and post in-process in tests.
 */
export interface ActionContext {
  getInput(name: InputName): string;
  getState(name: StateName): string;
  saveState(name: StateName, value: string): void;
  setOutput(name: OutputName, value: string): void;
  setSecret(value: string): void;
  /** The job's OIDC ID token for `audience` (`permissions: id-token: write`), masked. */
  getIDToken(audience: string): Promise<string>;
  info(line: string): void;
  debug(line: string): void;
  notice(message: string, title?: string): void;
  warning(message: string, title?: string): void;
  error(message: string, title?: string): void;
  setFailed(message: string): void;
  /** Appends a heading and a two-column table to the job summary; throws when it cannot. */
  summary(heading: string, rows: Array<[string, string]>): Promise<void>;
  readonly env: NodeJS.ProcessEnv;
}

export interface Annotation {
  kind: 'notice' | 'warning' | 'error' | 'failed' | 'info' | 'debug';
  message: string;
  title?: string;
}

export interface MemoryContext extends ActionContext {
  inputs: Record<string, string>;
  state: Record<string, string>;
  outputs: Record<string, string>;
  secrets: string[];
  log: Annotation[];
  summaries: Array<{ heading: string; rows: Array<[string, string]> }>;
  failed: string | undefined;
}

/** An in-memory runner: what main writes to state, post can read by passing `state` on. */
export function memoryContext(options: {
  inputs?: Record<string, string>;
  state?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  summaryFails?: boolean;
}): MemoryContext {
  const ctx: MemoryContext = {
    inputs: { ...options.inputs },
    state: { ...options.state },
    outputs: {},
    secrets: [],
    log: [],
    summaries: [],
    failed: undefined,
    env: options.env ?? {},
    getInput: (name) => (ctx.inputs[name] ?? '').trim(),
    getState: (name) => ctx.state[name] ?? '',
    saveState: (name, value) => void (ctx.state[name] = value),
    setOutput: (name, value) => void (ctx.outputs[name] = value),
    setSecret: (value) => void ctx.secrets.push(value),
    // The runner's token service, as the real steps ask it (a fake one on loopback in tests).
    getIDToken: async (audience) => {
      const token = await askRunnerForToken(ctx.env, audience);
      ctx.secrets.push(token);
      return token;
    },
    info: (message) => void ctx.log.push({ kind: 'info', message }),
    debug: (message) => void ctx.log.push({ kind: 'debug', message }),
    notice: (message, title) =>
      void ctx.log.push({ kind: 'notice', message, ...(title ? { title } : {}) }),
    warning: (message, title) =>
      void ctx.log.push({ kind: 'warning', message, ...(title ? { title } : {}) }),
    error: (message, title) =>
      void ctx.log.push({ kind: 'error', message, ...(title ? { title } : {}) }),
    setFailed: (message) => {
      ctx.failed ??= message;
      ctx.log.push({ kind: 'failed', message });
    },
    // A throw in the executor rejects, as the file system's failure would.
    summary: (heading, rows) =>
      new Promise<void>((resolve) => {
        if (options.summaryFails) throw new Error('EACCES: permission denied, open summary');
        ctx.summaries.push({ heading, rows });
        resolve();
      }),
  };
  return ctx;
}

/** A summary that cannot be written is a warning, never a failure after a grant. */
export async function summarize(
  ctx: ActionContext,
  heading: string,
  rows: Array<[string, string]>,
) {
  try {
    await ctx.summary(heading, rows);
  } catch (error) {
    ctx.warning(`Could not write the job summary (${errorMessage(error)}); the gate goes on.`);
  }
}
