import type { Sql } from '../../data/database';
import * as repo from '../../data/repositories/terms-repository';
import { notFound } from '../../shared/errors';
import { checkedTerms, type TermsInput } from './terms';

export interface TermsView {
  partner_id: string;
  version: number;
  effective_from: string;
  cancellation_fees: Array<{ hours_before: number; percent: number }>;
  no_show_percent: number;
  price_adjustment_percent: number;
}

const view = (t: repo.TermsRecord): TermsView => ({
  partner_id: t.partnerId,
  version: t.version,
  effective_from: new Date(t.effectiveFrom).toISOString(),
  cancellation_fees: [...t.cancellationFees].sort((a, b) => b.hours_before - a.hours_before).map((f) => ({ hours_before: f.hours_before, percent: f.percent })),
  no_show_percent: t.noShowPercent,
  price_adjustment_percent: t.priceAdjustmentPercent,
});

const noPartner = (partnerId: string) => notFound(`No partner ${partnerId}.`, { partner_id: partnerId });

/** GET /ops/v1/partners/{id}/terms: the terms in force. */
export async function getPartnerTerms(db: Sql, partnerId: string): Promise<TermsView> {
  const t = await repo.findCurrentTerms(db, partnerId);
  if (!t) throw noPartner(partnerId);
  return view(t);
}

/**
 * PUT /ops/v1/partners/{id}/terms: a new version of the partner's terms, in force from now in both environments.
 * Quotes made before keep the version that priced them, and bookings the terms they were sold under.
 */
export async function putPartnerTerms(tx: Sql, partnerId: string, input: TermsInput, now: Date, operatorId: string | null): Promise<TermsView> {
  const tiers = checkedTerms(input);
  const t = await repo.insertTermsVersion(
    tx,
    partnerId,
    { cancellationFees: tiers, noShowPercent: input.no_show_percent, priceAdjustmentPercent: input.price_adjustment_percent, createdBy: operatorId },
    now,
  );
  if (!t) throw noPartner(partnerId);
  return view(t);
}
