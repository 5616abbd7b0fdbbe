import type { Knex } from 'knex';
import { PartnerModel, VehicleCodeModel } from '../../data/models/partner-model';
import { partnerId as newPartnerId } from '../../shared/ids';
import { notFound } from '../../shared/errors';

export type Currency = 'USD' | 'EUR' | 'LKR';

export interface PartnerView {
  partner_id: string;
  name: string;
  currency: Currency;
  paused: boolean;
  created_at: string;
}

const toView = (p: PartnerModel): PartnerView => ({
  partner_id: p.partnerId,
  name: p.name,
  currency: p.currency,
  paused: p.paused,
  created_at: p.createdAt.toISOString(),
});

export async function createPartner(trx: Knex.Transaction, input: { name: string; currency?: Currency }): Promise<PartnerView> {
  const row = await PartnerModel.query(trx).insertAndFetch({
    partnerId: newPartnerId(),
    name: input.name.trim(),
    currency: input.currency ?? 'USD',
    paused: false,
  });
  return toView(row);
}

export async function listPartners(trx: Knex.Transaction): Promise<PartnerView[]> {
  return (await PartnerModel.query(trx).orderBy('createdAt', 'desc')).map(toView);
}

export async function getPartner(trx: Knex.Transaction, partnerId: string): Promise<PartnerView> {
  const p = await PartnerModel.query(trx).findById(partnerId);
  if (!p) throw notFound(`No partner ${partnerId}.`, { partner_id: partnerId });
  return toView(p);
}

export async function setPaused(trx: Knex.Transaction, partnerId: string, paused: boolean): Promise<PartnerView> {
  const n = await PartnerModel.query(trx).findById(partnerId).patch({ paused });
  if (!n) throw notFound(`No partner ${partnerId}.`, { partner_id: partnerId });
  return getPartner(trx, partnerId);
}

export async function countPartners(db: Knex | Knex.Transaction): Promise<number> {
  const row = (await db('partners').count({ n: '*' }).first()) as { n: string | number };
  return Number(row.n);
}

export interface VehicleCodeView {
  partner_id: string;
  code: string;
  vehicle: string;
}

export async function putVehicleCode(trx: Knex.Transaction, partnerId: string, code: string, vehicle: string): Promise<VehicleCodeView> {
  await getPartner(trx, partnerId);
  await trx('partner_vehicle_codes')
    .insert({ partnerId, code, vehicle, updatedAt: trx.fn.now() })
    .onConflict(['partner_id', 'code'])
    .merge(['vehicle', 'updated_at']);
  return { partner_id: partnerId, code, vehicle };
}

export async function deleteVehicleCode(trx: Knex.Transaction, partnerId: string, code: string): Promise<VehicleCodeView> {
  const row = await VehicleCodeModel.query(trx).findById([partnerId, code]);
  if (!row) throw notFound(`Partner ${partnerId} has no vehicle code ${code}.`, { partner_id: partnerId, code });
  await VehicleCodeModel.query(trx).deleteById([partnerId, code]);
  return { partner_id: partnerId, code, vehicle: row.vehicle };
}

export async function listVehicleCodes(trx: Knex.Transaction, partnerId: string): Promise<VehicleCodeView[]> {
  await getPartner(trx, partnerId);
  const rows = await VehicleCodeModel.query(trx).where({ partnerId }).orderBy('code');
  return rows.map((r) => ({ partner_id: r.partnerId, code: r.code, vehicle: r.vehicle }));
}

/** The partner's code → fleet code map, for quoting. */
export async function vehicleVocabulary(trx: Knex.Transaction, partnerId: string): Promise<Map<string, string>> {
  const rows = await VehicleCodeModel.query(trx).where({ partnerId });
  return new Map(rows.map((r) => [r.code, r.vehicle]));
}
