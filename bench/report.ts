import type { WaitRow } from './compare.js';
import type { Row } from './stats.js';

/** The performance page: written to docs/performance.md and printed, from one run. */

const fmt = (value: number | string) => {
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return '–';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
};

function waitTable(rows: WaitRow[]): string {
  const lines = [
    '| how the waiter waits | handovers | p50 ms | p95 ms | p99 ms | max ms | requests / waiter / s |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const samples = r.measured ? String(r.samples) : 'model';
    const cells = [r.p50Ms, r.p95Ms, r.p99Ms, r.maxMs, r.requestsPerWaiterPerSecond].map(fmt);
    lines.push(`| ${r.mode} | ${samples} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function sectionTables(rows: Row[]): string {
  const sections = [...new Set(rows.map((r) => r.section))];
  return sections
    .map((section) => {
      const lines = [
        `### ${section}`,
        '',
        '| metric | value | unit | target |',
        '|---|---:|---|---|',
      ];
      for (const r of rows.filter((x) => x.section === section)) {
        const target = r.target ? `${r.target} ${r.ok ? '✓' : '✗'}` : '';
        lines.push(`| ${r.metric} | ${fmt(r.value)} | ${r.unit} | ${target} |`);
      }
      return lines.join('\n');
    })
    .join('\n\n');
}

export function renderPage(options: {
  machine: string;
  date: string;
  minutes: number;
  waits: WaitRow[];
  rows: Row[];
  /** A part of its own after the section tables (the plane table): its markdown, then its rows. */
  extra?: { markdown: string; rows: Row[] };
  /** The page's hand-written part, markers included (`keptNotes`), put after the targets. */
  notes?: string;
}): string {
  const { machine, date, minutes, waits, rows, extra, notes } = options;
  const missed = [...rows, ...(extra?.rows ?? [])].filter((r) => r.target && !r.ok);
  return `# Performance

Written by \`npm run bench\` from one run on ${date.slice(0, 10)}: ${machine}.
The run took ${fmt(minutes)} minutes, loopback only; every server ran in its own
process, apart from the clients that measured it. Raw figures: \`bench-results.json\`.

## Summary

${SUMMARY_START}
${SUMMARY_END}

## Handover and plane load

Handover: a holder's release is sent → the next waiter's grant is received, counted
only when somebody was waiting (the first grant and the last release of each burst
are not handovers). Bursts of 8 jobs on a resource ask at once, hold 20–100 ms and release;
several resources run in parallel. Load: one holder keeps the lease for 12 s while 7
waiters wait; every lease request they send counts, the first included.

The kernel rows are the real gate (\`waitForLease\` and the plane client) against the
committed kernel (\`dist/cli\`). Pollers ask every T seconds whatever the plane says,
with a random phase, and wait their turn (first in, first out), as a lock action that
waits for the runs queued before it does: the handover is then uniform on [0, T), so
p50 ≈ T/2 and p99 ≈ 0.99 T, which is how the 60 s row is stated. The TTL-only lock
tells a waiter only when the holder's lease runs out: the waiters wake together, one
takes it, and those that ask again just after that one's short hold get it at once,
while the rest sleep a whole lease: hence a low p50 and a p95 of about the lease time.

${waitTable(waits)}

${sectionTables(rows)}
${extra ? `\n${extra.markdown}\n\n${sectionTables(extra.rows)}\n` : ''}
## Targets

${
  missed.length === 0
    ? 'Every target was met in this run.'
    : `Missed in this run:\n\n${missed.map((r) => `- ${r.section}: ${r.metric} = ${fmt(r.value)} ${r.unit} (target ${r.target})${r.why ? `: ${r.why}` : ''}`).join('\n')}`
}
${notes ? `\n${notes}\n` : ''}`;
}

export const NOTES_START = '<!-- notes:start (kept by npm run bench) -->';
export const NOTES_END = '<!-- notes:end -->';

/** The hand-written part of a performance page, markers included, or '' when it has none. */
export function keptNotes(page: string): string {
  const start = page.indexOf(NOTES_START);
  const end = page.indexOf(NOTES_END);
  return start < 0 || end < start ? '' : page.slice(start, end + NOTES_END.length);
}

export const SUMMARY_START = '<!-- bench:start -->';
export const SUMMARY_END = '<!-- bench:end -->';

/** The page's summary: every row with a target, from the same run, at the top of docs/performance.md. */
export function renderSummaryTable(options: {
  machine: string;
  date: string;
  rows: Row[];
}): string {
  const { machine, date, rows } = options;
  const cores = /^\d+ cores/.exec(machine)?.[0] ?? machine;
  const node = /Node (v[\d.]+)/.exec(machine)?.[1] ?? process.version;
  const lines = [
    `From one \`npm run bench\` run on ${date.slice(0, 10)}, ${cores}, Node ${node}, loopback; how each is measured is below.`,
    '',
    '| what | measured | target |',
    '|---|---:|---|',
  ];
  for (const r of rows.filter((x) => x.target && !x.pageOnly)) {
    lines.push(
      `| ${shortSection(r.section)}: ${r.metric} | ${fmt(r.value)} ${r.unit} | ${r.target} ${r.ok ? '✓' : '✗'} |`,
    );
  }
  return lines.join('\n');
}

/**
 * A section's name without its conditions (after a comma, in brackets, "beside …"): the
 * summary table stays narrow; the sections below say them in full.
 */
export const shortSection = (section: string) =>
  section
    .replace(/ \((?!Node)[^)]*\)$/, '')
    .replace(/ beside .*$/, '')
    // Not a comma inside brackets: `start-up (Node v24.22.3, 30 pairs)` stays whole.
    .replace(/, [^()]*$/, '');

/** `page` with the text between the bench markers replaced by `table`. */
export function withSummaryTable(page: string, table: string): string {
  const start = page.indexOf(SUMMARY_START);
  const end = page.indexOf(SUMMARY_END);
  if (start < 0 || end < start)
    throw new Error(`the page has no ${SUMMARY_START} … ${SUMMARY_END} block`);
  return `${page.slice(0, start + SUMMARY_START.length)}\n\n${table}\n\n${page.slice(end)}`;
}
