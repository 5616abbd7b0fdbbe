import type { Sql } from '../../data/database';
import * as repo from '../../data/repositories/webhook-endpoints-repository';
import { AppError, invalidRequest, notFound } from '../../shared/errors';
import { prefixedId, webhookSecret } from '../../shared/ids';
import { BOOKING_EVENT_TYPES, type BookingEventType } from './event-types';

/**
 * Webhook endpoints: where a partner wants its events, per environment. The signing secret is shown once, at
 * creation and at rotation; after a rotation the old secret keeps signing (a second signature) for 24 hours, so a
 * partner can switch its receiver without missing a delivery.
 */
export const MAX_ENDPOINTS = 10;
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

type Scope = { partnerId: string; env: 'sandbox' | 'production' };
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** An endpoint as its partner sees it. */
export function endpointView(e: repo.EndpointRow) {
  return {
    env: e.env,
    id: e.endpointId,
    url: e.url,
    events: e.events as BookingEventType[],
    status: e.status,
    disabled_reason: e.disabledReason,
    created_at: iso(e.createdAt)!,
  };
}

/** An endpoint as operators see it (never its secret). */
export function opsEndpointView(e: repo.EndpointRow) {
  return {
    endpoint_id: e.endpointId,
    partner_id: e.partnerId,
    env: e.env,
    url: e.url,
    events: e.events as BookingEventType[],
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    failing_since: iso(e.failingSince),
    created_at: iso(e.createdAt)!,
    updated_at: iso(e.updatedAt)!,
  };
}

const disabled = (e: repo.EndpointRow) =>
  new AppError('endpoint_disabled', `Webhook endpoint ${e.endpointId} is disabled${e.disabledReason ? ` (${e.disabledReason})` : ''}.`, {
    endpoint_id: e.endpointId,
    disabled_reason: e.disabledReason,
  });

/** A partner's endpoint (404 for another partner's, another environment's or a deleted one); locked for the transaction. */
export async function requireEndpoint(tx: Sql, scope: Scope, endpointId: string, opts: { enabled?: boolean } = {}): Promise<repo.EndpointRow> {
  const e = await repo.findPartnerEndpoint(tx, endpointId, scope.partnerId, scope.env, true);
  if (!e) throw notFound(`No webhook endpoint ${endpointId} on this account in ${scope.env}.`, { endpoint_id: endpointId });
  if (opts.enabled && e.status !== 'enabled') throw disabled(e);
  return e;
}

/**
 * Registers an endpoint for `url` (already checked by checkTargetUrl, outside the transaction: it resolves the
 * host). Subscribed to every booking event unless `events` names some.
 */
export async function createEndpoint(tx: Sql, scope: Scope, input: { url: string; events?: BookingEventType[] }, now: Date) {
  const secret = webhookSecret();
  const events = input.events?.length ? [...new Set(input.events)] : [...BOOKING_EVENT_TYPES];
  const row = await repo.createEndpoint(tx, { endpointId: prefixedId('we'), ...scope, url: input.url, events, secret }, now, MAX_ENDPOINTS);
  if (!row) {
    throw invalidRequest(`The request is invalid: this account already has ${MAX_ENDPOINTS} webhook endpoints in ${scope.env}; delete one first.`, [
      { field: 'url', message: `would be endpoint number ${MAX_ENDPOINTS + 1} in ${scope.env} (the limit is ${MAX_ENDPOINTS})` },
    ]);
  }
  return { ...endpointView(row), secret };
}

export async function listPartnerEndpoints(db: Sql, scope: Scope) {
  return { data: (await repo.listPartnerEndpoints(db, scope.partnerId, scope.env)).map(endpointView) };
}

/** Deletes an endpoint: nothing more is delivered to it, and deliveries still waiting fail. */
export async function deleteEndpoint(tx: Sql, scope: Scope, endpointId: string, now: Date) {
  await requireEndpoint(tx, scope, endpointId);
  await repo.failPendingDeliveries(tx, endpointId, 'endpoint deleted by the partner', now);
  return endpointView(await repo.setEndpointStatus(tx, endpointId, 'deleted', null, now));
}

/** A new secret, shown once; the previous one keeps signing for 24 hours. */
export async function rotateEndpointSecret(tx: Sql, scope: Scope, endpointId: string, now: Date) {
  await requireEndpoint(tx, scope, endpointId);
  const secret = webhookSecret();
  const row = await repo.rotateSecret(tx, endpointId, secret, new Date(now.getTime() + ROTATION_OVERLAP_MS), now);
  return { ...endpointView(row), secret, previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString() };
}

// ---- operators ---------------------------------------------------------------------------------------------------

export async function listEndpointsForOps(db: Sql, q: repo.EndpointQuery) {
  return { data: (await repo.listEndpoints(db, q)).map(opsEndpointView) };
}

async function requireAnyEndpoint(tx: Sql, endpointId: string): Promise<repo.EndpointRow> {
  const e = await repo.findEndpointForUpdate(tx, endpointId);
  if (!e || e.status === 'deleted') throw notFound(`No webhook endpoint ${endpointId}.`, { endpoint_id: endpointId });
  return e;
}

/** An operator stops deliveries to an endpoint: deliveries still waiting fail (and can be retried once it is enabled). */
export async function disableEndpoint(tx: Sql, endpointId: string, reason: string | undefined, now: Date) {
  const e = await requireAnyEndpoint(tx, endpointId);
  if (e.status === 'disabled') return opsEndpointView(e);
  const why = `disabled by an operator${reason ? `: ${reason}` : ''}`;
  await repo.failPendingDeliveries(tx, endpointId, `endpoint ${why}`, now);
  return opsEndpointView(await repo.setEndpointStatus(tx, endpointId, 'disabled', why, now));
}

/** Deliveries resume for new events; failed ones stay failed until retried. */
export async function enableEndpoint(tx: Sql, endpointId: string, now: Date) {
  const e = await requireAnyEndpoint(tx, endpointId);
  if (e.status === 'enabled') return opsEndpointView(e);
  return opsEndpointView(await repo.setEndpointStatus(tx, endpointId, 'enabled', null, now));
}

/** An operator's retry of a delivery needs its endpoint enabled. */
export async function requireEnabledEndpoint(tx: Sql, endpointId: string): Promise<void> {
  const e = await repo.findEndpointForUpdate(tx, endpointId);
  if (e && e.status !== 'enabled') throw disabled(e);
}
