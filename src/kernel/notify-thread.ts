import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, parentPort, workerData } from 'node:worker_threads';
import type { PlaneService } from './plane-service.js';
import type { KernelEvent } from './rules.js';
import {
  Notifier,
  NotifyError,
  checkNotifyUrl,
  isNotified,
  type NotifierHealth,
} from './notify.js';

/**
 * Notifications off the kernel's thread. The kernel answers every request on one thread,
 * and notifications made there (ids, text, JSON, HMAC, the POSTs) cost it about a sixth of
 * its time (`npm run bench -- notify`: 63 → 76 µs of CPU per request). Here that thread
 * only hands the changes over, as they are, in one message per HANDOFF_MS at most (47 → 47
 * µs); a worker thread runs the `Notifier` (queues, batches, retries, signatures) at a
 * lower priority and reports its health back when it changes, which `/readyz` shows.
 *
 * The worker is its own bundle, dist/notify/ (built from src/bin/notify.ts), found beside
 * the CLI's; run from source (the tests) it is the built one, as the console's page is.
 */

/** The shortest time between two hand-overs to the worker. */
const HANDOFF_MS = 10;

type ToWorker = { type: 'events'; events: KernelEvent[] } | { type: 'close'; graceMs: number };
type FromWorker =
  | { type: 'health'; received: number; health: NotifierHealth }
  | { type: 'log'; line: string }
  | { type: 'closed' };

interface WorkerSettings {
  urls: string[];
  secret: string;
}

export interface NotifierThreadOptions extends WorkerSettings {
  log?: (line: string) => void;
  /** The worker's module; by default dist/notify/index.js. */
  workerFile?: string;
}

/** The built worker: dist/cli/*.js → dist/notify/index.js; src/kernel/*.ts → dist/notify/index.js. */
export function notifyWorkerFile(moduleUrl: string = import.meta.url): string {
  const path = fileURLToPath(moduleUrl);
  const here = dirname(path);
  const file = path.endsWith('.ts')
    ? join(here, '..', '..', 'dist', 'notify', 'index.js')
    : join(here, '..', 'notify', 'index.js');
  if (!existsSync(file)) {
    throw new NotifyError(
      `lease-gate cannot find its notification worker ${file}; is dist/ complete?`,
    );
  }
  return file;
}

export class NotifierThread {
  private readonly worker: Worker;
  private readonly log: (line: string) => void;
  private readonly urls: number;
  private batch: KernelEvent[] = [];
  private flushing = false;
  private lastFlush = -Infinity;
  /** Changes handed to the worker, and the worker's last report of what it has and how it does. */
  private posted = 0;
  private report: { received: number; health: NotifierHealth } = {
    received: 0,
    health: {
      ok: true,
      delivered: 0,
      requests: 0,
      pending: 0,
      failed: 0,
      dropped: 0,
      recentFailures: [],
    },
  };
  /** Set when the worker has stopped on its own: what it was given since is lost, and counted. */
  private stopped: string | undefined;
  private lost = 0;
  private closed: Promise<void> | undefined;
  private readonly exited: Promise<void>;

  constructor(options: NotifierThreadOptions) {
    // Checked here, before the kernel starts, so a wrong URL is a usage error, not a worker's.
    const urls = options.urls.map((url) => checkNotifyUrl(url));
    this.urls = urls.length;
    this.log = options.log ?? (() => undefined);
    const settings: WorkerSettings = { urls, secret: options.secret };
    this.worker = new Worker(options.workerFile ?? notifyWorkerFile(), { workerData: settings });
    // Never what keeps the kernel's process alive: close() ends it, and so does the process.
    this.worker.unref();
    this.worker.on('message', (message: FromWorker) => this.heard(message));
    this.worker.on('error', (error) => this.fail(error.message));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.closed) this.fail(`it exited (code ${code})`);
        resolve();
      }),
    );
  }

  attach(service: Pick<PlaneService, 'onRecorded'>): { health(): Record<string, unknown> } {
    service.onRecorded((events) => this.push(events));
    return { health: () => ({ notifications: this.health() }) };
  }

  /**
   * Called after a commit, on the answer's path: keeps the changes that are notified and
   * hands them over on the next turn, one message for all that one turn committed.
   */
  push(events: readonly KernelEvent[]): void {
    for (const event of events) if (isNotified(event)) this.batch.push(event);
    if (this.flushing || this.batch.length === 0) return;
    this.flushing = true;
    // A message costs both threads far more than a change in it: after a quiet spell the
    // changes go on the next turn, under load at most one message every HANDOFF_MS.
    const wait = this.lastFlush + HANDOFF_MS - performance.now();
    if (wait <= 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), wait);
  }

  health(): NotifierHealth {
    const { received, health } = this.report;
    const inTransit = this.stopped ? 0 : this.posted - received + this.batch.length;
    const dropped = health.dropped + this.lost;
    return {
      ...health,
      ok: health.ok && dropped === 0 && !this.stopped,
      pending: health.pending + inTransit * this.urls,
      dropped,
      ...(this.stopped ? { stopped: this.stopped } : {}),
    };
  }

  /** Hands over what is left, lets the worker end its deliveries (or `graceMs`), then ends it. */
  close(graceMs = 2_000): Promise<void> {
    this.closed ??= (async () => {
      this.flush();
      if (!this.stopped) {
        const done = new Promise<void>((resolve) =>
          this.worker.on('message', (m: FromWorker) => m.type === 'closed' && resolve()),
        );
        this.worker.postMessage({ type: 'close', graceMs } satisfies ToWorker);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          done,
          this.exited,
          new Promise((resolve) => (timer = setTimeout(resolve, graceMs + 1_000))),
        ]);
        clearTimeout(timer);
      }
      await this.worker.terminate();
    })();
    return this.closed;
  }

  private flush(): void {
    this.flushing = false;
    this.lastFlush = performance.now();
    if (this.batch.length === 0) return;
    const events = this.batch;
    this.batch = [];
    if (this.stopped) {
      this.lost += events.length * this.urls;
      return;
    }
    this.posted += events.length;
    this.worker.postMessage({ type: 'events', events } satisfies ToWorker);
  }

  private heard(message: FromWorker): void {
    if (message.type === 'health') this.report = message;
    else if (message.type === 'log') this.log(message.line);
  }

  private fail(why: string): void {
    if (this.stopped || this.closed) return;
    this.stopped = `the notification thread stopped: ${why}`;
    // What it held is gone with it: counted as dropped, as a URL too far behind drops.
    const { received, health } = this.report;
    this.lost += health.pending + (this.posted - received) * this.urls;
    this.report = { received: this.posted, health: { ...health, pending: 0 } };
    this.log(`kernel: ${this.stopped}; changes are no longer notified (see /readyz)`);
  }
}

/**
 * The worker's side (dist/notify/): a `Notifier` fed by the kernel's messages. Its health
 * goes back at most once a turn, and only when it changed (a delivery ended, drops began).
 */
export function serveNotifications(): void {
  const port = parentPort;
  const settings = workerData as WorkerSettings | undefined;
  if (!port || !settings || !Array.isArray(settings.urls) || typeof settings.secret !== 'string') {
    throw new NotifyError("The notification worker runs only as the kernel's worker thread.");
  }
  lowerPriority();
  let received = 0;
  let reporting = false;
  const sendHealth = () =>
    port.postMessage({ type: 'health', received, health: notifier.health() } satisfies FromWorker);
  const report = () => {
    if (reporting) return;
    reporting = true;
    setImmediate(() => {
      reporting = false;
      sendHealth();
    });
  };
  const notifier = new Notifier({
    urls: settings.urls,
    secret: settings.secret,
    log: (line) => port.postMessage({ type: 'log', line } satisfies FromWorker),
    onChange: report,
  });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'events') {
      for (const event of message.events) notifier.push(event);
      received += message.events.length;
      return;
    }
    void notifier.close(message.graceMs).then(() => {
      sendHealth();
      port.postMessage({ type: 'closed' } satisfies FromWorker);
      port.close();
    });
  });
}

/**
 * On Linux a nice value belongs to a thread, and `setPriority(0, …)` sets the calling
 * thread's: the worker yields to the thread that answers when the cores are busy (its news
 * then wait a little and go in larger batches). Elsewhere it would lower the whole process,
 * so it is left alone. Lowering one's own priority needs no privilege; a refusal changes nothing.
 */
function lowerPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, 10);
  } catch {
    // Best effort: the worker runs at the kernel's priority.
  }
}
