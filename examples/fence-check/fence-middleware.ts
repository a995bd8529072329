import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * lease-gate's reference fence checker for an HTTP service (docs/fencing.md): refuses a
 * request whose `Lease-Gate-Fence` is lower than the highest this service has seen for its
 * `Lease-Gate-Resource`, so a holder paused past its lease cannot write after a newer one.
 * The caller sends the fence `lease-gate run` gives its command as LEASE_GATE_FENCE.
 * Requests per resource run one at a time, so a check and the write after it are one step.
 * Plain TypeScript with erasable types only: delete the annotations for JavaScript.
 */
export function fenceCheck(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
) {
  const highest = new Map<string, number>();
  const queues = new Map<string, Promise<void>>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const resource = String(req.headers['lease-gate-resource'] ?? '');
    const text = String(req.headers['lease-gate-fence'] ?? '');
    const fence = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
    if (!resource || resource.length > 256 || !Number.isSafeInteger(fence)) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return void res.end('{"ok":false,"reason":"fence_missing"}');
    }
    const turn = (queues.get(resource) ?? Promise.resolve()).then(async () => {
      if (fence < (highest.get(resource) ?? 0)) {
        res.writeHead(409, { 'content-type': 'application/json' });
        return void res.end('{"ok":false,"reason":"stale_fence"}');
      }
      highest.set(resource, fence);
      await handler(req, res);
    });
    queues.set(
      resource,
      turn.catch(() => undefined),
    );
    return turn;
  };
}
