import type { operations as Ops } from '../../../generated/transfers-v1';
import type { BodyOf, PathParamsOf, QueryOf, ReplyOf } from '../../contract-types';
import type { OperationCall, RequestContext } from '../../types';

export type TransfersOperationId = keyof Ops;
export type TransfersBody<O extends TransfersOperationId> = BodyOf<Ops, O>;
export type TransfersParams<O extends TransfersOperationId> = PathParamsOf<Ops, O>;
/** Handlers leave `env` out; the surface adds it to every body. */
export type TransfersReply<O extends TransfersOperationId> = ReplyOf<Ops, O, 'env'>;

/** The partner and environment are set by the security handler before any operation runs. */
export type PartnerContext = RequestContext & Required<Pick<RequestContext, 'partner' | 'env'>>;

export type TransfersCall<O extends TransfersOperationId> = OperationCall<TransfersBody<O>, TransfersParams<O>, QueryOf<Ops, O>>;
export type TransfersHandler<O extends TransfersOperationId> = (call: TransfersCall<O>, ctx: PartnerContext) => Promise<TransfersReply<O>>;
