import type { DataKeys } from '../kernel/data-keys';
import type { Database, Sql, Tx } from '../../data/database';
import type { ClaimedRow } from '../../data/repositories/outbox-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { OutboundExchange } from '../kernel/outbound-exchange';
import type { MarketplaceBrand } from './outbox';

/**
 * What the outbox's worker (worker.ts) and its pools (pool.ts) share: a channel, the messages it claims, and the
 * outcome of an attempt.
 */

export interface DeliveryPass {
  delivered: number;
  retried: number;
  failed: number;
}

/** What the worker needs of the service: the database, the clock and the logger. */
export interface WorkerDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  dataKeys: DataKeys;
}

/** A message claimed for one attempt, under its lease (locked_until): the attempt must be recorded before it. */
export type Claimed = ClaimedRow;

/** An attempt's result; `context` names whose it was, for its audit row (a webhook's partner and environment). */
export type Outcome = (
  | { ok: true; exchange: OutboundExchange; brands?: MarketplaceBrand[] }
  | { ok: false; retryable: boolean; status: number | null; error: string; exchange: OutboundExchange }
) & { context?: { partnerId: string; env: string } };

/** What the outcome of an attempt did to its message. */
export interface Recorded {
  /** False when our lease had expired and another worker's claim won (the attempt is only audited). */
  updated: boolean;
  result: keyof DeliveryPass;
  now: Date;
  /** The data keys the attempt's audit row seals travellers' details with. */
  keys: DataKeys;
}

/** One kind of recipient: which messages it owns, how it sends them, and when it tries again. */
export interface OutboxChannel {
  readonly name: string;
  readonly kinds: readonly string[];
  /** How long a claim lasts: longer than a send, plus the time to record its outcome. */
  readonly leaseMs: number;
  /** Attempts in flight at most: a slot that frees is filled at once (pool.ts). */
  readonly batchSize: number;
  /**
   * Leases up to `limit` due messages (not those in `exclude`) and counts their attempt, in one short statement.
   * Default: the lowest ids of the channel's kinds.
   */
  claim?(db: Sql, now: Date, leaseUntil: Date, limit: number, exclude: readonly string[]): Promise<Claimed[]>;
  /** One attempt, started at `now` (the worker's clock); never throws for a failure of the recipient (that is an outcome). */
  send(msg: Claimed, now: Date): Promise<Outcome>;
  /** The wait after failed attempt number `attempt` before the next. */
  retryDelayMs(attempt: number): number;
  /** In the outcome's transaction, before the message's row: what must be locked first (one lock order for all writers). */
  lockFirst?(tx: Tx, msg: Claimed): Promise<void>;
  /** In the outcome's transaction: the attempt's audit row and whatever else the channel keeps. */
  recorded(tx: Tx, msg: Claimed, outcome: Outcome, r: Recorded): Promise<void>;
}

/** The audit record of an attempt that never reached the wire. */
export function syntheticExchange(msg: Claimed, error: string, startedAt: Date, path = `outbox:${msg.kind}`): OutboundExchange {
  return {
    requestId: `outbox_${msg.id}_a${msg.attempts}`,
    startedAt: startedAt.toISOString(),
    method: '-',
    path,
    url: '',
    requestHeaders: {},
    requestBody: null,
    status: null,
    responseHeaders: {},
    responseBody: null,
    durationMs: 0,
    error,
  };
}
