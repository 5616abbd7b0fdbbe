import { listRequests as list, getRequest as get } from '../../../domain/workbench/request-log';
import { bookingTimeline } from '../../../domain/workbench/booking-timeline';
import { listDeliveries } from '../../../domain/workbench/deliveries';
import type { PartnerContext, TransfersHandler } from './types';

const scope = (ctx: PartnerContext) => ({ partnerId: ctx.partner.partnerId, env: ctx.env });

export const listRequests: TransfersHandler<'listRequests'> = async (call, ctx) => ({
  status: 200,
  body: await list(
    ctx.sql,
    scope(ctx),
    { limit: Number(call.query.limit ?? 50), before: call.query.before, status: call.query.status, pathPrefix: call.query.path_prefix },
    ctx.deps.clock.now(),
  ),
});

export const getRequest: TransfersHandler<'getRequest'> = async (call, ctx) => ({
  status: 200,
  body: await get(ctx.sql, ctx.deps.dataKeys, scope(ctx), call.params.request_id, ctx.deps.clock.now()),
});

export const getBookingTimeline: TransfersHandler<'getBookingTimeline'> = async (call, ctx) => ({
  status: 200,
  body: await bookingTimeline(ctx.sql, scope(ctx), call.params.booking_ref, ctx.deps.clock.now()),
});

export const listWebhookDeliveries: TransfersHandler<'listWebhookDeliveries'> = async (call, ctx) => ({
  status: 200,
  body: await listDeliveries(ctx.sql, scope(ctx), {
    limit: Number(call.query.limit ?? 50),
    before: call.query.before,
    endpointId: call.query.endpoint_id,
    bookingRef: call.query.booking_ref,
    status: call.query.status,
  }),
});
