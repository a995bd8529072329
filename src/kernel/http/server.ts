import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { causeText, LeaseGateError } from '../../errors.js';
import { Ledger } from '../../ledger/ledger.js';
import { ApiRefusal, type AppRequest, type AppResponse } from './api.js';
import { createKernelApp, metricsOf, type App, type MetricsOptions } from './app.js';
import { answerClientError, escape, noticeFor, refusalOf, type NoticeLog } from './wire.js';
import type { Authorizer } from '../auth/authorize.js';
import { ResourceTable, type KernelEvent } from '../rules/core.js';
import { KernelNames } from './names.js';
import { KernelService } from '../service/service.js';
import type { PlaneService } from '../service/plane-service.js';
import { memoryStore, type KernelStore } from '../store/store.js';
import type { FreezeWindows } from '../service/windows.js';
import { createConsole } from '../../console/serve.js';
import type { GitHubCompare } from '../../github/compare.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
/** How long a closing kernel lets requests in flight finish before it cuts their connections. */
export const CLOSE_GRACE_MS = 5_000;
/** What of a refused body is read and dropped before the answer goes (and the connection closes). */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/** The console's hook: answers its own pages and returns true, or returns false. */
export type ConsoleHook = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface KernelServerOptions extends MetricsOptions {
  /** The rules' settings (TTL, lock-delay, windows, randomness) and the states they keep. */
  table?: ResourceTable | undefined;
  /** Where the log is kept; memory by default. */
  store?: KernelStore | undefined;
  /** Every call must carry this Bearer key when set. */
  key?: string | undefined;
  /** The only key that may revoke; revoking is off without one. */
  adminKey?: string | undefined;
  /** A second operator's key: a break-glass is used only once it approved it. */
  approverKey?: string | undefined;
  /** OIDC identities (globs over `sub`) that may approve a break-glass too. */
  approverOidc?: readonly string[] | undefined;
  /** Who may act as whom (OIDC tokens, scoped keys); the shared `key` alone when not given. */
  auth?: Authorizer | undefined;
  /** Epoch-aligned monotonic milliseconds. */
  now?: () => number;
  /** Told of every durable change, in order. */
  onEvents?: (events: KernelEvent[]) => void;
  /** The ledger the log feeds; an unsigned one by default. */
  ledger?: Ledger | undefined;
  /** Where one-line notices go (aborted bodies, failed lapse writes, refused credentials). */
  log?: NoticeLog | undefined;
  /** The operator's console and playground; the bundled pages by default. */
  console?: ConsoleHook | undefined;
  /** A service opened elsewhere (the PostgreSQL store's); the options above then only shape the app. */
  service?: PlaneService | undefined;
  /** The URLs clients reach it by beyond loopback (`--public-url`, a TLS proxy's `https://` one). */
  publicUrls?: readonly string[] | undefined;
  /** Recurring freeze windows, shown in the overview (the table or service applies them). */
  windows?: FreezeWindows | undefined;
  /** The promotion order (`--promote`): each resource and the one a commit must complete first. */
  promote?: Map<string, string> | undefined;
  /** GitHub's compare: with it, a descendant of a commit that completed the step passes too. */
  compare?: GitHubCompare | undefined;
  /** Told once the service is open: a notifier subscribes here; its health joins `/readyz`. */
  onService?: ((service: PlaneService) => { health(): Record<string, unknown> }) | undefined;
}

/** Epoch milliseconds that never go backwards, whatever the wall clock does. */
export function epochMonotonic(): () => number {
  const wallStart = Date.now();
  const perfStart = performance.now();
  return () => Math.round(wallStart + performance.now() - perfStart);
}

/** Opens the service (replaying its store) and builds the app on it. */
export async function openKernel(
  options: KernelServerOptions,
): Promise<{ service: PlaneService; app: App; warning?: string | undefined }> {
  const names = new KernelNames(options.publicUrls);
  if (options.service) {
    const { service } = options;
    return { service, app: appOf(service, options, names) };
  }
  const table = options.table ?? new ResourceTable();
  const log = options.log ?? ((line: string) => console.error(line));
  const { service, warning } = await KernelService.open({
    table,
    store: options.store ?? memoryStore(),
    ledger: options.ledger ?? new Ledger(),
    now: options.now ?? epochMonotonic(),
    onEvents: options.onEvents,
    log,
  });
  return { service, app: appOf(service, options, names), warning };
}

function appOf(service: PlaneService, options: KernelServerOptions, names: KernelNames): App {
  const extra = options.onService?.(service);
  return createKernelApp({
    service,
    key: options.key,
    adminKey: options.adminKey,
    approverKey: options.approverKey,
    approverOidc: options.approverOidc,
    auth: options.auth,
    names,
    windows: options.windows,
    promote: options.promote,
    compare: options.compare,
    health: extra && (() => extra.health()),
    ...metricsOf(options),
  });
}

/** A node:http handler for the kernel; the service opens in the background. */
export function createKernelHandler(options: KernelServerOptions) {
  const opened = openKernel(options);
  const log = options.log ?? ((line: string) => console.error(line));
  let handle: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    if (!handle) handle = nodeAdapter((await opened).app, log, options.console ?? createConsole());
    return handle(req, res);
  };
  return Object.assign(handler, { opened });
}

/** The thin adapter: node's request to the app's, the app's answer to node's response. */
export function nodeAdapter(app: App, log: NoticeLog, consoleHook?: ConsoleHook) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const note = noticeFor(req, res, log);
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    // A foreign Host reaches the app, which answers 421, before any console page.
    if (!app.serves(path) && app.names.hostAllowed(req.headers.host) && consoleHook?.(req, res))
      return;
    const request = new NodeRequest(req, res, path, mark < 0 ? '' : url.slice(mark + 1));
    try {
      const answer = await app(request);
      const refusal = refusalOf(answer);
      if (refusal) note(`kernel: refused ${req.method} ${escape(path)}: ${refusal}`);
      await send(res, answer, () => request.signal);
    } catch (error) {
      if (error instanceof ClientGone) {
        note(`kernel: the client went away before its ${req.method} ${escape(path)} body ended`);
        return;
      }
      // One of ours (a store that cannot read, say) by its message; a bug with its stack.
      const known = error instanceof LeaseGateError && error.code !== 'internal';
      const stack = error instanceof Error ? error.stack : undefined;
      const why = known ? error.message : (stack ?? causeText(error));
      note(`kernel: ${req.method} ${escape(path)} failed: ${why}`);
      if (!res.headersSent) {
        await send(res, {
          status: 500,
          body: { ok: false, reason: 'internal', message: 'The kernel failed; see its log.' },
        });
      } else {
        res.destroy();
      }
    }
  };
}

export interface RunningKernel {
  url: string;
  server: Server;
  service: PlaneService;
  /** Said once at start (a torn last record that was cut off). */
  warning?: string | undefined;
  close(): Promise<void>;
}

export async function startKernelServer(
  options: KernelServerOptions & {
    host?: string;
    port?: number;
    /** How long close() lets requests in flight finish (CLOSE_GRACE_MS). */
    closeGraceMs?: number;
  },
): Promise<RunningKernel> {
  const { service, app, warning } = await openKernel(options);
  const log = options.log ?? ((line: string) => console.error(line));
  const handle = nodeAdapter(app, log, options.console ?? createConsole());
  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
  } catch (error) {
    // Not listening (a port taken): the service goes too, or its pool, timers and listener
    // would keep a kernel that serves nothing running, and its supervisor would see it up.
    app.close();
    await service.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  app.names.listening(`http://${host}:${address.port}`);
  return {
    url: `http://${host}:${address.port}`,
    server,
    service,
    warning,
    close: async () => {
      app.close();
      await new Promise<void>((resolve) => {
        // server.close() waits for every connection with a request in flight, and a client
        // that stalls mid-request would hold a closing kernel (and its supervisor) for
        // minutes: after the grace what is left is cut, not awaited.
        const cut = setTimeout(
          () => server.closeAllConnections(),
          options.closeGraceMs ?? CLOSE_GRACE_MS,
        );
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      await service.close();
    },
  };
}

/**
 * The app's view of one node request. A class, so `signal` is a getter on the
 * prototype: a getter in a per-request object literal makes V8 allocate an
 * accessor pair in the old generation, which then held the request's whole
 * graph (req, res, their buffers) through every young collection until the
 * next full one, and most of the kernel's collector time went to that.
 */
class NodeRequest implements AppRequest {
  readonly method: string;
  readonly query: URLSearchParams;
  readonly headers: Record<string, string | undefined>;
  private gone: AbortSignal | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly path: string,
    search: string,
  ) {
    this.method = req.method ?? 'GET';
    this.query = new URLSearchParams(search);
    this.headers = req.headers as Record<string, string | undefined>;
  }

  json(): Promise<unknown> {
    return readJson(this.req, this.res);
  }

  /** Built on first use: most answers are immediate and never look at it. */
  get signal(): AbortSignal {
    return (this.gone ??= goneSignal(this.res));
  }
}

/** The client went away before its body ended: nothing to answer, logged as such. */
class ClientGone extends LeaseGateError<'client_gone'> {
  override name = 'ClientGone';
  constructor() {
    super('the client went away before its body ended', { code: 'client_gone' });
  }
}

/** Aborted when the client goes away before its answer is finished (also if it already has). */
function goneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const abort = () => res.writableFinished || controller.abort();
  if (res.closed || res.destroyed) abort();
  else res.once('close', abort);
  return controller.signal;
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    await readLimited(req, res, 0).catch((error: unknown) => {
      if (error instanceof ClientGone) throw error;
    });
    throw new ApiRefusal('Send the body as Content-Type: application/json.', {
      status: 415,
      reason: 'unsupported_media_type',
    });
  }
  const text = await readLimited(req, res, BODY_LIMIT_BYTES);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiRefusal('The body is not valid JSON.', { status: 400, reason: 'bad_json' });
  }
}

/**
 * Reads the body up to `limit` bytes. A body refused (past the limit, or not read at all)
 * is still read and dropped up to DRAIN_LIMIT_BYTES, so that a client that sends all of its
 * body before it reads gets the answer; past that the answer goes at once. Either way the
 * connection closes after the answer: what is left of the body never reaches a next request.
 */
function readLimited(req: IncomingMessage, res: ServerResponse, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = () => {
      res.setHeader('connection', 'close');
      req.removeAllListeners('data').pause();
      reject(
        new ApiRefusal(`The body is over ${limit} bytes.`, {
          status: 413,
          reason: 'payload_too_large',
        }),
      );
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > limit + DRAIN_LIMIT_BYTES) refuse();
    });
    req.on('error', () => reject(new ClientGone()));
    req.on('close', () => req.complete || reject(new ClientGone()));
    req.on('end', () => {
      if (size > limit) refuse();
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

const isStream = (body: unknown): body is AsyncIterable<string> =>
  typeof body === 'object' && body !== null && Symbol.asyncIterator in body;

/** JSON, plain text for a string (the checkpoint, the public key), or JSON in pieces. */
async function send(
  res: ServerResponse,
  answer: AppResponse,
  signal?: () => AbortSignal,
): Promise<void> {
  const { status, body, headers } = answer;
  if (isStream(body)) {
    res.writeHead(status, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...headers,
    });
    const gone = signal?.();
    for await (const piece of body) {
      if (gone?.aborted) return;
      if (!res.write(piece)) await drainedOrClosed(res);
    }
    res.end();
    return;
  }
  const plain = typeof body === 'string';
  const text = plain ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': plain ? 'text/plain; charset=utf-8' : 'application/json',
    // Every API answer: keyed ones carry holders, queues and the ledger, never for a cache.
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Resolves on the first of drain or close, leaving no listener behind for the next wait. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
