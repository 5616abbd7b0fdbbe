import * as supplier from '../../../domain/marketplace/supplier';
import { BRANDS, type SearchInput } from '../../../domain/marketplace/supplier';
import { supplierCtx, type MarketplaceHandler } from './types';

export const searchVehicles: MarketplaceHandler<'searchVehicles'> = async (call, ctx) => {
  const { answer, write } = await supplier.searchVehicles(call.body as SearchInput, supplierCtx(ctx));
  return { status: 200, body: answer as never, write };
};

export const getLockedQuote: MarketplaceHandler<'getLockedQuote'> = async (call, ctx) => ({
  status: 200,
  body: (await supplier.getLockedQuote(ctx.sql, call.params.vehicle_id, call.params.price_mark, ctx.deps.clock.now())) as never,
});

export const requoteVehicle: MarketplaceHandler<'requoteVehicle'> = async (call, ctx) => {
  const { answer, write } = await supplier.requoteVehicle(call.params.vehicle_id, call.body as SearchInput, supplierCtx(ctx));
  return { status: 200, body: answer as never, write };
};

export const getBrandList: MarketplaceHandler<'getBrandList'> = async () => ({ status: 200, body: { status: 'OK', brands: BRANDS } });
