import { ManualClock } from '../../../src/shared/clock';
import { quoteAndBook } from '../../support/bookings';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';

/**
 * Statements: what each booking owes by its status (a completed one its price, a no-show its no-show fee, a
 * cancelled one its fee, an open one its price, not final), totals that are the sums of their lines, pickup dates
 * in Sri Lanka time, one partner and environment only, CSV on request, and the operator's view of the same.
 */
describe(`Statements (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Statement Travel', resetClock: true });
  const refs: Record<string, string> = {};

  beforeAll(async () => {
    // Pickups on 1 and 2 December (Sri Lanka), one of each fate; the no-show fee is 80 % under new terms.
    await svc.ops.call('PUT', `/partners/${svc.partner.partner_id}/terms`, {
      body: { cancellation_fees: [{ hours_before: 24, percent: 50 }], no_show_percent: 80, price_adjustment_percent: 0 },
    });
    const book = async (name: string, pickupDatetime: string) => {
      refs[name] = (await quoteAndBook(svc.call, svc.partner.testKey, { pickupDatetime, reference: `ST-${name}` })).booking.booking_ref;
    };
    await book('completed', '2026-12-01T09:30:00+05:30');
    await book('no_show', '2026-12-01T14:00:00+05:30');
    await book('cancelled', '2026-12-02T00:30:00+05:30'); // 2 December in Sri Lanka, 1 December in UTC
    await book('open', '2026-12-02T09:30:00+05:30');
    await book('later', '2026-12-03T09:30:00+05:30');
    const advance = (ref: string, to: string) =>
      svc.call('POST', `/transfers/v1/test_helpers/bookings/${ref}/advance`, { key: svc.partner.testKey, body: { to } });
    await advance(refs.completed, 'completed');
    await advance(refs.no_show, 'no_show');
    clock.set('2026-12-01T12:00:00Z'); // inside the 24-hour tier of the cancelled one
    await svc.call('POST', `/transfers/v1/bookings/${refs.cancelled}/cancel`, { key: svc.partner.testKey });
    clock.set(NOW);
    // Another partner's and a production booking on the same days never show.
    const other = await svc.ops.partnerWithKeys('Someone Else');
    await quoteAndBook(svc.call, other.testKey, { pickupDatetime: '2026-12-01T09:30:00+05:30' });
    await quoteAndBook(svc.call, svc.partner.liveKey, { pickupDatetime: '2026-12-01T09:30:00+05:30' });
  });

  const statement = (query: string, headers: Record<string, string> = {}) =>
    svc.call('GET', `/transfers/v1/statements?${query}`, { key: svc.partner.testKey, headers });

  it('when the statement of 1–2 December is read, then each booking owes by its fate, and the totals are the sums of the lines', async () => {
    const r = await statement('from=2026-12-01&to=2026-12-02');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ env: 'sandbox', currency: 'USD', from: '2026-12-01', to: '2026-12-02' });
    expect(r.body.lines).toEqual([
      {
        booking_ref: refs.completed,
        partner_reference: 'ST-completed',
        pickup_datetime: '2026-12-01T09:30:00+05:30',
        status: 'completed',
        price: 35.3,
        cancellation_fee: null,
        amount_due: 35.3,
        final: true,
      },
      {
        booking_ref: refs.no_show,
        partner_reference: 'ST-no_show',
        pickup_datetime: '2026-12-01T14:00:00+05:30',
        status: 'no_show',
        price: 35.3,
        cancellation_fee: null,
        amount_due: 28.24,
        final: true,
      },
      {
        booking_ref: refs.cancelled,
        partner_reference: 'ST-cancelled',
        pickup_datetime: '2026-12-02T00:30:00+05:30',
        status: 'cancelled',
        price: 35.3,
        cancellation_fee: 17.65,
        amount_due: 17.65,
        final: true,
      },
      {
        booking_ref: refs.open,
        partner_reference: 'ST-open',
        pickup_datetime: '2026-12-02T09:30:00+05:30',
        status: 'confirmed',
        price: 35.3,
        cancellation_fee: null,
        amount_due: 35.3,
        final: false,
      },
    ]);
    const cents = (n: number) => Math.round(n * 100);
    const sum = r.body.lines.reduce((n: number, l: { amount_due: number }) => n + cents(l.amount_due), 0);
    const finalSum = r.body.lines.filter((l: { final: boolean }) => l.final).reduce((n: number, l: { amount_due: number }) => n + cents(l.amount_due), 0);
    expect(r.body.totals).toEqual({ amount_due: sum / 100, final_amount_due: finalSum / 100, bookings: 4 });
    expect(r.body.totals.amount_due).toBe(116.49);
  });

  it('when asked for CSV, then the same lines come as CSV with money in all its decimals', async () => {
    const r = await statement('from=2026-12-01&to=2026-12-01', { Accept: 'text/csv' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.text).toBe(
      'booking_ref,partner_reference,pickup_datetime,status,price,cancellation_fee,amount_due,final\r\n' +
        `${refs.completed},ST-completed,2026-12-01T09:30:00+05:30,completed,35.30,,35.30,true\r\n` +
        `${refs.no_show},ST-no_show,2026-12-01T14:00:00+05:30,no_show,35.30,,28.24,true\r\n`,
    );
    const audit = await svc.app
      .db('audit_log')
      .where({ requestId: r.headers.get('x-request-id')! })
      .first();
    expect(audit.responseBody).toBe(r.text);
  });

  it('when the range is backwards or longer than 92 days, then 400 naming to', async () => {
    for (const q of ['from=2026-12-02&to=2026-12-01', 'from=2026-01-01&to=2026-12-31']) {
      const r = await statement(q);
      expect(r.status).toBe(400);
      expect(r.body.error.details.fields[0].field).toBe('to');
    }
  });

  it("when an operator reads the partner's statement, then it is the same, per environment", async () => {
    const sandbox = await svc.ops.call('GET', `/partners/${svc.partner.partner_id}/statements?env=sandbox&from=2026-12-01&to=2026-12-02`);
    const partner = await statement('from=2026-12-01&to=2026-12-02');
    expect(sandbox.status).toBe(200);
    expect(sandbox.body).toEqual({ ...partner.body, partner_id: svc.partner.partner_id });
    const production = await svc.ops.call('GET', `/partners/${svc.partner.partner_id}/statements?env=production&from=2026-12-01&to=2026-12-02`);
    expect(production.body.lines).toHaveLength(1);
    expect(production.body.totals.bookings).toBe(1);
  });
});
