import type { Context } from 'openapi-backend';
import type { operations as Ops } from '../../../generated/ops-v1';
import type { BodyOf, PathParamsOf, QueryOf, ReplyOf } from '../../contract-types';
import type { RequestContext } from '../../types';

export type OpsOperationId = keyof Ops;
export type OpsBody<O extends OpsOperationId> = BodyOf<Ops, O>;
export type OpsParams<O extends OpsOperationId> = PathParamsOf<Ops, O>;
export type OpsQuery<O extends OpsOperationId> = QueryOf<Ops, O>;
export type OpsHandler<O extends OpsOperationId> = (c: Context, ctx: RequestContext) => Promise<ReplyOf<Ops, O>>;
