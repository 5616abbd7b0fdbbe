import fs from 'node:fs';
import path from 'node:path';
import { apiBaseUrl, createPartnerClient, type FetchLike, type IntegrationReport } from './client';
import { escapeHtml, REPORT_CSS } from './report-html';

export const TRAFFIC_JSON = 'integration-report.json';
export const TRAFFIC_HTML = 'integration-report.html';

export interface TrafficOptions {
  baseUrl: string;
  key: string;
  /** Grade requests since this time (ISO 8601); the service defaults to 7 days. */
  since?: string;
  /** Where integration-report.json and .html go; false writes nothing. */
  outDir?: string | false;
  fetch?: FetchLike;
  onProgress?: (line: string) => void;
}

export type TrafficReport = IntegrationReport & { base_url: string; request_id: string | null; files?: { json: string; html: string } };

const LABEL = { pass: 'PASS', fail: 'FAIL', not_seen: 'NOT SEEN' } as const;

/** The traffic report refused: not a sandbox key, or the service answered something else than the report. */
export class TrafficReportError extends Error {
  override readonly name = 'TrafficReportError';
}

/**
 * Grades the partner's own integration: asks the deployment for the integration report of the key's sandbox
 * traffic (GET /test_helpers/integration_report), prints it requirement by requirement, and writes it as JSON and
 * HTML. Nothing is sent but that one request, so the report grades the partner's client, not this one.
 */
export async function trafficReport(opts: TrafficOptions): Promise<TrafficReport> {
  if (opts.key.startsWith('svc_sk_live_')) throw new TrafficReportError('The integration report reads sandbox traffic: use your sandbox key (svc_sk_test_…).');
  const say = opts.onProgress ?? (() => {});
  const base = apiBaseUrl(opts.baseUrl);
  say(`Reading your sandbox traffic on ${base}${opts.since ? ` since ${opts.since}` : ' (the last 7 days)'}…`);
  const r = await createPartnerClient({ baseUrl: opts.baseUrl, apiKey: opts.key, fetch: opts.fetch }).integrationReport(opts.since);
  if (r.status !== 200 || !r.data)
    throw new TrafficReportError(
      `The service answered ${r.status}${r.error ? ` ${r.error.code}: ${r.error.message}` : ''} (request ${r.requestId ?? 'without id'}).`,
    );
  const report: TrafficReport = { ...r.data, base_url: opts.baseUrl, request_id: r.requestId };
  say(`${report.requests_seen} requests from ${report.window.from} to ${report.window.to} (report request ${r.requestId}):`);
  report.requirements.forEach((q, i) => {
    say(`  ${String(i + 1).padStart(2)}  ${LABEL[q.status].padEnd(8)}  ${q.id.padEnd(28)} ${q.detail}`);
    if (q.status === 'fail') for (const e of q.evidence) say(`                ${e.request_id}  ${e.at}  ${e.detail}`);
  });
  if (opts.outDir !== false) {
    const dir = path.resolve(opts.outDir ?? process.cwd());
    fs.mkdirSync(dir, { recursive: true });
    const files = { json: path.join(dir, TRAFFIC_JSON), html: path.join(dir, TRAFFIC_HTML) };
    fs.writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(files.html, renderTrafficHtml(report));
    report.files = files;
  }
  return report;
}

export function renderTrafficSummary(report: TrafficReport): string {
  const { pass, fail, not_seen } = report.summary;
  const lines = ['', `${report.requirements.length} requirements: ${pass} passed, ${fail} failed, ${not_seen} not seen`];
  for (const q of report.requirements.filter((x) => x.status === 'not_seen')) lines.push(`  NOT SEEN  ${q.id}: ${q.detail}`);
  lines.push(`Result: ${fail ? 'FAILED' : 'PASSED'}${not_seen ? ` (${not_seen} not seen: provoke them in sandbox and run again)` : ''}`);
  if (report.files) lines.push(`Reports: ${report.files.json}`, `         ${report.files.html}`);
  return lines.join('\n');
}

export function renderTrafficHtml(report: TrafficReport): string {
  const e = escapeHtml;
  const badge = { pass: 'pass', fail: 'fail', not_seen: 'skip' } as const;
  const rows = report.requirements
    .map(
      (q, i) =>
        `<tr class="${badge[q.status]}" id="req-${e(q.id)}"><td class="num">${i + 1}</td><td><span class="badge ${badge[q.status]}">${e(LABEL[q.status])}</span></td>` +
        `<td><code>${e(q.id)}</code><br>${e(q.title)}</td><td class="detail">${e(q.detail)}</td>` +
        `<td>${q.evidence.length ? `<ul class="ev">${q.evidence.map((x) => `<li><code class="rid">${e(x.request_id)}</code> ${e(x.at)}<br>${e(x.detail)}</li>`).join('')}</ul>` : '<span class="rid">none</span>'}</td></tr>`,
    )
    .join('\n');
  const s = report.summary;
  const verdict = s.fail ? 'failed' : 'passed';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Integration report: ${e(verdict)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
<h1>Transfers API v1: your integration, graded from your sandbox traffic</h1>
<p class="sub">What your client did, read back from the service's audit log: each requirement passes, fails (with the requests that show why) or was not seen.</p>
<span class="verdict ${verdict}">${e(verdict.toUpperCase())}</span>
<dl class="meta">
<dt>Service</dt><dd>${e(apiBaseUrl(report.base_url))}</dd>
<dt>Window</dt><dd>${e(report.window.from)} → ${e(report.window.to)}</dd>
<dt>Requests read</dt><dd>${e(report.requests_seen)}</dd>
<dt>Report request</dt><dd>${e(report.request_id ?? '')}</dd>
</dl>
<div class="counts">
<div class="count"><b>${e(report.requirements.length)}</b>requirements</div>
<div class="count pass"><b>${e(s.pass)}</b>passed</div>
<div class="count fail"><b>${e(s.fail)}</b>failed</div>
<div class="count skip"><b>${e(s.not_seen)}</b>not seen</div>
</div>
<h2>Requirements</h2>
<table>
<colgroup><col class="n"><col class="r"><col class="q"><col class="d"><col></colgroup>
<thead><tr><th>#</th><th>Result</th><th>Requirement</th><th>Detail</th><th>Evidence (request id, time, what happened)</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<h2>Provoking what was not seen</h2>
<ul class="nc"><li>Send <code>Sandbox-Simulate: service_unavailable</code>, <code>rate_limited</code> or <code>idempotency_in_progress</code> on the first attempt of a request, and let your client retry as it would.</li>
<li>Expire an offer with <code>POST /test_helpers/offers/{offer_id}/expire</code>, then book it.</li>
<li>Ask for a pickup under 24 hours ahead to be declined <code>short_notice</code>.</li>
<li>Register a sandbox webhook endpoint (<code>POST /webhook_endpoints</code>) to have its answers graded, then book, or send it a ping with <code>POST /webhook_endpoints/{endpoint_id}/test</code>.</li></ul>
</main>
</body>
</html>
`;
}
