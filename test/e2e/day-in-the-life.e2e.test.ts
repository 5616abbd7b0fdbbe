import { startTestApp, type TestApp } from '../support/test-app';
import { client } from '../support/http';
import { operator } from '../support/fixtures';
import { MARKETPLACE_ENV } from '../support/marketplace';
import { ManualClock } from '../../src/shared/clock';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../simulators/marketplace/app';
import { createPartnerClient, type PartnerClient } from '../../simulators/partner/client';
import { sampleMarketplaceOrder } from '../../harness/fixtures/marketplace-orders';

const { MARKETPLACE_USER_ID: USER_ID, MARKETPLACE_PRIVATE_KEY: KEY, MARKETPLACE_CALLBACK_TOKEN: TOKEN, MARKETPLACE_IN_URL: IN_URL } = MARKETPLACE_ENV;

/** Polls until `check` returns a value (the outbox worker delivers in the background, once a second). */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * One day on the service, with everything running for real: the service (with its background outbox worker),
 * the marketplace simulator over HTTP, and a partner integration built on the partner simulator's client.
 */
describe('A day in the life', () => {
  let app: TestApp;
  let mp: RunningMarketplaceSim;
  let sim: ReturnType<typeof client>;
  let partner: PartnerClient;
  const clock = new ManualClock('2026-11-21T06:00:00Z');

  const drive = async (action: string, body: unknown) => {
    const r = await sim('POST', `/__sim/drive/${action}`, { body });
    expect(r.status).toBe(200);
    return r.body as { response: { status: number; body: any }; order?: any };
  };
  const simCalls = async (query: string) => (await sim('GET', `/__sim/calls${query}`)).body.calls as Array<Record<string, any>>;
  const confirmedAtMarketplace = (orderId: string) =>
    eventually(`the confirmation of ${orderId} at the marketplace`, async () => {
      const calls = await simCalls(`?operation=confirmOrder&order_id=${orderId}`);
      return calls.some((c) => c.status === 200) ? calls : undefined;
    });

  beforeAll(async () => {
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: KEY });
    app = await startTestApp({ clock, env: { ...MARKETPLACE_ENV, MARKETPLACE_URL: mp.url } });
    mp.sim.setSupplier({ inUrl: IN_URL, baseUrl: `${app.url}/marketplace`, callbackToken: TOKEN });
    sim = client(mp.url);
    const account = await operator(app.url).partnerWithKeys('Island Holidays');
    partner = createPartnerClient({ baseUrl: app.url, apiKey: account.testKey });
  });
  afterAll(async () => {
    await app.close();
    await mp.stop();
  });

  it('partners and the marketplace book, callbacks are re-fetched, confirmations arrive, both sides cancel', async () => {
    // 06:00 — a travel agency quotes an airport pickup to a Galle hotel and books the standard car.
    expect((await partner.ping()).data).toMatchObject({ env: 'sandbox', ok: true });
    const quote = await partner.createQuote({
      pickup: { iata: 'CMB' },
      dropoff: { name: 'Jetwing Lighthouse, Galle' },
      pickup_datetime: '2026-12-01T09:30:00+05:30',
      passengers: { adults: 2, luggage: 2 },
    });
    expect(quote.status).toBe(200);
    const offer = quote.data!.offers.find((o) => o.vehicle_code === 'standard_car')!;
    const bookingBody = {
      quote_id: quote.data!.quote_id,
      offer_id: offer.offer_id,
      partner_reference: 'IH-2026-0042',
      passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com' },
      passengers: { adults: 2, luggage: 2 },
      flight_number: 'UL504',
    };
    const booked = await partner.createBooking(bookingBody, { idempotencyKey: 'ih-0042-attempt' });
    expect(booked.status).toBe(201);
    expect(booked.data).toMatchObject({ status: 'confirmed', price: offer.price });
    // Their network drops the answer; they retry with the same key and get the same booking.
    const retried = await partner.createBooking(bookingBody, { idempotencyKey: 'ih-0042-attempt' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.data!.booking_ref).toBe(booked.data!.booking_ref);

    // 07:00 — the marketplace searches, locks a quote and books a van for a family from Kandy.
    clock.advance(60 * 60 * 1000);
    const search = await drive('search', { from: { name: 'Kandy' }, to: { iata: 'CMB' }, date: '2026-12-02 07:00:00', adults: 4, children: 1, luggage: 4 });
    const van = search.response.body.vehicles.find((v: any) => v.vehicle_id === 'standard_van');
    const locked = await drive('lock', { vehicle_id: van.vehicle_id, price_mark: van.price_mark });
    expect(locked.response.body.vehicle.price).toBe(van.price);
    const order = await drive('book', {
      order: { ...sampleMarketplaceOrder('ignored'), order_id: undefined, state: undefined, price_mark: van.price_mark, price: van.price },
    });
    const orderId = order.order.order.order_id as string;
    expect(order.response.body).toMatchObject({ status: 'OK', order_id: orderId, order_state: 'confirmed' });
    // The confirmation reaches the marketplace by itself (outbox worker), signed, exactly once.
    const confirms = await confirmedAtMarketplace(orderId);
    expect(confirms.filter((c) => c.status === 200)).toHaveLength(1);
    expect(confirms.every((c) => c.signature_ok)).toBe(true);
    expect((await sim('GET', `/__sim/orders/${orderId}`)).body.status).toBe('confirmed');

    // 08:00 — an order arrives as a callback whose body is not the order: the service re-fetches it.
    clock.advance(60 * 60 * 1000);
    await sim('POST', '/__sim/scenarios', { body: { callback_body_override: { price: '1.00', customer: { name: 'Mallory' } } } });
    const cbOrder = sampleMarketplaceOrder('INT-900001', { state: undefined, from: { name: 'Ella' }, to: { name: 'Kandy' }, adults: 2, children: 0, luggage: 2, vehicle_id: 'suv', price: '120.00' });
    const cb = await drive('callback', { type: 'new', order: cbOrder });
    expect(cb.response).toMatchObject({ status: 200, body: { order_state: 'confirmed' } });
    const stored = await app.db('marketplace_orders').where({ orderId: 'INT-900001' }).first();
    expect(stored.order).toMatchObject({ price: '120.00', customer: { name: 'Anna Schmidt' } });
    expect(await simCalls('?operation=getOrder&order_id=INT-900001')).toHaveLength(1);
    await confirmedAtMarketplace('INT-900001');

    // One fleet, one schedule: all three journeys are jobs.
    const jobs = await app.db('jobs').orderBy('jobId');
    expect(jobs.map((j: any) => [j.source, j.status, j.vehicle])).toEqual([
      ['partner_booking', 'scheduled', 'standard_car'],
      ['marketplace_order', 'scheduled', 'standard_van'],
      ['marketplace_order', 'scheduled', 'suv'],
    ]);

    // 18:00 — both sides cancel: the agency its booking, the marketplace its first order.
    clock.advance(10 * 60 * 60 * 1000);
    const cancelled = await partner.cancelBooking(booked.data!.booking_ref);
    expect(cancelled.data).toMatchObject({ status: 'cancelled', cancelled_at: '2026-11-21T18:00:00.000Z' });
    const mpCancel = await drive('cancel', { order_id: orderId, reason: 'client changed plans' });
    expect(mpCancel.response.body).toMatchObject({ status: 'OK', order_state: 'cancelled' });
    const after = await app.db('jobs').orderBy('jobId');
    expect(after.map((j: any) => j.status)).toEqual(['cancelled', 'cancelled', 'scheduled']);

    // Everything that crossed a boundary is in the audit log, inbound and outbound.
    const surfaces = await app.db('audit_log').select('surface', 'direction').count({ n: '*' }).groupBy('surface', 'direction');
    const seen = new Set(surfaces.map((s: any) => `${s.surface}/${s.direction}`));
    for (const s of ['transfers/inbound', 'ops/inbound', 'marketplace/inbound', 'marketplace/outbound']) expect(seen).toContain(s);
  });
});
