import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Command, CommanderError, Option } from 'commander';
import { apiBaseUrl, createPartnerClient, type FetchLike, type RetryPolicy } from './client';
import { certificationFlows, type FlowContext, type RequirementResult } from './flows';

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const REPORT_JSON = 'certification-report.json';
export const REPORT_HTML = 'certification-report.html';

/** Said in every report, so that a green run is not read as more than it is. */
export const NOT_COVERED = [
  'partner_paused is provoked with the sandbox pause helper (or checked on an operator-paused account with --paused-key).',
  'Real 30-minute expiry is not waited for: expiry is provoked with the sandbox test helper.',
  '503, in-progress 409 and network failures cannot be provoked on the service; the retry requirements exercise this client against local fake servers.',
  '429 rate_limited (reserved, not issued today), 413 payload_too_large and 400 validation details are not exercised.',
  'Production keys, go-live and key rotation are not exercised: certification runs on sandbox only.',
  'Load, concurrency and latency are not measured.',
];

export interface CertifyOptions {
  baseUrl?: string;
  key: string;
  /** The sandbox key of a paused account, to check the partner_paused decline. */
  pausedKey?: string;
  /** Where certification-report.json and .html go (default: the working directory); false writes nothing. */
  outDir?: string | false;
  fetch?: FetchLike;
  retryPolicy?: RetryPolicy;
  /** Called with each progress line as requirements finish. */
  onProgress?: (line: string) => void;
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
  constructor(url: string, err: unknown) {
    const e = err as { message?: string; cause?: { code?: string; message?: string } };
    super(`Cannot reach ${url}: ${e?.message ?? String(err)}${e?.cause ? ` (${e.cause.code ?? e.cause.message})` : ''}. Is the service running there?`);
  }
}

export function maskKey(key: string): string {
  const m = key.match(/^svc_sk_(?:test|live)_[a-z0-9]+_/);
  return m ? `${m[0]}…` : `${key.slice(0, 12)}…`;
}

const STATUS_LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

function progressLine(n: number, r: RequirementResult): string {
  const head = `  ${String(n).padStart(2)}  ${STATUS_LABEL[r.status]}  ${r.id.padEnd(32)} ${r.title} (${r.duration_ms} ms)`;
  return r.status === 'pass' || !r.detail ? head : `${head}\n                ${r.detail}`;
}

/** Runs every certification flow against the service and writes the JSON and HTML reports. */
export async function certify(opts: CertifyOptions): Promise<Report> {
  if (opts.key.startsWith('svc_sk_live_')) throw new LiveKeyRefusedError('--key');
  if (opts.pausedKey?.startsWith('svc_sk_live_')) throw new LiveKeyRefusedError('--paused-key');
  const baseUrl = (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const say = opts.onProgress ?? (() => {});
  const started = new Date();
  const clientFor = (apiKey: string) => createPartnerClient({ baseUrl, apiKey, fetch: opts.fetch });
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
    throw new ServiceUnreachableError(apiBaseUrl(baseUrl), err);
  }

  const runId = `CERT-${started.toISOString().replace(/\D/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
  say(`Certifying ${apiBaseUrl(baseUrl)} with ${maskKey(opts.key)} (run ${runId})`);
  const requirements: RequirementResult[] = [];
  const ctx: FlowContext = {
    baseUrl,
    clientFor,
    pausedKey: opts.pausedKey,
    runId,
    serverNow,
    fetch: opts.fetch,
    retryPolicy: opts.retryPolicy,
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
    requirements,
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

export function renderSummary(report: Report): string {
  const { total, passed, failed, skipped } = report.summary;
  const lines = [
    '',
    `${total} requirements: ${passed} passed, ${failed} failed, ${skipped} skipped (${(report.duration_ms / 1000).toFixed(1)} s)`,
  ];
  for (const r of report.requirements.filter((x) => x.status === 'fail')) lines.push(`  FAIL  ${r.id}: ${r.detail}`);
  for (const r of report.requirements.filter((x) => x.status === 'skip')) lines.push(`  SKIP  ${r.id}: ${r.detail}`);
  lines.push(`Result: ${report.result.toUpperCase()}`);
  if (report.files) lines.push(`Reports: ${report.files.json}`, `         ${report.files.html}`);
  return lines.join('\n');
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding:32px;font:14px/1.45 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:1160px;margin:0 auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:28px 32px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 10px}
.sub{color:#57606a;margin:0 0 20px}
.verdict{display:inline-block;font-weight:700;padding:4px 12px;border-radius:999px;font-size:13px;letter-spacing:.04em}
.verdict.passed{background:#dafbe1;color:#116329;border:1px solid #4ac26b}
.verdict.failed{background:#ffebe9;color:#a40e26;border:1px solid #ff8182}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:16px 0}
dl.meta dt{color:#57606a}dl.meta dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.counts{display:flex;gap:12px;margin:18px 0 8px}
.count{flex:1;border:1px solid #d0d7de;border-radius:6px;padding:10px 14px}
.count b{display:block;font-size:24px}
.count.pass b{color:#1a7f37}.count.fail b{color:#cf222e}.count.skip b{color:#9a6700}
table{width:100%;border-collapse:collapse;font-size:13px;table-layout:fixed}
col.n{width:36px}col.r{width:64px}col.q{width:27%}col.d{width:24%}col.t{width:76px}
td code{overflow-wrap:anywhere}
th{text-align:left;background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:8px;white-space:nowrap}
td{border-bottom:1px solid #eaeef2;padding:8px;vertical-align:top;overflow-wrap:anywhere}
tr.fail td{background:#fff5f5}
.badge{display:inline-block;min-width:44px;text-align:center;font-weight:700;font-size:11px;padding:2px 6px;border-radius:4px}
.badge.pass{background:#dafbe1;color:#116329}.badge.fail{background:#ffebe9;color:#a40e26}.badge.skip{background:#fff8c5;color:#7d4e00}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.rid{color:#57606a}
ul.ev{margin:0;padding-left:16px}ul.ev li{margin:0 0 2px}
.num{text-align:right;white-space:nowrap;color:#57606a}
.detail{color:#57606a}tr.fail .detail{color:#a40e26}
ul.nc{color:#57606a;padding-left:20px}
`;

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
<style>${CSS}</style>
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

/** The CLI; returns the exit code: 0 no requirement failed, 1 one did (or the service is unreachable), 2 usage or a refused key. */
export async function main(argv: string[] = process.argv, out: Pick<Console, 'log' | 'error'> = console): Promise<number> {
  const program = new Command()
    .name('certify')
    .description('Certify a partner integration path against the Transfers API v1 sandbox.')
    .option('--base-url <url>', 'service address', DEFAULT_BASE_URL)
    .addOption(new Option('--key <key>', 'sandbox API key (svc_sk_test_…)').env('PARTNER_API_KEY').makeOptionMandatory())
    .addOption(new Option('--paused-key <key>', 'sandbox key of an account an operator paused (default: the sandbox pause helper)').env('PARTNER_PAUSED_KEY'))
    .option('--out <dir>', 'directory for certification-report.json and .html', process.cwd())
    .exitOverride()
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) });
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
    throw err;
  }
  const o = program.opts<{ baseUrl: string; key: string; pausedKey?: string; out: string }>();
  try {
    const report = await certify({ baseUrl: o.baseUrl, key: o.key, pausedKey: o.pausedKey, outDir: o.out, onProgress: (l) => out.log(l) });
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
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
