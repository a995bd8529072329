import { untrusted } from '../lease/escape.js';
import { operatorName } from './freeze-commands.js';
import { EXIT, UsageError, settingsFromFlags, type Output } from './options.js';
import { cliSession } from './session.js';
import { keyOf, keyRefused, passDidOf } from './break-glass-flags.js';

type Values = Parameters<typeof settingsFromFlags>[0] & {
  agent?: string | undefined;
  run?: string | undefined;
  reason?: string | undefined;
  for?: string | undefined;
  by?: string | undefined;
  json?: boolean | undefined;
};

/**
 * `lease-gate break-glass --cancel`: the operator withdraws the unused pass on the resource
 * (only the one for --agent, when given), so it can no longer be used. A usable pass is
 * withdrawn with a signed ledger entry, so a kernel's restart does not bring it back.
 */
export async function cancelBreakGlass(
  values: Values,
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (values.reason !== undefined || values.for !== undefined)
    throw new UsageError(
      'break-glass --cancel takes no --reason or --for: it withdraws the pass there is.',
    );
  const actorDid = passDidOf(values, 'break-glass --cancel', true);
  const by = operatorName(values.by);
  const settings = settingsFromFlags(values, env);
  const adminKey = keyOf(env, 'LEASE_GATE_ADMIN_KEY', 'break-glass --cancel');
  const session = cliSession(settings, io, env);
  try {
    const answer = await session.client.withdrawBreakGlass(
      {
        resource: settings.resource,
        ...(actorDid !== undefined ? { actorDid } : {}),
        ...(by ? { by } : {}),
      },
      adminKey,
    );
    if (values.json) io.out(JSON.stringify({ resource: settings.resource, ...answer }));
    else
      io.out(
        `withdrawn: the break-glass on ${settings.resource} for ${untrusted(answer.actorDid, 200)} can no longer be used`,
      );
    return EXIT.done;
  } catch (error) {
    throw keyRefused(error, 'LEASE_GATE_ADMIN_KEY');
  } finally {
    await session.close();
  }
}
