import { integrationReport } from '../integration-report';
import type { TransfersHandler } from './types';

/** Sandbox test helper: the partner's integration graded from its own sandbox traffic. Live keys get 404. */
export const getIntegrationReport: TransfersHandler<'getIntegrationReport'> = async (call, ctx) => ({
  status: 200,
  body: await integrationReport(
    ctx.sql,
    ctx.deps.dataKeys,
    { partnerId: ctx.partner.partnerId, env: ctx.env },
    call.query.since ? new Date(call.query.since) : undefined,
    ctx.deps.clock.now(),
  ),
});
