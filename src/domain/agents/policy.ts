/**
 * What an operator lets a partner's AI agents do (PUT /ops/v1/partners/{partner_id}/agent-policy), and the rules a
 * booking through an agent must pass. Amounts are decimal, in the partner's currency (its quotes' currency).
 */
export interface AgentPolicy {
  /** Agents may use the MCP server at all. */
  enabled: boolean;
  /** Agents may book in production (sandbox is always open while enabled). */
  liveBookings: boolean;
  /** The most one booking may cost; null: no limit. */
  maxBookingAmount: number | null;
  /** The most the partner's agents may book in one Sri Lanka day (per environment); null: no limit. */
  maxDailyAmount: number | null;
}

/** A partner no operator has set a policy for: agents on, sandbox only, no amount limits. */
export const DEFAULT_AGENT_POLICY: AgentPolicy = Object.freeze({ enabled: true, liveBookings: false, maxBookingAmount: null, maxDailyAmount: null });

/** A refusal an agent can act on: a stable code, a sentence saying what to change, and what was exceeded. */
export interface AgentRefusal {
  code: 'limit_exceeded' | 'confirmation_invalid';
  message: string;
  details: Record<string, unknown>;
}

export type Limit = 'enabled' | 'live_bookings' | 'max_booking_amount' | 'max_daily_amount';

export const limitExceeded = (limit: Limit, message: string, more: Record<string, unknown> = {}): AgentRefusal => ({
  code: 'limit_exceeded',
  message,
  details: { limit, ...more },
});

/** Whether agents may use the MCP server for this partner at all. */
export function agentAccess(p: AgentPolicy): AgentRefusal | undefined {
  return p.enabled ? undefined : limitExceeded('enabled', 'An operator has turned AI agent access off for this account; ask your account manager.');
}

/**
 * Whether an agent may book this amount in this environment, before counting the day: production only once an
 * operator allowed it, and never more than the per-booking limit.
 */
export function bookingAllowed(p: AgentPolicy, env: 'sandbox' | 'production', amount: number, currency: string): AgentRefusal | undefined {
  const closed = agentAccess(p);
  if (closed) return closed;
  if (env === 'production' && !p.liveBookings)
    return limitExceeded(
      'live_bookings',
      'Production bookings by AI agents are off for this account until an operator turns them on. Nothing was booked; book in the sandbox, or ask your account manager.',
    );
  if (p.maxBookingAmount !== null && amount > p.maxBookingAmount)
    return limitExceeded(
      'max_booking_amount',
      `This booking costs ${amount} ${currency}, over the ${p.maxBookingAmount} ${currency} an agent may book at once. Nothing was booked; choose a cheaper offer or book it through your own system.`,
      { max: p.maxBookingAmount, amount, currency },
    );
  return undefined;
}

/** The day's limit, when adding this amount would pass it. */
export const dailyLimitExceeded = (p: AgentPolicy, amount: number, bookedToday: number, currency: string): AgentRefusal =>
  limitExceeded(
    'max_daily_amount',
    `Agents have booked ${bookedToday} ${currency} today (Sri Lanka time); this booking of ${amount} ${currency} would pass the daily limit of ${p.maxDailyAmount} ${currency}. Nothing was booked; try again tomorrow or ask your account manager.`,
    { max: p.maxDailyAmount, amount, booked_today: bookedToday, currency },
  );
