import { agentCell } from './deploys.js';
import { duration, h, nameCode, timeCell } from './dom.js';
import type { Hold, TimelineEntry } from './holds.js';

/**
 * The history table: every hold the ledger window shows, newest first, with how
 * it ended, and the freezes beside them; filtered by a text the operator types
 * (resource, holder or reason). Plane text goes in as text only.
 */

const ENDED: Record<Hold['end'], string> = {
  release: 'released',
  lapse: 'lapsed (stopped renewing)',
  // Only the kernel's admin key may revoke; an entry without `by` (no name given) names no operator.
  revoke: 'revoked by an operator',
  open: 'still held',
};

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
      const how = hold.end === 'revoke' && hold.by ? `revoked by ${hold.by}` : ENDED[hold.end];
      const ended = `${how}${hold.reason ? `: ${hold.reason}` : ''}`;
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
    if (e.kind === 'break_glass') {
      rows.push(breakGlassRow(e));
      continue;
    }
    if (e.kind !== 'freeze' && e.kind !== 'unfreeze') continue;
    // An unfreeze an operator made names them; one that came at the freeze's end says so.
    const what =
      e.kind === 'freeze'
        ? `frozen by ${e.actorDid}`
        : e.reason === 'unfrozen by an operator'
          ? `unfrozen by ${e.actorDid}`
          : `unfrozen (${e.reason ?? ''})`;
    const reason = e.kind === 'freeze' && e.reason ? `: ${e.reason}` : '';
    rows.push({
      atMs: e.tsMs,
      resource: e.resource,
      text: `${e.resource} ${what}${reason}`.toLowerCase(),
      cells: () => [
        h('td', {}, nameCode(e.resource)),
        h('td', { class: 'muted' }, '—'),
        h('td', {}, '—'),
        timeCell(e.tsMs, { 'data-label': 'At' }),
        h('td', {}, '—'),
        h('td', { class: `ended ${e.kind}`, 'data-label': 'What' }, `${what}${reason}`),
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
  const approved = e.approvedBy ? `, approved by ${e.approvedBy}` : '';
  const what = `BREAK-GLASS by ${e.by ?? 'an operator'}${approved}: ${e.reason ?? ''}`;
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
        { class: 'ended break_glass', 'data-label': 'What' },
        h('span', { class: 'glass-mark', 'aria-hidden': 'true' }),
        what,
      ),
    ],
  };
}
