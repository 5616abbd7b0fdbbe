import * as supplier from '../../../domain/marketplace/supplier';
import { brandListAnswer, lockedQuoteAnswer, requoteAnswer, searchAnswer } from '../answers';
import { supplierCtx, type MarketplaceHandler } from './types';

export const searchVehicles: MarketplaceHandler<'searchVehicles'> = async (call, ctx) => {
  const outcome = await supplier.searchVehicles(call.body, supplierCtx(ctx));
  return { status: 200, body: searchAnswer(outcome), write: outcome.kind === 'priced' ? outcome.write : undefined, subject: supplier.searchSubject(call.body) };
};

export const getLockedQuote: MarketplaceHandler<'getLockedQuote'> = async (call, ctx) => {
  const locked = await supplier.getLockedQuote(ctx.sql, call.params.vehicle_id, call.params.price_mark, ctx.deps.clock.now());
  return { status: 200, body: lockedQuoteAnswer(locked), subject: supplier.searchSubject(locked.search) };
};

export const requoteVehicle: MarketplaceHandler<'requoteVehicle'> = async (call, ctx) => {
  const outcome = await supplier.requoteVehicle(call.params.vehicle_id, call.body, supplierCtx(ctx));
  return {
    status: 200,
    body: requoteAnswer(outcome),
    write: outcome.kind === 'priced' ? outcome.write : undefined,
    subject: supplier.searchSubject(call.body),
  };
};

export const getBrandList: MarketplaceHandler<'getBrandList'> = async () => ({ status: 200, body: brandListAnswer() });
