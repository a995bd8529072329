import { ApiError, PATHS, postAdmin, postLever, type Resources } from './api.js';
import { runUrlOf, type DeployFields } from './deploys.js';
import { byId, clock, duration, h, localWhen, nameCode, utcStamp } from './dom.js';
import { causeText } from '../../errors.js';

/**
 * The operator's levers beyond revoke: freeze and unfreeze (admin key, with a
 * confirmation that says what happens to the holder's command and the queue),
 * and what the kernel says of its freeze windows and notifications. Every
 * plane-supplied text goes in as text, never as markup.
 */

type Resource = Resources['resources'][number];

export async function freeze(
  resource: string,
  reason: string,
  forMs: number | undefined,
  by?: string,
) {
  const body: Record<string, unknown> = { resource, reason };
  if (by) body.by = by;
  if (forMs !== undefined) body.forMs = forMs;
  return (await postAdmin(PATHS.freeze, body)) as { until?: number | null };
}

export async function unfreeze(resource: string, by?: string) {
  const body = { resource, ...(by ? { by } : {}) };
  return (await postAdmin(PATHS.unfreeze, body)) as { changed?: boolean };
}

/** A break-glass (admin key): one job may be granted the resource once, past any freeze. */
export async function breakGlass(
  resource: string,
  actorDid: string,
  reason: string,
  forMs: number | undefined,
  by?: string,
) {
  const body: Record<string, unknown> = { resource, actorDid, reason };
  if (by) body.by = by;
  if (forMs !== undefined) body.forMs = forMs;
  return (await postAdmin(PATHS.breakGlass, body)) as { pending?: boolean; until?: number };
}

/** The second operator's approval, with the approver key (typed for this one call, never kept). */
export async function approveBreakGlass(
  resource: string,
  actorDid: string,
  by: string,
  approverKey: string,
) {
  const body = { resource, actorDid, by };
  return (await postLever(PATHS.approveBreakGlass, body, approverKey)) as { until?: number };
}

/** An operator withdraws the unused pass for `actorDid` (admin key): signed, so it stays gone. */
export async function withdrawBreakGlass(resource: string, actorDid: string, by?: string) {
  const body = { resource, actorDid, ...(by ? { by } : {}) };
  return (await postAdmin(PATHS.withdrawBreakGlass, body)) as { withdrawn?: boolean };
}

/** The row's lever that withdraws its unused pass (filled in: resource and the pass's DID). */
export function withdrawButton(r: Resource): Node | '' {
  if (!r.breakGlass) return '';
  return h(
    'button',
    {
      type: 'button',
      class: 'withdraw-break-glass',
      'data-resource': r.resource,
      'data-agent': r.breakGlass.actorDid,
    },
    'Withdraw break-glass…',
  );
}

/**
 * The break-glass mark: a red disc drawn by CSS and the word, so it shows on a machine with
 * no emoji font (an emoji there is an empty box).
 */
const glassMark = () => h('span', { class: 'glass-mark', 'aria-hidden': 'true' });

/** "● BREAK-GLASS open: did:… may be granted it once … until 18:00:00 UTC (opened by …): CVE" in red. */
export function breakGlassBadge(r: Resource, nowMs: number): Node | null {
  const pass = r.breakGlass;
  if (!pass) return null;
  const state = pass.pending ? 'waiting for a second operator to approve' : 'open';
  const approved = pass.approvedBy ? `, approved by ${pass.approvedBy}` : '';
  return h(
    'p',
    { class: 'break-glass', title: utcStamp(pass.untilMs) },
    glassMark(),
    `BREAK-GLASS ${state}: `,
    nameCode(pass.actorDid),
    ` may be granted it once, past any freeze and the queue, until ${localWhen(pass.untilMs, nowMs)} (opened by ${pass.by}${approved}): `,
    pass.reason,
  );
}

/** "frozen until 18:00:00 UTC: incident 42" (with the date when it ends on another day). */
export function frozenBadge(r: Resource, nowMs: number): Node | null {
  if (!r.frozen) return null;
  const until =
    r.frozen.untilMs === null ? 'until unfrozen' : `until ${localWhen(r.frozen.untilMs, nowMs)}`;
  return h(
    'p',
    {
      class: 'frozen',
      ...(r.frozen.untilMs === null ? {} : { title: utcStamp(r.frozen.untilMs) }),
    },
    `❄ frozen ${until}: `,
    r.frozen.reason,
  );
}

/** "did:… (acme/shop run #42)": who an agent is, in a sentence; the run from its URL else. */
export function agentWords(did: string, deploy?: DeployFields): string {
  const fromUrl = /\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)/.exec(runUrlOf(did, deploy) ?? '');
  const repository = deploy?.repository ?? fromUrl?.[1];
  const run =
    deploy?.runNumber !== undefined
      ? `run #${deploy.runNumber}`
      : fromUrl
        ? `run ${fromUrl[2]}`
        : undefined;
  const what = [repository, run].filter(Boolean).join(' ');
  return what ? `${did} (${what})` : did;
}

/** "Next in line: did:… (acme/shop run #43)." or "Nobody waits." */
function nextWords(r: Resource | undefined): string {
  const next = r?.queue[0];
  if (!next) return 'Nobody waits.';
  const more = r.queue.length - 1;
  return `Next in line: ${agentWords(next.actorDid, next.deploy)}${more ? `, then ${more} more` : ''}.`;
}

export type Lever =
  'revoke' | 'freeze' | 'unfreeze' | 'break-glass' | 'approve-break-glass' | 'withdraw-break-glass';

/** What a lever will do, said before it is done: to whom, their run, and who is next. */
export function consequence(lever: Lever, r: Resource | undefined): string {
  const holder = r?.lease ? agentWords(r.lease.holder, r.lease.deploy) : undefined;
  if (lever === 'withdraw-break-glass') {
    return r?.breakGlass
      ? `Withdraw the break-glass ${r.breakGlass.by} opened for ${r.breakGlass.actorDid}: it can no longer be used, and the ledger records that you withdrew it (a restart does not bring it back).`
      : 'No unused break-glass on this resource.';
  }
  if (lever === 'break-glass') {
    return `Recorded in the ledger in red, with your reason and name: the job named may be granted it once, past a freeze, a window, a health check's hold and the queue, for the time given (15m by default, at most 1h). ${holder ? `It still waits for the holder, ${holder}, to give back: break-glass never makes two holders.` : 'Nobody holds it.'} A kernel with a second approver waits for its approval first.`;
  }
  if (lever === 'approve-break-glass') {
    return r?.breakGlass?.pending
      ? `Approve the break-glass ${r.breakGlass.by} opened for ${r.breakGlass.actorDid}: it is then recorded with your name and may be used once. Type the approver key, and your name (not theirs).`
      : 'No break-glass waits for approval on this resource.';
  }
  if (lever === 'unfreeze') {
    return `Grants resume: the next in line is granted it when it asks again. ${nextWords(r)}`;
  }
  if (lever === 'revoke') {
    return holder
      ? `${holder} loses it now: a lease-gate run holding it stops its command (on-lost: terminate) or lets it finish and fails (warn); a job that asks again is refused. ${r?.queue.length ? `${nextWords(r)} It is granted it once the holder gave it back or a lock-delay passed.` : 'Nobody waits.'}`
      : 'Nobody holds it: nothing happens.';
  }
  const waiting = r?.queue.length ?? 0;
  const queue =
    waiting === 0 ? 'Nobody waits.' : `${waiting} waiting keep their place. ${nextWords(r)}`;
  return `${holder ? `The holder, ${holder}, keeps it: its command runs on and renews (revoke it too to stop it).` : 'Nobody holds it.'} Nobody new is granted it until it is unfrozen or the freeze ends; waiting jobs are told "frozen" and wait within their wait-timeout. ${queue}`;
}

/** The promotion order, one line per step: "lock:deploy/staging → lock:deploy/production". */
export function renderPromotions(resources: Resources | undefined): void {
  const steps = resources?.promotions ?? [];
  byId('promotion-section').hidden = steps.length === 0;
  byId('promotion-list').replaceChildren(
    ...steps.map((s) => h('li', {}, nameCode(s.from), ' → ', nameCode(s.to))),
  );
}

export function renderWindows(resources: Resources | undefined, now: number): void {
  const list = byId('windows-list');
  const windows = resources?.windows ?? [];
  byId('windows-section').hidden = windows.length === 0;
  list.replaceChildren(
    ...windows.map((w) => {
      const state =
        w.activeFromMs !== null && w.activeUntilMs !== null
          ? `in force, ${duration(w.activeUntilMs - now)} left`
          : w.nextStartMs !== null
            ? `next from ${new Date(w.nextStartMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`
            : 'no start within a year';
      return h(
        'li',
        {},
        h('strong', {}, w.name),
        ` (${w.schedule}, ${w.timeZone}, for ${duration(w.durationMs)}) on `,
        h('code', {}, w.resources.join(', ')),
        `: ${w.reason} — ${state}`,
      );
    }),
  );
}

/** The health gate's checks: each resource's URL and its last result (plane text, shown as text). */
export function renderHealthChecks(resources: Resources | undefined, now: number): void {
  const checks = resources?.healthChecks ?? [];
  byId('health-section').hidden = checks.length === 0;
  byId('health-list').replaceChildren(
    ...checks.map((c) => {
      const state = c.healthy === null ? 'not checked yet' : c.healthy ? 'passing' : 'failing';
      const when =
        c.checkedAtMs === null ? '' : `, checked ${duration(Math.max(0, now - c.checkedAtMs))} ago`;
      const item = h('li', {}, nameCode(c.resource), `: ${state} — ${c.reason ?? c.url}${when}`);
      if (c.healthy === false) item.classList.add('error');
      return item;
    }),
  );
}

export function renderNotifications(resources: Resources | undefined): void {
  const n = resources?.notifications;
  const section = byId('notifications-section');
  section.hidden = n === undefined;
  if (!n) return;
  const counts = `${n.delivered} delivered, ${n.pending} pending, ${n.failed} given up`;
  byId('notifications-summary').textContent = n.stopped
    ? `Stopped: ${n.stopped}. ${counts}, ${n.dropped} not sent.`
    : `${counts}${n.dropped ? `, ${n.dropped} dropped (queue full)` : ''}.`;
  byId('notifications-summary').classList.toggle('error', !n.ok);
  byId('notifications-failures').replaceChildren(
    ...n.recentFailures.map((f) =>
      h(
        'li',
        {},
        `${clock(f.atMs)} ${f.kind} on `,
        nameCode(f.resource),
        ` to ${f.url}: ${f.error}`,
      ),
    ),
  );
}

/** Why a refused lever was refused, in the operator's words. */
export function refusal(error: unknown): string {
  if (error instanceof ApiError && error.status === 403 && error.reason === 'forbidden') {
    return 'the kernel refused this admin key (it is not the LEASE_GATE_ADMIN_KEY the kernel was started with); it is forgotten, type it again';
  }
  return causeText(error);
}
