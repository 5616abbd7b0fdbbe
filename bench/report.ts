/** The benchmark's report: bench/results/latest.md (tables), latest.json (everything), ratios.svg (the chart). */
import fs from 'node:fs';
import path from 'node:path';
import { fmtInt, RESULTS_DIR, type BenchReport, type DatabaseReport } from './http.bench';

const TARGETS: Record<string, string> = { quote: '≥ 0.6', booking: '≥ 0.5', replay: '≥ booking' };

export function databaseTable(d: DatabaseReport): string {
  const head = '| Scenario | req/s | p50 ms | p99 ms | ceiling req/s | × ceiling | target | × baseline | RSS MB |\n|---|--:|--:|--:|--:|--:|:-:|--:|--:|';
  const rows = d.rows.map((r) =>
    [
      `${r.ok ? '' : '**FAILED** '}${r.name}`,
      fmtInt(r.requestsPerSec),
      r.p50Ms.toFixed(2),
      r.p99Ms.toFixed(2),
      r.ceiling ? fmtInt(r.ceiling.requestsPerSec) : '—',
      r.ratioToCeiling !== undefined ? r.ratioToCeiling.toFixed(2) : '—',
      TARGETS[r.id] ?? '',
      r.ratioToBaseline !== undefined ? r.ratioToBaseline.toFixed(3) : '1.000',
      r.rssMb ?? '—',
    ].join(' | '),
  );
  return [head, ...rows.map((r) => `| ${r} |`)].join('\n');
}

export function markdownReport(r: BenchReport, engine?: { output: string; exitCode: number | null }): string {
  const s = r.settings;
  const lines = [
    '# Benchmark results',
    '',
    `${r.generatedAt.slice(0, 16).replace('T', ' ')} UTC, commit ${r.commit ?? 'unknown'}. Machine: ${r.machine.cpus} cores (${r.machine.cpuModel}), ` +
      `shared by the service, the database and the load generator; Node ${r.machine.node}, PostgreSQL ${r.machine.postgres}, ${r.machine.os}.`,
    '',
    `${s.connections} connections, ${s.warmupSeconds} s warm-up then ${s.seconds} s measured per row. The service runs as \`npm start\` runs it ` +
      '(node dist/src/main.js, NODE_ENV=production, logs off) in its own process; autocannon runs in another; latency is client-side, exact ' +
      'percentiles over every measured response. The ceiling of a scenario is the database alone doing the same writes per request ' +
      '(the same statement, built by the same code: rows, indexes, partitions, assertions and an audit row of the same size), one ' +
      'statement per request from a plain driver at the same concurrency (bench/ceiling.ts). The baseline is a bare Express 5 JSON echo ' +
      'in its own process. Both are measured in the same run, so read the ratios: the machine is shared and noisy.',
    '',
    '![Ratios to the ceiling and to the baseline](ratios.svg)',
  ];
  for (const d of r.databases) {
    lines.push('', `## ${d.label}`, '', databaseTable(d), '', ...d.checks.map((c) => `- ${c.ok ? 'ok' : '**FAILED**'}: ${c.name} — ${c.detail}`));
    if (d.growth) {
      const g = d.growth;
      lines.push(
        '',
        `### Growth: ${fmtInt(g.seeded.audit)} audit rows, ${fmtInt(g.seeded.quotes)} quotes (${fmtInt(g.seeded.quotes * 8)} offers), ${fmtInt(g.seeded.bookings)} bookings`,
        '',
        '| Scenario | req/s | p50 ms | p99 ms | p50 ÷ empty database |\n|---|--:|--:|--:|--:|',
        ...g.rows.map((x) => `| ${x.name} | ${fmtInt(x.requestsPerSec)} | ${x.p50Ms.toFixed(2)} | ${x.p99Ms.toFixed(2)} | ${g.p50Ratio[x.id].toFixed(2)} |`),
        '',
        `Query plans on the grown tables: ${g.plans.explained} distinct statements (every operation of every surface, the outbox and retention passes) explained; ${g.plans.violations.length} sequential scans of a large table.`,
      );
    }
  }
  if (engine) lines.push('', '## Quote engine, in-process (bench/quote-engine.bench.ts)', '', '```', engine.output.trim(), '```');
  lines.push('', 'Reproduce: `npm run bench` (BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS, BENCH_DATABASES, BENCH_GROWTH, BENCH_DATABASE_URL).', '');
  return lines.join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Two panels of horizontal bars: each scenario's ratio to its ceiling, and to the baseline, per database. */
export function svgChart(r: BenchReport): string {
  const scenarios = ['ping', 'quote', 'booking', 'replay', 'search'];
  const names: Record<string, string> = { ping: 'Ping', quote: 'Quote', booking: 'Booking', replay: 'Replay', search: 'Marketplace search' };
  const colours = ['#1f6fb2', '#e08a1e'];
  const width = 900;
  const barH = 14;
  const groupH = r.databases.length * barH + 12;
  const panelH = scenarios.length * groupH + 40;
  const left = 150;
  const plotW = 300;
  const out: string[] = [];
  /** A panel whose axis runs in `step`s from 0 to at least `floor`, and far enough to hold the largest value. */
  const panel = (x0: number, title: string, value: (d: DatabaseReport, id: string) => number | undefined, floor: number, step: number) => {
    const values = r.databases.flatMap((d) => scenarios.map((id) => value(d, id) ?? 0));
    const steps = Math.ceil(Math.max(floor, ...values) / step - 1e-9);
    const max = steps * step;
    const marks = Array.from({ length: steps + 1 }, (_, i) => Number((i * step).toFixed(2)));
    out.push(`<text x="${x0}" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`);
    for (const m of marks) {
      const x = x0 + left + (m / max) * plotW;
      out.push(
        `<line x1="${x}" y1="30" x2="${x}" y2="${panelH}" stroke="#bbb" stroke-dasharray="3,3"/><text x="${x}" y="${panelH + 14}" font-size="11" text-anchor="middle" fill="#555">${m}</text>`,
      );
    }
    scenarios.forEach((id, i) => {
      const y0 = 36 + i * groupH;
      out.push(`<text x="${x0 + left - 8}" y="${y0 + groupH / 2}" font-size="12" text-anchor="end">${names[id]}</text>`);
      r.databases.forEach((d, j) => {
        const v = value(d, id);
        if (v === undefined) return;
        const w = Math.max(1, (v / max) * plotW);
        out.push(`<rect x="${x0 + left}" y="${y0 + j * barH}" width="${w.toFixed(1)}" height="${barH - 2}" fill="${colours[j % 2]}"/>`);
        out.push(`<text x="${x0 + left + w + 4}" y="${y0 + j * barH + barH - 4}" font-size="11">${v.toFixed(2)}</text>`);
      });
    });
  };
  const rowOf = (d: DatabaseReport, id: string) => d.rows.find((x) => x.id === id);
  panel(0, 'Service ÷ ceiling (the database alone, same writes)', (d, id) => rowOf(d, id)?.ratioToCeiling, 1, 0.25);
  panel(width / 2, 'Service ÷ baseline (bare Express echo)', (d, id) => rowOf(d, id)?.ratioToBaseline, 0.5, 0.1);
  const legendY = panelH + 36;
  r.databases.forEach((d, j) => {
    out.push(
      `<rect x="${left + j * 260}" y="${legendY - 10}" width="12" height="12" fill="${colours[j % 2]}"/><text x="${left + j * 260 + 18}" y="${legendY}" font-size="12">${esc(d.label)}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width + 60}" height="${legendY + 16}" font-family="sans-serif" role="img" aria-label="Benchmark ratios">\n<rect width="100%" height="100%" fill="white"/>\n${out.join('\n')}\n</svg>\n`;
}

export function writeResults(r: BenchReport, engine?: { output: string; exitCode: number | null }): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(
    path.join(RESULTS_DIR, 'latest.json'),
    `${JSON.stringify({ ...r, ...(engine ? { engine: { exitCode: engine.exitCode, output: engine.output.trim().split('\n') } } : {}) }, null, 2)}\n`,
  );
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), markdownReport(r, engine));
  fs.writeFileSync(path.join(RESULTS_DIR, 'ratios.svg'), svgChart(r));
}
