import type { Sql } from '../../data/database';
import * as outbox from '../../data/repositories/outbox-repository';
import { invalidRequest, notFound } from '../../shared/errors';
import type { OutboundExchange } from '../kernel/outbound-exchange';

/**
 * The transactional outbox for calls we owe the marketplace. A message is inserted in the caller's transaction,
 * so it exists if and only if the state change that caused it committed; the worker (worker.ts) delivers it
 * at least once, with retries, and the marketplace's answer is recorded on the row and in the audit log.
 */
export type OutboundKind = 'confirm_order' | 'decline_order' | 'driver_info' | 'driver_location' | 'change_confirmation' | 'no_show' | 'brand_list';

export const OUTBOUND_KINDS: readonly OutboundKind[] = [
  'confirm_order',
  'decline_order',
  'driver_info',
  'driver_location',
  'change_confirmation',
  'no_show',
  'brand_list',
];

export type OutboxStatus = outbox.OutboxStatus;

export const DEFAULT_MAX_ATTEMPTS = 8;

export interface OutboundMessage {
  kind: OutboundKind;
  orderId?: string;
  /** The wire body for the kind (contracts/marketplace-outbound.yaml); `{}` for brand_list. */
  payload: Record<string, unknown>;
  /** A second enqueue with the same key is a no-op: e.g. `confirm_order:<order_id>` sends one confirm per order. */
  dedupeKey?: string;
  /** Attempts before the message is marked failed; kept on the row so a restart never changes a message's budget. */
  maxAttempts?: number;
}

/** A marketplace brand as we keep it (marketplace_brands). */
export interface MarketplaceBrand {
  id: number;
  name: string;
}

/** What a failed delivery throws (MarketplaceError implements it). */
export interface OutboundFailure extends Error {
  readonly retryable: boolean;
  readonly status: number | null;
  readonly exchange: OutboundExchange;
}

export function isOutboundFailure(e: unknown): e is OutboundFailure {
  const f = e as Partial<OutboundFailure> | undefined;
  return e instanceof Error && typeof f?.retryable === 'boolean' && typeof f.exchange === 'object' && f.exchange !== null;
}

/** The port the worker delivers through; HttpMarketplaceClient implements it. */
export interface OutboundSender {
  /** The per-request timeout: a claim must outlive it, or another worker could send the same message meanwhile. */
  readonly timeoutMs: number;
  /** Sends one message; resolves on acceptance, rejects with an OutboundFailure otherwise. */
  sendOutbound(
    kind: OutboundKind,
    payload: Record<string, unknown>,
    opts?: { requestId?: string },
  ): Promise<{ exchange: OutboundExchange; brands?: MarketplaceBrand[] }>;
}

/**
 * Adds a message in the caller's transaction (it commits or rolls back with the state change that causes it).
 * With a dedupeKey already used, nothing is inserted and the existing message's id is returned.
 */
export async function enqueueOutbound(tx: Sql, msg: OutboundMessage, now: Date): Promise<{ id: string; enqueued: boolean }> {
  if (!OUTBOUND_KINDS.includes(msg.kind)) throw new Error(`unknown outbound kind: ${String(msg.kind)}`);
  return outbox.enqueueMessage(
    tx,
    {
      kind: msg.kind,
      orderId: msg.orderId ?? null,
      payload: msg.payload,
      dedupeKey: msg.dedupeKey ?? null,
      maxAttempts: msg.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    },
    now,
  );
}

/** Like enqueueOutbound, but a message not yet sent under the same dedupe key takes the newer payload. */
export async function enqueueLatest(tx: Sql, msg: OutboundMessage & { dedupeKey: string }, now: Date): Promise<void> {
  await outbox.enqueueOrReplace(
    tx,
    { kind: msg.kind, orderId: msg.orderId ?? null, payload: msg.payload, dedupeKey: msg.dedupeKey, maxAttempts: msg.maxAttempts ?? DEFAULT_MAX_ATTEMPTS },
    now,
  );
}

export interface OutboxView {
  id: string;
  /** A marketplace call, or `webhook`: a partner webhook delivery (see `webhook`). */
  kind: OutboundKind | 'webhook';
  order_id: string | null;
  payload: Record<string, unknown>;
  dedupe_key: string | null;
  status: OutboxStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  webhook: outbox.OutboxRow['webhook'];
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toOutboxView(r: outbox.OutboxRow): OutboxView {
  return {
    id: r.id,
    kind: r.kind as OutboxView['kind'],
    order_id: r.orderId,
    payload: r.payload,
    dedupe_key: r.dedupeKey,
    status: r.status,
    attempts: r.attempts,
    max_attempts: r.maxAttempts,
    next_attempt_at: iso(r.nextAttemptAt)!,
    locked_until: iso(r.lockedUntil),
    last_status: r.lastStatus,
    last_error: r.lastError,
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
    delivered_at: iso(r.deliveredAt),
    webhook: r.webhook,
  };
}

/** Newest first: marketplace calls and webhook deliveries alike. */
export async function listOutbox(db: Sql, q: outbox.OutboxQuery): Promise<OutboxView[]> {
  return (await outbox.listMessages(db, q)).map(toOutboxView);
}

/**
 * The port a retry of a webhook delivery goes through first: locks the delivery's endpoint, and refuses a disabled
 * one (src/domain/webhooks/endpoints.ts requireEnabledEndpoint implements it).
 */
export type RequireEnabledEndpoint = (tx: Sql, endpointId: string) => Promise<void>;

/**
 * Makes a failed (or waiting) message due now. Attempts are kept, so a failed message gets one more attempt per
 * retry. A claim in flight keeps its lock: the retry never lets a second worker send the same message meanwhile. A
 * webhook delivery needs its endpoint enabled (`requireEnabledEndpoint`).
 */
export async function retryOutbound(tx: Sql, id: string, now: Date, requireEnabledEndpoint: RequireEnabledEndpoint): Promise<OutboxView> {
  if (!/^[0-9]{1,18}$/.test(id)) throw notFound(`No outbox message ${id}.`, { id });
  // A webhook delivery's endpoint is locked before the delivery, as every writer of both does.
  const endpointId = (await outbox.findMessage(tx, id))?.webhook?.endpoint_id;
  if (endpointId) await requireEnabledEndpoint(tx, endpointId);
  const row = await outbox.findMessageForUpdate(tx, id);
  if (!row) throw notFound(`No outbox message ${id}.`, { id });
  if (row.status === 'delivered') throw invalidRequest('Only failed or pending messages can be retried.');
  return toOutboxView(await outbox.makeMessageDue(tx, id, now));
}
