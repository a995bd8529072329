import { clock, duration, localClock, localDay, svg, svgFigure, utcStamp } from './dom.js';
import type { Hold } from './holds.js';

/** Below this width a row's label sits on a line of its own, above its bar. */
const NARROW = 560;
const AXIS = 22;
/** A tick label's room: ticks are at least this far apart. */
const TICK_GAP = 80;

/** Round steps for the ticks, the smallest that leaves each label its room is used. */
const STEPS = [
  10_000,
  15_000,
  30_000,
  60_000,
  2 * 60_000,
  5 * 60_000,
  10 * 60_000,
  15 * 60_000,
  30 * 60_000,
  3_600_000,
  2 * 3_600_000,
  3 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  86_400_000,
  2 * 86_400_000,
];

/**
 * Ticks at round times of the browser's zone (a whole 5 minutes, a whole hour, a
 * midnight...) between `from` and `to`, at most one per TICK_GAP px of `px`.
 */
export function roundTicks(
  from: number,
  to: number,
  px: number,
): { ticks: number[]; step: number } {
  const most = Math.max(1, Math.floor(px / TICK_GAP));
  const step = STEPS.find((s) => (to - from) / s <= most) ?? STEPS.at(-1)!;
  // Local round times: shift by the zone's offset, round, shift back.
  const offset = -new Date(from).getTimezoneOffset() * 60_000;
  const ticks: number[] = [];
  for (let t = Math.ceil((from + offset) / step) * step - offset; t < to; t += step) {
    ticks.push(t);
  }
  return { ticks, step };
}

/**
 * One row per resource over the last `spanMs`, drawn for `width` px (the room it has,
 * drawn 1:1 so its text keeps its size on a phone); lapses and revocations marked.
 */
export function drawTimeline(
  holds: Map<string, Hold[]>,
  nowMs: number,
  spanMs: number,
  width = 900,
): SVGSVGElement {
  const narrow = width < NARROW;
  const label = narrow ? 4 : Math.min(190, Math.round(width * 0.22));
  const row = narrow ? 40 : 30;
  // Where a row's bar starts below the row's top: under its label on a phone.
  const bar = narrow ? 18 : 6;
  const resources = [...holds.keys()].sort();
  const height = AXIS + row * Math.max(1, resources.length);
  const from = nowMs - spanMs;
  const right = width - 10;
  const x = (t: number) => label + ((Math.max(t, from) - from) / spanMs) * (right - label);
  const chart = svgFigure(width, height, 'timeline', 'Holds per resource');
  chart.append(...axisShapes({ x, from, nowMs, spanMs, height, px: right - label }));
  if (resources.length === 0) {
    chart.append(svg('text', { x: label, y: AXIS + 20, class: 'empty' }, 'No holds yet.'));
  }
  resources.forEach((resource, i) => {
    const y = AXIS + i * row;
    const room = Math.floor(((narrow ? width : label) - 8) / LABEL_CHAR_PX);
    chart.append(
      svg(
        'text',
        { x: 4, y: narrow ? y + 13 : y + 19, class: 'label' },
        shorten(resource, room),
        svg('title', {}, resource),
      ),
    );
    for (const hold of holds.get(resource) ?? []) {
      chart.append(...holdShapes(hold, { x, from, nowMs, top: y + bar }));
    }
  });
  return chart;
}

/** The grid and labels of round times, then "now" (`px`: the width the times are drawn over). */
function axisShapes(at: {
  x: (t: number) => number;
  from: number;
  nowMs: number;
  spanMs: number;
  height: number;
  px: number;
}): SVGElement[] {
  const { x, nowMs, height } = at;
  const long = at.spanMs > 86_400_000 / 2;
  const { ticks, step } = roundTicks(at.from, nowMs, at.px);
  // A tick too close to "now" would print over it (a label starts at its tick, "now" ends at its).
  const clear = long ? 90 : 60;
  return [
    ...ticks
      .filter((t) => x(nowMs) - x(t) > clear)
      .flatMap((t) => [
        svg('line', { x1: x(t), x2: x(t), y1: 0, y2: height, class: 'grid' }),
        svg(
          'text',
          { x: x(t), y: 14, class: 'tick' },
          long ? `${localDay(t)} ${localClock(t, false)}` : localClock(t, step < 60_000),
          svg('title', {}, utcStamp(t)),
        ),
      ]),
    svg('line', { x1: x(nowMs), x2: x(nowMs), y1: 0, y2: height, class: 'grid' }),
    svg(
      'text',
      { x: x(nowMs), y: 14, class: 'tick last' },
      'now',
      svg('title', {}, utcStamp(nowMs)),
    ),
  ];
}

/** One hold's bar (its words in its title) and its mark when it lapsed or was revoked. */
function holdShapes(
  hold: Hold,
  at: { x: (t: number) => number; from: number; nowMs: number; top: number },
): SVGElement[] {
  const { x, nowMs, top } = at;
  // Nothing is drawn past now (a clock a little ahead of the page's is clamped).
  const end = Math.min(hold.endMs ?? nowMs, nowMs);
  if (end < at.from) return [];
  // At least 2 px wide so a short hold shows, grown leftwards so it never crosses now.
  const rightEdge = x(end);
  const left = Math.min(x(hold.startMs), rightEdge - 2);
  const barWidth = rightEdge - left;
  const text = `${hold.holder}\nfence ${hold.fence}, from ${localClock(hold.startMs)} (${clock(hold.startMs)} UTC) for ${duration(end - hold.startMs)}\n${hold.end === 'open' ? 'still held' : `ended: ${hold.end}`}${hold.reason ? ` (${hold.reason})` : ''}`;
  const shapes: SVGElement[] = [
    svg(
      'rect',
      { x: left, y: top, width: barWidth, height: 18, rx: 3, class: `hold ${hold.end}` },
      svg('title', {}, text),
    ),
  ];
  // A mark sits inside the chart, at the end of its hold or just before now.
  const tip = Math.min(left + barWidth, x(nowMs) - 12);
  if (hold.end === 'lapse') {
    shapes.push(svg('circle', { cx: tip + 6, cy: top + 9, r: 4, class: 'mark lapse' }));
  } else if (hold.end === 'revoke') {
    shapes.push(svg('text', { x: tip + 2, y: top + 14, class: 'mark revoke' }, '✕'));
  }
  return shapes;
}

/** A 12 px monospace character's width, about: how many of a label fit. */
const LABEL_CHAR_PX = 7.3;

/** A name cut in its middle to `room` characters: its start and its distinctive end stay. */
export function shorten(name: string, room: number): string {
  if (name.length <= room) return name;
  const keep = Math.max(2, room - 1);
  const head = Math.ceil(keep / 2);
  return `${name.slice(0, head)}…${name.slice(name.length - (keep - head))}`;
}

/** The width a timeline has in `container`: its content box, at least a phone's. */
export const widthOf = (container: HTMLElement) => Math.max(280, container.clientWidth);

export const SPANS = {
  quarter: 900_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
} as const;
