import { issueKey, listKeys as list, revokeKey as revoke } from '../../../domain/partners/api-keys';
import type { OpsHandler } from './types';

export const createKey: OpsHandler<'createKey'> = async (call, ctx) => ({
  status: 201,
  body: await issueKey(await ctx.tx(), call.params.partner_id, call.body.env),
});

export const listKeys: OpsHandler<'listKeys'> = async (call, ctx) => ({ status: 200, body: { data: await list(ctx.sql, call.params.partner_id) } });

export const revokeKey: OpsHandler<'revokeKey'> = async (call, ctx) => ({
  status: 200,
  body: await revoke(await ctx.tx(), call.params.key_id, ctx.deps.clock.now()),
});
