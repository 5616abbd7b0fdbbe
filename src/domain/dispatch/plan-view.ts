import type * as plans from '../../data/repositories/dispatch-repository';
import type { components as Ops } from '../../generated/ops-v1';
import type { DayPlan } from './planner';

/** Who made a plan that no operator asked for: the automatic pass. */
export const AUTO = 'auto';

/** A plan as the operator API shows it. */
export type PlanView = Ops['schemas']['DispatchPlan'];
export type NotPlannedReason = PlanView['drivers_not_planned'][number]['reason'];

/** What a plan keeps besides the planner's answer: who was not planned, and each job's assignment when planned. */
export type StoredPlan = DayPlan & {
  driversNotPlanned: Array<{ driverId: string; reason: NotPlannedReason }>;
  current: Record<string, { driverId: string; vehicleId: string } | null>;
};

export function planView(p: plans.PlanRecord): PlanView {
  const r = p.result as StoredPlan;
  return {
    plan_id: p.planId,
    date: p.day,
    mode: p.mode,
    created_at: new Date(p.createdAt).toISOString(),
    created_by: p.createdBy ?? AUTO,
    applied_at: p.appliedAt ? new Date(p.appliedAt).toISOString() : null,
    assignments: r.assignments.map((a): PlanView['assignments'][number] => {
      const was = r.current[a.jobId];
      return {
        job_id: a.jobId,
        driver_id: a.driverId,
        vehicle_id: a.vehicleId,
        change: a.kept ? 'kept' : was ? 'moved' : 'new',
        deadhead_km_before: a.deadheadKmBefore,
        deadhead_min_before: a.deadheadMinBefore,
        deadhead_km_after: a.deadheadKmAfter,
        idle_min: a.idleMin,
        score: Math.round((a.deadheadKmBefore + a.deadheadKmAfter) * 10) / 10,
      };
    }),
    unassigned: r.unassigned.map((u) => ({ job_id: u.jobId, reason: u.reason })),
    drivers_not_planned: r.driversNotPlanned.map((d) => ({ driver_id: d.driverId, reason: d.reason })),
    totals: { jobs: r.totals.jobs, covered: r.totals.covered, deadhead_km: r.totals.deadheadKm, driver_hours: r.totals.driverHours },
  };
}
