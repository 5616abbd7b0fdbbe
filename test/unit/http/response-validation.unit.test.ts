import { DataKeys } from '../../../src/domain/kernel/data-keys';
import { EmptyBuckets, MemoryTokenBuckets } from '../../../src/http/token-buckets';
import { Metrics } from '../../../src/http/metrics';
import { createSurface } from '../../../src/http/surface';
import { transfersError } from '../../../src/http/transfers/errors';
import { RequestContext } from '../../../src/http/types';
import { AppError } from '../../../src/shared/errors';
import { makeLogger } from '../../../src/shared/logger';
import { systemClock } from '../../../src/shared/clock';
import { testConfig } from '../../support/test-app';
import type { Deps } from '../../../src/deps';
import { KeyCache } from '../../../src/domain/partners/key-cache';
import { RecentBookingFacts } from '../../../src/domain/bookings/recent';
import { FleetCapacity } from '../../../src/domain/fleet/capacity';

async function surfaceReturning(body: unknown, mode: 'enforce' | 'log' | 'off') {
  const logged: unknown[] = [];
  const logger = makeLogger('silent');
  logger.error = ((obj: unknown) => void logged.push(obj)) as typeof logger.error;
  const deps: Deps = {
    config: testConfig({ RESPONSE_VALIDATION: mode }),
    db: null as never,
    clock: systemClock,
    logger,
    lifecycle: { leaving: false, draining: false },
    keys: new KeyCache(),
    recent: new RecentBookingFacts(),
    dataKeys: new DataKeys(),
    marketplaceNotices: () => ({}),
    fleet: new FleetCapacity(systemClock),
    resolveHost: async () => [],
    limits: { anonymous: new MemoryTokenBuckets({ requestsPerSecond: 1, burst: 1 }), emptyPartners: new EmptyBuckets() },
    metrics: new Metrics(),
  };
  const surface = await createSurface(
    {
      name: 'transfers',
      contract: 'transfers-v1.yaml',
      apiRoot: '/transfers/v1',
      operations: {
        getPing: async () => ({ status: 200, body }),
        ...Object.fromEntries(
          ['createQuote', 'createBooking', 'getBooking', 'cancelBooking', 'expireOffer', 'pauseSandboxAccount', 'resumeSandboxAccount'].map((id) => [
            id,
            async () => ({ status: 500 }),
          ]),
        ),
      },
      authenticate: async (ctx) => ((ctx.env = 'sandbox'), true),
      unauthorized: () => new AppError('unauthorized', 'no'),
      errorResult: transfersError,
      decorate: (ctx, b) => ({ env: ctx.env, ...(b as object) }),
    },
    deps,
  );
  const ctx = new RequestContext({
    requestId: 'req_1',
    surface: 'transfers',
    deps,
    method: 'GET',
    url: '/transfers/v1/ping',
    headers: {},
    rawBody: Buffer.alloc(0),
  });
  const result = await surface.handle(ctx);
  return { result, logged };
}

describe('Responses are checked against the contract', () => {
  it('when a handler breaks the contract in dev/test, then the client gets 500 and the violation is logged', async () => {
    const { result, logged } = await surfaceReturning({ ok: 'yes', partner: 'P', time: 'now' }, 'enforce');
    expect(result.status).toBe(500);
    expect(result.body).toMatchObject({ error: { code: 'internal_error', message: 'response_contract_violation' } });
    expect(logged).toHaveLength(1);
  });

  it('when a handler breaks the contract with RESPONSE_VALIDATION=log, then it is logged and the response is sent', async () => {
    const { result, logged } = await surfaceReturning({ ok: 'yes', partner: 'P', time: 'now' }, 'log');
    expect(result.status).toBe(200);
    expect(logged).toHaveLength(1);
  });

  it('when responses are not checked (production), then nothing is validated or logged', async () => {
    const { result, logged } = await surfaceReturning({ ok: 'yes', partner: 'P', time: 'now' }, 'off');
    expect(result.status).toBe(200);
    expect(logged).toHaveLength(0);
  });

  it('when a handler honours the contract, then nothing is logged', async () => {
    const { result, logged } = await surfaceReturning({ ok: true, partner: 'P', time: '2026-11-21T08:00:00.000Z' }, 'enforce');
    expect(result).toMatchObject({ status: 200, body: { env: 'sandbox', ok: true } });
    expect(logged).toHaveLength(0);
  });
});
