/**
 * Text from outside (plane answers, GitHub, files of other processes) on its
 * way to a log line, a terminal or a job summary. Nothing it holds may start a
 * line, run a workflow command or drive a terminal.
 */

import { TERMINAL_CONTROL_CHARS as CONTROL } from '../control-chars.js';

/** One line, bounded: CR and LF as the runner escapes them (%0D, %0A), other controls as \uXXXX. */
export function untrusted(text: string, max = 300): string {
  const bounded = text.length <= max ? text : `${text.slice(0, max - 1)}…`;
  return bounded
    .replace(/\r/g, '%0D')
    .replace(/\n/g, '%0A')
    .replace(/\t/g, ' ')
    .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A whole log line for the runner: nothing after it can begin a new line. */
export function logLine(text: string): string {
  return text
    .replace(/\r/g, '%0D')
    .replace(/\n/g, '%0A')
    .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A cell of the job summary, which is HTML. */
export function escapeHtml(text: string): string {
  return untrusted(text, 2_000)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
