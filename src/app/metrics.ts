/**
 * The App's Prometheus metrics on `GET /metrics`: runs waiting for the lease, the rule's
 * answers GitHub took (approved, rejected), and every GitHub call's outcome. Read with the
 * metrics key (LEASE_GATE_METRICS_KEY) as the Bearer token; off without one. docs/metrics.md.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';
import { MetricsRenderer } from '../metrics/render.js';
import type { GitHubApp } from './github.js';

/** A GitHub call's outcome: its answer's class, or why it had none. */
export type CallOutcome = 'ok' | 'client_error' | 'server_error' | 'rate_limited' | 'network';

export const outcomeOf = (status: number | undefined): CallOutcome =>
  status === undefined
    ? 'network'
    : status < 400
      ? 'ok'
      : status === 429
        ? 'rate_limited'
        : status < 500
          ? 'client_error'
          : 'server_error';

export class AppMetrics {
  readonly registry = new Registry();
  private readonly renderer = new MetricsRenderer(this.registry);
  private readonly calls: Record<CallOutcome, Counter.Internal>;
  private readonly reviews: Counter<'state' | 'outcome'>;

  constructor(waiting: () => number) {
    const registers = [this.registry];
    const calls = new Counter({
      name: 'lease_gate_app_github_calls_total',
      help: 'Attempts of calls to GitHub’s API, by outcome (each retry counts).',
      labelNames: ['outcome'] as const,
      registers,
    });
    const outcomes: CallOutcome[] = [
      'ok',
      'client_error',
      'server_error',
      'rate_limited',
      'network',
    ];
    this.calls = Object.fromEntries(outcomes.map((o) => [o, calls.labels(o)])) as Record<
      CallOutcome,
      Counter.Internal
    >;
    this.reviews = new Counter({
      name: 'lease_gate_app_reviews_total',
      help: 'The protection rule’s answers sent to GitHub (state approved or rejected), by outcome.',
      labelNames: ['state', 'outcome'] as const,
      registers,
    });
    new Gauge({
      name: 'lease_gate_app_queued_runs',
      help: 'Runs waiting for their lease (each a pending protection rule).',
      registers,
      collect() {
        this.set(waiting());
      },
    });
  }

  /** One attempt's answer (its status) or none (a network failure): the transport tells it. */
  called(status: number | undefined): void {
    this.calls[outcomeOf(status)].inc();
  }

  /** Wraps the App's review call so that each answer it sends is counted. */
  counted(github: GitHubApp): GitHubApp {
    const review: GitHubApp['review'] = async (installation, repo, runId, body, attempt) => {
      try {
        await github.review(installation, repo, runId, body, attempt);
        this.reviews.inc({ state: body.state, outcome: 'ok' });
      } catch (error) {
        this.reviews.inc({ state: body.state, outcome: 'failed' });
        throw error;
      }
    };
    return { ...github, review };
  }

  /** Answers `GET /metrics` when `req` asks for it and returns true; false for any other path. */
  serve(req: IncomingMessage, res: ServerResponse, key: string | undefined): boolean {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return false;
    const header = req.headers.authorization ?? '';
    const status = !key
      ? 403
      : !header.startsWith('Bearer ')
        ? 401
        : matches(header.slice(7), key)
          ? 200
          : 403;
    if (status !== 200) {
      const message = !key
        ? 'Metrics need the App to be started with LEASE_GATE_METRICS_KEY.'
        : 'Metrics need the metrics key (LEASE_GATE_METRICS_KEY) as the Bearer token.';
      res.writeHead(status, { 'content-type': 'application/json', ...NO_STORE });
      res.end(
        JSON.stringify({
          ok: false,
          reason: status === 401 ? 'unauthorized' : 'forbidden',
          message,
        }),
      );
      return true;
    }
    this.renderer.render(req.headers.accept).then(
      ({ contentType, text }) =>
        res.writeHead(200, { 'content-type': contentType, ...NO_STORE }).end(text),
      () => res.writeHead(500).end(),
    );
    return true;
  }
}

/** As the kernel's answers: a proxy or cache between Prometheus and the App keeps no scrape. */
const NO_STORE = { 'cache-control': 'no-store' };

const digest = (value: string) => createHash('sha256').update(value).digest();
/** In constant time, over digests, as the kernel compares its keys. */
const matches = (token: string, key: string) =>
  token.length > 0 && timingSafeEqual(digest(token), digest(key));
