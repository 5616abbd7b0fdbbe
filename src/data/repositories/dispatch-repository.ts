import { sql, type Sql } from '../database';

export interface PlanRecord {
  planId: string;
  day: string;
  mode: 'fill' | 'replan';
  createdAt: Date;
  createdBy: string | null;
  /** The plan as answered (the API's shape). */
  result: unknown;
  /** Each job's version when planned: applying skips a job that changed since. */
  jobVersions: Record<string, number>;
  appliedAt: Date | null;
  applied: unknown;
}

const COLUMNS = `plan_id as "planId", to_char(day, 'YYYY-MM-DD') as day, mode, created_at as "createdAt", created_by as "createdBy", result,
  job_versions as "jobVersions", applied_at as "appliedAt", applied`;

const insertStmt = sql(`
  insert into dispatch_plans (plan_id, day, mode, created_at, created_by, result, job_versions) values ($1, $2::date, $3, $4, $5, $6::jsonb, $7::jsonb)
  returning ${COLUMNS}`);
export async function insertPlan(db: Sql, p: Omit<PlanRecord, 'appliedAt' | 'applied'>): Promise<PlanRecord> {
  const values = [p.planId, p.day, p.mode, p.createdAt, p.createdBy, JSON.stringify(p.result), JSON.stringify(p.jobVersions)];
  return (await db.query<PlanRecord>(insertStmt, values))[0];
}

const findStmt = sql(`select ${COLUMNS} from dispatch_plans where plan_id = $1`);
const findLockedStmt = sql(`select ${COLUMNS} from dispatch_plans where plan_id = $1 for update`);
/** `lock`: held until the transaction ends (two applies of one plan take turns). */
export async function findPlan(db: Sql, planId: string, lock = false): Promise<PlanRecord | undefined> {
  return (await db.query<PlanRecord>(lock ? findLockedStmt : findStmt, [planId]))[0];
}

const listStmt = sql(`select ${COLUMNS} from dispatch_plans where day = $1::date order by created_at desc, plan_id desc limit $2`);
/** A day's plans, newest first. */
export async function listPlans(db: Sql, day: string, limit: number): Promise<PlanRecord[]> {
  return db.query<PlanRecord>(listStmt, [day, limit]);
}

const appliedStmt = sql(`update dispatch_plans set applied_at = $2, applied = $3::jsonb where plan_id = $1`);
export async function markApplied(db: Sql, planId: string, at: Date, applied: unknown): Promise<void> {
  await db.query(appliedStmt, [planId, at, JSON.stringify(applied)]);
}
