import { ResourceTable, type KernelEvent } from '../kernel/rules/core.js';
import { Ledger } from '../ledger/ledger.js';
import { startKernelServer } from '../kernel/http/server.js';
import { fileStore, memoryFenceFloor, memoryStore } from '../kernel/store/store.js';
import { LOCK_WAIT_MS, lockState } from '../kernel/store/state-lock.js';
import { isAlive } from '../fs/processes.js';
import { redactUrl } from '../kernel/postgres/settings.js';
import { NotifyError, readNotifyFile, readNotifySecret } from '../kernel/notify/notify-config.js';
import { NotifierThread } from '../kernel/notify/notify-thread.js';
import { cursorFileOf } from '../kernel/notify/notify-cursor.js';
import { FreezeWindows, WindowsError } from '../kernel/service/windows.js';
import { HealthChecks } from '../kernel/service/health-checks.js';
import { createHttpClient } from '../http/client.js';
import { kernelAuth, type KernelAuth } from './kernel-auth.js';
import { kernelIdentity, type KernelIdentity } from './kernel-identity.js';
import { openPostgres } from './kernel-postgres.js';
import { openCompare } from './compare-flag.js';
import type { KernelSettings } from './kernel-settings.js';
import type { LoggedOutput } from './log-output.js';
import { EXIT, UsageError } from './options.js';

/** What a start opened, each closed when the kernel stops (or fails to start). */
interface Opened {
  credentials: KernelAuth;
  github: Awaited<ReturnType<typeof openCompare>> | undefined;
  identity: KernelIdentity;
  windows: FreezeWindows | undefined;
  notifier: NotifierThread | undefined;
  checks: HealthChecks | undefined;
}

/**
 * Checked settings → the kernel, serving until SIGINT or SIGTERM (or the --exit-with-pid
 * process goes). Every file the settings name is read here, before it listens.
 */
export async function startKernel(
  settings: KernelSettings,
  io: LoggedOutput,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  for (const warning of settings.warnings) io.err(warning);
  // Checked before listening: a kernel that cannot ask GitHub would refuse every descendant.
  const github = settings.github && (await openCompare(settings.github, env));
  const { key, adminKey, approverKey } = settings.keys;
  const credentials = await kernelAuth(settings.auth, key, {
    LEASE_GATE_ADMIN_KEY: adminKey,
    LEASE_GATE_APPROVER_KEY: approverKey,
  }).catch(async (error: unknown) => {
    await github?.close();
    throw error;
  });
  // One kernel at a time on a log (held until this process ends); PostgreSQL replicas share theirs.
  const lock = settings.logFile
    ? await lockState(settings.logFile, {
        waitMs: LOCK_WAIT_MS,
        now: Date.now,
        sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
      }).catch(async (error: unknown) => {
        await credentials.close();
        await github?.close();
        throw error;
      })
    : undefined;
  try {
    return await serve(settings, { credentials, github }, io, env);
  } finally {
    await lock?.close();
  }
}

async function serve(
  settings: KernelSettings,
  given: Pick<Opened, 'credentials' | 'github'>,
  io: LoggedOutput,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // First, before anything that must be stopped: the key a durable ledger keeps across restarts.
  const identity = kernelIdentity(settings.signingKeyFile, settings.logFile);
  const windows = settings.windowsFile ? loadWindows(settings.windowsFile) : undefined;
  const notifier = notifierFrom(
    settings.notify,
    io,
    // A file kernel's notifications resume from where they stood (a memory kernel's ledger
    // is gone at a restart, and PostgreSQL replicas keep no cursor).
    settings.logFile && cursorFileOf(settings.logFile),
  );
  const opened: Opened = {
    ...given,
    identity,
    windows,
    notifier,
    checks: checksOf(settings, io, env),
  };
  let running: Awaited<ReturnType<typeof startKernelServer>>;
  try {
    running = await listen(settings, opened, io);
  } catch (error) {
    // A start refused (its log is not the history signed) or failed: nothing may keep the process up.
    await opened.credentials.close();
    await opened.notifier?.close();
    await opened.checks?.close();
    await opened.github?.close();
    throw error;
  }
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve).once('SIGTERM', resolve);
    // A dry run's kernel goes when the job that started it goes.
    const parent = settings.exitWithPid;
    if (parent > 0) setInterval(() => isAlive(parent) || resolve(), 2_000).unref();
  });
  io.outWith(`lease-gate kernel listening on ${running.url}`, { url: running.url });
  if (running.warning) io.err(`warning: ${running.warning}`);
  if (!settings.quiet) for (const line of startLines(settings, opened)) io.out(line);
  await stopped;
  // The checks stop first: none may freeze or unfreeze once the service is closing.
  await opened.checks?.close();
  await running.close();
  await opened.credentials.close();
  await opened.notifier?.close();
  await opened.github?.close();
  return EXIT.done;
}

/** The service (PostgreSQL's, or the in-process one) behind the HTTP server, listening. */
async function listen(settings: KernelSettings, opened: Opened, io: LoggedOutput) {
  const { ttlMs, lockDelayMs, postgres, logFile } = settings;
  const { windows, notifier, checks } = opened;
  const ledger = new Ledger(opened.identity.key);
  // A memory kernel remembers no fence: its fences start from the clock, so they rise across restarts.
  const store = logFile ? fileStore(logFile) : memoryStore({ fenceFloor: memoryFenceFloor() });
  const log = eventLog(settings.quiet, io);
  const window = windows && ((r: string, now: number) => windows.activeFor(r, now));
  // Inside the caller's try: a replica refused (another plane's key, no database) stops the rest too.
  const service = postgres
    ? await openPostgres(postgres, {
        ...{ ledger, ttlMs, lockDelayMs, window, onEvents: log },
        log: (line) => io.err(line),
      })
    : undefined;
  return startKernelServer({
    ...{ service, ledger, windows, store, onEvents: log, log: serverLog(io) },
    table: new ResourceTable({ ttlMs, lockDelayMs, window }),
    onService:
      (notifier || checks) &&
      ((service) => {
        const told = [notifier?.attach(service), checks?.attach(service)];
        return {
          health: (): Record<string, unknown> =>
            Object.assign({}, ...told.map((t) => t?.health())) as Record<string, unknown>,
        };
      }),
    ...settings.keys,
    auth: opened.credentials.auth,
    approverOidc: settings.approverOidc,
    promote: settings.promote,
    compare: opened.github?.compare,
    ...{ host: settings.host, port: settings.port, publicUrls: settings.publicUrls },
  });
}

/** The HTTP server's lines carry the request's id (and a JSON line has it as a field). */
const serverLog = (io: LoggedOutput) => (line: string, fields?: Readonly<Record<string, string>>) =>
  io.errWith(line, fields ?? {});

/** One stdout line per event but renewals, unless --quiet. */
function eventLog(quiet: boolean, io: LoggedOutput) {
  return (events: KernelEvent[]) => {
    if (quiet) return;
    for (const e of events) {
      if (e.kind === 'renew') continue;
      io.outWith(
        `${new Date(e.atMs).toISOString()} ${e.kind} ${e.resource} ${e.actorDid} ${e.leaseId} fence=${e.fence}${e.reason ? ` reason=${JSON.stringify(e.reason)}` : ''}`,
        {
          event: e.kind,
          resource: e.resource,
          did: e.actorDid,
          leaseId: e.leaseId,
          fence: e.fence,
          reason: e.reason,
        },
      );
    }
  };
}

/** What the start-up says after the listening line (not with --quiet). */
function startLines(settings: KernelSettings, opened: Opened): string[] {
  const { postgres, approverOidc, promote, healthChecks, healthIntervalMs } = settings;
  const { credentials, identity, windows, github, checks } = opened;
  const lines: string[] = [];
  if (credentials.summary) lines.push(credentials.summary);
  if (postgres)
    lines.push(`store: PostgreSQL ${redactUrl(postgres.url)}, schema ${postgres.schema}`);
  // A memory kernel's public key is a PEM block: one line each, as io.out escapes a line's newlines.
  lines.push(...identity.line.split('\n'));
  if (windows) lines.push(`freeze windows: ${windows.size} from ${settings.windowsFile}`);
  if (approverOidc)
    lines.push(`break-glass approvers: OIDC tokens whose sub matches ${approverOidc.join(' or ')}`);
  if (promote)
    lines.push(
      `promotion order: ${[...promote].map(([to, from]) => `${from} -> ${to}`).join(', ')}${github ? ` (descendants too, by GitHub's compare at ${github.apiUrl})` : ''}`,
    );
  if (checks)
    lines.push(
      `health checks: ${healthChecks.length}, every ${healthIntervalMs} ms${settings.healthFreezeHeld ? ', a failure while held freezes' : ''}`,
    );
  return lines;
}

function checksOf(settings: KernelSettings, io: LoggedOutput, env: NodeJS.ProcessEnv) {
  if (!settings.healthChecks.length) return undefined;
  return new HealthChecks({
    checks: settings.healthChecks,
    intervalMs: settings.healthIntervalMs,
    freezeHeld: settings.healthFreezeHeld,
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
  });
}

function loadWindows(file: string): FreezeWindows {
  try {
    return FreezeWindows.fromFile(file);
  } catch (error) {
    if (error instanceof WindowsError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** --notify and --notify-file's URLs, signed with the secret of --notify-secret-file or the file's. */
function notifierFrom(
  flags: KernelSettings['notify'],
  io: LoggedOutput,
  cursorFile: string | undefined,
): NotifierThread | undefined {
  let fromFile: ReturnType<typeof readNotifyFile> = { urls: [] };
  try {
    if (flags.file) fromFile = readNotifyFile(flags.file);
  } catch (error) {
    if (error instanceof NotifyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const urls = [...fromFile.urls, ...flags.urls];
  const secretFile = flags.secretFile ?? fromFile.secretFile;
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
    if (error instanceof NotifyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
