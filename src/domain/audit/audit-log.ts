import type { Knex } from 'knex';

export interface AuditRecord {
  surface: string;
  direction: 'inbound' | 'outbound';
  method: string;
  path: string;
  status: number | null;
  partnerId: string | null;
  env: string | null;
  requestId: string;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  responseHeaders: Record<string, string>;
  responseBody: unknown;
  durationMs: number;
  attempt?: number | null;
  error?: string | null;
}

const asJsonb = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

/** Appends one row. Callers pass their transaction so the audit commits or rolls back with the state it describes. */
export async function appendAudit(db: Knex | Knex.Transaction, r: AuditRecord): Promise<void> {
  await db('audit_log').insert({
    ...r,
    requestHeaders: JSON.stringify(r.requestHeaders),
    requestBody: asJsonb(r.requestBody),
    responseHeaders: JSON.stringify(r.responseHeaders),
    responseBody: asJsonb(r.responseBody),
    attempt: r.attempt ?? null,
    error: r.error ?? null,
  });
}

export interface AuditQuery {
  limit: number;
  path?: string;
  partnerId?: string;
  requestId?: string;
  surface?: string;
}

export async function listAudit(db: Knex | Knex.Transaction, q: AuditQuery) {
  const query = db('audit_log').orderBy('id', 'desc').limit(q.limit);
  if (q.path) query.whereLike('path', `${q.path.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (q.partnerId) query.where('partnerId', q.partnerId);
  if (q.requestId) query.where('requestId', q.requestId);
  if (q.surface) query.where('surface', q.surface);
  const rows = await query;
  return rows.map((r: Record<string, unknown>) => ({
    id: String(r.id),
    at: (r.at as Date).toISOString(),
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
  }));
}
