import { createPartner as create, getPartner as get, listPartners as list, setPaused, setRateLimit } from '../../../domain/partners/partners';
import type { OpsHandler } from './types';

export const createPartner: OpsHandler<'createPartner'> = async (call, ctx) => ({ status: 201, body: await create(await ctx.tx(), call.body) });

export const listPartners: OpsHandler<'listPartners'> = async (_call, ctx) => ({ status: 200, body: { data: await list(ctx.sql) } });

export const getPartner: OpsHandler<'getPartner'> = async (call, ctx) => ({ status: 200, body: await get(ctx.sql, call.params.partner_id) });

export const pausePartner: OpsHandler<'pausePartner'> = async (call, ctx) => ({
  status: 200,
  body: await setPaused(await ctx.tx(), call.params.partner_id, true),
});

export const resumePartner: OpsHandler<'resumePartner'> = async (call, ctx) => ({
  status: 200,
  body: await setPaused(await ctx.tx(), call.params.partner_id, false),
});

export const putPartnerRateLimit: OpsHandler<'putPartnerRateLimit'> = async (call, ctx) => ({
  status: 200,
  body: await setRateLimit(await ctx.tx(), call.params.partner_id, call.body),
});
