import type { Sql } from '../../data/database';
import * as log from '../../data/repositories/partner-log-repository';
import type { Env } from '../../data/repositories/webhook-endpoints-repository';
import { notFound } from '../../shared/errors';
import type { DataKeys } from '../kernel/data-keys';
import { openSealed } from '../kernel/seal-personal';

/**
 * The partner's own request log (GET /transfers/v1/requests and /requests/{request_id}): what reached us from its
 * key's environment in the last 30 days and what we answered, read from the audit log as it was written (secrets
 * already redacted there). The log's own reads are audited but not listed.
 */
export const REQUEST_LOG_DAYS = 30;

export type Scope = { partnerId: string; env: Env };

export interface RequestSummary {
  request_id: string;
  at: string;
  method: string;
  path: string;
  status: number | null;
  duration_ms: number;
  idempotency_key: string | null;
  error_code: string | null;
}

export interface RequestLogQuery {
  limit: number;
  before?: string;
  /** `409`, `4xx`, or `error` (4xx and 5xx). */
  status?: string;
  pathPrefix?: string;
}

/** The log's window: 30 days back from now. */
export const logScope = (scope: Scope, now: Date): log.PartnerScope => ({ ...scope, since: new Date(now.getTime() - REQUEST_LOG_DAYS * 86_400_000) });

/** A status filter as a range of codes: `409` → [409, 410), `4xx` → [400, 500), `error` → [400, 600). */
export function statusRange(status: string): { from: number; to: number } {
  if (status === 'error') return { from: 400, to: 600 };
  if (status.endsWith('xx')) {
    const from = Number(status[0]) * 100;
    return { from, to: from + 100 };
  }
  return { from: Number(status), to: Number(status) + 1 };
}

export const summary = (r: log.RequestRow): RequestSummary => ({
  request_id: r.requestId,
  at: new Date(r.at).toISOString(),
  method: r.method,
  path: r.path,
  status: r.status,
  duration_ms: r.durationMs,
  idempotency_key: r.idempotencyKey,
  error_code: r.errorCode,
});

/** A page of the partner's requests, newest first; `next` (the last row's position) pages on, null on the last page. */
export async function listRequests(db: Sql, scope: Scope, q: RequestLogQuery, now: Date): Promise<{ data: RequestSummary[]; next: string | null }> {
  const rows = await log.listPartnerRequests(db, logScope(scope, now), {
    limit: q.limit + 1,
    before: q.before,
    status: q.status ? statusRange(q.status) : undefined,
    pathPrefix: q.pathPrefix,
  });
  const page = rows.slice(0, q.limit);
  return { data: page.map(summary), next: rows.length > q.limit ? page[page.length - 1].id : null };
}

/** One of the partner's requests with its exchange; another partner's, another environment's or an older one is not there. */
export async function getRequest(db: Sql, keys: DataKeys, scope: Scope, requestId: string, now: Date) {
  const r = await log.findPartnerRequest(db, logScope(scope, now), requestId);
  if (!r) throw notFound(`No request ${requestId} from this account in ${scope.env} in the last ${REQUEST_LOG_DAYS} days.`, { request_id: requestId });
  // The traveller's details as sent, unless erased since (see domain/kernel/seal-personal).
  const [requestBody, responseBody] = await openSealed(keys, db, [r.requestBody ?? null, r.responseBody ?? null]);
  return {
    ...summary(r),
    request: { headers: r.requestHeaders, body: requestBody },
    response: { headers: r.responseHeaders, body: responseBody },
  };
}
