import type { LedgerEntry } from './entry.js';

/**
 * Promotion order, read from the ledger alone (pure: the kernel and `verify` feed it the
 * same entries): a commit may take `to` only once the ledger shows the same repository's
 * same commit completed a hold on `from`. Completed means granted and given back as done:
 * a release, not one marked outdated (it did not deploy), not a lapse (the job died) and not
 * a revoke (an operator stopped it). Or a descendant: a kernel that may ask GitHub's compare
 * lets a commit through when a commit that completed the step contains it, and signs which
 * (`promotedVia` on the grant); offline, only that the one named completed can be checked.
 */

export interface Promotion {
  from: string;
  to: string;
}

export const PROMOTE_FORM =
  "FROM->TO, such as 'staging->production' (a name without ':' is lock:deploy/NAME) or 'lock:deploy/staging->lock:deploy/production'";

/** The release reason of a holder that did not deploy (kernel/rules/deploy-order.ts). */
const OUTDATED = 'outdated';
/** Commits kept per `from` resource; the oldest go first (a commit that old fails closed). */
export const MAX_PROMOTED = 10_000;

const RESOURCE = /^[\x21-\x7e]{1,256}$/;
/** An environment name without ':' is its deploy lock (`production` is lock:deploy/production). */
export const resourceOf = (name: string) => (name.includes(':') ? name : `lock:deploy/${name}`);

/** `staging->production`, or undefined when it is not of PROMOTE_FORM. */
export function parsePromotion(spec: string): Promotion | undefined {
  const parts = spec.split('->');
  if (parts.length !== 2) return undefined;
  const [from, to] = parts.map((p) => (p.trim() ? resourceOf(p.trim()) : ''));
  if (!from || !to || from === to || !RESOURCE.test(from) || !RESOURCE.test(to)) return undefined;
  return { from, to };
}

/** Each resource's one predecessor; undefined when two steps name the same `to` or it loops. */
export function promotionChain(steps: readonly Promotion[]): Map<string, string> | string {
  const before = new Map<string, string>();
  for (const { from, to } of steps) {
    if (before.has(to))
      return `${to} is promoted to from two resources: give it one step before it`;
    before.set(to, from);
  }
  for (const start of before.keys()) {
    const seen = new Set<string>([start]);
    for (let at = before.get(start); at !== undefined; at = before.get(at)) {
      if (seen.has(at)) return `the promotion order loops through ${at}`;
      seen.add(at);
    }
  }
  return before;
}

type Fed = Pick<LedgerEntry, 'kind' | 'resource' | 'leaseId' | 'reason' | 'deploy'>;
type Named = Fed['deploy'] | { repository?: string; commit?: string } | undefined;

export const commitOf = (deploy: Named) => {
  const repository = deploy?.repository;
  const commit = deploy?.commit;
  return typeof repository === 'string' && typeof commit === 'string' && commit !== ''
    ? { repository, commit }
    : undefined;
};

export class PromotionRecord {
  private readonly before: Map<string, string>;
  private readonly froms: Set<string>;
  /** Open holds on a `from` resource that named a commit, by lease id. */
  private readonly open = new Map<string, string>();
  /** Per `from` resource, `repository commit` of each completed hold, oldest first. */
  private readonly completed = new Map<string, Set<string>>();

  constructor(chain: Map<string, string>) {
    this.before = chain;
    this.froms = new Set(chain.values());
  }

  get steps(): Promotion[] {
    return [...this.before].map(([to, from]) => ({ from, to }));
  }

  /** The step before `resource`, if the order names one. */
  stepBefore(resource: string): string | undefined {
    return this.before.get(resource);
  }

  /** One entry, in the ledger's order. */
  add(e: Fed): void {
    if (!this.froms.has(e.resource)) return;
    if (e.kind === 'grant') {
      const c = commitOf(e.deploy);
      if (c) this.open.set(e.leaseId, `${c.repository} ${c.commit}`);
      return;
    }
    if (e.kind !== 'release' && e.kind !== 'lapse' && e.kind !== 'revoke') return;
    const key = this.open.get(e.leaseId);
    if (key === undefined) return;
    this.open.delete(e.leaseId);
    if (e.kind !== 'release' || e.reason === OUTDATED) return;
    const done = this.completed.get(e.resource) ?? new Set<string>();
    this.completed.set(e.resource, done);
    done.delete(key);
    done.add(key);
    if (done.size > MAX_PROMOTED) done.delete(done.values().next().value!);
  }

  /**
   * Commits of `repository` that completed a hold on `from`, newest first, at most `max`:
   * those a descendant check asks GitHub about.
   */
  completedOn(from: string, repository: string, max: number): string[] {
    const done = [...(this.completed.get(from) ?? [])];
    const found: string[] = [];
    const prefix = `${repository} `;
    for (let i = done.length - 1; i >= 0 && found.length < max; i -= 1) {
      if (done[i]!.startsWith(prefix)) found.push(done[i]!.slice(prefix.length));
    }
    return found;
  }

  /**
   * Why a grant of `resource` to this deploy breaks the order (naming the missing step), or
   * undefined. `via`: the commit the kernel signed as completing the step and containing
   * this one; then it is that commit the ledger must show completed.
   */
  missing(resource: string, deploy: Named, via?: string): string | undefined {
    const from = this.before.get(resource);
    if (from === undefined) return undefined;
    const c = commitOf(deploy);
    if (!c) {
      return `${resource} is promoted to only from ${from}, and this request names no commit (deploy.repository and deploy.commit) to look for there`;
    }
    const done = this.completed.get(from);
    if (via !== undefined) {
      if (done?.has(`${c.repository} ${via}`)) return undefined;
      return `${c.repository}@${c.commit.slice(0, 12)} was let through as contained in ${via.slice(0, 12)}, which has not completed a hold on ${from} (promotion order ${from} -> ${resource})`;
    }
    if (done?.has(`${c.repository} ${c.commit}`)) return undefined;
    return `${c.repository}@${c.commit.slice(0, 12)} has not completed a hold on ${from}: deploy it there first (promotion order ${from} -> ${resource})`;
  }
}
