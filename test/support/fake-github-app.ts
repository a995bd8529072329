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
}

type Fault = { status: 429 | 502 | 500 | 503; headers?: Record<string, string> };

const DOCS = 'https://docs.github.com/rest';

export async function startFakeGitHub(options: { appId?: number; installations?: number[] } = {}) {
  const appId = options.appId ?? 4242;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const installations = new Set(options.installations ?? [77]);
  const tokens = new Map<string, number>();
  const runs = new Map<string, Run>();
  const calls: Call[] = [];
  const faults: Array<{ route: RegExp; fault: Fault }> = [];
  const secret = `whsec-${randomUUID()}`;

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
      return send(
        f.status,
        { message: f.status === 429 ? 'API rate limit exceeded' : 'Server Error' },
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
      run.pending.delete(review.environment_name);
      if (review.state === 'approved') run.status = 'queued';
      else run.status = 'completed';
      return send(204);
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/deployments\/(\d+)\/statuses$/.exec(path);
    if (m && method === 'POST')
      return send(201, { id: calls.length, state: (body as { state?: string })?.state });
    return send(404, { message: 'Not Found', documentation_url: DOCS });
  }

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
      };
      runs.set(`${repository}#${id}`, run);
      return run;
    },
    run: (repository: string, id: number) => runs.get(`${repository}#${id}`),
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
    /** Sends a delivery as GitHub does; `signWith` a wrong secret, `id` a used GUID, to test refusals. */
    async deliver(
      to: string,
      event: string,
      payload: object,
      options: { id?: string; signWith?: string } = {},
    ): Promise<{ status: number; id: string }> {
      const body = JSON.stringify(payload);
      const id = options.id ?? randomUUID();
      const signature = `sha256=${createHmac('sha256', options.signWith ?? secret)
        .update(body)
        .digest('hex')}`;
      const answer = await fetch(to, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/fake',
          'x-github-event': event,
          'x-github-delivery': id,
          'x-github-hook-id': '1',
          'x-github-hook-installation-target-id': String(appId),
          'x-github-hook-installation-target-type': 'integration',
          'x-hub-signature-256': signature,
        },
        body,
      });
      await answer.arrayBuffer();
      return { status: answer.status, id };
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
