/**
 * What AI agents may do for a partner, and what they did (migration 20261204100000_agents): the operator's policy,
 * the confirmation tokens handed out by prepare_booking and preview_cancellation (by their hash), and the amount
 * booked per Sri Lanka day. The day's amount is only ever added to under its row lock, within the limit, in the
 * booking's transaction: concurrent confirms on any instance cannot take it over the limit.
 */
import { sql, type Sql, type Tx } from '../database';
import type { Write } from '../write';

export type Env = 'sandbox' | 'production';

export interface AgentPolicyRow {
  enabled: boolean;
  liveBookings: boolean;
  /** Decimal amounts in the partner's currency; null: no limit. */
  maxBookingAmount: number | null;
  maxDailyAmount: number | null;
  updatedAt: Date | null;
  updatedBy: string | null;
}

const policyRead = sql(`
  select enabled, live_bookings as "liveBookings", max_booking_amount::float8 as "maxBookingAmount",
         max_daily_amount::float8 as "maxDailyAmount", updated_at as "updatedAt", updated_by as "updatedBy"
  from agent_policies where partner_id = $1`);

/** The partner's policy, or undefined when no operator set one (the defaults apply). */
export async function agentPolicyOf(db: Sql, partnerId: string): Promise<AgentPolicyRow | undefined> {
  const [row] = await db.query<AgentPolicyRow>(policyRead, [partnerId]);
  return row;
}

/** Sets the policy (the partner must exist: the guard names whether it did). */
export function agentPolicyWrite(partnerId: string, p: Omit<AgentPolicyRow, 'updatedAt' | 'updatedBy'>, operatorId: string, now: Date): Write {
  return {
    ctes: [
      `agent_policy as (
        insert into agent_policies (partner_id, enabled, live_bookings, max_booking_amount, max_daily_amount, updated_at, updated_by)
        select partner_id, $2, $3, $4::numeric, $5::numeric, $6, $7 from partners where partner_id = $1
        on conflict (partner_id) do update set enabled = excluded.enabled, live_bookings = excluded.live_bookings,
          max_booking_amount = excluded.max_booking_amount, max_daily_amount = excluded.max_daily_amount,
          updated_at = excluded.updated_at, updated_by = excluded.updated_by
        returning 1)`,
    ],
    params: [partnerId, p.enabled, p.liveBookings, p.maxBookingAmount, p.maxDailyAmount, now, operatorId],
    guard: 'agent_policy',
  };
}

const amountToday = sql(`select amount::float8 as amount, bookings from agent_daily_amounts where partner_id = $1 and env = $2 and day = $3::date`);

/** What the partner's agents booked on a Sri Lanka day (YYYY-MM-DD) in an environment. */
export async function dailyAmountOf(db: Sql, partnerId: string, env: Env, day: string): Promise<{ amount: number; bookings: number }> {
  const [row] = await db.query<{ amount: number; bookings: number }>(amountToday, [partnerId, env, day]);
  return row ?? { amount: 0, bookings: 0 };
}

export interface ConfirmationRow {
  partnerId: string;
  env: Env;
  keyId: string;
  kind: 'book' | 'cancel';
  request: Record<string, unknown> | null;
  bookingRef: string | null;
  amount: number | null;
  currency: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  usedWith: string | null;
}

/** A new confirmation token's row (its hash only), committed with the request's audit row. */
export function confirmationWrite(hash: string, c: Omit<ConfirmationRow, 'usedAt' | 'usedWith'>): Write {
  return {
    ctes: [
      `agent_confirmation as (
        insert into agent_confirmations (token_hash, partner_id, env, key_id, kind, request, booking_ref, amount, currency, expires_at)
        values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::numeric, $9, $10) returning 1)`,
    ],
    params: [hash, c.partnerId, c.env, c.keyId, c.kind, c.request === null ? null : JSON.stringify(c.request), c.bookingRef, c.amount, c.currency, c.expiresAt],
  };
}

const lockConfirmation = sql(`
  select partner_id as "partnerId", env, key_id as "keyId", kind, request, booking_ref as "bookingRef", amount::float8 as amount,
         currency, expires_at as "expiresAt", used_at as "usedAt", used_with as "usedWith"
  from agent_confirmations where token_hash = $1 for update`);

/** The token's row, locked until the transaction ends: two confirms of one token run one after the other. */
export async function lockedConfirmation(tx: Tx, hash: string): Promise<ConfirmationRow | undefined> {
  const [row] = await tx.query<ConfirmationRow>(lockConfirmation, [hash]);
  return row;
}

const useConfirmation = sql(`
  update agent_confirmations set used_at = $2, used_with = $3, booking_ref = coalesce($4, booking_ref), request = null
  where token_hash = $1`);

/** Marks the token used (with the idempotency key it was used with) and forgets the details it held. */
export async function confirmationUsed(tx: Tx, hash: string, at: Date, usedWith: string, bookingRef: string | null): Promise<void> {
  await tx.query(useConfirmation, [hash, at, usedWith, bookingRef]);
}

const addToDay = sql(`
  insert into agent_daily_amounts as a (partner_id, env, day, amount, bookings)
  select $1, $2, $3::date, $4::numeric, 1 where $5::numeric is null or $4::numeric <= $5::numeric
  on conflict (partner_id, env, day) do update set amount = a.amount + excluded.amount, bookings = a.bookings + 1
    where $5::numeric is null or a.amount + excluded.amount <= $5::numeric
  returning amount::float8 as amount`);

/**
 * Adds a booking's amount to the day's, if the sum stays within `max` (null: no limit). Returns the new total, or
 * undefined when it would go over (nothing added). Under the row's lock: a concurrent confirm waits, then sees this sum.
 */
export async function addToDailyAmount(tx: Tx, partnerId: string, env: Env, day: string, amount: number, max: number | null): Promise<number | undefined> {
  const [row] = await tx.query<{ amount: number }>(addToDay, [partnerId, env, day, amount, max]);
  return row?.amount;
}

const dropExpired = sql(`
  with gone as (delete from agent_confirmations where token_hash in (
    select token_hash from agent_confirmations where expires_at < $1 limit $2) returning 1)
  select count(*)::int as n from gone`);

/** Deletes confirmation rows that expired before `before` (in batches); returns how many. */
export async function deleteExpiredConfirmations(db: Sql, before: Date, batch: number): Promise<number> {
  const [row] = await db.query<{ n: number }>(dropExpired, [before, batch]);
  return row.n;
}
