import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The alert rules in docs/deploy are valid (promtool check rules) and do what their unit
 * tests say (promtool test rules); the dashboard is JSON whose queries name only metrics
 * the kernel or the App serves (docs/metrics.md lists them).
 */

const PROMTOOL = '/usr/bin/promtool';
const installed = existsSync(PROMTOOL);
if (!installed && process.env.CI)
  throw new Error(`${PROMTOOL} is needed in CI: apt-get install prometheus`);
if (!installed) console.warn('metrics-rules: promtool checks skipped (apt-get install prometheus)');

const promtool = (...args: string[]) => {
  const run = spawnSync(PROMTOOL, args, { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
};

describe.skipIf(!installed)('the alert rules', () => {
  it('pass promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', 'docs/deploy/alerts.yml');
    expect(output).toContain('SUCCESS: 6 rules found');
    expect(status).toBe(0);
  });

  it('pass their unit tests (promtool test rules)', () => {
    const { status, output } = promtool('test', 'rules', 'docs/deploy/alerts.test.yml');
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });
});

describe('the dashboard', () => {
  it('queries only metrics docs/metrics.md lists', () => {
    const dashboard = JSON.parse(readFileSync('docs/deploy/grafana-dashboard.json', 'utf8')) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const listed = new Set(readFileSync('docs/metrics.md', 'utf8').match(/lease_gate_\w+/g));
    const queried = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    expect(queried.length).toBeGreaterThan(5);
    for (const expr of queried) {
      for (const name of expr.match(/lease_gate_\w+/g) ?? []) {
        expect(listed, `${name} in "${expr}"`).toContain(name.replace(/_(bucket|count|sum)$/, ''));
      }
    }
  });
});
