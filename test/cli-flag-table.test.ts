import { describe, expect, it } from 'vitest';
import { COMMANDS, HELPS, USAGE, main } from '../src/cli/main.js';
import { KERNEL_FLAGS } from '../src/cli/flags/kernel.js';
import { BREAK_GLASS, BREAK_GLASS_CANCEL } from '../src/cli/flags/operator.js';
import { flagsNamedIn, optionsOf } from '../src/cli/flags/table.js';

/**
 * One flag table per command gives both its parser options and its help (issue #56, item 1):
 * every flag a command parses is in its help (or said once in the overview's "Common:" part,
 * or hidden with a reason), and every flag its help names is one it parses, so the two
 * cannot drift. In-process (src/).
 */

/** Flags a help names that are another command's, on purpose ("the kernel's --approver-oidc"). */
const OTHERS: Record<string, string[]> = {
  'break-glass': ['approver-oidc'],
  'approve-break-glass': ['approver-oidc'],
};

const common = USAGE.slice(USAGE.indexOf('\nCommon:'));

describe('each command', () => {
  for (const [name, command] of Object.entries(COMMANDS)) {
    it(`${name}: its help names every flag it parses, and only those`, () => {
      const help = HELPS[name] ?? '';
      const named = flagsNamedIn(help);
      for (const spec of command.specs) {
        for (const [flag, row] of Object.entries(spec.flags)) {
          if (row.hidden) expect(row.hidden.length, `--${flag}: why hidden`).toBeGreaterThan(10);
          else if (row.common) expect(flagsNamedIn(common), `--${flag}`).toContain(flag);
          else expect(named, `${name} --${flag}`).toContain(flag);
          for (const other of row.with ?? []) expect(spec.flags, other).toHaveProperty(other);
        }
      }
      const parsed = new Set(command.specs.flatMap((spec) => Object.keys(spec.flags)));
      const foreign = named.filter((flag) => !parsed.has(flag));
      expect(foreign).toEqual(OTHERS[name] ?? []);
      // A cross-reference names a flag that exists, the kernel's.
      for (const flag of foreign) expect(KERNEL_FLAGS).toHaveProperty(flag);
    });
  }

  it('parses with exactly its table, the help fields left out', () => {
    const options = optionsOf(KERNEL_FLAGS);
    expect(Object.keys(options)).toEqual(Object.keys(KERNEL_FLAGS));
    expect(options.promote).toEqual({ type: 'string', multiple: true, default: [] });
    expect(options.help).toEqual({ type: 'boolean', short: 'h', default: false });
    expect(options['notify-secret-file']).toEqual({ type: 'string' });
  });

  it("break-glass --cancel's form takes only break-glass's own flags", () => {
    for (const flag of Object.keys(BREAK_GLASS_CANCEL.flags))
      expect(BREAK_GLASS.flags).toHaveProperty(flag);
  });

  it('prints the help made from its table', async () => {
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: () => undefined };
    expect(await main(['kernel', '--help'], io, {})).toBe(0);
    expect(out.join('\n')).toBe(HELPS.kernel);
    expect(HELPS.kernel).toMatch(
      /^lease-gate kernel \[--host 127\.0\.0\.1\] \[--port 8787\] \[--ttl-ms 30000\] \[--lock-delay-ms N\] \[--data-prefix PATH\] \[--ledger FILE\] \[--quiet\]\n/,
    );
    expect(HELPS.kernel).toContain(
      '  --store postgres[://…] [--schema public] [--pool-size 10] --signing-key FILE: any number of replicas',
    );
    expect(HELPS['break-glass']).toContain(
      'lease-gate break-glass [--resource R] (--agent DID | --run OWNER/REPO/RUN_ID) --reason TEXT [--for DURATION]',
    );
    expect(HELPS.freeze).toContain('--reason TEXT [--until TIME | --for DURATION] [--by NAME]');
    expect(HELPS['approve-break-glass']).toContain('(--by NAME | --oidc-token-file FILE)');
    // Hidden: old names and the action's own.
    expect(HELPS.kernel).not.toContain('--state');
    expect(HELPS.kernel).not.toContain('--exit-with-pid');
  });
});
