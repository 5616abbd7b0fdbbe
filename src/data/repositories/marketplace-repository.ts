import { sql, type Sql, type Tx } from '../database';
import { isLockTimeout } from '../errors';
import type { Write } from '../write';

// ----- price marks: a locked quote per vehicle, 30 minutes ---------------------------------------------------------

export interface PriceMarkRecord {
  priceMark: string;
  vehicle: string;
  search: unknown;
  amountMinor: number;
  currency: string;
  distanceKm: number;
  durationMin: number;
  pickupAt: Date;
  createdAt: Date;
  expiresAt: Date;
  /** Whose data the search is (see domain/kernel/seal-personal); null for marks stored before subjects. */
  subject: string | null;
}

/** The price marks of one search, as a one-statement write (with the request's audit row). */
export function priceMarksWrite(marks: readonly PriceMarkRecord[]): Write {
  const first = marks[0];
  return {
    ctes: [
      `marks_in as (insert into price_marks (price_mark, vehicle, search, amount_minor, currency, distance_km, duration_min, pickup_at, created_at, expires_at, subject)
        select m.price_mark, m.vehicle, $3::jsonb, m.amount_minor, 'EUR', $4::numeric, $5::int, $6::timestamptz, $7::timestamptz, $8::timestamptz, $10::text
        from unnest($1::text[], $2::text[], $9::bigint[]) as m(price_mark, vehicle, amount_minor)
        returning 1)`,
    ],
    params: [
      marks.map((m) => m.priceMark),
      marks.map((m) => m.vehicle),
      JSON.stringify(first?.search ?? null),
      first?.distanceKm ?? 0,
      first?.durationMin ?? 0,
      first?.pickupAt ?? null,
      first?.createdAt ?? null,
      first?.expiresAt ?? null,
      marks.map((m) => m.amountMinor),
      first?.subject ?? null,
    ],
  };
}

const liveMark = sql(`
  select price_mark as "priceMark", vehicle, search, amount_minor as "amountMinor", currency, distance_km as "distanceKm",
         duration_min as "durationMin", pickup_at as "pickupAt", created_at as "createdAt", expires_at as "expiresAt", subject
  from price_marks where price_mark = $1 and vehicle = $2 and expires_at > $3`);

/** The locked quote behind a mark, or undefined once it has expired (or never existed, or names another vehicle). */
export async function findLiveMark(db: Sql, vehicleId: string, priceMark: string, now: Date): Promise<PriceMarkRecord | undefined> {
  const r = (await db.query<PriceMarkRecord>(liveMark, [priceMark, vehicleId, now]))[0];
  return r ? { ...r, amountMinor: Number(r.amountMinor), distanceKm: Number(r.distanceKm) } : undefined;
}

const purgeMarks = sql('with gone as (delete from price_marks where expires_at < $1 returning 1) select count(*)::int as n from gone');

export async function purgeExpiredPriceMarks(db: Sql, cutoff: Date): Promise<number> {
  return (await db.query<{ n: number }>(purgeMarks, [cutoff]))[0].n;
}

// ----- orders ------------------------------------------------------------------------------------------------------

export type OrderState = 'confirmed' | 'declined' | 'cancelled' | 'completed' | 'no_show';

export interface OrderRecord<O = unknown> {
  orderId: string;
  state: OrderState;
  vehicle: string;
  priceMark: string | null;
  order: O;
  source: 'booking' | 'callback';
  pickupAt: Date | null;
  amountMinor: number;
  supplierOrderId: string;
  declineReason: string | null;
  dataHash: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const ORDER_COLUMNS = `order_id as "orderId", state, vehicle, price_mark as "priceMark", "order", source, pickup_at as "pickupAt",
  amount_minor as "amountMinor", supplier_order_id as "supplierOrderId", decline_reason as "declineReason", data_hash as "dataHash",
  version, created_at as "createdAt", updated_at as "updatedAt"`;
const findOrderStmt = sql(`select ${ORDER_COLUMNS} from marketplace_orders where order_id = $1`);
const findOrderLocked = sql(`${findOrderStmt.text} for update`);

export async function findOrder<O>(db: Sql, orderId: string, lock = false): Promise<OrderRecord<O> | undefined> {
  const r = (await db.query<OrderRecord<O>>(lock ? findOrderLocked : findOrderStmt, [orderId]))[0];
  return r ? { ...r, amountMinor: Number(r.amountMinor) } : undefined;
}

const insertOrderStmt = sql(`
  insert into marketplace_orders (order_id, state, vehicle, price_mark, "order", source, pickup_at, amount_minor, supplier_order_id, decline_reason, data_hash, version, created_at, updated_at)
  values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, 1, $12, $12)
  on conflict (order_id) do nothing
  returning 1`);

/** Stores an order once: false when the order id is already stored (a resend or a concurrent duplicate). */
export async function insertOrder(tx: Sql, o: Omit<OrderRecord, 'version' | 'createdAt' | 'updatedAt'>, now: Date): Promise<boolean> {
  const rows = await tx.query(insertOrderStmt, [
    o.orderId,
    o.state,
    o.vehicle,
    o.priceMark,
    JSON.stringify(o.order),
    o.source,
    o.pickupAt,
    o.amountMinor,
    o.supplierOrderId,
    o.declineReason,
    o.dataHash,
    now,
  ]);
  return rows.length > 0;
}

const setState = sql('update marketplace_orders set state = $2, updated_at = $3 where order_id = $1');

export async function setOrderState(tx: Sql, orderId: string, state: OrderState, now: Date): Promise<void> {
  await tx.query(setState, [orderId, state, now]);
}

const ack = sql('update marketplace_orders set acknowledged_at = $2, updated_at = $2 where order_id = $1');

export async function markAcknowledged(tx: Sql, orderId: string, now: Date): Promise<void> {
  await tx.query(ack, [orderId, now]);
}

const change = sql(
  `update marketplace_orders set "order" = $2::jsonb, data_hash = $3, version = version + 1, pickup_at = $4, updated_at = $5 where order_id = $1`,
);

export async function applyOrderChange(tx: Sql, orderId: string, order: unknown, dataHash: string, pickupAt: Date, now: Date): Promise<void> {
  await tx.query(change, [orderId, JSON.stringify(order), dataHash, pickupAt, now]);
}

const document = sql(`update marketplace_orders set "order" = $2::jsonb, updated_at = $3 where order_id = $1`);

/** The order as the marketplace sent it, its data unchanged (e.g. a later `updated_at` for the same details). */
export async function setOrderDocument(tx: Sql, orderId: string, order: unknown, now: Date): Promise<void> {
  await tx.query(document, [orderId, JSON.stringify(order), now]);
}

// ----- the marketplace's brand list --------------------------------------------------------------------------------

export async function saveBrands(tx: Sql, brands: ReadonlyArray<{ id: number; name: string }>, now: Date): Promise<void> {
  if (!brands.length) return;
  await tx
    .knex('marketplace_brands')
    .insert(brands.map((b) => ({ id: b.id, name: b.name, updatedAt: now })))
    .onConflict('id')
    .merge(['name', 'updatedAt']);
}

// ----- calls already acted on (replays) ----------------------------------------------------------------------------

/** The first answer to a call, as stored when it was acted on. */
export interface SeenCall {
  status: number;
  body: string;
  requestId: string;
}

export type CallClaim = { kind: 'claimed' } | { kind: 'seen'; answer: SeenCall } | { kind: 'busy' };

const claimCall = sql(`
  insert into marketplace_seen_calls (digest, operation, order_id, request_id, seen_at)
  values ($1, $2, $3, $4, $5)
  on conflict (digest) do nothing
  returning 1`);

const seenCall = sql(`
  select response_status as status, response_body as body, request_id as "requestId"
  from marketplace_seen_calls where digest = $1`);

/**
 * Claims a call by its digest in the caller's transaction, before it is acted on. An identical call in flight
 * holds the key: this waits on the primary key until it commits (then 'seen', with its answer) or rolls back (then
 * 'claimed'); past lock_timeout, 'busy'. A lock timeout aborts the transaction: the caller must give it up.
 */
export async function claimSeenCall(
  tx: Tx,
  call: { digest: string; operation: string; orderId: string | null; requestId: string },
  now: Date,
): Promise<CallClaim> {
  let rows: unknown[];
  try {
    rows = await tx.query(claimCall, [call.digest, call.operation, call.orderId, call.requestId, now]);
  } catch (e) {
    if (isLockTimeout(e)) return { kind: 'busy' };
    throw e;
  }
  if (rows.length) return { kind: 'claimed' };
  const seen = (await tx.query<{ status: number | null; body: string | null; requestId: string }>(seenCall, [call.digest]))[0];
  // A committed claim always holds its answer (recorded in the transaction that commits it).
  if (!seen || seen.status === null || seen.body === null) return { kind: 'busy' };
  return { kind: 'seen', answer: { status: seen.status, body: seen.body, requestId: seen.requestId } };
}

const recordSeen = sql('update marketplace_seen_calls set response_status = $2, response_body = $3 where digest = $1');

/** The claimed call's answer, in its transaction: it commits with what the call did, or not at all. */
export async function recordSeenCall(tx: Tx, digest: string, status: number, body: string): Promise<void> {
  await tx.query(recordSeen, [digest, status, body]);
}

const releaseSeen = sql('delete from marketplace_seen_calls where digest = $1');

/** Gives the claim back (the call's outcome is not one to replay). */
export async function releaseSeenCall(tx: Tx, digest: string): Promise<void> {
  await tx.query(releaseSeen, [digest]);
}

const purgeSeen = sql(`
  with gone as (
    delete from marketplace_seen_calls c
    where c.seen_at < $1
      and not exists (select 1 from marketplace_orders o where o.order_id = c.order_id and o.pickup_at >= $2)
    returning 1)
  select count(*)::int as n from gone`);

/** Calls seen before `seenBefore`, unless their order's pickup is at or after `pickupAfter`. */
export async function purgeSeenCalls(db: Sql, seenBefore: Date, pickupAfter: Date): Promise<number> {
  return (await db.query<{ n: number }>(purgeSeen, [seenBefore, pickupAfter]))[0].n;
}
