import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../src/cli/suggest.js';
import { runMain } from './support/cli-main.js';

/**
 * A usage error is one line that says what was wrong and where the usage is, not
 * the whole help; a typo'd flag or command gets the closest known one. In-process
 * (src/). Issue 37, item 8.
 */

const cli = (args: string[]) => runMain(args);

describe('a usage error', () => {
  it("is one line with a pointer to the command's --help, exit 2", async () => {
    const got = await cli(['status', '--bogus']);
    expect(got.code).toBe(2);
    expect(got.out).toBe('');
    expect(got.err.split('\n')).toHaveLength(1);
    expect(got.err).toMatch(/^Unknown flag '--bogus'\./);
    expect(got.err).toMatch(/See 'lease-gate status --help'\.$/);
    expect(got.err).not.toContain('lease-gate status [--resource');

    const bad = await cli(['acquire', '--api-url', 'http://127.0.0.1:1', '--resource', 'a b']);
    expect(bad.code).toBe(2);
    expect(bad.err.split('\n')).toHaveLength(1);
    expect(bad.err).toContain("Invalid --resource: 'a b'. Expected 1 to 256 printable characters");
    expect(bad.err).toMatch(/See 'lease-gate acquire --help'\.$/);
  });

  it("suggests the command's own flag for a typo", async () => {
    expect((await cli(['status', '--jsno'])).err).toContain(
      "Unknown flag '--jsno'. Did you mean --json?",
    );
    expect((await cli(['acquire', '--wait-timout', '5s'])).err).toContain(
      'Did you mean --wait-timeout?',
    );
    expect((await cli(['revoke', '--reson', 'x'])).err).toContain('Did you mean --reason?');
    // Only the command's own flags: --reason is revoke's, not status's.
    expect((await cli(['status', '--reson', 'x'])).err).not.toContain('--reason');
    // A flag nothing is close to gets no guess, and the hint about '--'.
    expect((await cli(['run', '--zzzzzzzz'])).err).toContain(
      "Unknown flag '--zzzzzzzz'. (A command's own arguments go after '--'.)",
    );
  });

  it('escapes what was typed and suggests a command for a typo', async () => {
    const got = await cli(['status', '--x\u001b[2J']);
    expect(got.err).not.toContain('\u001b');
    expect((await cli(['staus'])).err).toBe(
      "Unknown command 'staus'. Did you mean 'status'? Run 'lease-gate --help' for the list.",
    );
    expect((await cli(['zzzzzz'])).err).toBe(
      "Unknown command 'zzzzzz'. Run 'lease-gate --help' for the list.",
    );
  });
});

describe('closest', () => {
  it('counts a swap as one edit and refuses far guesses', () => {
    expect(editDistance('jsno', 'json')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closest('resorce', ['resource', 'reason'])).toBe('resource');
    expect(closest('x', ['json', 'resource'])).toBeUndefined();
  });
});
