import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Command, CommanderError } from 'commander';
import { apiBaseUrl, createPartnerClient, sendChanged, type FetchLike, type RetryPolicy } from './client';
import { certificationFlows, type FlowContext, type RequirementResult } from './flows';
import { escapeHtml, REPORT_CSS } from './report-html';
import { renderTrafficSummary, trafficReport, TrafficReportError } from './traffic-report';
import { listeningFile, readListening } from '../../src/cli/listening';

export { escapeHtml };

/**
 * Where the service is by default, and where that came from (said when nothing answers there): PUBLIC_BASE_URL, else
 * this machine on PORT, else where a local `npm start` said it listens (DATA_DIR/listening.json, from the working
 * directory: src/cli/listening.ts), else port 3000.
 */
export function baseUrlDefault(env: Record<string, string | undefined> = process.env): { url: string; from: string } {
  if (env.PUBLIC_BASE_URL) return { url: env.PUBLIC_BASE_URL, from: 'from PUBLIC_BASE_URL' };
  if (env.PORT) return { url: `http://127.0.0.1:${env.PORT}`, from: `from PORT=${env.PORT}` };
  const file = listeningFile(env.DATA_DIR);
  const listening = readListening(env.DATA_DIR);
  if (listening) return { url: listening.url, from: `where npm start said it listens (${file})` };
  return { url: 'http://127.0.0.1:3000', from: `the default: PORT is not set, and no running npm start wrote ${file}` };
}

export const defaultBaseUrl = (env: Record<string, string | undefined> = process.env): string => baseUrlDefault(env).url;
export const REPORT_JSON = 'certification-report.json';
export const REPORT_HTML = 'certification-report.html';

/** Said in every report, so that a green run is not read as more than it is. */
export const NOT_COVERED = [
  'partner_paused is provoked with the sandbox pause helper (or checked on an operator-paused account with --paused-key).',
  'Real 30-minute expiry is not waited for: expiry is provoked with the sandbox test helper.',
  "503, 429, the in-progress 409 and slow answers are the deployment's simulated faults (Sandbox-Simulate), not real outages; a network failure is a closed local port.",
  '413 payload_too_large and 400 validation details are not exercised.',
  'Production keys, go-live and key rotation are not exercised: certification runs on sandbox only.',
  'Load, concurrency and latency are not measured.',
  'Webhooks: only the first retry (after 5 s) is waited for; the later ones (5 min to 10 h), the 3-day disable and secret rotation are not.',
];

export interface CertifyOptions {
  /** Default: defaultBaseUrl(). */
  baseUrl?: string;
  /** Where baseUrl came from, for the message when nothing answers there (e.g. `from --base-url`). */
  baseUrlFrom?: string;
  key: string;
  /** The sandbox key of a paused account, to check the partner_paused decline. */
  pausedKey?: string;
  /** Where certification-report.json and .html go (default: the working directory); false writes nothing. */
  outDir?: string | false;
  fetch?: FetchLike;
  retryPolicy?: RetryPolicy;
  /** Called with each progress line as requirements finish. */
  onProgress?: (line: string) => void;
  /** The webhook receiver's port, and the URL that reaches it from the service (default: its local address). */
  webhooks?: { port?: number; publicUrl?: string };
}

export interface Report {
  report: 'transfers-v1 partner certification';
  base_url: string;
  key: string;
  env: string | null;
  run_id: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  result: 'passed' | 'failed';
  summary: { total: number; passed: number; failed: number; skipped: number };
  requirements: RequirementResult[];
  not_covered: string[];
  /** Where the report was written (not part of the JSON file). */
  files?: { json: string; html: string };
}

export class LiveKeyRefusedError extends Error {
  override readonly name = 'LiveKeyRefusedError';
  constructor(which: string) {
    super(
      `Refusing to certify with a live key (${which} starts with svc_sk_live_). Certification books and cancels real ` +
        'transfers: run it with your sandbox key (svc_sk_test_…).',
    );
  }
}

export class ServiceUnreachableError extends Error {
  override readonly name = 'ServiceUnreachableError';
  /** One line: the address tried, why it failed, where the address came from (`from`), and how to give another. */
  constructor(url: string, err: unknown, from?: string) {
    const e = err as { message?: string; cause?: { code?: string; message?: string } };
    super(
      `Cannot reach ${url}: ${e?.message ?? String(err)}${e?.cause ? ` (${e.cause.code ?? e.cause.message})` : ''}${from ? `, ${from}` : ''}. ` +
        'Is the service running there? Pass --base-url http://<host>:<port>, or PORT=<port> for one on this machine.',
    );
  }
}

/** A key as it may be shown: its non-secret prefix (`svc_sk_test_<id>_…`); nothing of a key of another shape. */
export function maskKey(key: string): string {
  const m = key.match(/^svc_sk_(?:test|live)_[a-z0-9]+_/);
  return m ? `${m[0]}…` : '(a key not of the form svc_sk_test_…)';
}

/** `text` with every occurrence of the secrets masked, and the secret part of anything shaped like one of our keys. */
export function redactKeys(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join(maskKey(s));
  return out.replace(/(svc_sk_(?:test|live)_[a-z0-9]+_)[A-Za-z0-9]+/g, '$1…');
}

const STATUS_LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

function progressLine(n: number, r: RequirementResult): string {
  const head = `  ${String(n).padStart(2)}  ${STATUS_LABEL[r.status]}  ${r.id.padEnd(32)} ${r.title} (${r.duration_ms} ms)`;
  return r.status === 'pass' || !r.detail ? head : `${head}\n                ${r.detail}`;
}

/** Every string in `value` (a report, a requirement) with the keys masked. */
function redactDeep<T>(value: T, secrets: ReadonlyArray<string | undefined>): T {
  if (typeof value === 'string') return redactKeys(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, secrets)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)])) as T;
  return value;
}

/**
 * Runs every certification flow against the service and writes the JSON and HTML reports. The keys appear in
 * neither, nor in the progress lines or the errors thrown: only their non-secret prefix (maskKey).
 */
export async function certify(opts: CertifyOptions): Promise<Report> {
  if (opts.key.startsWith('svc_sk_live_')) throw new LiveKeyRefusedError('PARTNER_API_KEY or --key');
  if (opts.pausedKey?.startsWith('svc_sk_live_')) throw new LiveKeyRefusedError('PARTNER_PAUSED_KEY or --paused-key');
  const secrets = [opts.key, opts.pausedKey];
  const given = opts.baseUrl ? { url: opts.baseUrl, from: opts.baseUrlFrom } : baseUrlDefault();
  const baseUrl = given.url.replace(/\/+$/, '');
  const baseUrlFrom = given.from;
  const progress = opts.onProgress;
  const say = (line: string) => progress?.(redactKeys(line, secrets));
  const started = new Date();
  const certifying = asCertification(opts.fetch);
  const clientFor = (apiKey: string) => createPartnerClient({ baseUrl, apiKey, fetch: certifying });
  const client = clientFor(opts.key);

  // The service's clock anchors every pickup time; a sandbox may run on another clock than ours.
  let serverNow = new Date();
  let env: string | null = null;
  try {
    const p = await client.ping();
    env = p.headers.get('x-service-env');
    const t = p.data ? Date.parse(p.data.time) : Number.NaN;
    if (!Number.isNaN(t)) serverNow = new Date(t);
  } catch (err) {
    const unreachable = new ServiceUnreachableError(apiBaseUrl(baseUrl), err, baseUrlFrom);
    unreachable.message = redactKeys(unreachable.message, secrets);
    throw unreachable;
  }

  const runId = `CERT-${started.toISOString().replace(/\D/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
  say(`Certifying ${apiBaseUrl(baseUrl)} with ${maskKey(opts.key)} (run ${runId})`);
  const requirements: RequirementResult[] = [];
  const ctx: FlowContext = {
    baseUrl,
    apiKey: opts.key,
    clientFor,
    pausedKey: opts.pausedKey,
    runId,
    serverNow,
    fetch: certifying,
    retryPolicy: opts.retryPolicy,
    webhooks: opts.webhooks,
    onRequirement: (r) => {
      requirements.push(r);
      say(progressLine(requirements.length, r));
    },
  };
  for (const flow of certificationFlows) await flow.run(client, ctx);

  const finished = new Date();
  const count = (s: RequirementResult['status']) => requirements.filter((r) => r.status === s).length;
  const summary = { total: requirements.length, passed: count('pass'), failed: count('fail'), skipped: count('skip') };
  const report: Report = {
    report: 'transfers-v1 partner certification',
    base_url: baseUrl,
    key: maskKey(opts.key),
    env,
    run_id: runId,
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    duration_ms: finished.getTime() - started.getTime(),
    result: summary.failed === 0 ? 'passed' : 'failed',
    summary,
    requirements: redactDeep(requirements, secrets),
    not_covered: NOT_COVERED,
  };
  if (opts.outDir !== false) {
    const dir = path.resolve(opts.outDir ?? process.cwd());
    fs.mkdirSync(dir, { recursive: true });
    const files = { json: path.join(dir, REPORT_JSON), html: path.join(dir, REPORT_HTML) };
    fs.writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(files.html, renderHtml(report));
    report.files = files;
  }
  return report;
}

/**
 * The User-Agent of every request a certification run sends: the service's integration report recognises it and
 * leaves the run's requests (and the deliveries to the webhook endpoint it registers) out of its grading, since the
 * run makes its mistakes on purpose (a reused partner_reference, simulated faults, a delivery answered 500).
 */
export const CERTIFY_USER_AGENT = 'lanka-certify/1';

/** A fetch that sends every request as the certification run's (CERTIFY_USER_AGENT), through `base`. */
export function asCertification(base: FetchLike = (req) => fetch(req)): FetchLike {
  return (req) => sendChanged(req, (h) => h.set('User-Agent', CERTIFY_USER_AGENT), base);
}

export function renderSummary(report: Report): string {
  const { total, passed, failed, skipped } = report.summary;
  const lines = ['', `${total} requirements: ${passed} passed, ${failed} failed, ${skipped} skipped (${(report.duration_ms / 1000).toFixed(1)} s)`];
  for (const r of report.requirements.filter((x) => x.status === 'fail')) lines.push(`  FAIL  ${r.id}: ${r.detail}`);
  for (const r of report.requirements.filter((x) => x.status === 'skip')) lines.push(`  SKIP  ${r.id}: ${r.detail}`);
  lines.push(`Result: ${report.result.toUpperCase()}`);
  if (report.files) lines.push(`Reports: ${report.files.json}`, `         ${report.files.html}`);
  return lines.join('\n');
}

export function renderHtml(report: Report): string {
  const e = escapeHtml;
  const rows = report.requirements
    .map((r, i) => {
      const evidence = r.evidence
        .map(
          (x) =>
            `<li>${x.label ? `${e(x.label)}: ` : ''}<code>${e(x.method)} ${e(x.path)}</code> → <b>${e(x.status ?? 'no response')}</b>` +
            `${x.request_id ? ` <code class="rid">${e(x.request_id)}</code>` : ''}${x.note ? ` <span class="rid">(${e(x.note)})</span>` : ''}</li>`,
        )
        .join('');
      return (
        `<tr class="${e(r.status)}" id="req-${e(r.id)}"><td class="num">${i + 1}</td><td><span class="badge ${e(r.status)}">${e(STATUS_LABEL[r.status])}</span></td>` +
        `<td><code>${e(r.id)}</code><br>${e(r.title)}</td><td class="detail">${e(r.detail)}</td>` +
        `<td>${evidence ? `<ul class="ev">${evidence}</ul>` : '<span class="rid">none</span>'}</td><td class="num">${e(r.duration_ms)} ms</td></tr>`
      );
    })
    .join('\n');
  const s = report.summary;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner certification: ${e(report.result)} (${e(report.run_id)})</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
<h1>Transfers API v1: partner certification</h1>
<p class="sub">What a partner integration must handle, checked against the service on a sandbox key.</p>
<span class="verdict ${e(report.result)}">${e(report.result.toUpperCase())}</span>
<dl class="meta">
<dt>Service</dt><dd>${e(apiBaseUrl(report.base_url))}</dd>
<dt>Key</dt><dd>${e(report.key)}</dd>
<dt>Environment</dt><dd>${e(report.env ?? 'unknown')}</dd>
<dt>Run</dt><dd>${e(report.run_id)}</dd>
<dt>Started</dt><dd>${e(report.started_at)}</dd>
<dt>Duration</dt><dd>${e((report.duration_ms / 1000).toFixed(1))} s</dd>
</dl>
<div class="counts">
<div class="count"><b>${e(s.total)}</b>requirements</div>
<div class="count pass"><b>${e(s.passed)}</b>passed</div>
<div class="count fail"><b>${e(s.failed)}</b>failed</div>
<div class="count skip"><b>${e(s.skipped)}</b>skipped</div>
</div>
<h2>Requirements</h2>
<table>
<colgroup><col class="n"><col class="r"><col class="q"><col class="d"><col><col class="t"></colgroup>
<thead><tr><th>#</th><th>Result</th><th>Requirement</th><th>Detail</th><th>Evidence (request → status, request id)</th><th>Time</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<h2>Not covered by this certification</h2>
<ul class="nc">${report.not_covered.map((n) => `<li>${e(n)}</li>`).join('')}</ul>
</main>
</body>
</html>
`;
}

/**
 * The CLI; returns the exit code: 0 no requirement failed, 1 one did (or the service is unreachable), 2 usage or a
 * refused key. The key comes from PARTNER_API_KEY (npm echoes a command line, so a key given as --key is shown by
 * `npm run certify`); nothing it prints shows more of a key than its non-secret prefix.
 */
export async function main(
  argv: string[] = process.argv,
  output: Pick<Console, 'log' | 'error'> = console,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  // Whatever is printed passes through here, the keys masked: commander's messages and errors included.
  const secrets: Array<string | undefined> = [env.PARTNER_API_KEY, env.PARTNER_PAUSED_KEY];
  const out = { log: (s: string) => output.log(redactKeys(s, secrets)), error: (s: string) => output.error(redactKeys(s, secrets)) };
  const program = new Command()
    .name('certify')
    .description('Certify a partner integration path against the Transfers API v1 sandbox. The key comes from PARTNER_API_KEY.')
    .option(
      '--base-url <url>',
      'service address (default: $PUBLIC_BASE_URL, else http://127.0.0.1:$PORT, else where a local npm start listens (./data/listening.json), else port 3000)',
    )
    .option('--key <key>', 'sandbox API key (svc_sk_test_…); prefer the environment variable PARTNER_API_KEY, which npm does not echo')
    .option('--paused-key <key>', 'sandbox key of an account an operator paused (default: the sandbox pause helper); prefer PARTNER_PAUSED_KEY')
    .option('--out <dir>', 'directory for the reports (certification-report.* or integration-report.*)', process.cwd())
    .option('--webhook-port <port>', 'port of the webhook receiver (default: any free port)')
    .option('--webhook-url <url>', 'a public URL that reaches the receiver, when the service cannot reach this machine directly')
    .option('--traffic', 'grade your own integration from your sandbox traffic instead (GET /test_helpers/integration_report); runs no flows')
    .option('--since <time>', 'with --traffic: grade requests since this time (ISO 8601; default the last 7 days)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) });
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
    throw err;
  }
  const o = program.opts<{
    baseUrl?: string;
    key?: string;
    pausedKey?: string;
    out: string;
    traffic?: boolean;
    since?: string;
    webhookPort?: string;
    webhookUrl?: string;
  }>();
  secrets.push(o.key, o.pausedKey);
  // The environment first: a key on the command line is the one to move out of it.
  const key = env.PARTNER_API_KEY || o.key;
  const pausedKey = env.PARTNER_PAUSED_KEY || o.pausedKey;
  if (!key) {
    out.error('No key: set PARTNER_API_KEY to your sandbox key, e.g. PARTNER_API_KEY=svc_sk_test_… npm run certify');
    return 2;
  }
  for (const [flag, name, given, used] of [
    ['--key', 'PARTNER_API_KEY', o.key, key],
    ['--paused-key', 'PARTNER_PAUSED_KEY', o.pausedKey, pausedKey],
  ] as const) {
    if (!given) continue;
    out.error(
      given === used
        ? `warning: ${flag} puts the key on the command line, which npm prints and shells keep in their history; set ${name} instead.`
        : `warning: ${flag} ignored: ${name} is set, and is used.`,
    );
  }
  const { url: baseUrl, from: baseUrlFrom } = o.baseUrl ? { url: o.baseUrl, from: 'from --base-url' } : baseUrlDefault(env);
  try {
    return await run({ ...o, key, pausedKey, baseUrl, baseUrlFrom }, out);
  } catch (err) {
    out.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}

async function run(
  o: {
    baseUrl: string;
    baseUrlFrom: string;
    key: string;
    pausedKey?: string;
    out: string;
    traffic?: boolean;
    since?: string;
    webhookPort?: string;
    webhookUrl?: string;
  },
  out: Pick<Console, 'log' | 'error'>,
): Promise<number> {
  if (o.traffic) {
    try {
      const report = await trafficReport({ baseUrl: o.baseUrl, key: o.key, since: o.since, outDir: o.out, onProgress: (l) => out.log(l) });
      out.log(renderTrafficSummary(report));
      return report.summary.fail === 0 ? 0 : 1;
    } catch (err) {
      if (err instanceof TrafficReportError) {
        out.error(err.message);
        return o.key.startsWith('svc_sk_live_') ? 2 : 1;
      }
      out.error(new ServiceUnreachableError(apiBaseUrl(o.baseUrl), err, o.baseUrlFrom).message);
      return 1;
    }
  }
  const webhooks = { port: o.webhookPort ? Number(o.webhookPort) : undefined, publicUrl: o.webhookUrl };
  try {
    const report = await certify({
      baseUrl: o.baseUrl,
      baseUrlFrom: o.baseUrlFrom,
      key: o.key,
      pausedKey: o.pausedKey,
      outDir: o.out,
      webhooks,
      onProgress: (l) => out.log(l),
    });
    out.log(renderSummary(report));
    return report.result === 'passed' ? 0 : 1;
  } catch (err) {
    if (err instanceof LiveKeyRefusedError) {
      out.error(err.message);
      return 2;
    }
    if (err instanceof ServiceUnreachableError) {
      out.error(err.message);
      return 1;
    }
    throw err;
  }
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(redactKeys(err instanceof Error ? (err.stack ?? err.message) : String(err), [process.env.PARTNER_API_KEY, process.env.PARTNER_PAUSED_KEY]));
      process.exitCode = 1;
    },
  );
}
