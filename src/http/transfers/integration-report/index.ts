/**
 * A partner's integration graded from its own sandbox traffic (the audit log): not what our bundled client does, but
 * what theirs did, judged by the HTTP answers it got (409, 410, 429, 503…) and what it sent next, and by how its
 * webhook endpoints answered our deliveries (audited too). Each requirement (a Check, one module each) looks for the
 * situations it is about in the requests, in order; a requirement whose situation never arose is `not_seen` (the
 * partner can provoke it with Sandbox-Simulate or the test helpers), as is one that does not apply to the partner.
 */
import type { Sql } from '../../../data/database';
import { partnerTraffic, partnerWebhookAttempts } from '../../../data/repositories/audit-reads';
import { sandboxOnly } from '../../../domain/quotes/sandbox';
import type { DataKeys } from '../../../domain/kernel/data-keys';
import { openSealed } from '../../../domain/kernel/seal-personal';
import { listPartnerEndpoints } from '../../../domain/webhooks/endpoints';
import { runCheck, type Check } from './check';
import type { IntegrationReport, RequirementStatus, TrafficRequest, Webhooks } from './report-types';
import { certificationEndpoints, fromCertification, pathOf } from './traffic';
import { idempotencyKeyOnBookings } from './idempotency-key-on-bookings';
import { retryReusesKey } from './retry-reuses-key';
import { retryAfterHonoured } from './retry-after-honoured';
import { noBlind4xxRetries } from './no-blind-4xx-retries';
import { expiredOffersRequoted } from './expired-offers-requoted';
import { declinesHandled } from './declines-handled';
import { bookingsReadBack } from './bookings-read-back';
import { partnerReferenceUnique } from './partner-reference-unique';
import { webhooksAcknowledged } from './webhooks-acknowledged';

export type { Evidence, IntegrationReport, Requirement, RequirementId, RequirementStatus, TrafficRequest, WebhookAttempt, Webhooks } from './report-types';

/** The requirements, in the order the report lists them. */
const CHECKS: readonly Check[] = [
  idempotencyKeyOnBookings,
  retryReusesKey,
  retryAfterHonoured,
  noBlind4xxRetries,
  expiredOffersRequoted,
  declinesHandled,
  bookingsReadBack,
  partnerReferenceUnique,
  webhooksAcknowledged,
];

/** How far back a report reads by default, and how many requests (and webhook delivery attempts) at most: the latest. */
export const DEFAULT_WINDOW_MS = 7 * 24 * 3600_000;
export const MAX_REQUESTS = 5_000;

/** The report for a partner's sandbox traffic since `since` (default: 7 days ago). Sandbox only. */
export async function integrationReport(
  db: Sql,
  keys: DataKeys,
  scope: { partnerId: string; env: 'sandbox' | 'production' },
  since: Date | undefined,
  now: Date,
): Promise<IntegrationReport> {
  sandboxOnly(scope.env);
  const from = since ?? new Date(now.getTime() - DEFAULT_WINDOW_MS);
  // Graded as sent: travellers' details opened (a retry's body is compared with the first's), or [erased].
  const rows = await openSealed(keys, db, await partnerTraffic(db, scope.partnerId, scope.env, from, MAX_REQUESTS));
  const attempts = await partnerWebhookAttempts(db, scope.partnerId, scope.env, from, MAX_REQUESTS);
  // An endpoint a certification run left behind (it deletes its own at the end) is not the partner's.
  const certifying = certificationEndpoints(rows);
  const endpoints = (await listPartnerEndpoints(db, scope)).data.filter((e) => !certifying.has(e.id)).length;
  return gradeIntegration(rows, { from, to: now }, { endpoints, attempts });
}

/**
 * Grades the requests (oldest first) and the webhook deliveries (none, and no endpoint, unless given). Pure. The
 * reference console's requests and the documents are not graded, nor a certification run's requests and the
 * deliveries to the endpoints it registered: their mistakes are the run's, made on purpose.
 */
export function gradeIntegration(
  all: TrafficRequest[],
  window: { from: Date; to: Date },
  webhooks: Webhooks = { endpoints: 0, attempts: [] },
): IntegrationReport {
  const rows = all.filter(graded);
  const certifying = certificationEndpoints(all);
  const attempts = webhooks.attempts.filter((a) => a.endpointId === null || !certifying.has(a.endpointId));
  const requirements = CHECKS.map((check) => runCheck(check, rows, { ...webhooks, attempts }));
  const count = (s: RequirementStatus) => requirements.filter((r) => r.status === s).length;
  return {
    window: { from: window.from.toISOString(), to: window.to.toISOString() },
    requests_seen: all.length,
    summary: { pass: count('pass'), fail: count('fail'), not_seen: count('not_seen') },
    requirements,
  };
}

/** Requests that are the integration's own calls: not the reference console's, nor a certification run's, nor the documents. */
function graded(r: TrafficRequest): boolean {
  if (r.requestHeaders['x-reference-console'] !== undefined || fromCertification(r)) return false;
  return !/^\/transfers\/v1\/(openapi\.(json|yaml)|postman\.json|test_helpers\/integration_report)$/.test(pathOf(r));
}
