import { existsSync } from 'node:fs';
import { isAlive } from '../fs/processes.js';
import { keeperLeaseSchema, writeStatusFile } from '../lease/keeper-status.js';
import { ciOfEnv, ciTokenWay } from '../lease/ci-tokens.js';
import { cachedToken, runnerTokenSource, type TokenSource } from '../lease/oidc-token.js';
import { openSession } from '../lease/session.js';
import { keyFromEnv } from '../lease/settings.js';
import { describeIssues } from '../plane/schema.js';
import { parsePlaneUrl } from '../plane/url.js';
import { EXIT, UsageError, parse, type Output } from './options.js';

/**
 * `lease-gate keep` (internal): the action's detached keeper. Renews the lease
 * (and only renews it) until post stops it or removes its status file, its
 * runner is gone or its lifetime ends. The key comes from the environment (`keyFromEnv`;
 * main's spawn leaves only the step's key there, `helperEnv`).
 */
export async function keep(args: string[], _io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, {
    'api-url': { type: 'string', default: '' },
    resource: { type: 'string', default: '' },
    'actor-did': { type: 'string', default: '' },
    lease: { type: 'string', default: '' },
    status: { type: 'string', default: '' },
    'parent-pid': { type: 'string', default: '0' },
    'oidc-audience': { type: 'string' },
  });
  const url = parsePlaneUrl(values['api-url']);
  if (!url.ok || !values.resource || !values['actor-did'] || !values.status || !values.lease) {
    throw new UsageError('keep needs --api-url, --resource, --actor-did, --lease and --status.');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(values.lease);
  } catch {
    throw new UsageError('Invalid --lease: expected the granted lease as JSON.');
  }
  const parsed = keeperLeaseSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`Invalid --lease: ${describeIssues(parsed.error)}.`);
  const statusFile = values.status;
  const parentPid = Number(values['parent-pid']);
  // With an audience, the job's own OIDC tokens (the runner's token service lasts the whole job).
  const audience = values['oidc-audience'];
  const session = openSession({
    apiUrl: url.url,
    key: audience ? '' : keyFromEnv(env).value,
    bearer: audience ? cachedToken(keeperTokens(env, audience)) : undefined,
    resource: values.resource,
    actorDid: values['actor-did'],
    env,
  });
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort()).once('SIGINT', () => stop.abort());
  const held = session.held(parsed.data);
  try {
    const status = await held.keep({
      signal: stop.signal,
      parentAlive: () => !(parentPid > 0) || isAlive(parentPid),
      stillWanted: () => existsSync(statusFile),
      onChange: (s) =>
        writeStatusFile(statusFile, {
          pid: process.pid,
          ...s,
          ...(s.lastError ? { lastError: s.lastError.slice(0, 500) } : {}),
        }),
    });
    // The job is gone or over its time: give production back rather than let it lapse.
    if (status.ended?.why === 'parent-gone' || status.ended?.why === 'lifetime') {
      await held.release();
    }
  } finally {
    await session.close();
  }
  return EXIT.done;
}

/** The job's own tokens: the runner's service on GitHub (the action), else its CI's way (ci-tokens.ts). */
function keeperTokens(env: NodeJS.ProcessEnv, audience: string): TokenSource {
  const ci = ciOfEnv(env);
  if (!ci || ci === 'github') return runnerTokenSource(env, audience);
  // GitLab's audience is the job's own `aud:`; the keeper takes the token as the job has it.
  const way = ciTokenWay(ci, env, ci === 'gitlab' ? {} : { audience });
  if ('missing' in way) throw new UsageError(`keep --oidc-audience: ${way.missing}`);
  return way.source;
}
