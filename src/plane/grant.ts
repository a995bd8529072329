import { ContractError, type PlaneErrorOptions } from './errors.js';
import type { Lease, LeaseRequest } from './schema.js';

/**
 * A grant is believed only once it is checked (CONTRACT.md part 4): it names the
 * DID we asked as and the resource we asked for, its expiry lies ahead within a
 * bounded skew and within the longest lease a plane grants, and its id has a
 * form that is safe in an output, a log line, a file name or a URL path.
 */

/** The kernel issues `lease_<fence>_<hex>`, the hosted plane `lease_4c1e`: both fit. */
export const LEASE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const LEASE_ID_FORM = '1 to 128 characters of A-Z a-z 0-9 . _ : -';
/**
 * How far the plane's clock may be from ours before an expiry is called broken.
 * Expiry is information, never a correctness input (CONTRACT.md part 2): the
 * bound only refuses the absurd, such as `expiresAtMs: 1`.
 */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** The longest lease any plane grants: the kernel's largest `--ttl-ms` (the hosted plane's is 30 s). */
export const MAX_LEASE_MS = 3_600_000;

export interface GrantProblem {
  /** The field of the answer, as `lease.holder`. */
  field: string;
  problem: string;
}

/**
 * What is wrong with a grant, or undefined when it is ours to believe. `nowMs` is the plane's
 * own clock when its answer tells it (the Date header), else our wall clock: a runner whose
 * clock is 10 minutes off must not call a good grant absurd.
 */
export function grantProblem(
  lease: Lease,
  asked: LeaseRequest,
  nowMs: number,
): GrantProblem | undefined {
  const wallNow = nowMs;
  if (lease.holder !== asked.actorDid) {
    return {
      field: 'lease.holder',
      problem: `names ${quote(lease.holder)}, not ${asked.actorDid} (the DID asked as)`,
    };
  }
  if (lease.resource !== asked.resource) {
    return {
      field: 'lease.resource',
      problem: `names ${quote(lease.resource)}, not ${asked.resource} (the resource asked for)`,
    };
  }
  if (!LEASE_ID_PATTERN.test(lease.id)) {
    return { field: 'lease.id', problem: `${quote(lease.id)} is not ${LEASE_ID_FORM}` };
  }
  if (lease.expiresAtMs < wallNow - MAX_CLOCK_SKEW_MS) {
    return {
      field: 'lease.expiresAtMs',
      problem: `${lease.expiresAtMs} is already past (more than ${MAX_CLOCK_SKEW_MS / 60_000} min before this clock's ${wallNow})`,
    };
  }
  if (lease.expiresAtMs > wallNow + MAX_LEASE_MS + MAX_CLOCK_SKEW_MS) {
    return {
      field: 'lease.expiresAtMs',
      problem: `${lease.expiresAtMs} is further ahead than the longest lease a plane grants (${MAX_LEASE_MS / 60_000} min, with ${MAX_CLOCK_SKEW_MS / 60_000} min of clock skew)`,
    };
  }
  return undefined;
}

/** A plane that answered `ok: true` with a grant that is not ours: it was given back, the call fails. */
export class BrokenGrantError extends ContractError {
  override name = 'BrokenGrantError';
  /** The grant's field that is wrong. */
  readonly field: string;
  /** The release by (resource, own DID) that followed was answered. */
  readonly gaveBack: boolean;
  constructor(message: string, options: PlaneErrorOptions & { field: string; gaveBack: boolean }) {
    super(message, { call: options.call, status: options.status, code: 'plane_broken_grant' });
    this.field = options.field;
    this.gaveBack = options.gaveBack;
  }
}

/** Plane text in a message: bounded, on one line, without markup. */
function quote(text: string): string {
  const clean = JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);
  return clean.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
