import { runUrlFromDid } from '../../lease/did.js';
import {
  ApiError,
  fetchCheckpoint,
  fetchEntries,
  fetchPublicKey,
  fetchResources,
  entrySchema,
  keys,
  revoke,
  type Resources,
} from './api.js';
import { byId, duration, h } from './dom.js';
import { holdsFrom, type TimelineEntry } from './holds.js';
import { SPANS, drawTimeline } from './timeline.js';
import { verifyLedger } from './verify.js';

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
let span: number = SPANS.hour;
let ready = false;
let resourcesTimer: ReturnType<typeof setTimeout> | undefined;
let ledgerTimer: ReturnType<typeof setTimeout> | undefined;

const serverNow = () => (resources ? resources.nowMs + performance.now() - fetchedAt : Date.now());

function holderCell(did: string): Node {
  const url = runUrlFromDid(did);
  if (!url?.startsWith('https://')) return h('code', {}, did);
  return h('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, h('code', {}, did));
}

function renderResources(): void {
  const body = byId<HTMLTableSectionElement>('resources-body');
  const rows = (resources?.resources ?? []).map((r) => {
    const lease = r.lease;
    const holder = lease
      ? holderCell(lease.holder)
      : r.reserved
        ? h('span', {}, 'reserved for ', h('code', {}, r.reserved.holder), ' (next in line)')
        : h('span', { class: 'muted' }, 'free');
    const queue = r.queue.length
      ? h('ol', { class: 'queue' }, ...r.queue.map((w) => h('li', {}, h('code', {}, w.actorDid))))
      : h('span', { class: 'muted' }, 'nobody waits');
    const revokeButton = lease
      ? h('button', { type: 'button', class: 'revoke', 'data-resource': r.resource }, 'Revoke…')
      : null;
    return h(
      'tr',
      { 'data-resource': r.resource },
      h('td', {}, h('code', {}, r.resource)),
      h('td', { class: 'holder' }, holder),
      h('td', {}, lease?.fence === undefined ? '—' : String(lease.fence)),
      h('td', { class: 'left', 'data-expires': String(lease?.expiresAtMs ?? '') }),
      h('td', { class: 'waiting' }, queue),
      h('td', {}, revokeButton),
    );
  });
  if (rows.length === 0) {
    rows.push(
      h('tr', {}, h('td', { colspan: '6', class: 'muted' }, 'No resource is held or waited for.')),
    );
  }
  body.replaceChildren(...rows);
  tick();
}

/** Time left, between polls. */
function tick(): void {
  const now = serverNow();
  for (const cell of document.querySelectorAll<HTMLElement>('td.left')) {
    const expires = Number(cell.dataset.expires);
    cell.textContent = cell.dataset.expires ? duration(expires - now) : '—';
  }
}

function renderTimeline(): void {
  byId('timeline').replaceChildren(drawTimeline(holdsFrom(entries), serverNow(), span));
}

function setStatus(message: string, error = false): void {
  const status = byId('status');
  status.textContent = message;
  status.classList.toggle('error', error);
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
    setStatus(`Updated ${new Date().toLocaleTimeString()}`);
    if (!ready) {
      ready = true;
      document.body.dataset.readyMs = String(Math.round(performance.now()));
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      askForKey('This kernel needs its key (LEASE_GATE_KERNEL_KEY) to show its state.');
      return; // polling resumes when a key is typed
    }
    setStatus(`Cannot read the kernel: ${(error as Error).message}`, true);
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
    if (!(error instanceof ApiError && error.status === 401)) {
      byId('checkpoint-mark').textContent = `Cannot read the ledger: ${(error as Error).message}`;
    }
  }
  clearTimeout(ledgerTimer);
  ledgerTimer = setTimeout(() => void pollLedger(), LEDGER_POLL_MS);
}

function renderCheckpoint(text: string, verdict: Awaited<ReturnType<typeof verifyLedger>>): void {
  const mark = byId('checkpoint-mark');
  mark.className = verdict.verified ? 'verified' : 'not-verified';
  mark.textContent = verdict.verified
    ? `✓ verified: signed by the log's key, ${verdict.entries} entries proved in a tree of ${verdict.size}`
    : `✗ not verified: ${verdict.reason}`;
  byId('checkpoint-origin').textContent = verdict.origin;
  byId('checkpoint-text').textContent = text;
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
      span = SPANS[button.dataset.span as keyof typeof SPANS] ?? SPANS.hour;
      document
        .querySelectorAll('button[data-span]')
        .forEach((b) => b.classList.toggle('on', b === button));
      renderTimeline();
    });
  }
  byId('resources-body').addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button.revoke');
    if (!button) return;
    byId<HTMLInputElement>('revoke-resource').value = button.dataset.resource ?? '';
    byId('revoke-section').scrollIntoView();
    byId<HTMLInputElement>('revoke-reason').focus();
  });
  byId<HTMLFormElement>('revoke-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void submitRevoke();
  });
  byId('forget-admin').addEventListener('click', () => {
    keys.forgetAdmin();
    byId('revoke-result').textContent = 'The admin key is forgotten.';
  });
  setInterval(tick, 250);
}

async function submitRevoke(): Promise<void> {
  const adminInput = byId<HTMLInputElement>('admin-key');
  if (adminInput.value) keys.setAdmin(adminInput.value);
  adminInput.value = '';
  const resource = byId<HTMLInputElement>('revoke-resource').value.trim();
  const reason = byId<HTMLInputElement>('revoke-reason').value.trim() || 'revoked by an operator';
  const result = byId('revoke-result');
  try {
    const answer = await revoke(resource, reason);
    result.textContent = answer.revoked
      ? `Revoked ${resource}.`
      : `${resource} was not held; nothing revoked.`;
    void pollResources();
    void pollLedger();
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) keys.forgetAdmin();
    result.textContent = `Not revoked: ${(error as Error).message}`;
  }
}

wire();
void pollResources();
void pollLedger();
