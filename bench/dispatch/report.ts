/** The dispatch benchmark's report: the table (bench/results/dispatch.md, and docs/performance.md) and the chart (dispatch.svg). */
import type { Bounded, Optimum } from './optimum';
import type { Score } from './score';

export interface DispatchRow {
  jobs: number;
  drivers: number;
  seed: number;
  greedy: Score;
  plan: Score & { ms: number[]; medianMs: number };
  optimum: Omit<Optimum, 'driverOf'> & { driverOf?: undefined };
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}
export interface DispatchReport {
  generatedAt: string;
  node: string;
  mipSeconds: number;
  rows: DispatchRow[];
}

const bounded = (b: Bounded, unit: string) => (b.proven ? `${b.best}${unit}` : `${b.best}${unit} (bound ${b.bound}${unit})`);

export function dispatchMarkdown(r: DispatchReport): string {
  const head =
    '| Day | Coverage: planDay | greedy | optimum | Deadhead km: planDay | greedy | optimum (or bound) | planDay ÷ optimum | planDay ÷ greedy | planDay ms (median) | MIP s |\n' +
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|';
  const rows = r.rows.map((x) =>
    [
      `${x.jobs} jobs, ${x.drivers} drivers`,
      x.plan.covered,
      x.greedy.covered,
      bounded(x.optimum.coverage, ''),
      x.plan.deadheadKm.toFixed(1),
      x.greedy.deadheadKm.toFixed(1),
      x.optimum.deadheadKm.proven
        ? x.optimum.deadheadKm.best.toFixed(1)
        : `≥ ${x.optimum.deadheadKm.bound.toFixed(1)} (best found ${x.optimum.deadheadKm.best.toFixed(1)})`,
      // Against a plan covering other jobs, a ratio of km says nothing.
      x.plan.covered === x.optimum.coverage.best ? (x.plan.deadheadKm / x.optimum.deadheadKm.bound).toFixed(3) : '— (covers fewer)',
      (x.plan.deadheadKm / x.greedy.deadheadKm).toFixed(3),
      x.plan.medianMs.toFixed(0),
      x.optimum.seconds.toFixed(1),
    ].join(' | '),
  );
  const checks = r.rows.flatMap((x) => x.checks.map((c) => `- ${x.jobs} jobs: ${c.ok ? 'ok' : '**MISSED**'}: ${c.name} — ${c.detail}`));
  return [
    `${r.generatedAt.slice(0, 16).replace('T', ' ')} UTC, Node ${r.node}; MIP: HiGHS, ${r.mipSeconds} s for each stage (coverage, then deadhead).`,
    '',
    `${head}\n${rows.map((x) => `| ${x} |`).join('\n')}`,
    '',
    ...checks,
    '',
  ].join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Deadhead km per day, three bars each (greedy, planDay, the optimum or its bound), with coverage beside each bar. */
export function dispatchSvg(r: DispatchReport): string {
  const series: Array<{ name: string; colour: string; km: (x: DispatchRow) => number; covered: (x: DispatchRow) => string }> = [
    { name: 'Greedy (earliest free driver)', colour: '#999999', km: (x) => x.greedy.deadheadKm, covered: (x) => `${x.greedy.covered}` },
    { name: 'planDay', colour: '#1f6fb2', km: (x) => x.plan.deadheadKm, covered: (x) => `${x.plan.covered}` },
    {
      name: 'Optimum (MIP), or its proven lower bound',
      colour: '#e08a1e',
      km: (x) => x.optimum.deadheadKm.bound,
      covered: (x) => `${x.optimum.coverage.proven ? '' : '≤ '}${x.optimum.coverage.bound}`,
    },
  ];
  const left = 170;
  const plotW = 520;
  const barH = 16;
  const groupH = series.length * barH + 18;
  const top = 40;
  const max = Math.max(...r.rows.flatMap((x) => series.map((s) => s.km(x))));
  const step = 10 ** Math.floor(Math.log10(max)) / 5;
  const axis = Math.ceil(max / step) * step;
  const out: string[] = [`<text x="0" y="20" font-size="14" font-weight="bold">Deadhead km per day (labels: km, jobs covered of the day)</text>`];
  const bottom = top + r.rows.length * groupH;
  for (let m = 0; m <= axis + 1e-9; m += step) {
    const x = left + (m / axis) * plotW;
    out.push(
      `<line x1="${x}" y1="${top - 6}" x2="${x}" y2="${bottom}" stroke="#bbb" stroke-dasharray="3,3"/><text x="${x}" y="${bottom + 14}" font-size="11" text-anchor="middle" fill="#555">${m}</text>`,
    );
  }
  r.rows.forEach((x, i) => {
    const y0 = top + i * groupH;
    out.push(`<text x="${left - 8}" y="${y0 + groupH / 2}" font-size="12" text-anchor="end">${x.jobs} jobs, ${x.drivers} drivers</text>`);
    series.forEach((s, j) => {
      const w = Math.max(1, (s.km(x) / axis) * plotW);
      out.push(`<rect x="${left}" y="${y0 + j * barH}" width="${w.toFixed(1)}" height="${barH - 3}" fill="${s.colour}"/>`);
      out.push(`<text x="${left + w + 4}" y="${y0 + j * barH + barH - 5}" font-size="11">${s.km(x).toFixed(0)} km, ${esc(s.covered(x))} of ${x.jobs}</text>`);
    });
  });
  const legendY = bottom + 36;
  series.forEach((s, j) => {
    out.push(
      `<rect x="${left + j * 230}" y="${legendY - 10}" width="12" height="12" fill="${s.colour}"/><text x="${left + j * 230 + 18}" y="${legendY}" font-size="12">${esc(s.name)}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${left + plotW + 220}" height="${legendY + 16}" font-family="sans-serif" role="img" aria-label="Dispatch benchmark: deadhead km">\n<rect width="100%" height="100%" fill="white"/>\n${out.join('\n')}\n</svg>\n`;
}
