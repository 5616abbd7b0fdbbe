import type { Sql } from '../../data/database';
import * as plans from '../../data/repositories/dispatch-repository';
import { notFound } from '../../shared/errors';
import { planView, type PlanView } from './plan-view';

/** A plan as it was proposed, and when it was applied. */
export async function readPlan(db: Sql, planId: string): Promise<PlanView> {
  const plan = await plans.findPlan(db, planId);
  if (!plan) throw notFound(`No plan ${planId}.`, { plan_id: planId });
  return planView(plan);
}

/** A day's plans, newest first (the board draws the newest one's proposals). */
export async function listPlans(db: Sql, date: string, limit: number): Promise<PlanView[]> {
  return (await plans.listPlans(db, date, limit)).map(planView);
}
