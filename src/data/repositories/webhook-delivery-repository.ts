/**
 * What keeps one partner's webhooks from holding back another's (issue 28): the fair claim (one attempt in flight
 * per endpoint, a few per partner, endpoints served round robin), the endpoint's release when an attempt's outcome
 * is recorded, and the per-endpoint limits on test pings and redeliveries (a token bucket in rate_buckets, and the
 * count of deliveries waiting).
 */
import { sql, type Sql } from '../database';
import { CLAIMED, type ClaimedRow } from './outbox-repository';
import type { Env } from './webhook-endpoints-repository';

// An endpoint's next delivery: its oldest due one that is not held back by an earlier event of its booking (see
// outbox-repository's claim), found through outbox_webhook_due_index. Every endpoint of the environment that is idle
// (no unexpired busy_until) and has one is ready; a partner's ready endpoints take turns after those it has busy, so
// `turn` over the cap leaves the partner's other endpoints for a later claim. The endpoints (and their deliveries)
// are taken in turn order, least recently served first, locked with SKIP LOCKED: a row another claim holds is
// skipped, and one it has just leased is re-read under the lock (busy_until) and skipped too, so no two claims, of
// one instance or several, ever start two attempts at one endpoint. Window functions and FOR UPDATE cannot share a
// query level: the ranking is done in CTEs, and only `chosen` locks.
const claim = sql(`
  with ready as (
    select w.endpoint_id, w.partner_id, w.claimed_at, m.id
    from webhook_endpoints w
    cross join lateral (
      select o.id from outbox o
      where o.endpoint_id = w.endpoint_id and o.status = 'pending' and o.next_attempt_at <= $1
        and (o.locked_until is null or o.locked_until < $1) and o.id <> all ($5::bigint[])
        and (o.booking_ref is null or not exists (
          select 1 from outbox e
          where e.endpoint_id = o.endpoint_id and e.booking_ref = o.booking_ref and e.status = 'pending'
            and (e.sequence < o.sequence or (e.sequence = o.sequence and e.id < o.id))))
      order by o.id
      limit 1) m
    where w.env = $3 and (w.busy_until is null or w.busy_until < $1)
  ),
  busy as (
    select partner_id, count(*) as n from webhook_endpoints where env = $3 and busy_until >= $1 group by partner_id
  ),
  ranked as (
    select r.endpoint_id, r.id, r.claimed_at,
      coalesce(b.n, 0) + row_number() over (partition by r.partner_id order by r.claimed_at nulls first, r.endpoint_id) as turn
    from ready r left join busy b on b.partner_id = r.partner_id
  ),
  chosen as (
    select w.endpoint_id as chosen_endpoint, o.id as chosen_id
    from ranked k
    join webhook_endpoints w on w.endpoint_id = k.endpoint_id
    join outbox o on o.id = k.id
    where k.turn <= $6 and (w.busy_until is null or w.busy_until < $1)
      and o.status = 'pending' and (o.locked_until is null or o.locked_until < $1)
    order by k.turn, k.claimed_at nulls first, k.endpoint_id
    limit $4
    for no key update of w, o skip locked
  ),
  claimed as (
    update outbox o set locked_until = $2, attempts = o.attempts + 1, updated_at = $1
    from chosen c where o.id = c.chosen_id
    returning ${CLAIMED}
  ),
  leased as (
    update webhook_endpoints w set busy_until = $2, claimed_at = $1
    from claimed c where w.endpoint_id = c."endpointId"
    returning 1
  )
  select * from claimed`);

/**
 * One short statement: up to `limit` due deliveries of one environment, at most one per endpoint and none at an
 * endpoint with an attempt in flight, at most `perPartner` endpoints of a partner busy at once, least recently
 * served endpoints first. Each delivery is leased and its attempt counted, and its endpoint marked busy until the
 * same lease.
 */
export async function claimWebhookDeliveries(
  db: Sql,
  q: { env: Env; now: Date; leaseUntil: Date; limit: number; perPartner: number; exclude: readonly string[] },
): Promise<ClaimedRow[]> {
  return db.query<ClaimedRow>(claim, [q.now, q.leaseUntil, q.env, q.limit, q.exclude, q.perPartner]);
}

// Fenced on the lease: an attempt whose lease expired, its endpoint claimed again meanwhile, releases nothing.
const release = sql(`update webhook_endpoints set busy_until = null where endpoint_id = $1 and busy_until = $2`);

/** The attempt leased until `leaseUntil` has ended: its endpoint may be claimed again. */
export async function releaseEndpoint(tx: Sql, endpointId: string, leaseUntil: Date): Promise<void> {
  await tx.query(release, [endpointId, leaseUntil]);
}

// The bucket refills at $2 a second up to $3; a token is taken only if one is there (the update's WHERE is checked
// against the row as it is once locked, so concurrent takers never overdraw it). Otherwise nothing is written and
// `wait` is the seconds until a token is due.
const take = sql(`
  with took as (
    insert into rate_buckets as b (scope, tokens, at) values ($1, $3 - 1, $4)
    on conflict (scope) do update set tokens = least($3, b.tokens + greatest(0, extract(epoch from ($4 - b.at))) * $2) - 1, at = greatest(b.at, $4)
    where least($3, b.tokens + greatest(0, extract(epoch from ($4 - b.at))) * $2) >= 1
    returning tokens
  )
  select (select tokens from took)::float8 as remaining,
    (select (1 - least($3, b.tokens + greatest(0, extract(epoch from ($4 - b.at))) * $2)) / $2 from rate_buckets b where b.scope = $1)::float8 as wait`);

/**
 * Takes a token from the bucket `scope` in the caller's transaction (a request refused later gives it back by
 * rolling back): the tokens left, or, when the bucket is empty, undefined and the seconds until one is due.
 */
export async function takeToken(
  tx: Sql,
  scope: string,
  bucket: { perSecond: number; burst: number },
  now: Date,
): Promise<{ remaining: number } | { waitSeconds: number }> {
  const [r] = await tx.query<{ remaining: number | null; wait: number | null }>(take, [scope, bucket.perSecond, bucket.burst, now]);
  return r.remaining !== null ? { remaining: Math.floor(r.remaining) } : { waitSeconds: Math.max(0, r.wait ?? 1) };
}

const waiting = sql(`select count(*)::int as n from (select 1 from outbox where endpoint_id = $1 and status = 'pending' limit $2) w`);

/** Deliveries waiting (pending) for an endpoint, counted up to `upTo`. */
export async function pendingDeliveries(db: Sql, endpointId: string, upTo: number): Promise<number> {
  return (await db.query<{ n: number }>(waiting, [endpointId, upTo]))[0].n;
}
