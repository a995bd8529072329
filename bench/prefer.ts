import { Agent, type ClientRequest, type IncomingMessage } from 'node:http';

/**
 * What the plane answered to `Prefer: wait` (RFC 7240), seen on the wire.
 * `sentByClient` counts lease requests on which the plane client set the header
 * itself; `sentByBench` those on which this agent had to add it.
 */
export interface PreferLog {
  leaseRequests: number;
  sentByClient: number;
  sentByBench: number;
  stripped: number;
  applied: number;
}

/** Below the plane client's 10 s request timeout, as the client itself must choose. */
export const BENCH_PREFER_WAIT_S = 8;

type AddRequest = (req: ClientRequest, options: unknown) => void;

/**
 * A keep-alive agent for the plane client that makes the bench's two gate
 * rows what they say: `blocking` makes sure every lease request asks
 * `Prefer: wait` (adding it only when the client did not), `poll` removes it
 * so the gate runs on `waitMs` alone. It never changes anything else.
 */
export function preferAgent(mode: 'blocking' | 'poll'): { agent: Agent; log: PreferLog } {
  const log: PreferLog = {
    leaseRequests: 0,
    sentByClient: 0,
    sentByBench: 0,
    stripped: 0,
    applied: 0,
  };
  const agent = new Agent({ keepAlive: true });
  const addRequest = (agent as unknown as { addRequest: AddRequest }).addRequest.bind(agent);
  const wrapped: AddRequest = (req, options) => {
    if (req.method === 'POST' && req.path.endsWith('/coordination/lease')) {
      log.leaseRequests += 1;
      const asked = req.getHeader('prefer') !== undefined;
      if (mode === 'blocking' && asked) log.sentByClient += 1;
      if (mode === 'blocking' && !asked) {
        req.setHeader('prefer', `wait=${BENCH_PREFER_WAIT_S}`);
        log.sentByBench += 1;
      }
      if (mode === 'poll' && asked) {
        req.removeHeader('prefer');
        log.stripped += 1;
      }
      req.once('response', (res: IncomingMessage) => {
        if (res.headers['preference-applied'] !== undefined) log.applied += 1;
      });
    }
    addRequest(req, options);
  };
  Object.assign(agent, { addRequest: wrapped });
  return { agent, log };
}

/** The row's name says which behaviour the kernel gave, as its headers told. */
export function blockingLabel(log: PreferLog): string {
  const who =
    log.sentByBench > 0
      ? 'added by the bench: the client does not send it yet'
      : 'sent by the client';
  if (log.applied === 0)
    return `gate, Prefer: wait (${who}); kernel ignored it, so this is the waitMs fallback`;
  return `gate, blocking acquire (Prefer: wait ${who}; kernel applied it to ${log.applied} of ${log.leaseRequests} asks)`;
}
