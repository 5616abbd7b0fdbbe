import type { TrafficRow, WebhookAttemptRow } from '../../../data/repositories/audit-reads';

/** One request as the audit log keeps it (redacted; header names in lower case). */
export type TrafficRequest = Omit<TrafficRow, 'id'>;

/** One attempt to deliver a webhook to one of the partner's endpoints (request id outbox_<id>_a<attempt>). */
export type WebhookAttempt = WebhookAttemptRow;

/** What the report reads besides the partner's requests: its webhook endpoints in the environment, and our deliveries to them. */
export interface Webhooks {
  /** The partner's webhook endpoints in this environment now (deleted ones aside). */
  endpoints: number;
  /** The delivery attempts in the window, oldest first. */
  attempts: WebhookAttempt[];
}

export type RequirementId =
  | 'idempotency_key_on_bookings'
  | 'retry_reuses_key'
  | 'retry_after_honoured'
  | 'no_blind_4xx_retries'
  | 'expired_offers_requoted'
  | 'declines_handled'
  | 'bookings_read_back'
  | 'partner_reference_unique'
  | 'webhooks_acknowledged';

/** `not_seen` also stands for "not applicable" (a webhook requirement without a webhook endpoint), its detail says which. */
export type RequirementStatus = 'pass' | 'fail' | 'not_seen';

export interface Evidence {
  request_id: string;
  at: string;
  detail: string;
}

export interface Requirement {
  id: RequirementId;
  title: string;
  status: RequirementStatus;
  detail: string;
  evidence: Evidence[];
}

export interface IntegrationReport {
  window: { from: string; to: string };
  requests_seen: number;
  summary: Record<RequirementStatus, number>;
  requirements: Requirement[];
}
