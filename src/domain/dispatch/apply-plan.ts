import type { Tx } from '../../data/database';
import * as jobs from '../../data/repositories/jobs-repository';
import * as plans from '../../data/repositories/dispatch-repository';
import { AppError, notFound } from '../../shared/errors';
import type { NoticeBody } from '../marketplace/notices';
import { assignJob } from '../fleet/assign-job';
import { clearAssignments } from '../../data/repositories/job-assignments-repository';
import { planView, type PlanView } from './plan-view';

export interface Applied {
  plan_id: string;
  applied: string[];
  skipped: Array<{ job_id: string; reason: string }>;
}

/**
 * Applies a plan's proposals that still hold. The plan is locked (two applies take turns); each proposal whose job
 * changed since the plan (its version moved: assigned, cancelled, rescheduled, a flight's move) is skipped as
 * `changed_since_plan` (or `already_applied`, when it is assigned as proposed by a plan: applied before). The rest are
 * assigned as an operator's assignment is (assign-job.ts, with every check, the events and the marketplace's driver
 * info). When some move a job from one driver to another, they are first tried all together, in a savepoint, with
 * the moved jobs' old assignments lifted first: a replan that swaps two drivers' jobs holds only as a whole (one by
 * one, each would meet the other's old job). Otherwise, or when that fails, one by one, each in a savepoint: a
 * refusal skips that job with its reason and leaves the others. Kept assignments are left alone. With `only`, just those jobs' proposals (the board's
 * "apply" on one proposal); a job the plan does not propose is skipped as `not_in_plan`.
 */
export async function applyPlan(tx: Tx, planId: string, now: Date, noticeBody: NoticeBody, only?: readonly string[]): Promise<Applied> {
  const plan = await plans.findPlan(tx, planId, true);
  if (!plan) throw notFound(`No plan ${planId}.`, { plan_id: planId });
  const view: PlanView = planView(plan);
  const skipped: Applied['skipped'] = [];
  const proposed = view.assignments.filter((x) => x.change !== 'kept');
  const wanted = only ? new Set(only) : undefined;
  for (const jobId of wanted ?? []) if (!proposed.some((a) => a.job_id === jobId)) skipped.push({ job_id: jobId, reason: 'not_in_plan' });
  const current: Proposal[] = [];
  for (const a of proposed.filter((x) => !wanted || wanted.has(x.job_id))) {
    const job = await jobs.findJob(tx, a.job_id, true);
    if (job && job.version === plan.jobVersions[a.job_id]) current.push(a);
    else {
      const done = job?.driver?.driverId === a.driver_id && job.vehicle?.vehicleId === a.vehicle_id && job.assignedBy === 'plan';
      skipped.push({ job_id: a.job_id, reason: done ? 'already_applied' : 'changed_since_plan' });
    }
  }
  const assign = (sp: Tx, a: Proposal) => assignJob(sp, a.job_id, { driver_id: a.driver_id, vehicle_id: a.vehicle_id }, now, noticeBody, 'plan');
  let applied: string[];
  // Together first: proposals that trade drivers or vehicles between them (a replan's moves) hold only as a whole.
  const together = current.some((a) => a.change === 'moved')
    ? await tx
        .savepoint(async (sp) => {
          await clearAssignments(
            sp,
            current.filter((a) => a.change === 'moved').map((a) => a.job_id),
          );
          for (const a of current) await assign(sp, a);
          return true;
        })
        .catch((e: unknown) => {
          if (e instanceof AppError) return false;
          throw e;
        })
    : false;
  if (together) applied = current.map((a) => a.job_id);
  else {
    // One by one: a refusal skips that job with its reason and leaves the others.
    applied = [];
    for (const a of current) {
      try {
        await tx.savepoint((sp) => assign(sp, a));
        applied.push(a.job_id);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        skipped.push({ job_id: a.job_id, reason: typeof e.details.reason === 'string' ? e.details.reason : e.code });
      }
    }
  }
  const result = { plan_id: planId, applied, skipped };
  await plans.markApplied(tx, planId, now, result);
  return result;
}

type Proposal = PlanView['assignments'][number];
