/**
 * `npm run bench:dispatch` (builds, then runs this): the day planner against known answers, on seeded Sri Lanka days
 * of 30, 100 and 300 jobs (bench/dispatch/day.ts). For each day:
 *
 *   1. the greedy baseline: each job, in pickup order, to the driver free soonest (bench/dispatch/greedy.ts);
 *   2. `planDay`, scored by the same yardstick (bench/dispatch/score.ts: the hard rules, the deadhead), and timed in
 *      processes of its own, one core, the median of three (bench/dispatch/time-plan.ts);
 *   3. the optimum: the MIP through HiGHS, 60 s for each of its two stages (bench/dispatch/optimum.ts); where it does
 *      not finish, its proven bounds.
 *
 * Prints as it goes; writes bench/results/dispatch.json, dispatch.md and dispatch.svg (the table and the chart that
 * docs/performance.md shows); exits 1 if a target is missed. Options: DISPATCH_MIP_SECONDS (60), DISPATCH_TIMINGS (3).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { planDay } from '../../src/domain/dispatch/planner';
import { makeDay, SIZES } from './day';
import { greedyPlan } from './greedy';
import { optimum } from './optimum';
import { dispatchMarkdown, dispatchSvg, type DispatchReport, type DispatchRow } from './report';
import { score } from './score';

const MIP_SECONDS = Number(process.env.DISPATCH_MIP_SECONDS ?? 60);
const TIMINGS = Number(process.env.DISPATCH_TIMINGS ?? 3);
const RESULTS_DIR = path.join(__dirname, '..', '..', '..', 'bench', 'results');

/** The targets of issue 31. */
const TARGETS = { deadheadVsOptimum: 1.02, lessThanGreedy: 0.75, planMs: 5000 };

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const rows: DispatchRow[] = [];
  for (const size of SIZES) {
    const tag = `[${size.jobs} jobs, ${size.drivers} drivers]`;
    const day = makeDay(size);
    const greedy = score(day.jobs, day.drivers, greedyPlan(day.jobs, day.drivers));
    say(`${tag} greedy: ${greedy.covered} covered, ${greedy.deadheadKm} km deadhead`);
    const plan = planDay(day.jobs, day.drivers);
    const planned = score(day.jobs, day.drivers, new Map(plan.assignments.map((a) => [a.jobId, a.driverId])));
    const ms = Array.from({ length: TIMINGS }, (_, i) => {
      const run = spawnSync(process.execPath, [path.join(__dirname, 'time-plan.js'), String(size.jobs)], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`time-plan.js failed: ${run.stderr}`);
      say(`${tag} planDay timing ${i + 1}/${TIMINGS}: ${Number(run.stdout).toFixed(0)} ms`);
      return Number(run.stdout);
    }).sort((a, b) => a - b);
    const medianMs = ms[Math.floor(ms.length / 2)];
    say(`${tag} planDay: ${planned.covered} covered, ${planned.deadheadKm} km deadhead, ${medianMs.toFixed(0)} ms (median)`);
    say(`${tag} MIP (HiGHS, ${MIP_SECONDS} s at most)…`);
    const best = await optimum(day.jobs, day.drivers, {
      timeLimitSec: MIP_SECONDS,
      progress: (stage, seconds, found, bound) =>
        say(`${tag}   ${seconds.toFixed(0)} s, ${stage}: best ${describeBound(stage, found)}, bound ${describeBound(stage, bound)}`),
    });
    const check = score(day.jobs, day.drivers, best.driverOf);
    if (check.covered !== best.coverage.best || Math.abs(check.deadheadKm - best.deadheadKm.best) > 0.05)
      throw new Error(`the MIP's plan scores ${JSON.stringify(check)}, not what it claims`);
    say(
      `${tag} MIP: ${best.coverage.proven ? 'optimum' : 'best found'} ${best.coverage.best} covered (bound ${best.coverage.bound}), ` +
        `deadhead ${best.deadheadKm.best} km (${best.deadheadKm.proven ? 'optimal' : `bound ${best.deadheadKm.bound}`}); ` +
        `${best.size.classes} classes, ${best.size.columns} arcs, ${best.seconds.toFixed(1)} s`,
    );
    const row: DispatchRow = { ...size, greedy, plan: { ...planned, ms, medianMs }, optimum: { ...best, driverOf: undefined }, checks: [] };
    row.checks = checksOf(row);
    for (const c of row.checks) say(`${tag} ${c.ok ? 'ok' : 'MISSED'}: ${c.name} — ${c.detail}`);
    rows.push(row);
  }
  const report: DispatchReport = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    mipSeconds: MIP_SECONDS,
    rows,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, 'dispatch.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(RESULTS_DIR, 'dispatch.md'), dispatchMarkdown(report));
  fs.writeFileSync(path.join(RESULTS_DIR, 'dispatch.svg'), dispatchSvg(report));
  say(`\n${dispatchMarkdown(report)}`);
  say('written: bench/results/dispatch.json, dispatch.md, dispatch.svg');
  if (rows.some((r) => r.checks.some((c) => !c.ok))) process.exitCode = 1;
}

const describeBound = (stage: 'coverage' | 'deadhead', v: number) => (stage === 'coverage' ? `${Math.round(-v)} jobs` : `${(v / 10).toFixed(1)} km`);

/** The targets that apply to a day: coverage where the optimum is known, deadhead at 30/100, greedy at 100/300, time at 300. */
function checksOf(r: DispatchRow): DispatchRow['checks'] {
  const checks: DispatchRow['checks'] = [];
  const o = r.optimum;
  if (o.coverage.proven)
    checks.push({
      name: 'coverage equals the optimum',
      ok: r.plan.covered === o.coverage.best,
      detail: `${r.plan.covered} of ${r.jobs}, optimum ${o.coverage.best}`,
    });
  if (r.jobs <= 100) {
    const against = o.deadheadKm.proven ? 'optimum' : 'lower bound';
    const ratio = r.plan.deadheadKm / o.deadheadKm.bound;
    checks.push({
      name: `deadhead within 2 % of the ${against}`,
      ok: r.plan.covered === o.coverage.best && ratio <= TARGETS.deadheadVsOptimum,
      detail: `${r.plan.deadheadKm} km against ${o.deadheadKm.bound} km (${pct(ratio)})`,
    });
  }
  if (r.jobs >= 100) {
    const ratio = r.plan.deadheadKm / r.greedy.deadheadKm;
    checks.push({
      name: 'at least 25 % less deadhead than greedy',
      ok: ratio <= TARGETS.lessThanGreedy,
      detail: `${r.plan.deadheadKm} km against ${r.greedy.deadheadKm} km (${pct(ratio)})`,
    });
  }
  if (r.jobs >= 300)
    checks.push({
      name: 'planned in under 5 s on one core',
      ok: r.plan.medianMs < TARGETS.planMs,
      detail: `median ${r.plan.medianMs.toFixed(0)} ms of ${r.plan.ms.length}`,
    });
  return checks;
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 2;
});
