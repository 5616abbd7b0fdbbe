import { ManualClock } from '../../../src/shared/clock';
import { useTestApp } from '../../support/use-test-app';
import { quoteAndBook } from '../../support/bookings';

const clock = new ManualClock('2026-11-21T08:00:00Z');

/** Everything stored about the booking's traveller, as text, from the tables that hold it and the audit log. */
async function stored(svc: ReturnType<typeof useTestApp>, bookingRef: string) {
  const rows = await svc.app.db.raw(
    `select b::text as t from bookings b where booking_ref = ? union all select a::text from audit_log a union all select k::text from idempotency_keys k`,
    [bookingRef],
  );
  return (rows.rows as Array<{ t: string }>).map((r) => r.t).join('\n');
}

describe('A partner erases its traveller’s personal data (POST /bookings/{booking_ref}/erase)', () => {
  const svc = useTestApp({ clock, partner: 'Privacy Partner' });

  it('while the ride is pending, then 409 ride_pending and nothing changes; once cancelled, then erased everywhere, the audit rows kept', async () => {
    const key = svc.partner.testKey;
    const { booking } = await quoteAndBook(svc.call, key, { reference: 'PRIV-1' });
    const ref = booking.booking_ref;
    // Sealed in the audit log: the traveller's name is not there as text, but the partner's request log shows it.
    expect(await stored(svc, ref)).toContain('Ayesha'); // the booking row and the stored replay hold it as text
    const audit = await svc.app.db.raw(`select request_body::text as b from audit_log where path = '/transfers/v1/bookings' and method = 'POST'`);
    expect(audit.rows[0].b).not.toContain('Ayesha');
    expect(audit.rows[0].b).toMatch(/"passenger": "pd1:booking:/);
    const requestId = (await svc.app.db.raw(`select request_id from audit_log where path = '/transfers/v1/bookings' and method = 'POST'`)).rows[0].request_id;
    const logged = await svc.call('GET', `/transfers/v1/requests/${requestId}`, { key });
    expect(logged.body.request.body.passenger.first_name).toBe('Ayesha');

    const pending = await svc.call('POST', `/transfers/v1/bookings/${ref}/erase`, { key });
    expect(pending.status).toBe(409);
    expect(pending.body.error).toMatchObject({ code: 'booking_conflict', details: { reason: 'ride_pending', booking_ref: ref, status: 'confirmed' } });
    const read = await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key });
    if (read.status !== 200) throw new Error(read.text);
    expect(read.body.passenger.first_name).toBe('Ayesha');

    expect((await svc.call('POST', `/transfers/v1/bookings/${ref}/cancel`, { key })).status).toBe(200);
    const auditRows = Number((await svc.app.db.raw('select count(*) as n from audit_log')).rows[0].n);
    const erased = await svc.call('POST', `/transfers/v1/bookings/${ref}/erase`, { key });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ booking_ref: ref, status: 'cancelled', passenger: null, flight_number: null, notes: null, meeting_instructions: null });
    expect(erased.body.erased_at).toBe(clock.now().toISOString());
    expect(erased.body.dropoff.name).toBeNull();
    expect(erased.body.dropoff.resolved_name).toEqual(expect.any(String));
    // Again: the same answer.
    const again = await svc.call('POST', `/transfers/v1/bookings/${ref}/erase`, { key });
    expect(again.body).toEqual(erased.body);
    expect((await svc.call('GET', `/transfers/v1/bookings/${ref}`, { key })).body).toEqual(erased.body);

    expect(await stored(svc, ref)).not.toMatch(/Ayesha|Perera|ayesha@example\.com|\+94771234567|UL504|Cinnamon Grand/);
    // One audit row per request, before and after: the erasure added its own two, and removed none.
    expect(Number((await svc.app.db.raw('select count(*) as n from audit_log')).rows[0].n)).toBe(auditRows + 3);
    const after = await svc.call('GET', `/transfers/v1/requests/${requestId}`, { key });
    // The passenger was sealed whole: it reads as erased whole; the rest of the request as it was.
    expect(after.body.request.body.passenger).toBe('[erased]');
    expect(after.body.request.body.passengers).toEqual({ adults: 2, luggage: 2 });
    expect(after.body.request.body.quote_id).toEqual(expect.any(String));
  });

  it('another partner’s booking, or an unknown one, is 404', async () => {
    const other = await svc.ops.partnerWithKeys('Other Partner');
    const { booking } = await quoteAndBook(svc.call, svc.partner.testKey, { reference: 'PRIV-2' });
    expect((await svc.call('POST', `/transfers/v1/bookings/${booking.booking_ref}/erase`, { key: other.testKey })).status).toBe(404);
    expect((await svc.call('POST', '/transfers/v1/bookings/ZZZZZZZZ/erase', { key: svc.partner.testKey })).status).toBe(404);
  });
});
