import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { itWithProgram } from '../../support/skip';

/**
 * The alert rules (deploy/prometheus/alerts.yml) as CI checks them: Debian's promtool must accept them
 * (`check rules`) and pass their unit tests (`test rules` on alerts.test.yml), and every alert has a runbook section
 * in docs/operations.md and unit tests that show it both firing and not firing. `.ci/run` installs promtool (the
 * `prometheus` package) when it is missing.
 */
const ROOT = path.join(__dirname, '../../..');
const RULES = 'deploy/prometheus/alerts.yml';
const RULE_TESTS = 'deploy/prometheus/alerts.test.yml';
const RUNBOOK = 'docs/operations.md';

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleTest {
  alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] | null }>;
}

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const alerts = (yaml.load(read(RULES)) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules).filter((r) => r.alert);

function promtool(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw new Error(`promtool could not run (${r.error.message}): install it with node scripts/system-programs.js install (as root)`);
  return { status: r.status, output: `$ promtool ${args.join(' ')}\n${r.stdout}${r.stderr}` };
}

const itWithPromtool = itWithProgram('promtool');

describe('The alert rules (deploy/prometheus)', () => {
  itWithPromtool('when promtool checks the rules, then they are valid', () => {
    const r = promtool('check', 'rules', RULES);
    expect({ status: r.status, output: r.output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  itWithPromtool("when promtool runs the rules' unit tests, then every one passes", () => {
    const r = promtool('test', 'rules', RULE_TESTS);
    // On failure the diff shows promtool's own report (expected and got alerts, labels and annotations).
    expect({ status: r.status, output: r.output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('when an alert is defined, then it has a severity, a summary and a runbook section in docs/operations.md', () => {
    const runbook = read(RUNBOOK);
    const headings = new Set([...runbook.matchAll(/^### (\S+)\s*$/gm)].map((m) => m[1]));
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const a of alerts) {
      const name = a.alert as string;
      expect({ name, severity: a.labels?.severity }).toEqual({ name, severity: expect.stringMatching(/^(critical|warning)$/) });
      expect({ name, summary: a.annotations?.summary }).toEqual({ name, summary: expect.any(String) });
      expect({ name, runbook_url: a.annotations?.runbook_url }).toEqual({ name, runbook_url: `${RUNBOOK}#${name.toLowerCase()}` });
      expect({ name, section: headings.has(name) }).toEqual({ name, section: true });
    }
    expect(new Set(alerts.map((a) => a.alert)).size).toBe(alerts.length);
  });

  it('when an alert is defined, then its unit tests show it firing and not firing', () => {
    const tests = (yaml.load(read(RULE_TESTS)) as { tests: RuleTest[] }).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const a of alerts) {
      const mine = tests.filter((t) => t.alertname === a.alert);
      const firing = mine.some((t) => (t.exp_alerts ?? []).length > 0);
      const silent = mine.some((t) => (t.exp_alerts ?? []).length === 0);
      expect({ alert: a.alert, firing, silent }).toEqual({ alert: a.alert, firing: true, silent: true });
    }
  });
});
