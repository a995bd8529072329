/**
 * A break-glass pass for a GitHub run (the hotfix path): the action's DID ends in a nonce
 * drawn as the job starts, and a rerun asks under another attempt, so a pass opened before
 * the job cannot name its DID. A pass may name the run instead, as the DID the action's
 * DIDs for that run all begin with:
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>
 * It covers every DID the action derives for that run (any attempt, job and nonce), and is
 * still used up by one grant. Under OIDC the token vouches for the asking DID's run; with a
 * shared key the DID is believed, as every DID is.
 */

// The grammar of the action's DIDs (did.ts): GitHub's names, numeric ids, a plain host name.
import {
  HOST_PATTERN as HOST,
  OWNER_PATTERN as OWNER,
  REPO_PATTERN as REPO,
  RUN_ID_PATTERN as RUN_ID,
} from './did.js';

export const RUN_FORM = 'OWNER/REPO/RUN_ID (or HOST/OWNER/REPO/RUN_ID), e.g. acme/shop/12345';

interface Run {
  host: string;
  owner: string;
  repo: string;
  runId: string;
}

/** The run of a DID the action derives (`…:runs:<id>:attempts:<n>:jobs:<job>:<nonce>`), read strictly. */
function runOf(did: string): Run | undefined {
  if (!did.startsWith('did:web:')) return undefined;
  const parts = did.slice('did:web:'.length).split(':');
  const [rawHost = '', owner = '', repo = '', actions, runs, runId = '', attempts, attempt = ''] =
    parts;
  const host = rawHost.replace(/%3A/gi, ':');
  const labelsOk =
    actions === 'actions' && runs === 'runs' && attempts === 'attempts' && parts[8] === 'jobs';
  if (parts.length !== 11 || !labelsOk || !/^\d{1,6}$/.test(attempt)) return undefined;
  if (!HOST.test(host) || !OWNER.test(owner) || !REPO.test(repo) || !RUN_ID.test(runId))
    return undefined;
  return { host, owner, repo, runId };
}

/** The host as a DID segment: a port's colon percent-encoded, as did.ts's didSegment encodes it. */
const hostSegment = (host: string) => host.replace(':', '%3A');

/** The run's DID for `acme/shop/12345` or `ghe.example/acme/shop/12345`; undefined for any other text. */
export function runPassDid(run: string): string | undefined {
  const parts = run.split('/');
  const [host, owner, repo, runId] = parts.length === 3 ? ['github.com', ...parts] : parts;
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  if (!host || !HOST.test(host) || !owner || !OWNER.test(owner)) return undefined;
  if (!repo || !REPO.test(repo) || !runId || !RUN_ID.test(runId)) return undefined;
  return `did:web:${[hostSegment(host), owner, repo, 'actions', 'runs', runId].join(':')}`;
}

/** `host:owner:repo:runId` (names without case) of a run pass's DID; undefined for any other DID. */
function runKeyOfPass(did: string): string | undefined {
  if (!did.startsWith('did:web:')) return undefined;
  const parts = did.slice('did:web:'.length).split(':');
  const [host, owner, repo, actions, runs, runId = ''] = parts;
  if (parts.length !== 6 || actions !== 'actions' || runs !== 'runs' || !RUN_ID.test(runId))
    return undefined;
  return `${[host, owner, repo].join(':').toLowerCase()}:${runId}`;
}

/** Whether this pass DID names a run rather than one agent. */
export const isRunPass = (did: string) => runKeyOfPass(did) !== undefined;

/**
 * Whether a pass for `passDid` lets `actorDid` through: the same DID, or a DID the action
 * derives for the run the pass names (read strictly, as did.ts's parseRunDid reads it).
 */
export function passCovers(passDid: string, actorDid: string): boolean {
  if (passDid === actorDid) return true;
  const key = runKeyOfPass(passDid);
  if (key === undefined) return false;
  const run = runOf(actorDid);
  if (!run) return false;
  const host = hostSegment(run.host);
  return key === `${[host, run.owner, run.repo].join(':').toLowerCase()}:${run.runId}`;
}

/** The run an action's DID belongs to, as `--run` takes it; undefined for any other DID. */
export function runOfDid(actorDid: string): string | undefined {
  const run = runOf(actorDid);
  if (!run) return undefined;
  const prefix = run.host.toLowerCase() === 'github.com' ? '' : `${run.host}/`;
  return `${prefix}${run.owner}/${run.repo}/${run.runId}`;
}

/** A not_promoted refusal says what an operator may do for this run (the hotfix path). */
export function unpromotedMessage(message: string, resource: string, actorDid: string): string {
  const run = runOfDid(actorDid);
  if (run === undefined) return message;
  return `${message}. For a hotfix, an operator may let this run through once: lease-gate break-glass --run ${run} --resource ${resource} --reason TEXT, then re-run the job`;
}
