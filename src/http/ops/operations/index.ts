import { getOpsPing } from './ping';
import {
  createPartner,
  getPartner,
  getPartnerStatement,
  getPartnerTerms,
  listPartners,
  pausePartner,
  putPartnerRateLimit,
  putPartnerTerms,
  resumePartner,
} from './partners';
import { createOperator, getMe, listOperators, revokeOperator } from './operators';
import { createKey, listKeys, revokeKey } from './keys';
import { deleteVehicleCode, listVehicleCodes, putVehicleCode } from './vehicle-codes';
import { listAudit } from './audit';
import { listOutbox, retryOutboxMessage } from './outbox';
import { disableWebhookEndpoint, enableWebhookEndpoint, listWebhookEndpoints } from './webhooks';
import {
  assignJob,
  completeJob,
  createDriver,
  createVehicle,
  deactivateDriver,
  deactivateVehicle,
  getJob,
  listDrivers,
  listJobs,
  listVehicles,
  putVehicleEquipment,
  reportJobLocation,
  reportNoShow,
} from './fleet';

/** operationId → handler. A test checks these keys equal the contract's operations. */
export const operations = {
  getOpsPing,
  createPartner,
  listPartners,
  getPartner,
  pausePartner,
  resumePartner,
  putPartnerRateLimit,
  getPartnerTerms,
  putPartnerTerms,
  getPartnerStatement,
  createOperator,
  listOperators,
  revokeOperator,
  getMe,
  createKey,
  listKeys,
  revokeKey,
  listVehicleCodes,
  putVehicleCode,
  deleteVehicleCode,
  listAudit,
  listOutbox,
  retryOutboxMessage,
  listWebhookEndpoints,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  createVehicle,
  listVehicles,
  deactivateVehicle,
  putVehicleEquipment,
  createDriver,
  listDrivers,
  deactivateDriver,
  listJobs,
  getJob,
  assignJob,
  reportJobLocation,
  reportNoShow,
  completeJob,
};
