import { sql, type Sql } from '../database';

const migrationsRun = sql(`select name from knex_migrations`);

/** Whether the database answers and has run every migration in `known` (names without their extension). */
export async function databaseReady(db: Sql, known: readonly string[]): Promise<boolean> {
  try {
    const rows = await db.query<{ name: string }>(migrationsRun);
    const run = new Set(rows.map((r) => r.name.replace(/\.(ts|js)$/, '')));
    return known.every((m) => run.has(m));
  } catch {
    return false;
  }
}

export interface OperationalFigures {
  outbox: Array<{ channel: string; pending: number; oldestSeconds: number; failed: number }>;
  webhookEndpointsDisabled: number;
  marketplaceConfirmationOldestSeconds: number;
  /** Jobs ahead still without a driver, by how soon their pickup is. */
  unassigned: { '12h': number; '24h': number; '48h': number };
  /** The deadhead km of the newest plan of today and of tomorrow (Sri Lanka), when the day has one. */
  planDeadheadKm: { today?: number; tomorrow?: number };
  /** When the privacy retention pass last finished with nothing left due (Unix seconds; 0: never). */
  privacyRetentionFinishedSeconds: number;
}

// One round trip for every gauge a scrape reports. The outbox's channels: webhooks, and the marketplace (the rest).
const figures = sql(`
  with pending as (
    select case when kind = 'webhook' then 'webhooks' else 'marketplace' end as channel, kind, created_at
    from outbox where status = 'pending'
  ), failed as (
    select case when kind = 'webhook' then 'webhooks' else 'marketplace' end as channel, count(*)::int as n
    from outbox where status = 'failed' group by 1
  )
  select
    coalesce((select json_agg(json_build_object('channel', channel, 'pending', n, 'oldest', oldest))
              from (select channel, count(*)::int as n, extract(epoch from ($1::timestamptz - min(created_at)))::float8 as oldest
                    from pending group by channel) c), '[]'::json) as outbox,
    coalesce((select json_object_agg(channel, n) from failed), '{}'::json) as failed,
    (select count(*)::int from webhook_endpoints where status = 'disabled') as disabled,
    coalesce((select extract(epoch from ($1::timestamptz - min(created_at)))::float8 from pending
              where kind in ('confirm_order', 'decline_order')), 0) as confirmation,
    (select json_build_object('12h', count(*) filter (where pickup_at <= $1::timestamptz + interval '12 hours'),
                              '24h', count(*) filter (where pickup_at <= $1::timestamptz + interval '24 hours'), '48h', count(*))
     from jobs where status = 'confirmed' and pickup_at > $1 and pickup_at <= $1::timestamptz + interval '48 hours') as unassigned,
    (select json_object_agg(case when day = sl.today then 'today' else 'tomorrow' end, deadhead)
     from (select ((($1::timestamptz + interval '5 hours 30 minutes') at time zone 'UTC')::date) as today) sl,
          lateral (select distinct on (day) day, (result->'totals'->>'deadheadKm')::float8 as deadhead from dispatch_plans
                   where day in (sl.today, sl.today + 1) order by day, created_at desc) p) as deadhead,
    coalesce((select extract(epoch from finished_at)::float8 from privacy_passes where pass = 'privacy'), 0) as privacy`);

/** What the metrics' gauges show: the outbox by channel (pending, oldest pending, given up), disabled webhook endpoints, the oldest owed marketplace answer. */
export async function operationalFigures(db: Sql, now: Date): Promise<OperationalFigures> {
  const [r] = await db.query<{
    outbox: Array<{ channel: string; pending: number; oldest: number }>;
    failed: Record<string, number>;
    disabled: number;
    confirmation: number;
    unassigned: OperationalFigures['unassigned'];
    deadhead: OperationalFigures['planDeadheadKm'] | null;
    privacy: number;
  }>(figures, [now]);
  const byChannel = new Map((r.outbox ?? []).map((c) => [c.channel, c]));
  return {
    outbox: ['marketplace', 'webhooks'].map((channel) => ({
      channel,
      pending: byChannel.get(channel)?.pending ?? 0,
      oldestSeconds: Math.max(0, byChannel.get(channel)?.oldest ?? 0),
      failed: r.failed?.[channel] ?? 0,
    })),
    webhookEndpointsDisabled: r.disabled,
    marketplaceConfirmationOldestSeconds: Math.max(0, Number(r.confirmation) || 0),
    unassigned: r.unassigned,
    planDeadheadKm: r.deadhead ?? {},
    privacyRetentionFinishedSeconds: Number(r.privacy) || 0,
  };
}

const timeouts = sql(`select current_setting('lock_timeout') as lock, current_setting('statement_timeout') as statement`);

/** The row-lock and statement timeouts of the session that answers (as PostgreSQL shows them: '0' is none). */
export async function sessionTimeoutSettings(db: Sql): Promise<{ lock: string; statement: string }> {
  const [row] = await db.query<{ lock: string; statement: string }>(timeouts);
  return row;
}
