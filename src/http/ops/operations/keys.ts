import { issueKey, listKeys as list, revokeKey as revoke } from '../../../domain/partners/api-keys';
import type { OpsBody, OpsHandler, OpsParams } from './types';

export const createKey: OpsHandler<'createKey'> = async (c, ctx) => ({
  status: 201,
  body: await issueKey(ctx.trx, (c.request.params as OpsParams<'createKey'>).partner_id, (c.request.requestBody as OpsBody<'createKey'>).env),
});

export const listKeys: OpsHandler<'listKeys'> = async (c, ctx) => ({
  status: 200,
  body: { data: await list(ctx.trx, (c.request.params as OpsParams<'listKeys'>).partner_id) },
});

export const revokeKey: OpsHandler<'revokeKey'> = async (c, ctx) => ({
  status: 200,
  body: await revoke(ctx.trx, (c.request.params as OpsParams<'revokeKey'>).key_id, ctx.deps.clock.now()),
});
