import type { Sql } from '../../data/database';
import type { components } from '../../generated/marketplace-inbound';
import * as repo from '../../data/repositories/marketplace-repository';
import type { FollowJob } from '../kernel/follow-job';
import type { FxRates } from '../pricing/price-journey';
import { AppError } from '../../shared/errors';
import { jsonFingerprint } from '../../shared/canonical-json';
import type { NoticeBody, OrderDeclineReason } from './notices';

/**
 * What the order use cases share (create-order, change-order, cancel-order, acknowledge-order and
 * apply-refetched-order): the order as the marketplace sends it, the answer a call on it comes to, the lookups, and
 * the stamps that tell older news from newer.
 */

/** A marketplace order as it reaches us (inbound POST /booking/, and the re-fetch behind a callback). */
export type MarketplaceOrder = components['schemas']['Order'];
/** Changed details of an order (inbound POST /booking/update/); a re-fetched order is applied as one too. */
export type OrderChange = components['schemas']['OrderChange'];

export type { OrderDeclineReason };

/** The state an answer reports: what the call did (change_confirmed, acknowledged), else the order's own. */
export type AnsweredState = repo.OrderState | 'change_confirmed' | 'acknowledged';

/** What a call on an order comes to: the order, the state to report, and whether the call was older news. */
export interface OrderAnswer {
  kind: 'order';
  orderId: string;
  supplierOrderId: string;
  state: AnsweredState;
  declineReason: string | null;
  /** The order or change was stamped before the order we hold: nothing was changed. */
  stale: boolean;
}

/** A change to an order we cannot take (the refusal is sent to the marketplace too). */
export interface ChangeRefused {
  kind: 'change_refused';
  reason: 'no_vehicle' | 'route_unknown';
  message: string;
}

export type OrderRow = repo.OrderRecord<MarketplaceOrder>;

/** What a call on an order needs of the request that serves it. */
export interface OrderCtx {
  now: Date;
  fx: FxRates;
  /** Makes the bodies of what we send the marketplace (its adapter). */
  noticeBody: NoticeBody;
  /** Has an order's job follow its change (the fleet's followChange). */
  followJob: FollowJob;
}

/**
 * Confirm, decline and change answers have a deadline at the marketplace (60 min, 2 h): they get more attempts
 * than the default, so the backoff keeps trying for about 37 minutes.
 */
const DEADLINE_ATTEMPTS = 11;

/** The delivery of an answer the marketplace awaits by a deadline (a confirmation, a decline, a change's answer). */
export const beforeDeadline = (dedupeKey: string) => ({ dedupeKey, maxAttempts: DEADLINE_ATTEMPTS });

/** What the order says, independent of bookkeeping fields (state, updated_at) and key order. */
export const dataHash = (o: MarketplaceOrder) => {
  const { state: _s, updated_at: _u, ...data } = o;
  return jsonFingerprint(data);
};

export const answer = (
  row: Pick<OrderRow, 'orderId' | 'supplierOrderId' | 'state' | 'declineReason'>,
  state: AnsweredState = row.state,
  stale = false,
): OrderAnswer => ({
  kind: 'order',
  orderId: row.orderId,
  supplierOrderId: row.supplierOrderId,
  state,
  declineReason: row.declineReason,
  stale,
});

/**
 * The marketplace's own time of an order's state (`updated_at`, local time `YYYY-MM-DD HH:MM:SS`, so the strings
 * compare in time order): an order or change stamped before the one we hold is older news. Without a stamp on
 * either side there is no telling, and arrival order decides.
 */
export const isOlder = (incoming: { updated_at?: string }, stored: { updated_at?: string }) =>
  !!incoming.updated_at && !!stored.updated_at && incoming.updated_at < stored.updated_at;

/** The answer to older news: acknowledged (a retry would not make it newer), nothing changed, stale. */
export const staleAnswer = (row: OrderRow) => answer(row, row.state, true);

/** Data unchanged but stamped later: the stored stamp moves on, so news older than this one stays older. */
export async function noteOrderTime(tx: Sql, row: OrderRow, incoming: { updated_at?: string }, now: Date) {
  if (!incoming.updated_at || (row.order.updated_at && incoming.updated_at <= row.order.updated_at)) return;
  await repo.setOrderDocument(tx, row.orderId, { ...row.order, updated_at: incoming.updated_at }, now);
}

export const findOrder = (db: Sql, orderId: string, lock = false) => repo.findOrder<MarketplaceOrder>(db, orderId, lock);

/** The order, its row locked until commit (concurrent calls on it are judged one after the other); not_found if none. */
export async function requireOrder(tx: Sql, orderId: string): Promise<OrderRow> {
  const row = await findOrder(tx, orderId, true);
  if (!row) throw new AppError('not_found', `order ${orderId} not found`, { order_id: orderId });
  return row;
}
