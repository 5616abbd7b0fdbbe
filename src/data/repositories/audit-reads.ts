/**
 * Reading the audit log (operators' search and one entry; the integration report's traffic). The writers are in
 * audit-repository.ts. Reads are bounded: a list shows large bodies cut and stops at a byte budget, so no read of
 * the log holds more than a few MiB however large the stored rows are.
 */
import { sql, type Sql } from '../database';

export interface AuditQuery {
  limit: number;
  path?: string;
  partnerId?: string;
  requestId?: string;
  operatorId?: string;
  surface?: string;
  direction?: 'inbound' | 'outbound';
  from?: Date;
  to?: Date;
  /** Keyset pagination: rows with a smaller id (older). */
  beforeId?: string;
}

export interface AuditView {
  id: string;
  at: string;
  surface: string;
  direction: 'inbound' | 'outbound';
  method: string;
  path: string;
  status: number | null;
  partner_id: string | null;
  env: string | null;
  request_id: string;
  request_headers: Record<string, unknown>;
  request_body: unknown;
  response_headers: Record<string, unknown>;
  response_body: unknown;
  duration_ms: number;
  attempt: number | null;
  error: string | null;
  client: string | null;
  operator_id: string | null;
  trace_id: string | null;
  /** A body or headers object is shown cut (lists only). */
  cut: boolean;
}

/** In a list, a JSON value whose text is longer than this is shown cut… */
export const LIST_VALUE_MAX = 8 * 1024;
/** …as its size and this much of its start. */
export const LIST_VALUE_HEAD = 2 * 1024;
/** A page ends early rather than pass this many bytes of JSON (always at least one entry). */
export const AUDIT_PAGE_BYTES = 1024 * 1024;

const EXCHANGE = ['request_headers', 'request_body', 'response_headers', 'response_body'] as const;
const shown = (col: string) =>
  `case when octet_length(${col}::text) > ${LIST_VALUE_MAX} then jsonb_build_object('$cut', jsonb_build_object('bytes', octet_length(${col}::text), 'head', left(${col}::text, ${LIST_VALUE_HEAD}))) else ${col} end as ${col}`;
const META = `id::text as id, at, surface, direction, method, path, status, partner_id, env, request_id, duration_ms, attempt, error, client, operator_id, trace_id`;
const LISTED = `${META}, ${EXCHANGE.map(shown).join(', ')}, (${EXCHANGE.map((c) => `octet_length(${c}::text) > ${LIST_VALUE_MAX}`).join(' or ')}) is true as cut`;
const WHOLE = `${META}, ${EXCHANGE.join(', ')}, false as cut`;

/** A row as the builder returns it: the knex mappers turn its column names to camelCase. */
type Row = Record<string, unknown>;
const view = (r: Row): AuditView => ({
  id: r.id as string,
  at: new Date(r.at as Date).toISOString(),
  surface: r.surface as string,
  direction: r.direction as 'inbound' | 'outbound',
  method: r.method as string,
  path: r.path as string,
  status: (r.status as number | null) ?? null,
  partner_id: (r.partnerId as string | null) ?? null,
  env: (r.env as string | null) ?? null,
  request_id: r.requestId as string,
  request_headers: r.requestHeaders as Record<string, unknown>,
  request_body: r.requestBody ?? null,
  response_headers: r.responseHeaders as Record<string, unknown>,
  response_body: r.responseBody ?? null,
  duration_ms: r.durationMs as number,
  attempt: (r.attempt as number | null) ?? null,
  error: (r.error as string | null) ?? null,
  client: (r.client as string | null) ?? null,
  operator_id: (r.operatorId as string | null) ?? null,
  trace_id: (r.traceId as string | null) ?? null,
  cut: r.cut === true,
});

/**
 * Newest first, filtered; every filter is served by an index of the partitioned table. At most `limit` entries and
 * about AUDIT_PAGE_BYTES of them; `next` is the cursor of the next older page (null on the last).
 */
export async function listAudit(db: Sql, q: AuditQuery): Promise<{ data: AuditView[]; next: string | null }> {
  const k = db.knex;
  // Ordered by the table's id, qualified: a bare `id` would name the text column selected as `id`.
  const query = k('audit_log')
    .select(k.raw(LISTED))
    .orderBy('audit_log.id', 'desc')
    .limit(q.limit + 1);
  if (q.path) query.whereLike('path', `${q.path.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (q.partnerId) query.where('partnerId', q.partnerId);
  if (q.requestId) query.where('requestId', q.requestId);
  if (q.operatorId) query.where('operatorId', q.operatorId);
  if (q.surface) query.where('surface', q.surface);
  if (q.direction) query.where('direction', q.direction);
  if (q.from) query.where('at', '>=', q.from);
  if (q.to) query.where('at', '<', q.to);
  if (q.beforeId) query.where('audit_log.id', '<', q.beforeId);
  // The builder's rows are untyped: read as the columns above name them.
  const rows = (await query) as Row[];
  const data: AuditView[] = [];
  let bytes = 0;
  for (const r of rows.slice(0, q.limit)) {
    bytes += JSON.stringify(r).length;
    if (data.length > 0 && bytes > AUDIT_PAGE_BYTES) break;
    data.push(view(r));
  }
  const more = rows.length > data.length;
  return { data, next: more ? data[data.length - 1].id : null };
}

/** One entry, whole (its bodies as stored: each at most AUDIT_BODY_CAP). */
export async function getAuditEntry(db: Sql, id: string): Promise<AuditView | undefined> {
  const k = db.knex;
  const rows = (await k('audit_log').select(k.raw(WHOLE)).where('audit_log.id', id).limit(1)) as Row[];
  return rows[0] && view(rows[0]);
}

/** How many entries hold personal data of these subjects (see domain/kernel/seal-personal). */
export async function countSubjectEntries(db: Sql, subjects: string[]): Promise<number> {
  if (!subjects.length) return 0;
  const rows = await db.query<{ n: number }>(bySubjectsCount, [subjects]);
  return Number(rows[0].n);
}
const bySubjectsCount = sql('select count(*)::int as n from audit_log where subjects && $1::text[]');

/** The entries that hold personal data of these subjects, oldest first, whole (a subject access request), at most `limit`. */
export async function subjectEntries(db: Sql, subjects: string[], limit: number): Promise<AuditView[]> {
  if (!subjects.length) return [];
  const k = db.knex;
  const rows = (await k('audit_log').select(k.raw(WHOLE)).whereRaw('subjects && ?::text[]', [subjects]).orderBy('audit_log.id').limit(limit)) as Row[];
  return rows.map(view);
}

/** One request a partner sent, as the integration report reads it. */
export interface TrafficRow {
  id: string;
  at: Date;
  durationMs: number;
  method: string;
  path: string;
  status: number | null;
  requestId: string;
  requestHeaders: Record<string, unknown>;
  requestBody: unknown;
  responseHeaders: Record<string, unknown>;
  responseBody: unknown;
}

const trafficStmt = sql(`
  select * from (
    select id::text as id, at, duration_ms as "durationMs", method, path, status, request_id as "requestId",
           request_headers as "requestHeaders", request_body as "requestBody", response_headers as "responseHeaders", response_body as "responseBody"
    from audit_log
    where partner_id = $1 and env = $2 and surface = 'transfers' and direction = 'inbound' and at >= $3
    order by id desc
    limit $4) latest
  order by id`);

/** A partner's requests in one environment since a time, oldest first (the latest `limit` of them). */
export async function partnerTraffic(db: Sql, partnerId: string, env: string, since: Date, limit: number): Promise<TrafficRow[]> {
  return (await db.query<TrafficRow>(trafficStmt, [partnerId, env, since, limit])).map((r) => ({ ...r, at: new Date(r.at) }));
}

/** One attempt to deliver a webhook to one of a partner's endpoints, as the integration report reads it. */
export interface WebhookAttemptRow {
  at: Date;
  durationMs: number;
  /** outbox_<id>_a<attempt> */
  requestId: string;
  /** The endpoint's URL (redacted), or webhook_endpoints/<id> for an attempt not sent. */
  url: string;
  status: number | null;
  error: string | null;
  attempt: number | null;
  endpointId: string | null;
  eventId: string | null;
  eventType: string | null;
  /** The booking whose event it delivered (null for a ping). */
  bookingRef: string | null;
}

// The attempts are the partner's audit rows of surface `webhooks` (its index on (partner_id, id), as for the traffic);
// each names its delivery (outbox_<id>_a<n>), whose event names the booking: one primary-key lookup each (LATERAL with
// LIMIT stays a parameterised nested loop). Once retention has purged the event (30 days), the delivered body says it.
const webhookAttemptsStmt = sql(`
  select a.at, a.duration_ms as "durationMs", a.request_id as "requestId", a.path as url, a.status, a.error, a.attempt,
         d.endpoint_id as "endpointId", coalesce(d.event_id, a.request_headers ->> 'webhook-id') as "eventId",
         coalesce(d.type, a.request_body ->> 'type') as "eventType", coalesce(d.booking_ref, a.request_body #>> '{data,booking,booking_ref}') as "bookingRef"
  from (
    select id, at, duration_ms, request_id, path, status, error, attempt, request_headers, request_body
    from audit_log
    where partner_id = $1 and env = $2 and surface = 'webhooks' and direction = 'outbound' and at >= $3
    order by id desc
    limit $4) a
  left join lateral (
    select o.endpoint_id, e.event_id, e.type, e.booking_ref
    from outbox o join webhook_events e on e.event_id = o.event_id
    where o.id = substring(a.request_id from '^outbox_([0-9]{1,18})_a[0-9]+$')::bigint and o.kind = 'webhook'
    limit 1) d on true
  order by a.id`);

/** A partner's webhook delivery attempts in one environment since a time, oldest first (the latest `limit` of them). */
export async function partnerWebhookAttempts(db: Sql, partnerId: string, env: string, since: Date, limit: number): Promise<WebhookAttemptRow[]> {
  return (await db.query<WebhookAttemptRow>(webhookAttemptsStmt, [partnerId, env, since, limit])).map((r) => ({ ...r, at: new Date(r.at) }));
}
