import type { Check } from './check';
import type { WebhookAttempt } from './report-types';
import { answered2xx, describeDelivery } from './traffic';

/** An attempt not sent because its endpoint was deleted meanwhile: nothing an endpoint answered. */
const sentToNoOne = (a: WebhookAttempt) => a.status === null && /^not sent: the endpoint is (deleted|gone)/.test(a.error ?? '');

/** 9. The partner's webhook endpoints answer our deliveries 2xx within the timeout (only for a partner with one). */
export const webhooksAcknowledged: Check = {
  id: 'webhooks_acknowledged',
  title: 'Webhook deliveries are answered 2xx within the timeout',
  texts: {
    pass: 'All {n} webhook delivery attempt(s) were answered 2xx in time.',
    fail: '{n} webhook delivery attempt(s) were not answered 2xx in time: answer any 2xx at once (within 15 s), then do the slow work; each failure is retried, and an endpoint failing for 3 days is disabled.',
    notSeen: 'No webhook delivery in the window: make a booking, or send a ping with POST /webhook_endpoints/{endpoint_id}/test.',
    notApplicable: 'Not applicable: no webhook endpoint in sandbox (register one with POST /webhook_endpoints to have its answers graded).',
  },
  applies: (webhooks) => webhooks.endpoints > 0,
  judge(_rows, { pass, fail }, { attempts }) {
    for (const a of attempts) {
      if (sentToNoOne(a)) continue;
      if (answered2xx(a)) pass(a, `${describeDelivery(a)}: answered ${a.status}`);
      else fail(a, `${describeDelivery(a)}: ${a.status === null ? (a.error ?? 'no answer') : `answered ${a.status}`}`);
    }
  },
};
