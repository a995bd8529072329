import { parseDuration } from '../gate/duration.js';
import { untrusted } from '../lease/escape.js';
import { givenTokenSource } from '../lease/oidc-token.js';
import { SettingsError } from '../lease/errors.js';
import type { BreakGlassAnswer } from '../plane/schema.js';
import { operatorName } from './freeze-commands.js';
import { EXIT, UsageError, parse, settingsFromFlags, type Output } from './options.js';
import { APPROVE_BREAK_GLASS, BREAK_GLASS } from './flags/operator.js';
import { optionsOf } from './flags/table.js';
import { cliSession } from './session.js';
import { cancelBreakGlass } from './break-glass-cancel.js';
import { isRunPass } from '../plane/run-pass.js';
import { keyOf, keyRefused, passDidOf } from './break-glass-flags.js';

const MAX_FOR_MS = 60 * 60_000;
const FOR_FORM = "a duration such as '10m' or '1h' (at most 1h)";

const said = (a: BreakGlassAnswer) =>
  `${a.pending ? 'waiting for a second operator to approve' : 'open'}: ${whom(a.actorDid)} may be granted it once, frozen or not, until ${new Date(a.until).toISOString()}`;

/** A run's pass lets one job of that run through, whichever attempt asks. */
const whom = (did: string) =>
  isRunPass(did) ? `one job of the run ${untrusted(did, 200)} (any attempt)` : untrusted(did, 200);

/** `lease-gate break-glass`: one named job may be granted the resource once, frozen or not. */
export async function breakGlass(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values } = parse(args, optionsOf(BREAK_GLASS.flags));
  if (values.cancel) return cancelBreakGlass(values, io, env);
  const actorDid = passDidOf(values, 'break-glass')!;
  const reason = values.reason?.trim() ?? '';
  if (!reason || reason.length > 1_000) {
    throw new UsageError(
      'break-glass needs --reason TEXT (1 to 1000 characters): it is recorded in the ledger.',
    );
  }
  const request: {
    resource: string;
    actorDid: string;
    reason: string;
    forMs?: number;
    by?: string;
  } = { resource: '', actorDid, reason };
  const by = operatorName(values.by);
  if (by) request.by = by;
  if (values.for !== undefined) {
    const forMs = parseDuration(values.for);
    if (forMs === undefined || forMs <= 0 || forMs > MAX_FOR_MS)
      throw new UsageError(`Invalid --for '${untrusted(values.for, 40)}'. Expected ${FOR_FORM}.`);
    request.forMs = forMs;
  }
  const settings = settingsFromFlags(values, env);
  request.resource = settings.resource;
  const adminKey = keyOf(env, 'LEASE_GATE_ADMIN_KEY', 'break-glass');
  const session = cliSession(settings, io, env);
  try {
    const answer = await session.client.breakGlass(request, adminKey);
    if (values.json) io.out(JSON.stringify({ resource: settings.resource, ...answer }));
    else io.out(`break-glass on ${settings.resource} ${said(answer)}`);
    return EXIT.done;
  } catch (error) {
    throw keyRefused(error, 'LEASE_GATE_ADMIN_KEY');
  } finally {
    await session.close();
  }
}

/** `lease-gate approve-break-glass`: the second operator lets a pending break-glass be used. */
export async function approveBreakGlass(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values } = parse(args, optionsOf(APPROVE_BREAK_GLASS.flags));
  const actorDid = passDidOf(values, 'approve-break-glass')!;
  const tokenFile = values['oidc-token-file'];
  // An empty path would fall back to LEASE_GATE_OIDC_TOKEN: a token the caller did not name.
  if (tokenFile === '')
    throw new UsageError('Invalid --oidc-token-file: expected the path of a file holding a token.');
  // An OIDC approver is named by its token: a --by beside it would be a second, unchecked name.
  if (tokenFile !== undefined && values.by !== undefined)
    throw new UsageError(
      'approve-break-glass takes --by NAME (with LEASE_GATE_APPROVER_KEY) or --oidc-token-file FILE, not both: the token names its approver.',
    );
  const by = tokenFile === undefined ? operatorName(values.by) : undefined;
  if (tokenFile === undefined && !by)
    throw new UsageError(
      'approve-break-glass needs --by NAME (with LEASE_GATE_APPROVER_KEY), or --oidc-token-file FILE: the ledger names the approver.',
    );
  let credential: string;
  try {
    credential =
      tokenFile === undefined
        ? keyOf(env, 'LEASE_GATE_APPROVER_KEY', 'approve-break-glass')
        : await givenTokenSource(tokenFile, env)();
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  // The token approves; the session itself asks with nothing of it.
  const settings = settingsFromFlags({ ...values, 'oidc-token-file': undefined }, env);
  const session = cliSession(settings, io, env);
  try {
    const answer = await session.client.approveBreakGlass(
      { resource: settings.resource, actorDid, ...(by ? { by } : {}) },
      credential,
    );
    if (values.json) io.out(JSON.stringify({ resource: settings.resource, ...answer }));
    else io.out(`approved: break-glass on ${settings.resource} ${said(answer)}`);
    return EXIT.done;
  } catch (error) {
    throw keyRefused(
      error,
      tokenFile === undefined
        ? 'LEASE_GATE_APPROVER_KEY'
        : `the token in --oidc-token-file ${tokenFile}`,
    );
  } finally {
    await session.close();
  }
}
