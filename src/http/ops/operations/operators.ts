import { createOperator as create, listOperators as list, revokeOperator as revoke } from '../../../domain/operators/operators';
import type { OpsHandler } from './types';

export const createOperator: OpsHandler<'createOperator'> = async (call, ctx) => ({
  status: 201,
  body: await create(await ctx.tx(), call.body, ctx.operator!.operatorId, ctx.deps.clock.now()),
});

export const listOperators: OpsHandler<'listOperators'> = async (_call, ctx) => ({ status: 200, body: { data: await list(ctx.sql) } });

export const revokeOperator: OpsHandler<'revokeOperator'> = async (call, ctx) => ({
  status: 200,
  body: await revoke(await ctx.tx(), call.params.operator_id, ctx.deps.clock.now()),
});

export const getMe: OpsHandler<'getMe'> = async (_call, ctx) => {
  const { operatorId, name, role } = ctx.operator!;
  return { status: 200, body: { operator_id: operatorId, name, role } };
};
