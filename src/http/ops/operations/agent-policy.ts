import { readAgentPolicy, setAgentPolicy } from '../../../domain/agents/agent-policy';
import type { OpsHandler } from './types';

export const getAgentPolicy: OpsHandler<'getAgentPolicy'> = async (call, ctx) => ({
  status: 200,
  body: await readAgentPolicy(ctx.sql, call.params.partner_id, ctx.deps.clock.now()),
});

export const putAgentPolicy: OpsHandler<'putAgentPolicy'> = async (call, ctx) => ({
  status: 200,
  body: await setAgentPolicy(await ctx.tx(), call.params.partner_id, call.body, ctx.operator?.operatorId ?? 'bootstrap', ctx.deps.clock.now()),
});
