import { getPing } from './get-ping';
import { createQuote } from './create-quote';
import { createBooking } from './create-booking';
import { getBooking } from './get-booking';
import { cancelBooking } from './cancel-booking';
import { expireOffer } from './expire-offer';
import { pauseSandboxAccount, resumeSandboxAccount } from './sandbox-account';
import { advanceSandboxBooking } from './advance-booking';

/** operationId → handler. A test checks these keys equal the contract's operations. */
export const operations = {
  getPing,
  createQuote,
  createBooking,
  getBooking,
  cancelBooking,
  expireOffer,
  pauseSandboxAccount,
  resumeSandboxAccount,
  advanceSandboxBooking,
};
