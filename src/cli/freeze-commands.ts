import { LeaseRefusedError } from '../gate/wait.js';
import { untrusted } from '../lease/escape.js';
import { KeyRefusedError } from '../plane/errors.js';
import { FREEZE_FOR_FORM, MAX_FREEZE_MS, parseFreezeFor } from '../plane/freeze-for.js';
import { OPERATOR_NAME_FORM, OPERATOR_NAME_PATTERN } from '../plane/schema.js';
import { EXIT, UsageError, parse, settingsFromFlags, type Output } from './options.js';
import { FREEZE, UNFREEZE } from './flags/operator.js';
import { optionsOf } from './flags/table.js';
import { cliSession } from './session.js';

const UNTIL_FORM =
  "an ISO 8601 time with a zone, such as '2026-12-24T18:00:00Z' or '2026-12-24T19:00+01:00'";

/** `--until`: a time with its zone (a bare local time would depend on the host's). */
export function parseFreezeUntil(raw: string, nowMs: number): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw))
    return undefined;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) && ms > nowMs && ms <= nowMs + MAX_FREEZE_MS ? ms : undefined;
}

/** `--by NAME`: who the ledger names for the freeze, unfreeze or revoke (else operator:admin-key). */
export function operatorName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!OPERATOR_NAME_PATTERN.test(raw)) {
    throw new UsageError(`Invalid --by '${untrusted(raw, 70)}'. Expected ${OPERATOR_NAME_FORM}.`);
  }
  return raw;
}

function adminKeyOf(env: NodeJS.ProcessEnv, what: string): string {
  const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
  if (!adminKey) throw new UsageError(`${what} needs the admin key in LEASE_GATE_ADMIN_KEY.`);
  return adminKey;
}

function keyRefused(error: unknown): unknown {
  if (!(error instanceof KeyRefusedError)) return error;
  return new LeaseRefusedError({
    reason: 'key refused',
    message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; freezing needs the kernel's admin key.`,
  });
}

/** `lease-gate freeze`: no new holder until the end named (or an unfreeze); the holder is kept. */
export async function freeze(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(FREEZE.flags));
  const reason = values.reason?.trim() ?? '';
  if (!reason || reason.length > 1_000) {
    throw new UsageError(
      'freeze needs --reason TEXT (1 to 1000 characters), said to every waiter.',
    );
  }
  if (values.until !== undefined && values.for !== undefined) {
    throw new UsageError('Give --until or --for, not both.');
  }
  const request: {
    resource: string;
    reason: string;
    untilMs?: number;
    forMs?: number;
    by?: string;
  } = { resource: '', reason };
  const by = operatorName(values.by);
  if (by) request.by = by;
  if (values.for !== undefined) {
    const forMs = parseFreezeFor(values.for);
    if (forMs === undefined)
      throw new UsageError(
        `Invalid --for '${untrusted(values.for, 40)}'. Expected ${FREEZE_FOR_FORM}.`,
      );
    request.forMs = forMs;
  }
  if (values.until !== undefined) {
    const untilMs = parseFreezeUntil(values.until, Date.now());
    if (untilMs === undefined) {
      throw new UsageError(
        `Invalid --until '${untrusted(values.until, 60)}'. Expected ${UNTIL_FORM}, in the future and within a year.`,
      );
    }
    request.untilMs = untilMs;
  }
  const settings = settingsFromFlags(values, env);
  request.resource = settings.resource;
  const adminKey = adminKeyOf(env, 'freeze');
  const session = cliSession(settings, io, env);
  try {
    const answer = await session.client.freeze(request, adminKey);
    if (values.json)
      io.out(JSON.stringify({ resource: settings.resource, frozen: true, ...answer }));
    else
      io.out(
        `froze ${settings.resource} ${answer.until === null ? 'until unfrozen' : `until ${new Date(answer.until).toISOString()}`}; its holder (if any) keeps it, nobody else is granted it`,
      );
    return EXIT.done;
  } catch (error) {
    throw keyRefused(error);
  } finally {
    await session.close();
  }
}

/** `lease-gate unfreeze`: grants resume, waiters first in the order they came. */
export async function unfreeze(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values } = parse(args, optionsOf(UNFREEZE.flags));
  const by = operatorName(values.by);
  const settings = settingsFromFlags(values, env);
  const adminKey = adminKeyOf(env, 'unfreeze');
  const session = cliSession(settings, io, env);
  try {
    const answer = await session.client.unfreeze(settings.resource, adminKey, {}, by);
    if (values.json)
      io.out(JSON.stringify({ resource: settings.resource, frozen: false, ...answer }));
    else
      io.out(
        answer.changed ? `unfroze ${settings.resource}` : `${settings.resource} was not frozen`,
      );
    return answer.changed ? EXIT.done : EXIT.refused;
  } catch (error) {
    throw keyRefused(error);
  } finally {
    await session.close();
  }
}
