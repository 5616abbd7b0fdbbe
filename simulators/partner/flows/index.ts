import type { Flow } from './flow';
import { connectivityFlow } from './connectivity';
import { quoteFlow } from './quote';
import { declinesFlow } from './declines';
import { bookTransferFlow } from './book-transfer';
import { offerExpiryFlow } from './offer-expiry';
import { cancelBookingFlow } from './cancel-booking';
import { authenticationFlow } from './authentication';
import { retriesFlow } from './retries';
import { webhooksFlow } from './webhooks';

export * from './flow';
export { connectivityFlow, quoteFlow, declinesFlow, bookTransferFlow, offerExpiryFlow, cancelBookingFlow, authenticationFlow, retriesFlow, webhooksFlow };

/** Certification order: each flow seeds its own data, so any one can also run alone. */
export const certificationFlows: Array<{ name: string; run: Flow }> = [
  { name: 'connectivity', run: connectivityFlow },
  { name: 'quote', run: quoteFlow },
  { name: 'declines', run: declinesFlow },
  { name: 'book-transfer', run: bookTransferFlow },
  { name: 'offer-expiry', run: offerExpiryFlow },
  { name: 'cancel-booking', run: cancelBookingFlow },
  { name: 'authentication', run: authenticationFlow },
  { name: 'retries', run: retriesFlow },
  { name: 'webhooks', run: webhooksFlow },
];
