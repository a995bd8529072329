import { agentCell } from './deploys.js';
import { duration, h, nameCode, timeCell } from './dom.js';
import type { Hold, TimelineEntry } from './holds.js';
import { breakGlassWords, freezeWords, holdEnded } from './words.js';

/**
 * The history table: every hold the ledger window shows, newest first, with how
 * it ended, and the freezes beside them; filtered by a text the operator types
 * (resource, holder or reason). Plane text goes in as text only.
 */

interface Row {
  atMs: number;
  resource: string;
  cells: () => Node[];
  text: string;
}

export function historyRows(
  holds: Map<string, Hold[]>,
  entries: readonly TimelineEntry[],
  nowMs: number,
  filter: string,
  limit = 500,
): { rows: Node[]; more: number } {
  const rows: Row[] = [];
  for (const [resource, list] of holds) {
    for (const hold of list) {
      const end = hold.endMs ?? nowMs;
      const ended = holdEnded(hold);
      rows.push({
        atMs: hold.startMs,
        resource,
        text: `${resource} ${hold.holder} ${ended}`.toLowerCase(),
        cells: () => [
          h('td', {}, nameCode(resource)),
          h(
            'td',
            { 'data-label': 'Holder' },
            agentCell(hold.holder, hold.deploy),
            // Past the step before by descent: the kernel's signed word of which commit did it.
            hold.promotedVia
              ? h(
                  'span',
                  { class: 'run' },
                  ' · promoted via ',
                  h('code', {}, hold.promotedVia.slice(0, 12)),
                )
              : '',
          ),
          h('td', { 'data-label': 'Fence' }, String(hold.fence)),
          timeCell(hold.startMs, { 'data-label': 'Start' }),
          h('td', { 'data-label': 'Duration' }, duration(end - hold.startMs)),
          h('td', { class: `ended ${hold.end}`, 'data-label': 'Ended' }, ended),
        ],
      });
    }
  }
  for (const e of entries) {
    if (e.kind === 'break_glass' || e.kind === 'break_glass_withdrawn') {
      rows.push(breakGlassRow(e));
      continue;
    }
    if (e.kind !== 'freeze' && e.kind !== 'unfreeze') continue;
    const what = freezeWords(e);
    rows.push({
      atMs: e.tsMs,
      resource: e.resource,
      text: `${e.resource} ${what}`.toLowerCase(),
      cells: () => [
        h('td', {}, nameCode(e.resource)),
        h('td', { class: 'muted' }, '—'),
        h('td', {}, '—'),
        timeCell(e.tsMs, { 'data-label': 'At' }),
        h('td', {}, '—'),
        h('td', { class: `ended ${e.kind}`, 'data-label': 'What' }, what),
      ],
    });
  }
  const wanted = filter.trim().toLowerCase();
  const matching = rows
    .filter((r) => !wanted || r.text.includes(wanted))
    .sort((a, b) => b.atMs - a.atMs);
  // A page at a time: a long history must not push the levers below out of reach.
  const shown = matching.slice(0, limit);
  if (shown.length === 0) {
    return {
      rows: [
        h('tr', {}, h('td', { colspan: '6', class: 'muted' }, 'Nothing in the ledger matches.')),
      ],
      more: 0,
    };
  }
  return {
    rows: shown.map((r) => h('tr', { 'data-resource': r.resource }, ...r.cells())),
    more: matching.length - shown.length,
  };
}

/** A break-glass, in red: who let which job through a freeze once, who approved it, why. */
function breakGlassRow(e: TimelineEntry): Row {
  const what = breakGlassWords(e);
  return {
    atMs: e.tsMs,
    resource: e.resource,
    text: `${e.resource} ${e.actorDid} break-glass ${what}`.toLowerCase(),
    cells: () => [
      h('td', {}, nameCode(e.resource)),
      h('td', { 'data-label': 'Let through' }, agentCell(e.actorDid, undefined)),
      h('td', {}, '—'),
      timeCell(e.tsMs, { 'data-label': 'At' }),
      h('td', {}, '—'),
      h(
        'td',
        { class: `ended ${e.kind}`, 'data-label': 'What' },
        e.kind === 'break_glass_withdrawn'
          ? ''
          : h('span', { class: 'glass-mark', 'aria-hidden': 'true' }),
        what,
      ),
    ],
  };
}
