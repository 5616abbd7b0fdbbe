import * as supplier from '../../../domain/marketplace/supplier';
import { brandListAnswer, lockedQuoteAnswer, requoteAnswer, searchAnswer } from '../answers';
import { supplierCtx, type MarketplaceHandler } from './types';

export const searchVehicles: MarketplaceHandler<'searchVehicles'> = async (call, ctx) => {
  const outcome = await supplier.searchVehicles(call.body, supplierCtx(ctx));
  if (outcome.kind !== 'priced') return { status: 200, body: searchAnswer(outcome) };
  return { status: 200, body: searchAnswer(outcome), write: outcome.write, subject: outcome.subject, dataKeys: outcome.dataKeys };
};

export const getLockedQuote: MarketplaceHandler<'getLockedQuote'> = async (call, ctx) => {
  const locked = await supplier.getLockedQuote(ctx.sql, call.params.vehicle_id, call.params.price_mark, ctx.deps.clock.now());
  return { status: 200, body: lockedQuoteAnswer(locked), ...(locked.subject ? { subject: locked.subject } : {}) };
};

export const requoteVehicle: MarketplaceHandler<'requoteVehicle'> = async (call, ctx) => {
  const outcome = await supplier.requoteVehicle(call.params.vehicle_id, call.body, supplierCtx(ctx));
  if (outcome.kind !== 'priced') return { status: 200, body: requoteAnswer(outcome) };
  return { status: 200, body: requoteAnswer(outcome), write: outcome.write, subject: outcome.subject, dataKeys: outcome.dataKeys };
};

export const getBrandList: MarketplaceHandler<'getBrandList'> = async () => ({ status: 200, body: brandListAnswer() });
