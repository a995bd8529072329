import { ApiError, keys, revoke, type Resources } from './api.js';
import { byId, h, localWhen } from './dom.js';
import {
  approveBreakGlass,
  breakGlass,
  consequence,
  freeze,
  refusal,
  unfreeze,
  type Lever,
} from './levers.js';
import { OPERATOR_NAME_FORM, OPERATOR_NAME_PATTERN } from '../../plane/schema.js';
import { FREEZE_FOR_FORM, parseFreezeFor } from '../../plane/freeze-for.js';

/**
 * The levers' one form: revoke, freeze, unfreeze, break glass, approve a break-glass. A lever
 * pressed on a resource's row opens the form under that row (not a page further down), with
 * only the fields that lever takes; the review names the holder, their run and who is next,
 * and a second press does it. Typed at the bottom of the page, it works on any resource name.
 */

export interface LeverPage {
  /** What the kernel last said of its resources. */
  resources(): Resources | undefined;
  /** The time by the kernel's clock. */
  now(): number;
  /** Poll the kernel again after a lever was pulled. */
  refresh(): void;
}

const BREAK_GLASS_MAX_MS = 3_600_000;
/** Where the form lives when no row has it: the bottom section. */
let home: { parent: HTMLElement; before: Node | null } | undefined;
/** The row the form is open under, if any. */
let openRow: HTMLTableRowElement | undefined;

const leverOf = () => byId<HTMLSelectElement>('lever').value as Lever;
const field = (id: string) => byId<HTMLInputElement>(id);
const LEVER_WORDS: Record<Lever, string> = {
  revoke: 'Revoke',
  freeze: 'Freeze',
  unfreeze: 'Unfreeze',
  'break-glass': 'Break glass on',
  'approve-break-glass': 'Approve the break-glass on',
};

/** The resource the form acts on: its row's, or the one typed at the bottom. */
function resourceName(): string {
  return openRow?.dataset.leverFor ?? field('revoke-resource').value.trim();
}

/** The lever row, after its resource's row, for the table's redraw to keep in place. */
export function leverRowFor(resource: string): HTMLTableRowElement | undefined {
  return openRow?.dataset.leverFor === resource ? openRow : undefined;
}

/** The form goes back to the bottom section (its row is gone, or Close was pressed). */
export function closeLever(): void {
  if (!openRow || !home) return;
  home.parent.insertBefore(byId('revoke-form'), home.before);
  openRow.remove();
  openRow = undefined;
  showFields();
}

/** Open `lever` under the row of `resource`, for `agent` when it names a waiter. */
export function openLever(
  page: LeverPage,
  row: HTMLTableRowElement,
  lever: Lever,
  agent: string | undefined,
): void {
  const resource = row.dataset.resource ?? '';
  closeLever();
  const form = byId('revoke-form');
  openRow = h(
    'tr',
    { class: 'lever-row', 'data-lever-for': resource },
    h('td', { colspan: '6' }, form),
  );
  row.after(openRow);
  field('revoke-resource').value = resource;
  if (agent !== undefined) field('break-glass-agent').value = agent;
  byId<HTMLSelectElement>('lever').value = lever;
  showConsequence(page);
  // Without an admin key the lever cannot be pulled: say so now, and go to the key.
  const problem = leverProblem();
  const result = byId('revoke-result');
  result.textContent = problem ?? '';
  result.classList.toggle('error', problem !== undefined);
  form.scrollIntoView({ block: 'nearest' });
  const adminInput = field('admin-key');
  if (lever !== 'approve-break-glass' && !adminInput.value && !keys.hasAdmin()) adminInput.focus();
  else if (lever === 'approve-break-glass') field('approver-key').focus();
  else if (lever === 'unfreeze') field('operator-name').focus();
  else field('revoke-reason').focus();
}

/** Only the fields the chosen lever takes are shown. */
function showFields(): void {
  const lever = leverOf();
  const atRow = openRow !== undefined;
  const glass = lever === 'break-glass' || lever === 'approve-break-glass';
  byId('lever-heading').hidden = !atRow;
  byId('lever-heading').textContent = atRow ? `${LEVER_WORDS[lever]} ${resourceName()}` : '';
  byId('lever-label').hidden = atRow;
  byId('resource-label').hidden = atRow;
  byId('lever-close').hidden = !atRow;
  byId('agent-label').hidden = !glass;
  byId('reason-label').hidden = lever === 'unfreeze' || lever === 'approve-break-glass';
  byId('for-label').hidden = lever !== 'freeze' && lever !== 'break-glass';
  byId('for-words').textContent =
    lever === 'freeze' ? 'For (empty: until unfrozen)' : 'For (empty: 15m, at most 1h)';
  field('lever-for').placeholder = lever === 'freeze' ? '90m, 4h or 3d' : '15m';
  byId('approver-label').hidden = lever !== 'approve-break-glass';
  byId('admin-label').hidden = lever === 'approve-break-glass' || keys.hasAdmin();
}

/** Says what the chosen lever will do, and asks for a second click to do it. */
export function showConsequence(page: LeverPage): void {
  const r = page.resources()?.resources.find((x) => x.resource === resourceName());
  byId('lever-consequence').textContent = consequence(leverOf(), r);
  showFields();
  byId('revoke-form').dataset.confirming = '';
  byId('lever-submit').textContent = 'Review…';
}

/** The duration typed, in the CLI's form; a bare number is refused (minutes or seconds?). */
function forMs(): number | 'bad' | undefined {
  const raw = field('lever-for').value.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return 'bad';
  const ms = parseFreezeFor(raw);
  if (ms === undefined) return 'bad';
  return leverOf() === 'break-glass' && ms > BREAK_GLASS_MAX_MS ? 'bad' : ms;
}

/** What keeps the lever from being reviewed, said at once: no key, a name not of the form. */
export function leverProblem(): string | undefined {
  const lever = leverOf();
  const name = field('operator-name').value.trim();
  if (lever === 'approve-break-glass') {
    if (!field('approver-key').value)
      return 'Type the approver key (LEASE_GATE_APPROVER_KEY) first: approving needs it.';
    if (!name) return 'Your name: the ledger names who approved.';
  } else if (!field('admin-key').value && !keys.hasAdmin()) {
    return 'Type the admin key (LEASE_GATE_ADMIN_KEY) first: every lever needs it.';
  }
  if (name && !OPERATOR_NAME_PATTERN.test(name))
    return `Your name: expected ${OPERATOR_NAME_FORM}.`;
  if (lever === 'break-glass' || lever === 'approve-break-glass') {
    const agent = field('break-glass-agent').value.trim();
    if (!/^did:[a-z0-9]+:\S+$/.test(agent) || agent.length > 512)
      return 'Job to let through: expected its DID (did:…), as the queue lists it.';
    if (lever === 'break-glass' && !field('revoke-reason').value.trim())
      return 'Reason: a break-glass is recorded with why.';
  }
  if ((lever === 'freeze' || lever === 'break-glass') && forMs() === 'bad') {
    return lever === 'freeze'
      ? `For: expected ${FREEZE_FOR_FORM}, or empty.`
      : "For: expected a duration such as '10m' or '1h' (at most 1h), or empty.";
  }
  return undefined;
}

/** The lever's own call, and what to say when it is done. */
async function pull(page: LeverPage, lever: Lever, resource: string): Promise<string> {
  const reasonText = field('revoke-reason').value.trim();
  const by = field('operator-name').value.trim() || undefined;
  const ms = forMs();
  const duration = typeof ms === 'number' ? ms : undefined;
  const agent = field('break-glass-agent').value.trim();
  const when = (until: number) => localWhen(until, page.now());
  if (lever === 'freeze') {
    const answer = await freeze(resource, reasonText || 'frozen by an operator', duration, by);
    return `Froze ${resource} ${answer.until ? `until ${when(answer.until)}` : 'until unfrozen'}.`;
  }
  if (lever === 'unfreeze') {
    const answer = await unfreeze(resource, by);
    return answer.changed ? `Unfroze ${resource}.` : `${resource} was not frozen.`;
  }
  if (lever === 'break-glass') {
    const answer = await breakGlass(resource, agent, reasonText, duration, by);
    return answer.pending
      ? `Break-glass on ${resource} waits for a second operator's approval.`
      : `Break-glass open on ${resource}${answer.until ? ` until ${when(answer.until)}` : ''}: ${agent} may be granted it once.`;
  }
  if (lever === 'approve-break-glass') {
    const approverInput = field('approver-key');
    const approverKey = approverInput.value;
    // Used for this one call: the approver key is never kept by the page.
    approverInput.value = '';
    await approveBreakGlass(resource, agent, by ?? '', approverKey);
    return `Approved the break-glass on ${resource}: ${agent} may be granted it once.`;
  }
  const answer = await revoke(resource, reasonText || 'revoked by an operator', by);
  return answer.revoked ? `Revoked ${resource}.` : `${resource} was not held; nothing revoked.`;
}

async function submitLever(page: LeverPage): Promise<void> {
  const form = byId('revoke-form');
  const problem = leverProblem();
  const result = byId('revoke-result');
  if (problem) {
    result.textContent = problem;
    result.classList.add('error');
    showConsequence(page);
    return;
  }
  result.classList.remove('error');
  const lever = leverOf();
  if (form.dataset.confirming !== 'yes') {
    showConsequence(page);
    form.dataset.confirming = 'yes';
    byId('lever-submit').textContent = `Confirm: ${lever}`;
    return;
  }
  form.dataset.confirming = '';
  byId('lever-submit').textContent = 'Review…';
  const adminInput = field('admin-key');
  if (adminInput.value && lever !== 'approve-break-glass') {
    keys.setAdmin(adminInput.value);
    adminInput.value = '';
  }
  try {
    result.textContent = await pull(page, lever, resourceName());
    showFields();
    page.refresh();
  } catch (error) {
    if (lever === 'approve-break-glass') {
      const refused = error instanceof ApiError && error.status === 403;
      result.textContent = `Not done (${lever}): ${refused ? 'the kernel refused this approver key (LEASE_GATE_APPROVER_KEY); type it again' : refusal(error)}`;
    } else {
      if (error instanceof ApiError && error.status === 403) keys.forgetAdmin();
      result.textContent = `Not done (${lever}): ${refusal(error)}`;
      showFields();
    }
    result.classList.add('error');
  }
}

/** The levers' buttons on the rows, and the form's own fields. */
export function wireLevers(page: LeverPage): void {
  const form = byId<HTMLFormElement>('revoke-form');
  home = { parent: form.parentElement!, before: form.nextSibling };
  byId('resources-body').addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button');
    const row = button?.closest<HTMLTableRowElement>('tr[data-resource]');
    if (!button || !row || button.dataset.resource === undefined) return;
    const lever =
      (['revoke', 'freeze', 'unfreeze', 'approve-break-glass'] as const).find((l) =>
        button.classList.contains(l),
      ) ?? (button.classList.contains('break-glass-lever') ? 'break-glass' : undefined);
    if (lever) openLever(page, row, lever, button.dataset.agent);
  });
  // The empty admin key is said at once, not after Review → Confirm.
  for (const id of [
    'admin-key',
    'operator-name',
    'approver-key',
    'break-glass-agent',
    'lever-for',
  ]) {
    byId(id).addEventListener('input', () => {
      const result = byId('revoke-result');
      if (result.classList.contains('error')) {
        result.textContent = leverProblem() ?? '';
        result.classList.toggle('error', result.textContent !== '');
      }
    });
  }
  // On input, not change: a change fires as the field loses focus to the Review button, and
  // the consequence it writes moved that button from under the press (the click was lost).
  byId('lever').addEventListener('change', () => showConsequence(page));
  byId('revoke-resource').addEventListener('input', () => showConsequence(page));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submitLever(page);
  });
  byId('forget-admin').addEventListener('click', () => {
    keys.forgetAdmin();
    showFields();
    byId('revoke-result').textContent = 'The admin key is forgotten.';
  });
  byId('lever-close').addEventListener('click', closeLever);
  showFields();
}
