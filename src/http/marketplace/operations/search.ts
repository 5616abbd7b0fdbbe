import * as supplier from '../../../domain/marketplace/supplier';
import { BRANDS } from '../../../domain/marketplace/supplier';
import { supplierCtx, type MarketplaceBody, type MarketplaceHandler, type MarketplaceParams } from './types';

export const searchVehicles: MarketplaceHandler<'searchVehicles'> = async (c, ctx) => ({
  status: 200,
  body: (await supplier.searchVehicles(ctx.trx, c.request.requestBody as MarketplaceBody<'searchVehicles'>, supplierCtx(ctx))) as never,
});

export const getLockedQuote: MarketplaceHandler<'getLockedQuote'> = async (c, ctx) => {
  const { vehicle_id, price_mark } = c.request.params as MarketplaceParams<'getLockedQuote'>;
  return { status: 200, body: (await supplier.getLockedQuote(ctx.trx, vehicle_id, price_mark, ctx.deps.clock.now())) as never };
};

export const requoteVehicle: MarketplaceHandler<'requoteVehicle'> = async (c, ctx) => {
  const { vehicle_id } = c.request.params as MarketplaceParams<'requoteVehicle'>;
  const body = c.request.requestBody as MarketplaceBody<'requoteVehicle'>;
  return { status: 200, body: (await supplier.requoteVehicle(ctx.trx, vehicle_id, body, supplierCtx(ctx))) as never };
};

export const getBrandList: MarketplaceHandler<'getBrandList'> = async () => ({ status: 200, body: { status: 'OK', brands: BRANDS } });
