import type { operations as Ops } from '../../../generated/ops-v1';
import type { BodyOf, PathParamsOf, QueryOf, ReplyOf } from '../../contract-types';
import type { OperationCall, RequestContext } from '../../types';

export type OpsOperationId = keyof Ops;
export type OpsBody<O extends OpsOperationId> = BodyOf<Ops, O>;
export type OpsParams<O extends OpsOperationId> = PathParamsOf<Ops, O>;
export type OpsQuery<O extends OpsOperationId> = QueryOf<Ops, O>;
export type OpsCall<O extends OpsOperationId> = OperationCall<OpsBody<O>, OpsParams<O>, OpsQuery<O>>;
export type OpsHandler<O extends OpsOperationId> = (call: OpsCall<O>, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;
