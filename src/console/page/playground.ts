import { byId, clock, duration, h } from './dom.js';
import { LeaseKernel, type KernelEvent } from './kernel-core.js';
import { holdsFrom, type TimelineEntry } from './holds.js';
import { drawTimeline, widthOf } from './timeline.js';

/**
 * The kernel in the browser: simulated jobs contend for one resource through
 * the real core, on the page's clock. No server, no key, no request.
 */

const RESOURCE = 'lock:deploy/production';
const TTL_MS = 10_000;
const TICK_MS = 100;
const SPAN_MS = 120_000;

type JobState = 'waiting' | 'holding' | 'done' | 'killed' | 'lost';

interface Job {
  name: string;
  did: string;
  state: JobState;
  note: string;
  nextAskAt: number;
  leaseId?: string;
  renewAt: number;
  workMs: number;
  doneAt: number;
}

const start = Date.now() - performance.now();
const now = () => Math.round(start + performance.now());
const kernel = new LeaseKernel({ ttlMs: TTL_MS });
const jobs: Job[] = [];
const entries: TimelineEntry[] = [];
let made = 0;

function record(events: KernelEvent[]): void {
  for (const e of events) {
    const last = entries.at(-1);
    entries.push({ ...e, tsMs: Math.max(e.atMs, (last?.tsMs ?? 0) + 1) });
    const line = `${clock(e.atMs)} ${e.kind} fence ${e.fence} ${e.actorDid}${e.reason ? ` (${e.reason})` : ''}`;
    byId('events').prepend(h('li', {}, line));
  }
}

function startJob(): void {
  made += 1;
  const workMs = 6_000 + Math.round(Math.random() * 8_000);
  jobs.push({
    name: `job ${made}`,
    did: `did:web:playground.example:job:${made}`,
    state: 'waiting',
    note: 'asking',
    nextAskAt: now(),
    renewAt: 0,
    workMs,
    doneAt: 0,
  });
}

/** One ask of the core, as the gate's wait and keep loops would make it. */
function step(job: Job, at: number): void {
  if (job.state === 'waiting' && at >= job.nextAskAt) {
    const reply = kernel.lease(RESOURCE, job.did, at);
    if (reply.ok) {
      Object.assign(job, {
        state: 'holding',
        leaseId: reply.lease.id,
        renewAt: at + TTL_MS / 3,
        doneAt: at + job.workMs,
        note: `holds it, fence ${reply.lease.fence}`,
      });
    } else {
      const { waitMs, position } = refusal(reply);
      job.nextAskAt = at + waitMs;
      job.note = `waits ${duration(waitMs)} (position ${position + 1}) behind ${reply.reason === 'frozen' ? 'a freeze' : 'holder' in reply ? reply.holder : 'a newer run'}`;
    }
  } else if (job.state === 'holding' && at >= job.doneAt) {
    kernel.release(RESOURCE, job.did, at);
    Object.assign(job, { state: 'done', note: 'finished and released' });
  } else if (job.state === 'holding' && at >= job.renewAt) {
    const reply = kernel.lease(RESOURCE, job.did, at);
    if (reply.ok && reply.lease.id === job.leaseId) {
      job.renewAt = at + TTL_MS / 3;
      job.note = `renewed, fence ${reply.lease.fence}`;
    } else {
      // Not our lease any more (revoked): give back anything granted anew and stop.
      if (reply.ok) kernel.release(RESOURCE, job.did, at);
      Object.assign(job, { state: 'lost', note: 'lost its lease (revoked); stopped' });
    }
  }
}

function refusal(reply: object): { waitMs: number; position: number } {
  const r = reply as { stampede?: { waitMs?: number }; position?: number };
  return { waitMs: r.stampede?.waitMs ?? TTL_MS, position: r.position ?? 0 };
}

/** Each job's row as shown: rebuilt only when its state changes, its note updated in place. */
const shown: Array<{ row: HTMLLIElement; state: JobState; note: Text }> = [];

function render(at: number): void {
  const lease = kernel.status(RESOURCE, at);
  byId('holder').textContent = lease
    ? `${lease.holder} · fence ${lease.fence} · ${duration(lease.expiresAtMs - at)} left`
    : 'free';
  // A row replaced on every tick would swallow a click whose press and release straddle
  // the tick, so its buttons stay the same elements while its state does.
  jobs.forEach((job, i) => {
    const text = ` — ${job.note} `;
    const before = shown[i];
    if (before?.state === job.state) {
      if (before.note.data !== text) before.note.data = text;
      return;
    }
    const note = document.createTextNode(text);
    const row = h(
      'li',
      { 'data-job': job.name },
      h('span', { class: `state ${job.state}` }, job.state),
      ` ${job.name} `,
      h('code', {}, job.did),
      note,
      job.state === 'holding' || job.state === 'waiting'
        ? h('button', { type: 'button', 'data-kill': String(i) }, 'Kill')
        : null,
      job.state === 'holding'
        ? h('button', { type: 'button', 'data-finish': String(i) }, 'Finish')
        : null,
    );
    if (before) before.row.replaceWith(row);
    else byId('jobs').append(row);
    shown[i] = { row, state: job.state, note };
  });
  const container = byId('timeline');
  container.replaceChildren(drawTimeline(holdsFrom(entries), at, SPAN_MS, widthOf(container)));
}

function loop(): void {
  const at = now();
  for (const job of jobs) step(job, at);
  kernel.reclaim(at);
  record(kernel.drainEvents());
  render(at);
}

byId('start-job').addEventListener('click', () => {
  startJob();
  loop();
});
byId('revoke').addEventListener('click', () => {
  kernel.revoke(RESOURCE, 'revoked in the playground', now());
  loop();
});
byId('jobs').addEventListener('click', (event) => {
  const target = event.target as HTMLElement;
  const job = jobs[Number(target.dataset.kill ?? target.dataset.finish)];
  if (!job) return;
  if (target.dataset.kill !== undefined) {
    // Killed: it stops asking and never releases, so its lease lapses on its own.
    Object.assign(job, { state: 'killed', note: 'killed; its lease lapses on its own' });
  } else {
    job.doneAt = now();
  }
  loop();
});
setInterval(loop, TICK_MS);
loop();
document.body.dataset.readyMs = String(Math.round(performance.now()));
