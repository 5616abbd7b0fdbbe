import type { operations as Ops } from '../../../generated/marketplace-inbound';
import type { BodyOf, PathParamsOf, ReplyOf } from '../../contract-types';
import type { OperationCall, RequestContext } from '../../types';
import type { FreeClasses } from '../../../domain/quotes/create-quote';
import type { FxRates } from '../../../domain/pricing/price-journey';
import { followChange } from '../../../domain/fleet/follow-change';

export type MarketplaceOperationId = keyof Ops;
export type MarketplaceBody<O extends MarketplaceOperationId> = BodyOf<Ops, O>;
export type MarketplaceParams<O extends MarketplaceOperationId> = PathParamsOf<Ops, O>;
export type MarketplaceCall<O extends MarketplaceOperationId> = OperationCall<MarketplaceBody<O>, MarketplaceParams<O>>;
export type MarketplaceHandler<O extends MarketplaceOperationId> = (call: MarketplaceCall<O>, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

export const supplierCtx = (ctx: RequestContext): { now: Date; fx: FxRates; freeClasses: FreeClasses } => ({
  now: ctx.deps.clock.now(),
  fx: ctx.deps.config.fxFromUsd,
  freeClasses: (from, to, seats, exceptJob) => ctx.deps.fleet.freeClasses(ctx.sql, from, to, seats, exceptJob),
});

/**
 * supplierCtx, what turns the notices an order call owes the marketplace into their bodies (its adapter), and how an
 * order's job follows its change (the fleet's).
 */
export const orderCtx = (ctx: RequestContext) => ({ ...supplierCtx(ctx), noticeBody: ctx.deps.marketplaceNotices, followJob: followChange });
