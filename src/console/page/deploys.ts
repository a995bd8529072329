import { COMMIT_PATTERN, REPOSITORY_PATTERN, isRunUrl } from '../../plane/deploy.js';
import { runUrlFromDid } from '../../plane/did.js';
import { h, nameCode } from './dom.js';

/**
 * Links to what a holder or waiter deploys: its run (the `runUrl` its request
 * named, else the one its GitHub DID spells) and its commit on the
 * repository's host. A link is drawn only for an https URL that the kernel's
 * own rules accept, built from parts that match their forms; anything else is
 * shown as text, and every text goes in as a text node.
 */

export interface DeployFields {
  repository?: string | undefined;
  workflow?: string | undefined;
  ref?: string | undefined;
  commit?: string | undefined;
  runNumber?: number | string | undefined;
  runAttempt?: number | string | undefined;
  runUrl?: string | undefined;
}

const link = (href: string, ...children: Array<Node | string>) =>
  h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, ...children);

/** The run's page: the request's `runUrl` when it is a plain https URL, else the DID's. */
export function runUrlOf(did: string, deploy?: DeployFields): string | undefined {
  const named = typeof deploy?.runUrl === 'string' && isRunUrl(deploy.runUrl) ? deploy.runUrl : '';
  if (named) return new URL(named).href;
  const derived = runUrlFromDid(did);
  return derived?.startsWith('https://') ? derived : undefined;
}

/**
 * The commit's page on the repository's host (the run URL's, else the host a GitHub run DID
 * names), when the repository, the commit and that URL validate; otherwise none.
 */
export function commitUrlOf(did: string, deploy?: DeployFields): string | undefined {
  const { repository, commit } = deploy ?? {};
  if (typeof repository !== 'string' || typeof commit !== 'string') return undefined;
  if (!REPOSITORY_PATTERN.test(repository) || !COMMIT_PATTERN.test(commit)) return undefined;
  const run = runUrlOf(did, deploy);
  if (!run) return undefined;
  const host = new URL(run).origin;
  const [owner, repo] = repository.split('/').map(encodeURIComponent);
  const url = new URL(`${host}/${owner}/${repo}/commit/${commit}`);
  return url.protocol === 'https:' ? url.href : undefined;
}

/** "run #42 (attempt 2)" or "run", linked when there is a run page. */
export function runLink(did: string, deploy?: DeployFields): Node | null {
  const url = runUrlOf(did, deploy);
  if (!url) return null;
  const number = deploy?.runNumber === undefined ? '' : ` #${deploy.runNumber}`;
  const attempt =
    deploy?.runAttempt !== undefined && Number(deploy.runAttempt) > 1
      ? ` (attempt ${deploy.runAttempt})`
      : '';
  return link(url, `run${number}${attempt}`);
}

/** "acme/shop@1a2b3c4 on refs/heads/main", the commit linked when it validates. */
export function commitLine(did: string, deploy?: DeployFields): Node | null {
  if (!deploy?.commit && !deploy?.repository) return null;
  const url = commitUrlOf(did, deploy);
  const short = deploy.commit ? String(deploy.commit).slice(0, 12) : '';
  const label = `${deploy.repository ?? ''}${short ? `@${short}` : ''}`;
  return h(
    'span',
    { class: 'commit' },
    url ? link(url, h('code', {}, label)) : h('code', {}, label),
    deploy.ref ? ` on ${String(deploy.ref).replace(/^refs\/heads\//, '')}` : '',
  );
}

/** An agent as the console shows it: its DID (linked to its run), its run and its commit. */
export function agentCell(did: string, deploy?: DeployFields): Node {
  const url = runUrlOf(did, deploy);
  const name = nameCode(did);
  const run = deploy?.runUrl || deploy?.runNumber !== undefined ? runLink(did, deploy) : null;
  const commit = commitLine(did, deploy);
  return h(
    'span',
    { class: 'agent' },
    url ? link(url, name) : name,
    run ? h('span', { class: 'run' }, ' · ', run) : '',
    commit ? h('span', { class: 'run' }, ' · ', commit) : '',
  );
}
