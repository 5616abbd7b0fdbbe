import { useTestApp } from '../../support/use-test-app';

const PICKUP = '2026-12-01T09:30:00+05:30';
const QUOTE = { pickup: { iata: 'CMB' }, dropoff: { name: 'Kandy' }, pickup_datetime: PICKUP, passengers: { adults: 2, luggage: 1 } };
let seq = 0;

describe('Simulated faults in sandbox (Sandbox-Simulate)', () => {
  const svc = useTestApp({ partner: 'Fault Finder' });

  async function offer(key = svc.partner.testKey) {
    const q = await svc.call('POST', '/transfers/v1/quotes', { key, body: QUOTE });
    return { quoteId: q.body.quote_id as string, offerId: q.body.offers[0].offer_id as string };
  }
  function bookingBody(o: { quoteId: string; offerId: string }) {
    seq += 1;
    return {
      quote_id: o.quoteId,
      offer_id: o.offerId,
      partner_reference: `SIM-${seq}`,
      passenger: { first_name: 'Nimal', last_name: 'Silva' },
      passengers: { adults: 2, luggage: 1 },
      flight_number: 'UL504',
    };
  }
  async function booking() {
    const r = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body: bookingBody(await offer()),
      headers: { 'Idempotency-Key': `sim-${++seq}` },
    });
    expect(r.status).toBe(201);
    return r.body.booking_ref as string;
  }

  /** Every transfers operation that needs a key, as a request a partner could send (valid, so only the fault differs). */
  async function everyOperation() {
    const o = await offer();
    const ref = await booking();
    const list: Array<{ name: string; method: string; path: string; body?: unknown; headers?: Record<string, string> }> = [
      { name: 'getPing', method: 'GET', path: '/transfers/v1/ping' },
      { name: 'createQuote', method: 'POST', path: '/transfers/v1/quotes', body: QUOTE },
      { name: 'createBooking', method: 'POST', path: '/transfers/v1/bookings', body: bookingBody(o), headers: { 'Idempotency-Key': `sim-op-${++seq}` } },
      { name: 'getBooking', method: 'GET', path: `/transfers/v1/bookings/${ref}` },
      { name: 'cancelBooking', method: 'POST', path: `/transfers/v1/bookings/${ref}/cancel` },
      { name: 'expireOffer', method: 'POST', path: `/transfers/v1/test_helpers/offers/${o.offerId}/expire` },
      { name: 'advanceBooking', method: 'POST', path: `/transfers/v1/test_helpers/bookings/${ref}/advance`, body: { to: 'driver_assigned' } },
      { name: 'getIntegrationReport', method: 'GET', path: '/transfers/v1/test_helpers/integration_report' },
      { name: 'pauseSandboxAccount', method: 'POST', path: '/transfers/v1/test_helpers/account/pause' },
      { name: 'resumeSandboxAccount', method: 'POST', path: '/transfers/v1/test_helpers/account/resume' },
    ];
    return { list, offer: o, ref };
  }

  const expected = {
    service_unavailable: { status: 503, code: 'service_unavailable', retryAfter: '2' },
    rate_limited: { status: 429, code: 'rate_limited', retryAfter: '2' },
    idempotency_in_progress: { status: 409, code: 'idempotency_conflict', retryAfter: '1', reason: 'in_progress' },
  } as const;

  it.each(Object.entries(expected))(
    'when %s is asked on every endpoint with a test key, then each answers it in the envelope, audited, and nothing runs',
    async (fault, want) => {
      const { list, offer: o, ref } = await everyOperation();
      for (const op of list) {
        const r = await svc.call(op.method, op.path, { key: svc.partner.testKey, body: op.body, headers: { ...op.headers, 'Sandbox-Simulate': fault } });
        expect({ op: op.name, status: r.status }).toEqual({ op: op.name, status: want.status });
        expect(r.headers.get('retry-after')).toBe(want.retryAfter);
        expect(r.headers.get('sandbox-simulated')).toBe(fault);
        expect(r.headers.get('x-service-env')).toBe('sandbox');
        expect(r.body).toEqual({
          env: 'sandbox',
          error: {
            code: want.code,
            message: expect.stringContaining(`Simulated: Sandbox-Simulate: ${fault}`),
            details: { simulated: true, ...('reason' in want ? { reason: want.reason } : {}) },
          },
        });
        const [row] = await svc.ops.audit({ request_id: r.headers.get('x-request-id')! });
        expect(row).toMatchObject({ status: want.status, env: 'sandbox', partner_id: svc.partner.partner_id, request_headers: { 'sandbox-simulate': fault } });
      }
      // Nothing ran: the booking was neither cancelled nor advanced, the offer did not expire (it books), quoting is not paused.
      expect((await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key: svc.partner.testKey })).body).toMatchObject({ status: 'confirmed', driver: null });
      expect(
        (
          await svc.call('POST', '/transfers/v1/bookings', {
            key: svc.partner.testKey,
            body: bookingBody(o),
            headers: { 'Idempotency-Key': `sim-after-${++seq}` },
          })
        ).status,
      ).toBe(201);
      expect((await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: QUOTE })).body.declined).toBeNull();
    },
  );

  it('when a booking is answered with a simulated 503, then no booking was made: the retry without the header books it (201, not a replay)', async () => {
    const body = bookingBody(await offer());
    const headers = { 'Idempotency-Key': `sim-retry-${++seq}` };
    const first = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body,
      headers: { ...headers, 'Sandbox-Simulate': 'service_unavailable' },
    });
    expect(first.status).toBe(503);
    const retry = await svc.call('POST', '/transfers/v1/bookings', { key: svc.partner.testKey, body, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when the pause helper is answered with a simulated fault, then sandbox quoting is not paused', async () => {
    const r = await svc.call('POST', '/transfers/v1/test_helpers/account/pause', { key: svc.partner.testKey, headers: { 'Sandbox-Simulate': 'rate_limited' } });
    expect(r.status).toBe(429);
    const q = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: QUOTE });
    expect(q.body.declined).toBeNull();
  });

  it('when slow is asked, then the normal answer comes, late, and says it was slowed', async () => {
    const r = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: QUOTE, headers: { 'Sandbox-Simulate': 'slow' } });
    expect(r.status).toBe(200);
    expect(r.body.offers.length).toBeGreaterThan(0);
    expect(r.headers.get('sandbox-simulated')).toBe('slow');
    const [row] = await svc.ops.audit({ request_id: r.headers.get('x-request-id')! });
    // SANDBOX_SLOW_MS is 200 in tests (10 s by default).
    expect(row.duration_ms).toBeGreaterThanOrEqual(200);
    const b = await svc.call('POST', '/transfers/v1/bookings', {
      key: svc.partner.testKey,
      body: bookingBody({ quoteId: r.body.quote_id, offerId: r.body.offers[0].offer_id }),
      headers: { 'Sandbox-Simulate': 'slow', 'Idempotency-Key': `slow-${++seq}` },
    });
    expect(b.status).toBe(201);
    expect(b.headers.get('sandbox-simulated')).toBe('slow');
  });

  it.each(['service_unavailable', 'rate_limited', 'idempotency_in_progress', 'slow'])(
    'when %s is sent with a live key, then it is ignored: production never simulates',
    async (fault) => {
      const ping = await svc.call('GET', '/transfers/v1/ping', { key: svc.partner.liveKey, headers: { 'Sandbox-Simulate': fault } });
      expect(ping.status).toBe(200);
      expect(ping.body.env).toBe('production');
      expect(ping.headers.get('sandbox-simulated')).toBeNull();
      const q = await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.liveKey, body: QUOTE, headers: { 'Sandbox-Simulate': fault } });
      expect(q.status).toBe(200);
      expect(q.headers.get('sandbox-simulated')).toBeNull();
      expect(q.body.env).toBe('production');
    },
  );

  it('when an unknown fault is asked, then 400 names the header and nothing runs', async () => {
    const r = await svc.call('POST', '/transfers/v1/test_helpers/account/pause', {
      key: svc.partner.testKey,
      headers: { 'Sandbox-Simulate': 'meteor_strike' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual([
      { field: 'sandbox-simulate', message: 'must be one of service_unavailable, rate_limited, idempotency_in_progress, slow' },
    ]);
    expect((await svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, body: QUOTE })).body.declined).toBeNull();
  });

  it('when no valid key is sent, then the header changes nothing: the uniform 401', async () => {
    const plain = await svc.call('GET', '/transfers/v1/ping');
    const r = await svc.call('GET', '/transfers/v1/ping', { headers: { 'Sandbox-Simulate': 'service_unavailable' } });
    expect(r.status).toBe(401);
    expect(r.text).toBe(plain.text);
  });
});
