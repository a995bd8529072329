import { keepLease } from '../gate/keep.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { isAlive } from '../fs/processes.js';
import { createPlaneClient } from '../plane/client.js';
import { realSleep, systemClock } from '../plane/time.js';
import { parsePlaneUrl } from '../plane/url.js';
import { EXIT, UsageError, parse, type Output } from './options.js';

/**
 * The longest job GitHub runs (5 days on self-hosted runners, 6 h on hosted
 * ones) plus a margin. A keeper whose runner is gone exits long before.
 */
export const KEEPER_MAX_LIFETIME_MS = 5 * 24 * 3_600_000 + 3_600_000;
const RELEASE_ON_ABANDON_MS = 5_000;

/**
 * `lease-gate keep` (internal): the action's detached keeper. Renews the lease
 * until the post step stops it, its parent is gone or its lifetime ends, and
 * keeps its status in a file for the post step. The key comes from INTRAMEDIAL_KEY.
 */
export async function keep(args: string[], _io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, {
    'api-url': { type: 'string', default: '' },
    resource: { type: 'string', default: '' },
    'actor-did': { type: 'string', default: '' },
    lease: { type: 'string', default: '' },
    status: { type: 'string', default: '' },
    'parent-pid': { type: 'string', default: '0' },
    'max-lifetime-ms': { type: 'string', default: String(KEEPER_MAX_LIFETIME_MS) },
  });
  const url = parsePlaneUrl(values['api-url']);
  if (!url.ok || !values.resource || !values['actor-did'] || !values.status) {
    throw new UsageError('keep needs --api-url, --resource, --actor-did, --lease and --status.');
  }
  const lease = JSON.parse(values.lease) as Parameters<typeof keepLease>[0]['lease'];
  const parentPid = Number(values['parent-pid']);
  const client = createPlaneClient({ apiUrl: url.url, key: env.INTRAMEDIAL_KEY });
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort()).once('SIGINT', () => stop.abort());
  const request = { resource: values.resource, actorDid: values['actor-did'] };
  const save = (status: object) =>
    writeFileAtomic(values.status, JSON.stringify({ pid: process.pid, ...status }));

  const status = await keepLease({
    client,
    ...request,
    lease,
    clock: systemClock,
    wallNow: Date.now,
    sleep: realSleep,
    signal: stop.signal,
    maxLifetimeMs: Number(values['max-lifetime-ms']),
    parentAlive: () => parentPid <= 0 || isAlive(parentPid),
    onChange: save,
  });
  // The job is gone or over its time: give production back rather than let it lapse.
  if (status.ended?.why === 'parent-gone' || status.ended?.why === 'lifetime') {
    await client
      .release(request, { retryUntilMs: systemClock.now() + RELEASE_ON_ABANDON_MS })
      .catch(() => undefined);
  }
  return EXIT.done;
}
