import { openApiSurface } from '../../../src/http/openapi-surface';
import { transfersError } from '../../../src/http/transfers/envelope';
import { AppError } from '../../../src/shared/errors';
import { makeLogger } from '../../../src/shared/logger';
import { systemClock } from '../../../src/shared/clock';
import { testConfig } from '../../support/test-app';
import type { RequestContext } from '../../../src/http/types';

/** A transaction stand-in: savepoints just run their callback. */
const fakeTrx = { transaction: (cb: (t: unknown) => unknown) => cb(fakeTrx) } as unknown as RequestContext['trx'];

async function surfaceReturning(body: unknown, mode: 'enforce' | 'log') {
  const logged: unknown[] = [];
  const logger = makeLogger('silent');
  logger.error = ((obj: unknown) => void logged.push(obj)) as typeof logger.error;
  const deps = { config: testConfig({ RESPONSE_VALIDATION: mode }), db: null as never, clock: systemClock, logger };
  const surface = await openApiSurface(
    {
      name: 'transfers',
      contract: 'transfers-v1.yaml',
      apiRoot: '/transfers/v1',
      operations: { getPing: async () => ({ status: 200, body }) },
      authenticate: async (ctx) => ((ctx.env = 'sandbox'), true),
      unauthorized: () => new AppError('unauthorized', 401, 'no'),
      errorResult: transfersError,
      decorate: (ctx, b) => ({ env: ctx.env, ...(b as object) }),
    },
    deps,
  );
  const ctx = { requestId: 'req_1', surface: 'transfers', deps, method: 'GET', url: '/transfers/v1/ping', headers: {}, rawBody: Buffer.alloc(0), trx: fakeTrx } as RequestContext;
  const result = await surface.handle({ method: 'GET', path: '/transfers/v1/ping', query: {}, headers: {}, body: undefined }, ctx);
  return { result, logged };
}

describe('Responses are checked against the contract', () => {
  it('when a handler breaks the contract in dev/test, then the client gets 500 and the violation is logged', async () => {
    const { result, logged } = await surfaceReturning({ ok: 'yes', partner: 'P', time: 'now' }, 'enforce');
    expect(result.status).toBe(500);
    expect(result.body).toMatchObject({ error: { code: 'internal_error', message: 'response_contract_violation' } });
    expect(logged).toHaveLength(1);
  });

  it('when a handler breaks the contract in production, then it is logged and the response is sent', async () => {
    const { result, logged } = await surfaceReturning({ ok: 'yes', partner: 'P', time: 'now' }, 'log');
    expect(result.status).toBe(200);
    expect(logged).toHaveLength(1);
  });

  it('when a handler honours the contract, then nothing is logged', async () => {
    const { result, logged } = await surfaceReturning({ ok: true, partner: 'P', time: '2026-11-21T08:00:00.000Z' }, 'enforce');
    expect(result).toMatchObject({ status: 200, body: { env: 'sandbox', ok: true } });
    expect(logged).toHaveLength(0);
  });
});
