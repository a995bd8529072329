import {
  ApiError,
  fetchCheckpoint,
  fetchEntries,
  fetchPublicKey,
  fetchResources,
  entrySchema,
  hasReadKey,
  keys,
  type Resources,
} from './api.js';
import { byId, duration, h, localClock, localWhen, syncChildren, zoneName } from './dom.js';
import { chartData } from './chart-data.js';
import { drawCharts } from './charts.js';
import { historyRows } from './history.js';
import {
  renderHealthChecks,
  renderPromotions,
  renderNotifications,
  renderWindows,
} from './levers.js';
import { closeLever, leverRowFor, wireLevers } from './lever-form.js';
import { holdsFrom, type TimelineEntry } from './holds.js';
import { resourceRow } from './resource-row.js';
import { SPANS, drawTimeline, widthOf } from './timeline.js';
import { verifyLedger } from './verify.js';
import { causeText } from '../../errors.js';

/** The operator's console: holders and queues live, the ledger's timeline, revoke. */

const POLL_MS = 1_000;
const LEDGER_POLL_MS = 3_000;
/** The ledger entries the timeline and the verification cover: the latest ones. */
const LEDGER_WINDOW = 2_000;

let resources: Resources | undefined;
/** performance.now() when `resources` arrived, so time left counts down between polls. */
let fetchedAt = 0;
let entries: TimelineEntry[] = [];
let ledgerSize = -1;
let publicKey: string | undefined;
let span: number = SPANS.quarter;
let chartSpan: number = SPANS.day;
/** performance.now() of the last answer the kernel gave: shown when later ones fail. */
let lastGoodAt: number | undefined;
let ready = false;
let resourcesTimer: ReturnType<typeof setTimeout> | undefined;
let ledgerTimer: ReturnType<typeof setTimeout> | undefined;

const serverNow = () => (resources ? resources.nowMs + performance.now() - fetchedAt : Date.now());

/** Each resource's row as built, and what it was built from (its lease's expiry aside). */
const shownRows = new Map<string, { row: HTMLTableRowElement; said: string }>();

function renderResources(): void {
  renderRows();
  renderHealthChecks(resources, serverNow());
  renderWindows(resources, serverNow());
  renderPromotions(resources);
  renderNotifications(resources);
  tick();
}

/**
 * A row is rebuilt only when what the kernel said of its resource changed, a renewal's
 * new expiry aside (its time-left cell reads that from its data): a row replaced under a
 * press would swallow the click on its Revoke… or Freeze…, and polls come every second.
 */
function renderRows(): void {
  const body = byId<HTMLTableSectionElement>('resources-body');
  const list = resources?.resources ?? [];
  const rows = list.map((r) => {
    const said = JSON.stringify({ ...r, lease: r.lease && { ...r.lease, expiresAtMs: 0 } });
    const before = shownRows.get(r.resource);
    const left = before?.row.querySelector<HTMLElement>('td.left');
    if (before?.said === said && left) {
      left.dataset.expires = String(r.lease?.expiresAtMs ?? '');
      return before.row;
    }
    const row = resourceRow(r, serverNow);
    shownRows.set(r.resource, { row, said });
    return row;
  });
  const listed = new Set(list.map((r) => r.resource));
  for (const name of [...shownRows.keys()]) if (!listed.has(name)) shownRows.delete(name);
  // An open lever stays under its row; its resource gone, the form goes back to the bottom.
  const withLever = rows.flatMap((row) => {
    const lever = leverRowFor(row.dataset.resource ?? '');
    return lever ? [row, lever] : [row];
  });
  if (withLever.length === rows.length) closeLever();
  rows.splice(0, rows.length, ...withLever);
  if (rows.length === 0) {
    rows.push(
      h('tr', {}, h('td', { colspan: '6', class: 'muted' }, 'No resource is held or waited for.')),
    );
  }
  syncChildren(body, rows);
}

/** Time left, between polls. */
function tick(): void {
  const now = serverNow();
  for (const cell of document.querySelectorAll<HTMLElement>('td.left')) {
    const expires = Number(cell.dataset.expires);
    cell.textContent = cell.dataset.expires ? duration(expires - now) : '—';
  }
  for (const span of document.querySelectorAll<HTMLElement>('span.since')) {
    const prefix = span.dataset.prefix ?? 'held for ';
    span.textContent = ` · ${prefix}${duration(now - Number(span.dataset.since))}`;
  }
}

/**
 * How many history rows are shown: a page at a time, so the levers below stay in reach
 * (on a phone each row is a card of six lines: a smaller page).
 */
const HISTORY_PAGE = matchMedia('(max-width: 600px)').matches ? 5 : 15;
let historyShown = HISTORY_PAGE;

function renderTimeline(): void {
  const holds = holdsFrom(entries);
  const container = byId('timeline');
  container.replaceChildren(drawTimeline(holds, serverNow(), span, widthOf(container)));
  const filter = byId<HTMLInputElement>('history-filter').value;
  const { rows, more } = historyRows(holds, entries, serverNow(), filter, historyShown);
  byId('history-body').replaceChildren(...rows);
  const button = byId<HTMLButtonElement>('history-more');
  button.hidden = more === 0;
  button.textContent = `Show older (${more} not shown)`;
  renderCharts();
}

/** Per resource, from the same ledger entries: hold and wait times, deploys per day. */
function renderCharts(): void {
  const container = byId('charts');
  const nowMs = serverNow();
  const data = chartData(entries, { nowMs, spanMs: chartSpan });
  container.replaceChildren(
    ...drawCharts(data, { nowMs, spanMs: chartSpan, width: widthOf(container) }),
  );
  // What the charts stand on: the latest entries read, so a busy kernel's week may start later.
  const first = entries[0];
  byId('charts-since').textContent = first
    ? `From the latest ${entries.length} ledger entries, since ${localWhen(first.tsMs, nowMs)}.`
    : '';
}

function setStatus(message: string, error = false): void {
  const status = byId('status');
  status.textContent = message;
  status.classList.toggle('error', error);
  // What is shown is the last the kernel said: marked as such while it does not answer.
  document.body.classList.toggle('stale', error && lastGoodAt !== undefined);
}

function unreachable(what: string, error: unknown): string {
  const since =
    lastGoodAt === undefined
      ? 'nothing shown yet'
      : `the data below is from ${Math.round((performance.now() - lastGoodAt) / 1_000)} s ago (stale)`;
  return error instanceof ApiError
    ? `Cannot read the ${what}: ${error.message} — ${since}`
    : `Kernel unreachable (${causeText(error)}) — ${since}`;
}

function askForKey(message: string): void {
  byId('key-section').hidden = false;
  byId('key-error').textContent = message;
  byId<HTMLInputElement>('key-input').focus();
}

async function pollResources(): Promise<void> {
  try {
    resources = await fetchResources();
    fetchedAt = performance.now();
    renderResources();
    lastGoodAt = performance.now();
    setStatus(`Updated ${localClock(Date.now())} ${zoneName(Date.now())}`);
    if (!ready) {
      ready = true;
      document.body.dataset.readyMs = String(Math.round(performance.now()));
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      const wrong = hasReadKey();
      document.body.dataset.keyState = wrong ? 'wrong' : 'none';
      showLocked();
      setStatus(
        wrong
          ? 'Wrong key: the kernel refused the key typed for this tab.'
          : 'No key: this kernel needs its key to show its state.',
        true,
      );
      askForKey(
        wrong
          ? 'The kernel refused that key. Type its key (LEASE_GATE_KERNEL_KEY) again.'
          : 'This kernel needs its key (LEASE_GATE_KERNEL_KEY) to show its state.',
      );
      return; // polling resumes when a key is typed
    }
    setStatus(unreachable('kernel', error), true);
  }
  clearTimeout(resourcesTimer);
  resourcesTimer = setTimeout(() => void pollResources(), POLL_MS);
}

async function pollLedger(): Promise<void> {
  try {
    const checkpoint = await fetchCheckpoint();
    const size = Number(checkpoint.split('\n')[1]);
    if (size !== ledgerSize) {
      publicKey ??= await fetchPublicKey();
      const bundle = await fetchEntries(Math.max(0, size - LEDGER_WINDOW));
      entries = bundle.entries.flatMap(({ entry }) => {
        const parsed = entrySchema.safeParse(entry);
        return parsed.success ? [parsed.data] : [];
      });
      ledgerSize = size;
      renderCheckpoint(
        bundle.checkpoint,
        await verifyLedger(bundle.checkpoint, publicKey, bundle.entries),
      );
    }
    renderTimeline();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      byId('checkpoint-mark').textContent = 'This kernel keeps no ledger.';
      return;
    }
    if (error instanceof ApiError && error.status === 401) {
      // Said, not left at "Checking…": the ledger is read with the same key as the rest.
      const mark = byId('checkpoint-mark');
      mark.className = 'muted';
      mark.textContent = hasReadKey()
        ? 'Not checked: the kernel refused the key typed for this tab; type its key above.'
        : 'Not checked: this kernel needs its key (LEASE_GATE_KERNEL_KEY) to serve its ledger; type it above.';
      return; // polled again when a key is typed
    } else {
      const mark = byId('checkpoint-mark');
      mark.className = 'not-verified';
      mark.textContent = unreachable('ledger', error);
    }
  }
  clearTimeout(ledgerTimer);
  ledgerTimer = setTimeout(() => void pollLedger(), LEDGER_POLL_MS);
}

function renderCheckpoint(text: string, verdict: Awaited<ReturnType<typeof verifyLedger>>): void {
  const mark = byId('checkpoint-mark');
  mark.className = verdict.verified ? 'verified' : 'not-verified';
  const latest = entries.at(-1);
  mark.textContent = verdict.verified
    ? `✓ Verified in this page: the checkpoint is signed by the key of ${verdict.origin}; the log holds ${verdict.size} entries, the latest ${entries.length} were each proved to be in it${latest ? `, the newest at ${new Date(latest.tsMs).toISOString().replace('T', ' ').slice(0, 19)} UTC` : ''}.`
    : `✗ Not verified: ${verdict.reason}`;
  byId('checkpoint-origin').textContent = verdict.origin;
  byId('checkpoint-text').textContent = text;
}

/** After a lever: the kernel's word again, at once. */
function refresh(): void {
  void pollResources();
  void pollLedger();
}

/**
 * Without the kernel's key the page shows nothing of its state: said in the tables
 * themselves, so an empty table never reads as "nobody holds anything".
 */
function showLocked(): void {
  const locked = (columns: number) =>
    h(
      'tr',
      {},
      h(
        'td',
        { colspan: String(columns), class: 'locked' },
        'Locked: this kernel shows its state only to its key. Type the key above.',
      ),
    );
  shownRows.clear();
  byId('resources-body').replaceChildren(locked(6));
  byId('history-body').replaceChildren(locked(6));
}

function wire(): void {
  byId<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId<HTMLInputElement>('key-input');
    keys.setRead(input.value);
    input.value = '';
    byId('key-section').hidden = true;
    void pollResources();
    void pollLedger();
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-span]')) {
    button.addEventListener('click', () => {
      span = SPANS[button.dataset.span as keyof typeof SPANS] ?? SPANS.quarter;
      document
        .querySelectorAll('button[data-span]')
        .forEach((b) => b.classList.toggle('on', b === button));
      renderTimeline();
    });
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-chart-span]')) {
    button.addEventListener('click', () => {
      chartSpan = button.dataset.chartSpan === 'week' ? SPANS.week : SPANS.day;
      document
        .querySelectorAll('button[data-chart-span]')
        .forEach((b) => b.classList.toggle('on', b === button));
      renderCharts();
    });
  }
  byId('history-filter').addEventListener('input', () => {
    historyShown = HISTORY_PAGE;
    renderTimeline();
  });
  byId('history-more').addEventListener('click', () => {
    historyShown += HISTORY_PAGE;
    renderTimeline();
  });
  // The timeline is drawn for the width it has: again when that changes (a phone turned).
  let drawnWidth = 0;
  new ResizeObserver(() => {
    const width = widthOf(byId('timeline'));
    if (width === drawnWidth) return;
    drawnWidth = width;
    renderTimeline();
  }).observe(byId('timeline'));
  wireLevers({ resources: () => resources, now: serverNow, refresh });
  setInterval(tick, 250);
}

wire();
void pollResources();
void pollLedger();
