import type { Sql } from '../../data/database';
import { jsonbText, type AuditEntry } from '../../data/repositories/audit-repository';
import type { DataKeys } from '../kernel/data-keys';
import type { OutboundExchange } from '../kernel/outbound-exchange';
import { daySubject, pathSubject, sealPersonal, topSubject } from '../kernel/seal-personal';

/**
 * The audit row of one outbound HTTP exchange (a marketplace call, a re-fetch, a webhook delivery). The adapter has
 * already redacted what must not be stored; travellers' details are sealed here with their subject's data key (see
 * kernel/seal-personal). `requestId` is the exchange's own (outbox_<id>_a<attempt>) or the id of the inbound
 * request that caused it.
 */
export async function exchangeAudit(
  keys: DataKeys,
  db: Sql,
  surface: string,
  x: OutboundExchange,
  extra: { attempt?: number | null; error?: string | null; partnerId?: string | null; env?: string | null; requestId?: string } = {},
): Promise<AuditEntry> {
  const subject = topSubject(x.requestBody) ?? topSubject(x.responseBody) ?? pathSubject(x.path) ?? daySubject(new Date(x.startedAt));
  const { values, subjects } = await sealPersonal(keys, db, [
    { value: x.requestBody, subject },
    { value: x.responseBody, subject },
  ]);
  return {
    surface,
    direction: 'outbound',
    method: x.method,
    path: x.path,
    status: x.status,
    partnerId: extra.partnerId ?? null,
    env: extra.env ?? null,
    requestId: extra.requestId ?? x.requestId,
    requestHeaders: jsonbText(x.requestHeaders)!,
    requestBody: jsonbText(values[0]),
    responseHeaders: jsonbText(x.responseHeaders)!,
    responseBody: jsonbText(values[1]),
    durationMs: x.durationMs,
    attempt: extra.attempt ?? null,
    error: extra.error ?? x.error ?? null,
    subjects: subjects.length ? subjects : null,
  };
}
