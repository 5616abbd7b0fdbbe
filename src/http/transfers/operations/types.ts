import type { Context } from 'openapi-backend';
import type { operations as Ops } from '../../../generated/transfers-v1';
import type { BodyOf, PathParamsOf, ReplyOf } from '../../contract-types';
import type { RequestContext } from '../../types';

export type TransfersOperationId = keyof Ops;
export type TransfersBody<O extends TransfersOperationId> = BodyOf<Ops, O>;
export type TransfersParams<O extends TransfersOperationId> = PathParamsOf<Ops, O>;
/** Handlers leave `env` out; the surface adds it to every body. */
export type TransfersReply<O extends TransfersOperationId> = ReplyOf<Ops, O, 'env'>;

/** The partner and environment are set by the security handler before any operation runs. */
export type PartnerContext = RequestContext & Required<Pick<RequestContext, 'partner' | 'env'>>;

export type TransfersHandler<O extends TransfersOperationId> = (c: Context, ctx: PartnerContext) => Promise<TransfersReply<O>>;
