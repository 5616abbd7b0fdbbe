import { type Call } from '../../support/http';
import { useTestApp } from '../../support/use-test-app';

describe('Bad input gets a clear answer and changes nothing', () => {
  const svc = useTestApp({ partner: 'Test Partner' });

  const quote = (opts: Parameters<Call>[2]) => svc.call('POST', '/transfers/v1/quotes', { key: svc.partner.testKey, ...opts });

  it('when the JSON is malformed, then 400 invalid_request', async () => {
    const r = await quote({ rawBody: '{"pickup": ', headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.fields).toEqual([{ field: 'body', message: 'must be valid JSON' }]);
  });

  it('when the content type is not JSON, then 400 naming Content-Type', async () => {
    const r = await quote({ rawBody: 'pickup=CMB', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields[0].field).toBe('Content-Type');
  });

  it('when fields have wrong types or are unknown, then 400 naming each field', async () => {
    const r = await quote({
      body: {
        pickup: { iata: 'CMB', colour: 'red' },
        dropoff: { name: 42 },
        pickup_datetime: '2026-12-01T10:00:00',
        passengers: { adults: 'two', luggage: -1 },
        extra: true,
      },
    });
    expect(r.status).toBe(400);
    const fields = r.body.error.details.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['extra', 'pickup.colour', 'dropoff.name', 'pickup_datetime', 'passengers.adults', 'passengers.luggage'].sort());
    expect(r.body.env).toBe('sandbox');
  });

  it('when the body is over 64 KiB, then 413 in the error envelope', async () => {
    const r = await quote({ body: { pickup: { name: 'x'.repeat(70 * 1024) } } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
    const rows = await svc.app.db('audit_log').where({ requestId: r.headers.get('x-request-id')! });
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe(413);
  });

  it('when a path is unknown, then 404 not_found in the envelope', async () => {
    const r = await svc.call('GET', '/wp-admin');
    expect(r.status).toBe(404);
    expect(r.headers.get('x-service-env')).toBe('none');
    expect(r.body).toEqual({ env: null, error: { code: 'not_found', message: expect.any(String), details: {} } });
  });

  it('when a body holds NUL characters, then it is answered and audited, never a 5xx', async () => {
    const r = await quote({ body: { pickup: { name: 'Galle\u0000' }, dropoff: { iata: 'CMB' }, passengers: { adults: 1 } } });
    expect(r.status).toBe(400);
  });
});
