import type { ResourceChart } from './chart-data.js';
import { duration, h, localClock, localDay, svg } from './dom.js';
import { roundTicks, shorten } from './timeline.js';

/**
 * The charts, drawn by hand as SVG (no library, no CDN: two small charts per resource need
 * neither). Colours are the page's CSS variables through classes (console.css), so both
 * schemes read; each chart is drawn 1:1 for the width it has, so its text keeps its size
 * on a phone. Every text from the plane goes in as a text node (dom.ts).
 */

const TOP = 16;
const PLOT = 96;
const AXIS = 18;
const LEFT = 44;

/** One figure per resource: holds and waits over the span, then deploys per day. */
export function drawCharts(
  charts: readonly ResourceChart[],
  at: { nowMs: number; spanMs: number; width: number },
): HTMLElement[] {
  if (charts.length === 0)
    return [h('p', { class: 'muted' }, 'Nothing to chart yet: no hold in the ledger read.')];
  return charts.map((chart) =>
    h(
      'figure',
      { class: 'chart', 'data-resource': chart.resource },
      h(
        'figcaption',
        {},
        h('code', {}, shorten(chart.resource, Math.floor(at.width / 8))),
        ` · ${chart.holds.length} hold${chart.holds.length === 1 ? '' : 's'}, longest ${duration(chart.maxMs)}`,
      ),
      timesChart(chart, at),
      deploysChart(chart, at.width),
    ),
  );
}

/** Hold times as bars and waits as dots at their start, freezes shaded, break-glasses marked. */
function timesChart(
  chart: ResourceChart,
  at: { nowMs: number; spanMs: number; width: number },
): SVGSVGElement {
  const { nowMs, spanMs, width } = at;
  const fromMs = nowMs - spanMs;
  const right = width - 8;
  const height = TOP + PLOT + AXIS;
  const x = (t: number) => LEFT + ((Math.max(t, fromMs) - fromMs) / spanMs) * (right - LEFT);
  const top = Math.max(chart.maxMs, 60_000);
  const y = (ms: number) => TOP + PLOT - (ms / top) * PLOT;
  const base = TOP + PLOT;
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: 'chart times',
    role: 'img',
    'aria-label': `Hold and wait times of ${chart.resource}`,
  });
  for (const f of chart.freezes) {
    const x1 = x(f.fromMs);
    root.append(
      svg(
        'rect',
        { x: x1, y: TOP, width: Math.max(2, x(f.toMs) - x1), height: PLOT, class: 'freeze-band' },
        svg('title', {}, `${f.text} (${when(f.fromMs)} to ${when(f.toMs)})`),
      ),
    );
  }
  root.append(
    svg('line', { x1: LEFT, x2: right, y1: base, y2: base, class: 'grid' }),
    svg('line', { x1: LEFT, x2: right, y1: TOP, y2: TOP, class: 'grid' }),
    svg('text', { x: LEFT - 4, y: TOP + 4, class: 'tick end' }, duration(top)),
    svg('text', { x: LEFT - 4, y: base, class: 'tick end' }, '0'),
    ...ticks(x, { fromMs, nowMs, top: TOP, bottom: base, px: right - LEFT }),
    svg('text', { x: right, y: height - 4, class: 'tick end' }, 'now'),
  );
  root.append(...pointShapes(chart, { x, y, base }));
  return root;
}

/** A bar per hold, a dot per wait (their words in their titles), a line and tip per break-glass. */
function pointShapes(
  chart: ResourceChart,
  at: { x: (t: number) => number; y: (ms: number) => number; base: number },
): SVGElement[] {
  const { x, y, base } = at;
  const shapes: SVGElement[] = [];
  for (const p of chart.holds) {
    const x1 = x(p.atMs);
    shapes.push(
      svg(
        'rect',
        {
          x: x1 - 1.5,
          y: y(p.ms),
          width: 3,
          height: Math.max(1, base - y(p.ms)),
          class: 'hold-bar',
        },
        svg('title', {}, `${p.holder}: held ${duration(p.ms)} from ${localClock(p.atMs)}`),
      ),
    );
  }
  for (const p of chart.waits) {
    shapes.push(
      svg(
        'circle',
        { cx: x(p.atMs), cy: y(p.ms), r: 3, class: 'wait-dot' },
        svg(
          'title',
          {},
          `${p.holder}: waited at most ${duration(p.ms)}, granted ${localClock(p.atMs)}`,
        ),
      ),
    );
  }
  for (const g of chart.breakGlass) {
    const gx = x(g.atMs);
    shapes.push(
      svg('line', { x1: gx, x2: gx, y1: TOP, y2: base, class: 'glass-line' }),
      svg(
        'path',
        { d: `M${gx - 5} ${TOP} L${gx + 5} ${TOP} L${gx} ${TOP + 8} Z`, class: 'glass-tip' },
        svg('title', {}, g.text),
      ),
    );
  }
  return shapes;
}

/** Deploys (grants) per day, a labelled bar each, today last. */
function deploysChart(chart: ResourceChart, width: number): SVGSVGElement {
  const days = chart.deploysPerDay;
  const height = 84;
  const most = Math.max(1, ...days.map((d) => d.count));
  const slot = (width - LEFT - 8) / Math.max(1, days.length);
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: 'chart deploys',
    role: 'img',
    'aria-label': `Deploys per day of ${chart.resource}`,
  });
  root.append(
    svg('text', { x: 0, y: 12, class: 'tick' }, 'deploys'),
    svg('text', { x: 0, y: 26, class: 'tick' }, 'per day'),
  );
  days.forEach((d, i) => {
    const barHeight = (d.count / most) * 44;
    const bx = LEFT + i * slot + slot * 0.2;
    const bw = Math.max(2, slot * 0.6);
    root.append(
      svg(
        'rect',
        {
          x: bx,
          y: 60 - barHeight,
          width: bw,
          height: Math.max(d.count ? 1 : 0, barHeight),
          class: 'deploy-bar',
        },
        svg('title', {}, `${d.count} deploy${d.count === 1 ? '' : 's'} on ${localDay(d.dayMs)}`),
      ),
      svg('text', { x: bx + bw / 2, y: 56 - barHeight, class: 'tick mid' }, String(d.count)),
      svg('text', { x: bx + bw / 2, y: 76, class: 'tick mid' }, localDay(d.dayMs)),
    );
  });
  return root;
}

/** Grid lines at round local times (midnights over a week), each labelled, clear of "now". */
function ticks(
  x: (t: number) => number,
  at: { fromMs: number; nowMs: number; top: number; bottom: number; px: number },
): SVGElement[] {
  const { ticks: times, step } = roundTicks(at.fromMs, at.nowMs, at.px);
  return times
    .filter((t) => x(at.nowMs) - x(t) > 36 && x(t) - LEFT > 8)
    .flatMap((t) => [
      svg('line', { x1: x(t), x2: x(t), y1: at.top, y2: at.bottom, class: 'grid' }),
      svg(
        'text',
        { x: x(t), y: at.bottom + 14, class: 'tick mid' },
        step >= 86_400_000 ? localDay(t) : localClock(t, false),
      ),
    ]);
}

/** A time as the page's zone reads it, its day too (a week's freeze may span days). */
const when = (ms: number) => `${localDay(ms)} ${localClock(ms, false)}`;
