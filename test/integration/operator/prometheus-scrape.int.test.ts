import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { startTestApp, backend, type TestApp } from '../../support/test-app';
import { describeWithProgram } from '../../support/skip';
import { client } from '../../support/http';
import { OPS_HEADERS } from '../../support/fixtures';
import { freePort } from '../../support/net';

/**
 * Debian's real Prometheus (the `prometheus` package; `.ci/run` installs it) scrapes the service in-process as
 * docs/operations.md says to (the operator listener, /metrics, the operator token) and loads the alert rules of
 * deploy/prometheus/alerts.yml. A few requests later their counters are read back through its HTTP API, and every
 * rule evaluates against the real series without an error.
 */
const ROOT = path.join(__dirname, '../../..');
const RULES = path.join(ROOT, 'deploy/prometheus/alerts.yml');
const JOB = 'lanka-transfers';
const WAIT_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rules = () =>
  (yaml.load(fs.readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> }).groups.flatMap((g) => g.rules);
const alertNames = () =>
  rules()
    .flatMap((r) => (r.alert ? [r.alert] : []))
    .sort();

/** The metric names the alert expressions read (label names, functions and keywords left out). */
function metricsReadByRules(): string[] {
  const names = new Set<string>();
  for (const { expr } of rules()) {
    const bare = expr
      .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
      .replace(/\{[^}]*\}/g, '') // label matchers
      .replace(/\[[^\]]*\]/g, '') // ranges
      .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ''); // label lists
    for (const m of bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)) {
      if (!['and', 'or', 'unless', 'bool', 'offset'].includes(m[1])) names.add(m[1]);
    }
  }
  return [...names].sort();
}

describeWithProgram('prometheus')(`Prometheus scraping the service (${backend})`, () => {
  let app: TestApp;
  let dir: string;
  let prometheus: ChildProcess | undefined;
  let promLog = '';
  let promUrl: string;
  let target: string;

  /** Prometheus's HTTP API; on failure the message carries its log. */
  async function api<T = any>(pathAndQuery: string): Promise<T> {
    const res = await fetch(`${promUrl}${pathAndQuery}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${pathAndQuery}: ${body.error}\n${promLog}`);
    return body.data;
  }

  /** Polls `probe` every 500 ms until it returns something, for at most WAIT_MS. */
  async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const end = Date.now() + WAIT_MS;
    let last: unknown;
    while (Date.now() < end) {
      try {
        const r = await probe();
        if (r !== undefined) return r;
      } catch (e) {
        last = e;
      }
      await sleep(500);
    }
    let targets = '';
    try {
      targets = JSON.stringify((await api('/api/v1/targets')).activeTargets.map((t: any) => ({ health: t.health, lastError: t.lastError })));
    } catch {
      // Prometheus itself unreachable: the error below says so through its log
    }
    throw new Error(`${what}: nothing within ${WAIT_MS / 1000} s (targets: ${targets}; last error: ${last})\nprometheus log:\n${promLog}`);
  }

  beforeAll(async () => {
    app = await startTestApp();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prometheus-scrape-'));
    target = new URL(app.opsUrl).host;
    const scraper = await client(app.opsUrl)('POST', '/ops/v1/operators', { headers: OPS_HEADERS, body: { name: 'prometheus', role: 'metrics' } });
    if (scraper.status !== 201) throw new Error(`createOperator ${scraper.status} ${scraper.text}`);
    const scraperToken: string = scraper.body.token;
    // The scraper's token reads the metrics, and nothing of the operator API.
    if ((await client(app.opsUrl)('GET', '/ops/v1/ping', { headers: { Authorization: `Bearer ${scraperToken}` } })).status !== 403)
      throw new Error('a metrics token read the operator API');
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [RULES],
      // As docs/operations.md configures the scraper: a token of the metrics role, which reads /metrics and nothing else.
      scrape_configs: [{ job_name: JOB, metrics_path: '/metrics', authorization: { credentials: scraperToken }, static_configs: [{ targets: [target] }] }],
    };
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), yaml.dump(config));
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (d) => (promLog += d));
    prometheus.stderr!.on('data', (d) => (promLog += d));
    const spawned = await new Promise<Error | null>((resolve) => {
      prometheus!.once('error', resolve);
      prometheus!.once('spawn', () => resolve(null));
    });
    if (spawned) throw new Error(`prometheus could not start (${spawned.message}): install it with node scripts/system-programs.js install (as root)`);
    await eventually('prometheus ready', async () => ((await fetch(`${promUrl}/-/ready`)).ok ? true : undefined));
  }, 60_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus!.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await app?.close();
  }, 30_000);

  it('when the operator token is given, then /metrics answers the Prometheus text format with every metric the alert rules read', async () => {
    const call = client(app.opsUrl);
    expect((await call('GET', '/metrics')).status).toBe(401);
    const metrics = await call('GET', '/metrics', { headers: OPS_HEADERS });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const exposed = new Set([...metrics.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]));
    const read = metricsReadByRules();
    expect(read).toEqual(expect.arrayContaining(['http_requests_total', 'service_ready', 'audit_write_failures_total', 'outbox_failed']));
    // `up` is Prometheus's own, not the service's.
    expect(read.filter((name) => name !== 'up' && !exposed.has(name))).toEqual([]);
  });

  it('when requests have been served, then Prometheus scrapes their counter with its labels and evaluates every alert rule', async () => {
    const call = client(app.url);
    expect((await call('GET', '/transfers/v1/ping')).status).toBe(401);
    expect((await call('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);
    expect((await call('GET', '/ops/v1/ping', { headers: OPS_HEADERS })).status).toBe(200);

    const query = encodeURIComponent(`http_requests_total{job="${JOB}",surface="ops",status="200"}`);
    const result = await eventually('the ops pings in http_requests_total', async () => {
      const data = await api<{ resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> }>(
        `/api/v1/query?query=${query}`,
      );
      const ping = data.result.find((s) => s.metric.operation === 'getOpsPing' && Number(s.value[1]) >= 2);
      return ping ? data : undefined;
    });
    expect(result.resultType).toBe('vector');
    const ping = result.result.find((s) => s.metric.operation === 'getOpsPing')!;
    expect(ping.metric).toEqual({ __name__: 'http_requests_total', job: JOB, instance: target, surface: 'ops', operation: 'getOpsPing', status: '200' });
    expect(Number(ping.value[1])).toBeGreaterThanOrEqual(2);

    // The refused partner ping is on the transfers surface, with its status as a string.
    const refused = await api<{ result: Array<{ metric: Record<string, string> }> }>(
      `/api/v1/query?query=${encodeURIComponent(`http_requests_total{job="${JOB}",surface="transfers",status="401"}`)}`,
    );
    expect(refused.result.length).toBeGreaterThanOrEqual(1);

    // The service is ready, and Prometheus sees it up.
    const ready = await api<{ result: Array<{ value: [number, string] }> }>(`/api/v1/query?query=${encodeURIComponent(`service_ready{job="${JOB}"}`)}`);
    expect(ready.result.map((s) => s.value[1])).toEqual(['1']);

    // Every rule of alerts.yml loaded and evaluated against these series without an error (no many-to-many
    // matches, no type errors), and none fires against a healthy service.
    const evaluated = await eventually('every alert rule evaluated', async () => {
      const data = await api<{ groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string; state: string }> }> }>(
        '/api/v1/rules?type=alert',
      );
      const all = data.groups.flatMap((g) => g.rules);
      return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
    });
    expect(evaluated.map((r) => r.name).sort()).toEqual(alertNames());
    expect(evaluated.filter((r) => r.health !== 'ok').map((r) => ({ name: r.name, health: r.health, lastError: r.lastError }))).toEqual([]);
    expect(evaluated.filter((r) => r.state !== 'inactive').map((r) => ({ name: r.name, state: r.state }))).toEqual([]);
  }, 60_000);
});
