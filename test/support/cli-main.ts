import { main } from '../../src/cli/main.js';

/**
 * The CLI's main in this process, its lines gathered: the exit code, and stdout and
 * stderr as text (lines joined by newlines). The environment is PATH and `env` only,
 * so nothing of the machine's own LEASE_GATE_* settings leaks in; `onErr` sees each
 * stderr line as it is written (a test that acts mid-command).
 */
export async function runMain(
  args: string[],
  env: Record<string, string> = {},
  onErr?: (line: string) => void,
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    { out: (line) => out.push(line), err: (line) => (err.push(line), onErr?.(line)) },
    { PATH: process.env.PATH ?? '', ...env },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}
