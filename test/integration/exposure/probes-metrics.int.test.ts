import { ManualClock } from '../../../src/shared/clock';
import { capturedLogger } from '../../support/logs';
import { startTestApp, backend } from '../../support/test-app';
import { client } from '../../support/http';
import { operator } from '../../support/fixtures';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';

describe(`Probes, metrics and traces for the on-call engineer (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const { logger, lines } = capturedLogger('info');
  const svc = useTestApp({ clock, env: { LOG_LEVEL: 'info' }, logger });

  const auditCount = async () => Number((await svc.app.db('audit_log').count<{ count: string }[]>('* as count'))[0].count);

  it('when a balancer probes /healthz and /readyz, then they answer without a token and leave no audit row', async () => {
    const before = await auditCount();
    const health = await svc.call('GET', '/healthz');
    const ready = await svc.call('GET', '/readyz');
    expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready' }]);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await auditCount()).toBe(before);
  });

  it('when a migration is missing from the database, then /readyz answers 503 and the metrics say not ready', async () => {
    const [last] = await svc.app.db('knex_migrations').orderBy('id', 'desc').limit(1);
    await svc.app.db('knex_migrations').where({ id: last.id }).delete();
    try {
      clock.advance(2000); // past the probe's one-second memory
      const ready = await svc.call('GET', '/readyz');
      expect([ready.status, ready.body]).toEqual([503, { status: 'not_ready' }]);
      const metrics = await svc.call('GET', '/metrics', { headers: { Authorization: `Bearer ${svc.app.operatorToken}` } });
      expect(metrics.text).toMatch(/^service_ready 0$/m);
    } finally {
      await svc.app.db('knex_migrations').insert(last);
      clock.advance(2000);
    }
    expect((await svc.call('GET', '/readyz')).status).toBe(200);
  });

  it('when Prometheus scrapes /metrics, then it needs an operator token and finds the request, outbox, webhook, audit, limit and pool series', async () => {
    expect((await svc.call('GET', '/metrics')).status).toBe(401);
    const { testKey } = await operator(svc.app.url).partnerWithKeys('Metrics Partner');
    await svc.call('GET', '/transfers/v1/ping', { key: testKey });
    await svc.call('GET', '/transfers/v1/bookings/NOSUCH22', { key: testKey });
    const r = await svc.call('GET', '/metrics', { headers: { Authorization: `Bearer ${svc.app.operatorToken}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    for (const series of [
      /^http_requests_total\{surface="transfers",operation="getPing",status="200"\} 1$/m,
      /^http_requests_total\{surface="transfers",operation="getBooking",status="404"\} 1$/m,
      /^http_request_duration_seconds_bucket\{le="0\.005",surface="transfers",operation="getPing"\} \d+$/m,
      /^outbox_pending\{channel="webhooks"\} 0$/m,
      /^outbox_oldest_pending_seconds\{channel="marketplace"\} 0$/m,
      /^outbox_failed\{channel="marketplace"\} 0$/m,
      /^webhook_endpoints_disabled 0$/m,
      /^marketplace_confirmation_oldest_pending_seconds 0$/m,
      /^audit_write_failures_total 0$/m,
      /^service_ready 1$/m,
      /^db_pool_connections\{state="used"\} \d+$/m,
      /^process_cpu_seconds_total \d/m,
      /^nodejs_eventloop_lag_seconds \d/m,
    ]) {
      expect([series.source, series.test(r.text)]).toEqual([series.source, true]);
    }
    // Each scrape is audited with the size and digest of the text, not the text.
    const row = await svc.app
      .db('audit_log')
      .where({ requestId: r.headers.get('x-request-id') })
      .first();
    expect(row).toMatchObject({ surface: 'metrics', status: 200, operatorId: 'bootstrap' });
    expect(row.responseBody).toEqual({
      $document: expect.stringMatching(/^text\/plain/),
      bytes: Buffer.byteLength(r.text),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('when a caller sends a W3C traceparent, then its trace id is in the audit row and the log line; a malformed one is ignored', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const r = await svc.call('GET', '/transfers/v1/ping', { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    const row = await svc.app
      .db('audit_log')
      .where({ requestId: r.headers.get('x-request-id') })
      .first();
    expect(row.traceId).toBe(traceId);
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.requestId === r.headers.get('x-request-id'));
    expect(line).toMatchObject({ msg: 'request', traceId, status: 401 });
    const bad = await svc.call('GET', '/transfers/v1/ping', { headers: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` } });
    expect(
      (
        await svc.app
          .db('audit_log')
          .where({ requestId: bad.headers.get('x-request-id') })
          .first()
      ).traceId,
    ).toBeNull();
  });
});

describe(`Pause means pause (${backend})`, () => {
  it('when a partner is paused after quoting, then booking that offer is refused 409 partner_paused; a booking made before is still read back', async () => {
    const app = await startTestApp();
    try {
      const call = client(app.url);
      const ops = operator(app.url);
      const partner = await ops.partnerWithKeys('Paused Partner');
      const quoteBody = {
        pickup: { iata: 'CMB' },
        dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
        pickup_datetime: '2026-12-01T09:30:00+05:30',
        passengers: { adults: 2 },
      };
      const q = await call('POST', '/transfers/v1/quotes', { key: partner.liveKey, body: quoteBody });
      expect(q.body.offers.length).toBeGreaterThan(1);
      const booking = (offerId: string, ref: string) => ({
        quote_id: q.body.quote_id,
        offer_id: offerId,
        partner_reference: ref,
        passenger: { first_name: 'Ayesha', last_name: 'Perera' },
        passengers: { adults: 2 },
        flight_number: 'UL504',
      });
      const first = await call('POST', '/transfers/v1/bookings', { key: partner.liveKey, body: booking(q.body.offers[0].offer_id, 'PAUSE-1') });
      expect(first.status).toBe(201);
      expect((await ops.call('POST', `/partners/${partner.partner_id}/pause`)).status).toBe(200);

      const refused = await call('POST', '/transfers/v1/bookings', { key: partner.liveKey, body: booking(q.body.offers[1].offer_id, 'PAUSE-2') });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toEqual({
        code: 'booking_conflict',
        message: 'Booking is paused on this account, as quoting is; contact the service operator.',
        details: { reason: 'partner_paused', offer_id: q.body.offers[1].offer_id },
      });
      expect(await app.db('bookings').where({ partnerReference: 'PAUSE-2' })).toEqual([]);
      // The booking made before the pause is answered as it was (a retry of it changes nothing).
      const retry = await call('POST', '/transfers/v1/bookings', { key: partner.liveKey, body: booking(q.body.offers[0].offer_id, 'PAUSE-1') });
      expect([retry.status, retry.body.booking_ref]).toEqual([200, first.body.booking_ref]);
      expect((await call('GET', `/transfers/v1/bookings/${first.body.booking_ref}`, { key: partner.liveKey })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
