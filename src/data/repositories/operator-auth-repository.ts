import { sql, type Sql } from '../database';

/** Wrong operator tokens from one client (an address, or an IPv6 /64). */
export interface AuthFailures {
  failures: number;
  lastFailureAt: Date;
  refusedUntil: Date | null;
}

const COLUMNS = `failures, last_failure_at as "lastFailureAt", refused_until as "refusedUntil"`;

const findOne = sql(`select ${COLUMNS} from operator_auth_failures where client = $1`);

export async function findAuthFailures(db: Sql, client: string): Promise<AuthFailures | undefined> {
  return (await db.query<AuthFailures>(findOne, [client]))[0];
}

// $1 client, $2 now, $3 forget after (ms without a failure), $4 refuse from this many failures, $5 refuse for (ms).
const record = sql(`
  insert into operator_auth_failures as f (client, failures, first_failure_at, last_failure_at, refused_until)
  values ($1, 1, $2, $2, case when 1 >= $4::int then $2::timestamptz + $5::int * interval '1 millisecond' end)
  on conflict (client) do update set
    failures = case when f.last_failure_at < $2::timestamptz - $3::int * interval '1 millisecond' then 1 else f.failures + 1 end,
    first_failure_at = case when f.last_failure_at < $2::timestamptz - $3::int * interval '1 millisecond' then $2 else f.first_failure_at end,
    last_failure_at = $2,
    refused_until = case
      when (case when f.last_failure_at < $2::timestamptz - $3::int * interval '1 millisecond' then 1 else f.failures + 1 end) >= $4::int
      then $2::timestamptz + $5::int * interval '1 millisecond' end
  returning ${COLUMNS}`);

/**
 * Counts one more wrong token, atomically (concurrent attempts each get their own count): the count starts again
 * when the last failure is older than `forgetAfterMs`; from `refuseFrom` failures the client is refused until
 * now + `refuseForMs`.
 */
export async function recordAuthFailure(
  db: Sql,
  client: string,
  now: Date,
  rules: { forgetAfterMs: number; refuseFrom: number; refuseForMs: number },
): Promise<AuthFailures> {
  return (await db.query<AuthFailures>(record, [client, now, rules.forgetAfterMs, rules.refuseFrom, rules.refuseForMs]))[0];
}

const purge = sql(`
  with gone as (delete from operator_auth_failures where last_failure_at < $1 and (refused_until is null or refused_until < $1) returning 1)
  select count(*)::int as n from gone`);

/** Rows no failure has touched since `before` (and no longer refusing): forgotten. */
export async function purgeAuthFailures(db: Sql, before: Date): Promise<number> {
  return (await db.query<{ n: number }>(purge, [before]))[0].n;
}
