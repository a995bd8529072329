import { parseRunDid } from './did.js';
import {
  GitHubError,
  describeRun,
  githubContext,
  postStatus,
  type GitHubContext,
  type StatusState,
} from './github.js';

/**
 * The gate on GitHub's own surfaces: the commit status and the holder's run.
 * Best effort: the first problem of each kind is one warning, and that surface
 * is then left alone for the rest of the step; no token, no call.
 */
export class GitHubSurfaces {
  private readonly context: GitHubContext | undefined;
  private statusesOff: boolean;
  private runsOff: boolean;
  private readonly runs = new Map<string, string | undefined>();

  constructor(
    private readonly token: string,
    /** Empty turns commit statuses off. */
    private readonly statusContext: string,
    env: NodeJS.ProcessEnv,
    private readonly warn: (message: string) => void,
  ) {
    this.context = token ? githubContext(env) : undefined;
    this.statusesOff = !this.context || !statusContext;
    this.runsOff = !this.context;
  }

  async status(state: StatusState, description: string): Promise<void> {
    if (this.statusesOff || !this.context) return;
    try {
      await postStatus(this.token, this.context, {
        state,
        description,
        context: this.statusContext,
      });
    } catch (error) {
      this.statusesOff = true;
      this.warn(
        `Could not set the commit status '${this.statusContext}' (${describe(error)}); the gate goes on without it. It needs 'statuses: write' permission, which fork pull requests do not get.`,
      );
    }
  }

  /** What GitHub says of the run behind a holder's DID, looked up once per holder. */
  async holderRun(did: string, nowMs: number): Promise<string | undefined> {
    if (this.runs.has(did)) return this.runs.get(did);
    const run = parseRunDid(did);
    let text: string | undefined;
    if (run && !this.runsOff && this.context && run.host === this.context.serverHost) {
      try {
        text = (
          await describeRun(this.token, this.context.apiUrl, run.repository, run.runId, nowMs)
        ).text;
      } catch (error) {
        this.runsOff = true;
        this.warn(
          `Could not look up the holder's run (${describe(error)}); it needs 'actions: read' permission. The gate goes on.`,
        );
      }
    }
    this.runs.set(did, text);
    return text;
  }
}

function describe(error: unknown): string {
  return error instanceof GitHubError ? error.message : String(error);
}
