import type { RequestHandler } from 'express';
import { Verifier } from '@pact-foundation/pact';
import { SIGNATURE_HEADER, signMarketplaceRequest } from '../../../src/shared/signing/marketplace-signature';
import { startMarketplaceSim, type RunningMarketplaceSim } from '../../../simulators/marketplace/app';
import type { Order } from '../../../simulators/marketplace/contract';
import { pactFile } from '../../support/pacts';

const PACT = pactFile('TransferService-Marketplace');
const USER_ID = '1001';
const SIM_KEY = 'simulator-private-key';

/** The bytes the Pact proxy forwards: its body parser turns JSON into an object and re-serialises it. */
function forwardedBody(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (body && typeof body === 'object') return Buffer.from(JSON.stringify(body));
  return Buffer.alloc(0);
}

describe('The marketplace simulator honours the TransferService pact', () => {
  let mp: RunningMarketplaceSim;

  beforeAll(async () => {
    mp = await startMarketplaceSim({ userId: USER_ID, privateKey: SIM_KEY });
  });
  afterAll(() => mp.stop());

  const order = (orderId: string, state: Order['state']): Order => ({
    order_id: orderId,
    state,
    vehicle_id: 'standard_car',
    date: '2026-12-01 09:30:00',
    from: { iata: 'CMB' },
    to: { name: 'Jetwing Lighthouse, Galle' },
    adults: 2,
    luggage: 2,
    price: '62.50',
    currency: 'EUR',
    meeting_type: 'MG',
    customer: { name: 'Anna Schmidt', phone: '+491701234567' },
  });

  it('when the simulator runs over HTTP, then every interaction verifies, each call signed with its key', async () => {
    // Re-signs what the consumer signed, with the simulator's key, over the URL the simulator is called at.
    const requestFilter: RequestHandler = (req, _res, next) => {
      if (req.headers[SIGNATURE_HEADER.toLowerCase()] !== undefined) {
        req.headers[SIGNATURE_HEADER.toLowerCase()] = signMarketplaceRequest(`${mp.url}${req.originalUrl}`, forwardedBody(req.body), SIM_KEY);
      }
      next();
    };
    await new Verifier({
      provider: 'Marketplace',
      providerBaseUrl: mp.url,
      pactUrls: [PACT],
      // The simulator checks signatures over the Host it is addressed by, so the proxy must pass the target's.
      changeOrigin: true,
      requestFilter,
      stateHandlers: {
        'the marketplace holds an order': async (params: unknown) => {
          const { order_id: orderId, state } = params as { order_id: string; state: Order['state'] };
          mp.sim.state.orders.delete(orderId);
          mp.sim.seedOrder(order(orderId, state));
          return undefined;
        },
        'the marketplace holds no order': async (params: unknown) => {
          mp.sim.state.orders.delete((params as { order_id: string }).order_id);
          return undefined;
        },
      },
      logLevel: 'warn',
    }).verifyProvider();

    const calls = mp.sim.state.calls;
    expect(calls).toHaveLength(9);
    expect(calls.filter((c) => !c.signature_ok)).toEqual([]);
    expect(mp.sim.state.orders.get('INT-700123')?.status).toBe('confirmed');
    expect(mp.sim.state.orders.get('INT-700126')?.status).toBe('change_confirmed');
  });
});
