import { duration, utcStamp } from './words.js';

/**
 * Builds DOM from trusted tag names and untrusted text: text always goes in as
 * a text node, never as markup, so a DID or a reason from the plane is inert.
 */

type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  append(element, children);
  return element;
}

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

/** A chart's root: sized in px, scaled by its viewBox, and read out by its label. */
export function svgFigure(
  width: number,
  height: number,
  className: string,
  label: string,
): SVGSVGElement {
  return svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: className,
    role: 'img',
    'aria-label': label,
  });
}

function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'number' ? String(child) : child);
  }
}

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the element it expects, as with querySelector<T>
export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

// The console's words are shared with the CLI (words.ts); the page imports them from here too.
export { duration, utcStamp };

export const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

const pad = (n: number) => String(n).padStart(2, '0');

/** "14:05:09" in the browser's own time zone (24 h). */
export function localClock(ms: number, seconds = true): string {
  const d = new Date(ms);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return seconds ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** "12-03" in the browser's own time zone. */
export const localDay = (ms: number) => {
  const d = new Date(ms);
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
};

/** The browser's zone as people read it: "UTC+05:30", or "UTC". */
export function zoneName(ms: number): string {
  const offset = -new Date(ms).getTimezoneOffset();
  if (offset === 0) return 'UTC';
  const sign = offset > 0 ? '+' : '-';
  return `UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** A local time for a table cell, the exact UTC time on hover. */
export function timeCell(ms: number, attrs: Record<string, string> = {}): HTMLTableCellElement {
  return h('td', { ...attrs, title: utcStamp(ms) }, `${localClock(ms)} ${zoneName(ms)}`);
}

/**
 * "02:00:37 UTC" when `ms` falls on the viewer's today, else "2026-12-10 02:00:37 UTC": a
 * freeze that ends in three days must not read as if it ended tonight.
 */
export function localWhen(ms: number, nowMs: number): string {
  const d = new Date(ms);
  const today = new Date(nowMs);
  const sameDay =
    d.getFullYear() === today.getFullYear() &&
    d.getMonth() === today.getMonth() &&
    d.getDate() === today.getDate();
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} `;
  return `${sameDay ? '' : day}${localClock(ms)} ${zoneName(ms)}`;
}

/**
 * A resource name or a DID as code that wraps only between its parts (after `:`, `/`, `.`,
 * `-` or `_`), never inside one: `lock:deploy/production` may break after `deploy/`, not
 * in the middle of `production`. Text nodes only, as everywhere.
 */
export function nameCode(text: string): HTMLElement {
  const code = h('code', { class: 'name' });
  for (const part of text.split(/(?<=[:/._-])/)) {
    if (code.childNodes.length) code.append(document.createElement('wbr'));
    code.append(part);
  }
  return code;
}

/**
 * Makes `parent`'s children exactly `wanted`, moving as few as it can: a row that stays
 * where it was is never taken out, so a lever's form open under it keeps its focus and
 * what was typed while the rows around it change.
 */
export function syncChildren(parent: Element, wanted: Element[]): void {
  wanted.forEach((child, i) => {
    const there = parent.children[i];
    if (there !== child) parent.insertBefore(child, there ?? null);
  });
  while (parent.children.length > wanted.length) parent.lastElementChild!.remove();
}
