import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { MarketplaceError } from '../../../src/adapters/marketplace/errors';
import { PACT_DIR } from '../../support/pacts';

// Pact 16.3+ can report "expected but not received" for a request its mock server matched and answered, when the
// machine is busy (pact-foundation/pact-reference#535: the match is recorded after the verification reads it).
// A retry runs the whole interaction again; a real mismatch fails every time.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * TransferService → Marketplace: what our HttpMarketplaceClient sends to the marketplace's `apiin` API and what it
 * relies on in the answers. Verified against the marketplace simulator (simulator.verify.test.ts).
 */
const { eachLike, integer, like, regex } = MatchersV3;

const pact = new PactV4({
  consumer: 'TransferService',
  provider: 'Marketplace',
  dir: PACT_DIR,
  logLevel: 'warn',
});

const USER_ID = '1001';
const API = `/apiin/${USER_ID}`;
// The signature covers the mock server's URL here and the simulator's URL at verification: only its shape is pinned.
const signature = regex('^[0-9a-f]{40}$', '0123456789abcdef0123456789abcdef01234567');
const signedJson = { PrivateKey: signature, 'Content-Type': 'application/json' };
const OK = { status: 'OK' };
const LOCAL_DATETIME = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$';
const MONEY = '^\\d+\\.\\d{2}$';

// Each test has a new mock server, which may get a port an earlier one had: no connection is kept alive, so a request
// can never travel on a socket to a mock server of an earlier test (once, in CI, a request went unseen by its own).
const closeEach: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), Connection: 'close' } });
const client = (baseUrl: string) => new HttpMarketplaceClient({ baseUrl, userId: USER_ID, privateKey: 'consumer-side-key', timeoutMs: 5000, fetch: closeEach });
const holds = (orderId: string, state: string) => ['the marketplace holds an order', { order_id: orderId, state }] as const;

describe('TransferService → Marketplace (apiin)', () => {
  it('confirms a new order', async () => {
    await pact
      .addInteraction()
      .given(...holds('INT-700123', 'new'))
      .uponReceiving('a confirmation of order INT-700123')
      .withRequest('POST', `${API}/booking/confirm/`, (b) => b.headers(signedJson).jsonBody({ order_id: 'INT-700123', supplier_order_id: 'MO-4Q7K2M9X' }))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody(OK))
      .executeTest(async (mock) => {
        const r = await client(mock.url).confirmOrder({ order_id: 'INT-700123', supplier_order_id: 'MO-4Q7K2M9X' });
        expect(r.body.status).toBe('OK');
      });
  });

  it('declines a new order with a reason', async () => {
    const body = { order_id: 'INT-700124', reason: 'price_mark_expired' as const, comment: 'The locked quote expired before the order arrived.' };
    await pact
      .addInteraction()
      .given(...holds('INT-700124', 'new'))
      .uponReceiving('a decline of order INT-700124')
      .withRequest('POST', `${API}/booking/decline/`, (b) => b.headers(signedJson).jsonBody(body))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody(OK))
      .executeTest(async (mock) => {
        expect((await client(mock.url).declineOrder(body)).body.status).toBe('OK');
      });
  });

  it('sends the driver and vehicle of a confirmed order', async () => {
    const body = {
      order_id: 'INT-700125',
      driver: { name: 'Sunil Fernando', phone: '+94771234567', messenger: 'WhatsApp' },
      vehicle: { brand_id: 1, brand: 'Toyota', model: 'Corolla', plate: 'CAB-1234', color: 'white' },
    };
    await pact
      .addInteraction()
      .given(...holds('INT-700125', 'confirmed'))
      .uponReceiving('driver details for order INT-700125')
      .withRequest('POST', `${API}/booking/driver/`, (b) => b.headers(signedJson).jsonBody(body))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody(OK))
      .executeTest(async (mock) => {
        expect((await client(mock.url).sendDriverInfo(body)).body.status).toBe('OK');
      });
  });

  it("sends the driver's location for a confirmed order", async () => {
    const body = { order_id: 'INT-700125', lat: 7.1801, lon: 79.8843, at: '2026-12-01 09:12:00' };
    await pact
      .addInteraction()
      .given(...holds('INT-700125', 'confirmed'))
      .uponReceiving('a driver location for order INT-700125')
      .withRequest('POST', `${API}/booking/location/`, (b) => b.headers(signedJson).jsonBody(body))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody(OK))
      .executeTest(async (mock) => {
        expect((await client(mock.url).sendDriverLocation(body)).body.status).toBe('OK');
      });
  });

  it('accepts a change to an order', async () => {
    await pact
      .addInteraction()
      .given(...holds('INT-700126', 'changed'))
      .uponReceiving('an accepted change of order INT-700126')
      .withRequest('POST', `${API}/booking/change/confirm/`, (b) => b.headers(signedJson).jsonBody({ order_id: 'INT-700126', accepted: true }))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody(OK))
      .executeTest(async (mock) => {
        expect((await client(mock.url).confirmChange({ order_id: 'INT-700126', accepted: true })).body.status).toBe('OK');
      });
  });

  it('reports a no-show with evidence', async () => {
    const body = {
      order_id: 'INT-700127',
      evidence: {
        gps_track: [
          { lat: 7.1801, lon: 79.8843, at: '2026-12-01 09:30:00' },
          { lat: 7.1801, lon: 79.8843, at: '2026-12-01 10:40:00' },
        ],
        comment: 'Waited at arrivals with a name board until 70 minutes after landing.',
      },
    };
    await pact
      .addInteraction()
      .given(...holds('INT-700127', 'confirmed'))
      .uponReceiving('a no-show report for order INT-700127')
      .withRequest('POST', `${API}/booking/noshow/`, (b) => b.headers(signedJson).jsonBody(body))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody(OK))
      .executeTest(async (mock) => {
        expect((await client(mock.url).reportNoShow(body)).body.status).toBe('OK');
      });
  });

  it('reads the brand list', async () => {
    await pact
      .addInteraction()
      .uponReceiving('a request for the brand list')
      .withRequest('GET', `${API}/brandlist/`, (b) => b.headers({ PrivateKey: signature }))
      .willRespondWith(200, (b) =>
        b.headers({ 'Content-Type': 'application/json' }).jsonBody({ status: 'OK', brands: eachLike({ id: integer(1), name: like('Toyota') }) }),
      )
      .executeTest(async (mock) => {
        const r = await client(mock.url).getBrandList();
        expect(r.body.brands[0]).toEqual({ id: 1, name: 'Toyota' });
      });
  });

  it('re-fetches an order (the source of truth after a callback)', async () => {
    const order = {
      order_id: 'INT-700128',
      state: regex('^(new|confirmed|declined|changed|cancelled|completed|no_show)$', 'confirmed'),
      vehicle_id: like('standard_car'),
      date: regex(LOCAL_DATETIME, '2026-12-01 09:30:00'),
      from: like({ iata: 'CMB' }),
      to: like({ name: 'Jetwing Lighthouse, Galle' }),
      adults: integer(2),
      price: regex(MONEY, '62.50'),
      currency: 'EUR',
      customer: like({ name: 'Anna Schmidt' }),
    };
    await pact
      .addInteraction()
      .given(...holds('INT-700128', 'confirmed'))
      .uponReceiving('a re-fetch of order INT-700128')
      .withRequest('GET', `${API}/booking/INT-700128/`, (b) => b.headers({ PrivateKey: signature }))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody({ status: 'OK', order }))
      .executeTest(async (mock) => {
        const r = await client(mock.url).getOrder('INT-700128');
        expect(r.body.order).toMatchObject({ order_id: 'INT-700128', state: 'confirmed', adults: 2, price: '62.50', currency: 'EUR' });
      });
  });

  it('re-fetches an order the marketplace does not hold', async () => {
    await pact
      .addInteraction()
      .given('the marketplace holds no order', { order_id: 'INT-404404' })
      .uponReceiving('a re-fetch of unknown order INT-404404')
      .withRequest('GET', `${API}/booking/INT-404404/`, (b) => b.headers({ PrivateKey: signature }))
      .willRespondWith(404, (b) => b.headers({ 'Content-Type': 'application/json' }).jsonBody({ status: 'ERROR', error: like('order not found') }))
      .executeTest(async (mock) => {
        const err = await client(mock.url)
          .getOrder('INT-404404')
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(MarketplaceError);
        expect(err).toMatchObject({ kind: 'rejected', status: 404, retryable: false });
      });
  });
});
