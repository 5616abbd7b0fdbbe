/**
 * What a partner may read of the audit log about itself: its own inbound requests (the Transfers API and MCP), in one
 * environment (the request log), and what touched one of its bookings (the booking's timeline). Every read is bound
 * to the partner, the environment and a window's start, and served by an index (audit_log_partner_requests_index,
 * audit_log_path_index, audit_log_booking_ref_index, audit_log_request_id_index: see the query-plan test).
 * The rows were redacted when they were written; nothing here widens what they hold.
 */
import type { Knex } from 'knex';
import type { Sql } from '../database';
import type { Env } from './webhook-endpoints-repository';

export interface PartnerScope {
  partnerId: string;
  env: Env;
  /** Rows older than this are out of reach (the log reaches back 30 days). */
  since: Date;
}

/** One request as the log lists it. */
export interface RequestRow {
  /** The audit row's id: the paging cursor. */
  id: string;
  requestId: string;
  at: Date;
  method: string;
  path: string;
  status: number | null;
  durationMs: number;
  idempotencyKey: string | null;
  errorCode: string | null;
}

export interface RequestDetailRow extends RequestRow {
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  responseHeaders: Record<string, string>;
  responseBody: unknown;
}

export interface RequestQuery {
  limit: number;
  /** Rows older than this cursor (an audit row id, as `next` gave it). */
  before?: string;
  /** One status code, or a range [from, to). */
  status?: { from: number; to: number };
  pathPrefix?: string;
}

/** The workbench's own reads (the log, a timeline): audited like every request, left out of what it shows. */
const OWN_READS = String.raw`^/transfers/v1/(requests|bookings/[^/?]+/timeline)([/?]|$)`;

const SUMMARY = `id::text as id, request_id as "requestId", at, method, path, status, duration_ms as "durationMs",
  request_headers ->> 'idempotency-key' as "idempotencyKey", response_body -> 'error' ->> 'code' as "errorCode"`;
const DETAIL = `${SUMMARY}, request_headers as "requestHeaders", request_body as "requestBody", response_headers as "responseHeaders",
  response_body as "responseBody"`;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The partner's inbound transfers requests in its environment and window (the partial index's own predicate first). */
function partnerRequests(db: Sql, scope: PartnerScope, columns: string): Knex.QueryBuilder {
  const k = db.knex;
  return k('audit_log')
    .select(k.raw(columns))
    .whereRaw("surface in ('transfers', 'mcp')")
    .where({ direction: 'inbound', partnerId: scope.partnerId, env: scope.env })
    .where('at', '>=', scope.since);
}

/**
 * Newest first, its own reads left out. The builder's rows are untyped: read as the columns above name them. Ordered
 * by `audit_log.id`, qualified: a bare `id` would name the text column `id::text as id` (and sort "9" after "28").
 */
export async function listPartnerRequests(db: Sql, scope: PartnerScope, q: RequestQuery): Promise<RequestRow[]> {
  const query = partnerRequests(db, scope, SUMMARY).whereRaw('path !~ ?', [OWN_READS]).orderBy('audit_log.id', 'desc').limit(q.limit);
  if (q.before) query.where('id', '<', q.before);
  if (q.status) query.where('status', '>=', q.status.from).where('status', '<', q.status.to);
  if (q.pathPrefix) query.whereLike('path', `${escapeLike(q.pathPrefix)}%`);
  return (await query) as RequestRow[];
}

/** One of the partner's requests, with its exchange (the newest row of that id, should a client have reused one). */
export async function findPartnerRequest(db: Sql, scope: PartnerScope, requestId: string): Promise<RequestDetailRow | undefined> {
  const rows = (await partnerRequests(db, scope, DETAIL).where('requestId', requestId).orderBy('audit_log.id', 'desc').limit(1)) as RequestDetailRow[];
  return rows[0];
}

/**
 * The partner's requests that touched a booking, oldest first: those naming it in their path (its own endpoints
 * and the sandbox helpers') and those that answered with it (the booking request that made it); not the timeline's
 * own reads. `bookingRef` is the booking's stored reference (letters and digits only).
 */
export async function bookingRequests(db: Sql, scope: PartnerScope, bookingRef: string, limit: number): Promise<RequestRow[]> {
  const exact = String.raw`^/transfers/v1/(test_helpers/)?bookings/${bookingRef}([/?]|$)`;
  const query = partnerRequests(db, scope, SUMMARY)
    // The prefixes reach audit_log_path_index, the pattern makes them exact; the answer reaches audit_log_booking_ref_index.
    .whereRaw(`(((path like ? or path like ?) and path ~ ?) or ((response_body ->> 'booking_ref') = ? and (response_body ->> 'booking_ref') is not null))`, [
      `/transfers/v1/bookings/${bookingRef}%`,
      `/transfers/v1/test_helpers/bookings/${bookingRef}%`,
      exact,
      bookingRef,
    ])
    .whereRaw('path !~ ?', [OWN_READS])
    .orderBy('audit_log.id', 'asc')
    .limit(limit);
  return (await query) as RequestRow[];
}

/** One delivery attempt, from its audit row (request id `outbox_<delivery>_a<attempt>`). */
export interface AttemptRow {
  requestId: string;
  at: Date;
  status: number | null;
  attempt: number | null;
  error: string | null;
}

/** The audited attempts of these deliveries (each delivery's ids `outbox_<id>_a1…a<attempts>`). */
export async function deliveryAttempts(db: Sql, scope: PartnerScope, deliveries: ReadonlyArray<{ id: string; attempts: number }>): Promise<AttemptRow[]> {
  const ids = deliveries.flatMap((d) => Array.from({ length: d.attempts }, (_, i) => `outbox_${d.id}_a${i + 1}`));
  if (!ids.length) return [];
  const k = db.knex;
  return (await k('audit_log')
    .select(k.raw('request_id as "requestId", at, status, attempt, error'))
    .where({ surface: 'webhooks', direction: 'outbound', partnerId: scope.partnerId, env: scope.env })
    .whereIn('requestId', ids)
    .where('at', '>=', scope.since)
    .orderBy('id', 'asc')) as AttemptRow[];
}
