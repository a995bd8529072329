import { ResourceTable, defaultLockDelayMs, type KernelEvent } from '../kernel/rules/core.js';
import { Ledger } from '../ledger/ledger.js';
import { startKernelServer } from '../kernel/http/server.js';
import { fileStore, memoryFenceFloor, memoryStore } from '../kernel/store/store.js';
import { LOCK_WAIT_MS, lockState } from '../kernel/store/state-lock.js';
import { StartRefusedError } from '../kernel/store/store-error.js';
import { isLoopbackHost } from '../plane/url.js';
import { PUBLIC_URL_FORM, parsePublicUrl } from '../kernel/http/names.js';
import { isAlive } from '../fs/processes.js';
import { redactUrl } from '../kernel/postgres/settings.js';
import { AUTH_OPTIONS, kernelAuth } from './kernel-auth.js';
import { kernelIdentity } from './kernel-identity.js';
import { kernelKeysOf } from './kernel-keys.js';
import { NotifyError, readNotifyFile, readNotifySecret } from '../kernel/notify/notify-config.js';
import { NotifierThread } from '../kernel/notify/notify-thread.js';
import { cursorFileOf } from '../kernel/notify/notify-cursor.js';
import { FreezeWindows, WindowsError } from '../kernel/service/windows.js';
import { STORE_OPTIONS, migrateCommand, openPostgres, postgresFrom } from './kernel-postgres.js';
import { EXIT, UsageError, parse, type Output } from './options.js';
import { promoteFlag } from './promote-flag.js';
import { compareFlag } from './compare-flag.js';
import { createHttpClient } from '../http/client.js';
import {
  HealthCheckError,
  HealthChecks,
  parseHealthCheck,
  type HealthCheck,
} from '../kernel/service/health-checks.js';

/** `lease-gate kernel`: the local plane on loopback, until SIGINT or SIGTERM. */
export async function kernel(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  if (args[0] === 'migrate') return migrateCommand(args.slice(1), io, env);
  try {
    return await serveKernel(args, io, env);
  } catch (error) {
    // Another kernel on this state, or a log that is not the history signed: one line, exit 2.
    if (!(error instanceof StartRefusedError)) throw error;
    io.err(`lease-gate kernel: ${error.message}`);
    return EXIT.usage;
  }
}

async function serveKernel(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, {
    ...STORE_OPTIONS,
    ...AUTH_OPTIONS,
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8787' },
    'ttl-ms': { type: 'string', default: '30000' },
    'lock-delay-ms': { type: 'string' },
    'data-prefix': { type: 'string' },
    /** The old name of --data-prefix: still accepted, with a warning. */
    state: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    'exit-with-pid': { type: 'string', default: '0' },
    'signing-key': { type: 'string' },
    ledger: { type: 'string' },
    'public-url': { type: 'string', multiple: true, default: [] },
    windows: { type: 'string' },
    notify: { type: 'string', multiple: true },
    'notify-secret-file': { type: 'string' },
    'notify-file': { type: 'string' },
    'health-check': { type: 'string', multiple: true, default: [] },
    'health-interval-ms': { type: 'string', default: '10000' },
    'health-freeze-held': { type: 'boolean', default: false },
    promote: { type: 'string', multiple: true, default: [] },
    'github-token-file': { type: 'string' },
    'approver-oidc': { type: 'string', multiple: true, default: [] },
    'github-api-url': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65_535) {
    throw new UsageError(
      `Invalid --port '${values.port}'. Expected a port number from 0 to 65535 (0 picks a free one).`,
    );
  }
  const ttlMs = Number(values['ttl-ms']);
  if (!/^\d+$/.test(values['ttl-ms']) || ttlMs < 100 || ttlMs > 3_600_000) {
    throw new UsageError(
      `Invalid --ttl-ms '${values['ttl-ms']}'. Expected milliseconds from 100 to 3600000.`,
    );
  }
  const lockDelayMs = parseLockDelay(values['lock-delay-ms'], ttlMs);
  const healthChecks = parseHealthChecks(values['health-check']);
  const healthIntervalMs = Number(values['health-interval-ms']);
  if (
    !/^\d+$/.test(values['health-interval-ms']) ||
    healthIntervalMs < 100 ||
    healthIntervalMs > 3_600_000
  ) {
    throw new UsageError(
      `Invalid --health-interval-ms '${values['health-interval-ms']}'. Expected milliseconds from 100 to 3600000.`,
    );
  }
  if (values['health-freeze-held'] && !healthChecks.length)
    throw new UsageError('--health-freeze-held needs a --health-check RESOURCE=URL.');
  const publicUrls = values['public-url'];
  const parsedUrls = publicUrls.map((url) => {
    const parsed = parsePublicUrl(url);
    if (!parsed)
      throw new UsageError(`Invalid --public-url '${url}'. Expected ${PUBLIC_URL_FORM}.`);
    return parsed;
  });
  const host = values.host.replace(/^\[(.*)\]$/, '$1');
  const { key, adminKey, approverKey } = kernelKeysOf(env, host, parsedUrls);
  const approverOidc = approverOidcOf(values['approver-oidc'], values['oidc-audience'], env);
  const promote = promoteFlag(values.promote);
  const github = await compareFlag(values, promote, env);
  if (!isLoopbackHost(host) && !key && !values.keys && !values['oidc-audience']) {
    throw new UsageError(
      `Refusing to listen on ${values.host} without a credential: set LEASE_GATE_KERNEL_KEY, --keys FILE or --oidc-audience, or keep --host on loopback.`,
    );
  }
  const credentials = await kernelAuth(values, key, {
    LEASE_GATE_ADMIN_KEY: adminKey,
    LEASE_GATE_APPROVER_KEY: approverKey,
  });
  const dataPrefix = dataPrefixFrom(values, io);
  const postgres = postgresFrom(values, env);
  if (postgres && (dataPrefix || values.ledger))
    throw new UsageError(
      '--store postgres keeps the log in the database: drop --data-prefix and --ledger.',
    );
  if (postgres && !values['signing-key'])
    throw new UsageError(
      '--store postgres needs --signing-key FILE: every replica signs the shared ledger with the same key.',
    );
  // The log is the kernel's one durable record; --data-prefix names where it lives.
  const logFile = values.ledger ?? (dataPrefix ? `${dataPrefix}.ledger.jsonl` : undefined);
  // One kernel at a time on a log (held until this process ends); PostgreSQL replicas share theirs.
  const lock = logFile
    ? await lockState(logFile, {
        waitMs: LOCK_WAIT_MS,
        now: Date.now,
        sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
      }).catch(async (error: unknown) => {
        await credentials.close();
        throw error;
      })
    : undefined;
  try {
    return await serve();
  } finally {
    await lock?.close();
  }

  async function serve(): Promise<number> {
    // First, before anything that must be stopped: the key a durable ledger keeps across restarts.
    const identity = kernelIdentity(values['signing-key'], logFile);
    const ledger = new Ledger(identity.key);
    // A memory kernel remembers no fence: its fences start from the clock, so they rise across restarts.
    const store = logFile ? fileStore(logFile) : memoryStore({ fenceFloor: memoryFenceFloor() });
    const log = (events: KernelEvent[]) => {
      if (values.quiet) return;
      for (const e of events) {
        if (e.kind === 'renew') continue;
        io.out(
          `${new Date(e.atMs).toISOString()} ${e.kind} ${e.resource} ${e.actorDid} ${e.leaseId} fence=${e.fence}${e.reason ? ` reason=${JSON.stringify(e.reason)}` : ''}`,
        );
      }
    };
    const windows = values.windows ? loadWindows(values.windows) : undefined;
    const notifier = notifierFrom(
      values.notify ?? [],
      values['notify-secret-file'],
      values['notify-file'],
      io,
      // A file kernel's notifications resume from where they stood (a memory kernel's ledger
      // is gone at a restart, and PostgreSQL replicas keep no cursor).
      logFile && cursorFileOf(logFile),
    );
    const window = windows && ((r: string, now: number) => windows.activeFor(r, now));
    const checks = healthChecks.length
      ? new HealthChecks({
          checks: healthChecks,
          intervalMs: healthIntervalMs,
          freezeHeld: values['health-freeze-held'],
          http: createHttpClient({ env }),
          now: Date.now,
          sleep: (ms, signal) =>
            new Promise((done) => {
              const timer = setTimeout(done, ms);
              signal.addEventListener('abort', () => (clearTimeout(timer), done(undefined)), {
                once: true,
              });
            }),
          log: (line) => io.err(line),
        })
      : undefined;
    let running: Awaited<ReturnType<typeof startKernelServer>>;
    try {
      // Inside the try: a replica refused (another plane's key, no database) stops the rest too.
      const service = postgres
        ? await openPostgres(postgres, {
            ledger,
            ttlMs,
            lockDelayMs,
            window,
            onEvents: log,
            log: (line) => io.err(line),
          })
        : undefined;
      running = await startKernelServer({
        service,
        ledger,
        table: new ResourceTable({ ttlMs, lockDelayMs, window }),
        windows,
        onService:
          (notifier || checks) &&
          ((service) => {
            const told = [notifier?.attach(service), checks?.attach(service)];
            return {
              health: (): Record<string, unknown> =>
                Object.assign({}, ...told.map((t) => t?.health())) as Record<string, unknown>,
            };
          }),
        store,
        key,
        auth: credentials.auth,
        adminKey,
        approverKey,
        approverOidc,
        promote,
        compare: github?.compare,
        host,
        port,
        publicUrls,
        onEvents: log,
        log: (line) => io.err(line),
      });
    } catch (error) {
      // A start refused (its log is not the history signed) or failed: nothing may keep the process up.
      await credentials.close();
      await notifier?.close();
      await checks?.close();
      await github?.close();
      throw error;
    }
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve).once('SIGTERM', resolve);
      // A dry run's kernel goes when the job that started it goes.
      const parent = Number(values['exit-with-pid']);
      if (parent > 0) setInterval(() => isAlive(parent) || resolve(), 2_000).unref();
    });
    io.out(`lease-gate kernel listening on ${running.url}`);
    if (running.warning) io.err(`warning: ${running.warning}`);
    if (credentials.summary && !values.quiet) io.out(credentials.summary);
    if (postgres && !values.quiet)
      io.out(`store: PostgreSQL ${redactUrl(postgres.url)}, schema ${postgres.schema}`);
    if (!values.quiet) io.out(identity.line);
    if (windows && !values.quiet) io.out(`freeze windows: ${windows.size} from ${values.windows}`);
    if (approverOidc && !values.quiet)
      io.out(`break-glass approvers: OIDC tokens whose sub matches ${approverOidc.join(' or ')}`);
    if (promote && !values.quiet)
      io.out(
        `promotion order: ${[...promote].map(([to, from]) => `${from} -> ${to}`).join(', ')}${github ? ` (descendants too, by GitHub's compare at ${github.apiUrl})` : ''}`,
      );
    if (checks && !values.quiet)
      io.out(
        `health checks: ${healthChecks.length}, every ${healthIntervalMs} ms${values['health-freeze-held'] ? ', a failure while held freezes' : ''}`,
      );
    await stopped;
    // The checks stop first: none may freeze or unfreeze once the service is closing.
    await checks?.close();
    await running.close();
    await credentials.close();
    await notifier?.close();
    await github?.close();
    return EXIT.done;
  }
}

/**
 * `--approver-oidc PATTERN` (repeatable): OIDC identities that may approve a break-glass, a
 * glob over the verified token's `sub` (`repo:acme/ops:environment:break-glass`), so a
 * reviewer-protected workflow can be the second approver. Tokens are verified as every
 * token is, which needs --oidc-audience; the admin key opens what they approve.
 */
function approverOidcOf(
  patterns: readonly string[],
  audience: string | undefined,
  env: NodeJS.ProcessEnv,
): string[] | undefined {
  if (!patterns.length) return undefined;
  if (audience === undefined)
    throw new UsageError(
      "--approver-oidc needs --oidc-audience AUD (and --policy FILE): the kernel verifies the approvers' tokens as it verifies the jobs'.",
    );
  if (!env.LEASE_GATE_ADMIN_KEY)
    throw new UsageError(
      '--approver-oidc approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.',
    );
  for (const pattern of patterns) {
    // A pattern names its owner outright (no glob there), so '*', 'repo:*' or '?*' cannot
    // make every repository that can mint a token for the audience an approver.
    if (!/^[\x21-\x7e]{1,256}$/.test(pattern) || !/^repo:[A-Za-z0-9][A-Za-z0-9-]*\//.test(pattern))
      throw new UsageError(
        `Invalid --approver-oidc '${pattern.slice(0, 80)}'. Expected a glob over a token's sub that starts with repo:OWNER/, such as repo:acme/ops:environment:break-glass (printable, no spaces).`,
      );
  }
  return [...patterns];
}

/** `--health-check RESOURCE=URL`, repeated; one check per resource. */
function parseHealthChecks(specs: readonly string[]): HealthCheck[] {
  const checks: HealthCheck[] = [];
  for (const spec of specs) {
    let check: HealthCheck;
    try {
      check = parseHealthCheck(spec);
    } catch (error) {
      if (error instanceof HealthCheckError) throw new UsageError(error.message);
      throw error;
    }
    if (checks.some((c) => c.resource === check.resource))
      throw new UsageError(`--health-check names ${check.resource} twice: one check per resource.`);
    checks.push(check);
  }
  return checks;
}

/** `--lock-delay-ms`: 0 (none) up to a lease lifetime; one renewal interval plus grace by default. */
function parseLockDelay(raw: string | undefined, ttlMs: number): number {
  if (raw === undefined) return defaultLockDelayMs(ttlMs);
  const ms = Number(raw);
  if (!/^\d{1,10}$/.test(raw) || ms > ttlMs) {
    throw new UsageError(
      `Invalid --lock-delay-ms '${raw}'. Expected milliseconds from 0 to the lease lifetime (--ttl-ms, ${ttlMs}).`,
    );
  }
  return ms;
}

function loadWindows(file: string): FreezeWindows {
  try {
    return FreezeWindows.fromFile(file);
  } catch (error) {
    if (error instanceof WindowsError) throw new UsageError(error.message);
    throw error;
  }
}

function notifierFrom(
  flagUrls: string[],
  flagSecretFile: string | undefined,
  file: string | undefined,
  io: Output,
  cursorFile: string | undefined,
) {
  let fromFile: ReturnType<typeof readNotifyFile> = { urls: [] };
  try {
    if (file) fromFile = readNotifyFile(file);
  } catch (error) {
    if (error instanceof NotifyError) throw new UsageError(error.message);
    throw error;
  }
  const urls = [...fromFile.urls, ...flagUrls];
  const secretFile = flagSecretFile ?? fromFile.secretFile;
  if (urls.length === 0) {
    if (secretFile) throw new UsageError('--notify-secret-file needs at least one --notify URL.');
    return undefined;
  }
  if (!secretFile) {
    throw new UsageError('--notify needs --notify-secret-file FILE: every delivery is signed.');
  }
  try {
    return new NotifierThread({
      urls,
      secret: readNotifySecret(secretFile),
      cursorFile,
      log: (line) => io.err(line),
    });
  } catch (error) {
    if (error instanceof NotifyError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * --data-prefix PATH: the kernel's log is PATH.ledger.jsonl. It was called --state, a
 * name for a file that holds no state; that name still works and says so once.
 */
function dataPrefixFrom(values: { 'data-prefix'?: string; state?: string }, io: Output) {
  if (values.state === undefined) return values['data-prefix'];
  if (values['data-prefix'] !== undefined)
    throw new UsageError('Give --data-prefix only: --state is its old name.');
  io.err(
    `lease-gate kernel: --state is now --data-prefix (the log is ${values.state}.ledger.jsonl); the old name will go in a later major release.`,
  );
  return values.state;
}
