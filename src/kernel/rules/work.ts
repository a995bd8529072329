import { InternalError } from '../../errors.js';
import { decide, type Command, type Decision, type ReplyFor, type ResourceState } from './rules.js';
import type { Freeze, RuleContext } from './rules.js';

/** One command for one resource, as a batch carries it to whatever keeps the states. */
export interface Work {
  readonly resource: string;
  readonly command: Command;
  /** Runs the rules on `state`; the last decision is the one `reply` answers with. */
  decide(state: ResourceState, ctx: RuleContext): Decision;
}

/** A work item that remembers its command's type, so its reply needs no cast. */
export interface TypedWork<C extends Command> extends Work {
  reply(): ReplyFor<C>;
}

export function workFor<C extends Command>(resource: string, command: C): TypedWork<C> {
  let last: Decision<ReplyFor<C>> | undefined;
  return {
    resource,
    command,
    decide(state, ctx) {
      last = decide(state, command, ctx);
      return last;
    },
    reply() {
      if (!last) throw new InternalError(`the ${command.kind} on ${resource} was never decided`);
      return last.reply;
    },
  };
}

/** A batch decided: each command's decision, the state each resource ends in, and which changed. */
export interface DecidedBatch {
  decisions: Decision[];
  /** Every resource the batch touched, in the state its last command left. */
  states: Map<string, ResourceState>;
  /** Resources with an entry to record: their states are kept only once the entries are durable. */
  durable: Set<string>;
  /** Resources whose state differs from the one loaded (durable ones included). */
  changed: Set<string>;
}

/**
 * The one decide loop every backend runs: each command in order on the state
 * the one before it on its resource left (`load` gives the stored one first).
 * Pure: the caller loads states, gives each resource's rule context, and keeps
 * the result its own way.
 */
export function decideBatch(
  work: readonly Work[],
  load: (resource: string) => ResourceState,
  context: (resource: string) => RuleContext,
): DecidedBatch {
  const states = new Map<string, ResourceState>();
  const loaded = new Map<string, ResourceState>();
  const durable = new Set<string>();
  const decisions = work.map((item) => {
    const { resource } = item;
    let before = states.get(resource);
    if (!before) {
      before = load(resource);
      loaded.set(resource, before);
    }
    const decision = item.decide(before, context(resource));
    states.set(resource, decision.state);
    if (decision.events.length > 0) durable.add(resource);
    return decision;
  });
  const changed = new Set(durable);
  for (const [resource, state] of states)
    if (JSON.stringify(state) !== JSON.stringify(loaded.get(resource))) changed.add(resource);
  return { decisions, states, durable, changed };
}

/** The rules' settings; every replica of one plane must run with the same ones. */
export interface RuleSettings {
  ttlMs: number;
  nextInLineWaitMs: number;
  lockDelayMs: number;
  random: () => number;
  /** Recurring freeze windows (windows.ts), when configured. */
  window?: ((resource: string, now: number) => Freeze | undefined) | undefined;
}

/** The one rule context of every backend: the settings at `now`, fences from `nextFence`. */
export function ruleContext(
  settings: RuleSettings,
  resource: string,
  now: number,
  nextFence: () => number,
  failover?: Freeze,
): RuleContext {
  return {
    now,
    ttlMs: settings.ttlMs,
    nextInLineWaitMs: settings.nextInLineWaitMs,
    lockDelayMs: settings.lockDelayMs,
    nextFence,
    random: settings.random,
    window: settings.window?.(resource, now),
    ...(failover ? { failover } : {}),
  };
}
