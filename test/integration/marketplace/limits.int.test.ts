import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { startTestApp, type TestApp } from '../../support/test-app';
import { client } from '../../support/http';
import { marketplaceClient, MARKETPLACE_ENV } from '../../support/marketplace';
import { operator } from '../../support/fixtures';
import { ManualClock } from '../../../src/shared/clock';
import { sampleMarketplaceOrder } from '../../../harness/fixtures/marketplace-orders';

/**
 * Values the marketplace surface's contract used to let through that the service cannot hold; each used to answer
 * 500. The marketplace speaks Sri Lankan local time without a zone ("YYYY-MM-DD HH:MM:SS"): a local time on a day
 * the database cannot hold with its job (0001-01-01 begins in year 0 in UTC; a job on 9999-12-31 ends in year
 * 10000) is refused as an invalid date, on every call that reads one. Money ("150.00") is kept in cents, exact
 * while below 2^53: the contract bounds it to 999999999.99. Refused: 400, nothing stored.
 */
const NOW = '2026-11-21T08:00:00Z';
const MP = `${MARKETPLACE_ENV.MARKETPLACE_URL}/apiin/${MARKETPLACE_ENV.MARKETPLACE_USER_ID}`;
/** The marketplace's own record of each order, which a callback re-fetches. */
const held = new Map<string, Record<string, unknown>>();
const server = setupServer(
  http.get(`${MP}/booking/:orderId/`, ({ params }) => {
    const order = held.get(String(params.orderId));
    return order ? HttpResponse.json({ status: 'OK', order }) : HttpResponse.json({ status: 'ERROR', error: 'order not found' }, { status: 404 });
  }),
);
const BAD_DATE = (d: string) => `invalid request: date ${d} is not a valid YYYY-MM-DD HH:MM:SS on a day from 0001-01-02 to 9999-12-30`;
let seq = 0;

describe('Marketplace values the service cannot hold', () => {
  let app: TestApp;
  let mp: ReturnType<typeof marketplaceClient>;

  beforeAll(async () => {
    server.listen({ onUnhandledRequest: 'bypass' });
    app = await startTestApp({ clock: new ManualClock(NOW), env: MARKETPLACE_ENV, outboxWorker: false });
    mp = marketplaceClient(app.url);
  });
  afterAll(async () => {
    await app.close();
    server.close();
  });

  const search = (date: string) => ({ from: { iata: 'CMB' }, to: { iata: 'JAF' }, date, adults: 1 });
  const order = (v: { vehicle_id: string; price_mark?: string; price: string }, date: string) => {
    seq += 1;
    return {
      order_id: `LT-${700000 + seq}`,
      vehicle_id: v.vehicle_id,
      price_mark: v.price_mark,
      date,
      from: { iata: 'CMB' },
      to: { iata: 'JAF' },
      adults: 1,
      price: v.price,
      currency: 'EUR',
      customer: { name: 'Anna Schmidt' },
    };
  };
  const counts = async () => {
    const [row] = (
      await app.db.raw(
        'select (select count(*) from marketplace_orders)::int as orders, (select count(*) from jobs)::int as jobs, (select count(*) from price_marks)::int as marks',
      )
    ).rows;
    return row as Record<string, number>;
  };

  it('when a search or order is for 9999-12-31 (its job would end in year 10000), or for the first days of time, then 400 and nothing is stored', async () => {
    const before = await counts();
    for (const date of ['9999-12-31 23:59:59', '9999-12-31 00:00:00', '0001-01-01 05:30:00', '0001-01-01 00:00:00', '0000-01-01 00:00:00']) {
      const s = await mp.signed('POST', '/search/', search(date));
      expect({ date, status: s.status, body: s.body }).toEqual({ date, status: 400, body: { status: 'ERROR', error: BAD_DATE(date) } });
      const o = await mp.signed('POST', '/booking/', order({ vehicle_id: 'standard_car', price: '999.00' }, date));
      expect({ date, status: o.status, body: o.body }).toEqual({ date, status: 400, body: { status: 'ERROR', error: BAD_DATE(date) } });
    }
    expect(await counts()).toEqual(before);
  });

  it('when an order is for the last day we hold, then it is confirmed and its job ends within the range', async () => {
    const s = await mp.signed('POST', '/search/', search('9999-12-30 23:59:59'));
    expect(s.status).toBe(200);
    const v = s.body.vehicles[0];
    const o = await mp.signed('POST', '/booking/', order(v, '9999-12-30 23:59:59'));
    expect(o.body).toMatchObject({ status: 'OK', order_state: 'confirmed' });
    const jobs = await operator(app.url).jobs({ order_id: o.body.order_id });
    expect(jobs).toHaveLength(1);
    expect(jobs[0].pickup_at).toBe('9999-12-30T18:29:59.000Z');
    expect(jobs[0].ends_at.startsWith('9999-12-31T')).toBe(true);
  });

  it('when a confirmed order is moved to a day the database cannot hold, then 400, and the order and its job are unchanged', async () => {
    const s = await mp.signed('POST', '/search/', search('2026-12-05 09:30:00'));
    const v = s.body.vehicles[0];
    const o = order(v, '2026-12-05 09:30:00');
    expect((await mp.signed('POST', '/booking/', o)).body.order_state).toBe('confirmed');
    const [before] = await operator(app.url).jobs({ order_id: o.order_id });
    for (const date of ['0000-01-01 00:00:00', '0001-01-01 03:00:00', '9999-12-31 23:59:59']) {
      const r = await mp.signed('POST', '/booking/update/', { order_id: o.order_id, date });
      expect({ date, status: r.status, body: r.body }).toEqual({ date, status: 400, body: { status: 'ERROR', error: BAD_DATE(date) } });
    }
    expect(await operator(app.url).jobs({ order_id: o.order_id })).toEqual([before]);
    const stored = await app.db('marketplace_orders').where({ orderId: o.order_id }).first();
    expect(stored.order.date).toBe('2026-12-05 09:30:00');
  });

  it('when an order’s price is beyond 999999999.99 (its cents no longer exact), then 400 names price and nothing is stored', async () => {
    const before = await counts();
    for (const price of ['99999999999999.99', '90071992547409.92', `${'9'.repeat(30)}.00`, '1000000000.00']) {
      for (const mark of [undefined, 'pm_00000000000000000000000000000000']) {
        const r = await mp.signed('POST', '/booking/', order({ vehicle_id: 'standard_car', price_mark: mark, price }, '2026-12-05 09:30:00'));
        expect({ price, status: r.status, body: r.body }).toEqual({
          price,
          status: 400,
          body: { status: 'ERROR', error: expect.stringMatching(/^The request is invalid: price must NOT have more than 12 characters/) },
        });
      }
    }
    expect(await counts()).toEqual(before);
    const most = await mp.signed('POST', '/booking/', order({ vehicle_id: 'standard_car', price: '999999999.99' }, '2026-12-05 09:30:00'));
    expect(most.body.order_state).toBe('confirmed');
  });

  it('when a callback’s re-fetched order carries such a price or day, then nothing is stored and no 5xx but the retry the marketplace is asked for', async () => {
    const callback = (order_id: string) =>
      client(app.url)('POST', `/marketplace/callback?token=${MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN}`, { body: { type: 'new', order_id } });
    const before = await counts();
    seq += 1;
    const pricey = sampleMarketplaceOrder(`LT-CB-${seq}`, { price: '99999999999999.99' });
    held.set(pricey.order_id, pricey);
    // An answer we cannot read is the marketplace's fault: 503, retry (as for any malformed re-fetch).
    const r = await callback(pricey.order_id);
    expect({ status: r.status, retry: r.headers.get('retry-after') }).toEqual({ status: 503, retry: '5' });
    for (const date of ['0000-01-01 00:00:00', '9999-12-31 23:59:59']) {
      seq += 1;
      const timeless = sampleMarketplaceOrder(`LT-CB-${seq}`, { date });
      held.set(timeless.order_id, timeless);
      const t = await callback(timeless.order_id);
      expect({ date, status: t.status, body: t.body }).toEqual({ date, status: 400, body: { status: 'ERROR', error: BAD_DATE(date) } });
    }
    expect(await counts()).toEqual(before);
  });
});
