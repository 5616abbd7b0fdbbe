import { retrying } from '../client';
import { flowRecorder, type Check, type Flow } from './flow';
import { airportTransfer } from './journeys';

const HEX32 = /^[0-9a-f]{32}$/;
const LOCK_MS = 30 * 60_000;

/** A journey we can serve is quoted with offers, each priced and locked for about 30 minutes. */
export const quoteFlow: Flow = async (client, ctx) => {
  const flow = flowRecorder('quote', ctx);
  const api = retrying(client, ctx.retryPolicy);
  await flow.check('quote.offers', 'POST /quotes answers 200 with priced offers locked for 30 minutes', async (c: Check) => {
    const r = c.record(await api.createQuote(airportTransfer(ctx)));
    c.equal(r.status, 200, 'status');
    const q = r.data!;
    c.expect(q.declined === null, `the quote declined: ${q.declined?.reason}`);
    c.expect(q.offers.length > 0, 'offers is empty');
    c.expect(HEX32.test(q.quote_id), `quote_id ${q.quote_id} is not 32 hex characters`);
    const lock = Date.parse(q.expires_at) - Date.parse(q.created_at);
    c.expect(Math.abs(lock - LOCK_MS) <= 60_000, `expires_at is ${Math.round(lock / 1000)} s after created_at, not about 30 minutes`);
    for (const o of q.offers) {
      c.expect(HEX32.test(o.offer_id), `offer_id ${o.offer_id} is not 32 hex characters`);
      c.expect(typeof o.price === 'number' && Number.isFinite(o.price) && o.price > 0, `offer ${o.offer_id} has price ${o.price}`);
      c.equal(o.currency, q.currency, `currency of offer ${o.offer_id}`);
      c.expect(Math.abs(Date.parse(o.expires_at) - Date.parse(q.expires_at)) <= 1000, `offer ${o.offer_id} expires at ${o.expires_at}, not with the quote`);
    }
    const prices = q.offers.map((o) => o.price);
    c.detail(
      `${q.offers.length} offers, ${q.currency} ${Math.min(...prices).toFixed(2)}–${Math.max(...prices).toFixed(2)}, expires_at ${q.expires_at} (${Math.round(lock / 60_000)} min)`,
    );
  });
  return flow.result();
};
