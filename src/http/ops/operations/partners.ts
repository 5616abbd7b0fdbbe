import { createPartner as create, getPartner as get, listPartners as list, setPaused, setRateLimit } from '../../../domain/partners/partners';
import { getPartnerTerms as getTerms, putPartnerTerms as putTerms } from '../../../domain/terms/partner-terms';
import { statement } from '../../../domain/bookings/statement';
import { csvAnswer, wantsCsv } from '../../statement-csv';
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

export const getPartnerTerms: OpsHandler<'getPartnerTerms'> = async (call, ctx) => ({ status: 200, body: await getTerms(ctx.sql, call.params.partner_id) });

export const putPartnerTerms: OpsHandler<'putPartnerTerms'> = async (call, ctx) => ({
  status: 200,
  body: await putTerms(await ctx.tx(), call.params.partner_id, call.body, ctx.deps.clock.now(), ctx.operator?.operatorId ?? null),
});

export const getPartnerStatement: OpsHandler<'getPartnerStatement'> = async (call, ctx) => {
  const partner = await get(ctx.sql, call.params.partner_id);
  const s = await statement(ctx.sql, { partnerId: partner.partner_id, env: call.query.env }, call.query, partner.currency);
  const body = { env: call.query.env, partner_id: partner.partner_id, ...s };
  return wantsCsv(ctx.headers) ? csvAnswer(s) : { status: 200, body };
};
