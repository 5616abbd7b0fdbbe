import type { RequestHandler } from 'express';
import { Verifier } from '@pact-foundation/pact';
import { SIGNATURE_HEADER, signMarketplaceRequest } from '../../../src/shared/signing/marketplace-signature';
import { startTestApp, type TestApp } from '../../support/test-app';
import { MARKETPLACE_ENV } from '../../support/marketplace';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import { MarketplaceDriver, type SupplierOrder, type Vehicle } from '../../../simulators/marketplace/driver';
import type { Order } from '../../../simulators/marketplace/contract';
import { sampleMarketplaceOrder } from '../../../harness/fixtures/marketplace-orders';
import { freePort } from '../../support/net';
import { pactFile } from '../../support/pacts';

const PACT = pactFile('Marketplace-SupplierApi');
const { MARKETPLACE_USER_ID: USER_ID, MARKETPLACE_PRIVATE_KEY: KEY, MARKETPLACE_CALLBACK_TOKEN: TOKEN } = MARKETPLACE_ENV;
const SEARCH = { from: { iata: 'CMB' }, to: { name: 'Jetwing Lighthouse, Galle' }, date: '2026-12-01 09:30:00', adults: 2, children: 0, luggage: 2 };

/** The bytes the Pact proxy forwards: its body parser turns JSON into an object and re-serialises it. */
function forwardedBody(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (body && typeof body === 'object') return Buffer.from(JSON.stringify(body));
  return Buffer.alloc(0);
}

describe('SupplierApi honours the Marketplace pact', () => {
  let app: TestApp;
  let mp: RunningMarketplaceSim;
  let inUrl: string;
  let driver: MarketplaceDriver;

  beforeAll(async () => {
    // The service re-fetches orders from the simulator over HTTP (this project loads no interceptor).
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: KEY });
    for (let attempt = 1; !app; attempt += 1) {
      const port = await freePort();
      inUrl = `http://127.0.0.1:${port}/marketplace`;
      try {
        app = await startTestApp({ env: { ...MARKETPLACE_ENV, PORT: String(port), MARKETPLACE_IN_URL: inUrl, MARKETPLACE_URL: mp.url }, outboxWorker: false });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw e;
      }
    }
    mp.sim.setSupplier({ inUrl, callbackToken: TOKEN });
    driver = new MarketplaceDriver({ inUrl, privateKey: KEY, callbackToken: TOKEN });
  });
  afterAll(async () => {
    await app?.close();
    await mp?.stop();
  });

  async function lockedVehicle(code: string): Promise<Vehicle> {
    const r = await driver.search(SEARCH);
    const v = r.status === 200 && 'vehicles' in r.body! ? r.body.vehicles.find((x) => x.vehicle_id === code) : undefined;
    if (!v) throw new Error(`state setup: no ${code} in the search answer (${r.status} ${r.text})`);
    return v;
  }

  async function confirmedOrder(params: unknown): Promise<undefined> {
    const { order_id: orderId } = params as { order_id: string };
    const v = await lockedVehicle('standard_car');
    const order: SupplierOrder = {
      order_id: orderId,
      price_mark: v.price_mark,
      vehicle_id: v.vehicle_id,
      price: v.price,
      currency: 'EUR',
      ...SEARCH,
      customer: { name: 'Anna Schmidt' },
    };
    const r = await driver.book(order);
    if ((r.body as { order_state?: string } | undefined)?.order_state !== 'confirmed')
      throw new Error(`state setup: order ${orderId} not confirmed (${r.status} ${r.text})`);
    return undefined;
  }

  const servedOrder = (orderId: string) => sampleMarketplaceOrder(orderId) as Order;

  it('when the service runs on a real database, then every interaction verifies, signed over the URL it is called at', async () => {
    // Adds the signature — over the URL the Verifier calls and the bytes it forwards — and nothing else.
    const requestFilter: RequestHandler = (req, _res, next) => {
      const header = SIGNATURE_HEADER.toLowerCase();
      if (req.headers[header] !== undefined) req.headers[header] = signMarketplaceRequest(`${inUrl}${req.originalUrl}`, forwardedBody(req.body), KEY);
      next();
    };
    await new Verifier({
      provider: 'SupplierApi',
      providerBaseUrl: inUrl,
      pactUrls: [PACT],
      requestFilter,
      stateHandlers: {
        'a locked price mark for standard_car': async () => {
          const v = await lockedVehicle('standard_car');
          return { price_mark: v.price_mark, price: v.price };
        },
        'a confirmed order INT-1': confirmedOrder,
        'a confirmed order INT-3': confirmedOrder,
        'a confirmed order INT-4': confirmedOrder,
        'a confirmed order INT-8 changed at 2026-11-21 13:20:00': async (params: unknown) => {
          const { order_id: orderId, updated_at: updatedAt } = params as { order_id: string; updated_at: string };
          await confirmedOrder({ order_id: orderId });
          const r = await driver.update({ order_id: orderId, date: '2026-12-01 12:00:00', updated_at: updatedAt });
          if ((r.body as { order_state?: string } | undefined)?.order_state !== 'change_confirmed') throw new Error(`state setup: ${r.status} ${r.text}`);
          return undefined;
        },
        'the marketplace serves order INT-2': async (params: unknown) => {
          mp.sim.seedOrder(servedOrder((params as { order_id: string }).order_id));
          return undefined;
        },
        'the marketplace serves a change to confirmed order INT-6': async (params: unknown) => {
          const { order_id: orderId } = params as { order_id: string };
          const created = await mp.sim.callback({ type: 'new', order: servedOrder(orderId) });
          if (created.body && (created.body as { order_state?: string }).order_state !== 'confirmed')
            throw new Error(`state setup: ${created.status} ${created.text}`);
          mp.sim.seedOrder({ ...servedOrder(orderId), state: 'changed', date: '2026-12-02 08:30:00', flight_number: 'QR662' });
          return undefined;
        },
      },
      logLevel: 'warn',
    }).verifyProvider();

    const orders = await app.db('marketplace_orders').whereIn('orderId', ['INT-1', 'INT-2', 'INT-3', 'INT-4', 'INT-6', 'INT-8', 'INT-10', 'INT-11']);
    expect(orders.map((o: { orderId: string; state: string }) => [o.orderId, o.state]).sort()).toEqual([
      ['INT-1', 'cancelled'],
      ['INT-10', 'confirmed'],
      ['INT-11', 'declined'],
      ['INT-2', 'confirmed'],
      ['INT-3', 'confirmed'],
      ['INT-4', 'confirmed'],
      ['INT-6', 'confirmed'],
      ['INT-8', 'confirmed'],
    ]);
    // The stale change changed nothing: the order keeps its later change.
    const int8 = await app.db('marketplace_orders').where({ orderId: 'INT-8' }).first();
    expect(int8.order).toMatchObject({ date: '2026-12-01 12:00:00', updated_at: '2026-11-21 13:20:00' });
    // Both callbacks were answered from the simulator's order, re-fetched with a valid signature.
    const refetches = mp.sim.state.calls.filter((c) => c.operation === 'getOrder');
    expect(refetches.map((c) => [c.path, c.signature_ok, c.status]).sort()).toEqual([
      [`/apiin/${USER_ID}/booking/INT-2/`, true, 200],
      [`/apiin/${USER_ID}/booking/INT-6/`, true, 200],
      [`/apiin/${USER_ID}/booking/INT-6/`, true, 200],
    ]);
  });
});
