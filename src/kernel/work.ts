import { InternalError } from '../errors.js';
import { decide, type Command, type Decision, type ReplyFor, type ResourceState } from './rules.js';
import type { RuleContext } from './rules.js';

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
