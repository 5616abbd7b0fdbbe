import { backend } from '../../support/test-app';
import type { Reply } from '../../support/http';
import { bookTransfer, startWebhookTestApp, type WebhookTestApp } from '../../support/webhooks';
import type { Clock } from '../../../src/shared/clock';

/**
 * The partner's workbench (issue 22): its own request log and a booking's timeline, read from the audit log. What a
 * partner engineer checks at 2 a.m.: every request of theirs is there with what we answered, newest first, pages
 * that neither skip nor repeat, the exchange with secrets redacted, nothing of another partner's or environment's,
 * 30 days back; and a booking's story with its events and each delivery attempt.
 */
/**
 * The audit log stamps rows with the database's time, so this file's clock runs with real time (moved on by
 * `advance`): the log's 30-day window and a timeline's order compare the two.
 */
class RunningClock implements Clock {
  private offset = 0;
  now = () => new Date(Date.now() + this.offset);
  advance = (ms: number) => void (this.offset += ms);
  reset = () => void (this.offset = 0);
}
/** Three days ahead, at 09:30 in Colombo. */
const pickup = () => `${new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10)}T09:30:00+05:30`;
type Row = {
  request_id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
  error_code: string | null;
};

describe(`The partner's request log and booking timeline (${backend})`, () => {
  let h: WebhookTestApp;
  const clock = new RunningClock();

  beforeAll(async () => {
    h = await startWebhookTestApp({ clock });
  });
  afterAll(() => h.close());
  afterEach(() => clock.reset());

  async function all(key: string, query = '', limit = 100): Promise<Row[]> {
    const rows: Row[] = [];
    let before: string | null = null;
    for (;;) {
      const r: Reply = await h.call('GET', `/transfers/v1/requests?limit=${limit}${query}${before ? `&before=${before}` : ''}`, { key });
      expect(r.status).toBe(200);
      rows.push(...r.body.data);
      before = r.body.next;
      if (!before) return rows;
    }
  }

  it('when a partner quotes, books, errs and reads, then its log lists each request newest first with status, timing, key and error code, but not its own reads', async () => {
    const p = await h.ops.partnerWithKeys('Log Partner');
    const booking = await bookTransfer(h.call, p.testKey, pickup());
    const bad = await h.call('POST', '/transfers/v1/quotes', { key: p.testKey, body: { pickup: { iata: 'CMB' } } });
    expect(bad.status).toBe(400);
    const read = await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref}`, { key: p.testKey });

    const first = await h.call('GET', '/transfers/v1/requests', { key: p.testKey });
    expect(first.status).toBe(200);
    expect(first.body.env).toBe('sandbox');
    const rows: Row[] = first.body.data;
    expect(rows.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', `/transfers/v1/bookings/${booking.booking_ref}`, 200],
      ['POST', '/transfers/v1/quotes', 400],
      ['POST', '/transfers/v1/bookings', 201],
      ['POST', '/transfers/v1/quotes', 200],
    ]);
    expect(rows[0].request_id).toBe(read.headers.get('x-request-id'));
    expect(rows[1]).toMatchObject({ request_id: bad.headers.get('x-request-id'), error_code: 'invalid_request', idempotency_key: null });
    expect(rows[2].idempotency_key).toMatch(/^wh-/);
    expect(rows[2].error_code).toBeNull();
    for (const r of rows) {
      expect(Number.isInteger(r.duration_ms)).toBe(true);
      expect(Date.parse(r.at)).not.toBeNaN();
    }
    expect(first.body.next).toBeNull();

    // Reading the log again lists the same four: its own reads are audited, not listed.
    const again = await h.call('GET', '/transfers/v1/requests', { key: p.testKey });
    expect(again.body.data).toEqual(rows);
    const audited = await h.ops.audit({ partner_id: p.partner_id, path: '/transfers/v1/requests' });
    expect(audited.map((a) => a.request_id).sort()).toEqual([first.headers.get('x-request-id'), again.headers.get('x-request-id')].sort());
  });

  it('when a request is read, then it carries what was sent and answered, with the key and any secret the client put anywhere redacted', async () => {
    const p = await h.ops.partnerWithKeys('Detail Partner');
    const booking = await bookTransfer(h.call, p.testKey, pickup());
    const leaky = await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref}?apikey=${p.testKey}`, { key: p.testKey });
    expect(leaky.status).toBe(400); // an unknown parameter; the key in it travelled all the same
    const [made] = (await all(p.testKey, '&path_prefix=/transfers/v1/bookings&status=201')).filter((r) => r.method === 'POST');

    const detail = await h.call('GET', `/transfers/v1/requests/${made.request_id}`, { key: p.testKey });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ env: 'sandbox', request_id: made.request_id, method: 'POST', path: '/transfers/v1/bookings', status: 201 });
    expect(detail.body.request.body.passenger).toMatchObject({ first_name: 'Ayesha', last_name: 'Perera' });
    expect(detail.body.request.headers['idempotency-key']).toBe(made.idempotency_key);
    expect(detail.body.response.body).toMatchObject({ booking_ref: booking.booking_ref, status: 'confirmed' });
    expect(detail.body.response.headers['x-request-id']).toBe(made.request_id);

    const leak = await h.call('GET', `/transfers/v1/requests/${leaky.headers.get('x-request-id')}`, { key: p.testKey });
    const secret = p.testKey.slice(p.testKey.lastIndexOf('_') + 1);
    expect(JSON.stringify(leak.body)).not.toContain(secret);
    expect(JSON.stringify(detail.body)).not.toContain(secret);
    expect(leak.body.path).toBe(`/transfers/v1/bookings/${booking.booking_ref}?apikey=%5BREDACTED%5D`);
    expect(leak.body.request.headers.authorization).toMatch(/^Bearer svc_sk_test_[0-9a-z]+_\[REDACTED\]$/);
  });

  it('when another partner, or the other environment, asks, then the request is not there: 404, and never listed', async () => {
    const a = await h.ops.partnerWithKeys('Isolated A');
    const b = await h.ops.partnerWithKeys('Isolated B');
    await bookTransfer(h.call, a.testKey, pickup());
    const live = await h.call('GET', '/transfers/v1/ping', { key: a.liveKey });
    const [aRow] = await all(a.testKey);

    expect((await h.call('GET', `/transfers/v1/requests/${aRow.request_id}`, { key: b.testKey })).status).toBe(404);
    expect((await h.call('GET', `/transfers/v1/requests/${aRow.request_id}`, { key: a.liveKey })).status).toBe(404);
    expect(await all(b.testKey)).toEqual([]);
    // A live key reads its own production log: the ping, and neither sandbox request.
    const production = await h.call('GET', '/transfers/v1/requests', { key: a.liveKey });
    expect(production.body.env).toBe('production');
    expect(production.body.data.map((r: Row) => r.request_id)).toEqual([live.headers.get('x-request-id')]);
    expect((await h.call('GET', `/transfers/v1/requests/${live.headers.get('x-request-id')}`, { key: a.testKey })).status).toBe(404);
  });

  it('when the log is paged while new requests arrive, then no row is skipped or repeated, and filters by status and path hold', async () => {
    const p = await h.ops.partnerWithKeys('Paging Partner');
    for (let i = 0; i < 12; i += 1) await h.call('GET', i % 3 ? '/transfers/v1/ping' : `/transfers/v1/bookings/NOPE${i}`, { key: p.testKey });
    const before = await all(p.testKey);
    expect(before).toHaveLength(12);

    const seen: Row[] = [];
    let cursor: string | null = null;
    do {
      const r: Reply = await h.call('GET', `/transfers/v1/requests?limit=5${cursor ? `&before=${cursor}` : ''}`, { key: p.testKey });
      seen.push(...r.body.data);
      cursor = r.body.next;
      await h.call('GET', '/transfers/v1/ping', { key: p.testKey }); // newer than every page: never shifts one
    } while (cursor);
    expect(seen.map((r) => r.request_id)).toEqual(before.map((r) => r.request_id));

    const notFound = await all(p.testKey, '&status=404', 2);
    expect(notFound).toHaveLength(4);
    expect(notFound.every((r) => r.status === 404 && r.error_code === 'not_found')).toBe(true);
    expect(await all(p.testKey, '&status=4xx')).toEqual(notFound);
    expect(await all(p.testKey, '&status=error')).toEqual(notFound);
    expect((await all(p.testKey, '&status=2xx')).every((r) => r.status === 200)).toBe(true);
    expect((await all(p.testKey, '&path_prefix=/transfers/v1/bookings/NOPE')).map((r) => r.request_id)).toEqual(notFound.map((r) => r.request_id));
    expect(await all(p.testKey, '&path_prefix=/transfers/v1/bookings/NOPE_')).toEqual([]); // _ is a character, not a wildcard

    for (const q of ['status=abc', 'status=600', 'before=xyz', 'limit=0', 'limit=101', 'path_prefix=nope']) {
      const r = await h.call('GET', `/transfers/v1/requests?${q}`, { key: p.testKey });
      expect([q, r.status, r.body.error.code]).toEqual([q, 400, 'invalid_request']);
    }
  });

  it('when 30 days have passed, then a request is out of the log and its detail is 404', async () => {
    const p = await h.ops.partnerWithKeys('Old Partner');
    const ping = await h.call('GET', '/transfers/v1/ping', { key: p.testKey });
    clock.advance(29 * 86_400_000);
    expect((await all(p.testKey)).map((r) => r.request_id)).toEqual([ping.headers.get('x-request-id')]);
    clock.advance(2 * 86_400_000);
    expect(await all(p.testKey)).toEqual([]);
    expect((await h.call('GET', `/transfers/v1/requests/${ping.headers.get('x-request-id')}`, { key: p.testKey })).status).toBe(404);
  });

  it('when a booking is made, read, amended, advanced and its events delivered (one attempt refused), then its timeline tells it all in time order', async () => {
    const p = await h.ops.partnerWithKeys('Timeline Partner');
    const { rx, id: endpointId } = await h.endpoint(p.testKey);
    const answers = [200, 500];
    rx.setResponder(() => answers.shift() ?? 200);
    const booking = await bookTransfer(h.call, p.testKey, pickup());
    await h.deliver();
    const read = await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref.toLowerCase()}`, { key: p.testKey });
    const amend = await h.call('PATCH', `/transfers/v1/bookings/${booking.booking_ref}`, {
      key: p.testKey,
      headers: { 'If-Match': read.headers.get('etag')!, 'Idempotency-Key': `tl-${Date.now()}` },
      body: { notes: 'Sign: Perera family' },
    });
    expect(amend.status).toBe(200);
    const stale = await h.call('PATCH', `/transfers/v1/bookings/${booking.booking_ref}`, {
      key: p.testKey,
      headers: { 'If-Match': read.headers.get('etag')!, 'Idempotency-Key': `tl2-${Date.now()}` },
      body: { notes: 'again' },
    });
    expect(stale.status).toBe(412);
    await h.deliver(); // booking.amended: refused (500)
    clock.advance(5_000);
    await h.deliver(); // and delivered on its retry
    const other = await bookTransfer(h.call, p.testKey, pickup()); // another booking: not in this one's timeline

    const r = await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref}/timeline`, { key: p.testKey });
    expect(r.status).toBe(200);
    expect(r.body.booking_ref).toBe(booking.booking_ref);
    const line = r.body.data.map((e: Record<string, unknown>) =>
      e.kind === 'request'
        ? `request ${e.method} ${e.status}`
        : e.kind === 'event'
          ? `event ${e.type} ${e.sequence}`
          : `delivery ${e.type} a${e.attempt} ${e.status}`,
    );
    expect(line).toEqual([
      'request POST 201',
      'event booking.confirmed 1',
      'delivery booking.confirmed a1 200',
      'request GET 200',
      'request PATCH 200',
      'event booking.amended 2',
      'request PATCH 412',
      'delivery booking.amended a1 500',
      'delivery booking.amended a2 200',
    ]);
    const ats = r.body.data.map((e: { at: string }) => e.at);
    expect([...ats].sort()).toEqual(ats);
    const delivery = r.body.data.find((e: { kind: string }) => e.kind === 'delivery');
    expect(delivery).toMatchObject({ endpoint_id: endpointId, event_id: expect.stringMatching(/^evt_/), delivery_id: expect.any(String), error: null });
    expect(r.body.data.find((e: { status: number }) => e.status === 412)).toMatchObject({
      error_code: 'precondition_failed',
      path: `/transfers/v1/bookings/${booking.booking_ref}`,
    });
    expect(JSON.stringify(r.body)).not.toContain(other.booking_ref);

    // Reading it again: the timeline's own reads are not in it, nor in the log.
    const again = await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref}/timeline`, { key: p.testKey });
    expect(again.body.data).toEqual(r.body.data);
    expect((await all(p.testKey)).some((x) => x.path.endsWith('/timeline'))).toBe(false);

    // The deliveries list tells where each stands.
    const list = await h.call('GET', `/transfers/v1/webhook_deliveries?endpoint_id=${endpointId}`, { key: p.testKey });
    expect(list.body.data.map((d: Record<string, unknown>) => [d.type, d.status, d.attempts, d.last_status])).toEqual([
      ['booking.confirmed', 'pending', 0, null],
      ['booking.amended', 'delivered', 2, 200],
      ['booking.confirmed', 'delivered', 1, 200],
    ]);

    // Another partner, or the other environment, has no such booking.
    const stranger = await h.ops.partnerWithKeys('Timeline Stranger');
    expect((await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref}/timeline`, { key: stranger.testKey })).status).toBe(404);
    expect((await h.call('GET', `/transfers/v1/bookings/${booking.booking_ref}/timeline`, { key: p.liveKey })).status).toBe(404);
    expect((await h.call('GET', `/transfers/v1/webhook_deliveries`, { key: stranger.testKey })).body.data).toEqual([]);
  });
});
