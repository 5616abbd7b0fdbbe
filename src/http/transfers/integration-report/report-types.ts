import type { TrafficRow } from '../../../data/repositories/audit-repository';

/** One request as the audit log keeps it (redacted; header names in lower case). */
export type TrafficRequest = Omit<TrafficRow, 'id'>;

export type RequirementId =
  | 'idempotency_key_on_bookings'
  | 'retry_reuses_key'
  | 'retry_after_honoured'
  | 'no_blind_4xx_retries'
  | 'expired_offers_requoted'
  | 'declines_handled'
  | 'bookings_read_back';

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
