import * as vocab from '../../../domain/partners/partners';
import type { OpsBody, OpsHandler, OpsParams } from './types';

export const listVehicleCodes: OpsHandler<'listVehicleCodes'> = async (c, ctx) => ({
  status: 200,
  body: { data: (await vocab.listVehicleCodes(ctx.trx, (c.request.params as OpsParams<'listVehicleCodes'>).partner_id)) as never },
});

export const putVehicleCode: OpsHandler<'putVehicleCode'> = async (c, ctx) => {
  const { partner_id, code } = c.request.params as OpsParams<'putVehicleCode'>;
  const { vehicle } = c.request.requestBody as OpsBody<'putVehicleCode'>;
  return { status: 200, body: (await vocab.putVehicleCode(ctx.trx, partner_id, code, vehicle)) as never };
};

export const deleteVehicleCode: OpsHandler<'deleteVehicleCode'> = async (c, ctx) => {
  const { partner_id, code } = c.request.params as OpsParams<'deleteVehicleCode'>;
  return { status: 200, body: (await vocab.deleteVehicleCode(ctx.trx, partner_id, code)) as never };
};
