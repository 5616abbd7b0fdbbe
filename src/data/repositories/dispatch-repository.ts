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

const openStmt = sql(`
  select count(*)::int as open, coalesce(string_agg(job_id::text || ':' || version, ',' order by job_id), '') as signature
  from jobs where status = 'confirmed' and pickup_at > $1 and pickup_at >= $2 and pickup_at < $3`);
/** A day's jobs still without a driver and ahead, as a signature (job:version…) the automatic pass compares. */
export async function openJobs(db: Sql, now: Date, from: Date, to: Date): Promise<{ open: number; signature: string }> {
  return (await db.query<{ open: number; signature: string }>(openStmt, [now, from, to]))[0];
}

const claimStmt = sql(`
  insert into dispatch_days as d (day, holder, leased_until) values ($1::date, $2, $3::timestamptz + make_interval(secs => $4 / 1000.0))
  on conflict (day) do update set holder = excluded.holder, leased_until = excluded.leased_until
    where d.leased_until <= $3 and (d.open_signature is distinct from $5 or d.planned_at <= $3::timestamptz - make_interval(secs => $6 / 1000.0))
  returning day`);
/**
 * Takes the day's lease for `leaseMs`, in one statement, when no other instance holds it and the day needs planning:
 * its open jobs differ from what the last pass left (`signature`), or that pass is older than `retryMs`. Two
 * instances claiming at once: the row lock makes the second see the first's lease, and it gets nothing.
 */
export async function claimDay(db: Sql, day: string, holder: string, now: Date, leaseMs: number, signature: string, retryMs: number): Promise<boolean> {
  return (await db.query(claimStmt, [day, holder, now, leaseMs, signature, retryMs])).length > 0;
}

const releaseStmt = sql(`update dispatch_days set leased_until = $3, planned_at = $3, open_signature = $4 where day = $1::date and holder = $2`);
/** Gives the lease back, with what the pass left open (the next pass plans again only when that changes; null: at once). */
export async function releaseDay(db: Sql, day: string, holder: string, now: Date, signature: string | null): Promise<void> {
  await db.query(releaseStmt, [day, holder, now, signature]);
}
