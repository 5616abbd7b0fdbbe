import { disableEndpoint, enableEndpoint, listEndpointsForOps } from '../../../domain/webhooks/endpoints';
import type { OpsHandler } from './types';

export const listWebhookEndpoints: OpsHandler<'listWebhookEndpoints'> = async (call, ctx) => {
  const q = call.query;
  return { status: 200, body: await listEndpointsForOps(ctx.sql, { partnerId: q.partner_id, env: q.env, status: q.status, limit: Number(q.limit ?? 50) }) };
};

export const disableWebhookEndpoint: OpsHandler<'disableWebhookEndpoint'> = async (call, ctx) => ({
  status: 200,
  body: await disableEndpoint(await ctx.tx(), call.params.endpoint_id, call.body?.reason, ctx.deps.clock.now()),
});

export const enableWebhookEndpoint: OpsHandler<'enableWebhookEndpoint'> = async (call, ctx) => ({
  status: 200,
  body: await enableEndpoint(await ctx.tx(), call.params.endpoint_id, ctx.deps.clock.now()),
});
