import {
  createHmac,
  createVerify,
  generateKeyPairSync,
  randomUUID,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * GitHub for the protection-rule app, on 127.0.0.1:0: it signs and sends webhook
 * deliveries as GitHub shapes them, issues installation tokens only for an App JWT
 * signed by the App's key, serves the run and the protection-rule callback routes
 * with GitHub's shapes and status codes, injects 429/5xx, and records every call.
 */

export interface Call {
  method: string;
  path: string;
  status: number;
  body?: unknown;
  atMs: number;
}

interface Run {
  owner: string;
  repo: string;
  id: number;
  attempt: number;
  status: 'queued' | 'waiting' | 'in_progress' | 'completed';
  /** Environments whose protection rule still waits for this App. */
  pending: Set<string>;
  /** The reviews people gave its environments, oldest first (`GET …/approvals`). */
  reviews: Array<{ state: 'approved' | 'rejected'; environment: string }>;
}

/** `applied`: the call takes effect, then the answer is this fault (a 502 from GitHub's edge). */
type Fault = {
  status: 403 | 404 | 429 | 502 | 500 | 503;
  headers?: Record<string, string>;
  applied?: boolean;
};

/** One webhook delivery as GitHub records it (`GET /app/hook/deliveries/{id}`). */
interface HookDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
  url: string;
  request: { headers: Record<string, string>; payload: object };
  response: { headers: Record<string, string>; payload: string | null };
}

const DOCS = 'https://docs.github.com/rest';

export async function startFakeGitHub(options: { appId?: number; installations?: number[] } = {}) {
  const appId = options.appId ?? 4242;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const installations = new Set(options.installations ?? [77]);
  const tokens = new Map<string, number>();
  const runs = new Map<string, Run>();
  /** `owner/repo/environment` of the environments that require reviewers. */
  const reviewed = new Set<string>();
  const calls: Call[] = [];
  const faults: Array<{ route: RegExp; fault: Fault }> = [];
  const secret = `whsec-${randomUUID()}`;
  const deliveries: HookDelivery[] = [];

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = req.url ?? '';
    const method = req.method ?? '';
    const send = (status: number, answer?: object, headers: Record<string, string> = {}) => {
      calls.push({ method, path, status, body, atMs: Date.now() });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(answer ? JSON.stringify(answer) : undefined);
    };
    const fault = faults.findIndex((f) => f.route.test(`${method} ${path}`));
    if (fault >= 0) {
      const f = faults.splice(fault, 1)[0]!.fault;
      if (f.applied) applyReview(path, body);
      return send(
        f.status,
        {
          message:
            f.status === 429
              ? 'API rate limit exceeded'
              : f.status === 404
                ? 'Not Found'
                : f.status === 403
                  ? 'Resource not accessible by integration'
                  : 'Server Error',
        },
        f.headers,
      );
    }
    const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (m && method === 'POST') {
      if (!bearer || !validJwt(bearer, publicKey, appId)) {
        return send(401, {
          message: 'A JSON web token could not be decoded',
          documentation_url: DOCS,
        });
      }
      const installation = Number(m[1]);
      if (!installations.has(installation))
        return send(404, { message: 'Not Found', documentation_url: DOCS });
      const token = `ghs_${randomUUID().replaceAll('-', '')}`;
      tokens.set(token, installation);
      return send(201, {
        token,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        permissions: { actions: 'read', deployments: 'write' },
        repository_selection: 'all',
      });
    }
    if (path.startsWith('/app/hook/deliveries')) {
      if (!bearer || !validJwt(bearer, publicKey, appId)) {
        return send(401, {
          message: 'A JSON web token could not be decoded',
          documentation_url: DOCS,
        });
      }
      return hookDeliveries(method, path, send);
    }
    if (!bearer || !tokens.has(bearer)) {
      return send(401, { message: 'Bad credentials', documentation_url: DOCS });
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)$/.exec(path);
    if (m && method === 'GET') {
      const run = runs.get(`${m[1]}/${m[2]}#${m[3]}`);
      if (!run) return send(404, { message: 'Not Found', documentation_url: DOCS });
      return send(200, {
        id: run.id,
        run_attempt: run.attempt,
        status: run.status,
        conclusion: null,
      });
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/environments\/([^/?]+)$/.exec(path);
    if (m && method === 'GET') {
      const name = decodeURIComponent(m[3]!);
      const rules = reviewed.has(`${m[1]}/${m[2]}/${name}`)
        ? [
            {
              id: 3755,
              node_id: 'MDQ6R2F0ZTM3NTU=',
              type: 'required_reviewers',
              prevent_self_review: false,
              reviewers: [{ type: 'User', reviewer: { login: 'octocat', id: 1 } }],
            },
          ]
        : [];
      return send(200, {
        id: 161088068,
        name,
        protection_rules: [
          { id: 3736, node_id: 'MDQ6R2F0ZTM3MzY=', type: 'branch_policy' },
          ...rules,
        ],
        deployment_branch_policy: null,
      });
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)\/approvals$/.exec(path);
    if (m && method === 'GET') {
      const run = runs.get(`${m[1]}/${m[2]}#${m[3]}`);
      if (!run) return send(404, { message: 'Not Found', documentation_url: DOCS });
      return send(
        200,
        run.reviews.map((r) => ({
          state: r.state,
          comment: '',
          environments: [{ id: 161088068, name: r.environment }],
          user: { login: 'octocat', id: 1 },
        })),
      );
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)\/deployment_protection_rule$/.exec(path);
    if (m && method === 'POST') {
      const run = runs.get(`${m[1]}/${m[2]}#${m[3]}`);
      const review = body as { environment_name?: unknown; state?: unknown; comment?: unknown };
      if (
        typeof review?.environment_name !== 'string' ||
        !['approved', 'rejected'].includes(String(review.state))
      ) {
        return send(422, { message: 'Invalid request.', documentation_url: DOCS });
      }
      if (!run || !run.pending.has(review.environment_name)) {
        return send(422, {
          message: 'No pending custom deployment protection rule for this environment',
          documentation_url: DOCS,
        });
      }
      applyReview(path, body);
      return send(204);
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/deployments\/(\d+)\/statuses$/.exec(path);
    if (m && method === 'POST')
      return send(201, { id: calls.length, state: (body as { state?: string })?.state });
    return send(404, { message: 'Not Found', documentation_url: DOCS });
  }

  /** GitHub's record of a review: the rule is decided, the run goes on (or ends). */
  function applyReview(path: string, body: unknown) {
    const m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)\/deployment_protection_rule$/.exec(
      path,
    );
    const run = m ? runs.get(`${m[1]}/${m[2]}#${m[3]}`) : undefined;
    const review = body as { environment_name?: string; state?: string } | undefined;
    if (!run || !review?.environment_name || !run.pending.has(review.environment_name)) return;
    run.pending.delete(review.environment_name);
    run.status = review.state === 'approved' ? 'queued' : 'completed';
  }

  /**
   * `GET /app/hook/deliveries` (newest first, `per_page` up to 100, the next page's
   * `cursor` in a Link header), `GET /app/hook/deliveries/{id}` (with the request's
   * payload), `POST /app/hook/deliveries/{id}/attempts` (202, redelivered after).
   */
  function hookDeliveries(
    method: string,
    path: string,
    send: (status: number, answer?: object, headers?: Record<string, string>) => void,
  ) {
    const target = new URL(path, url);
    if (target.pathname === '/app/hook/deliveries' && method === 'GET') {
      const perPage = Math.min(100, Math.max(1, Number(target.searchParams.get('per_page') ?? 30)));
      const cursor = target.searchParams.get('cursor');
      const newestFirst = [...deliveries].reverse();
      const start = cursor ? newestFirst.findIndex((d) => String(d.id) === cursor) : 0;
      if (start < 0) return send(422, { message: 'Invalid cursor', documentation_url: DOCS });
      const page = newestFirst.slice(start, start + perPage);
      const next = newestFirst[start + perPage];
      const link = next
        ? {
            link: `<https://api.github.com/app/hook/deliveries?per_page=${perPage}&cursor=${next.id}>; rel="next"`,
          }
        : {};
      return send(
        200,
        page.map(({ url: _u, request: _q, response: _r, ...item }) => item),
        link,
      );
    }
    const m = /^\/app\/hook\/deliveries\/(\d+)(\/attempts)?$/.exec(target.pathname);
    const delivery = m ? deliveries.find((d) => String(d.id) === m[1]) : undefined;
    if (!m || !delivery) return send(404, { message: 'Not Found', documentation_url: DOCS });
    if (!m[2] && method === 'GET') return send(200, delivery);
    if (m[2] && method === 'POST') {
      send(202, {});
      setImmediate(
        () =>
          void sendDelivery(delivery.url, delivery.event, delivery.request.payload, {
            guid: delivery.guid,
            redelivery: true,
          }),
      );
      return;
    }
    return send(404, { message: 'Not Found', documentation_url: DOCS });
  }

  /** Signs and sends a delivery, and records it as GitHub does (a failed connection too). */
  async function sendDelivery(
    to: string,
    event: string,
    payload: object,
    options: { guid?: string; signWith?: string; redelivery?: boolean } = {},
  ): Promise<{ status: number; id: string }> {
    const body = JSON.stringify(payload);
    const id = options.guid ?? randomUUID();
    const signature = `sha256=${createHmac('sha256', options.signWith ?? secret)
      .update(body)
      .digest('hex')}`;
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-github-hook-id': '1',
      'x-github-hook-installation-target-id': String(appId),
      'x-github-hook-installation-target-type': 'integration',
      'x-hub-signature-256': signature,
    };
    const started = Date.now();
    let status = 0;
    try {
      const answer = await fetch(to, { method: 'POST', headers, body });
      await answer.arrayBuffer();
      status = answer.status;
    } catch {
      status = 0; // GitHub records "failed to connect"
    }
    const p = payload as {
      action?: string;
      installation?: { id?: number };
      repository?: { id?: number };
    };
    // A delivery signed with another secret is a forger's, not GitHub's: GitHub has no record of it.
    if (options.signWith !== undefined) return { status, id };
    deliveries.push({
      id: (deliveryIds += 1),
      guid: id,
      // GitHub's delivered_at is to the second.
      delivered_at: new Date(Math.floor(started / 1000) * 1000).toISOString().replace('.000', ''),
      redelivery: options.redelivery ?? false,
      duration: (Date.now() - started) / 1000,
      status:
        status === 0
          ? 'failed to connect'
          : status < 300
            ? 'OK'
            : `Invalid HTTP Response: ${status}`,
      status_code: status,
      event,
      action: p.action ?? null,
      installation_id: p.installation?.id ?? null,
      repository_id: p.repository?.id ?? null,
      url: to,
      request: { headers, payload },
      response: { headers: {}, payload: null },
    });
    return { status, id };
  }

  let deliveryIds = 12_000_000_000;
  let deploymentIds = 9000;
  return {
    url,
    appId,
    secret,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    calls,
    /** The next call matching `route` (`POST /repos/…`) gets this answer instead. */
    fail(route: RegExp, fault: Fault) {
      faults.push({ route, fault });
    },
    /** A run waiting for this App on `environment`. */
    addRun(repository: string, id: number, environment: string, attempt = 1): Run {
      const [owner = '', repo = ''] = repository.split('/');
      const run: Run = {
        owner,
        repo,
        id,
        attempt,
        status: 'waiting',
        pending: new Set([environment]),
        reviews: [],
      };
      runs.set(`${repository}#${id}`, run);
      return run;
    },
    run: (repository: string, id: number) => runs.get(`${repository}#${id}`),
    /** The environment requires reviewers (one of them must approve each run). */
    requireReviewers(repository: string, environment: string) {
      reviewed.add(`${repository}/${environment}`);
    },
    /** A reviewer reviews the run's environment; GitHub's `deployment_review` payload for it. */
    review(
      repository: string,
      runId: number,
      environment: string,
      state: 'approved' | 'rejected',
      installation = 77,
    ) {
      const run = runs.get(`${repository}#${runId}`)!;
      run.reviews.push({ state, environment });
      return {
        action: state,
        workflow_run: { id: runId, run_attempt: run.attempt, status: 'waiting' },
        workflow_job_runs: [{ id: 1, job_name: 'deploy', status: 'waiting', environment }],
        reviewers: [{ type: 'User', reviewer: { login: 'octocat', id: 1 } }],
        since: new Date().toISOString(),
        repository: { full_name: repository, name: repository.split('/')[1] },
        installation: { id: installation },
        sender: { login: 'octocat', id: 1, type: 'User' },
      };
    },
    /** GitHub's `deployment_protection_rule` payload for a run. */
    protectionRule(repository: string, runId: number, environment: string, installation = 77) {
      const [owner = ''] = repository.split('/');
      const deploymentId = (deploymentIds += 1);
      const repositoryObject = {
        id: 1000 + runId,
        name: repository.split('/')[1],
        full_name: repository,
        private: false,
        owner: { login: owner, id: 1, type: 'Organization' },
        html_url: `https://github.com/${repository}`,
      };
      return {
        action: 'requested',
        environment,
        event: 'push',
        deployment_callback_url: `https://api.github.com/repos/${repository}/actions/runs/${runId}/deployment_protection_rule`,
        deployment: {
          url: `https://api.github.com/repos/${repository}/deployments/${deploymentId}`,
          id: deploymentId,
          sha: 'a'.repeat(40),
          ref: 'main',
          task: 'deploy',
          payload: {},
          original_environment: environment,
          environment,
          creator: { login: 'github-actions[bot]', id: 41898282, type: 'Bot' },
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
          statuses_url: `https://api.github.com/repos/${repository}/deployments/${deploymentId}/statuses`,
          repository_url: `https://api.github.com/repos/${repository}`,
        },
        pull_requests: [],
        repository: repositoryObject,
        organization: { login: owner, id: 1 },
        installation: { id: installation, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=' },
        sender: { login: 'octocat', id: 583231, type: 'User' },
      };
    },
    /** GitHub's `workflow_run` `completed` payload. */
    workflowRunCompleted(repository: string, runId: number, installation = 77) {
      const run = runs.get(`${repository}#${runId}`);
      if (run) run.status = 'completed';
      return {
        action: 'completed',
        workflow_run: {
          id: runId,
          run_attempt: run?.attempt ?? 1,
          status: 'completed',
          conclusion: 'cancelled',
        },
        repository: { full_name: repository, name: repository.split('/')[1] },
        installation: { id: installation },
        sender: { login: 'octocat', id: 583231, type: 'User' },
      };
    },
    /**
     * Sends a delivery as GitHub does and records it (status 0: the app could not be
     * reached); `signWith` a wrong secret, `id` a used GUID, to test refusals.
     */
    deliver(
      to: string,
      event: string,
      payload: object,
      options: { id?: string; signWith?: string } = {},
    ): Promise<{ status: number; id: string }> {
      return sendDelivery(to, event, payload, {
        ...(options.id ? { guid: options.id } : {}),
        ...(options.signWith ? { signWith: options.signWith } : {}),
      });
    },
    /** GitHub's record of the deliveries it made, oldest first. */
    deliveries,
    /** "Redeliver" as a person does it in the App's settings (the same GUID, marked a redelivery). */
    redeliver: (guid: string) => {
      const delivery = deliveries.find((d) => d.guid === guid)!;
      return sendDelivery(delivery.url, delivery.event, delivery.request.payload, {
        guid,
        redelivery: true,
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeGitHub = Awaited<ReturnType<typeof startFakeGitHub>>;

/** An RS256 App JWT: signed by the App's key, `iss` the App id, not expired, at most 10 minutes long. */
function validJwt(jwt: string, key: KeyObject, appId: number): boolean {
  const [header, payload, signature] = jwt.split('.');
  if (!header || !payload || !signature) return false;
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${payload}`);
  if (!verifier.verify(key, Buffer.from(signature, 'base64url'))) return false;
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      iss?: unknown;
      exp?: number;
      iat?: number;
    };
    const now = Date.now() / 1000;
    return (
      head.alg === 'RS256' &&
      String(claims.iss) === String(appId) &&
      typeof claims.exp === 'number' &&
      typeof claims.iat === 'number' &&
      claims.exp > now &&
      claims.exp - claims.iat <= 660
    );
  } catch {
    return false;
  }
}
