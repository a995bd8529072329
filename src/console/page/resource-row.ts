import type { Resources } from './api.js';
import { agentCell } from './deploys.js';
import { h, nameCode } from './dom.js';
import { breakGlassBadge, frozenBadge, withdrawButton } from './levers.js';
import { etaWords, placeInLine } from './words.js';

/**
 * One resource's row in the console's table: its holder, its queue and its levers.
 * `now`: the kernel's clock as the page reckons it between polls.
 */

type ResourceRow = Resources['resources'][number];

export function resourceRow(r: ResourceRow, now: () => number): HTMLTableRowElement {
  const lease = r.lease;
  const holder = holderCell(r);
  const queue = queueCell(r, now);
  const revokeButton = leverButtons(r);
  return h(
    'tr',
    { 'data-resource': r.resource },
    h('td', {}, nameCode(r.resource), frozenBadge(r, now()) ?? '', breakGlassBadge(r, now()) ?? ''),
    h('td', { class: 'holder', 'data-label': 'Holder' }, holder),
    h('td', { 'data-label': 'Fence' }, lease?.fence === undefined ? '—' : String(lease.fence)),
    h('td', {
      class: 'left',
      'data-label': 'Lease ends in',
      'data-expires': String(lease?.expiresAtMs ?? ''),
    }),
    h('td', { class: 'waiting', 'data-label': 'Queue' }, queue),
    h('td', {}, revokeButton),
  );
}

/** Who holds it (and since when), who it is kept for, or "free". */
function holderCell(r: ResourceRow): HTMLElement {
  const lease = r.lease;
  return lease
    ? h(
        'span',
        {},
        agentCell(lease.holder, lease.deploy),
        lease.grantedAtMs === undefined
          ? ''
          : h('span', { class: 'since', 'data-since': String(lease.grantedAtMs) }),
      )
    : r.reserved
      ? h('span', {}, 'reserved for ', nameCode(r.reserved.holder), ' (next in line)')
      : h('span', { class: 'muted' }, 'free');
}

/** The waiters in their order, each with its wait and its break-glass lever. */
function queueCell(r: ResourceRow, now: () => number): HTMLElement {
  if (!r.queue.length) return h('span', { class: 'muted' }, 'nobody waits');
  return h(
    'ol',
    { class: 'queue' },
    ...r.queue.map((w) =>
      h(
        'li',
        { 'data-position': String(w.position + 1) },
        h('span', { class: 'place' }, `${placeInLine(w.position)} `),
        agentCell(w.actorDid, w.deploy),
        waitedFor(r.resource, w.actorDid, w.sinceMs, now),
        w.etaMs === undefined ? '' : h('span', { class: 'eta' }, ` · ${etaWords(w.etaMs)}`),
        ' ',
        // The lever for a hotfix that must not wait behind a freeze or the queue.
        h(
          'button',
          {
            type: 'button',
            class: 'break-glass-lever',
            'data-resource': r.resource,
            'data-agent': w.actorDid,
          },
          'Break glass…',
        ),
      ),
    ),
  );
}

/** The row's levers: revoke the lease, freeze or unfreeze, approve or withdraw a break-glass. */
function leverButtons(r: ResourceRow): HTMLElement {
  return h(
    'span',
    { class: 'levers' },
    r.lease
      ? h('button', { type: 'button', class: 'revoke', 'data-resource': r.resource }, 'Revoke…')
      : '',
    r.frozen
      ? h('button', { type: 'button', class: 'unfreeze', 'data-resource': r.resource }, 'Unfreeze')
      : h('button', { type: 'button', class: 'freeze', 'data-resource': r.resource }, 'Freeze…'),
    r.breakGlass?.pending
      ? h(
          'button',
          {
            type: 'button',
            class: 'approve-break-glass',
            'data-resource': r.resource,
            'data-agent': r.breakGlass.actorDid,
          },
          'Approve break-glass…',
        )
      : '',
    withdrawButton(r),
  );
}

/**
 * How long a waiter has waited: since it first asked, by the kernel's clock; from a
 * kernel that does not say (an older release), since this page first saw it.
 */
const firstSeen = new Map<string, number>();
function waitedFor(
  resource: string,
  did: string,
  sinceMs: number | undefined,
  now: () => number,
): Node {
  const id = `${resource} ${did}`;
  if (sinceMs === undefined && !firstSeen.has(id)) firstSeen.set(id, now());
  return h('span', {
    class: 'since',
    'data-since': String(sinceMs ?? firstSeen.get(id)),
    'data-prefix': 'waiting ',
  });
}
