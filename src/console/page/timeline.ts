import { clock, duration, svg } from './dom.js';
import type { Hold } from './holds.js';

const WIDTH = 900;
const LABEL = 190;
const ROW = 30;
const AXIS = 22;

/** One row per resource over the last `spanMs`; lapses and revocations marked. */
export function drawTimeline(
  holds: Map<string, Hold[]>,
  nowMs: number,
  spanMs: number,
): SVGSVGElement {
  const resources = [...holds.keys()].sort();
  const height = AXIS + ROW * Math.max(1, resources.length);
  const from = nowMs - spanMs;
  const x = (t: number) => LABEL + ((Math.max(t, from) - from) / spanMs) * (WIDTH - LABEL - 10);
  const chart = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    class: 'timeline',
    role: 'img',
    'aria-label': 'Holds per resource',
  });
  for (let i = 0; i <= 4; i += 1) {
    const t = from + (spanMs * i) / 4;
    chart.append(
      svg('line', { x1: x(t), x2: x(t), y1: 0, y2: height, class: 'grid' }),
      svg(
        'text',
        { x: x(t), y: 14, class: i === 4 ? 'tick last' : 'tick' },
        i === 4 ? 'now' : spanMs > SPANS.day / 2 ? `${dayOf(t)} ${clock(t).slice(0, 5)}` : clock(t),
      ),
    );
  }
  if (resources.length === 0) {
    chart.append(svg('text', { x: LABEL, y: AXIS + 20, class: 'empty' }, 'No holds yet.'));
  }
  resources.forEach((resource, row) => {
    const y = AXIS + row * ROW;
    chart.append(svg('text', { x: 4, y: y + 19, class: 'label' }, resource));
    for (const hold of holds.get(resource) ?? []) {
      // Nothing is drawn past now (a clock a little ahead of the page's is clamped).
      const end = Math.min(hold.endMs ?? nowMs, nowMs);
      if (end < from) continue;
      // At least 2 px wide so a short hold shows, grown leftwards so it never crosses now.
      const right = x(end);
      const left = Math.min(x(hold.startMs), right - 2);
      const width = right - left;
      const text = `${hold.holder}\nfence ${hold.fence}, from ${clock(hold.startMs)} for ${duration(end - hold.startMs)}\n${hold.end === 'open' ? 'still held' : `ended: ${hold.end}`}${hold.reason ? ` (${hold.reason})` : ''}`;
      chart.append(
        svg(
          'rect',
          { x: left, y: y + 6, width, height: ROW - 12, rx: 3, class: `hold ${hold.end}` },
          svg('title', {}, text),
        ),
      );
      // A mark sits inside the chart, at the end of its hold or just before now.
      const tip = Math.min(left + width, x(nowMs) - 12);
      if (hold.end === 'lapse') {
        chart.append(svg('circle', { cx: tip + 6, cy: y + 15, r: 4, class: 'mark lapse' }));
      } else if (hold.end === 'revoke') {
        chart.append(svg('text', { x: tip + 2, y: y + 20, class: 'mark revoke' }, '✕'));
      }
    }
  });
  return chart;
}

/** 24 h labels in UTC, like the clock: "12-01". */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(5, 10);

export const SPANS = {
  quarter: 900_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
} as const;
