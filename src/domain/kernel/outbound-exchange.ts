/**
 * One HTTP exchange with another service (a marketplace call or re-fetch, a webhook delivery, a flight status
 * lookup), ready for the audit log: the adapter has already redacted secret headers (the marketplace's PrivateKey)
 * and any secret body fields, so it is safe to store or log.
 */
export interface OutboundExchange {
  requestId: string;
  startedAt: string;
  method: string;
  url: string;
  /** Path and query, as the audit log's `path`. */
  path: string;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  status: number | null;
  responseHeaders: Record<string, string>;
  responseBody: unknown;
  durationMs: number;
  error: string | null;
}
