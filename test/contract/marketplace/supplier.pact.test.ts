import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { MarketplaceDriver } from '../../../simulators/marketplace/driver';
import { MARKETPLACE_ENV } from '../../support/marketplace';
import { PACT_DIR } from '../../support/pacts';

// Pact 16.3+ can report "expected but not received" for a request its mock server matched and answered, when the
// machine is busy (pact-foundation/pact-reference#535: the match is recorded after the verification reads it).
// A retry runs the whole interaction again; a real mismatch fails every time.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * Marketplace → SupplierApi: the calls the marketplace makes on our service (contracts/marketplace-inbound.yaml),
 * driven by the marketplace simulator's MarketplaceDriver. Verified against the service (supplier.verify.test.ts).
 */
const { eachLike, fromProviderState, integer, like, regex } = MatchersV3;

const pact = new PactV4({
  consumer: 'Marketplace',
  provider: 'SupplierApi',
  dir: PACT_DIR,
  logLevel: 'warn',
});

const CALLBACK_TOKEN = MARKETPLACE_ENV.MARKETPLACE_CALLBACK_TOKEN;
// Signed over the mock server's URL here, the provider's URL at verification: the pact pins only the shape.
const signature = regex('^[0-9a-f]{40}$', '0123456789abcdef0123456789abcdef01234567');
const signedJson = { PrivateKey: signature, 'Content-Type': 'application/json' };
const json = { 'Content-Type': 'application/json' };
const MONEY = '^\\d+\\.\\d{2}$';
const LOCAL_DATETIME = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$';
const PRICE_MARK = '^pm_[0-9a-f]{32}$';
const PM_EXAMPLE = 'pm_5f0c1e7a9b2d4c6e8f10a2b4c6d8e0f1';
const SUPPLIER_ORDER_ID = regex('^MO-[0-9A-Z]{8}$', 'MO-4Q7K2M9X');

const SEARCH = { from: { iata: 'CMB' }, to: { name: 'Jetwing Lighthouse, Galle' }, date: '2026-12-01 09:30:00', adults: 2, children: 0, luggage: 2 };
const ORDER = {
  vehicle_id: 'standard_car',
  ...SEARCH,
  currency: 'EUR' as const,
  meeting_type: 'MG' as const,
  flight_number: 'UL504',
  customer: { name: 'Anna Schmidt', phone: '+491701234567', email: 'anna@example.de' },
};

const driver = (url: string) => new MarketplaceDriver({ inUrl: url, privateKey: 'consumer-side-key', callbackToken: CALLBACK_TOKEN });
const vehicle = {
  vehicle_id: like('standard_car'),
  price_mark: regex(PRICE_MARK, PM_EXAMPLE),
  title: like('Toyota Axio Sedan 1-3 passengers'),
  class: regex('^(economy|standard|business|luxury)$', 'standard'),
  max_passengers: integer(3),
  max_luggage: integer(2),
  price: regex(MONEY, '41.20'),
  currency: 'EUR',
  expires_at: regex(LOCAL_DATETIME, '2026-11-21 14:00:00'),
};
const ack = (orderId: string, orderState: string) => ({ status: 'OK', order_id: orderId, order_state: orderState, supplier_order_id: SUPPLIER_ORDER_ID });

describe('Marketplace → SupplierApi', () => {
  describe('search and price marks', () => {
    it('searches vehicles for a journey', async () => {
      await pact
        .addInteraction()
        .uponReceiving('a signed vehicle search from CMB to Galle')
        .withRequest('POST', '/search/', (b) => b.headers(signedJson).jsonBody(SEARCH))
        .willRespondWith(200, (b) => b.headers(json).jsonBody({ status: 'OK', vehicles: eachLike(vehicle) }))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).search(SEARCH);
          expect(r.status).toBe(200);
          expect(r.body).toMatchObject({ status: 'OK', vehicles: [{ vehicle_id: 'standard_car', price_mark: PM_EXAMPLE }] });
        });
    });

    it('reads back a locked quote', async () => {
      await pact
        .addInteraction()
        .given('a locked price mark for standard_car')
        .uponReceiving('a signed read of a locked quote')
        .withRequest('GET', fromProviderState('/search/standard_car/${price_mark}/', `/search/standard_car/${PM_EXAMPLE}/`), (b) =>
          b.headers({ PrivateKey: signature }),
        )
        .willRespondWith(200, (b) =>
          b.headers(json).jsonBody({
            status: 'OK',
            vehicle: { ...vehicle, vehicle_id: 'standard_car' },
            search: like({ from: { iata: 'CMB' }, date: '2026-12-01 09:30:00', adults: 2 }),
          }),
        )
        .executeTest(async (mock) => {
          const r = await driver(mock.url).lock('standard_car', PM_EXAMPLE);
          expect(r.body).toMatchObject({ status: 'OK', vehicle: { vehicle_id: 'standard_car', price_mark: PM_EXAMPLE } });
        });
    });

    it('re-quotes a vehicle that still fits', async () => {
      await pact
        .addInteraction()
        .uponReceiving('a signed re-quote of standard_car for two passengers')
        .withRequest('POST', '/search/standard_car/', (b) => b.headers(signedJson).jsonBody(SEARCH))
        .willRespondWith(200, (b) => b.headers(json).jsonBody({ status: 'OK', vehicle: { ...vehicle, vehicle_id: 'standard_car' } }))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).requote('standard_car', SEARCH);
          expect(r.body).toMatchObject({ status: 'OK', vehicle: { vehicle_id: 'standard_car' } });
        });
    });

    it('re-quotes a vehicle that no longer fits: NO_VEHICLE', async () => {
      const tooMany = { ...SEARCH, adults: 5 };
      await pact
        .addInteraction()
        .uponReceiving('a signed re-quote of standard_car for five passengers')
        .withRequest('POST', '/search/standard_car/', (b) => b.headers(signedJson).jsonBody(tooMany))
        .willRespondWith(200, (b) => b.headers(json).jsonBody({ status: 'NO_VEHICLE', error: like('the party does not fit'), reason: 'no_vehicle' }))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).requote('standard_car', tooMany);
          expect(r.body).toMatchObject({ status: 'NO_VEHICLE', reason: 'no_vehicle' });
        });
    });
  });

  describe('orders', () => {
    it('books an order on a locked price mark', async () => {
      await pact
        .addInteraction()
        .given('a locked price mark for standard_car')
        .uponReceiving('a signed booking of order INT-10 on the locked price')
        .withRequest('POST', '/booking/', (b) =>
          b.headers(signedJson).jsonBody({
            order_id: 'INT-10',
            price_mark: fromProviderState('${price_mark}', PM_EXAMPLE),
            price: fromProviderState('${price}', '41.20'),
            ...ORDER,
          }),
        )
        .willRespondWith(200, (b) => b.headers(json).jsonBody(ack('INT-10', 'confirmed')))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).book({ order_id: 'INT-10', price_mark: PM_EXAMPLE, price: '41.20', ...ORDER });
          expect(r.body).toMatchObject({ status: 'OK', order_id: 'INT-10', order_state: 'confirmed' });
        });
    });

    it('books an order on an expired price mark: declined', async () => {
      const expired = `pm_${'0'.repeat(32)}`;
      await pact
        .addInteraction()
        .uponReceiving('a signed booking of order INT-11 on an expired price mark')
        .withRequest('POST', '/booking/', (b) => b.headers(signedJson).jsonBody({ order_id: 'INT-11', price_mark: expired, price: '41.20', ...ORDER }))
        .willRespondWith(200, (b) => b.headers(json).jsonBody({ ...ack('INT-11', 'declined'), decline_reason: 'price_mark_expired' }))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).book({ order_id: 'INT-11', price_mark: expired, price: '41.20', ...ORDER });
          expect(r.body).toMatchObject({ order_state: 'declined', decline_reason: 'price_mark_expired' });
        });
    });

    it('cancels a confirmed order', async () => {
      await pact
        .addInteraction()
        .given('a confirmed order INT-1', { order_id: 'INT-1' })
        .uponReceiving('a signed cancellation of order INT-1')
        .withRequest('POST', '/booking/cancel/', (b) => b.headers(signedJson).jsonBody({ order_id: 'INT-1', reason: 'client request' }))
        .willRespondWith(200, (b) => b.headers(json).jsonBody(ack('INT-1', 'cancelled')))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).cancel({ order_id: 'INT-1', reason: 'client request' });
          expect(r.body).toMatchObject({ order_state: 'cancelled' });
        });
    });

    it('changes a confirmed order', async () => {
      const change = { order_id: 'INT-3', date: '2026-12-01 10:30:00', flight_number: 'UL506' };
      await pact
        .addInteraction()
        .given('a confirmed order INT-3', { order_id: 'INT-3' })
        .uponReceiving('a signed change of order INT-3')
        .withRequest('POST', '/booking/update/', (b) => b.headers(signedJson).jsonBody(change))
        .willRespondWith(200, (b) => b.headers(json).jsonBody(ack('INT-3', 'change_confirmed')))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).update(change);
          expect(r.body).toMatchObject({ order_state: 'change_confirmed' });
        });
    });

    it('sends a change older than the order the supplier holds: acknowledged as stale, nothing changed', async () => {
      const older = { order_id: 'INT-8', date: '2026-12-01 11:00:00', updated_at: '2026-11-21 13:10:00' };
      await pact
        .addInteraction()
        .given('a confirmed order INT-8 changed at 2026-11-21 13:20:00', { order_id: 'INT-8', updated_at: '2026-11-21 13:20:00' })
        .uponReceiving('a signed change of order INT-8 stamped before its latest change')
        .withRequest('POST', '/booking/update/', (b) => b.headers(signedJson).jsonBody(older))
        .willRespondWith(200, (b) => b.headers(json).jsonBody({ ...ack('INT-8', 'confirmed'), stale: true }))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).update(older);
          expect(r.body).toMatchObject({ status: 'OK', order_state: 'confirmed', stale: true });
        });
    });

    it('acknowledges our confirmation of an order', async () => {
      await pact
        .addInteraction()
        .given('a confirmed order INT-4', { order_id: 'INT-4' })
        .uponReceiving('a signed acknowledgement of order INT-4')
        .withRequest('POST', '/booking/confirm/', (b) => b.headers(signedJson).jsonBody({ order_id: 'INT-4' }))
        .willRespondWith(200, (b) => b.headers(json).jsonBody(ack('INT-4', 'acknowledged')))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).confirm('INT-4');
          expect(r.body).toMatchObject({ order_state: 'acknowledged' });
        });
    });

    it('reads the brand list without a signature', async () => {
      await pact
        .addInteraction()
        .uponReceiving('an unsigned request for the brand list')
        .withRequest('GET', '/brandlist/')
        .willRespondWith(200, (b) => b.headers(json).jsonBody({ status: 'OK', brands: eachLike({ id: integer(1), name: like('Toyota') }) }))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).brandList();
          expect(r.request.headers.PrivateKey).toBeUndefined();
          expect(r.body).toMatchObject({ status: 'OK', brands: [{ id: 1, name: 'Toyota' }] });
        });
    });
  });

  describe('order callbacks', () => {
    it('posts a new-order callback with the token in the query', async () => {
      await pact
        .addInteraction()
        .given('the marketplace serves order INT-2', { order_id: 'INT-2' })
        .uponReceiving('a new-order callback for INT-2')
        .withRequest('POST', '/callback', (b) => b.query({ token: CALLBACK_TOKEN }).headers(json).jsonBody({ type: 'new', order_id: 'INT-2' }))
        .willRespondWith(200, (b) => b.headers(json).jsonBody(ack('INT-2', 'confirmed')))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).callback({ type: 'new', order_id: 'INT-2' });
          expect(r.body).toMatchObject({ status: 'OK', order_id: 'INT-2', order_state: 'confirmed' });
        });
    });

    it('posts a change callback with the token in a header', async () => {
      await pact
        .addInteraction()
        .given('the marketplace serves a change to confirmed order INT-6', { order_id: 'INT-6' })
        .uponReceiving('a change callback for INT-6')
        .withRequest('POST', '/callback', (b) => b.headers({ ...json, 'X-Callback-Token': CALLBACK_TOKEN }).jsonBody({ type: 'change', order_id: 'INT-6' }))
        .willRespondWith(200, (b) => b.headers(json).jsonBody(ack('INT-6', 'change_confirmed')))
        .executeTest(async (mock) => {
          const r = await driver(mock.url).callback({ type: 'change', order_id: 'INT-6' }, { via: 'header' });
          expect(r.body).toMatchObject({ status: 'OK', order_id: 'INT-6', order_state: 'change_confirmed' });
        });
    });
  });
});
