import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * GitHub's compare API on 127.0.0.1:0, over a commit graph the test builds:
 * `GET /repos/{owner}/{repo}/compare/{base}...{head}` answers the status GitHub
 * computes (`ahead` when head descends from base, `behind`, `identical`, `diverged`)
 * with its counts and a page of commits, 404 for a commit it does not know and 401
 * for a token it does not take, in GitHub's JSON shapes. Faults are queued per call.
 */

export interface CompareCall {
  path: string;
  authorization: string | undefined;
  status: number;
}

export interface FakeGitHubCompare {
  /** The API root, as `--github-api-url` takes it. */
  apiUrl: string;
  /** Adds a commit of `repository` with its parents (already added, or none for a root). */
  commit(repository: string, sha: string, parents?: string[]): void;
  /** The one token it takes; a request with another is answered 401. */
  token: string;
  /** The next calls' answers, in order, before the graph is consulted. */
  faults: Array<{ status: number; headers?: Record<string, string> }>;
  calls: CompareCall[];
  /** How long each answer is held back (0: at once), so calls can overlap. */
  delayMs: number;
  /** The most calls it was answering at the same time. */
  maxInFlight: number;
  close(): Promise<void>;
}

const DOCS = 'https://docs.github.com/rest/commits/commits#compare-two-commits';
const COMPARE = /^\/repos\/([^/]+)\/([^/]+)\/compare\/([0-9a-f]+)\.\.\.([0-9a-f]+)$/;

export async function startFakeGitHubCompare(token: string): Promise<FakeGitHubCompare> {
  const graphs = new Map<string, Map<string, string[]>>();
  const calls: CompareCall[] = [];
  const fake: Omit<FakeGitHubCompare, 'apiUrl' | 'close'> = {
    token,
    faults: [],
    calls,
    delayMs: 0,
    maxInFlight: 0,
    commit(repository, sha, parents = []) {
      const graph = graphs.get(repository) ?? new Map<string, string[]>();
      graphs.set(repository, graph);
      for (const p of parents) if (!graph.has(p)) throw new Error(`unknown parent ${p}`);
      graph.set(sha, parents);
    },
  };

  const ancestors = (graph: Map<string, string[]>, sha: string) => {
    const seen = new Set<string>();
    const todo = [sha];
    while (todo.length) {
      const s = todo.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      todo.push(...(graph.get(s) ?? []));
    }
    return seen;
  };

  function answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      calls.push({ path: url.pathname, authorization: req.headers.authorization, status });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    const fault = fake.faults.shift();
    if (fault)
      return send(
        fault.status,
        { message: 'Server Error', status: `${fault.status}` },
        fault.headers,
      );
    if (req.headers.authorization !== `Bearer ${fake.token}`)
      return send(401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
        status: '401',
      });
    const match = req.method === 'GET' ? COMPARE.exec(url.pathname) : null;
    const graph = match && graphs.get(`${match[1]}/${match[2]}`);
    const [base, head] = match ? [match[3]!, match[4]!] : ['', ''];
    if (!graph || !graph.has(base) || !graph.has(head))
      return send(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    const ofHead = ancestors(graph, head);
    const ofBase = ancestors(graph, base);
    const aheadBy = [...ofHead].filter((s) => !ofBase.has(s)).length;
    const behindBy = [...ofBase].filter((s) => !ofHead.has(s)).length;
    const status =
      base === head
        ? 'identical'
        : ofHead.has(base)
          ? 'ahead'
          : ofBase.has(head)
            ? 'behind'
            : 'diverged';
    const perPage = Number(url.searchParams.get('per_page') ?? 250);
    const commits = [...ofHead].filter((s) => !ofBase.has(s)).slice(0, perPage);
    send(200, {
      url: `https://api.github.com${url.pathname}`,
      status,
      ahead_by: aheadBy,
      behind_by: behindBy,
      total_commits: aheadBy,
      base_commit: { sha: base },
      merge_base_commit: { sha: [...ofBase].find((s) => ofHead.has(s)) ?? base },
      commits: commits.map((sha) => ({
        sha,
        parents: (graph.get(sha) ?? []).map((p) => ({ sha: p })),
      })),
      files: [],
    });
  }

  let inFlight = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
    res.on('close', () => (inFlight -= 1));
    if (fake.delayMs > 0) setTimeout(() => answer(req, res), fake.delayMs);
    else answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    apiUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
