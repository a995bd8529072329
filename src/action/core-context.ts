import * as core from '@actions/core';
import { escapeHtml, logLine } from '../lease/escape.js';
import { askRunnerForToken } from '../lease/oidc-token.js';
import type { ActionContext } from './context.js';

/**
 * The runner's side of the port, through @actions/core (the OIDC token through our own
 * client: oidc-token.ts). Annotations are
 * workflow commands, whose data @actions/core escapes; plain lines are not, so
 * info() escapes CR and LF itself: no text can begin a line of the log.
 */
export function coreContext(env: NodeJS.ProcessEnv = process.env): ActionContext {
  return {
    env,
    getInput: (name) => core.getInput(name),
    getState: (name) => core.getState(name),
    saveState: (name, value) => core.saveState(name, value),
    setOutput: (name, value) => core.setOutput(name, value),
    setSecret: (value) => core.setSecret(value),
    getIDToken: async (audience) => {
      const token = await askRunnerForToken(env, audience);
      core.setSecret(token);
      return token;
    },
    info: (line) => core.info(logLine(line)),
    debug: (line) => core.debug(logLine(line)),
    notice: (message, title) => core.notice(message, title ? { title } : {}),
    warning: (message, title) => core.warning(message, title ? { title } : {}),
    error: (message, title) => core.error(message, title ? { title } : {}),
    setFailed: (message) => core.setFailed(message),
    summary: async (heading, rows) => {
      if (!env.GITHUB_STEP_SUMMARY) return;
      const table = [
        [
          { data: 'what', header: true },
          { data: 'value', header: true },
        ],
        ...rows.map(([label, value]) => [escapeHtml(label), escapeHtml(value)]),
      ];
      await core.summary.addHeading(escapeHtml(heading), 3).addTable(table).write();
      core.summary.emptyBuffer();
    },
  };
}
