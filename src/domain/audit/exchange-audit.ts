import { jsonbText, type AuditEntry } from '../../data/repositories/audit-repository';
import type { OutboundExchange } from '../kernel/outbound-exchange';

/**
 * The audit row of one outbound HTTP exchange (a marketplace call, a re-fetch, a webhook delivery). The adapter has
 * already redacted what must not be stored; `requestId` is the exchange's own (outbox_<id>_a<attempt>) or the id of
 * the inbound request that caused it.
 */
export function exchangeAudit(
  surface: string,
  x: OutboundExchange,
  extra: { attempt?: number | null; error?: string | null; partnerId?: string | null; env?: string | null; requestId?: string } = {},
): AuditEntry {
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
    requestBody: jsonbText(x.requestBody),
    responseHeaders: jsonbText(x.responseHeaders)!,
    responseBody: jsonbText(x.responseBody),
    durationMs: x.durationMs,
    attempt: extra.attempt ?? null,
    error: extra.error ?? x.error ?? null,
  };
}
