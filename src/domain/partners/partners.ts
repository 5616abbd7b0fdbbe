import type { Sql } from '../../data/database';
import * as partners from '../../data/repositories/partners-repository';
import { fromStored, setPartnerRateLimit, type RateLimit } from '../../data/repositories/rate-limits-repository';
import { partnerId as newPartnerId } from '../../shared/ids';
import { notFound } from '../../shared/errors';
import { storedFleetCode, type FleetCode } from '../kernel/fleet';

export type Currency = partners.Currency;

export interface PartnerView {
  partner_id: string;
  name: string;
  currency: Currency;
  paused: boolean;
  rate_limits: Record<partners.Env, { requests_per_second: number; burst: number } | null>;
  created_at: string;
}

const limitView = (l: RateLimit | undefined) => (l ? { requests_per_second: l.requestsPerSecond, burst: l.burst } : null);

const toView = (p: partners.PartnerRecord): PartnerView => {
  const limits = fromStored(p.rateLimits);
  return {
    partner_id: p.partnerId,
    name: p.name,
    currency: p.currency,
    paused: p.paused,
    rate_limits: { sandbox: limitView(limits.sandbox), production: limitView(limits.production) },
    created_at: p.createdAt.toISOString(),
  };
};

const noPartner = (partnerId: string) => notFound(`No partner ${partnerId}.`, { partner_id: partnerId });

export async function createPartner(tx: Sql, input: { name: string; currency?: Currency }): Promise<PartnerView> {
  return toView(await partners.insertPartner(tx, { partnerId: newPartnerId(), name: input.name.trim(), currency: input.currency ?? 'USD' }));
}

export async function listPartners(db: Sql): Promise<PartnerView[]> {
  return (await partners.listPartners(db)).map(toView);
}

export async function requirePartner(db: Sql, partnerId: string): Promise<partners.PartnerRecord> {
  const p = await partners.findPartner(db, partnerId);
  if (!p) throw noPartner(partnerId);
  return p;
}

export async function getPartner(db: Sql, partnerId: string): Promise<PartnerView> {
  return toView(await requirePartner(db, partnerId));
}

/** The operator's pause: quotes decline partner_paused in both environments until resumed. */
export async function setPaused(tx: Sql, partnerId: string, paused: boolean): Promise<PartnerView> {
  const p = await partners.setPartnerPaused(tx, partnerId, paused);
  if (!p) throw noPartner(partnerId);
  return toView(p);
}

/**
 * The partner's own sandbox pause (a test helper); the answer counts the operator's pause too. `authVersion` is the
 * partner's auth_version after the change, and `authVersionBefore` the one it had when the change took its row lock.
 */
export async function setSandboxPaused(
  tx: Sql,
  partnerId: string,
  paused: boolean,
): Promise<{ paused: boolean; authVersion: string; authVersionBefore: string }> {
  const p = await partners.setSandboxPause(tx, partnerId, paused);
  if (!p) throw noPartner(partnerId);
  return { paused: p.paused || p.sandboxPaused, authVersion: p.authVersion, authVersionBefore: p.authVersionBefore };
}

export interface VehicleCodeView {
  partner_id: string;
  code: string;
  vehicle: FleetCode;
}

const codeView = (v: partners.VehicleCodeRecord): VehicleCodeView => ({ partner_id: v.partnerId, code: v.code, vehicle: storedFleetCode(v.vehicle) });

export async function putVehicleCode(tx: Sql, partnerId: string, code: string, vehicle: FleetCode): Promise<VehicleCodeView> {
  await requirePartner(tx, partnerId);
  await partners.putVehicleCode(tx, { partnerId, code, vehicle });
  return { partner_id: partnerId, code, vehicle };
}

export async function deleteVehicleCode(tx: Sql, partnerId: string, code: string): Promise<VehicleCodeView> {
  const row = await partners.deleteVehicleCode(tx, partnerId, code);
  if (!row) throw notFound(`Partner ${partnerId} has no vehicle code ${code}.`, { partner_id: partnerId, code });
  return codeView(row);
}

export async function listVehicleCodes(db: Sql, partnerId: string): Promise<VehicleCodeView[]> {
  await requirePartner(db, partnerId);
  return (await partners.listVehicleCodes(db, partnerId)).map(codeView);
}

/**
 * Sets or removes (requestsPerSecond null) the partner's rate limit in one environment. The burst defaults to twice
 * the rate (at least 1). The partner's auth_version moves with it, so every instance applies it on the next request.
 */
export async function setRateLimit(
  tx: Sql,
  partnerId: string,
  input: { env: partners.Env; requests_per_second: number | null; burst?: number | null },
): Promise<PartnerView> {
  await requirePartner(tx, partnerId);
  const rate = input.requests_per_second;
  const limit = rate === null ? null : { requestsPerSecond: rate, burst: input.burst ?? Math.max(1, Math.ceil(rate * 2)) };
  await setPartnerRateLimit(tx, partnerId, input.env, limit);
  return toView(await requirePartner(tx, partnerId));
}
