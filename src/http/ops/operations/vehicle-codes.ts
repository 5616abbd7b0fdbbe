import * as vocab from '../../../domain/partners/partners';
import type { OpsHandler } from './types';

export const listVehicleCodes: OpsHandler<'listVehicleCodes'> = async (call, ctx) => ({
  status: 200,
  body: { data: await vocab.listVehicleCodes(ctx.sql, call.params.partner_id) },
});

export const putVehicleCode: OpsHandler<'putVehicleCode'> = async (call, ctx) => ({
  status: 200,
  body: await vocab.putVehicleCode(await ctx.tx(), call.params.partner_id, call.params.code, call.body.vehicle),
});

export const deleteVehicleCode: OpsHandler<'deleteVehicleCode'> = async (call, ctx) => ({
  status: 200,
  body: await vocab.deleteVehicleCode(await ctx.tx(), call.params.partner_id, call.params.code),
});
