import { createEndpoint, deleteEndpoint, listPartnerEndpoints, rotateEndpointSecret } from '../../../domain/webhooks/endpoints';
import { listEvents as list, redeliverEvent as redeliver, sendPing } from '../../../domain/webhooks/events';
import { checkTargetUrl } from '../../../domain/webhooks/targets';
import type { PartnerContext, TransfersHandler } from './types';

const scope = (ctx: PartnerContext) => ({ partnerId: ctx.partner.partnerId, env: ctx.env });

export const createWebhookEndpoint: TransfersHandler<'createWebhookEndpoint'> = async (call, ctx) => {
  // The host is resolved and checked before the transaction opens (DNS may take a while).
  const { allowPrivateTargets, allowedPorts } = ctx.deps.config.webhooks;
  const url = await checkTargetUrl(call.body.url, ctx.env, allowPrivateTargets, ctx.deps.resolveHost, allowedPorts);
  return { status: 201, body: await createEndpoint(await ctx.tx(), scope(ctx), { url, events: call.body.events }, ctx.deps.clock.now()) };
};

export const listWebhookEndpoints: TransfersHandler<'listWebhookEndpoints'> = async (_call, ctx) => ({
  status: 200,
  body: await listPartnerEndpoints(ctx.sql, scope(ctx)),
});

export const deleteWebhookEndpoint: TransfersHandler<'deleteWebhookEndpoint'> = async (call, ctx) => ({
  status: 200,
  body: await deleteEndpoint(await ctx.tx(), scope(ctx), call.params.endpoint_id, ctx.deps.clock.now()),
});

export const rotateWebhookSecret: TransfersHandler<'rotateWebhookSecret'> = async (call, ctx) => ({
  status: 200,
  body: await rotateEndpointSecret(await ctx.tx(), scope(ctx), call.params.endpoint_id, ctx.deps.clock.now()),
});

export const testWebhookEndpoint: TransfersHandler<'testWebhookEndpoint'> = async (call, ctx) => ({
  status: 202,
  body: await sendPing(await ctx.tx(), scope(ctx), call.params.endpoint_id, ctx.deps.clock.now()),
});

export const listEvents: TransfersHandler<'listEvents'> = async (call, ctx) => ({
  status: 200,
  body: await list(ctx.sql, scope(ctx), { after: call.query.after, type: call.query.type, limit: Number(call.query.limit ?? 50) }),
});

export const redeliverEvent: TransfersHandler<'redeliverEvent'> = async (call, ctx) => ({
  status: 202,
  body: await redeliver(await ctx.tx(), scope(ctx), call.params.event_id, call.body?.endpoint_id, ctx.deps.clock.now()),
});
