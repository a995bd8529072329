import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, parentPort, workerData } from 'node:worker_threads';
import type { LedgerEntry } from '../../ledger/entry.js';
import { errorMessage } from '../../errors.js';
import type { PlaneService } from '../service/plane-service.js';
import { Notifier, type NotifierHealth } from './notify.js';
import { isNotified } from './notification.js';
import { NotifyError, checkNotifyUrl } from './notify-config.js';
import {
  RESUME_BOUNDS,
  planResume,
  writeCursors,
  type Cursors,
  type LedgerView,
  type ResumeBounds,
} from './notify-cursor.js';

/**
 * Notifications off the kernel's thread. The kernel answers every request on one thread,
 * and notifications made there (ids, text, JSON, HMAC, the POSTs) cost it about a sixth of
 * its time (`npm run bench -- notify`: 63 → 76 µs of CPU per request). Here that thread
 * only hands the changes over, as they are, in one message per HANDOFF_MS at most (47 → 47
 * µs); a worker thread runs the `Notifier` (queues, batches, retries, signatures) at a
 * lower priority and reports its health back when it changes, which `/readyz` shows.
 *
 * The worker is its own bundle, dist/notify/ (built from src/bin/notify.ts), found beside
 * the CLI's; run from source (the tests), it is src/bin/notify.ts through tsx, as helper
 * processes are (src/lease/helpers.ts).
 *
 * With a cursor file (a file kernel, notify-cursor.ts) the worker follows the ledger across
 * restarts: at start this thread reads the cursor and the entries after it from the ledger
 * and hands them over first (the worker never reads the ledger), live changes after them;
 * the worker moves the cursor when a delivery has ended, never when it was handed over.
 */

/** The shortest time between two hand-overs to the worker. */
const HANDOFF_MS = 10;

type ToWorker =
  | { type: 'events'; events: LedgerEntry[] }
  /** Where each URL starts (sent first, before any event, when there is a cursor file). */
  | { type: 'resume'; cursors: Cursors }
  | { type: 'close'; graceMs: number };
type FromWorker =
  | { type: 'ready' }
  | { type: 'health'; received: number; health: NotifierHealth }
  | { type: 'log'; line: string }
  | { type: 'closed' };

interface WorkerSettings {
  urls: string[];
  secret: string;
  /** Where the worker keeps its cursor (a file kernel); none: nothing is resumed. */
  cursorFile?: string | undefined;
}

export interface NotifierThreadOptions extends WorkerSettings {
  log?: (line: string) => void;
  /** The worker's module; by default dist/notify/index.js (from source, src/bin/notify.ts). */
  workerFile?: string;
  /** Epoch ms, for the age bound of what is sent again after a restart. */
  now?: () => number;
  resumeBounds?: ResumeBounds;
}

/** How long close() waits for a worker still starting (from source tsx compiles it first). */
const START_WAIT_MS = 30_000;

/**
 * The worker: dist/cli/*.js → dist/notify/index.js; from source (src/kernel/*.ts),
 * src/bin/notify.ts loaded through tsx's API (a worker takes no `--import` of its own).
 */
export function notifyWorker(moduleUrl: string = import.meta.url): {
  file: string;
  eval: boolean;
} {
  const path = fileURLToPath(moduleUrl);
  const here = dirname(path);
  if (path.endsWith('.ts')) {
    const root = join(here, '..', '..', '..');
    const entry = join(root, 'src', 'bin', 'notify.ts');
    const tsx = join(root, 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs');
    for (const file of [entry, tsx]) {
      if (!existsSync(file))
        throw new NotifyError(`lease-gate cannot find its notification worker ${file}.`);
    }
    const code = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then(({ tsImport }) => tsImport(${JSON.stringify(pathToFileURL(entry).href)}, ${JSON.stringify(moduleUrl)}));`;
    return { file: code, eval: true };
  }
  const file = join(here, '..', 'notify', 'index.js');
  if (!existsSync(file)) {
    throw new NotifyError(
      `lease-gate cannot find its notification worker ${file}; is dist/ complete?`,
    );
  }
  return { file, eval: false };
}

export class NotifierThread {
  private readonly worker: Worker;
  private readonly log: (line: string) => void;
  private readonly urls: number;
  private batch: LedgerEntry[] = [];
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
  private readonly started: Promise<void>;
  private readonly settings: WorkerSettings;
  /** Set while the backlog is read from the ledger: live changes wait behind it. */
  private resuming: Promise<void> | undefined;

  constructor(private readonly options: NotifierThreadOptions) {
    // Checked here, before the kernel starts, so a wrong URL is a usage error, not a worker's.
    const urls = options.urls.map((url) => checkNotifyUrl(url));
    this.urls = urls.length;
    this.log = options.log ?? (() => undefined);
    this.settings = { urls, secret: options.secret, cursorFile: options.cursorFile };
    const worker = options.workerFile ? { file: options.workerFile, eval: false } : notifyWorker();
    this.worker = new Worker(worker.file, { workerData: this.settings, eval: worker.eval });
    // Never what keeps the kernel's process alive: close() ends it, and so does the process.
    this.worker.unref();
    this.started = new Promise((resolve) =>
      this.worker.on('message', (m: FromWorker) => m.type === 'ready' && resolve()),
    );
    this.worker.on('message', (message: FromWorker) => this.heard(message));
    this.worker.on('error', (error: Error) => this.fail(error.message));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.closed) this.fail(`it exited (code ${code})`);
        resolve();
      }),
    );
  }

  /**
   * Subscribes to the service's entries; with a cursor file, first hands over what the
   * ledger holds after it (read now, before any later change is told, so none is missed
   * or told twice).
   */
  attach(service: Pick<PlaneService, 'onRecorded' | 'ledger'>): {
    health(): Record<string, unknown>;
  } {
    service.onRecorded((entries) => this.push(entries));
    if (this.settings.cursorFile) this.resuming = this.resume(service.ledger);
    return { health: () => ({ notifications: this.health() }) };
  }

  /**
   * Called after a commit, on the answer's path: keeps the changes that are notified and
   * hands them over on the next turn, one message for all that one turn committed.
   */
  push(entries: readonly LedgerEntry[]): void {
    for (const entry of entries) if (isNotified(entry)) this.batch.push(entry);
    if (this.flushing || this.resuming || this.batch.length === 0) return;
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
      await this.resuming;
      this.flush();
      if (!this.stopped) {
        // A worker still starting has not taken anything yet: its grace begins once it has.
        let wait: NodeJS.Timeout | undefined;
        await Promise.race([
          this.started,
          this.exited,
          new Promise((resolve) => (wait = setTimeout(resolve, START_WAIT_MS))),
        ]);
        clearTimeout(wait);
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

  /**
   * Reads where each URL stands and what it is owed (bounded), saves the starting points,
   * tells the worker, then hands over the backlog ahead of what was committed meanwhile.
   * If the ledger or the cursor cannot be read, notifications go on from the next change.
   */
  private async resume(ledger: LedgerView): Promise<void> {
    const file = this.settings.cursorFile!;
    try {
      const plan = await planResume(
        ledger,
        this.settings.urls,
        file,
        (this.options.now ?? Date.now)(),
        this.options.resumeBounds ?? RESUME_BOUNDS,
      );
      for (const note of plan.notes) this.log(`kernel: ${note}`);
      writeCursors(file, plan.cursors);
      this.worker.postMessage({ type: 'resume', cursors: plan.cursors } satisfies ToWorker);
      // What was committed since attach() is in the batch already: all after these.
      this.batch = [...plan.entries, ...this.batch];
    } catch (error) {
      this.log(
        `kernel: notifications could not resume from ${file}: ${errorMessage(error)}; they go on from the next change`,
      );
    } finally {
      this.resuming = undefined;
      this.push([]);
    }
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
    if (message.type === 'ready') return;
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
  const log = (line: string) => port.postMessage({ type: 'log', line } satisfies FromWorker);
  let received = 0;
  /** Set by the kernel's 'resume': where each URL stands, saved as each delivery ends. */
  let cursors: Cursors | undefined;
  let saveFailing = false;
  const save = () => {
    if (!cursors || !settings.cursorFile) return;
    try {
      writeCursors(settings.cursorFile, cursors);
      saveFailing = false;
    } catch (error) {
      // Nothing is lost: the next start sends again from the cursor last saved.
      if (!saveFailing)
        log(
          `kernel: cannot save the notification cursor ${settings.cursorFile}: ${errorMessage(error)}; a restart would send some notifications again`,
        );
      saveFailing = true;
    }
  };
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
    log,
    onChange: report,
    onDelivered: (url, last) => {
      if (!cursors) return;
      cursors[url] = { next: last.seq + 1, id: last.id };
      save();
    },
  });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'events') {
      for (const entry of message.events) notifier.push(entry);
      received += message.events.length;
      return;
    }
    if (message.type === 'resume') {
      cursors = { ...message.cursors };
      notifier.resumeAt(Object.fromEntries(Object.entries(cursors).map(([u, c]) => [u, c.next])));
      return;
    }
    void notifier.close(message.graceMs).then(() => {
      sendHealth();
      port.postMessage({ type: 'closed' } satisfies FromWorker);
      port.close();
    });
  });
  port.postMessage({ type: 'ready' } satisfies FromWorker);
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
