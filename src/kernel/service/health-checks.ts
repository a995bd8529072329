import { causeText, LeaseGateError } from '../../errors.js';
import type { HttpClient } from '../../http/client.js';
import { HttpError } from '../../http/errors.js';
import { isLoopbackHost } from '../../http/loopback.js';
import { urlForDisplay } from '../../http/url-display.js';
import { resourceOf } from '../../ledger/promotion.js';
import { RESOURCE_FORM, RESOURCE_PATTERN } from '../../plane/schema.js';
import { HEALTH_FREEZE_BY, HEALTH_HOLD_BY } from '../rules/freeze.js';
import type { PlaneService } from './plane-service.js';

/**
 * The health gate: a resource's grants are held while a check the operator
 * configured says unhealthy (an HTTP URL answering anything but 2xx, or not
 * answering in time). The hold is a freeze by `health-check` (rules/freeze.ts):
 * waiters keep their place and are told why, the ledger signs it as a freeze
 * entry, and `verify` finds any grant inside it. When the check passes the
 * check lifts its own hold, never an operator's freeze. With `freezeHeld`, a
 * check that fails while someone holds the resource (the deploy under way
 * broke it) freezes it by `health-check:held` until an operator unfreezes it.
 *
 * It acts when the check's result changes (its first result included), so an
 * operator who unfreezes a failing resource overrides the check, on the
 * ledger, until it passes and fails again. Polls are bounded: every
 * `intervalMs` while healthy; while failing, after 1 s, 2 s, 4 s … up to
 * `intervalMs`, so a recovery is seen within one interval and a dying service
 * is not hammered. Time is injected.
 */

export interface HealthCheck {
  resource: string;
  url: string;
}

export interface HealthChecksOptions {
  checks: readonly HealthCheck[];
  /** The spacing of polls while healthy, and the longest while failing. */
  intervalMs: number;
  /** A check that fails while the resource is held freezes it until an operator unfreezes it. */
  freezeHeld: boolean;
  http: HttpClient;
  /** Each poll's bound, until its answer's headers. */
  timeoutMs?: number;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  log: (line: string) => void;
}

/** What the overview and `/readyz` say of one check. */
export interface HealthCheckStatus {
  resource: string;
  /** The URL without credentials, query or fragment (they may hold a token). */
  url: string;
  healthy: boolean | null;
  reason: string | null;
  checkedAtMs: number | null;
  nextAtMs: number | null;
}

export const HEALTH_TIMEOUT_MS = 5_000;
const FIRST_RETRY_MS = 1_000;

export class HealthCheckError extends LeaseGateError<'health_check'> {
  override name = 'HealthCheckError';
}

/**
 * `RESOURCE=URL`, as `--health-check` takes it: the URL https:, or http: on
 * loopback only (a check's answer decides whether production may be deployed).
 */
export function parseHealthCheck(spec: string): HealthCheck {
  const form = `RESOURCE=URL: the resource ${RESOURCE_FORM} (a name without ':' is lock:deploy/NAME, as --promote takes it), the URL https:// (or http:// on loopback)`;
  const at = spec.indexOf('=');
  // As --promote: `production=URL` checks lock:deploy/production.
  const resource = at > 0 ? resourceOf(spec.slice(0, at)) : '';
  let url: URL | undefined;
  try {
    url = new URL(spec.slice(at + 1));
  } catch {
    url = undefined;
  }
  const plainOk = url?.protocol === 'http:' && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''));
  if (!RESOURCE_PATTERN.test(resource) || !url || !(url.protocol === 'https:' || plainOk))
    throw new HealthCheckError(`Invalid --health-check '${shown(spec)}'. Expected ${form}.`, {
      code: 'health_check',
    });
  return { resource, url: url.toString() };
}

// A refused spec is echoed without what could be a credential after the '='.
const shown = (spec: string) => {
  const at = spec.indexOf('=');
  return at < 0
    ? urlForDisplay(spec)
    : `${spec.slice(0, Math.min(at, 200))}=${urlForDisplay(spec.slice(at + 1))}`;
};

/**
 * The check's URL credentials (`https://user:pass@host/…`), sent as HTTP Basic: the URL
 * as given is what the operator asked for, and it goes only to the check's own origin,
 * over https: or to loopback (parseHealthCheck). The client sends no userinfo itself.
 */
function basicAuth(raw: string): Record<string, string> {
  const url = new URL(raw);
  if (!url.username && !url.password) return {};
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
}

export class HealthChecks {
  private readonly statuses: HealthCheckStatus[];
  private readonly stop = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(private readonly options: HealthChecksOptions) {
    this.statuses = options.checks.map((c) => ({
      resource: c.resource,
      url: urlForDisplay(c.url),
      healthy: null,
      reason: null,
      checkedAtMs: null,
      nextAtMs: null,
    }));
  }

  /** Starts polling every check against `service`; the returned health joins the overview. */
  attach(service: PlaneService): { health(): { healthChecks: HealthCheckStatus[] } } {
    this.loops = this.options.checks.map((check, i) =>
      this.poll(service, check, this.statuses[i]!),
    );
    return { health: () => ({ healthChecks: this.statuses.map((s) => ({ ...s })) }) };
  }

  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all(this.loops);
  }

  private async poll(service: PlaneService, check: HealthCheck, status: HealthCheckStatus) {
    const { intervalMs, now, sleep } = this.options;
    let failures = 0;
    while (!this.stop.signal.aborted) {
      const result = await this.probe(check.url);
      if (this.stop.signal.aborted) return;
      const changed = result.healthy !== status.healthy;
      Object.assign(status, { ...result, checkedAtMs: now() });
      if (changed)
        await this.act(service, check.resource, result).catch((error: unknown) => {
          // Not acted on: the next change tries again; meanwhile the result stands as seen.
          status.healthy = null;
          this.options.log(
            `health check of ${check.resource}: could not apply "${result.reason}": ${causeText(error)}`,
          );
        });
      failures = result.healthy ? 0 : failures + 1;
      const wait = result.healthy
        ? intervalMs
        : Math.min(intervalMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
      status.nextAtMs = now() + wait;
      await sleep(wait, this.stop.signal).catch(() => undefined);
    }
  }

  /** One GET: 2xx is healthy; anything else, or no answer in time, is not. */
  private async probe(url: string): Promise<{ healthy: boolean; reason: string }> {
    const timeoutMs = this.options.timeoutMs ?? HEALTH_TIMEOUT_MS;
    const where = urlForDisplay(url);
    try {
      const answer = await this.options.http.send({
        method: 'GET',
        url,
        headers: basicAuth(url),
        timeoutMs,
        signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(timeoutMs * 2)]),
      });
      if (answer.status >= 200 && answer.status < 300)
        return { healthy: true, reason: `${where} answered ${answer.status}` };
      return { healthy: false, reason: `${where} answered ${answer.status}` };
    } catch (error) {
      // Our words only (HttpError.detail): this reason is signed into the ledger for good.
      const why = error instanceof HttpError ? error.detail : 'the request failed';
      return { healthy: false, reason: `${where} did not answer: ${why.slice(0, 200)}` };
    }
  }

  private async act(
    service: PlaneService,
    resource: string,
    result: { healthy: boolean; reason: string },
  ): Promise<void> {
    if (result.healthy) {
      const reply = await service.unfreeze(resource, HEALTH_HOLD_BY, {
        ifBy: HEALTH_HOLD_BY,
        reason: `the health check passed: ${result.reason}`,
      });
      if (reply.changed) this.options.log(`health check of ${resource} passed: grants resume`);
      return;
    }
    const held = this.options.freezeHeld && (await service.status(resource)) !== null;
    const reply = held
      ? await service.freeze(
          resource,
          `${result.reason} while it was held`,
          null,
          HEALTH_FREEZE_BY,
          {
            replaces: [HEALTH_HOLD_BY],
          },
        )
      : await service.freeze(resource, result.reason, null, HEALTH_HOLD_BY, { replaces: [] });
    if (reply.changed)
      this.options.log(
        `health check of ${resource} failed (${result.reason}): ${held ? 'frozen until an operator unfreezes it' : 'grants held'}`,
      );
  }
}
