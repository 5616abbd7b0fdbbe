import type { Database } from '../../data/database';
import { appendAudit, jsonbText } from '../../data/repositories/audit-repository';
import * as plans from '../../data/repositories/dispatch-repository';
import { prefixedId } from '../../shared/ids';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { runEvery } from '../../shared/every';
import { formatLocal, sriLankaDay } from '../kernel/sri-lanka-time';
import type { NoticeBody } from '../marketplace/notices';
import { createPlan } from './create-plan';
import { applyPlan, type Applied } from './apply-plan';
import type { PlanView, StoredPlan } from './plan-view';

/** A day's lease is this instance's for this long (a crashed instance's day is planned by another after it). */
const LEASE_MS = 2 * 60_000;
/** A day whose open jobs have not changed is planned again after this (a driver's new hours, a vehicle back). */
const RETRY_MS = 15 * 60_000;

export interface AutoDispatchDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  marketplaceNotices: NoticeBody;
}
export interface AutoDispatchOptions {
  /** This instance, in the lease. */
  holder: string;
  /** Days are planned while any part of them is within this many hours (DISPATCH_AHEAD_HOURS). */
  aheadHours: number;
  lockHours: number;
  /** Told of each plan the pass made and applied (the metrics' plan duration). */
  onPlanned?: (plan: PlanView, applied: Applied, seconds: number) => void;
}

/**
 * One automatic pass (DISPATCH_AUTO): for each day from today (Sri Lanka) to `aheadHours` ahead, when the day has
 * jobs without a driver that the last pass did not already try, takes the day's lease (one instance plans a day at
 * a time), plans it in `fill` mode (every assignment kept: an operator's are never moved) and applies the plan, as
 * an operator applying it would: each job checked in the database, the partner's event, the marketplace's driver
 * info. Both steps are audited (surface `dispatch`) with the plan's score breakdown; the lease is given back with
 * what stayed open, so an unchanged day is not planned again until RETRY_MS.
 */
export async function autoDispatchOnce(deps: AutoDispatchDeps, o: AutoDispatchOptions): Promise<Array<{ date: string; planId: string; applied: number }>> {
  const done: Array<{ date: string; planId: string; applied: number }> = [];
  for (const date of daysAhead(deps.clock.now(), o.aheadHours)) {
    const now = deps.clock.now();
    const day = sriLankaDay(date);
    const open = await plans.openJobs(deps.db, now, day.from, day.to);
    if (!open.open || !(await plans.claimDay(deps.db, date, o.holder, now, LEASE_MS, open.signature, RETRY_MS))) continue;
    // What the pass leaves open; unknown (null) when it fails, so that the next pass tries the day again.
    let left: string | null = null;
    try {
      const started = performance.now();
      const plan = await deps.db.transaction((tx) => createPlan(tx, { date, mode: 'fill' }, null, now, o.lockHours));
      const applied = await deps.db.transaction((tx) => applyPlan(tx, plan.plan_id, deps.clock.now(), deps.marketplaceNotices));
      const seconds = (performance.now() - started) / 1000;
      left = stillOpen(applied, (await plans.findPlan(deps.db, plan.plan_id))!);
      await audit(deps, plan, applied, seconds);
      o.onPlanned?.(plan, applied, seconds);
      done.push({ date, planId: plan.plan_id, applied: applied.applied.length });
    } finally {
      await plans.releaseDay(deps.db, date, o.holder, deps.clock.now(), left);
    }
  }
  return done;
}

/** Runs the pass every `everyMs` until stopped; a failed pass is logged and the next one runs as usual. */
export function startAutoDispatch(deps: AutoDispatchDeps, o: AutoDispatchOptions & { everyMs: number }): () => Promise<void> {
  const pass = () =>
    autoDispatchOnce(deps, o).then(
      (done) => {
        for (const d of done) deps.logger.info(d, 'automatic dispatch planned a day');
      },
      (err) => deps.logger.warn({ err }, 'automatic dispatch pass failed; will retry'),
    );
  return runEvery(pass, o.everyMs);
}

/** The Sri Lanka dates from today to the one `aheadHours` from now. */
export function daysAhead(now: Date, aheadHours: number): string[] {
  const last = formatLocal(new Date(now.getTime() + aheadHours * 3600_000)).slice(0, 10);
  const days = [formatLocal(now).slice(0, 10)];
  while (days.at(-1)! < last) days.push(formatLocal(new Date(sriLankaDay(days.at(-1)!).to.getTime() + 3600_000)).slice(0, 10));
  return days;
}

/**
 * What the pass leaves without a driver, in the form of the open jobs' signature (dispatch-repository.openJobs):
 * the jobs without a driver when planned that the plan did not cover, and the proposals skipped, at the versions
 * planned. A job that arrives or changes meanwhile makes the day's signature differ, so the next pass plans it.
 */
function stillOpen(applied: Applied, record: plans.PlanRecord): string {
  const { unassigned, current } = record.result as StoredPlan;
  const ids = [...unassigned.filter((u) => !current[u.jobId]).map((u) => u.jobId), ...applied.skipped.map((s) => s.job_id)];
  return ids
    .sort((a, b) => Number(a) - Number(b))
    .map((id) => `${id}:${record.jobVersions[id]}`)
    .join(',');
}

async function audit(deps: AutoDispatchDeps, plan: PlanView, applied: Applied, seconds: number): Promise<void> {
  const requestId = prefixedId('auto');
  const row = (path: string, status: number, body: unknown, response: unknown) =>
    appendAudit(deps.db, {
      surface: 'dispatch',
      direction: 'outbound',
      method: 'POST',
      path,
      status,
      partnerId: null,
      env: 'production',
      requestId,
      requestHeaders: '{}',
      requestBody: jsonbText(body),
      responseHeaders: '{}',
      responseBody: jsonbText(response),
      durationMs: Math.round(seconds * 1000),
    });
  await row('/ops/v1/dispatch/plans', 201, { date: plan.date, mode: plan.mode }, plan);
  await row(`/ops/v1/dispatch/plans/${plan.plan_id}/apply`, 200, undefined, applied);
}
