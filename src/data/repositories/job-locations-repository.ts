import { sql, type Sql } from '../database';

/** Where a job's driver was: the track kept for no-show evidence, and the last known position on the job. */
const locateStmt = sql(`
  with point as (insert into job_locations (job_id, at, lat, lon) values ($1, $2, $3, $4) returning 1)
  update jobs set last_lat = $3, last_lon = $4, last_located_at = $2
  where job_id = $1 and (last_located_at is null or last_located_at <= $2)`);

/** Keeps a position in the job's track, and as its last known location when it is the newest. */
export async function recordLocation(tx: Sql, jobId: string, at: Date, lat: number, lon: number): Promise<void> {
  await tx.query(locateStmt, [jobId, at, lat, lon]);
}

const trackStmt = sql(`select lat, lon, at from job_locations where job_id = $1 and at >= $2 and at <= $3 order by at limit 200`);

/** The positions of a job between two times (no-show evidence). */
export async function track(db: Sql, jobId: string, from: Date, to: Date): Promise<Array<{ lat: number; lon: number; at: Date }>> {
  return db.query(trackStmt, [jobId, from, to]);
}
