import type { Sql, Tx } from '../../data/database';
import { runWrite } from '../../data/write';
import { agentPolicyOf, agentPolicyWrite, dailyAmountOf } from '../../data/repositories/agents-repository';
import { getPartner } from '../partners/partners';
import { formatLocal } from '../kernel/sri-lanka-time';
import { DEFAULT_AGENT_POLICY } from './policy';

/** An agent policy as operators read it: the rules, and what the partner's agents booked today. */
export async function readAgentPolicy(db: Sql, partnerId: string, now: Date) {
  const partner = await getPartner(db, partnerId);
  const row = await agentPolicyOf(db, partnerId);
  const today = formatLocal(now).slice(0, 10);
  const p = row ?? { ...DEFAULT_AGENT_POLICY, updatedAt: null, updatedBy: null };
  return {
    partner_id: partner.partner_id,
    enabled: p.enabled,
    live_bookings: p.liveBookings,
    max_booking_amount: p.maxBookingAmount,
    max_daily_amount: p.maxDailyAmount,
    currency: partner.currency,
    today,
    booked_today: {
      sandbox: await dailyAmountOf(db, partnerId, 'sandbox', today),
      production: await dailyAmountOf(db, partnerId, 'production', today),
    },
    updated_at: p.updatedAt ? new Date(p.updatedAt).toISOString() : null,
    updated_by: p.updatedBy,
  };
}

export interface AgentPolicyInput {
  enabled: boolean;
  live_bookings: boolean;
  max_booking_amount?: number | null;
  max_daily_amount?: number | null;
}

/** Sets the partner's agent policy (PUT /ops/v1/partners/{partner_id}/agent-policy): in force from the next tool call. */
export async function setAgentPolicy(tx: Tx, partnerId: string, input: AgentPolicyInput, operatorId: string, now: Date) {
  await getPartner(tx, partnerId);
  await runWrite(
    tx,
    agentPolicyWrite(
      partnerId,
      {
        enabled: input.enabled,
        liveBookings: input.live_bookings,
        maxBookingAmount: input.max_booking_amount ?? null,
        maxDailyAmount: input.max_daily_amount ?? null,
      },
      operatorId,
      now,
    ),
  );
  return readAgentPolicy(tx, partnerId, now);
}
