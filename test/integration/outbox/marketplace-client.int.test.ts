import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { HttpMarketplaceClient } from '../../../src/adapters/marketplace/http-marketplace-client';
import { MarketplaceError } from '../../../src/adapters/marketplace/errors';
import { verifyMarketplaceSignature } from '../../../src/shared/signing/marketplace-signature';
import { ManualClock } from '../../../src/shared/clock';
import { testConfig } from '../../support/test-app';

const KEY = 'mp_test_private_key_7f3a';
const BASE = 'http://marketplace.test/apiin/1001';
const config = testConfig({ MARKETPLACE_URL: 'http://marketplace.test', MARKETPLACE_USER_ID: '1001', MARKETPLACE_PRIVATE_KEY: KEY });

interface Hit {
  method: string;
  url: string;
  text: string;
  signature: string | null;
  contentType: string | null;
}

const server = setupServer();
const hits: Hit[] = [];

/** Answers every marketplace request with `answer`, recording what arrived. */
function marketplace(answer: (hit: Hit) => Response | Promise<Response> = () => HttpResponse.json({ status: 'OK' })) {
  server.use(
    http.all('http://marketplace.test/*', async ({ request }) => {
      const hit = {
        method: request.method,
        url: request.url,
        text: await request.text(),
        signature: request.headers.get('PrivateKey'),
        contentType: request.headers.get('Content-Type'),
      };
      hits.push(hit);
      return answer(hit);
    }),
  );
}

function client(timeoutMs?: number) {
  const { url, userId, privateKey } = config.marketplace;
  return new HttpMarketplaceClient({ baseUrl: url!, userId: userId!, privateKey: privateKey!, timeoutMs, clock: new ManualClock('2026-11-21T08:00:00Z') });
}

async function failure(p: Promise<unknown>): Promise<MarketplaceError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(MarketplaceError);
  return e as MarketplaceError;
}

const ORDER = {
  order_id: 'INT-700123',
  state: 'new',
  vehicle_id: 'standard_car',
  date: '2026-12-01 09:00:00',
  from: { iata: 'CMB', name: 'Bandaranaike International Airport' },
  to: { name: 'Galle Fort', lat: 6.0269, lon: 80.217 },
  adults: 2,
  price: '62.50',
  currency: 'EUR',
  customer: { name: 'Ada Lovelace', phone: '+447700900123' },
};

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  hits.length = 0;
});
afterAll(() => server.close());

describe('HttpMarketplaceClient', () => {
  const c = client();

  it.each([
    ['confirmOrder', '/booking/confirm/', () => c.confirmOrder({ order_id: 'INT-1', supplier_order_id: 'MO-1' })],
    ['declineOrder', '/booking/decline/', () => c.declineOrder({ order_id: 'INT-2', reason: 'no_vehicle', comment: 'none left' })],
    [
      'sendDriverInfo',
      '/booking/driver/',
      () =>
        c.sendDriverInfo({
          order_id: 'INT-3',
          driver: { name: 'Sunil', phone: '+94771234567' },
          vehicle: { brand: 'Toyota', model: 'Corolla', plate: 'CAB-1234' },
        }),
    ],
    ['sendDriverLocation', '/booking/location/', () => c.sendDriverLocation({ order_id: 'INT-4', lat: 7.18, lon: 79.88, at: '2026-12-01 09:12:00' })],
    ['confirmChange', '/booking/change/confirm/', () => c.confirmChange({ order_id: 'INT-5', accepted: false, comment: 'no later slot' })],
    ['reportNoShow', '/booking/noshow/', () => c.reportNoShow({ order_id: 'INT-6', evidence: { comment: 'waited 70 minutes' } })],
  ])('when %s is called, then it POSTs the JSON body to %s signed over the URL and those exact bytes', async (_op, path, call) => {
    marketplace();
    const r = await call();
    expect(r.body).toEqual({ status: 'OK' });
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe(`${BASE}${path}`);
    expect(hit.contentType).toBe('application/json');
    expect(verifyMarketplaceSignature(hit.url, hit.text, KEY, hit.signature ?? undefined)).toEqual({ ok: true });
    expect(r.exchange).toMatchObject({ method: 'POST', url: hit.url, path: `/apiin/1001${path}`, status: 200, responseBody: { status: 'OK' }, error: null });
    expect(r.exchange.requestBody).toEqual(JSON.parse(hit.text));
  });

  it('when getOrder is called, then it sends a GET signed over an empty body and returns the parsed order', async () => {
    marketplace(() => HttpResponse.json({ status: 'OK', order: ORDER }));
    const r = await c.getOrder('INT-700123');
    expect(r.body.order).toEqual(ORDER);
    expect(hits[0]).toMatchObject({ method: 'GET', url: `${BASE}/booking/INT-700123/`, text: '' });
    expect(verifyMarketplaceSignature(hits[0].url, '', KEY, hits[0].signature ?? undefined)).toEqual({ ok: true });
    expect(r.exchange).toMatchObject({ method: 'GET', requestBody: null, status: 200 });
  });

  it('when an order id needs escaping, then the URL signed is the URL sent', async () => {
    marketplace(() => HttpResponse.json({ status: 'OK', order: { ...ORDER, order_id: 'A/B C' } }));
    await c.getOrder('A/B C');
    expect(hits[0].url).toBe(`${BASE}/booking/A%2FB%20C/`);
    expect(verifyMarketplaceSignature(hits[0].url, '', KEY, hits[0].signature ?? undefined)).toEqual({ ok: true });
  });

  it('when the brand list is fetched, then it is a signed GET and the brands come back', async () => {
    marketplace(() => HttpResponse.json({ status: 'OK', brands: [{ id: 1, name: 'Toyota' }] }));
    const r = await c.getBrandList();
    expect(r.body.brands).toEqual([{ id: 1, name: 'Toyota' }]);
    expect(hits[0]).toMatchObject({ method: 'GET', url: `${BASE}/brandlist/`, text: '' });
    expect(verifyMarketplaceSignature(hits[0].url, '', KEY, hits[0].signature ?? undefined)).toEqual({ ok: true });
  });

  it('when the marketplace answers 503, then the error is unavailable, retryable, and carries the exchange', async () => {
    marketplace(() => HttpResponse.json({ status: 'ERROR', error: 'maintenance' }, { status: 503 }));
    const e = await failure(c.confirmOrder({ order_id: 'INT-1', supplier_order_id: 'MO-1' }));
    expect(e).toMatchObject({ kind: 'unavailable', status: 503, retryable: true, marketplaceMessage: 'maintenance' });
    expect(e.exchange).toMatchObject({ status: 503, responseBody: { status: 'ERROR', error: 'maintenance' }, error: e.message });
  });

  it('when the marketplace does not answer within the timeout, then the client aborts the request and the error is timeout with no status', async () => {
    // The marketplace hangs until the client gives up (or 10 s, which this test then reports as never aborted).
    let hung!: Promise<'aborted' | 'never aborted'>;
    server.use(
      http.all('http://marketplace.test/*', async ({ request }) => {
        hung = new Promise((resolve) => {
          if (request.signal.aborted) return resolve('aborted');
          const giveUp = setTimeout(() => resolve('never aborted'), 10_000);
          request.signal.addEventListener('abort', () => (clearTimeout(giveUp), resolve('aborted')), { once: true });
        });
        hits.push({
          method: request.method,
          url: request.url,
          text: await request.text(),
          signature: request.headers.get('PrivateKey'),
          contentType: request.headers.get('Content-Type'),
        });
        await hung;
        return HttpResponse.json({ status: 'OK' });
      }),
    );
    const e = await failure(client(50).confirmOrder({ order_id: 'INT-1', supplier_order_id: 'MO-1' }));
    expect(hits).toHaveLength(1);
    expect(await hung).toBe('aborted');
    expect(e).toMatchObject({ kind: 'timeout', status: null, retryable: true });
    expect(e.exchange.status).toBeNull();
    expect(e.exchange.error).toMatch(/timeout/);
  });

  it('when timeoutMs passes with no answer, then the request is aborted at that moment and not before', async () => {
    // Timers faked, fetch injected: the moment is the client's own timer, moved by the test, not waited for.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const signals: AbortSignal[] = [];
      const hanging: typeof fetch = (_url, init) =>
        new Promise((_resolve, reject) => {
          const signal = init!.signal!;
          signals.push(signal);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      const c = new HttpMarketplaceClient({ baseUrl: 'http://marketplace.test', userId: '1001', privateKey: KEY, timeoutMs: 250, fetch: hanging });
      let settled = false;
      const outcome = c.getBrandList().finally(() => void (settled = true));
      outcome.catch(() => undefined);
      await jest.advanceTimersByTimeAsync(249);
      expect(signals).toHaveLength(1);
      expect({ settled, aborted: signals[0].aborted }).toEqual({ settled: false, aborted: false });
      await jest.advanceTimersByTimeAsync(1);
      expect(signals[0].aborted).toBe(true);
      expect(await failure(outcome)).toMatchObject({ kind: 'timeout', status: null, retryable: true });
      expect(settled).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('when the connection fails, then the error is unavailable with no status', async () => {
    marketplace(() => HttpResponse.error());
    const e = await failure(c.getBrandList());
    expect(e).toMatchObject({ kind: 'unavailable', status: null, retryable: true });
  });

  it('when the answer is not JSON, then the error is invalid_response and the raw text is kept for the audit', async () => {
    marketplace(() => new HttpResponse('<html>Bad gateway page</html>', { status: 200, headers: { 'Content-Type': 'text/html' } }));
    const e = await failure(c.getOrder('INT-700123'));
    expect(e).toMatchObject({ kind: 'invalid_response', status: 200, retryable: true });
    expect(e.exchange.responseBody).toBe('<html>Bad gateway page</html>');
  });

  it('when the JSON does not match the contract, then the error is invalid_response', async () => {
    marketplace(() => HttpResponse.json({ status: 'OK', order: { ...ORDER, price: 62.5 } }));
    expect(await failure(c.getOrder('INT-700123'))).toMatchObject({ kind: 'invalid_response', status: 200 });
  });

  it('when the marketplace refuses (4xx, or 200 with status ERROR), then the error is rejected; only 408/429 are retryable', async () => {
    marketplace(() => HttpResponse.json({ status: 'ERROR', error: 'order not found' }, { status: 404 }));
    expect(await failure(c.confirmOrder({ order_id: 'X', supplier_order_id: 'MO-1' }))).toMatchObject({
      kind: 'rejected',
      status: 404,
      retryable: false,
      marketplaceMessage: 'order not found',
    });
    server.resetHandlers();
    marketplace(() => HttpResponse.json({ status: 'ERROR', error: 'too many requests' }, { status: 429 }));
    expect(await failure(c.confirmOrder({ order_id: 'X', supplier_order_id: 'MO-1' }))).toMatchObject({ kind: 'rejected', status: 429, retryable: true });
    server.resetHandlers();
    marketplace(() => HttpResponse.json({ status: 'ERROR', error: 'already confirmed by another supplier' }));
    expect(await failure(c.confirmOrder({ order_id: 'X', supplier_order_id: 'MO-1' }))).toMatchObject({ kind: 'rejected', status: 200, retryable: false });
  });

  it('when an exchange is recorded, then the PrivateKey header is redacted and the key appears nowhere', async () => {
    marketplace();
    const r = await c.confirmOrder({ order_id: 'INT-1', supplier_order_id: 'MO-1' });
    expect(r.exchange.requestHeaders.privatekey).toBe('[REDACTED]');
    const text = JSON.stringify(r.exchange);
    expect(text).not.toContain(hits[0].signature);
    expect(text).not.toContain(KEY);
    expect(r.exchange.startedAt).toBe('2026-11-21T08:00:00.000Z');
  });

  it('when required options are missing or wrong, then construction fails with a clear message', () => {
    expect(() => new HttpMarketplaceClient({ baseUrl: '', userId: '1001', privateKey: KEY })).toThrow(/missing option\(s\) baseUrl/);
    expect(() => new HttpMarketplaceClient({ baseUrl: BASE, userId: '', privateKey: '' })).toThrow(/userId, privateKey/);
    expect(() => new HttpMarketplaceClient({ baseUrl: 'marketplace.test', userId: '1', privateKey: KEY })).toThrow(/http\(s\) URL/);
    expect(() => new HttpMarketplaceClient({ baseUrl: BASE, userId: '1', privateKey: KEY, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
