import { createPartner as create, getPartner as get, listPartners as list, setPaused } from '../../../domain/partners/partners';
import type { OpsBody, OpsHandler, OpsParams } from './types';

export const createPartner: OpsHandler<'createPartner'> = async (c, ctx) => ({
  status: 201,
  body: await create(ctx.trx, c.request.requestBody as OpsBody<'createPartner'>),
});

export const listPartners: OpsHandler<'listPartners'> = async (_c, ctx) => ({ status: 200, body: { data: await list(ctx.trx) } });

export const getPartner: OpsHandler<'getPartner'> = async (c, ctx) => ({
  status: 200,
  body: await get(ctx.trx, (c.request.params as OpsParams<'getPartner'>).partner_id),
});

export const pausePartner: OpsHandler<'pausePartner'> = async (c, ctx) => ({
  status: 200,
  body: await setPaused(ctx.trx, (c.request.params as OpsParams<'pausePartner'>).partner_id, true),
});

export const resumePartner: OpsHandler<'resumePartner'> = async (c, ctx) => ({
  status: 200,
  body: await setPaused(ctx.trx, (c.request.params as OpsParams<'resumePartner'>).partner_id, false),
});
