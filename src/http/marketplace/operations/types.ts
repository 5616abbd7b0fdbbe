import type { Context } from 'openapi-backend';
import type { operations as Ops } from '../../../generated/marketplace-inbound';
import type { BodyOf, PathParamsOf, ReplyOf } from '../../contract-types';
import type { RequestContext } from '../../types';

export type MarketplaceOperationId = keyof Ops;
export type MarketplaceBody<O extends MarketplaceOperationId> = BodyOf<Ops, O>;
export type MarketplaceParams<O extends MarketplaceOperationId> = PathParamsOf<Ops, O>;
export type MarketplaceHandler<O extends MarketplaceOperationId> = (c: Context, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;

export const supplierCtx = (ctx: RequestContext) => ({ now: ctx.deps.clock.now(), fx: ctx.deps.config.fxFromUsd });
