import { getPing } from './get-ping';
import { createQuote } from './create-quote';
import { createBooking } from './create-booking';
import { getBooking } from './get-booking';
import { cancelBooking } from './cancel-booking';
import { eraseBooking } from './erase-booking';
import { expireOffer } from './expire-offer';
import { pauseSandboxAccount, resumeSandboxAccount } from './sandbox-account';
import { advanceSandboxBooking } from './advance-booking';
import { setSandboxFlight } from './sandbox-flights';
import { amendBooking, applyBookingChange, createChangeQuote, getCancellation } from './booking-changes';
import { getStatement } from './statements';
import { getContractJson, getContractYaml, getPostmanCollection } from './contract';
import { getIntegrationReport } from './integration-report';
import { getBookingTimeline, getRequest, listRequests, listWebhookDeliveries } from './workbench';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listEvents,
  listWebhookEndpoints,
  redeliverEvent,
  rotateWebhookSecret,
  testWebhookEndpoint,
} from './webhooks';

/** operationId → handler. A test checks these keys equal the contract's operations. */
export const operations = {
  getPing,
  createQuote,
  createBooking,
  getBooking,
  cancelBooking,
  eraseBooking,
  amendBooking,
  getCancellation,
  createChangeQuote,
  applyBookingChange,
  getStatement,
  expireOffer,
  pauseSandboxAccount,
  resumeSandboxAccount,
  advanceSandboxBooking,
  setSandboxFlight,
  getIntegrationReport,
  getContractJson,
  getContractYaml,
  getPostmanCollection,
  createWebhookEndpoint,
  listWebhookEndpoints,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  testWebhookEndpoint,
  listEvents,
  redeliverEvent,
  listWebhookDeliveries,
  listRequests,
  getRequest,
  getBookingTimeline,
};
